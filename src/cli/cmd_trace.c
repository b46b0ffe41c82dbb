/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_trace.c - "anonsim trace": check, describe, convert and print traces.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/cli_traces.h"
#include "cli/usage.h"
#include "cli/output_file.h"
#include "cli/output_format.h"
#include "trace/trace.h"
#include "util/names.h"
#include "util/util.h"
#include "util/xalloc.h"

typedef unsigned long long ull;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: anonsim trace check [-q] FILE...\n"
		"       anonsim trace stat [-q] [-o FILE] [--csv | --json] FILE\n"
		"       anonsim trace convert [-q] IN OUT\n"
		"       anonsim trace cat [-q] FILE\n"
		"       anonsim trace list [-q] [-o FILE] [--csv | --json]\n"
		"       anonsim trace gen [-q] PROFILE OUT\n"
		"       anonsim trace import --from strace --memory SIZE -o OUT LOG\n"
		"\n"
		"Read traces of User-Mode Linux runs (see traces/FORMAT.md): text\n"
		"(.trace) or binary (.atr), either plain or gzip-compressed (.gz).\n"
		"A FILE or IN of - is standard input; one that names no file but a\n"
		"shipped trace (debian-boot-64M) is that trace (anonsim trace list).\n"
		"\n"
		"  check    validate each FILE; print the number of its events\n"
		"  stat     print FILE's header and what its events add up to\n"
		"  convert  rewrite IN as OUT; OUT's name (.trace, .atr, .trace.gz,\n"
		"           .atr.gz) chooses the encoding and compression; OUT appears\n"
		"           only when complete\n"
		"  cat      print FILE in the text encoding on standard output\n"
		"  list     the shipped traces: name, size, length, provenance\n"
		"           (anonsim trace list --help)\n"
		"  gen      synthesize a boot trace from a profile (anonsim trace gen --help)\n"
		"  import   a trace from the strace log of a UML run\n"
		"           (anonsim trace import --help)\n"
		"\n"
		"Run \"anonsim trace SUBCOMMAND --help\" for a subcommand's options.\n"
		"\n"
		EXIT_STATUS_HELP);
}

/* The subcommands; those with a command of their own have their own help. */
static const struct sub {
	const char *name, *args, *what;
	bool outputs;		/* takes -o, --csv, --json */
	unsigned nargs;		/* 0: one or more */
	int (*own)(int argc, char **argv);
} subs[] = {
	{ "check", "FILE...", "Validate each FILE (every rule of traces/FORMAT.md) and print the number\n"
	  "of its events.  Every FILE is checked; the exit status is 2 when any\n"
	  "is refused.\n", false, 0, NULL },
	{ "stat", "FILE", "Print FILE's header and what its events add up to: events by kind,\n"
	  "reads and writes per device (requests, bytes, pages, distinct pages),\n"
	  "pages touched and freed, and the time it spans.\n", true, 1, NULL },
	{ "convert", "IN OUT", "Rewrite IN as OUT; OUT's name (.trace, .atr, .trace.gz, .atr.gz)\n"
	  "chooses the encoding and compression; OUT appears only when complete.\n", false, 2, NULL },
	{ "cat", "FILE", "Print FILE in the text encoding on standard output.\n", false, 1, NULL },
	{ "list", NULL, NULL, false, 0, cmd_trace_list },
	{ "gen", NULL, NULL, false, 0, cmd_trace_gen },
	{ "import", NULL, NULL, false, 0, cmd_trace_import },
	{ NULL, NULL, NULL, false, 0, NULL }
};

/* "check, stat, ... or import", for the message refusing another. */
static const char *sub_names(char *buf, size_t len)
{
	const char *names[sizeof(subs) / sizeof(subs[0])];
	size_t i;

	for (i = 0; subs[i].name; i++)
		names[i] = subs[i].name;
	names[i] = NULL;
	return names_or(names, buf, len);
}

