/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import.c - an anonsim trace from an strace log of a UML run.
 *
 * strace sees UML's side of the disk: pread64 and pwrite64 on the images,
 * with the buffer's address (so the physical page, given where physical
 * memory starts) and the file descriptor (so the device), and UML's
 * mappings of its memory file.  It cannot see the guest write or free its
 * memory: the trace has no touch or free events, and says so in its notes.
 * Calls are gathered first, as lines of several processes interleave and a
 * call can be split over two lines (<unfinished ...> / <... resumed>), then
 * sorted by the time each began.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trace/import.h"
#include "util/util.h"
#include "util/xalloc.h"

#define PG_SIZE 4096u
#define LINE_MAX_LEN 65536
#define MAX_PENDING 64

enum call_kind { C_READ, C_WRITE, C_MMAP, C_MUNMAP };

struct call {
	uint64_t t_us;
	unsigned line;
	enum call_kind kind;
	bool shared;		/* mmap: MAP_SHARED */
	int fd;
	uint64_t addr, len, off;
};

struct pending {
	long pid;
	unsigned line;
	uint64_t t_us;
	char text[512];
};

struct importer {
	const char *log;
	const struct strace_import_opts *o;
	struct call *calls;
	size_t n, cap;
	struct pending pend[MAX_PENDING];
	unsigned npend;
	uint64_t skipped_vector, skipped_failed;
	char *err;
	size_t errlen;

	/* the calls matched to what they touch: the disks and the memory file */
	int fds[TRACE_MAX_DEVICES];	/* by device index */
	unsigned nfds;
	int memfd;
	/* the trace: its header and events, and the calls left out */
	struct trace_header h;
	struct trace_event *evs;
	size_t nev;
	uint64_t outside, unaligned;
	bool assumed;		/* the boot's mapping of memory was not logged */
};

static int add_call(struct importer *im, const struct call *c)
{
	if (im->n == im->cap) {
		size_t cap = im->cap ? im->cap * 2 : 4096;

		im->calls = xrealloc(im->calls, cap * sizeof(*im->calls), "the calls of a log");
		im->cap = cap;
	}
	im->calls[im->n++] = *c;
	return 0;
}

/* "1796321851.992585" (-ttt) or "18:05:10.185881" (-tt): microseconds. */
static int parse_time(const char *s, uint64_t *us)
{
	unsigned long long a, b, c, frac = 0;
	int n = 0, digits;
	const char *dot = strchr(s, '.');

	if (strchr(s, ':')) {
		if (sscanf(s, "%llu:%llu:%llu%n", &a, &b, &c, &n) != 3)
			return -1;
		*us = ((a * 60 + b) * 60 + c) * 1000000ULL;
	} else {
		if (sscanf(s, "%llu%n", &a, &n) != 1)
			return -1;
		*us = a * 1000000ULL;
	}
	if (dot && dot == s + n) {
		if (sscanf(dot + 1, "%6llu%n", &frac, &digits) != 1)
			return -1;
		for (; digits < 6; digits++)
			frac *= 10;
		*us += frac;
	}
	return 0;
}

/* Up to @max comma-separated arguments of "a, b, c" into @v; their count. */
static int split_args(char *s, char **v, int max)
{
	int n = 0;

	while (n < max) {
		while (*s == ' ')
			s++;
		v[n++] = s;
		s = strchr(s, ',');
		if (!s)
			break;
		*s++ = '\0';
	}
	return n;
}

static int number(const char *s, uint64_t *v)
{
	char *end;

	if (!strcmp(s, "NULL")) {
		*v = 0;
		return 0;
	}
	errno = 0;
	*v = strtoull(s, &end, 0);
	return end == s || errno ? -1 : 0;
}

