/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup.h - the memory cgroup a live run under pressure puts its instances
 * in (cgroup v1: memory.limit_in_bytes, with swap counted in memory.memsw),
 * and the swap file it lends them.  Both need root; both are undone at the
 * end, on failure and on a signal (scratch.h).
 */
#ifndef ANONSIM_LIVE_CGROUP_H
#define ANONSIM_LIVE_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Make a memory cgroup limited to @limit bytes; 0 or -1 (@err). */
int cgroup_open(uint64_t limit, char *err, size_t errlen);
/* Move process @pid into it. */
int cgroup_add(pid_t pid, char *err, size_t errlen);
/* Its memory in use, and the swap its pages use, in 4 KiB pages; -1 if unknown. */
int64_t cgroup_pages(void);
int64_t cgroup_swap_pages(void);
/* Of its memory, the anonymous pages (memory.stat: rss and rss_huge); -1 if unknown. */
int64_t cgroup_anon_pages(void);
/* Remove it (its processes must be gone). */
void cgroup_close(void);

/*
 * A swap file of @size bytes in the scratch directory, switched on; 0 or
 * -1 (@err).  swapfile_close switches it off (the scratch removes it).
 * One run at a time on the host has one: it waits for the host-wide lock
 * (/run/lock/anonsim-swap, else /tmp/anonsim-swap.lock) first.
 */
int swapfile_open(uint64_t size, char *err, size_t errlen);
void swapfile_close(void);

/* Pages swapped out on the whole host since boot (/proc/vmstat pswpout). */
int64_t host_swap_outs(void);

#endif
