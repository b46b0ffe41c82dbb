/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_fidelity.c - "anonsim fidelity": hold the model to what the recorder
 * measured on the host at the end of each real trace.
 */
#include <config.h>

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_traces.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/output_format.h"
#include "model/replay.h"
#include "strategy/registry.h"
#include "util/util.h"
#include "util/xalloc.h"

static void fidelity_usage(FILE *f)
{
	fputs("Usage: anonsim fidelity [OPTIONS] TRACE...\n"
	      "\n"
	      "Replay each recorded TRACE under read-copy (what UML really did) with\n"
	      "its recorded readahead window and compare the predicted host tmpfs and\n"
	      "page-cache pages with the footprint the recorder measured, each at the\n"
	      "time of its footprint event.  A trace is held to what it can be: the\n"
	      "page cache when it has a 'footprint cache:DEV' event; tmpfs when it\n"
	      "also has a 'footprint tmpfs' event and touch events (a trace without\n"
	      "touches, such as one imported from strace, cannot predict tmpfs).\n"
	      TRACE_ARGS_HELP
	      "\n"
	      "Options:\n"
	      "      --tmpfs-tolerance PCT   allowed tmpfs difference (default: 2)\n"
	      "      --cache-tolerance PCT   allowed page-cache difference (default: 5)\n"
	      "      --cache-only            hold every trace to its page cache alone\n"
	      "  -o, --output FILE           write to FILE (complete or not at all)\n"
	      "                              instead of standard output\n"
	      "      --csv                   CSV, one row per trace\n"
	      "      --json                  one JSON object (see anonsim(1))\n"
	      "  -q, --quiet                 no line on which file a trace name read\n"
	      "  -h, --help                  this help\n"
	      "\n"
	      "No footprint the trace can be held to is bad data (2); a difference\n"
	      "beyond its tolerance is a missed target (4).\n"
	      EXIT_STATUS_HELP, f);
}

/* What a trace recorded, and the model at the time of each footprint event. */
struct footprint {
	uint64_t touches;		/* the first instance's touch events */
	int64_t tmpfs, cache;		/* measured; -1: not recorded */
	uint64_t model_tmpfs, model_cache;
};

static int at_footprint(void *arg, unsigned k, const struct trace_event *ev,
			const struct host *h, char *err, size_t errlen)
{
	struct footprint *fp = arg;

	if (k)
		return 0;
	if (ev->kind == EV_TOUCH)
		fp->touches++;
	if (ev->kind != EV_FOOTPRINT)
		return 0;
	if (!strcmp(ev->name, "tmpfs")) {
		fp->tmpfs = (int64_t)ev->count;
		fp->model_tmpfs = h->pages[CAT_TMPFS];
	} else if (!strncmp(ev->name, "cache:", 6)) {
		fp->cache = (fp->cache < 0 ? 0 : fp->cache) + (int64_t)ev->count;
		fp->model_cache = h->pages[CAT_CACHE];
	}
	return 0;
}

/* One trace's verdict. */
struct verdict {
	struct footprint fp;
	struct trace_header hdr;
	bool tmpfs_held, cache_held, ok;
	const char *why_not;	/* why tmpfs, or else the page cache, is not held */
};

static bool within(bool held, int64_t measured, uint64_t model, double tol)
{
	return !held || fabs(diff_pct((double)model, (double)measured)) <= tol;
}

/* One figure's three columns, or dashes when not held. */
static void print_figure(FILE *f, bool held, int64_t measured, uint64_t model)
{
	if (!held) {
		fprintf(f, " %9s %9s %7s", "-", "-", "-");
		return;
	}
	fprintf(f, " %9lld %9llu %+6.1f%%", (long long)measured, (unsigned long long)model,
		diff_pct((double)model, (double)measured));
}

static void put_table(FILE *f, char *const *names, const struct verdict *v, unsigned n)
{
	unsigned i;

	fprintf(f, "%-36s %9s %9s %7s %9s %9s %7s\n", "trace", "tmpfs", "model", "diff",
		"cache", "model", "diff");
	for (i = 0; i < n; i++) {
		fprintf(f, "%-36s", names[i]);
		print_figure(f, v[i].tmpfs_held, v[i].fp.tmpfs, v[i].fp.model_tmpfs);
		print_figure(f, v[i].cache_held, v[i].fp.cache, v[i].fp.model_cache);
		fputs(v[i].ok ? "\n" : "  beyond tolerance\n", f);
		if (v[i].why_not)
			fprintf(f, "  (%s not held: %s)\n", v[i].tmpfs_held ? "page cache" : "tmpfs",
				v[i].why_not);
	}
}