/* One complete call "name(args) = ret" from line @line at @t_us. */
static int take_call(struct importer *im, char *text, uint64_t t_us, unsigned line)
{
	char *open = strchr(text, '('), *eq = strstr(text, ") = "), *args[8];
	struct call c = { .t_us = t_us, .line = line, .fd = -1 };
	uint64_t ret, v[6];
	int nargs, i;

	if (!open || !eq || eq < open)
		return 0;	/* not a call line strace finished: nothing to take */
	*open = '\0';
	*eq = '\0';
	if (!strcmp(text, "preadv") || !strcmp(text, "pwritev") ||
	    !strcmp(text, "preadv2") || !strcmp(text, "pwritev2")) {
		im->skipped_vector++;
		return 0;
	}
	if (strcmp(text, "pread64") && strcmp(text, "pwrite64") && strcmp(text, "mmap") &&
	    strcmp(text, "munmap"))
		return 0;
	if (eq[4] == '-' || eq[4] == '?') {
		im->skipped_failed++;	/* failed, or its result unknown */
		return 0;
	}
	if (number(eq + 4, &ret))
		return set_error(im->err, im->errlen, "%s:%u: %s: result '%s' is not a number",
				 im->log, line, text, eq + 4);
	nargs = split_args(open + 1, args, 8);
	if (!strcmp(text, "pread64") || !strcmp(text, "pwrite64")) {
		if (nargs != 4 || args[1][0] == '"')
			return set_error(im->err, im->errlen,
					 "%s:%u: %s shows its buffer's data, not its address: record with strace -e raw=pread64,pwrite64",
					 im->log, line, text);
		for (i = 0; i < 4; i++)
			if (number(args[i], &v[i]))
				return set_error(im->err, im->errlen,
						 "%s:%u: %s: argument %d '%s' is not a number",
						 im->log, line, text, i + 1, args[i]);
		c.kind = text[1] == 'r' ? C_READ : C_WRITE;
		c.fd = (int)v[0];
		c.addr = v[1];
		c.len = ret;	/* what was transferred */
		c.off = v[3];
		return ret ? add_call(im, &c) : 0;
	}
	if (!strcmp(text, "mmap")) {
		if (nargs != 6 || number(args[0], &v[0]) || number(args[1], &v[1]) ||
		    number(args[4], &v[4]) || number(args[5], &v[5]))
			return set_error(im->err, im->errlen, "%s:%u: mmap: expected 6 arguments",
					 im->log, line);
		c.kind = C_MMAP;
		c.addr = ret;
		c.len = v[1];
		c.shared = strstr(args[3], "MAP_SHARED") != NULL;
		c.fd = (int)(int64_t)v[4];
		c.off = v[5];
		return add_call(im, &c);
	}
	if (nargs != 2 || number(args[0], &v[0]) || number(args[1], &v[1]))
		return set_error(im->err, im->errlen, "%s:%u: munmap: expected 2 arguments",
				 im->log, line);
	c.kind = C_MUNMAP;
	c.addr = v[0];
	c.len = v[1];
	return add_call(im, &c);
}

/* One line: "[PID ]TIME rest"; rest is a call, half of one, or a note. */
static int take_line(struct importer *im, char *s, unsigned line)
{
	char *tok1 = s, *tok2, *rest;
	long pid = 0;
	uint64_t t;
	unsigned i;

	tok2 = strchr(tok1, ' ');
	if (!tok2)
		return 0;
	*tok2++ = '\0';
	if (strspn(tok1, "0123456789") == strlen(tok1) && (rest = strchr(tok2, ' ')) &&
	    strpbrk(tok2, ".:") && strpbrk(tok2, ".:") < rest) {
		pid = atol(tok1);
		*rest++ = '\0';
	} else {
		rest = tok2;
		tok2 = tok1;
	}
	if (parse_time(tok2, &t))
		return set_error(im->err, im->errlen,
				 "%s:%u: no time: record with strace -tt or -ttt", im->log, line);
	if (!strncmp(rest, "---", 3) || !strncmp(rest, "+++", 3))
		return 0;	/* signals, exits */
	if (!strncmp(rest, "<... ", 5)) {
		char *resumed = strstr(rest, " resumed>");
		char text[LINE_MAX_LEN];

		for (i = 0; i < im->npend && im->pend[i].pid != pid; i++)
			;
		if (!resumed || i == im->npend)
			return 0;	/* began before the log did */
		snprintf(text, sizeof(text), "%s%s", im->pend[i].text, resumed + 9);
		t = im->pend[i].t_us;
		line = im->pend[i].line;
		im->pend[i] = im->pend[--im->npend];
		return take_call(im, text, t, line);
	}
	{
		char *cut = strstr(rest, " <unfinished ...>");

		if (cut) {
			if (im->npend == MAX_PENDING)
				return set_error(im->err, im->errlen,
						 "%s:%u: more than %d calls unfinished at once",
						 im->log, line, MAX_PENDING);
			*cut = '\0';
			im->pend[im->npend] = (struct pending){ .pid = pid, .line = line,
								.t_us = t };
			snprintf(im->pend[im->npend].text, sizeof(im->pend[0].text), "%s", rest);
			im->npend++;
			return 0;
		}
	}
	return take_call(im, rest, t, line);
}

