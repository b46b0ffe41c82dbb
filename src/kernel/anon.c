// SPDX-License-Identifier: GPL-2.0
/*
 * anon.c - /dev/anon map counts: the RFC as posted and corrected.
 *
 * The posted functions follow the patch's adjust_map_counts() and
 * anon_munmap() step by step; where the patch would corrupt memory the
 * model counts the defect and does the least harmful equivalent.
 */
#include "anon.h"

const char *const anon_defect_names[ANON_NR_DEFECTS] = {
	[ANON_DEFECT_DUP_UNCOUNTED] = "dup-uncounted",
	[ANON_DEFECT_PTE_ONLY_RECLAIM] = "pte-only-reclaim",
	[ANON_DEFECT_MAP_TABLE_LEAK] = "map-table-leak",
	[ANON_DEFECT_STALE_SPARE] = "stale-spare",
	[ANON_DEFECT_UNLOCKED_DECREMENT] = "unlocked-decrement",
	[ANON_DEFECT_COUNT_UNDERFLOW] = "count-underflow",
	[ANON_DEFECT_ENOMEM_NO_ROLLBACK] = "enomem-no-rollback",
	[ANON_DEFECT_SWAP_NOT_FREED] = "swap-not-freed",

	[ANON_DEFECT_INDEX_UNCHECKED] = "index-unchecked",
	[ANON_DEFECT_PRIVATE_COW] = "private-cow",
	[ANON_DEFECT_EXIT_UNCOUNTED] = "exit-uncounted",
	[ANON_DEFECT_SIZE_FIRST_MAP] = "size-first-map",
	[ANON_DEFECT_LOCKPAGE_NO_WAIT] = "lockpage-no-wait",
	[ANON_DEFECT_DOUBLE_FPUT] = "double-fput",
	[ANON_DEFECT_PRIVATE_DATA_RACE] = "private-data-race",
};

void anon_inode_init(struct anon_inode *ai, const struct shmem_geom *geom,
		     enum anon_variant variant,
		     const struct shmem_page_ops *pops, void *priv)
{
	int i;

	shmem_inode_init(&ai->shm, geom, pops, priv);
	shmem_table_init(&ai->maps, geom, KAPI_PAGE_MAP_TABLE);
	ai->maps.lock = &ai->shm.lock;
	ai->variant = variant;
	ai->reclaimed = 0;
	ai->size = 0;
	ai->file_refs = 0;
	for (i = 0; i < ANON_NR_DEFECTS; i++)
		ai->defects[i] = 0;
}

/* The posted walk; notes when it turns a freed spare into a table page. */
static unsigned long *posted_walk(struct anon_inode *ai, unsigned long idx,
				  unsigned long *page, bool *stale)
{
	unsigned long *count = shmem_table_walk(&ai->maps, idx, page);

	if (*stale && !*page) {
		ai->defects[ANON_DEFECT_STALE_SPARE]++;
		*stale = false;
	}
	return count;
}

/* adjust_map_counts(info, pgoff, nr, +1) as posted. */
static int posted_add(struct anon_inode *ai, unsigned long pgoff,
		      unsigned long nr)
{
	unsigned long i, idx, *count, page = 0;
	bool stale = false;	/* page was freed and left set, as posted */

	/* the first mmap creates the tmpfs file, as long as its vma */
	if (!ai->size)
		ai->size = nr;
	if (pgoff >= ai->size || nr > ai->size - pgoff)
		ai->defects[ANON_DEFECT_SIZE_FIRST_MAP]++;
	spin_lock(&ai->shm.lock);
	for (i = 0; i < nr; i++) {
		idx = pgoff + i;
		if (idx >= ai->maps.geom->max_index) {
			ai->defects[ANON_DEFECT_INDEX_UNCHECKED]++;
			spin_unlock(&ai->shm.lock);
			return -EFBIG;
		}
		while (!(count = posted_walk(ai, idx, &page, &stale))) {
			spin_unlock(&ai->shm.lock);
			page = kapi_get_zeroed_page(GFP_KERNEL, KAPI_PAGE_MAP_TABLE);
			stale = false;
			if (!page) {
				if (i)
					ai->defects[ANON_DEFECT_ENOMEM_NO_ROLLBACK]++;
				return -ENOMEM;
			}
			spin_lock(&ai->shm.lock);
		}
		if (page) {
			if (stale)	/* freed a second time */
				ai->defects[ANON_DEFECT_STALE_SPARE]++;
			kapi_free_page(page, KAPI_PAGE_MAP_TABLE);
			stale = true;
		}
		*count += 1;
	}
	spin_unlock(&ai->shm.lock);
	return 0;
}

/*
 * The fixed code walks a table page at a time: the entry found for the
 * first index of a run serves every index of its table page, and the
 * scheduler may run between table pages (a 16 GiB mapping is 8192 of
 * them, 4 Mi pages: too long a loop to hold the CPU for).
 */
