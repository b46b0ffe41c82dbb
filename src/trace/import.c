/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import.c - an anonsim trace from an strace log of a UML run.
 *
 * strace sees UML's side of the disk: pread64 and pwrite64 on the images,
 * with the buffer's address and the file descriptor (so the device), and
 * UML's mappings of its memory file.  A buffer's physical page is the
 * page of the memory file mapped where it lies, as the recorder's preload
 * library finds it.  strace cannot see the guest write or free its memory:
 * the trace has no touch or free events, and says so in its notes, with
 * what it left out.
 */
#include <config.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/import.h"
#include "trace/internal.h"
#include "trace/strace_log.h"
#include "util/util.h"
#include "util/xalloc.h"

#define PG_SIZE 4096u

/* A mapping of the memory file in place: where a buffer's page is found. */
struct mapping {
	uint64_t addr, len, off;
};

struct importer {
	const char *log_path;
	const struct strace_import_opts *o;
	struct strace_log log;
	char *err;
	size_t errlen;

	/* the memory file: a descriptor, and its file if the log names it */
	int memfd;
	const char *memfile;
	size_t phys_map;	/* the call that maps physical memory; log.n: none */
	struct mapping *maps;
	size_t nmaps, capmaps;
	/* the disks, by device index */
	int fds[TRACE_MAX_DEVICES];
	unsigned nfds;
	uint64_t dev_end[TRACE_MAX_DEVICES];

	struct trace_header h;
	struct trace_event *evs;
	size_t nev;
	/* calls left out here (strace_log counts the rest) */
	uint64_t outside, refused, early, past, other_maps, rounded, probes;
	char refusal[400];	/* the first event the trace rules refused, and why */
};

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

/* --- the memory file --------------------------------------------------------- */

static bool is_memfile(const struct importer *im, const struct log_call *c)
{
	return c->fd == im->memfd && (!im->memfile || !c->file || c->file == im->memfile);
}

static bool maps_shared(const struct log_call *c)
{
	return c->kind == LC_MMAP && c->shared && c->fd >= 0;
}

/* Does @c move data to or from physical memory as UML maps it at boot? */
static bool disk_like(const struct importer *im, const struct log_call *c)
{
	return (c->kind == LC_READ || c->kind == LC_WRITE) && c->addr >= im->o->phys_base &&
	       c->addr - im->o->phys_base < im->o->memory;
}

/*
 * For a log begun after UML mapped its physical memory: the one file
 * other than the disks that is mapped shared.  The disks are the
 * descriptors that move data to or from where physical memory lies.
 */
