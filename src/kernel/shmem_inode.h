/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shmem_inode.h - a tmpfs file's swap side: the block table of swap entries,
 * swap-out and swap-in of single pages, hole punching and truncation.
 *
 * The data pages themselves live in the page cache, which is not ours: the
 * file reaches it through shmem_page_ops (the kernel build would use
 * find_lock_page()/delete_from_page_cache() and a page-table walk; the
 * simulator uses its own page-state array).
 */
#ifndef ANONSIM_SHMEM_INODE_H
#define ANONSIM_SHMEM_INODE_H

#include "shmem_table.h"

/* What the page-table entry of page @index holds in the mm now unmapping it. */
enum shmem_pte {
	SHMEM_PTE_NONE,		/* not present */
	SHMEM_PTE_CACHE,	/* the file's page, from the page cache */
	SHMEM_PTE_ANON,		/* a private copy: MAP_PRIVATE after copy-on-write */
};

struct shmem_page_ops {
	enum shmem_pte (*pte)(void *priv, unsigned long index);
	/*
	 * Lock page @index in the page cache, waiting for a holder of its page
	 * lock (find_lock_page(): may sleep, so never under the inode lock);
	 * false if the page is not cached.
	 */
	bool (*lock_page)(void *priv, unsigned long index);
	void (*unlock_page)(void *priv, unsigned long index);
	/* Is page @index locked now (by a read from swap, writeback, ...)? */
	bool (*page_locked)(void *priv, unsigned long index);
	/*
	 * Drop page @index from the page cache; false if it was not there.
	 * Does not sleep: the fixed code calls it under the inode lock, the
	 * page locked.
	 */
	bool (*remove_page)(void *priv, unsigned long index);
};

struct shmem_inode {
	spinlock_t lock;		/* the tables, swapped */
	struct shmem_table swap;	/* swp_entry_t values, 0 = none */
	unsigned long swapped;		/* data pages assigned to swap */
	const struct shmem_page_ops *pops;
	void *priv;
};

void shmem_inode_init(struct shmem_inode *info, const struct shmem_geom *geom,
		      const struct shmem_page_ops *pops, void *priv);

/*
 * Record that page @index went to swap slot @entry.  May allocate swap-table
 * pages: returns 0, -ENOMEM (nothing changed) or -EFBIG.
 */
int shmem_swap_out(struct shmem_inode *info, unsigned long index,
		   swp_entry_t entry);

/* Take back the swap entry of page @index (val 0 if none), clearing it. */
swp_entry_t shmem_swap_in(struct shmem_inode *info, unsigned long index);

/* shmem_swap_in() for a caller that holds info->lock. */
swp_entry_t __shmem_swap_in(struct shmem_inode *info, unsigned long index);

/* The swap entry of @index without changing it (val 0 if none). */
swp_entry_t shmem_swap_lookup(struct shmem_inode *info, unsigned long index);

/*
 * Punch a hole over [index, index + nr): drop the pages from the page cache
 * and free their swap entries, as fallocate(FALLOC_FL_PUNCH_HOLE) does.
 * Returns the number of pages and swap entries released.
 */
unsigned long shmem_punch(struct shmem_inode *info, unsigned long index,
			  unsigned long nr);

/* Truncate to @start pages: free swap entries and emptied table pages. */
void shmem_truncate(struct shmem_inode *info, unsigned long start);

#endif /* ANONSIM_SHMEM_INODE_H */