static unsigned long run_length(struct anon_inode *ai, unsigned long idx,
				unsigned long left)
{
	unsigned long span = shmem_table_span(&ai->maps, idx);

	return span && span < left ? span : left;
}

/* Roll back the counts of [pgoff, pgoff + nr); caller holds the lock. */
static void fixed_unadd(struct anon_inode *ai, unsigned long pgoff,
			unsigned long nr)
{
	unsigned long i = 0, k, run, *count;

	while (i < nr) {
		run = run_length(ai, pgoff + i, nr - i);
		count = shmem_table_walk(&ai->maps, pgoff + i, NULL);
		if (!WARN_ON_ONCE(IS_ERR_OR_NULL(count))) {
			for (k = 0; k < run; k++)
				if (!WARN_ON_ONCE(!count[k]))
					count[k]--;
		}
		i += run;
		cond_resched_lock(&ai->shm.lock);
	}
}

static int fixed_add(struct anon_inode *ai, unsigned long pgoff,
		     unsigned long nr)
{
	unsigned long i = 0, k, run, *count;

	if (nr > ai->maps.geom->max_index ||
	    pgoff > ai->maps.geom->max_index - nr)
		return -EFBIG;
	spin_lock(&ai->shm.lock);
	while (i < nr) {
		count = shmem_table_get(&ai->maps, pgoff + i, &ai->shm.lock);
		if (IS_ERR(count)) {
			/* the counts back, and the table pages left empty */
			fixed_unadd(ai, pgoff, i);
			shmem_table_trim(&ai->maps, pgoff, pgoff + i + 1);
			spin_unlock(&ai->shm.lock);
			return PTR_ERR(count);
		}
		run = run_length(ai, pgoff + i, nr - i);
		for (k = 0; k < run; k++)
			count[k]++;
		i += run;
		cond_resched_lock(&ai->shm.lock);
	}
	/* i_size covers every mapping */
	if (ai->size < pgoff + nr)
		ai->size = pgoff + nr;
	spin_unlock(&ai->shm.lock);
	return 0;
}

int anon_mmap(struct anon_inode *ai, unsigned long pgoff, unsigned long nr)
{
	if (ai->variant == ANON_POSTED)
		return posted_add(ai, pgoff, nr);
	return fixed_add(ai, pgoff, nr);
}

int anon_vma_dup(struct anon_inode *ai, unsigned long pgoff, unsigned long nr)
{
	if (ai->variant == ANON_POSTED) {
		/* the patch has no ->open: the copy or moved vma is not counted */
		ai->defects[ANON_DEFECT_DUP_UNCOUNTED]++;
		return 0;
	}
	return fixed_add(ai, pgoff, nr);
}

/*
 * shmem_free_swp() of 2.4.23 mm/shmem.c: it frees and clears the swap
 * entries in [dir, edir) and returns how many, which its callers take off
 * info->swapped.  Earlier 2.4 kernels took (dir, count).
 */
static unsigned long posted_free_swp(unsigned long *dir, unsigned long *edir)
{
	unsigned long *ptr, freed = 0;
	swp_entry_t entry;

	/* as addresses: edir need not point into the same table as dir */
	for (ptr = dir; (unsigned long)ptr < (unsigned long)edir; ptr++) {
		if (!*ptr)
			continue;
		entry.val = *ptr;
		swap_free(entry);
		*ptr = 0;
		freed++;
	}
	return freed;
}

/* anon_munmap() as posted: no lock, only pages present in this mm. */
static unsigned long posted_munmap(struct anon_inode *ai, unsigned long pgoff,
				   unsigned long nr)
{
	struct shmem_inode *info = &ai->shm;
	unsigned long i, idx, *count, *slot, reclaimed = 0;
	bool locked;

	for (i = 0; i < nr; i++) {
		idx = pgoff + i;
		if (idx >= ai->maps.geom->max_index) {
			ai->defects[ANON_DEFECT_INDEX_UNCHECKED]++;
			continue;
		}
		count = shmem_table_walk(&ai->maps, idx, NULL);
		if (!count)
			continue;
		ai->defects[ANON_DEFECT_UNLOCKED_DECREMENT]++;
		if (!*count)
			ai->defects[ANON_DEFECT_COUNT_UNDERFLOW]++;
		(*count)--;
		if (*count > 0)
			continue;
		switch (info->pops->pte(info->priv, idx)) {
		case SHMEM_PTE_NONE:
			/* page (or its swap entry) stays with no mapping */
			ai->defects[ANON_DEFECT_PTE_ONLY_RECLAIM]++;
			continue;
		case SHMEM_PTE_ANON:
			/* pte_page() is the private copy, not the file's */
			ai->defects[ANON_DEFECT_PRIVATE_COW]++;
			break;
		case SHMEM_PTE_CACHE:
			/* LockPage() sets the bit whoever holds it */
			locked = info->pops->page_locked(info->priv, idx);
			if (locked)
				ai->defects[ANON_DEFECT_LOCKPAGE_NO_WAIT]++;
			if (info->pops->remove_page(info->priv, idx)) {
				reclaimed++;
				ai->reclaimed++;
			}
			/* UnlockPage() clears it, for the holder too */
			if (locked)
				info->pops->unlock_page(info->priv, idx);
			break;
		}
		/*
		 * The patch calls shmem_free_swp(entry, 1): the end pointer 1
		 * lies below any entry, so nothing is freed, and the return
		 * value is not used either.
		 */
		slot = shmem_table_walk(&info->swap, idx, NULL);
		if (!IS_ERR_OR_NULL(slot) &&
		    !posted_free_swp(slot, (unsigned long *)1) && *slot)
			ai->defects[ANON_DEFECT_SWAP_NOT_FREED]++;
	}
	return reclaimed;
}

