/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_density.c - anonsim density: how many instances of a trace fit on a
 * host before it swaps, per strategy.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/host_options.h"
#include "cli/cli_traces.h"
#include "cli/output_format.h"
#include "cli/report.h"
#include "model/density.h"
#include "util/util.h"
#include "util/xalloc.h"

#define MAX_N_LIMIT 4096

static void density_usage(FILE *f)
{
	fputs("Usage: anonsim density [OPTIONS] TRACE...\n"
	      "\n"
	      "Boot 1, 2, ... N instances of the traces (one after another, unless\n"
	      "--stagger) on a host of the given memory, under each strategy.  For\n"
	      "each N, report the host memory the instances demand by category (with\n"
	      "unlimited memory) and the swap they use on the host given; per strategy,\n"
	      "the density: the largest N that runs without a single swap-out.  A\n"
	      "sweep stops after two consecutive N that swap.  With --stagger or\n"
	      "--check, where N instances are no prefix of more, the density is found\n"
	      "by bisection from O(log N) replays, and the table lists the points\n"
	      "replayed (--every-n: replay every N instead).\n"
	      TRACE_ARGS_HELP
	      "\n"
	      "Options:\n", f);
	host_options_usage(f, "");
	fputs("      --max N           try up to N instances (default: 32)\n"
	      "      --every-n         with --stagger or --check: replay every N, no bisection\n"
	      "  -j, --jobs N          replays run in parallel (default: online CPUs)\n"
	      OUT_OPTIONS_HELP
	      QUIET_PROGRESS_HELP
	      "  -h, --help            this help\n"
	      "\n", f);
	host_options_strategies(f);
	fputs("\n" EXIT_STATUS_HELP, f);
}

enum { O_MAX = HOST_O_END, O_EVERY };