static void sub_usage(FILE *out, const struct sub *sb)
{
	fprintf(out, "Usage: anonsim trace %s [OPTIONS] %s\n\n%s", sb->name, sb->args,
		sb->what);
	fputs("An input of - (FILE, IN) is standard input; one that names no file but\n"
	      "a shipped trace (debian-boot-64M) is that trace (anonsim trace list).\n"
	      "\nOptions:\n", out);
	if (sb->outputs)
		fputs(OUT_OPTIONS_HELP, out);
	fputs(QUIET_NAMES_HELP "  -h, --help            this help\n\n" EXIT_STATUS_HELP, out);
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
	ull touched, freed, discarded, events, first, last;
	/* version 2: request events, their bytes and the reads that are their parts */
	ull request_bytes, parts;
	struct trace_event req;
	bool req_open;
	unsigned nr_kinds;	/* the event kinds of the trace's version */
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
	if (s->req_open && trace_request_part(&s->req, ev))
		s->parts++;
	else
		s->req_open = false;
	switch (ev->kind) {
	case EV_REQUEST:
		s->req = *ev;
		s->req_open = true;
		s->request_bytes += ev->length;
		break;
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
	case EV_DISCARD:
		s->discarded += ev->count;
		break;
	default:
		break;
	}
	return 0;
}

static void print_header(FILE *f, const char *path, const struct trace_reader *r)
{
	const struct trace_header *h = trace_header(r);
	const char *note;
	unsigned i, notes = 0;

	fprintf(f, "file: %s\n", path);
	fprintf(f, "encoding: %s\n", trace_is_binary(r) ? "binary" : "text");
	fprintf(f, "version: %u\n", h->version);
	fprintf(f, "page-size: %u\n", h->page_size);
	fprintf(f, "memory: %llu bytes, %llu pages\n", (ull)h->memory,
		(ull)(h->memory / h->page_size));
	for (i = 0; i < h->nr_devices; i++) {
		const struct trace_device *d = &h->devices[i];

		fprintf(f, "device %u: %s size=%llu backing=%s%s%s", i, d->name, (ull)d->size,
			d->backing, d->cow[0] ? " cow=" : "", d->cow);
		if (d->pmem)
			fprintf(f, " pmem=%llu", (ull)d->pmem_page);
		fputc('\n', f);
	}
	if (h->version >= 2)
		fprintf(f, "vmm: %s%s%s\n", h->vmm[0] ? h->vmm : "not recorded",
			h->vmm[0] ? " " : "", h->vmm_version);
	if (h->readahead_kb >= 0)
		fprintf(f, "readahead-kb: %lld\n", (long long)h->readahead_kb);
	else
		fprintf(f, "readahead-kb: not recorded\n");
	fprintf(f, "recorder: %s\n", h->recorder[0] ? h->recorder : "not recorded");
	for (note = h->notes; *note; note++)
		notes += *note == '\n';
	fprintf(f, "notes: %u\n", h->notes[0] ? notes + 1 : 0);
}

/* The reads the host saw: a request is one, its parts none. */
static ull host_reads(const struct stat_state *s)
{
	ull reads = 0;
	unsigned i;

	for (i = 0; i < s->h->nr_devices; i++)
		reads += s->dev[i].reads;
	return reads - s->parts + s->kinds[EV_REQUEST];
}

/* The sums over every device. */
static struct dev_stat all_devices(const struct stat_state *s)
{
	struct dev_stat t = { 0 };
	unsigned i;

	for (i = 0; i < s->h->nr_devices; i++) {
		const struct dev_stat *d = &s->dev[i];

		t.reads += d->reads;
		t.bytes += d->bytes;
		t.pages += d->pages;
		t.distinct += d->distinct;
		t.writes += d->writes;
		t.bytes_written += d->bytes_written;
	}
	return t;
}

static void stat_table(FILE *f, const char *path, const struct trace_reader *r,
		       const struct stat_state *s)
{
	struct dev_stat t = all_devices(s);
	unsigned i;

	print_header(f, path, r);
	fprintf(f, "events: %llu\n", s->events);
	for (i = 0; i < s->nr_kinds; i++)
		fprintf(f, "  %s: %llu\n", trace_kind_names[i], s->kinds[i]);
	for (i = 0; i < s->h->nr_devices; i++) {
		const struct dev_stat *d = &s->dev[i];

		fprintf(f, "read %s: %llu requests, %llu bytes, %llu pages, %llu distinct pages\n",
			s->h->devices[i].name, d->reads, d->bytes, d->pages, d->distinct);
		fprintf(f, "written %s: %llu requests, %llu bytes\n",
			s->h->devices[i].name, d->writes, d->bytes_written);
	}
	fprintf(f, "read: %llu requests, %llu bytes, %llu pages, %llu distinct pages\n",
		t.reads, t.bytes, t.pages, t.distinct);
	fprintf(f, "written: %llu requests, %llu bytes\n", t.writes, t.bytes_written);
	fprintf(f, "touched: %llu pages\n", s->touched);
	fprintf(f, "freed: %llu pages\n", s->freed);
	if (s->nr_kinds > EV_DISCARD) {
		fprintf(f, "discarded: %llu pages\n", s->discarded);
		fprintf(f, "requests: %llu, %llu bytes, %llu reads their parts\n",
			s->kinds[EV_REQUEST], s->request_bytes, s->parts);
		fprintf(f, "host reads: %llu (requests and the reads outside them)\n",
			host_reads(s));
	}
	fprintf(f, "duration: %llu us (first event at %llu, last at %llu)\n",
		s->last - s->first, s->first, s->last);
}

