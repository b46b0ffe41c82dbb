/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_memory.c - libanonsim by example: replay one trace under every
 * strategy on a host of the size and reclaim policy given, print each
 * strategy's host memory in 4 KiB pages (the figures and column names of
 * "anonsim replay --csv --pages") and how many instances fit ("anonsim
 * density"), and say what went wrong otherwise.
 *
 *	cc -o host_memory host_memory.c $(pkg-config --cflags --libs anonsim)
 *	./host_memory boot.trace.gz 200 2.4
 */
#include <stdio.h>
#include <stdlib.h>

#include <anonsim/anonsim.h>

/* The figures printed, in pages, and their columns. */
static const enum anonsim_figure figures[] = {
	ANONSIM_FINAL_TMPFS, ANONSIM_FINAL_PAGE_CACHE, ANONSIM_FINAL_TOTAL,
	ANONSIM_PEAK_TOTAL, ANONSIM_SWAP_OUTS,
};
#define NFIGURES (sizeof(figures) / sizeof(figures[0]))

/* Each run's row of figures; 0, or the status of the call that failed. */
static int print_replay(anonsim_sim *sim)
{
	unsigned i, k;
	uint64_t v;
	int rc;

	puts("strategy,final_tmpfs_pages,final_cache_pages,final_total_pages,"
	     "peak_total_pages,swap_out_pages");
	for (i = 0; i < anonsim_result_count(sim); i++) {
		printf("%s", anonsim_result_label(sim, i));
		for (k = 0; k < NFIGURES; k++) {
			if ((rc = anonsim_result(sim, i, figures[k], &v)))
				return rc;
			/* memory in bytes, swap-outs a count of pages */
			printf(",%llu", (unsigned long long)(figures[k] == ANONSIM_SWAP_OUTS ?
							     v : v / 4096));
		}
		putchar('\n');
	}
	return 0;
}

/* Each strategy's density; 0, or the status of the call that failed. */
static int print_density(anonsim_sim *sim)
{
	unsigned i;
	uint64_t n;
	int rc;

	if ((rc = anonsim_density(sim, "all", 32)))
		return rc;
	for (i = 0; i < anonsim_result_count(sim); i++) {
		if ((rc = anonsim_result(sim, i, ANONSIM_DENSITY, &n)))
			return rc;
		printf("density %s %llu\n", anonsim_result_label(sim, i), (unsigned long long)n);
	}
	return 0;
}

int main(int argc, char **argv)
{
	anonsim_sim *sim;
	char *end;
	unsigned long long mib;
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: %s TRACE HOST_MEM_MIB POLICY\n", argv[0]);
		return 1;
	}
	mib = strtoull(argv[2], &end, 10);
	if (*end || end == argv[2]) {
		fprintf(stderr, "%s: '%s': expected MiB of host memory\n", argv[0], argv[2]);
		return 1;
	}
	sim = anonsim_new();
	if (!sim) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return 5;
	}
	printf("libanonsim %s\n", anonsim_version());
	if ((rc = anonsim_open_trace(sim, argv[1])) ||
	    (rc = anonsim_set_host_mem(sim, mib << 20)) ||
	    (rc = anonsim_set_policy(sim, argv[3])) ||
	    (rc = anonsim_replay(sim, "all")) ||
	    (rc = print_replay(sim)) ||
	    (rc = print_density(sim)))
		fprintf(stderr, "%s: %s\n", argv[0], anonsim_error(sim));
	anonsim_free(sim);
	return rc;
}
