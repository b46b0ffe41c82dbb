/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output_format.c - one way for every command to choose and write its
 * output: the options, the numbers at full precision, CSV fields and a
 * small streaming JSON writer with the head every command's JSON shares.
 */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/host_options.h"
#include "cli/output_format.h"
#include "trace/trace.h"
#include "util/util.h"
#include "util/xalloc.h"

static int cl_argc;
static char **cl_argv;

void out_set_command_line(int argc, char **argv)
{
	cl_argc = argc;
	cl_argv = argv;
}

void out_init(struct out *o)
{
	memset(o, 0, sizeof(*o));
	o->fmt = OUT_TABLE;
	o->f = stdout;
}

int out_option(struct out *o, int c, const char *arg)
{
	enum out_format want;

	switch (c) {
	case 'o':
		if (!*arg)
			return bad_option_value("--output", arg,
						"a file name, or - for standard output");
		if (o->path && strcmp(o->path, arg)) {
			msg("-o given twice ('%s', '%s'): one output only", o->path, arg);
			return EXIT_USAGE;
		}
		o->path = arg;
		return 0;
	case OUT_O_CSV:
	case OUT_O_JSON:
		want = c == OUT_O_CSV ? OUT_CSV : OUT_JSON;
		if (o->fmt != OUT_TABLE && o->fmt != want) {
			msg("--csv and --json exclude each other");
			return EXIT_USAGE;
		}
		o->fmt = want;
		return 0;
	}
	return -1;
}

int out_open(struct out *o, char *const *inputs, unsigned n)
{
	o->f = stdout;
	if (!o->path || !strcmp(o->path, "-"))
		return 0;
	if (output_not_input(o->path, inputs, n))
		return EXIT_USAGE;
	if (output_open(&o->file, o->path))
		return EXIT_OUTPUT;
	o->f = o->file.f;
	return 0;
}

int out_close(struct out *o)
{
	if (o->f != stdout) {
		o->f = stdout;
		return output_commit(&o->file) ? EXIT_OUTPUT : 0;
	}
	return 0;	/* main checks standard output as it closes it */
}

void out_abort(struct out *o)
{
	if (o->f != stdout)
		output_abort(&o->file);
	o->f = stdout;
}

/* ---- CSV ---- */

void csv_field(FILE *f, bool first, const char *v)
{
	if (!first)
		fputc(',', f);
	if (!v)
		return;
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

/* ---- JSON ---- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, f);
		else {	/* a file name need not be UTF-8: U+FFFD stands for a bad byte */
			int n = utf8_len(s);

			if (n)
				fwrite(s, 1, (size_t)n, f);
			else
				fputs("\\ufffd", f);
			s += n ? n - 1 : 0;
		}
	}
	fputc('"', f);
}

