/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * devanon_uapi.h - what /dev/anon tells user space beyond mmap: the map
 * count and residency of a range of pages of the tmpfs file behind an open
 * /dev/anon file.  Shared by the driver and the programs that test it.
 */
#ifndef DEVANON_UAPI_H
#define DEVANON_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* At most this many pages per DEVANON_IOC_PAGES call. */
#define DEVANON_PAGES_MAX	0x100000U	/* 2^20 */

struct devanon_pages {
	__u64 index;		/* first page (file offset / page size) */
	__u64 nr;		/* pages, 1 .. DEVANON_PAGES_MAX */
	__u64 counts;		/* user pointer to nr __u32: map counts, or 0 */
	__u64 resident;		/* user pointer to nr __u8: 1 if in the page cache, or 0 */
};

/* Before the first mmap every count and residency is 0. */
#define DEVANON_IOC_PAGES	_IOW('A', 1, struct devanon_pages)

#endif /* DEVANON_UAPI_H */