static const struct option density_options[] = {
	HOST_LONG_OPTIONS,
	OUT_LONG_OPTIONS,
	{ "max", required_argument, NULL, O_MAX },
	{ "every-n", no_argument, NULL, O_EVERY },
	{ "jobs", required_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct sweep_result {
	char label[32];
	struct density_point *pt;
	unsigned filled, density;
	unsigned *order;		/* bisection: N in the order replayed; else NULL */
};

static void put_table(FILE *f, const struct sweep_result *sr,
		      const struct replay_opts *o, unsigned max_n)
{
	unsigned i;
	int c;

	fprintf(f, "%s: host memory ", sr->label);
	if (o->host_mem)
		fprintf(f, "%.2f MiB", o->host_mem / 1048576.0);
	else
		fputs("unlimited", f);
	fprintf(f, ", swap %.2f MiB, reclaim %s, %s image\n", o->swap / 1048576.0,
		reclaim_policy_names[o->policy],
		o->share ? "shared" : "private");
	fprintf(f, "%5s", "N");
	for (c = 0; c < CAT_NR; c++)
		fprintf(f, " %10s", mem_cat_names[c]);
	fprintf(f, " %10s %10s %10s %10s\n", "total", "peak", "swap used", "swap-outs");
	for (i = 0; i < sr->filled; i++) {
		const struct density_point *p = &sr->pt[i];

		fprintf(f, "%5u", p->n);
		for (c = 0; c < CAT_NR; c++)
			fprintf(f, " %10.2f", pages_mib(p->demand.final[c]));
		fprintf(f, " %10.2f %10.2f %10.2f %10llu\n", pages_mib(p->demand.final_total),
			pages_mib(p->demand.peak_total), pages_mib(p->limited.swap_peak),
			(unsigned long long)p->limited.swap_outs);
	}
	if (sr->order) {
		fputs("replayed (bisection, in this order): N =", f);
		for (i = 0; i < sr->filled; i++)
			fprintf(f, " %u", sr->order[i]);
		fputc('\n', f);
	}
	if (!o->host_mem)
		fprintf(f, "density: no host memory limit (see --host-mem)\n\n");
	else if (sr->density == max_n)
		fprintf(f, "density: at least %u instances (all tried fit; see --max)\n\n",
			sr->density);
	else
		fprintf(f, "density: %u instance%s before the host swaps\n\n",
			sr->density, sr->density == 1 ? "" : "s");
}

static bool sweep_failed(const struct sweep_result *sr)
{
	unsigned i;

	for (i = 0; i < sr->filled; i++)
		if (replay_failed(&sr->pt[i].demand) || replay_failed(&sr->pt[i].limited)) {
			const struct replay_result *r = replay_failed(&sr->pt[i].demand) ?
				&sr->pt[i].demand : &sr->pt[i].limited;

			msg("%s, %u instances: simulator failure: %s; at %s", sr->label,
			    sr->pt[i].n, r->find.first_other, r->fail_at);
			return true;
		}
	return false;
}

/* What the command line asks of a density sweep, and its output. */
struct density_cli {
	struct host_cli hc;
	struct out out;
	unsigned max_n, jobs;
	bool quiet, every;
	char **traces;
	unsigned ntraces;
};

/* Each strategy run's sweep, in report order. */
struct density_results {
	struct strategy_run runs[HOST_CLI_MAX_RUNS];
	struct sweep_result sr[HOST_CLI_MAX_RUNS];
	unsigned nruns;
	bool failed;			/* a simulator failure in one of them */
};

/* An option that is not a host or output option; 0, or an exit status (-1: help shown). */
static int density_own_option(struct density_cli *dc, int c, char **argv)
{
	uint64_t v;

	switch (c) {
	case O_MAX:
		if (parse_uint(optarg, MAX_N_LIMIT, &v) || !v)
			return bad_option_value("--max", optarg, "a number from 1 to 4096");
		dc->max_n = (unsigned)v;
		return 0;
	case 'j':
		if (parse_uint(optarg, 1024, &v) || !v)
			return bad_option_value("--jobs", optarg, "a number from 1 to 1024");
		dc->jobs = (unsigned)v;
		return 0;
	case O_EVERY:
		dc->every = true;
		return 0;
	case 'q':
		dc->quiet = true;
		return 0;
	case 'h':
		density_usage(stdout);
		return -1;
	default:
		return usage_error(c, argv, "density");
	}
}

/* The options and traces: into @dc's settings.  0, or an exit status (-1: help shown). */
static int density_parse(struct density_cli *dc, int argc, char **argv)
{
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":" HOST_SHORT_OPTIONS OUT_SHORT_OPTIONS "j:qh",
				density_options, NULL)) != -1) {
		rc = host_cli_option(&dc->hc, c, optarg);
		if (rc < 0)
			rc = out_option(&dc->out, c, optarg);
		if (rc < 0)
			rc = density_own_option(dc, c, argv);
		if (rc)
			return rc;
	}
	if (optind >= argc) {
		msg("no trace given (see anonsim density --help)");
		return EXIT_USAGE;
	}
	dc->traces = argv + optind;
	dc->ntraces = (unsigned)(argc - optind);
	return 0;
}

