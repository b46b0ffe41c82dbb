/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.h - replay traces through the host model under one strategy.
 *
 * src/model/ is the part of anonsim that models the host and its guests:
 * host memory, swap and reclaim (host.h), each disk image's page cache and
 * readahead (pagecache.h), UML instances (instance.h), the userspace side
 * of the kernel API that src/kernel runs on (kapi_user.h), the self-checks
 * of that code (core_check.h), and, on top, replay and the density sweep
 * (density.h).  It may use src/trace, src/util and src/kernel, and calls a
 * strategy only through its interface (strategy/strategy.h).
 *
 * Inside, the layers run one way: replay -> instance -> host -> kernel.
 * The host reclaims an instance's tmpfs pages through the operations the
 * instance registers (struct tmpfs_owner_ops in host.h), never by knowing
 * the instance.  The host and its page caches call each other, as
 * mm/vmscan.c and mm/filemap.c do: the page cache charges the host, the
 * host evicts from the page cache; they are one subsystem in two files.
 */
#ifndef ANONSIM_REPLAY_H
#define ANONSIM_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/host.h"
#include "model/instance.h"
#include "model/strategy.h"

struct replay_result;

/*
 * The largest swap device the model holds: its map of slots is a bit a
 * page, 32 MiB for 1 TiB.
 */
#define REPLAY_SWAP_MAX (1ULL << 40)
/* The smallest host memory one can ask for (0 is unlimited): a page. */
#define REPLAY_HOST_MEM_MIN 4096
/* The most instances of each trace a replay boots. */
#define REPLAY_COPIES_MAX 4096

struct replay_opts {
	uint64_t host_mem;		/* bytes; 0: unlimited */
	uint64_t swap;			/* bytes of swap device */
	enum reclaim_policy policy;
	int64_t readahead_kb;		/* -1: each trace's recorded window */
	uint64_t overhead;		/* bytes per instance */
	uint64_t overhead_anon;		/* and anonymous bytes, which the host can swap */
	unsigned copies;		/* instances of each trace */
	int64_t stagger_us;		/* start offset between instances; -1: one after another */
	bool share;			/* instances share backing page cache */
	/* the traces' host events (UML's host processes) left out, as
	 * anonsim live, which runs no UML, leaves them */
	bool no_host_events;
	bool report;			/* the guests report free blocks (page_report.h) */
	unsigned report_order;		/* of 2^report_order pages */
	bool check;			/* verify invariants as events apply */
	uint64_t recount_every;		/* --check: events between full recounts; 0: 1024 */
	const struct shmem_geom *geom;
	FILE *series;			/* memory over time as CSV, or NULL */
	uint64_t series_step_us;
	FILE *reclaim_log;		/* each modern reclaim as CSV (host.h), or NULL */
	bool progress;			/* a progress line on stderr */
	uint64_t progress_events;	/* events the replay will apply, for the
					 * line's estimate; 0: not known */
	/*
	 * Called before each event of instance @k is applied, the host as it
	 * stands then; a nonzero return stops the replay with that status and
	 * the message the observer wrote into @err.  NULL: none.
	 */
	int (*observe)(void *arg, unsigned k, const struct trace_event *ev,
		       const struct host *h, char *err, size_t errlen);
	void *observe_arg;
	/*
	 * Sequential mode (stagger_us < 0) only, or NULL: called as each
	 * instance's trace ends, with what a replay of that many copies
	 * reports (the findings of its teardown aside); false ends the
	 * replay there.
	 */
	bool (*prefix)(void *arg, const struct replay_result *res);
	void *prefix_arg;
};

struct replay_result {
	const struct strategy *strat;
	enum anon_variant variant;
	char label[32];			/* "devanon/posted", "punch", ... */
	uint64_t final[CAT_NR], peak[CAT_NR];
	uint64_t final_total, peak_total;
	uint64_t swap_final, swap_peak, swap_outs, swap_ins;
	int64_t first_swap_out_us;
	uint64_t oom_pages;
	struct read_stats reads;
	struct host_calls calls;
	struct findings find;		/* summed over instances */
	char fail_at[400];		/* where find.other first rose: "FILE: event I (TEXT)" */
	unsigned long defects[ANON_NR_DEFECTS];
	uint64_t events, end_us;
	unsigned instances;
	unsigned readers;		/* trace readers opened, one per trace and
					 * each stretch of time instances of it ran */
};

/*
 * The defaults the commands document: unlimited memory, 1 GiB of swap,
 * modern reclaim, each trace's readahead window, one instance of each
 * trace one after another, shared page cache, x86_64 block tables, a
 * series step of 0.1 s, no checks, no outputs.
 */
void replay_opts_init(struct replay_opts *o);

/* Failures of the simulator itself found by --check (not RFC defects). */
static inline bool replay_failed(const struct replay_result *r)
{
	return r->find.other != 0;
}

/*
 * Replay @paths (each @o->copies times).  Returns 0, or EXIT_DATA /
 * EXIT_USAGE with a message in @err.
 */
int replay_run(char *const *paths, unsigned npaths, const struct strategy *s,
	       enum anon_variant variant, const struct replay_opts *o,
	       struct replay_result *res, char *err, size_t errlen);

#endif
