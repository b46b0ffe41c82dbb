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

#include "cli/commands.h"
#include "model/replay.h"
#include "strategy/registry.h"
#include "util/util.h"

static void fidelity_usage(FILE *f)
{
	fputs("Usage: anonsim fidelity [OPTIONS] TRACE...\n"
	      "\n"
	      "Replay each recorded TRACE under read-copy (what UML really did) with\n"
	      "its recorded readahead window and compare the predicted host tmpfs and\n"
	      "page-cache pages with the footprint the recorder measured at the end.\n"
	      "\n"
	      "Options:\n"
	      "      --tmpfs-tolerance PCT   allowed tmpfs difference (default: 2)\n"
	      "      --cache-tolerance PCT   allowed page-cache difference (default: 5)\n"
	      "  -h, --help                  this help\n"
	      "\n"
	      "No footprint recorded is bad data (2); a difference beyond its\n"
	      "tolerance is a missed target (4).\n"
	      EXIT_STATUS_HELP, f);
}

static double diff_pct(double pred, double meas)
{
	return meas ? 100.0 * (pred - meas) / meas : (pred ? INFINITY : 0);
}

int cmd_fidelity(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tmpfs-tolerance", required_argument, NULL, 't' },
		{ "cache-tolerance", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct replay_opts o = { .swap = 0, .policy = RECLAIM_MODERN, .readahead_kb = -1,
		.copies = 1, .stagger_us = -1, .share = true, .check = true,
		.geom = &shmem_geom_x86_64 };
	double tol_tmpfs = 2.0, tol_cache = 5.0;
	bool missed = false;
	int opt, i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;
		double v;

		switch (opt) {
		case 't':
		case 'c':
			v = strtod(optarg, &end);
			if (end == optarg || *end || !(v >= 0 && v <= 1e6)) {	/* not NaN */
				msg("fidelity: --%s '%s': expected a percentage",
				    opt == 't' ? "tmpfs-tolerance" : "cache-tolerance", optarg);
				return EXIT_USAGE;
			}
			*(opt == 't' ? &tol_tmpfs : &tol_cache) = v;
			break;
		case 'h':
			fidelity_usage(stdout);
			return EXIT_OK;
		default:
			msg("fidelity: see anonsim fidelity --help");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		msg("fidelity: no trace given (see anonsim fidelity --help)");
		return EXIT_USAGE;
	}
	printf("%-36s %9s %9s %7s %9s %9s %7s\n", "trace", "tmpfs", "model", "diff",
	       "cache", "model", "diff");
	for (i = optind; i < argc; i++) {
		struct replay_result r;
		char err[1024];
		char *paths[1] = { argv[i] };
		double dt, dc;
		int rc = replay_run(paths, 1, strategy_find("read-copy"), ANON_FIXED, &o, &r,
				    err, sizeof(err));

		if (rc) {
			msg("%s", err);
			return rc;
		}
		if (r.measured_tmpfs < 0 || r.measured_cache < 0) {
			msg("%s: no footprint recorded (needs 'footprint tmpfs' and 'footprint cache:DEV' events)",
			    argv[i]);
			return EXIT_DATA;
		}
		dt = diff_pct((double)r.final[CAT_TMPFS], (double)r.measured_tmpfs);
		dc = diff_pct((double)r.final[CAT_CACHE], (double)r.measured_cache);
		printf("%-36s %9lld %9llu %+6.1f%% %9lld %9llu %+6.1f%%%s\n", argv[i],
		       (long long)r.measured_tmpfs, (unsigned long long)r.final[CAT_TMPFS], dt,
		       (long long)r.measured_cache, (unsigned long long)r.final[CAT_CACHE], dc,
		       fabs(dt) <= tol_tmpfs && fabs(dc) <= tol_cache ? "" : "  beyond tolerance");
		missed |= !(fabs(dt) <= tol_tmpfs && fabs(dc) <= tol_cache);
	}
	return missed ? EXIT_TARGET : EXIT_OK;
}