/*
 * Free page @idx whose count (@count) munmap took to zero; called and
 * returns with the lock held, dropped while the page lock is taken.  An
 * mmap and fault in that window map the page again: the count is rechecked
 * under the lock, with the page locked, before anything is freed.  @count
 * stays valid meanwhile: a table page goes only when the file is
 * truncated, after its last mapping.
 */
static bool fixed_reclaim(struct anon_inode *ai, unsigned long idx,
			  unsigned long *count)
{
	struct shmem_inode *info = &ai->shm;
	swp_entry_t entry = { 0 };
	bool locked, removed = false;

	spin_unlock(&info->lock);
	locked = info->pops->lock_page(info->priv, idx);
	spin_lock(&info->lock);
	if (!*count) {
		entry = __shmem_swap_in(info, idx);
		if (locked)
			removed = info->pops->remove_page(info->priv, idx);
	}
	spin_unlock(&info->lock);
	if (locked)
		info->pops->unlock_page(info->priv, idx);
	if (entry.val)
		swap_free(entry);
	spin_lock(&info->lock);
	return removed || entry.val;
}

static unsigned long fixed_munmap(struct anon_inode *ai, unsigned long pgoff,
				  unsigned long nr)
{
	unsigned long i = 0, k, run, idx, *count, reclaimed = 0;

	spin_lock(&ai->shm.lock);
	while (i < nr) {
		idx = pgoff + i;
		run = run_length(ai, idx, nr - i);
		count = shmem_table_walk(&ai->maps, idx, NULL);
		/* unmapping what was never mapped: no table page, skip it */
		if (WARN_ON_ONCE(IS_ERR_OR_NULL(count)))
			k = run;
		else
			k = 0;
		for (; k < run; k++) {
			/* keep a count already at zero there */
			if (WARN_ON_ONCE(!count[k]))
				continue;
			if (--count[k])
				continue;
			/* the lock is dropped inside */
			if (fixed_reclaim(ai, idx + k, &count[k])) {
				reclaimed++;
				ai->reclaimed++;
			}
		}
		i += run;
		cond_resched_lock(&ai->shm.lock);
	}
	spin_unlock(&ai->shm.lock);
	return reclaimed;
}

unsigned long anon_munmap(struct anon_inode *ai, unsigned long pgoff,
			  unsigned long nr)
{
	if (ai->variant == ANON_POSTED)
		return posted_munmap(ai, pgoff, nr);
	return fixed_munmap(ai, pgoff, nr);
}

unsigned long anon_vma_close(struct anon_inode *ai, unsigned long pgoff,
			     unsigned long nr)
{
	if (ai->variant == ANON_POSTED) {
		/* shmem_vm_ops has no ->close, and exit_mmap() no ->munmap */
		ai->defects[ANON_DEFECT_EXIT_UNCOUNTED]++;
		return 0;
	}
	return fixed_munmap(ai, pgoff, nr);
}

bool anon_index_in_size(struct anon_inode *ai, unsigned long index)
{
	return index < ai->size;
}

unsigned long anon_map_count(struct anon_inode *ai, unsigned long index)
{
	unsigned long *count, val = 0;

	spin_lock(&ai->shm.lock);
	count = shmem_table_walk(&ai->maps, index, NULL);
	if (!IS_ERR_OR_NULL(count))
		val = *count;
	spin_unlock(&ai->shm.lock);
	return val;
}

void anon_truncate(struct anon_inode *ai, unsigned long start)
{
	shmem_truncate(&ai->shm, start);
	spin_lock(&ai->shm.lock);
	if (ai->size > start)
		ai->size = start;
	if (ai->variant == ANON_POSTED) {
		/* the patch leaves map_indirect and its pages alone */
		if (shmem_table_pages_beyond(&ai->maps, start))
			ai->defects[ANON_DEFECT_MAP_TABLE_LEAK]++;
	} else {
		shmem_table_truncate(&ai->maps, start, NULL, NULL);
	}
	spin_unlock(&ai->shm.lock);
}
