// SPDX-License-Identifier: GPL-2.0
/*
 * shmem_table.c - the Linux 2.4 tmpfs block table, one walk shared by every
 * table of a file (swap entries, map counts).
 *
 * With EPP entries per page, index i >= SHMEM_NR_DIRECT is found as
 *
 *   i' = i - 16, leaf = i' / EPP, offset = i' % EPP
 *   leaf < EPP/2:  indirect[leaf] -> leaf page [offset]
 *   otherwise:     leaf -= EPP/2;
 *                  indirect[EPP/2 + leaf / EPP] -> middle page
 *                  middle[leaf % EPP] -> leaf page [offset]
 */
#include "shmem_table.h"

const struct shmem_geom shmem_geom_i386 = {
	.name = "i386",
	.entries_per_page = 1UL << 10,
	.epp_shift = 10,
	.max_index = SHMEM_NR_DIRECT + (1024UL * 1024 / 2) * (1024 + 1),
};

const struct shmem_geom shmem_geom_x86_64 = {
	.name = "x86_64",
	.entries_per_page = 1UL << 9,
	.epp_shift = 9,
	.max_index = SHMEM_NR_DIRECT + (512UL * 512 / 2) * (512 + 1),
};

void shmem_table_init(struct shmem_table *t, const struct shmem_geom *geom,
		      enum kapi_page_kind kind)
{
	int i;

	t->geom = geom;
	t->kind = kind;
	for (i = 0; i < SHMEM_NR_DIRECT; i++)
		t->direct[i] = 0;
	t->indirect = NULL;
	t->nr_pages = 0;
	t->lock = NULL;
}

/* Put the caller's spare page (if any) into the empty @slot. */
static void install_spare(struct shmem_table *t, void **slot,
			  unsigned long *page)
{
	if (!page || !*page)
		return;
	*slot = (void *)*page;
	*page = 0;
	t->nr_pages++;
}

unsigned long *shmem_table_walk(struct shmem_table *t, unsigned long index,
				unsigned long *page)
{
	unsigned int shift = t->geom->epp_shift;
	unsigned long epp = 1UL << shift;
	unsigned long offset;
	void **dir;

	if (t->lock)
		lockdep_assert_held(t->lock);
	if (index < SHMEM_NR_DIRECT)
		return t->direct + index;
	if (index >= t->geom->max_index)
		return ERR_PTR(-EFBIG);
	if (!t->indirect) {
		install_spare(t, (void **)&t->indirect, page);
		return NULL;
	}

	index -= SHMEM_NR_DIRECT;
	offset = index & (epp - 1);
	index >>= shift;	/* leaf number */
	dir = t->indirect;

	if (index >= epp / 2) {
		index -= epp / 2;
		dir += epp / 2 + (index >> shift);
		index &= epp - 1;
		if (!*dir) {
			install_spare(t, dir, page);
			return NULL;
		}
		dir = (void **)*dir;
	}
	dir += index;
	if (!*dir) {
		/* the last level: a spare installed here serves at once */
		if (!page || !*page)
			return NULL;
		install_spare(t, dir, page);
	}
	return (unsigned long *)*dir + offset;
}

unsigned long shmem_table_span(const struct shmem_table *t,
			       unsigned long index)
{
	unsigned long epp = t->geom->entries_per_page;

	if (index >= t->geom->max_index)
		return 0;
	if (index < SHMEM_NR_DIRECT)
		return SHMEM_NR_DIRECT - index;
	return epp - ((index - SHMEM_NR_DIRECT) & (epp - 1));
}

unsigned long *shmem_table_get(struct shmem_table *t, unsigned long index,
			       spinlock_t *lock)
{
	unsigned long page = 0;
	unsigned long *entry;

	while (!(entry = shmem_table_walk(t, index, &page))) {
		spin_unlock(lock);
		/*
		 * Charged to the caller's memory cgroup; past its limit the
		 * mapping fails with -ENOMEM rather than kill a task.
		 */
		page = kapi_get_zeroed_page(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL,
					    t->kind);
		spin_lock(lock);
		if (!page)
			return ERR_PTR(-ENOMEM);
	}
	/* someone filled the level while the lock was dropped */
	if (page)
		kapi_free_page(page, t->kind);
	return entry;
}

static bool page_empty(void *page, unsigned long epp)
{
	unsigned long *entry = page, i;

	for (i = 0; i < epp; i++)
		if (entry[i])
			return false;
	return true;
}

/* Free the table page in @slot if it holds nothing; true if it did. */
static bool trim_slot(struct shmem_table *t, void **slot)
{
	if (!*slot || !page_empty(*slot, t->geom->entries_per_page))
		return false;
	kapi_free_page((unsigned long)*slot, t->kind);
	*slot = NULL;
	t->nr_pages--;
	return true;
}

