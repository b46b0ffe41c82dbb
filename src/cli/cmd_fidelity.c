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
	      "page-cache pages with the footprint the recorder measured, each at the\n"
	      "time of its footprint event.  A trace is held to what it can be: the\n"
	      "page cache when it has a 'footprint cache:DEV' event; tmpfs when it\n"
	      "also has a 'footprint tmpfs' event and touch events (a trace without\n"
	      "touches, such as one imported from strace, cannot predict tmpfs).\n"
	      "\n"
	      "Options:\n"
	      "      --tmpfs-tolerance PCT   allowed tmpfs difference (default: 2)\n"
	      "      --cache-tolerance PCT   allowed page-cache difference (default: 5)\n"
	      "      --cache-only            hold every trace to its page cache alone\n"
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

/* One figure's three columns, or dashes when not held; false when beyond @tol. */
static bool print_figure(bool held, int64_t measured, uint64_t model, double tol)
{
	double d;

	if (!held) {
		printf(" %9s %9s %7s", "-", "-", "-");
		return true;
	}
	d = diff_pct((double)model, (double)measured);
	printf(" %9lld %9llu %+6.1f%%", (long long)measured, (unsigned long long)model, d);
	return fabs(d) <= tol;
}

int cmd_fidelity(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tmpfs-tolerance", required_argument, NULL, 't' },
		{ "cache-tolerance", required_argument, NULL, 'c' },
		{ "cache-only", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct replay_opts o = { .swap = 0, .policy = RECLAIM_MODERN, .readahead_kb = -1,
		.copies = 1, .stagger_us = -1, .share = true, .check = true,
		.geom = &shmem_geom_x86_64 };
	double tol_tmpfs = 2.0, tol_cache = 5.0;
	bool missed = false, cache_only = false;
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
		case 'C':
			cache_only = true;
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
		struct footprint fp = { .tmpfs = -1, .cache = -1 };
		struct replay_result r;
		char err[1024];
		char *paths[1] = { argv[i] };
		bool tmpfs_held, ok = true;
		int rc;

		o.observe = at_footprint;
		o.observe_arg = &fp;
		rc = replay_run(paths, 1, strategy_find("read-copy"), ANON_FIXED, &o, &r,
				err, sizeof(err));
		if (rc) {
			msg("%s", err);
			return rc;
		}
		tmpfs_held = !cache_only && fp.tmpfs >= 0 && fp.touches;
		if (fp.cache < 0 && !tmpfs_held) {
			msg("%s: no footprint it can be held to (needs a 'footprint cache:DEV' event, or 'footprint tmpfs' and touch events)",
			    argv[i]);
			return EXIT_DATA;
		}
		printf("%-36s", argv[i]);
		ok &= print_figure(tmpfs_held, fp.tmpfs, fp.model_tmpfs, tol_tmpfs);
		ok &= print_figure(fp.cache >= 0, fp.cache, fp.model_cache, tol_cache);
		puts(ok ? "" : "  beyond tolerance");
		if (!tmpfs_held)
			printf("  (tmpfs not held: %s)\n", cache_only ? "--cache-only" :
			       fp.tmpfs < 0 ? "no 'footprint tmpfs' event" : "the trace has no touch events");
		else if (fp.cache < 0)
			printf("  (page cache not held: no 'footprint cache:DEV' event)\n");
		missed |= !ok;
	}
	return missed ? EXIT_TARGET : EXIT_OK;
}
