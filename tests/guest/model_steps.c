/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_steps.c - what the model's devanon (fixed) holds at each
 * phase of a one-instance trace, page by page, in the line format the
 * /dev/anon guest test prints for the real driver (tests/guest/report.h):
 *
 *   step NAME resident RANGES counts RUNS tables N
 *
 * Usage: model_steps TRACE.  The replay is `anonsim replay
 * --strategy devanon --variant fixed --check`; each line shows the state
 * before the phase event, after everything before it.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "model/instance.h"
#include "model/replay.h"
#include "strategy/registry.h"
#include "util/util.h"

#include "guest/report.h"

static int at_phase(void *arg, unsigned k, const struct trace_event *ev,
		    const struct host *h, char *err, size_t errlen)
{
	struct instance *in = h->owners[k].priv;
	static uint8_t resident[STEP_MAX_PAGES];
	static uint32_t counts[STEP_MAX_PAGES];
	uint64_t p;

	(void)arg;
	if (ev->kind != EV_PHASE)
		return 0;
	if (k || in->npages > STEP_MAX_PAGES)
		return set_error(err, errlen, "one instance of at most %u pages",
				 STEP_MAX_PAGES);
	for (p = 0; p < in->npages; p++) {
		resident[p] = inst_page_get(in, p).tmpfs == TMPFS_RESIDENT;
		counts[p] = (uint32_t)anon_map_count(&in->ai, p);
	}
	step_report(stdout, ev->name, resident, counts, (unsigned)in->npages,
		    in->ai.maps.nr_pages);
	return 0;
}

int main(int argc, char **argv)
{
	struct replay_opts o = {
		.swap = 1ULL << 30, .policy = RECLAIM_MODERN, .readahead_kb = 0,
		.copies = 1, .stagger_us = -1, .share = true, .check = true,
		.geom = &shmem_geom_x86_64, .observe = at_phase,
	};
	struct replay_result r;
	char err[512];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: model_steps TRACE\n");
		return EXIT_USAGE;
	}
	rc = replay_run(argv + 1, 1, strategy_find("devanon"), ANON_FIXED, &o, &r,
			err, sizeof(err));
	if (rc) {
		fprintf(stderr, "model_steps: %s\n", err);
		return rc;
	}
	if (replay_failed(&r)) {
		fprintf(stderr, "model_steps: %s\n", r.find.first_other);
		return EXIT_INTERNAL;
	}
	return 0;
}
