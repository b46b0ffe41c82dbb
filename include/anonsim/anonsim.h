/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * anonsim/anonsim.h - the anonsim host model as a C library (libanonsim).
 *
 * A program replays recorded User-Mode Linux traces through the model of
 * the host that "anonsim replay" and "anonsim density" run, and reads the
 * host memory each strategy costs:
 *
 *	anonsim_sim *sim = anonsim_new();
 *	if (!sim || anonsim_open_trace(sim, "boot.trace.gz") ||
 *	    anonsim_set_host_mem(sim, 512 << 20) ||
 *	    anonsim_replay(sim, "all"))
 *		fprintf(stderr, "%s\n", sim ? anonsim_error(sim) : "out of memory");
 *	for (i = 0; i < anonsim_result_count(sim); i++)
 *		anonsim_result(sim, i, ANONSIM_FINAL_TOTAL, &bytes);
 *	anonsim_free(sim);
 *
 * Build with "pkg-config --cflags --libs anonsim".  Every function that
 * can fail returns an enum anonsim_status (0: done) and leaves a message
 * for anonsim_error(); the library prints nothing and never ends the
 * process, with one exception: when the model's own state cannot be
 * allocated in the middle of a replay, the process ends with status 5
 * and a message on standard error, as the anonsim command does (no
 * partial result would be true).
 *
 * A handle is used by one thread at a time; separate handles are
 * independent.  The figures are those of the command with the same
 * settings: "anonsim replay --pages --csv" prints them in pages.
 */
#ifndef ANONSIM_ANONSIM_H
#define ANONSIM_ANONSIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a call returns; the numbers are the command's exit statuses. */
enum anonsim_status {
	ANONSIM_OK = 0,
	ANONSIM_EINVAL = 1,	/* a bad argument, or a call out of order */
	ANONSIM_EDATA = 2,	/* a trace that cannot be read or breaks the format */
	ANONSIM_ESYSTEM = 5,	/* out of memory outside a replay */
};

/* A simulation: its traces, its host, and the results of its last run. */
typedef struct anonsim_sim anonsim_sim;

/*
 * The figures of each run.  Memory is in bytes (a multiple of 4096):
 * FINAL_* when the last instance ended, PEAK_* the highest each reached.
 * The list grows at its end only.
 */
enum anonsim_figure {
	ANONSIM_FINAL_TMPFS,		/* resident tmpfs pages of UML memory */
	ANONSIM_FINAL_PAGE_CACHE,	/* host page cache of the disk images */
	ANONSIM_FINAL_SWAP_TABLES,	/* block-table pages of swap entries */
	ANONSIM_FINAL_MAP_TABLES,	/* block-table pages of /dev/anon map counts */
	ANONSIM_FINAL_OVERHEAD,		/* per-instance overhead */
	ANONSIM_FINAL_TOTAL,		/* their sum */
	ANONSIM_FINAL_SWAP_USED,	/* swap in use */
	ANONSIM_PEAK_TMPFS,
	ANONSIM_PEAK_PAGE_CACHE,
	ANONSIM_PEAK_SWAP_TABLES,
	ANONSIM_PEAK_MAP_TABLES,
	ANONSIM_PEAK_TOTAL,
	ANONSIM_PEAK_SWAP_USED,
	ANONSIM_SWAP_OUTS,		/* pages swapped out (a count) */
	ANONSIM_INSTANCES,		/* instances the run booted (a count) */
	ANONSIM_DENSITY,		/* anonsim_density only: instances that fit */
};

/* The library's version, "MAJOR.MINOR.PATCH" (the anonsim release). */
const char *anonsim_version(void);

/*
 * A new simulation with the command's defaults: no trace, unlimited
 * host memory, 1 GiB of swap, modern reclaim, each trace's recorded
 * readahead window, one instance of each trace, no overhead.  NULL when
 * out of memory.
 */
anonsim_sim *anonsim_new(void);

/* Free @sim and everything it holds; NULL is allowed. */
void anonsim_free(anonsim_sim *sim);

/*
 * The message of the last call on @sim that failed ("" if none failed),
 * naming the file and place for bad data ("FILE:LINE: ..."); valid until
 * the next call on @sim.
 */
const char *anonsim_error(const anonsim_sim *sim);

/*
 * Add the trace in file @path (text or binary, plain or gzip: see the
 * anonsim trace format), checking that it opens and its header is
 * valid; each trace added is one instance of every run (as each TRACE
 * of "anonsim replay").  EDATA for a file that cannot be read or a bad
 * header; EINVAL for "" or "-" (standard input is for the command).
 */
int anonsim_open_trace(anonsim_sim *sim, const char *path);

/* Host memory in bytes; 0 is unlimited, else at least 4096 (EINVAL). */
int anonsim_set_host_mem(anonsim_sim *sim, uint64_t bytes);

/* The swap device in bytes, at most 1 TiB (EINVAL); 0: none. */
int anonsim_set_swap(anonsim_sim *sim, uint64_t bytes);

/* The reclaim policy: "modern" (Linux 6.x) or "2.4" (EINVAL otherwise). */
int anonsim_set_policy(anonsim_sim *sim, const char *name);

/* Boot each trace @n times, from 1 to 4096 (EINVAL otherwise). */
int anonsim_set_instances(anonsim_sim *sim, unsigned n);

/*
 * Replay the traces under strategy @strategy ("read-copy", "devanon",
 * "punch", "free-hint", "odirect"; see anonsim_strategy_name), several
 * ("punch,read-copy", in that order) or every one ("all"), as "anonsim
 * replay --strategy" does: devanon runs twice, "devanon/fixed" and
 * "devanon/posted".  The results replace those of the last run.  EINVAL
 * for an unknown strategy, one named twice, or no trace; EDATA for a
 * trace that breaks the format, with its place.
 */
int anonsim_replay(anonsim_sim *sim, const char *strategy);

/*
 * How many instances of the traces fit on the host, per strategy, as
 * "anonsim density --max @max_n" finds it: the largest N booted one
 * after another without a single swap-out.  Needs host memory
 * (anonsim_set_host_mem; EINVAL without) and @max_n from 1 to 4096.
 * Each result holds ANONSIM_DENSITY, and the figures of a replay of that
 * many instances (one when none fits) on the host.
 */
int anonsim_density(anonsim_sim *sim, const char *strategy, unsigned max_n);

/* The name of strategy @i of the registry in report order, NULL past the last. */
const char *anonsim_strategy_name(unsigned i);

/* The runs of the last anonsim_replay or anonsim_density; 0 before any. */
unsigned anonsim_result_count(const anonsim_sim *sim);

/* Run @i's label ("read-copy", "devanon/fixed", ...); NULL past the last. */
const char *anonsim_result_label(const anonsim_sim *sim, unsigned i);

/*
 * Figure @figure of run @i into *@value.  EINVAL for a run or figure
 * that is not there (ANONSIM_DENSITY after anonsim_replay).
 */
int anonsim_result(anonsim_sim *sim, unsigned i, enum anonsim_figure figure,
		   uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif
