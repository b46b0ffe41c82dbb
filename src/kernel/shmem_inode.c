// SPDX-License-Identifier: GPL-2.0
/*
 * shmem_inode.c - swap entries of a tmpfs file in its block table.
 */
#include "shmem_inode.h"

void shmem_inode_init(struct shmem_inode *info, const struct shmem_geom *geom,
		      const struct shmem_page_ops *pops, void *priv)
{
	spin_lock_init(&info->lock);
	shmem_table_init(&info->swap, geom, KAPI_PAGE_SWAP_TABLE);
	info->swap.lock = &info->lock;
	info->swapped = 0;
	info->pops = pops;
	info->priv = priv;
}

int shmem_swap_out(struct shmem_inode *info, unsigned long index,
		   swp_entry_t entry)
{
	unsigned long *slot;
	swp_entry_t old;

	spin_lock(&info->lock);
	slot = shmem_table_get(&info->swap, index, &info->lock);
	if (IS_ERR(slot)) {
		spin_unlock(&info->lock);
		return PTR_ERR(slot);
	}
	old.val = *slot;
	*slot = entry.val;
	if (WARN_ON_ONCE(old.val))
		swap_free(old);	/* a page cannot be on swap twice */
	else if (entry.val)
		info->swapped++;
	spin_unlock(&info->lock);
	return 0;
}

swp_entry_t __shmem_swap_in(struct shmem_inode *info, unsigned long index)
{
	swp_entry_t entry = { 0 };
	unsigned long *slot;

	/* nothing in swap (the common case): no table to walk */
	if (!info->swapped)
		return entry;
	slot = shmem_table_walk(&info->swap, index, NULL);
	if (IS_ERR_OR_NULL(slot) || !*slot)
		return entry;
	entry.val = *slot;
	*slot = 0;
	info->swapped--;
	return entry;
}

swp_entry_t shmem_swap_in(struct shmem_inode *info, unsigned long index)
{
	swp_entry_t entry;

	spin_lock(&info->lock);
	entry = __shmem_swap_in(info, index);
	spin_unlock(&info->lock);
	return entry;
}

swp_entry_t shmem_swap_lookup(struct shmem_inode *info, unsigned long index)
{
	swp_entry_t entry = { 0 };
	unsigned long *slot;

	spin_lock(&info->lock);
	slot = shmem_table_walk(&info->swap, index, NULL);
	if (!IS_ERR_OR_NULL(slot))
		entry.val = *slot;
	spin_unlock(&info->lock);
	return entry;
}

unsigned long shmem_punch(struct shmem_inode *info, unsigned long index,
			  unsigned long nr)
{
	unsigned long i, released = 0;
	swp_entry_t entry;

	for (i = index; i - index < nr; i++) {
		/* the page lock may sleep: not under the inode lock */
		if (info->pops && info->pops->lock_page(info->priv, i)) {
			if (info->pops->remove_page(info->priv, i))
				released++;
			info->pops->unlock_page(info->priv, i);
		}
		spin_lock(&info->lock);
		entry = __shmem_swap_in(info, i);
		spin_unlock(&info->lock);
		if (entry.val) {
			swap_free(entry);
			released++;
		}
	}
	return released;
}

static void release_swap(unsigned long val, void *arg)
{
	swp_entry_t entry = { val };

	swap_free(entry);
}

void shmem_truncate(struct shmem_inode *info, unsigned long start)
{
	unsigned long freed;

	spin_lock(&info->lock);
	freed = shmem_table_truncate(&info->swap, start, release_swap, NULL);
	info->swapped -= freed;
	spin_unlock(&info->lock);
}