/* Each strategy run's sweep, into @dr; 0, or an exit status after a message. */
static int density_run_all(const struct density_cli *dc, struct density_results *dr)
{
	const struct replay_opts *o = &dc->hc.o;
	bool bisect;
	unsigned r;
	int rc;

	dr->failed = false;
	dr->nruns = host_cli_runs(&dc->hc, dr->runs, HOST_CLI_MAX_RUNS);
	bisect = !dc->every && o->host_mem && (o->stagger_us >= 0 || o->check);
	memset(dr->sr, 0, sizeof(dr->sr));
	for (r = 0; r < dr->nruns; r++) {
		const struct strategy_run *run = &dr->runs[r];
		struct sweep_result *sr = &dr->sr[r];
		char err[512];

		sr->pt = xcalloc(dc->max_n, sizeof(*sr->pt), "the points of the sweep");
		if (bisect) {
			sr->order = xcalloc(dc->max_n, sizeof(*sr->order),
					    "the order of the bisection");
			rc = density_bisect(dc->traces, dc->ntraces, run->s, run->v, o,
					    dc->max_n, dc->jobs, sr->pt, &sr->filled,
					    &sr->density, sr->order, err, sizeof(err));
		} else {
			rc = density_sweep(dc->traces, dc->ntraces, run->s, run->v, o,
					   dc->max_n, dc->jobs, sr->pt, &sr->filled,
					   &sr->density, err, sizeof(err));
		}
		if (rc) {
			msg("%s", err);
			return rc;
		}
		snprintf(sr->label, sizeof(sr->label), "%s",
			 sr->filled ? sr->pt[0].demand.label : run->s->name);
		dr->failed |= sweep_failed(sr);
	}
	return 0;
}

/* The sweeps as the one JSON object; 0, or an exit status after a message. */
static int density_put_json(const struct density_cli *dc, const struct density_results *dr)
{
	const char *labels[HOST_CLI_MAX_RUNS];
	struct json j;
	unsigned r;
	int rc;

	for (r = 0; r < dr->nruns; r++)
		labels[r] = dr->sr[r].label;
	json_start(&j, dc->out.f);
	json_head(&j, "density");
	json_host_inputs(&j, &dc->hc.o, labels, dr->nruns, JI_ALL & ~JI_INSTANCES);
	json_uint(&j, "max_instances", dc->max_n);
	json_end(&j);
	if ((rc = json_traces(&j, dc->traces, dc->ntraces)))
		return rc;
	json_array(&j, "results");
	for (r = 0; r < dr->nruns; r++)
		density_json(&j, dr->sr[r].label, dr->sr[r].pt, dr->sr[r].filled,
			     dr->sr[r].density, dc->hc.o.host_mem);
	json_end(&j);
	json_finish(&j);
	return 0;
}

/* The sweeps in the format asked; 0, or an exit status after a message. */
static int density_report(const struct density_cli *dc, const struct density_results *dr)
{
	unsigned r;

	if (dc->out.fmt == OUT_CSV) {
		density_csv_header(dc->out.f);
		for (r = 0; r < dr->nruns; r++)
			density_csv(dc->out.f, dr->sr[r].label, dr->sr[r].pt, dr->sr[r].filled,
				    dr->sr[r].density, dc->hc.o.host_mem);
	} else if (dc->out.fmt == OUT_JSON) {
		return density_put_json(dc, dr);
	} else {
		for (r = 0; r < dr->nruns; r++)
			put_table(dc->out.f, &dr->sr[r], &dc->hc.o, dc->max_n);
	}
	return 0;
}

int cmd_density(int argc, char **argv)
{
	struct density_cli dc = { .max_n = 32, .jobs = online_cpus() };
	struct density_results dr;
	unsigned r;
	int rc;

	host_cli_init(&dc.hc);
	out_init(&dc.out);
	rc = density_parse(&dc, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if ((rc = cli_traces_ready(dc.traces, dc.ntraces, dc.quiet)))
		return rc;
	dc.hc.o.progress = !dc.quiet && isatty(STDERR_FILENO);
	/* the output is ready before the sweep, not found wanting after it */
	if ((rc = out_open(&dc.out, dc.traces, dc.ntraces)))
		return rc;
	rc = density_run_all(&dc, &dr);
	if (!rc)
		rc = density_report(&dc, &dr);
	if (rc)
		out_abort(&dc.out);
	else if (!(rc = out_close(&dc.out)))
		rc = dr.failed ? EXIT_INTERNAL : EXIT_OK;
	for (r = 0; r < dr.nruns; r++) {
		free(dr.sr[r].pt);
		free(dr.sr[r].order);
	}
	return rc;
}