static int shared_non_disk(struct importer *im)
{
	const struct strace_log *log = &im->log;
	const struct log_call *other = NULL;
	int disks[TRACE_MAX_DEVICES + 1];
	unsigned ndisks = 0, d;
	size_t i;

	for (i = 0; i < log->n && ndisks <= TRACE_MAX_DEVICES; i++) {
		for (d = 0; d < ndisks && disks[d] != log->calls[i].fd; d++)
			;
		if (d == ndisks && disk_like(im, &log->calls[i]))
			disks[ndisks++] = log->calls[i].fd;
	}
	for (i = 0; i < log->n; i++) {
		const struct log_call *c = &log->calls[i];

		for (d = 0; d < ndisks && disks[d] != c->fd; d++)
			;
		if (!maps_shared(c) || d < ndisks)
			continue;
		if (!other) {
			other = c;
			im->memfd = c->fd;
			im->memfile = c->file;
		} else if (!is_memfile(im, c)) {
			set_error(im->err, im->errlen,
				  "%s:%u: descriptors %d and %d both map a file shared: say which is the memory file (--memory-fd)",
				  im->log_path, c->line, other->fd, c->fd);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * Which file is UML's memory: the descriptor given, else the file of the
 * first shared mapping whose address less its offset is page 0's (UML's
 * mapping of physical memory as it boots), else the one file other than
 * the disks mapped shared.
 */
static int find_memfile(struct importer *im)
{
	const struct strace_log *log = &im->log;
	size_t i;

	im->phys_map = log->n;
	for (i = 0; i < log->n; i++) {
		const struct log_call *c = &log->calls[i];

		if (maps_shared(c) && c->addr - c->off == im->o->phys_base &&
		    (im->o->memory_fd < 0 || c->fd == im->o->memory_fd)) {
			im->phys_map = i;
			im->memfd = c->fd;
			im->memfile = c->file;
			return 0;
		}
	}
	if (im->o->memory_fd >= 0) {
		im->memfd = im->o->memory_fd;
		return 0;
	}
	return shared_non_disk(im);
}

/* --- where the memory file is mapped ------------------------------------------ */

static void add_mapping(struct importer *im, uint64_t addr, uint64_t len, uint64_t off)
{
	if (im->nmaps == im->capmaps) {
		im->capmaps = im->capmaps ? im->capmaps * 2 : 64;
		im->maps = xrealloc(im->maps, im->capmaps * sizeof(*im->maps),
				    "the mappings of a memory file");
	}
	im->maps[im->nmaps++] = (struct mapping){ addr, len, off };
}

/* Take [addr, addr + len) out of the mappings in place; true if it met one. */
static bool unmap_range(struct importer *im, uint64_t addr, uint64_t len)
{
	uint64_t end = addr + len;
	bool met = false;
	size_t i;

	for (i = 0; i < im->nmaps; i++) {
		struct mapping m = im->maps[i];
		uint64_t mend = m.addr + m.len;

		if (addr >= mend || m.addr >= end)
			continue;
		met = true;
		if (m.addr < addr && mend > end) {	/* a hole in its middle */
			im->maps[i].len = addr - m.addr;
			add_mapping(im, end, mend - end, m.off + (end - m.addr));
		} else if (m.addr < addr) {
			im->maps[i].len = addr - m.addr;
		} else if (mend > end) {
			im->maps[i] = (struct mapping){ end, mend - end, m.off + (end - m.addr) };
		} else {
			im->maps[i--] = im->maps[--im->nmaps];
		}
	}
	return met;
}

/* The physical page at host address @addr, or false if none is mapped there. */
static bool page_at(const struct importer *im, uint64_t addr, uint64_t *page)
{
	size_t i;

	for (i = 0; i < im->nmaps; i++)
		if (addr - im->maps[i].addr < im->maps[i].len) {
			*page = (addr - im->maps[i].addr + im->maps[i].off) / PG_SIZE;
			return *page < im->o->memory / PG_SIZE;
		}
	return false;
}

/* --- calls into events ---------------------------------------------------------- */

static struct trace_event *new_event(struct importer *im, uint64_t t_us, enum trace_kind kind)
{
	struct trace_event *ev = &im->evs[im->nev++];

	memset(ev, 0, sizeof(*ev));
	ev->time_us = t_us;
	ev->kind = kind;
	return ev;
}

/*
 * A disk transfer into or out of physical memory.  Each descriptor that
 * moves data there is a disk; UML's probe of an image's header (4136
 * bytes at 0) is rounded out to whole sectors, as the recorder does, for
 * it passes through the host page cache all the same.
 */
static int transfer_event(struct importer *im, const struct log_call *c)
{
	struct trace_event *ev;
	uint64_t page, off, end;
	unsigned d;

	if (!page_at(im, c->addr, &page)) {
		im->outside++;
		return 0;
	}
	for (d = 0; d < im->nfds && im->fds[d] != c->fd; d++)
		;
	if (d == im->nfds) {
		if (im->nfds == TRACE_MAX_DEVICES) {
			set_error(im->err, im->errlen, "%s:%u: more than %d disks", im->log_path,
				  c->line, TRACE_MAX_DEVICES);
			return EXIT_DATA;
		}
		im->fds[im->nfds++] = c->fd;
	}
	off = c->off / 512 * 512;
	end = round_up(c->off + c->len, 512);
	if (off != c->off || end != c->off + c->len) {
		im->rounded++;
		im->probes += c->kind == LC_READ;
	}
	if (end > im->dev_end[d])
		im->dev_end[d] = end;
	ev = new_event(im, c->t_us, c->kind == LC_READ ? EV_READ : EV_WRITE);
	ev->dev = d;
	ev->offset = off;
	ev->length = end - off;
	ev->page = page;
	return 0;
}

/* A mapping of the memory file from the mapping of physical memory on. */
static void mmap_event(struct importer *im, const struct log_call *c, size_t i)
{
	struct trace_event *ev;
	uint64_t len;

	if (!c->shared || !is_memfile(im, c)) {
		im->other_maps++;
		return;
	}
	if (i < im->phys_map && im->phys_map < im->log.n) {
		im->early++;
		return;
	}
	/* what lies past physical memory holds no page of the guest */
	if (c->off >= im->o->memory || c->addr % PG_SIZE || c->off % PG_SIZE || !c->len) {
		im->past++;
		return;
	}
	len = round_up(c->len, PG_SIZE);
	if (len > im->o->memory - c->off)
		len = im->o->memory - c->off;
	unmap_range(im, c->addr, len);
	add_mapping(im, c->addr, len, c->off);
	ev = new_event(im, c->t_us, EV_MMAP);
	ev->addr = c->addr;
	ev->length = len;
	ev->offset = c->off;
}

/* An unmapping of what a mapping of the memory file holds. */
static void munmap_event(struct importer *im, const struct log_call *c)
{
	struct trace_event *ev;
	uint64_t len = round_up(c->len, PG_SIZE);

	if (c->addr % PG_SIZE || !len || !unmap_range(im, c->addr, len)) {
		im->other_maps++;
		return;
	}
	ev = new_event(im, c->t_us, EV_MUNMAP);
	ev->addr = c->addr;
	ev->length = len;
}

/*
 * The events, in the order of the calls.  A log begun after UML mapped
 * its physical memory (strace -p) lacks that mapping: it is put first.
 */
static int make_events(struct importer *im)
{
	const struct strace_log *log = &im->log;
	size_t i;
	int rc = 0;

	im->evs = xmalloc((log->n + 1) * sizeof(*im->evs), "the events of a log");
	if (im->phys_map == log->n) {
		struct trace_event *ev = new_event(im, 0, EV_MMAP);

		ev->addr = im->o->phys_base;
		ev->length = im->o->memory;
		add_mapping(im, im->o->phys_base, im->o->memory, 0);
	}
	for (i = 0; !rc && i < log->n; i++) {
		const struct log_call *c = &log->calls[i];

		switch (c->kind) {
		case LC_READ:
		case LC_WRITE:
			rc = transfer_event(im, c);
			break;
		case LC_MMAP:
			mmap_event(im, c, i);
			break;
		case LC_MUNMAP:
			munmap_event(im, c);
			break;
		}
	}
	return rc;
}

/* --- the header, the trace rules, the notes ------------------------------------ */

/*
 * The header: memory, readahead, and a device per disk descriptor.  A log
 * without a disk read still needs one: the first --device, or 1 MiB.
 */
static void make_header(struct importer *im)
{
	const struct strace_import_opts *o = im->o;
	struct trace_header *h = &im->h;
	unsigned d, k;

	memset(h, 0, sizeof(*h));
	h->version = TRACE_VERSION;
	h->page_size = PG_SIZE;
	h->memory = o->memory;
	h->readahead_kb = o->readahead_kb;
	if (!im->nfds)
		im->fds[im->nfds++] = o->nr_dev ? o->dev[0].fd : -1;
	h->nr_devices = im->nfds;
	for (d = 0; d < im->nfds; d++) {
		struct trace_device *td = &h->devices[d];
		const struct strace_device_opt *given = NULL;

		for (k = 0; k < o->nr_dev; k++)
			if (o->dev[k].fd == im->fds[d])
				given = &o->dev[k];
		snprintf(td->name, sizeof(td->name), "ubd%c", 'a' + d);
		td->size = given && given->size ? given->size :
			   round_up(im->dev_end[d] ? im->dev_end[d] : 1, 1 << 20);
		if (given && given->backing[0])
			snprintf(td->backing, sizeof(td->backing), "%s", given->backing);
		else if (im->fds[d] < 0)
			snprintf(td->backing, sizeof(td->backing), "strace-no-disk");
		else
			snprintf(td->backing, sizeof(td->backing), "strace-fd%d", im->fds[d]);
	}
	snprintf(h->recorder, sizeof(h->recorder), "anonsim-trace-import from=strace");
}

/*
 * Keep the events the trace rules let in: a --device smaller than what
 * was read, a read into a page not mapped at its own address.  The first
 * one refused is named in the notes.
 */
static void keep_lawful(struct importer *im)
{
	struct trace_rules rules;
	struct trace_maps maps;
	char why[200], text[160];
	uint64_t prev = 0;
	size_t i, kept = 0;

	trace_rules_init(&rules, &im->h);
	trace_maps_init(&maps);
	for (i = 0; i < im->nev; i++) {
		const struct trace_event *ev = &im->evs[i];

		if (!trace_validate_event(&rules, prev, ev, why, sizeof(why)) &&
		    trace_maps_apply(&maps, &rules, ev, 1, why, sizeof(why)) == 1) {
			prev = ev->time_us;
			im->evs[kept++] = *ev;
			continue;
		}
		if (!im->refused++) {
			trace_format_event(&im->h, ev, text, sizeof(text));
			snprintf(im->refusal, sizeof(im->refusal), "%s: %s", text, why);
		}
	}
	trace_maps_free(&maps);
	im->nev = kept;
}

/* Add to the notes. */
static void note(struct importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct importer *im, const char *fmt, ...)
{
	size_t n = strlen(im->h.notes);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(im->h.notes + n, sizeof(im->h.notes) - n, fmt, ap);
	va_end(ap);
}

/* The notes: where the trace came from, and what it left out. */
static void make_notes(struct importer *im)
{
	static const char *const clocks[] = {
		[SC_NONE] = "\nthe log has no times: every event is at time 0, in the order of the log",
		[SC_DAY] = "\ntimes from the log's times of day (-t, -tt)",
		[SC_EPOCH] = "",
		[SC_DELTA] = "\ntimes from the sums of the log's relative times (-r)",
	};
	const struct strace_log *log = &im->log;

	im->h.notes[0] = '\0';
	note(im, "imported from an strace log: UML's disk reads and writes and its "
	     "mappings of the memory file (");
	if (im->memfile) {
		const char *c;

		/* '#' would start a comment in a text trace: as strace escapes it */
		note(im, "%d<", im->memfd);
		for (c = im->memfile; *c; c++)
			note(im, *c == '#' ? "\\x23" : *c < ' ' || *c > '~' ? "?" : "%c", *c);
		note(im, ")");
	} else if (im->memfd >= 0) {
		note(im, "descriptor %d)", im->memfd);
	} else {
		note(im, "none in the log)");
	}
	note(im, "; no touch or free events: strace does not see the guest write or free its memory");
	note(im, "\nleft out: %" PRIu64 " preadv/pwritev calls (no buffer addresses), "
	     "%" PRIu64 " failed calls, %" PRIu64 " calls unfinished when the log or their "
	     "process ended, %" PRIu64 " calls begun before the log, %" PRIu64 " transfers "
	     "outside physical memory (from 0x%" PRIx64 "), %" PRIu64 " mappings of the memory "
	     "file before it mapped physical memory or past its end, %" PRIu64 " events the "
	     "trace rules refuse", log->vector, log->failed, log->cut, log->before, im->outside,
	     im->o->phys_base, im->early + im->past, im->refused);
	if (im->refused)
		note(im, " (the first: %s)", im->refusal);
	note(im, "\nnot UML's memory or disks: %" PRIu64 " calls of other system calls, "
	     "%" PRIu64 " mappings and unmappings of other memory, %" PRIu64 " transfers of "
	     "nothing; %" PRIu64 " signal, %" PRIu64 " exit and %" PRIu64 " strace message lines",
	     log->other, im->other_maps, log->empty, log->signals, log->exits, log->messages);
	if (im->rounded)
		note(im, "\n%" PRIu64 " transfers not in whole 512-byte sectors (UML's probe of an "
		     "image's header) rounded out to them", im->rounded);
	note(im, "%s", clocks[log->clock]);
	if (log->cut_line)
		note(im, "\nthe log's last line (%u) is cut off in its middle", log->cut_line);
	if (im->phys_map == log->n)
		note(im, "\nthe mapping of physical memory UML makes as it boots was not in the log: assumed at time 0");
}

/* The trace into @out, whole or not at all; returns 0 or an exit status. */
static int write_trace(struct importer *im, const char *out)
{
	struct trace_writer *w = trace_writer_open(out, &im->h, im->err, im->errlen);
	size_t i;

	/* the header and events are held to the rules already: what fails is the disk */
	if (!w)
		return EXIT_OUTPUT;
	for (i = 0; i < im->nev; i++)
		if (trace_write(w, &im->evs[i]))
			break;	/* the commit says why */
	return trace_writer_commit(w, im->err, im->errlen) ? EXIT_OUTPUT : 0;
}

int strace_import(const char *log, const struct strace_import_opts *o,
		  const char *out, struct strace_import_result *res,
		  char *err, size_t errlen)
{
	struct importer im = { .log_path = input_name(log), .o = o, .err = err, .errlen = errlen,
			       .memfd = -1 };
	size_t i;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = strace_log_read(log, &im.log, err, errlen);
	if (!rc && !im.log.n) {
		set_error(err, errlen, "%s: no pread64, pwrite64, mmap or munmap call that did "
			  "something (record with anonsim-strace-record, or see anonsim trace import --help)",
			  im.log_path);
		rc = EXIT_DATA;
	}
	if (!rc)
		rc = find_memfile(&im);
	if (!rc)
		rc = make_events(&im);
	if (rc)
		goto out;
	make_header(&im);
	keep_lawful(&im);
	make_notes(&im);
	rc = write_trace(&im, out);
	if (rc)
		goto out;
	res->events = im.nev;
	res->left_out = im.log.vector + im.log.failed + im.log.cut + im.log.before +
			im.outside + im.early + im.past + im.refused;
	for (i = 0; i < im.nev; i++)
		res->reads += im.evs[i].kind == EV_READ;
	res->probes = im.probes;
	res->preads = im.log.preads;
	for (i = 0; i < im.log.n; i++)
		res->mapped |= im.log.calls[i].kind == LC_MMAP && maps_shared(&im.log.calls[i]) &&
			       is_memfile(&im, &im.log.calls[i]);
	res->cut_line = im.log.cut_line;
	snprintf(res->cut_name, sizeof(res->cut_name), "%s", im.log.cut_name);
out:
	free(im.evs);
	free(im.maps);
	strace_log_free(&im.log);
	return rc;
}
