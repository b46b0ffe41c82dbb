/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_replay.c - anonsim replay: traces through the host model, per strategy.
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
#include "cli/output_file.h"
#include "cli/output_format.h"
#include "cli/report.h"
#include "model/replay.h"
#include "util/util.h"

static void replay_usage(FILE *f)
{
	fputs("Usage: anonsim replay [OPTIONS] TRACE...\n"
	      "\n"
	      "Replay UML traces through the host model and report host memory by\n"
	      "category for each strategy.  Each TRACE is one instance; --instances\n"
	      "boots each of them N times.\n"
	      TRACE_ARGS_HELP
	      "\n"
	      "Options:\n", f);
	host_options_usage(f, "  -n, --instances N     boot each trace N times (default: 1)\n");
	fputs(OUT_OPTIONS_HELP
	      "      --pages           memory in 4 KiB pages instead of MiB\n"
	      "      --series FILE     write host memory by category over trace time (CSV;\n"
	      "                        - for standard output, the report then in -o FILE)\n"
	      "      --series-step SECS  sampling step of --series (default: 0.1)\n"
	      "      --reclaim-log FILE  write each reclaim of the modern policy (CSV: when,\n"
	      "                        readahead's or not, priority, pages scanned, written,\n"
	      "                        freed, deactivated; bench/reclaim_trace.sh sets the\n"
	      "                        kernel's beside it)\n"
	      QUIET_PROGRESS_HELP
	      "  -h, --help            this help\n"
	      "\n", f);
	host_options_strategies(f);
	fputs("\n" EXIT_STATUS_HELP, f);
}

enum { O_PAGES = HOST_O_END, O_SERIES, O_STEP, O_RECLAIM_LOG };

