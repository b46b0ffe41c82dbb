/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * damon.h - the host's DAMON contexts paused while runs measure it.
 *
 * A DAMON context may page out memory it finds cold (a virtual machine's
 * proactive reclaim): page cache then leaves at times of its own, not by
 * the reclaim a run measures.  Runs may overlap (anonsim live beside the
 * recorder's scripts, which pause through anonsim-rec-host), so the pause
 * is shared: a registry file, locked for each change, lists the runs
 * under way (pid and start time, so that a dead one is told from a pid
 * used again) and the contexts switched off.  The first run in switches
 * off what is on; the last one out switches it all on again.  A run
 * killed outright (SIGKILL) is dropped as dead by the next run to come or
 * go, and what it paused is switched on when that run leaves.  A context
 * is listed only once switched off, and stays listed until one is out that
 * may switch it on (a run without root may do neither).
 */
#ifndef ANONSIM_DAMON_H
#define ANONSIM_DAMON_H

#include <sys/types.h>

enum damon_state {
	DAMON_NONE,		/* no context was on */
	DAMON_PAUSED,		/* every context that was on is off until the end */
	DAMON_RUNNING,		/* some context could not be switched off */
};

/* Where the contexts and the registry are (tests give a directory of their own). */
struct damon_paths {
	const char *states;	/* glob of the contexts' state files */
	const char *registry;	/* the registry file, created if missing */
};

/* The host's: /sys/kernel/mm/damon's, /run/lock/anonsim-damon (else in /tmp). */
const struct damon_paths *damon_host_paths(void);

/*
 * Register @user (a live process: this one, or the shell of a script) as a
 * run under way and switch off every context that is on; what came of it
 * (DAMON_PAUSED also where another run had paused them).  Signals are held
 * meanwhile.  DAMON_RUNNING too where the registry cannot be written.
 */
enum damon_state damon_pause(const struct damon_paths *p, pid_t user);

/*
 * @user's run is over: leave the registry, and if no live run is left,
 * switch on what the runs paused.  Async-signal-safe; does nothing for a
 * @user not registered.
 */
void damon_resume(const struct damon_paths *p, pid_t user);

/* damon_resume() of the host's paths for the last damon_pause() of this
 * process; async-signal-safe, for an exit or a signal handler. */
void damon_resume_last(void);

/* The state's name for reports: none, paused or running. */
const char *damon_state_name(enum damon_state s);

#endif
