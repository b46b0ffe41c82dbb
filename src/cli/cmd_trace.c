/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_trace.c - "anonsim trace": check, describe, convert and print traces.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "trace/trace.h"
#include "util/util.h"
#include "util/xalloc.h"

typedef unsigned long long ull;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: anonsim trace check FILE\n"
		"       anonsim trace stat FILE\n"
		"       anonsim trace convert IN OUT\n"
		"       anonsim trace cat FILE\n"
		"       anonsim trace gen PROFILE OUT\n"
		"       anonsim trace import --from strace --memory SIZE -o OUT LOG\n"
		"\n"
		"Read traces of User-Mode Linux runs (see traces/FORMAT.md): text\n"
		"(.trace) or binary (.atr), either plain or gzip-compressed (.gz).\n"
		"\n"
		"  check    validate FILE; print the number of events\n"
		"  stat     print FILE's header and what its events add up to\n"
		"  convert  rewrite IN as OUT; OUT's name (.trace, .atr, .trace.gz,\n"
		"           .atr.gz) chooses the encoding and compression; OUT appears\n"
		"           only when complete\n"
		"  cat      print FILE in the text encoding on standard output\n"
		"  gen      synthesize a boot trace from a profile (anonsim trace gen --help)\n"
		"  import   a trace from the strace log of a UML run\n"
		"           (anonsim trace import --help)\n"
		"\n"
		EXIT_STATUS_HELP);
}

static struct trace_reader *open_or_complain(const char *path)
{
	char err[1024];
	struct trace_reader *r = trace_open(path, err, sizeof(err));

	if (!r)
		msg("%s", err);
	return r;
}

/* Run every event of @r through @fn: EXIT_OK, EXIT_DATA after a message,
 * or EXIT_OUTPUT if @fn could not write (main reports standard output). */
static int each_event(struct trace_reader *r, int (*fn)(void *, const struct trace_event *),
		      void *arg)
{
	const struct trace_event *ev;
	int rc;

	while ((rc = trace_next(r, &ev)) > 0)
		if (fn(arg, ev))
			return EXIT_OUTPUT;
	if (rc < 0) {
		msg("%s", trace_error(r));
		return EXIT_DATA;
	}
	return EXIT_OK;
}

static int trace_check(const char *path)
{
	struct trace_reader *r = open_or_complain(path);
	const struct trace_event *ev;
	size_t run;
	ull n = 0;
	int rc;

	if (!r)
		return EXIT_DATA;
	/* Checking is decoding: count the events a run at a time. */
	while ((rc = trace_next_run(r, &ev, &run)) > 0)
		n += run;
	if (rc < 0)
		msg("%s", trace_error(r));
	trace_close(r);
	if (rc < 0)
		return EXIT_DATA;
	printf("%s: ok, %llu events\n", path, n);
	return EXIT_OK;
}

/* ---- stat ---- */
struct dev_stat {
	ull reads, bytes, pages, distinct;
	ull writes, bytes_written;
	unsigned char *seen;	/* one bit per device page, allocated on the first read */
};

struct stat_state {
	const struct trace_header *h;
	unsigned shift;
	ull kinds[EV_NR_KINDS];
	ull touched, freed, events, first, last;
	struct dev_stat dev[TRACE_MAX_DEVICES];
};

/* Set bits first..last; the number that were clear.  Whole bytes at once,
 * so that a huge read costs little. */
static ull mark_pages(unsigned char *seen, ull first, ull last)
{
	ull p = first, fresh = 0;
	unsigned bits, old;

	while (p <= last) {
		if (!(p & 7) && last - p >= 7) {
			old = seen[p >> 3];
			seen[p >> 3] = 0xff;
			for (bits = old; bits; bits &= bits - 1)
				fresh--;
			fresh += 8;
			p += 8;
			continue;
		}
		if (!(seen[p >> 3] & (1u << (p & 7)))) {
			seen[p >> 3] |= (unsigned char)(1u << (p & 7));
			fresh++;
		}
		p++;
	}
	return fresh;
}

