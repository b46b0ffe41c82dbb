/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cleanup.h - files that exist only while a command runs (temporary
 * outputs, scratch traces): removed when a signal would end the process
 * (SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
 * SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF: those not ignored when it started),
 * after which it exits with 128 + the signal's number.
 */
#ifndef ANONSIM_CLEANUP_H
#define ANONSIM_CLEANUP_H

/* Remove @path if a signal ends the process: 0, or -1 (out of memory). */
int cleanup_add(const char *path);
/* @path is renamed or removed: a signal no longer touches it. */
void cleanup_forget(const char *path);
/*
 * Create "@path.tmpXXXXXX", the temporary an output is written to before
 * it is renamed over @path, registered with cleanup_add(); it gets the
 * mode, owner and group of the regular file @path replaces (the owner as
 * far as this process may give it), else the mode a plain create gives.
 * Returns its descriptor and its name in *@tmp (malloc'd), or -1 with
 * errno set and nothing left.
 */
int cleanup_temp_beside(const char *path, char **tmp);
/*
 * Remove every file registered now, then call the function given to
 * cleanup_also(): the command ends without a signal (die_oom).
 */
void cleanup_now(void);
/*
 * @fn (NULL: none) undoes what a command made besides files (processes,
 * a swap file, a cgroup: src/live); async-signal-safe, as cleanup_now().
 */
void cleanup_also(void (*fn)(void));
/* In a child just forked: what the parent registered is not ours to undo. */
void cleanup_disown(void);

#endif
