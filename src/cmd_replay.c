/*
 * cmd_replay.c - anonsim replay: traces through the host model, per strategy.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "output_file.h"
#include "replay.h"
#include "report.h"
#include "util.h"

static void replay_usage(FILE *f)
{
	const struct strategy *const *s;

	fputs("Usage: anonsim replay [OPTIONS] TRACE...\n"
	      "\n"
	      "Replay UML traces through the host model and report host memory by\n"
	      "category for each strategy.  Each TRACE is one instance; --instances\n"
	      "boots each of them N times.\n"
	      "\n"
	      "Options:\n"
	      "  -s, --strategy NAME   strategy to run, or \"all\" (default: all)\n"
	      "      --variant V       src/kernel code for devanon: posted, fixed or both\n"
	      "                        (default: both)\n"
	      "  -m, --host-mem SIZE   host memory, e.g. 512M (default: unlimited)\n"
	      "      --swap SIZE       swap device size (default: 1G)\n"
	      "      --policy P        reclaim: modern (cache first) or 2.4 (swap-eager)\n"
	      "                        (default: modern)\n"
	      "      --readahead KB    readahead window; 0 disables (default: the\n"
	      "                        window recorded in each trace, else 0)\n"
	      "      --overhead SIZE   fixed host memory per instance (default: 0)\n"
	      "  -n, --instances N     boot each trace N times (default: 1)\n"
	      "      --stagger SECS    start instances SECS apart (default: each one\n"
	      "                        after the previous trace ends)\n"
	      "      --no-share        instances do not share backing page cache\n"
	      "      --geometry G      block-table geometry: x86_64 or i386 (default: x86_64)\n"
	      "      --check           verify invariants while replaying; exit 3 on a\n"
	      "                        break no posted defect explains\n"
	      "      --csv | --json    machine-readable output instead of the table\n"
	      "      --pages           memory in 4 KiB pages instead of MiB\n"
	      "      --series FILE     write host memory by category over trace time (CSV)\n"
	      "      --series-step SECS  sampling step of --series (default: 0.1)\n"
	      "  -q, --quiet           no progress line\n"
	      "  -h, --help            this help\n"
	      "\n"
	      "Strategies:\n", f);
	for (s = strategies; *s; s++)
		fprintf(f, "  %-10s %s\n", (*s)->name, (*s)->summary);
	fputs("\nExit status: 0 ok, 1 usage error, 2 bad trace, 3 --check failure.\n", f);
}

enum { O_VARIANT = 256, O_SWAP, O_POLICY, O_RA, O_OVERHEAD, O_STAGGER, O_NOSHARE,
       O_GEOM, O_CHECK, O_CSV, O_JSON, O_PAGES, O_SERIES, O_STEP };

static const struct option replay_options[] = {
	{ "strategy", required_argument, NULL, 's' },
	{ "variant", required_argument, NULL, O_VARIANT },
	{ "host-mem", required_argument, NULL, 'm' },
	{ "swap", required_argument, NULL, O_SWAP },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "readahead", required_argument, NULL, O_RA },
	{ "overhead", required_argument, NULL, O_OVERHEAD },
	{ "instances", required_argument, NULL, 'n' },
	{ "stagger", required_argument, NULL, O_STAGGER },
	{ "no-share", no_argument, NULL, O_NOSHARE },
	{ "geometry", required_argument, NULL, O_GEOM },
	{ "check", no_argument, NULL, O_CHECK },
	{ "csv", no_argument, NULL, O_CSV },
	{ "json", no_argument, NULL, O_JSON },
	{ "pages", no_argument, NULL, O_PAGES },
	{ "series", required_argument, NULL, O_SERIES },
	{ "series-step", required_argument, NULL, O_STEP },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Seconds with up to six decimals, as microseconds; -1 if not a number. */
