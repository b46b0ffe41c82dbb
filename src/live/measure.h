/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * measure.h - what the running kernel says a live run costs: resident pages
 * of a file (mincore: tmpfs pages of the memory file, page cache of an
 * image), its allocated blocks, swap in use, and the readahead window of
 * the device a file lives on.
 */
#ifndef ANONSIM_LIVE_MEASURE_H
#define ANONSIM_LIVE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A read-only view of a file's first @npages pages, for counting. */
struct resident_view {
	void *map;
	uint64_t npages;
	unsigned char *vec;
	bool anon;		/* /dev/anon: asked with its ioctl, not mapped */
	bool cache;		/* a disk image's page cache: cachestat(2) first */
	int fd;			/* the file, for either */
};

int resident_view_open(struct resident_view *v, int fd, uint64_t npages,
		       char *err, size_t errlen);
/*
 * The same for a disk image, whose page cache is counted with
 * cachestat(2) where the kernel has it (util/cachestat.h says why).
 */
int resident_view_open_cache(struct resident_view *v, int fd, uint64_t npages,
			     char *err, size_t errlen);
/*
 * The same for an open /dev/anon file, whose mappings would count: the
 * driver reports residency (DEVANON_IOC_PAGES) without a mapping.
 */
int resident_view_open_anon(struct resident_view *v, int fd, uint64_t npages,
			    char *err, size_t errlen);
/* Pages of the file in memory now (cachestat or mincore); -1 on failure. */
int64_t resident_pages(const struct resident_view *v);
void resident_view_close(struct resident_view *v);

/* 4 KiB pages allocated to the file (st_blocks); -1 on failure. */
int64_t allocated_pages(int fd);

/* The non-negative number a file (sysfs, cgroupfs) holds; -1 if none. */
int64_t read_number_file(const char *path);

/* Swap in use on the host, in 4 KiB pages (/proc/meminfo); -1 if unknown. */
int64_t swap_used_pages(void);

/*
 * read_ahead_kb of the block device under the file @fd (its queue in
 * sysfs, or its whole disk's for a partition); -1 if there is none.
 */
int64_t readahead_kb_of(int fd);

#endif