static const struct option replay_options[] = {
	HOST_LONG_OPTIONS,
	OUT_LONG_OPTIONS,
	{ "instances", required_argument, NULL, 'n' },
	{ "pages", no_argument, NULL, O_PAGES },
	{ "series", required_argument, NULL, O_SERIES },
	{ "series-step", required_argument, NULL, O_STEP },
	{ "reclaim-log", required_argument, NULL, O_RECLAIM_LOG },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* What the command line asks of a replay, and the outputs it writes. */
struct replay_cli {
	struct host_cli hc;
	struct out out;
	const char *series_path;
	struct out series;		/* once opened, when series_path ("-": standard output) */
	const char *reclaim_path;
	struct out reclaim;		/* once opened, when reclaim_path */
	bool quiet, pages;
	char **traces;
	unsigned ntraces;
};

/* Each strategy's result, in report order. */
struct replay_results {
	struct replay_result res[HOST_CLI_MAX_RUNS];
	const char *labels[HOST_CLI_MAX_RUNS];
	unsigned n;
	bool failed;			/* a simulator failure in one of them */
};

/* An option that is not a host or output option; 0, or an exit status (-1: help shown). */
static int replay_own_option(struct replay_cli *rp, int c, char **argv)
{
	uint64_t v;

	switch (c) {
	case 'n':
		if (parse_uint(optarg, REPLAY_COPIES_MAX, &v) || !v)
			return bad_option_value("--instances", optarg,
						"a number from 1 to 4096");
		rp->hc.o.copies = (unsigned)v;
		return 0;
	case O_PAGES:
		rp->pages = true;
		return 0;
	case O_SERIES:
		if (!*optarg)
			return bad_option_value("--series", optarg,
						"a file name, or - for standard output");
		rp->series_path = optarg;
		return 0;
	case O_RECLAIM_LOG:
		if (!*optarg || !strcmp(optarg, "-"))
			return bad_option_value("--reclaim-log", optarg, "a file name");
		rp->reclaim_path = optarg;
		return 0;
	case O_STEP: {
		int64_t us = parse_seconds(optarg);

		if (us <= 0)
			return bad_option_value("--series-step", optarg, "seconds > 0");
		rp->hc.o.series_step_us = (uint64_t)us;
		return 0;
	}
	case 'q':
		rp->quiet = true;
		return 0;
	case 'h':
		replay_usage(stdout);
		return -1;
	default:
		return usage_error(c, argv, "replay");
	}
}

/* The options and traces: into @rp's settings.  0, or an exit status (-1: help shown). */
static int replay_parse(struct replay_cli *rp, int argc, char **argv)
{
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":" HOST_SHORT_OPTIONS OUT_SHORT_OPTIONS "n:qh",
				replay_options, NULL)) != -1) {
		if ((rc = host_cli_option(&rp->hc, c, optarg)) >= 0 ||
		    (rc = out_option(&rp->out, c, optarg)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		rc = replay_own_option(rp, c, argv);
		if (rc)
			return rc;
	}
	if (optind >= argc) {
		msg("no trace given (see anonsim replay --help)");
		return EXIT_USAGE;
	}
	rp->traces = argv + optind;
	rp->ntraces = (unsigned)(argc - optind);
	return 0;
}

/* The --series and --reclaim-log files dropped (a failure after they opened). */
static void replay_abort_sides(struct replay_cli *rp)
{
	if (rp->hc.o.series)
		out_abort(&rp->series);
	if (rp->hc.o.reclaim_log)
		out_abort(&rp->reclaim);
	rp->hc.o.series = rp->hc.o.reclaim_log = NULL;
}

/* The --reclaim-log file and its header; 0, or an exit status (all dropped). */
static int replay_open_reclaim_log(struct replay_cli *rp)
{
	int rc;

	if (!rp->reclaim_path)
		return 0;
	out_init(&rp->reclaim);
	rp->reclaim.path = rp->reclaim_path;
	if ((rc = out_open(&rp->reclaim, rp->traces, rp->ntraces))) {
		replay_abort_sides(rp);
		out_abort(&rp->out);
		return rc;
	}
	rp->hc.o.reclaim_log = rp->reclaim.f;
	host_reclaim_log_header(rp->reclaim.f);
	return 0;
}

/*
 * The output, then the --series file and its header, then the
 * --reclaim-log file; 0, or an exit status (none left open).
 */
static int replay_open_outputs(struct replay_cli *rp)
{
	int rc;

	if (rp->series_path && !strcmp(rp->series_path, "-") &&
	    (!rp->out.path || !strcmp(rp->out.path, "-"))) {
		msg("--series - and the report would share standard output: give the report -o FILE");
		return EXIT_USAGE;
	}
	if ((rc = out_open(&rp->out, rp->traces, rp->ntraces)))
		return rc;
	if (!rp->series_path)
		return replay_open_reclaim_log(rp);
	out_init(&rp->series);
	rp->series.path = rp->series_path;
	if ((rc = out_open(&rp->series, rp->traces, rp->ntraces))) {
		out_abort(&rp->out);
		return rc;
	}
	rp->hc.o.series = rp->series.f;
	fputs("strategy,time_s,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,"
	      "overhead_mib,total_mib,swap_used_mib\n", rp->hc.o.series);
	return replay_open_reclaim_log(rp);
}

/* Each strategy's replay, into @rr; 0, or an exit status (both outputs dropped). */
static int replay_run_all(struct replay_cli *rp, struct replay_results *rr)
{
	struct strategy_run runs[HOST_CLI_MAX_RUNS];
	struct replay_opts *o = &rp->hc.o;
	unsigned nruns, r;
	int rc;

	rr->n = 0;
	rr->failed = false;
	nruns = host_cli_runs(&rp->hc, runs, HOST_CLI_MAX_RUNS);
	for (r = 0; r < nruns; r++) {
		struct replay_result *res = &rr->res[rr->n];
		char err[512];

		/* after the first strategy, the events each run replays are known */
		o->progress_events = rr->n ? rr->res[0].events : 0;
		rc = replay_run(rp->traces, rp->ntraces, runs[r].s, runs[r].v, o, res,
				err, sizeof(err));
		if (rc) {
			msg("%s", err);
			replay_abort_sides(rp);
			out_abort(&rp->out);
			return rc;
		}
		if (replay_failed(res))
			msg("%s: simulator failure: %s; at %s", res->label,
			    res->find.first_other, res->fail_at);
		rr->failed |= replay_failed(res);
		rr->labels[rr->n] = res->label;
		rr->n++;
	}
	return 0;
}

/* The results as the one JSON object; 0, or an exit status (the output dropped). */
static int replay_put_json(struct replay_cli *rp, const struct replay_results *rr)
{
	struct json j;
	int rc;

	json_start(&j, rp->out.f);
	json_head(&j, "replay");
	json_host_inputs(&j, &rp->hc.o, rr->labels, rr->n, JI_ALL);
	json_bool(&j, "pages", rp->pages);
	json_end(&j);
	if ((rc = json_traces(&j, rp->traces, rp->ntraces))) {
		out_abort(&rp->out);
		return rc;
	}
	report_json_results(&j, rr->res, rr->n, rp->pages);
	json_finish(&j);
	return 0;
}

/* The results in the format asked; 0, or an exit status (the output dropped). */
static int replay_report(struct replay_cli *rp, const struct replay_results *rr)
{
	if (rp->out.fmt == OUT_CSV)
		report_csv(rp->out.f, rr->res, rr->n, rp->pages);
	else if (rp->out.fmt == OUT_JSON)
		return replay_put_json(rp, rr);
	else
		report_table(rp->out.f, rr->res, rr->n, rp->pages);
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_cli rp = { .series_path = NULL, .reclaim_path = NULL };
	struct replay_results rr;
	int rc;

	host_cli_init(&rp.hc);
	out_init(&rp.out);
	rc = replay_parse(&rp, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if ((rc = cli_traces_ready(rp.traces, rp.ntraces, rp.quiet)))
		return rc;
	rp.hc.o.progress = !rp.quiet && isatty(STDERR_FILENO);
	if ((rc = replay_open_outputs(&rp)))
		return rc;
	if ((rc = replay_run_all(&rp, &rr)))
		return rc;
	if (rp.series_path && (rc = out_close(&rp.series))) {
		rp.hc.o.series = NULL;
		replay_abort_sides(&rp);
		out_abort(&rp.out);
		return rc;
	}
	if (rp.reclaim_path && (rc = out_close(&rp.reclaim))) {
		out_abort(&rp.out);
		return rc;
	}
	if ((rc = replay_report(&rp, &rr)))
		return rc;
	if ((rc = out_close(&rp.out)))
		return rc;
	return rr.failed ? EXIT_INTERNAL : EXIT_OK;
}
