/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * damon.h - the host's DAMON contexts paused for a run under pressure.
 *
 * A DAMON context may page out memory it finds cold (a virtual machine's
 * proactive reclaim): page cache then leaves at times of its own, not by
 * the reclaim the run measures.  The recorder pauses it for the same reason
 * (src/record/hostlib.sh).
 */
#ifndef ANONSIM_LIVE_DAMON_H
#define ANONSIM_LIVE_DAMON_H

enum damon_state {
	DAMON_NONE,		/* no context was on */
	DAMON_PAUSED,		/* every context that was on is off until the end */
	DAMON_RUNNING,		/* some context could not be switched off */
};

/* Switch off every DAMON context that is on; what came of it. */
enum damon_state damon_pause(void);

/* Switch back on what damon_pause() switched off.  Async-signal-safe. */
void damon_resume(void);

/* The state's name for reports: none, paused or running. */
const char *damon_state_name(enum damon_state s);

#endif
