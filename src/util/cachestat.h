/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cachestat.h - how many pages of an open file the page cache holds, by
 * cachestat(2) (Linux 6.5).  It counts a folio whose read is still in
 * flight, as readahead leaves the folios of its asynchronous window,
 * where mincore(2) counts only uptodate ones and so, right after a read,
 * misses the window that read started; and it takes time for the pages
 * cached, not for the size of the range.  Not for tmpfs: it counts a
 * swapped page still in the swap cache as evicted, mincore as resident.
 */
#ifndef ANONSIM_CACHESTAT_H
#define ANONSIM_CACHESTAT_H

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#define CACHESTAT_NR 451	/* the same number on every architecture */

/* Pages of [@off, @off + @len) (@len 0: to the end); -1, errno ENOSYS: none. */
static inline int64_t cachestat_pages(int fd, uint64_t off, uint64_t len)
{
#ifdef __linux__
	struct {
		uint64_t off, len;
	} range = { off, len };
	struct {
		uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
	} cs;

	if (syscall(CACHESTAT_NR, fd, &range, &cs, 0))
		return -1;
	return (int64_t)cs.nr_cache;
#else
	(void)fd;
	(void)off;
	(void)len;
	errno = ENOSYS;
	return -1;
#endif
}

#endif