static void stat_csv(FILE *f, const char *path, const struct trace_reader *r,
		     const struct stat_state *s)
{
	const struct trace_header *h = s->h;
	struct dev_stat t = all_devices(s);
	char b[OUT_NUM_MAX];
	unsigned i;

	fputs("trace,encoding,version,page_size_bytes,memory_bytes,devices,readahead_kb,"
	      "events", f);
	for (i = 0; i < s->nr_kinds; i++)
		fprintf(f, ",%s_events", trace_kind_names[i]);
	fputs(",read_requests,read_bytes,read_pages,read_distinct_pages,write_requests,"
	      "write_bytes,touched_pages,freed_pages", f);
	if (s->nr_kinds > EV_DISCARD)
		fputs(",discarded_pages,vmm,vmm_version,request_bytes,request_parts,host_reads", f);
	fputs(",first_event_s,last_event_s,duration_s\n", f);
	csv_field(f, true, path);
	fprintf(f, ",%s,%u,%u,%llu,%u,", trace_is_binary(r) ? "binary" : "text", h->version,
		h->page_size, (ull)h->memory, h->nr_devices);
	if (h->readahead_kb >= 0)
		fprintf(f, "%lld", (long long)h->readahead_kb);
	fprintf(f, ",%llu", s->events);
	for (i = 0; i < s->nr_kinds; i++)
		fprintf(f, ",%llu", s->kinds[i]);
	fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu", t.reads, t.bytes, t.pages,
		t.distinct, t.writes, t.bytes_written, s->touched, s->freed);
	if (s->nr_kinds > EV_DISCARD) {
		fprintf(f, ",%llu", s->discarded);
		csv_field(f, false, h->vmm);
		csv_field(f, false, h->vmm_version);
		fprintf(f, ",%llu,%llu,%llu", s->request_bytes, s->parts, host_reads(s));
	}
	csv_field(f, false, fmt_useconds(b, s->first));
	csv_field(f, false, fmt_useconds(b, s->last));
	csv_field(f, false, fmt_useconds(b, s->last - s->first));
	fputc('\n', f);
}

static void json_reads(struct json *j, const struct dev_stat *d)
{
	json_uint(j, "read_requests", d->reads);
	json_uint(j, "read_bytes", d->bytes);
	json_uint(j, "read_pages", d->pages);
	json_uint(j, "read_distinct_pages", d->distinct);
	json_uint(j, "write_requests", d->writes);
	json_uint(j, "write_bytes", d->bytes_written);
}

static void stat_json(FILE *f, const char *path, const struct trace_reader *r,
		      const struct stat_state *s)
{
	struct dev_stat t = all_devices(s);
	char b[OUT_NUM_MAX];
	struct json j;
	unsigned i;

	json_start(&j, f);
	json_head(&j, "trace stat");
	json_array(&j, "traces");
	json_object(&j, NULL);
	json_string(&j, "name", path);
	json_string(&j, "encoding", trace_is_binary(r) ? "binary" : "text");
	json_object(&j, "header");
	json_trace_header(&j, s->h);
	json_end(&j);
	json_end(&j);
	json_end(&j);
	json_object(&j, "results");
	json_uint(&j, "events", s->events);
	json_object(&j, "events_by_kind");
	for (i = 0; i < s->nr_kinds; i++)
		json_uint(&j, trace_kind_names[i], s->kinds[i]);
	json_end(&j);
	json_array(&j, "devices");
	for (i = 0; i < s->h->nr_devices; i++) {
		json_object(&j, NULL);
		json_string(&j, "name", s->h->devices[i].name);
		json_reads(&j, &s->dev[i]);
		json_end(&j);
	}
	json_end(&j);
	json_reads(&j, &t);
	json_uint(&j, "touched_pages", s->touched);
	json_uint(&j, "freed_pages", s->freed);
	if (s->nr_kinds > EV_DISCARD) {
		json_uint(&j, "discarded_pages", s->discarded);
		json_uint(&j, "request_bytes", s->request_bytes);
		json_uint(&j, "request_parts", s->parts);
		json_uint(&j, "host_reads", host_reads(s));
	}
	json_number(&j, "first_event_s", fmt_useconds(b, s->first));
	json_number(&j, "last_event_s", fmt_useconds(b, s->last));
	json_number(&j, "duration_s", fmt_useconds(b, s->last - s->first));
	json_end(&j);
	json_finish(&j);
}

