/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_trace_list.c - "anonsim trace list": the shipped traces, each with
 * its name (what any command takes in place of a file), its size and
 * length, and where it came from (its header's recorder and notes).
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/datadir.h"
#include "cli/output_format.h"
#include "cli/shipped_traces.h"
#include "cli/usage.h"
#include "trace/trace.h"
#include "util/util.h"
#include "util/xalloc.h"

typedef unsigned long long ull;

/* How each shipped trace was recorded or made, beyond its header. */
#define PROVENANCE_DOC DOCDIR "/traces/README.md"

static void list_usage(FILE *f)
{
	fputs("Usage: anonsim trace list [OPTIONS]\n"
	      "\n"
	      "List the traces that come with anonsim: each one's name, its memory,\n"
	      "events and the time they span, its file, and where it came from: the\n"
	      "recorder and notes of its header (how each was recorded or made:\n"
	      "  " PROVENANCE_DOC ").\n"
	      "Every command that reads traces takes such a name in place of a file\n"
	      "(anonsim replay debian-boot-64M); a file of that name in the working\n"
	      "directory is read instead.\n"
	      "\n"
	      "Options:\n"
	      OUT_OPTIONS_HELP
	      QUIET_NOTHING_HELP
	      "  -h, --help            this help\n"
	      "\n"
	      "Environment: ANONSIM_DATADIR, the data directory instead of\n"
	      PKGDATADIR ".\n"
	      "\n"
	      EXIT_STATUS_HELP, f);
}

struct shipped {
	char *name, *file;
	struct trace_header h;
	ull events, first_us, last_us;
};

struct listing {
	struct shipped *t;
	char **files;		/* each t[i].file, for out_open and json_traces */
	unsigned n, cap;
};

/* Read one shipped trace whole into the listing: 0, or EXIT_DATA after a message. */
static int list_one(void *arg, const char *name, const char *file)
{
	struct listing *l = arg;
	const struct trace_event *ev;
	struct trace_reader *r;
	struct shipped *s;
	char err[1024];
	size_t run;
	int rc;

	if (!(r = trace_open(file, err, sizeof(err)))) {
		msg("%s", err);
		return EXIT_DATA;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->t = xrealloc(l->t, l->cap * sizeof(*l->t), "the list of shipped traces");
		l->files = xrealloc(l->files, l->cap * sizeof(*l->files),
				    "the list of shipped traces");
	}
	s = &l->t[l->n];
	memset(s, 0, sizeof(*s));
	s->h = *trace_header(r);
	while ((rc = trace_next_run(r, &ev, &run)) > 0) {
		if (!s->events)
			s->first_us = ev[0].time_us;
		s->last_us = ev[run - 1].time_us;
		s->events += run;
	}
	if (rc < 0) {
		msg("%s", trace_error(r));
		trace_close(r);
		return EXIT_DATA;
	}
	trace_close(r);
	s->name = xstrdup(name, "the list of shipped traces");
	s->file = l->files[l->n] = xstrdup(file, "the list of shipped traces");
	l->n++;
	return 0;
}

static void put_table(FILE *f, const struct listing *l)
{
	unsigned i;

	for (i = 0; i < l->n; i++) {
		const struct shipped *s = &l->t[i];
		const char *note = s->h.notes;

		fprintf(f, "%s: %llu MiB of memory, %llu events over %.1f s\n", s->name,
			(ull)(s->h.memory >> 20), s->events, (s->last_us - s->first_us) / 1e6);
		fprintf(f, "  file      %s\n", s->file);
		fprintf(f, "  recorder  %s\n", s->h.recorder[0] ? s->h.recorder : "not recorded");
		while (*note) {
			int len = (int)strcspn(note, "\n");

			fprintf(f, "  note      %.*s\n", len, note);
			note += len + (note[len] == '\n');
		}
		fputc('\n', f);
	}
	fprintf(f, "How each was recorded or made: %s\n", PROVENANCE_DOC);
}

static void put_csv(FILE *f, const struct listing *l)
{
	char b[OUT_NUM_MAX];
	unsigned i;

	fputs("name,file,memory_bytes,page_size_bytes,events,duration_s,recorder,notes\n", f);
	for (i = 0; i < l->n; i++) {
		const struct shipped *s = &l->t[i];

		csv_field(f, true, s->name);
		csv_field(f, false, s->file);
		fprintf(f, ",%llu,%u,%llu", (ull)s->h.memory, s->h.page_size, s->events);
		csv_field(f, false, fmt_useconds(b, s->last_us - s->first_us));
		csv_field(f, false, s->h.recorder);
		csv_field(f, false, s->h.notes);
		fputc('\n', f);
	}
}

/* "traces" as every command gives them (file and header), "results" the
 * names and sums; 0, or an exit status after a message. */
static int put_json(FILE *f, const struct listing *l)
{
	char b[OUT_NUM_MAX];
	struct json j;
	unsigned i;
	int rc;

	json_start(&j, f);
	json_head(&j, "trace list");
	if ((rc = json_traces(&j, l->files, l->n)))
		return rc;
	json_array(&j, "results");
	for (i = 0; i < l->n; i++) {
		const struct shipped *s = &l->t[i];

		json_object(&j, NULL);
		json_string(&j, "name", s->name);
		json_string(&j, "file", s->file);
		json_uint(&j, "events", s->events);
		json_number(&j, "duration_s", fmt_useconds(b, s->last_us - s->first_us));
		json_end(&j);
	}
	json_end(&j);
	json_finish(&j);
	return 0;
}

static void listing_free(struct listing *l)
{
	unsigned i;

	for (i = 0; i < l->n; i++) {
		free(l->t[i].name);
		free(l->t[i].file);
	}
	free(l->t);
	free(l->files);
}

/* The shipped traces, read whole, in the format asked: the exit status. */
static int list_report(struct out *out)
{
	struct listing l = { NULL, NULL, 0, 0 };
	int rc = shipped_traces_each(list_one, &l);

	if (rc < 0) {
		msg("%s: %s (is anonsim installed? ANONSIM_DATADIR names another data "
		    "directory)", data_path("traces"), strerror(errno));
		rc = EXIT_DATA;
	} else if (!rc && !l.n) {
		msg("%s: no shipped traces there (ANONSIM_DATADIR names another data directory)",
		    data_path("traces"));
		rc = EXIT_DATA;
	}
	if (!rc && !(rc = out_open(out, l.files, l.n))) {
		if (out->fmt == OUT_JSON)
			rc = put_json(out->f, &l);
		else if (out->fmt == OUT_CSV)
			put_csv(out->f, &l);
		else
			put_table(out->f, &l);
		if (rc)
			out_abort(out);
		else
			rc = out_close(out);
	}
	listing_free(&l);
	return rc;
}

int cmd_trace_list(int argc, char **argv)
{
	static const struct option opts[] = {
		OUT_LONG_OPTIONS,
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct out out;
	int c, rc;

	out_init(&out);
	optind = 1;
	while ((c = getopt_long(argc, argv, ":qh" OUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if ((rc = out_option(&out, c, optarg)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		if (c == 'q')
			continue;
		if (c == 'h') {
			list_usage(stdout);
			return EXIT_OK;
		}
		return usage_error(c, argv, "trace list");
	}
	if (optind < argc) {
		msg("unexpected argument '%s': the list takes none (see anonsim trace list --help)",
		    argv[optind]);
		return EXIT_USAGE;
	}
	return list_report(&out);
}