static int stat_event(void *arg, const struct trace_event *ev)
{
	struct stat_state *s = arg;
	struct dev_stat *d;
	ull first, last;

	if (!s->events++)
		s->first = ev->time_us;
	s->last = ev->time_us;
	s->kinds[ev->kind]++;
	switch (ev->kind) {
	case EV_READ:
		d = &s->dev[ev->dev];
		if (!d->seen) {
			ull pages = (s->h->devices[ev->dev].size + s->h->page_size - 1) >> s->shift;

			d->seen = xcalloc(pages / 8 + 1, 1, "the map of a device's pages read");
		}
		first = ev->offset >> s->shift;
		last = (ev->offset + ev->length - 1) >> s->shift;
		d->reads++;
		d->bytes += ev->length;
		d->pages += last - first + 1;
		d->distinct += mark_pages(d->seen, first, last);
		break;
	case EV_WRITE:
		s->dev[ev->dev].writes++;
		s->dev[ev->dev].bytes_written += ev->length;
		break;
	case EV_TOUCH:
		s->touched += ev->count;
		break;
	case EV_FREE:
		s->freed += ev->count;
		break;
	default:
		break;
	}
	return 0;
}

static void print_header(const char *path, const struct trace_reader *r)
{
	const struct trace_header *h = trace_header(r);
	const char *note;
	unsigned i, notes = 0;

	printf("file: %s\n", path);
	printf("encoding: %s\n", trace_is_binary(r) ? "binary" : "text");
	printf("version: %u\n", h->version);
	printf("page-size: %u\n", h->page_size);
	printf("memory: %llu bytes, %llu pages\n", (ull)h->memory, (ull)(h->memory / h->page_size));
	for (i = 0; i < h->nr_devices; i++) {
		const struct trace_device *d = &h->devices[i];

		printf("device %u: %s size=%llu backing=%s%s%s\n", i, d->name, (ull)d->size,
		       d->backing, d->cow[0] ? " cow=" : "", d->cow);
	}
	if (h->readahead_kb >= 0)
		printf("readahead-kb: %lld\n", (long long)h->readahead_kb);
	else
		printf("readahead-kb: not recorded\n");
	printf("recorder: %s\n", h->recorder[0] ? h->recorder : "not recorded");
	for (note = h->notes; *note; note++)
		notes += *note == '\n';
	printf("notes: %u\n", h->notes[0] ? notes + 1 : 0);
}

static int trace_stat(const char *path)
{
	struct trace_reader *r = open_or_complain(path);
	struct stat_state *s;
	ull reads = 0, bytes = 0, pages = 0, distinct = 0, writes = 0, written = 0;
	unsigned i;
	int rc;

	if (!r)
		return EXIT_DATA;
	s = xcalloc(1, sizeof(*s), "the statistics");
	s->h = trace_header(r);
	while (s->h->page_size >> s->shift > 1)
		s->shift++;
	rc = each_event(r, stat_event, s);
	if (rc == EXIT_OK) {
		print_header(path, r);
		printf("events: %llu\n", s->events);
		for (i = 0; i < EV_NR_KINDS; i++)
			printf("  %s: %llu\n", trace_kind_names[i], s->kinds[i]);
		for (i = 0; i < s->h->nr_devices; i++) {
			struct dev_stat *d = &s->dev[i];

			printf("read %s: %llu requests, %llu bytes, %llu pages, %llu distinct pages\n",
			       s->h->devices[i].name, d->reads, d->bytes, d->pages, d->distinct);
			printf("written %s: %llu requests, %llu bytes\n",
			       s->h->devices[i].name, d->writes, d->bytes_written);
			reads += d->reads;
			bytes += d->bytes;
			pages += d->pages;
			distinct += d->distinct;
			writes += d->writes;
			written += d->bytes_written;
		}
		printf("read: %llu requests, %llu bytes, %llu pages, %llu distinct pages\n",
		       reads, bytes, pages, distinct);
		printf("written: %llu requests, %llu bytes\n", writes, written);
		printf("touched: %llu pages\n", s->touched);
		printf("freed: %llu pages\n", s->freed);
		printf("duration: %llu us (first event at %llu, last at %llu)\n",
		       s->last - s->first, s->first, s->last);
	}
	for (i = 0; i < TRACE_MAX_DEVICES; i++)
		free(s->dev[i].seen);
	free(s);
	trace_close(r);
	return rc;
}

