/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jobs.h - the one pool of worker threads: a density sweep's replays and a
 * parameter sweep's combinations run on it.
 *
 * Each thread asks next() for a task under the pool's lock, runs it with
 * run() outside the lock, and reports it with done() under the lock again;
 * it stops when next() has none left.  A caller keeps its results in slots
 * of its own, one per task, that run() alone writes: the order in which
 * threads finish never shows in them.
 */
#ifndef ANONSIM_JOBS_H
#define ANONSIM_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct job_ops {
	/* Under the lock: the next task into *@task, or false when none is left. */
	bool (*next)(void *ctx, uint64_t *task);
	/* Outside the lock: do @task; returns 0, or an exit status with a message. */
	int (*run)(void *ctx, uint64_t task, char *err, size_t errlen);
	/* Under the lock: @task ended with @rc (and @err when @rc is not 0). */
	void (*done)(void *ctx, uint64_t task, int rc, const char *err);
};

/*
 * Run tasks on @threads threads, the calling thread one of them (fewer when
 * a thread cannot be started: the calling thread alone still runs them all).
 */
void jobs_run(unsigned threads, const struct job_ops *ops, void *ctx);

#endif
