/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shmem_table.h - the Linux 2.4 tmpfs block table, generalised as in the
 * /dev/anon RFC so that one file can carry several parallel tables (swap
 * entries, map counts) that share one walk.
 *
 * Index layout (EPP = entries per page):
 *
 *   0 .. 15                 direct entries in the table itself
 *   16 ..                   indirect page, first half: EPP/2 pointers to leaf
 *                           pages of EPP entries each
 *   16 + EPP*EPP/2 ..       indirect page, second half: EPP/2 pointers to
 *                           middle pages of EPP leaf pointers each
 *
 *   max_index = 16 + (EPP*EPP/2) * (EPP+1); an index at or beyond it: -EFBIG.
 */
#ifndef ANONSIM_SHMEM_TABLE_H
#define ANONSIM_SHMEM_TABLE_H

#include "kapi.h"

#define SHMEM_NR_DIRECT 16

/* Page and word size of the machine whose table is modelled. */
struct shmem_geom {
	const char *name;
	unsigned long entries_per_page;	/* page size / word size: 1 << epp_shift */
	/*
	 * log2 of entries_per_page: the walk shifts and masks, as 2.4's
	 * constant ENTRIES_PER_PAGE compiles to, where a division by a
	 * geometry read at run time would cost a divide at each level
	 */
	unsigned int epp_shift;
	unsigned long max_index;	/* SHMEM_MAX_INDEX */
};

extern const struct shmem_geom shmem_geom_i386;	/* 4 KiB, 4-byte words */
extern const struct shmem_geom shmem_geom_x86_64;	/* 4 KiB, 8-byte words */

struct shmem_table {
	const struct shmem_geom *geom;
	enum kapi_page_kind kind;	/* what its pages are accounted as */
	unsigned long direct[SHMEM_NR_DIRECT];
	void **indirect;
	unsigned long nr_pages;		/* table pages held (indirect, middle, leaf) */
	spinlock_t *lock;		/* asserted held by each walk; NULL: unchecked */
};

/* An empty table; its walks assert no lock until t->lock is set. */
void shmem_table_init(struct shmem_table *t, const struct shmem_geom *geom,
		      enum kapi_page_kind kind);

/*
 * Find the entry for @index.  Returns ERR_PTR(-EFBIG) beyond max_index, NULL
 * when a level is missing.  If @page points at a spare zeroed page, the walk
 * installs it at the first missing level and clears *@page (a NULL return
 * then means a further level is still missing).  Caller holds the lock.
 */
unsigned long *shmem_table_walk(struct shmem_table *t, unsigned long index,
				unsigned long *page);

/*
 * How many entries, from @index on, lie in the same table page (or in the
 * direct entries) as @index: the entry a walk finds for @index is the
 * first of that many consecutive ones.  0 at or beyond max_index.
 */
unsigned long shmem_table_span(const struct shmem_table *t,
			       unsigned long index);

/*
 * Find or build the entry for @index: the allocate-with-lock-dropped loop.
 * Called and returns with @lock held (dropped around each allocation).
 * Table pages are charged to the caller's memory cgroup (__GFP_ACCOUNT);
 * past its limit the allocation fails (__GFP_RETRY_MAYFAIL: no OOM kill).
 * A spare left over because a racer filled the level is freed.
 * Returns the entry, ERR_PTR(-EFBIG) or ERR_PTR(-ENOMEM).
 */
unsigned long *shmem_table_get(struct shmem_table *t, unsigned long index,
			       spinlock_t *lock);	/* the table's */

/*
 * Clear every entry at or beyond @start, passing each non-zero one to
 * @release (may be NULL), and free the table pages left covering nothing
 * below @start.  shmem_table_truncate(t, 0, ...) returns every table page.
 * With t->lock set (and held), the scheduler may run between table pages,
 * the lock dropped: no walk may run meanwhile, or only one that adds.
 * Returns the number of non-zero entries cleared.
 */
unsigned long shmem_table_truncate(struct shmem_table *t, unsigned long start,
				   void (*release)(unsigned long entry, void *arg),
				   void *arg);

/*
 * Free the table pages of [@start, @end) whose entries are all zero, and
 * the middle and indirect pages left pointing to none: what a failed mmap
 * built.  Caller holds the lock; the scheduler may run between leaves as
 * in shmem_table_truncate().  Returns the number of table pages freed.
 */
unsigned long shmem_table_trim(struct shmem_table *t, unsigned long start,
			       unsigned long end);

/*
 * The number of table pages shmem_table_truncate(t, @start, ...) would free,
 * without changing anything.
 */
unsigned long shmem_table_pages_beyond(struct shmem_table *t,
				       unsigned long start);

#endif /* ANONSIM_SHMEM_TABLE_H */
