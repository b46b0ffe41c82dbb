/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * density.h - how many instances of a trace fit on a host: replay 1, 2, ...
 * copies under each strategy and find the largest number that runs without
 * a single swap-out.
 */
#ifndef ANONSIM_DENSITY_H
#define ANONSIM_DENSITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/replay.h"

/* One number of instances. */
struct density_point {
	unsigned n;			/* instances (copies of each trace) */
	struct replay_result demand;	/* unlimited host memory: what N demand */
	struct replay_result limited;	/* under the host memory given */
};

/* N instances ran without swapping out or running out of memory. */
static inline bool density_fits(const struct density_point *p)
{
	return p->limited.swap_outs == 0 && p->limited.oom_pages == 0;
}

/*
 * Replay @paths with copies = 1 .. @max_n under strategy @s, variant @v and
 * the other options of @base (its copies, series and progress are ignored):
 * once with base->host_mem (the "limited" run; when it is 0 the two runs are
 * the same) and once with unlimited memory (the "demand" run).  The sweep
 * stops after the first two consecutive N that do not fit.  @jobs > 1 runs
 * points on that many threads; the points filled do not depend on @jobs.
 * base->progress: a progress line on stderr.
 *
 * Fills out[0 .. filled-1] with N = 1 .. filled (the rest of out as it
 * was, or partly written) and sets *filled and *density (the largest N
 * that fits; 0 if none).  Returns 0, or the first
 * failing replay's exit status (EXIT_DATA, EXIT_USAGE) with its message in
 * @err; out of memory, die_oom() (util/xalloc.h).  With threads that cannot be
 * started the sweep runs on the calling thread.
 */
int density_sweep(char *const *paths, unsigned npaths, const struct strategy *s,
		  enum anon_variant v, const struct replay_opts *base,
		  unsigned max_n, unsigned jobs, struct density_point *out,
		  unsigned *filled, unsigned *density, char *err, size_t errlen);

/*
 * As density_sweep, for --stagger and --check, where N copies are no
 * prefix of more: the density from O(log N) replays, not one per N.  It
 * replays N = 1, 2, 4, ... while they fit, bisects between the last that
 * fits and the first that does not, then goes on N by N under the sweep's
 * end rule (so the two N past the boundary are replayed too).  Each point
 * replayed is a limited and a demand replay of N copies (side by side when
 * @jobs > 1), equal to density_sweep's point of that N.
 *
 * The density equals density_sweep's when whether N fits is monotone in N
 * (no N fits once a smaller one swaps), which holds while each instance
 * added only adds demand and reclaim takes pages in the same order; where
 * it does not, an N that fits right past a failing one is still found (as
 * the full sweep finds it), but one that fits past two failing N the
 * search skipped over is not, and N skipped below the boundary are taken
 * to fit.
 *
 * Fills out[0 .. filled-1] with the points replayed, in order of N, and
 * order[0 .. filled-1] (room for @max_n) with their N in the order they
 * were replayed.  With no host memory limit every N fits: it is
 * density_sweep.  Returns as density_sweep.
 */
int density_bisect(char *const *paths, unsigned npaths, const struct strategy *s,
		   enum anon_variant v, const struct replay_opts *base,
		   unsigned max_n, unsigned jobs, struct density_point *out,
		   unsigned *filled, unsigned *density, unsigned *order,
		   char *err, size_t errlen);

#endif