static int64_t parse_seconds(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 1e12)
		return -1;
	return (int64_t)(v * 1e6 + 0.5);
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	msg("replay: %s '%s': expected %s", opt, val, want);
	return EXIT_USAGE;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_opts o = {
		.swap = 1ULL << 30, .policy = RECLAIM_MODERN, .readahead_kb = -1,
		.copies = 1, .stagger_us = -1, .share = true, .series_step_us = 100000,
		.geom = &shmem_geom_x86_64,
	};
	const char *strategy = "all", *variant = "both", *series_path = NULL;
	enum { OUT_TABLE, OUT_CSV, OUT_JSON } out = OUT_TABLE;
	struct replay_result res[16];
	struct output_file series;
	const struct strategy *const *s;
	bool quiet = false, failed = false, pages = false;
	unsigned nres = 0;
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:m:n:qh", replay_options, NULL)) != -1) {
		switch (c) {
		case 's':
			strategy = optarg;
			if (strcmp(strategy, "all") && !strategy_find(strategy))
				return bad_value("--strategy", optarg, "a strategy named in --help, or all");
			break;
		case O_VARIANT:
			variant = optarg;
			if (strcmp(variant, "posted") && strcmp(variant, "fixed") && strcmp(variant, "both"))
				return bad_value("--variant", optarg, "posted, fixed or both");
			break;
		case 'm':
			if (parse_size(optarg, &o.host_mem) || (o.host_mem && o.host_mem < 4096))
				return bad_value("--host-mem", optarg, "a size such as 512M");
			break;
		case O_SWAP:
			if (parse_size(optarg, &o.swap))
				return bad_value("--swap", optarg, "a size such as 1G");
			break;
		case O_POLICY:
			if (!strcmp(optarg, "modern"))
				o.policy = RECLAIM_MODERN;
			else if (!strcmp(optarg, "2.4"))
				o.policy = RECLAIM_24;
			else
				return bad_value("--policy", optarg, "modern or 2.4");
			break;
		case O_RA:
			if (parse_uint(optarg, 1u << 30, &v))
				return bad_value("--readahead", optarg, "a window in KiB");
			o.readahead_kb = (int64_t)v;
			break;
		case O_OVERHEAD:
			if (parse_size(optarg, &o.overhead))
				return bad_value("--overhead", optarg, "a size such as 2M");
			break;
		case 'n':
			if (parse_uint(optarg, 4096, &v) || !v)
				return bad_value("--instances", optarg, "a number from 1 to 4096");
			o.copies = (unsigned)v;
			break;
		case O_STAGGER:
			if ((o.stagger_us = parse_seconds(optarg)) < 0)
				return bad_value("--stagger", optarg, "seconds, e.g. 2.5");
			break;
		case O_NOSHARE:
			o.share = false;
			break;
		case O_GEOM:
			if (!strcmp(optarg, "x86_64"))
				o.geom = &shmem_geom_x86_64;
			else if (!strcmp(optarg, "i386"))
				o.geom = &shmem_geom_i386;
			else
				return bad_value("--geometry", optarg, "x86_64 or i386");
			break;
		case O_CHECK:
			o.check = true;
			break;
		case O_CSV:
			out = OUT_CSV;
			break;
		case O_JSON:
			out = OUT_JSON;
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
				return bad_value("--series-step", optarg, "seconds > 0");
			o.series_step_us = (uint64_t)us;
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
	o.progress = !quiet && isatty(STDERR_FILENO);
	if (series_path) {
		if (output_open(&series, series_path))
			return EXIT_USAGE;
		o.series = series.f;
		fputs("strategy,time_s,tmpfs_mib,cache_mib,swap_table_mib,map_table_mib,"
		      "overhead_mib,total_mib,swap_used_mib\n", o.series);
	}

	for (s = strategies; *s; s++) {
		int k;

		if (strcmp(strategy, "all") && strcmp(strategy, (*s)->name))
			continue;
		for (k = 0; k < 2; k++) {
			enum anon_variant var = k ? ANON_POSTED : ANON_FIXED;
			char err[512];
			int rc;

			if (k && !(*s)->has_variants)
				break;
			if ((*s)->has_variants &&
			    ((var == ANON_POSTED && !strcmp(variant, "fixed")) ||
			     (var == ANON_FIXED && !strcmp(variant, "posted"))))
				continue;
			rc = replay_run(argv + optind, (unsigned)(argc - optind), *s, var,
					&o, &res[nres], err, sizeof(err));
			if (rc) {
				msg("%s", err);
				if (series_path)
					output_abort(&series);
				return rc;
			}
			failed |= replay_failed(&res[nres]);
			nres++;
		}
	}
	if (series_path && output_commit(&series))
		return EXIT_DATA;
	if (out == OUT_CSV)
		report_csv(stdout, res, nres, pages);
	else if (out == OUT_JSON)
		report_json(stdout, res, nres, pages);
	else
		report_table(stdout, res, nres, pages);
	return failed ? EXIT_INTERNAL : EXIT_OK;
}
