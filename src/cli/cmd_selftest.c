/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_selftest.c - "anonsim selftest": the kernel reference core checked
 * against flat models on this machine, one line per check.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "model/core_check.h"
#include "util/util.h"

/* Short enough to finish in a blink; the Check suite runs 100,000. */
#define SELFTEST_OPS 20000
#define SELFTEST_SEED 2004

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: anonsim selftest [OPTIONS]\n"
		"\n"
		"Check the block-table and map-count reference code for every\n"
		"geometry: table boundaries, a randomized run against a flat array,\n"
		"and /dev/anon mmap/munmap/reclaim in both variants.  Prints\n"
		"\"ok CHECK\" per check; a check that fails is a bug (3).\n"
		"\n"
		"Options:\n"
		QUIET_NOTHING_HELP
		"  -h, --help            this help\n"
		"\n"
		EXIT_STATUS_HELP);
}

static int report(const char *name, const char *what, int ret, const char *err)
{
	if (ret)
		printf("FAIL %s %s: %s\n", name, what, err);
	else
		printf("ok %s %s\n", name, what);
	return ret ? 1 : 0;
}

int cmd_selftest(int argc, char **argv)
{
	static const struct shmem_geom *const geoms[] = {
		&shmem_geom_i386, &shmem_geom_x86_64,
	};
	static const struct {
		enum anon_variant v;
		const char *name;
	} variants[] = {
		{ ANON_POSTED, "posted" }, { ANON_FIXED, "fixed" },
	};
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char err[256] = "", what[64];
	unsigned int failed = 0;
	size_t g, v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		if (c == 'q')
			continue;
		if (c != 'h')
			return usage_error(c, argv, "selftest");
		usage(stdout);
		return EXIT_OK;
	}
	if (optind < argc) {
		msg("unexpected argument '%s' (see anonsim selftest --help)", argv[optind]);
		return EXIT_USAGE;
	}
	for (g = 0; g < sizeof(geoms) / sizeof(geoms[0]); g++) {
		const struct shmem_geom *geom = geoms[g];

		failed += report(geom->name, "boundaries",
				 core_check_boundaries(geom, err, sizeof(err)), err);
		failed += report(geom->name, "differential",
				 core_check_differential(geom, SELFTEST_SEED,
							 SELFTEST_OPS, NULL, err,
							 sizeof(err)), err);
		for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
			snprintf(what, sizeof(what), "anon %s", variants[v].name);
			failed += report(geom->name, what,
					 core_check_anon(geom, variants[v].v, err,
							 sizeof(err)), err);
		}
	}
	fflush(stdout);
	if (failed) {
		msg("%u check%s failed", failed, failed == 1 ? "" : "s");
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}