/* ---- convert ---- */
static int trace_convert(const char *in, const char *out)
{
	struct trace_reader *r;
	struct trace_writer *w;
	const struct trace_event *ev;
	char err[1024];
	int binary, gz, rc;

	if (trace_path_encoding(out, &binary, &gz)) {
		msg("%s: output name must end in .trace, .atr, .trace.gz or .atr.gz", out);
		return EXIT_USAGE;
	}
	if (output_not_input(out, (char *const *)&in, 1))
		return EXIT_USAGE;
	r = open_or_complain(in);
	if (!r)
		return EXIT_DATA;
	w = trace_writer_open(out, trace_header(r), err, sizeof(err));
	if (!w) {
		msg("%s", err);
		trace_close(r);
		return EXIT_OUTPUT;
	}
	while ((rc = trace_next(r, &ev)) > 0 && !trace_write(w, ev))
		;
	if (rc < 0) {
		msg("%s", trace_error(r));
		trace_close(r);
		trace_writer_abort(w);
		return EXIT_DATA;
	}
	trace_close(r);
	/* after a failed trace_write, commit reports it and removes the file */
	if (trace_writer_commit(w, err, sizeof(err))) {
		msg("%s", err);
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}

/* ---- cat ---- */
static int cat_event(void *arg, const struct trace_event *ev)
{
	char line[TRACE_EVENT_TEXT_MAX];
	size_t n = trace_format_event(arg, ev, line, sizeof(line));

	return fwrite(line, 1, n, stdout) == n ? 0 : -1;
}

static int trace_cat(const char *path)
{
	struct trace_reader *r = open_or_complain(path);
	char *text;
	int rc;

	if (!r)
		return EXIT_DATA;
	text = xmalloc(TRACE_HEADER_TEXT_MAX, "a trace's header");
	trace_format_header(trace_header(r), text, TRACE_HEADER_TEXT_MAX);
	fputs(text, stdout);
	free(text);
	rc = each_event(r, cat_event, (void *)trace_header(r));
	trace_close(r);
	return rc;
}

int cmd_trace(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	int i, want;

	if (sub && !strcmp(sub, "gen"))	/* its own options and help */
		return cmd_trace_gen(argc - 1, argv + 1);
	if (sub && !strcmp(sub, "import"))
		return cmd_trace_import(argc - 1, argv + 1);
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return EXIT_OK;
		}
	if (!sub) {
		usage(stderr);
		return EXIT_USAGE;
	}
	want = !strcmp(sub, "convert") ? 4 : 3;
	if (strcmp(sub, "check") && strcmp(sub, "stat") && strcmp(sub, "convert") &&
	    strcmp(sub, "cat")) {
		msg("trace: unknown subcommand '%s' (see anonsim trace --help)", sub);
		return EXIT_USAGE;
	}
	for (i = 2; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1]) {
			msg("trace %s: unknown option '%s' (see anonsim trace --help)", sub, argv[i]);
			return EXIT_USAGE;
		}
	if (argc != want) {
		msg("trace %s: expected %s (see anonsim trace --help)", sub,
		    want == 4 ? "IN OUT" : "FILE");
		return EXIT_USAGE;
	}
	if (!strcmp(sub, "check"))
		return trace_check(argv[2]);
	if (!strcmp(sub, "stat"))
		return trace_stat(argv[2]);
	if (!strcmp(sub, "convert"))
		return trace_convert(argv[2], argv[3]);
	return trace_cat(argv[2]);
}