static int by_time(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int read_log(struct importer *im)
{
	char *buf = xmalloc(LINE_MAX_LEN, "a line of a log");
	gzFile f = gzopen(im->log, "rb");
	unsigned line = 0;
	int rc = 0, zerr;

	if (!f) {
		free(buf);
		if (!errno)	/* zlib's own allocation failed */
			die_oom("a log's gzip stream");
		return set_error(im->err, im->errlen, "%s: %s", im->log, strerror(errno));
	}
	while (!rc && gzgets(f, buf, LINE_MAX_LEN)) {
		size_t n = strlen(buf);

		line++;
		if (n == LINE_MAX_LEN - 1 && buf[n - 1] != '\n') {
			rc = set_error(im->err, im->errlen, "%s:%u: line longer than %d bytes",
				       im->log, line, LINE_MAX_LEN - 1);
			break;
		}
		buf[strcspn(buf, "\r\n")] = '\0';
		rc = take_line(im, buf, line);
	}
	if (!rc && !gzeof(f)) {
		const char *m = gzerror(f, &zerr);

		rc = set_error(im->err, im->errlen, "%s: after line %u: %s", im->log, line,
			       zerr == Z_ERRNO ? strerror(errno) : m);
	}
	gzclose(f);
	free(buf);
	return rc;
}

/* --- calls into events -------------------------------------------------------- */

static int dev_index(int *fds, unsigned *nfds, int fd)
{
	unsigned i;

	for (i = 0; i < *nfds; i++)
		if (fds[i] == fd)
			return (int)i;
	if (*nfds == TRACE_MAX_DEVICES)
		return -1;
	fds[(*nfds)++] = fd;
	return (int)*nfds - 1;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

/*
 * Match the calls to what they touch: the devices are the descriptors UML
 * reads into physical memory from; the memory file, unless given, the one
 * other descriptor mapped shared.  Returns 0 or an exit status.
 */
static int match_descriptors(struct importer *im)
{
	const struct strace_import_opts *o = im->o;
	size_t i;
	unsigned d;

	for (i = 0; i < im->n; i++) {
		struct call *c = &im->calls[i];

		if ((c->kind == C_READ || c->kind == C_WRITE) && c->addr >= o->phys_base &&
		    c->addr - o->phys_base < o->memory &&
		    dev_index(im->fds, &im->nfds, c->fd) < 0) {
			set_error(im->err, im->errlen, "%s:%u: more than %d disks",
				  im->log, c->line, TRACE_MAX_DEVICES);
			return EXIT_DATA;
		}
	}
	for (i = 0; im->memfd < 0 && i < im->n; i++) {
		struct call *c = &im->calls[i];

		if (c->kind == C_MMAP && c->shared && c->fd >= 0) {
			for (d = 0; d < im->nfds && im->fds[d] != c->fd; d++)
				;
			if (d == im->nfds)
				im->memfd = c->fd;
		}
	}
	for (i = 0; o->memory_fd < 0 && i < im->n; i++) {
		struct call *c = &im->calls[i];

		if (c->kind == C_MMAP && c->shared && c->fd >= 0 && c->fd != im->memfd) {
			for (d = 0; d < im->nfds && im->fds[d] != c->fd; d++)
				;
			if (d == im->nfds) {
				set_error(im->err, im->errlen,
					  "%s:%u: descriptors %d and %d both map a file shared: say which is the memory file (--memory-fd)",
					  im->log, c->line, im->memfd, c->fd);
				return EXIT_USAGE;
			}
		}
	}
	return 0;
}

/* The header: memory, readahead, and a device per disk descriptor. */
static void make_header(struct importer *im)
{
	const struct strace_import_opts *o = im->o;
	struct trace_header *h = &im->h;
	uint64_t end[TRACE_MAX_DEVICES] = { 0 };
	size_t i, k;
	unsigned d;

	memset(h, 0, sizeof(*h));
	h->version = 1;
	h->page_size = PG_SIZE;
	h->memory = o->memory;
	h->readahead_kb = o->readahead_kb;
	h->nr_devices = im->nfds;
	for (i = 0; i < im->n; i++) {
		struct call *c = &im->calls[i];

		for (d = 0; d < im->nfds; d++)
			if ((c->kind == C_READ || c->kind == C_WRITE) && c->fd == im->fds[d] &&
			    c->off + c->len > end[d])
				end[d] = c->off + c->len;
	}
	for (d = 0; d < im->nfds; d++) {
		struct trace_device *td = &h->devices[d];
		const struct strace_device_opt *given = NULL;

		for (k = 0; k < o->nr_dev; k++)
			if (o->dev[k].fd == im->fds[d])
				given = &o->dev[k];
		snprintf(td->name, sizeof(td->name), "ubd%c", 'a' + d);
		td->size = given && given->size ? given->size : round_up(end[d], 1 << 20);
		if (given && given->backing[0])
			snprintf(td->backing, sizeof(td->backing), "%s", given->backing);
		else
			snprintf(td->backing, sizeof(td->backing), "strace-fd%d", im->fds[d]);
	}
	snprintf(h->recorder, sizeof(h->recorder), "anonsim-trace-import from=strace");
}

/* A disk transfer into physical memory as a read or write event; false: left out. */
static bool transfer_event(struct importer *im, const struct call *c,
			   struct trace_event *ev)
{
	const struct strace_import_opts *o = im->o;
	uint64_t page;
	unsigned d;

	for (d = 0; d < im->nfds && im->fds[d] != c->fd; d++)
		;
	if (d == im->nfds || c->addr < o->phys_base || c->addr - o->phys_base >= o->memory) {
		im->outside++;
		return false;
	}
	page = (c->addr - o->phys_base) / PG_SIZE;
	if (c->off % 512 || c->len % 512 || c->off + c->len > im->h.devices[d].size ||
	    page + (c->len + PG_SIZE - 1) / PG_SIZE > o->memory / PG_SIZE) {
		im->unaligned++;
		return false;
	}
	ev->kind = c->kind == C_READ ? EV_READ : EV_WRITE;
	ev->dev = d;
	ev->offset = c->off;
	ev->length = c->len;
	ev->page = page;
	return true;
}

/* A mapping call as an event, if it maps or may unmap the memory file. */
static bool mapping_event(struct importer *im, const struct call *c,
			  struct trace_event *ev)
{
	size_t k;

	if (c->kind == C_MMAP) {
		if (!c->shared || c->fd != im->memfd)
			return false;
		if (c->addr % PG_SIZE || c->off % PG_SIZE || !c->len) {
			im->unaligned++;
			return false;
		}
		ev->kind = EV_MMAP;
		ev->addr = c->addr;
		ev->length = round_up(c->len, PG_SIZE);
		ev->offset = c->off;
		return true;
	}
	/* only what may unmap the memory file: overlapping a mapping of it */
	for (k = 0; k < im->nev; k++)
		if (im->evs[k].kind == EV_MMAP && c->addr < im->evs[k].addr + im->evs[k].length &&
		    im->evs[k].addr < c->addr + c->len)
			break;
	if (k == im->nev || c->addr % PG_SIZE || !c->len)
		return false;
	ev->kind = EV_MUNMAP;
	ev->addr = c->addr;
	ev->length = round_up(c->len, PG_SIZE);
	return true;
}

/* The events, those the trace rules let in, from the time of the first call. */
static void make_events(struct importer *im)
{
	const struct strace_import_opts *o = im->o;
	uint64_t origin = im->calls[0].t_us;
	size_t i;

	im->evs = xmalloc((im->n + 1) * sizeof(*im->evs), "the events of a log");
	/*
	 * UML maps its physical memory from the file's start as it boots; a log
	 * begun later (strace -p) lacks that mapping, so it is put first.
	 */
	for (i = 0; i < im->n; i++)
		if (im->calls[i].kind == C_MMAP && im->calls[i].shared &&
		    im->calls[i].fd == im->memfd)
			break;
	im->assumed = i == im->n || im->calls[i].addr != o->phys_base || im->calls[i].off;
	if (im->assumed) {
		memset(&im->evs[0], 0, sizeof(im->evs[0]));
		im->evs[0].kind = EV_MMAP;
		im->evs[0].addr = o->phys_base;
		im->evs[0].length = o->memory;
		im->nev = 1;
	}
	for (i = 0; i < im->n; i++) {
		const struct call *c = &im->calls[i];
		struct trace_event *ev = &im->evs[im->nev];
		bool kept;

		memset(ev, 0, sizeof(*ev));
		ev->time_us = c->t_us - origin;
		if (c->kind == C_READ || c->kind == C_WRITE)
			kept = transfer_event(im, c, ev);
		else
			kept = mapping_event(im, c, ev);
		if (kept)
			im->nev++;
	}
}

/* The notes: where the trace came from, and what it left out. */
static void make_notes(struct importer *im)
{
	snprintf(im->h.notes, sizeof(im->h.notes),
		 "imported from an strace log: UML's disk reads and writes and its "
		 "mappings of the memory file (descriptor %d); no touch or free events: "
		 "strace does not see the guest write or free its memory\n"
		 "left out: %" PRIu64 " preadv/pwritev calls, %" PRIu64 " failed calls, "
		 "%" PRIu64 " transfers outside physical memory (from 0x%" PRIx64 "), "
		 "%" PRIu64 " breaking the trace rules (not whole 512-byte sectors, or "
		 "beyond the device or memory)%s", im->memfd, im->skipped_vector,
		 im->skipped_failed, im->outside, im->o->phys_base, im->unaligned,
		 im->assumed ? "\nthe mapping of physical memory UML makes as it boots was "
			       "not in the log: assumed at time 0" : "");
}

/* The trace into @out, whole or not at all; returns 0 or an exit status. */
static int write_trace(struct importer *im, const char *out)
{
	struct trace_writer *w = trace_writer_open(out, &im->h, im->err, im->errlen);
	size_t i;

	if (!w)
		return EXIT_USAGE;
	for (i = 0; i < im->nev; i++)
		if (trace_write(w, &im->evs[i]))
			break;	/* the commit says why */
	if (trace_writer_commit(w, im->err, im->errlen))
		/* an event the trace rules refuse is the log's; else the disk's */
		return i < im->nev ? EXIT_DATA : EXIT_OUTPUT;
	return 0;
}

int strace_import(const char *log, const struct strace_import_opts *o,
		  const char *out, uint64_t *events, uint64_t *skipped,
		  char *err, size_t errlen)
{
	struct importer im = {
		.log = log, .o = o, .err = err, .errlen = errlen, .memfd = o->memory_fd,
	};
	int rc = EXIT_DATA;

	*events = *skipped = 0;
	if (read_log(&im))
		goto out;
	if (!im.n) {
		set_error(err, errlen, "%s: no pread64, pwrite64, mmap or munmap calls", log);
		goto out;
	}
	qsort(im.calls, im.n, sizeof(*im.calls), by_time);
	rc = match_descriptors(&im);
	if (rc)
		goto out;
	make_header(&im);
	make_events(&im);
	*skipped = im.skipped_vector + im.skipped_failed + im.outside + im.unaligned;
	make_notes(&im);
	rc = write_trace(&im, out);
	if (!rc)
		*events = im.nev;
out:
	free(im.evs);
	free(im.calls);
	return rc;
}