static int trace_stat(const char *path, struct out *out)
{
	struct trace_reader *r;
	struct stat_state *s;
	unsigned i;
	int rc;

	if ((rc = out_open(out, (char *const *)&path, 1)))
		return rc;
	r = open_or_complain(path);
	if (!r) {
		out_abort(out);
		return EXIT_DATA;
	}
	s = xcalloc(1, sizeof(*s), "the statistics");
	s->h = trace_header(r);
	s->nr_kinds = trace_kinds_of_version(s->h->version);
	while (s->h->page_size >> s->shift > 1)
		s->shift++;
	rc = each_event(r, stat_event, s);
	if (rc == EXIT_OK) {
		if (out->fmt == OUT_JSON)
			stat_json(out->f, path, r, s);
		else if (out->fmt == OUT_CSV)
			stat_csv(out->f, path, r, s);
		else
			stat_table(out->f, path, r, s);
		rc = out_close(out);
	} else {
		out_abort(out);
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
		char why[NAMES_LIST_MAX + 32];

		msg("%s: output %s", out, trace_suffix_error("name", why, sizeof(why)));
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
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		OUT_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	static const struct option no_outputs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 }
	};
	static char command[32];
	const char *sub = argc > 1 ? argv[1] : NULL;
	const struct sub *sb;
	bool quiet = false;
	struct out out;
	int c, rc;

	if (sub && (!strcmp(sub, "--help") || !strcmp(sub, "-h"))) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!sub) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (sb = subs; sb->name && strcmp(sb->name, sub); sb++)
		;
	if (!sb->name) {
		char names[NAMES_LIST_MAX];

		msg("unknown subcommand '%s': expected %s (see anonsim trace --help)", sub,
		    sub_names(names, sizeof(names)));
		return EXIT_USAGE;
	}
	snprintf(command, sizeof(command), "trace %s", sub);
	msg_set_command(command);
	if (sb->own)	/* its own options and help */
		return sb->own(argc - 1, argv + 1);
	out_init(&out);
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, sb->outputs ? ":qh" OUT_SHORT_OPTIONS : ":qh",
				sb->outputs ? opts : no_outputs, NULL)) != -1) {
		if (sb->outputs && (rc = out_option(&out, c, optarg)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		if (c == 'q') {
			quiet = true;
			continue;
		}
		if (c == 'h') {
			sub_usage(stdout, sb);
			return EXIT_OK;
		}
		return usage_error(c, argv + 1, command);
	}
	if (sb->nargs ? argc - 1 - optind != (int)sb->nargs : argc - 1 - optind < 1) {
		msg("expected %s (see anonsim trace %s --help)", sb->args, sub);
		return EXIT_USAGE;
	}
	argv += 1 + optind;
	if (!strcmp(sub, "check")) {
		int i, worst = EXIT_OK;

		for (i = 0; i < argc - 1 - optind; i++) {
			rc = cli_trace_arg(&argv[i], quiet);
			if (!rc)
				rc = trace_check(argv[i]);
			if (rc > worst)
				worst = rc;
		}
		return worst;
	}
	if ((rc = cli_trace_arg(&argv[0], quiet)))
		return rc;
	if (!strcmp(sub, "stat"))
		return trace_stat(argv[0], &out);
	if (!strcmp(sub, "convert"))
		return trace_convert(argv[0], argv[1]);
	return trace_cat(argv[0]);
}
