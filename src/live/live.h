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

#include "live/guest.h"
#include "model/replay.h"

struct live_opts {
	const char *dir;		/* where the scratch directory is made */
	struct replay_opts model;	/* host memory, swap, policy, instances, stagger
					 * (readahead: the device's; share: always) */
	bool overhead_given;		/* else, under pressure, measured by a probe */
	bool probe_only;		/* under pressure: the probe, and no run */
	bool fast;			/* under pressure: events as fast as they go, not
					 * at their host time */
	double cache_tolerance;		/* percent: page cache, real against model */
	bool read_zeros;		/* pages a read fills keep the sparse images'
					 * zeros (guest.c, mark_data()) */
};

/* One comparison, real beside model: before a phase event, or at the end. */
struct live_point {
	char name[TRACE_NAME_MAX + 16];	/* the phase ("K:PHASE" for instance K of
					 * several), or "end" */
	uint64_t time_us;		/* trace time */
	int64_t tmpfs, blocks, cache;	/* pages: resident and allocated in the
					 * memory files, cached of the disk files */
	int64_t swap, swap_outs;	/* pages: swap used, swap-outs */
	int64_t cgroup;			/* pages charged to the cgroup; -1: none */
	uint64_t m_tmpfs, m_cache, m_swap, m_swap_outs;	/* the model's */
	int64_t first_us, m_first_us;	/* first swap-out so far; -1: none */
	bool apart;			/* no memory limit, and beyond tolerance */
};

/* One live run, for the command to report. */
struct live_result {
	const char *path;		/* the trace */
	const struct live_strategy *s;
	unsigned instances;
	char fstype[32];		/* the scratch directory's filesystem */
	int64_t readahead_kb;		/* of its device: the model's window */
	bool pressure;			/* in a memory cgroup */
	bool paced;			/* events waited for their host time */
	int64_t late_us;		/* paced: the most an event came after its time */
	const char *damon;		/* under pressure, the host's DAMON contexts:
					 * none, paused or running (live/damon.h) */
	uint64_t host_mem, swap;	/* bytes: the cgroup's limit, the swap file (0: none) */
	uint64_t overhead;		/* bytes the model charged per instance */
	uint64_t overhead_anon;		/* and anonymous bytes, which it can swap */
	struct live_point *pt;		/* in the order measured, the end last */
	unsigned npt;
	int64_t first_us, m_first_us;	/* the run's first swap-out; -1: none */
	bool beyond;			/* some point apart */
};

/*
 * Run trace @path live under @s (o->model.copies instances; in a memory
 * cgroup of o->model.host_mem with a swap file of o->model.swap when
 * host_mem is not 0) and fill @res with real beside model at each point.
 * Without a memory limit, a point is apart when tmpfs pages differ or the
 * page cache differs by more than the tolerance.  Returns 0, or an exit
 * status with a message in @err; either way free @res with
 * live_result_free().
 */
int live_run(const char *path, const struct live_strategy *s,
	     const struct live_opts *o, struct live_result *res,
	     char *err, size_t errlen);

void live_result_free(struct live_result *res);

#endif