/* The separator, indentation and key of the next member. */
static void member(struct json *j, const char *key)
{
	fputs(j->more[j->depth] ? ",\n" : "\n", j->f);
	j->more[j->depth] = true;
	fprintf(j->f, "%*s", 2 * j->depth, "");
	if (key) {
		json_str(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_level(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->more[j->depth] = false;
	j->array[j->depth] = c == '[';
}

void json_start(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	fputc('{', f);
	j->depth = 1;
}

void json_finish(struct json *j)
{
	while (j->depth > 1)
		json_end(j);
	fputs("\n}\n", j->f);
	j->depth = 0;
}

void json_object(struct json *j, const char *key)
{
	open_level(j, key, '{');
}

void json_array(struct json *j, const char *key)
{
	open_level(j, key, '[');
}

void json_end(struct json *j)
{
	bool had = j->more[j->depth], array = j->array[j->depth];

	j->depth--;
	if (had)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(array ? ']' : '}', j->f);
}

void json_string(struct json *j, const char *key, const char *v)
{
	member(j, key);
	if (v)
		json_str(j->f, v);
	else
		fputs("null", j->f);
}

void json_uint(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_int(struct json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void json_number(struct json *j, const char *key, const char *v)
{
	member(j, key);
	fputs(v ? v : "null", j->f);
}

void json_head(struct json *j, const char *command)
{
	int i;

	json_string(j, "anonsim_version", PACKAGE_VERSION);
	json_string(j, "command", command);
	json_array(j, "command_line");
	for (i = 0; i < cl_argc; i++)
		json_string(j, NULL, cl_argv[i]);
	json_end(j);
}

void json_host_inputs(struct json *j, const struct replay_opts *o,
		      const char *const *labels, unsigned nlabels, unsigned which)
{
	char b[OUT_NUM_MAX];
	unsigned i;

	json_object(j, "inputs");
	if (which & JI_HOST) {
		if (o->host_mem)
			json_number(j, "host_mem_mib", fmt_bytes_mib(b, o->host_mem));
		else
			json_null(j, "host_mem_mib");	/* unlimited */
		json_number(j, "swap_mib", fmt_bytes_mib(b, o->swap));
		json_string(j, "policy", reclaim_policy_names[o->policy]);
	}
	if (which & JI_REPORT) {
		if (o->report)
			json_uint(j, "report_order", o->report_order);
		else
			json_null(j, "report_order");	/* no reporting */
	}
	if (which & JI_READAHEAD) {
		if (o->readahead_kb >= 0)
			json_int(j, "readahead_kb", o->readahead_kb);
		else	/* each trace's own window: no one figure */
			json_null(j, "readahead_kb");
	}
	if (which & JI_OVERHEAD) {
		json_number(j, "overhead_mib", fmt_bytes_mib(b, o->overhead));
		json_number(j, "overhead_anon_mib", fmt_bytes_mib(b, o->overhead_anon));
	}
	if (which & JI_HOST_EVENTS)
		json_bool(j, "host_events", !o->no_host_events);
	if (which & JI_GEOMETRY)
		json_string(j, "geometry", o->geom->name);
	if (which & JI_SHARE)
		json_bool(j, "share", o->share);
	if (which & JI_STAGGER)
		json_number(j, "stagger_s", fmt_seconds(b, o->stagger_us));
	if (which & JI_INSTANCES)
		json_uint(j, "instances", o->copies);
	if (which & JI_CHECK)
		json_bool(j, "check", o->check);
	json_array(j, "strategies");
	for (i = 0; i < nlabels; i++)
		json_string(j, NULL, labels[i]);
	json_end(j);
}

void json_trace_header(struct json *j, const struct trace_header *h)
{
	char b[OUT_NUM_MAX];
	unsigned i;

	json_uint(j, "version", h->version);
	json_uint(j, "page_size_bytes", h->page_size);
	json_uint(j, "memory_bytes", h->memory);
	json_number(j, "memory_mib", fmt_bytes_mib(b, h->memory));
	json_array(j, "devices");
	for (i = 0; i < h->nr_devices; i++) {
		const struct trace_device *d = &h->devices[i];

		json_object(j, NULL);
		json_string(j, "name", d->name);
		json_uint(j, "size_bytes", d->size);
		json_string(j, "backing", d->backing);
		json_string(j, "cow", d->cow[0] ? d->cow : NULL);
		if (d->pmem)
			json_uint(j, "pmem_page", d->pmem_page);
		json_end(j);
	}
	json_end(j);
	if (h->readahead_kb >= 0)
		json_int(j, "readahead_kb", h->readahead_kb);
	else
		json_null(j, "readahead_kb");
	json_string(j, "recorder", h->recorder[0] ? h->recorder : NULL);
	if (h->version >= 2) {	/* version 1 has no vmm: its output stays as it was */
		json_string(j, "vmm", h->vmm[0] ? h->vmm : NULL);
		json_string(j, "vmm_version", h->vmm[0] ? h->vmm_version : NULL);
	}
	json_array(j, "notes");
	if (h->notes[0]) {
		char *notes = xstrdup(h->notes, "a trace's notes"), *line, *save;

		for (line = strtok_r(notes, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			json_string(j, NULL, line);
		free(notes);
	}
	json_end(j);
}

int json_traces(struct json *j, char *const *paths, unsigned n)
{
	unsigned i;

	json_array(j, "traces");
	for (i = 0; i < n; i++) {
		char err[1024];
		struct trace_reader *r = trace_open(paths[i], err, sizeof(err));

		if (!r) {
			msg("%s", err);
			json_end(j);	/* the JSON stays whole */
			return EXIT_DATA;
		}
		json_object(j, NULL);
		json_string(j, "name", paths[i]);
		json_object(j, "header");
		json_trace_header(j, trace_header(r));
		json_end(j);
		json_end(j);
		trace_close(r);
	}
	json_end(j);
	return 0;
}