unsigned long shmem_table_trim(struct shmem_table *t, unsigned long start,
			       unsigned long end)
{
	unsigned long epp = t->geom->entries_per_page;
	unsigned long before = t->nr_pages, leaf, last;
	void **dir = t->indirect, **mid;

	if (!dir || end <= SHMEM_NR_DIRECT || start >= end)
		return 0;
	if (end > t->geom->max_index)
		end = t->geom->max_index;
	leaf = start > SHMEM_NR_DIRECT ? (start - SHMEM_NR_DIRECT) / epp : 0;
	last = (end - 1 - SHMEM_NR_DIRECT) / epp;
	for (; leaf <= last; leaf++) {
		if (leaf < epp / 2) {
			trim_slot(t, &dir[leaf]);
		} else {
			mid = dir[epp / 2 + (leaf - epp / 2) / epp];
			if (mid)
				trim_slot(t, &mid[(leaf - epp / 2) % epp]);
			/* the middle page, once its last leaf is looked at */
			if ((leaf - epp / 2) % epp == epp - 1 || leaf == last)
				trim_slot(t, &dir[epp / 2 + (leaf - epp / 2) / epp]);
		}
		if (t->lock)
			cond_resched_lock(t->lock);
	}
	trim_slot(t, (void **)&t->indirect);
	return before - t->nr_pages;
}

/* One truncation (or, when dry, a count of the pages it would free). */
struct table_trunc {
	unsigned long start;
	void (*release)(unsigned long entry, void *arg);
	void *arg;
	bool dry;
	unsigned long cleared;
	unsigned long freed;
};

static void trunc_free(struct shmem_table *t, void **slot,
		       struct table_trunc *tr)
{
	tr->freed++;
	if (tr->dry)
		return;
	kapi_free_page((unsigned long)*slot, t->kind);
	*slot = NULL;
	t->nr_pages--;
}

/* Clear a leaf covering [base, base + EPP) from start on; free it if emptied. */
static void trunc_leaf(struct shmem_table *t, void **slot, unsigned long base,
		       struct table_trunc *tr)
{
	unsigned long epp = t->geom->entries_per_page;
	unsigned long *leaf = *slot;
	unsigned long i = tr->start > base ? tr->start - base : 0;

	if (!tr->dry) {
		for (; i < epp; i++) {
			if (!leaf[i])
				continue;
			if (tr->release)
				tr->release(leaf[i], tr->arg);
			leaf[i] = 0;
			tr->cleared++;
		}
	}
	if (base >= tr->start)
		trunc_free(t, slot, tr);
	/* a table page at a time: 131072 leaves of 512 entries at most */
	if (!tr->dry && t->lock)
		cond_resched_lock(t->lock);
}

static void table_trunc(struct shmem_table *t, struct table_trunc *tr)
{
	unsigned long epp = t->geom->entries_per_page;
	unsigned long half = epp / 2;
	unsigned long base, lbase, i, k;
	void **dir, **mid;

	for (i = tr->start; !tr->dry && i < SHMEM_NR_DIRECT; i++) {
		if (!t->direct[i])
			continue;
		if (tr->release)
			tr->release(t->direct[i], tr->arg);
		t->direct[i] = 0;
		tr->cleared++;
	}
	dir = t->indirect;
	if (!dir)
		return;

	base = SHMEM_NR_DIRECT;
	for (i = 0; i < half; i++, base += epp) {
		if (dir[i] && base + epp > tr->start)
			trunc_leaf(t, &dir[i], base, tr);
	}
	/* base is now the first index behind a middle page */
	for (i = half; i < epp; i++, base += epp * epp) {
		mid = dir[i];
		if (!mid || base + epp * epp <= tr->start)
			continue;
		lbase = base;
		for (k = 0; k < epp; k++, lbase += epp) {
			if (mid[k] && lbase + epp > tr->start)
				trunc_leaf(t, &mid[k], lbase, tr);
		}
		if (base >= tr->start)
			trunc_free(t, &dir[i], tr);
	}
	if (tr->start <= SHMEM_NR_DIRECT)
		trunc_free(t, (void **)&t->indirect, tr);
}

unsigned long shmem_table_truncate(struct shmem_table *t, unsigned long start,
				   void (*release)(unsigned long entry, void *arg),
				   void *arg)
{
	struct table_trunc tr = {
		.start = start, .release = release, .arg = arg, .dry = false,
	};

	table_trunc(t, &tr);
	return tr.cleared;
}

unsigned long shmem_table_pages_beyond(struct shmem_table *t,
				       unsigned long start)
{
	struct table_trunc tr = { .start = start, .dry = true };

	table_trunc(t, &tr);
	return tr.freed;
}