/* A figure's measured, model and difference fields: empty when not held. */
static void csv_figure(FILE *f, bool held, int64_t measured, uint64_t model)
{
	char b[OUT_NUM_MAX];

	if (!held) {
		fputs(",,,", f);
		return;
	}
	fprintf(f, ",%lld,%llu", (long long)measured, (unsigned long long)model);
	csv_field(f, false, fmt_double(b, diff_pct((double)model, (double)measured)));
}

static void put_csv(FILE *f, char *const *names, const struct verdict *v, unsigned n)
{
	unsigned i;

	fputs("trace,tmpfs_pages,model_tmpfs_pages,tmpfs_diff_pct,cache_pages,"
	      "model_cache_pages,cache_diff_pct,within_tolerance,not_held\n", f);
	for (i = 0; i < n; i++) {
		csv_field(f, true, names[i]);
		csv_figure(f, v[i].tmpfs_held, v[i].fp.tmpfs, v[i].fp.model_tmpfs);
		csv_figure(f, v[i].cache_held, v[i].fp.cache, v[i].fp.model_cache);
		fputs(v[i].ok ? ",yes" : ",no", f);
		csv_field(f, false, v[i].why_not);
		fputc('\n', f);
	}
}

static void json_figure(struct json *j, const char *key, bool held, int64_t measured,
			uint64_t model, double tol)
{
	char b[OUT_NUM_MAX];

	if (!held) {
		json_null(j, key);
		return;
	}
	json_object(j, key);
	json_int(j, "measured_pages", measured);
	json_uint(j, "model_pages", model);
	json_number(j, "diff_pct", fmt_double(b, diff_pct((double)model, (double)measured)));
	json_number(j, "tolerance_pct", fmt_double(b, tol));
	json_end(j);
}

