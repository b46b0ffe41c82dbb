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
	      "boots each of them N times.  A TRACE of - is standard input.\n"
	      "\n"
	      "Options:\n", f);
	host_options_usage(f, "  -n, --instances N     boot each trace N times (default: 1)\n");
	fputs(OUT_OPTIONS_HELP
	      "      --pages           memory in 4 KiB pages instead of MiB\n"
	      "      --series FILE     write host memory by category over trace time (CSV)\n"
	      "      --series-step SECS  sampling step of --series (default: 0.1)\n"
	      "  -q, --quiet           no progress line\n"
	      "  -h, --help            this help\n"
	      "\n", f);
	host_options_strategies(f);
	fputs("\n" EXIT_STATUS_HELP, f);
}

enum { O_PAGES = HOST_O_END, O_SERIES, O_STEP };

static const struct option replay_options[] = {
	HOST_LONG_OPTIONS,
	OUT_LONG_OPTIONS,
	{ "instances", required_argument, NULL, 'n' },
	{ "pages", no_argument, NULL, O_PAGES },
	{ "series", required_argument, NULL, O_SERIES },
	{ "series-step", required_argument, NULL, O_STEP },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int cmd_replay(int argc, char **argv)
{
	struct host_cli hc;
	struct replay_opts *o = &hc.o;
	const char *series_path = NULL;
	struct out out;
	struct replay_result res[HOST_CLI_MAX_RUNS];
	struct strategy_run runs[HOST_CLI_MAX_RUNS];
	struct output_file series;
	bool quiet = false, failed = false, pages = false;
	const char *labels[HOST_CLI_MAX_RUNS];
	unsigned nres = 0, nruns, r, ntraces;
	uint64_t v;
	int c, rc;

	host_cli_init(&hc);
	out_init(&out);
	optind = 1;
	while ((c = getopt_long(argc, argv, ":" HOST_SHORT_OPTIONS OUT_SHORT_OPTIONS "n:qh",
				replay_options, NULL)) != -1) {
		if ((rc = host_cli_option(&hc, c, optarg)) >= 0 ||
		    (rc = out_option(&out, c, optarg)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'n':
			if (parse_uint(optarg, 4096, &v) || !v)
				return bad_option_value("--instances", optarg,
							"a number from 1 to 4096");
			o->copies = (unsigned)v;
			break;
		case O_PAGES:
			pages = true;
			break;
		case O_SERIES:
			series_path = optarg;
			break;
		case O_STEP: {
			int64_t us = parse_seconds(optarg);

			if (us <= 0)
				return bad_option_value("--series-step", optarg,
							"seconds > 0");
			o->series_step_us = (uint64_t)us;
			break;
		}
		case 'q':
			quiet = true;
			break;
		case 'h':
			replay_usage(stdout);
			return EXIT_OK;
		default:
			return usage_error(c, argv, "replay");
		}
	}
	if (optind >= argc) {
		msg("no trace given (see anonsim replay --help)");
		return EXIT_USAGE;
	}
	ntraces = (unsigned)(argc - optind);
	if ((rc = cli_traces_ready(argv + optind, ntraces)))
		return rc;
	o->progress = !quiet && isatty(STDERR_FILENO);
	if ((rc = out_open(&out, argv + optind, ntraces)))
		return rc;
	if (series_path) {
		if (output_not_input(series_path, argv + optind, ntraces)) {
			out_abort(&out);
			return EXIT_USAGE;
		}
		if (output_open(&series, series_path)) {
			out_abort(&out);
			return EXIT_OUTPUT;
		}
		o->series = series.f;
		fputs("strategy,time_s,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,"
		      "overhead_mib,total_mib,swap_used_mib\n", o->series);
	}

	nruns = host_cli_runs(&hc, runs, HOST_CLI_MAX_RUNS);
	for (r = 0; r < nruns; r++) {
		char err[512];

		/* after the first strategy, the events each run replays are known */
		o->progress_events = nres ? res[0].events : 0;
		rc = replay_run(argv + optind, ntraces, runs[r].s,
				runs[r].v, o, &res[nres], err, sizeof(err));
		if (rc) {
			msg("%s", err);
			if (series_path)
				output_abort(&series);
			out_abort(&out);
			return rc;
		}
		if (replay_failed(&res[nres]))
			msg("%s: simulator failure: %s; at %s", res[nres].label,
			    res[nres].find.first_other, res[nres].fail_at);
		failed |= replay_failed(&res[nres]);
		labels[nres] = res[nres].label;
		nres++;
	}
	if (series_path && output_commit(&series)) {
		out_abort(&out);
		return EXIT_OUTPUT;
	}
	if (out.fmt == OUT_CSV) {
		report_csv(out.f, res, nres, pages);
	} else if (out.fmt == OUT_JSON) {
		struct json j;

		json_start(&j, out.f);
		json_head(&j, "replay");
		json_host_inputs(&j, o, labels, nres, JI_ALL);
		json_bool(&j, "pages", pages);
		json_end(&j);
		if ((rc = json_traces(&j, argv + optind, ntraces))) {
			out_abort(&out);
			return rc;
		}
		report_json_results(&j, res, nres, pages);
		json_finish(&j);
	} else {
		report_table(out.f, res, nres, pages);
	}
	if ((rc = out_close(&out)))
		return rc;
	return failed ? EXIT_INTERNAL : EXIT_OK;
}
