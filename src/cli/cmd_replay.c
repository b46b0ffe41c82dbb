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
#include "cli/host_options.h"
#include "cli/output_file.h"
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
	      "\n"
	      "Options:\n", f);
	host_options_usage(f, "  -n, --instances N     boot each trace N times (default: 1)\n");
	fputs("      --csv | --json    machine-readable output instead of the table\n"
	      "      --pages           memory in 4 KiB pages instead of MiB\n"
	      "      --series FILE     write host memory by category over trace time (CSV)\n"
	      "      --series-step SECS  sampling step of --series (default: 0.1)\n"
	      "  -q, --quiet           no progress line\n"
	      "  -h, --help            this help\n"
	      "\n", f);
	host_options_strategies(f);
	fputs("\n" EXIT_STATUS_HELP, f);
}

enum { O_CSV = HOST_O_END, O_JSON, O_PAGES, O_SERIES, O_STEP };

static const struct option replay_options[] = {
	HOST_LONG_OPTIONS,
	{ "instances", required_argument, NULL, 'n' },
	{ "csv", no_argument, NULL, O_CSV },
	{ "json", no_argument, NULL, O_JSON },
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
	enum { OUT_TABLE, OUT_CSV, OUT_JSON } out = OUT_TABLE;
	struct replay_result res[HOST_CLI_MAX_RUNS];
	struct strategy_run runs[HOST_CLI_MAX_RUNS];
	struct output_file series;
	bool quiet = false, failed = false, pages = false;
	unsigned nres = 0, nruns, r;
	uint64_t v;
	int c, rc;

	host_cli_init(&hc);
	optind = 1;
	while ((c = getopt_long(argc, argv, HOST_SHORT_OPTIONS "n:qh",
				replay_options, NULL)) != -1) {
		if ((rc = host_cli_option(&hc, c, optarg, "replay")) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'n':
			if (parse_uint(optarg, 4096, &v) || !v)
				return bad_option_value("replay", "--instances", optarg,
							"a number from 1 to 4096");
			o->copies = (unsigned)v;
			break;
		case O_CSV:
		case O_JSON:
			if (out != OUT_TABLE && out != (c == O_CSV ? OUT_CSV : OUT_JSON)) {
				msg("replay: --csv and --json exclude each other");
				return EXIT_USAGE;
			}
			out = c == O_CSV ? OUT_CSV : OUT_JSON;
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
				return bad_option_value("replay", "--series-step", optarg,
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
			msg("replay: see anonsim replay --help");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		msg("replay: no trace given (see anonsim replay --help)");
		return EXIT_USAGE;
	}
	o->progress = !quiet && isatty(STDERR_FILENO);
	if (series_path) {
		if (output_not_input(series_path, argv + optind, (unsigned)(argc - optind)))
			return EXIT_USAGE;
		if (output_open(&series, series_path))
			return EXIT_OUTPUT;
		o->series = series.f;
		fputs("strategy,time_s,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,"
		      "overhead_mib,total_mib,swap_used_mib\n", o->series);
	}

	nruns = host_cli_runs(&hc, runs, HOST_CLI_MAX_RUNS);
	for (r = 0; r < nruns; r++) {
		char err[512];

		rc = replay_run(argv + optind, (unsigned)(argc - optind), runs[r].s,
				runs[r].v, o, &res[nres], err, sizeof(err));
		if (rc) {
			msg("%s", err);
			if (series_path)
				output_abort(&series);
			return rc;
		}
		if (replay_failed(&res[nres]))
			msg("%s: simulator failure: %s; at %s", res[nres].label,
			    res[nres].find.first_other, res[nres].fail_at);
		failed |= replay_failed(&res[nres]);
		nres++;
	}
	if (series_path && output_commit(&series))
		return EXIT_OUTPUT;
	if (out == OUT_CSV)
		report_csv(stdout, res, nres, pages);
	else if (out == OUT_JSON)
		report_json(stdout, res, nres, pages);
	else
		report_table(stdout, res, nres, pages);
	return failed ? EXIT_INTERNAL : EXIT_OK;
}