static void put_json(FILE *f, char *const *names, const struct verdict *v, unsigned n,
		     const struct replay_opts *o, double tol_tmpfs, double tol_cache,
		     bool cache_only)
{
	static const char *const strategy[] = { "read-copy" };
	char b[OUT_NUM_MAX];
	struct json j;
	unsigned i;

	json_start(&j, f);
	json_head(&j, "fidelity");
	json_host_inputs(&j, o, strategy, 1, JI_READAHEAD);
	json_number(&j, "tmpfs_tolerance_pct", fmt_double(b, tol_tmpfs));
	json_number(&j, "cache_tolerance_pct", fmt_double(b, tol_cache));
	json_bool(&j, "cache_only", cache_only);
	json_end(&j);
	json_array(&j, "traces");
	for (i = 0; i < n; i++) {
		json_object(&j, NULL);
		json_string(&j, "name", names[i]);
		json_object(&j, "header");
		json_trace_header(&j, &v[i].hdr);
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_array(&j, "results");
	for (i = 0; i < n; i++) {
		json_object(&j, NULL);
		json_string(&j, "trace", names[i]);
		json_figure(&j, "tmpfs", v[i].tmpfs_held, v[i].fp.tmpfs, v[i].fp.model_tmpfs,
			    tol_tmpfs);
		json_figure(&j, "cache", v[i].cache_held, v[i].fp.cache, v[i].fp.model_cache,
			    tol_cache);
		json_uint(&j, "touch_events", v[i].fp.touches);
		json_bool(&j, "within_tolerance", v[i].ok);
		json_string(&j, "not_held", v[i].why_not);
		json_end(&j);
	}
	json_end(&j);
	json_finish(&j);
}

/* What the command line asks of the comparison, and its output. */
struct fidelity_cli {
	struct replay_opts o;		/* read-copy as UML ran it, each trace's readahead */
	struct out out;
	double tol_tmpfs, tol_cache;
	bool cache_only, quiet;
	char **traces;
	unsigned n;
};

/* An option that is not an output option; 0, or an exit status (-1: help shown). */
static int fidelity_own_option(struct fidelity_cli *fc, int opt, char **argv)
{
	char *end;
	double t;

	switch (opt) {
	case 't':
	case 'c':
		t = strtod(optarg, &end);
		if (end == optarg || *end || !(t >= 0 && t <= 1e6)) {	/* not NaN */
			msg("--%s '%s': expected a percentage",
			    opt == 't' ? "tmpfs-tolerance" : "cache-tolerance", optarg);
			return EXIT_USAGE;
		}
		*(opt == 't' ? &fc->tol_tmpfs : &fc->tol_cache) = t;
		return 0;
	case 'C':
		fc->cache_only = true;
		return 0;
	case 'q':
		fc->quiet = true;
		return 0;
	case 'h':
		fidelity_usage(stdout);
		return -1;
	default:
		return usage_error(opt, argv, "fidelity");
	}
}

/* The options and traces: into @fc's settings.  0, or an exit status (-1: help shown). */
static int fidelity_parse(struct fidelity_cli *fc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tmpfs-tolerance", required_argument, NULL, 't' },
		{ "cache-tolerance", required_argument, NULL, 'c' },
		{ "cache-only", no_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		OUT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":qh" OUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if ((rc = out_option(&fc->out, opt, optarg)) < 0)
			rc = fidelity_own_option(fc, opt, argv);
		if (rc)
			return rc;
	}
	if (optind >= argc) {
		msg("no trace given (see anonsim fidelity --help)");
		return EXIT_USAGE;
	}
	fc->traces = argv + optind;
	fc->n = (unsigned)(argc - optind);
	return 0;
}

/* Trace @i replayed and held to its footprint, into @w; 0, or an exit status after a message. */
static int fidelity_judge(struct fidelity_cli *fc, unsigned i, struct verdict *w)
{
	struct replay_result r;
	struct trace_reader *tr;
	char err[1024];
	char *paths[1] = { fc->traces[i] };
	int rc;

	w->fp = (struct footprint){ .tmpfs = -1, .cache = -1 };
	tr = trace_open(paths[0], err, sizeof(err));
	if (tr) {
		w->hdr = *trace_header(tr);
		trace_close(tr);
	}
	fc->o.observe = at_footprint;
	fc->o.observe_arg = &w->fp;
	rc = tr ? replay_run(paths, 1, strategy_find("read-copy"), ANON_FIXED, &fc->o, &r,
			     err, sizeof(err)) : EXIT_DATA;
	if (rc) {
		msg("%s", err);
		return rc;
	}
	w->tmpfs_held = !fc->cache_only && w->fp.tmpfs >= 0 && w->fp.touches;
	w->cache_held = w->fp.cache >= 0;
	if (!w->cache_held && !w->tmpfs_held) {
		msg("%s: no footprint it can be held to (needs a 'footprint cache:DEV' event, or 'footprint tmpfs' and touch events)",
		    paths[0]);
		return EXIT_DATA;
	}
	w->ok = within(w->tmpfs_held, w->fp.tmpfs, w->fp.model_tmpfs, fc->tol_tmpfs) &&
		within(w->cache_held, w->fp.cache, w->fp.model_cache, fc->tol_cache);
	if (!w->tmpfs_held)
		w->why_not = fc->cache_only ? "--cache-only" : w->fp.tmpfs < 0 ?
			"no 'footprint tmpfs' event" : "the trace has no touch events";
	else if (!w->cache_held)
		w->why_not = "no 'footprint cache:DEV' event";
	return 0;
}

/* The verdicts in the format asked. */
static void fidelity_report(const struct fidelity_cli *fc, const struct verdict *v)
{
	if (fc->out.fmt == OUT_JSON)
		put_json(fc->out.f, fc->traces, v, fc->n, &fc->o, fc->tol_tmpfs, fc->tol_cache,
			 fc->cache_only);
	else if (fc->out.fmt == OUT_CSV)
		put_csv(fc->out.f, fc->traces, v, fc->n);
	else
		put_table(fc->out.f, fc->traces, v, fc->n);
}

int cmd_fidelity(int argc, char **argv)
{
	struct fidelity_cli fc = {
		.o = { .swap = 0, .policy = RECLAIM_MODERN, .readahead_kb = -1,
			.copies = 1, .stagger_us = -1, .share = true, .check = true,
			.geom = &shmem_geom_x86_64 },
		.tol_tmpfs = 2.0, .tol_cache = 5.0,
	};
	bool missed = false;
	struct verdict *v;
	unsigned i;
	int rc;

	out_init(&fc.out);
	rc = fidelity_parse(&fc, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if ((rc = cli_traces_ready(fc.traces, fc.n, fc.quiet)))
		return rc;
	v = xcalloc(fc.n, sizeof(*v), "the verdicts");
	if ((rc = out_open(&fc.out, fc.traces, fc.n))) {
		free(v);
		return rc;
	}
	for (i = 0; i < fc.n; i++) {
		if ((rc = fidelity_judge(&fc, i, &v[i]))) {
			free(v);
			out_abort(&fc.out);
			return rc;
		}
		missed |= !v[i].ok;
	}
	fidelity_report(&fc, v);
	free(v);
	if ((rc = out_close(&fc.out)))
		return rc;
	return missed ? EXIT_TARGET : EXIT_OK;
}
