/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live.h - execute traces on the running kernel and hold the model to it.
 *
 * src/live/ is the part of anonsim that runs traces for real (Linux only,
 * detected by configure): a process per instance (proc.h) whose physical
 * memory is a memfd and whose disks are real files (guest.h), the files it
 * makes and removes (scratch.h), the memory cgroup and swap file of a run
 * under pressure (cgroup.h), what the kernel is asked (measure.h), and this
 * driver, which replays the same traces through the model and has the
 * instances execute each event as the model applies it, comparing the two
 * before every phase and at the end.  It may use the strategy, model, trace
 * and util parts.
 */
#ifndef ANONSIM_LIVE_H
#define ANONSIM_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "live/guest.h"
#include "model/replay.h"

struct live_opts {
	const char *dir;		/* where the scratch directory is made */
	struct replay_opts model;	/* host memory, swap, policy, instances, stagger
					 * (readahead: the device's; share: always) */
	bool overhead_given;		/* else, under pressure, measured by a probe */
	double cache_tolerance;		/* percent: page cache, real against model */
	bool csv;			/* CSV rows instead of the table */
	bool header;			/* CSV: print the header row */
};

/*
 * Run trace @path live under @s (o->model.copies instances; in a memory
 * cgroup of o->model.host_mem with a swap file of o->model.swap when
 * host_mem is not 0) and print real beside model to @out.  Without a
 * memory limit, sets *@beyond when tmpfs pages differ or the page cache
 * differs by more than the tolerance at some point.  Returns 0, or an exit
 * status with a message in @err.
 */
int live_run(const char *path, const struct live_strategy *s,
	     const struct live_opts *o, FILE *out, bool *beyond,
	     char *err, size_t errlen);

#endif
