/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scratch.h - the files a live run makes (disk images, copy-on-write layers)
 * in a scratch directory of their own, removed at the end, on failure, when
 * memory runs out (util/xalloc.h: exit 5), and on SIGINT, SIGTERM, SIGHUP
 * or SIGPIPE (then the process exits 128 + signal), with the instance
 * processes, the swap file and the memory cgroup of a run under pressure.
 */
#ifndef ANONSIM_LIVE_SCRATCH_H
#define ANONSIM_LIVE_SCRATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SCRATCH_MAX_FILES 256

/*
 * Make a scratch directory under @parent (which must not be a tmpfs: a file
 * there has no page cache of its own).  Writes the filesystem's name into
 * @fstype.  Returns 0, or -1 with a message in @err.
 */
int scratch_open(const char *parent, char *fstype, size_t fslen,
		 char *err, size_t errlen);

/*
 * A new sparse file of @size bytes in the scratch directory: its fd (read
 * and write), or -1.  Its path goes to @path.
 */
int scratch_file(uint64_t size, char *path, size_t pathlen, char *err, size_t errlen);

/* A process the signal handlers kill and reap before they clean up. */
void scratch_watch_child(pid_t pid);
/* The processes watched are gone (reaped by the caller). */
void scratch_forget_children(void);
/* A swap file to switch off before the files go (NULL: none any more). */
void scratch_swapoff_at_exit(const char *path);
/*
 * A memory cgroup to remove after the processes (its limit lifted first, so
 * that swapoff can bring back what is swapped).
 */
void scratch_remove_dir_last(const char *path);

/* Something else to undo at the end, after the files (async-signal-safe). */
void scratch_undo_at_exit(void (*undo)(void));

/* Remove every scratch file and the directory. */
void scratch_close(void);

#endif
