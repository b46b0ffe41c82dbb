/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pagecache.c - a backing file's host page cache and Linux's readahead as of
 * 6.18 (mm/readahead.c, mm/filemap.c): a synchronous window on a miss
 * (initial window scaled from the request for a sequential or first read,
 * "context" readahead when the pages before the miss are cached, the request
 * alone for a random read), an asynchronous window when a read reaches the
 * PG_readahead folio (ramped x4 while small, then x2, up to the maximum),
 * built from large folios whose order grows by two per window.
 *
 * pagecache.c and host.c call each other, the one circle the tree allows:
 * adding pages charges the host, whose reclaim evicts page cache (host.c).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/host.h"
#include "model/pagecache.h"

/* Largest folio the page cache builds (MAX_PAGECACHE_ORDER on x86_64). */
#define MAX_FOLIO_ORDER 9

void ra_state_init(struct ra_state *ra, uint64_t ra_pages)
{
	memset(ra, 0, sizeof(*ra));
	ra->prev_index = UINT64_MAX;
	ra->ra_pages = ra_pages;
}

void pagecache_init(struct pagecache *pc, unsigned id, const char *ident,
		    uint64_t npages)
{
	memset(pc, 0, sizeof(*pc));
	pc->id = id;
	strncpy(pc->ident, ident, sizeof(pc->ident) - 1);
	pc->npages = npages;
	sparse_init(&pc->pages, SPARSE_LEAF(npages + SPARSE_SLOTS - 1), sizeof(struct pc_leaf));
	sparse_init(&pc->mapcount, SPARSE_LEAF(npages + SPARSE_SLOTS - 1),
		    SPARSE_SLOTS * sizeof(uint32_t));
}

void pagecache_destroy(struct pagecache *pc)
{
	sparse_destroy(&pc->pages);
	sparse_destroy(&pc->mapcount);
}

static uint64_t roundup_pow2(uint64_t n)
{
	uint64_t r = 1;

	while (r < n)
		r <<= 1;
	return r;
}

static unsigned ilog2_u64(uint64_t n)
{
	unsigned l = 0;

	while (n >>= 1)
		l++;
	return l;
}

/* get_init_ra_size(): the first window of a sequential stream. */
static uint64_t init_ra_size(uint64_t req, uint64_t max)
{
	uint64_t n = roundup_pow2(req);

	if (n <= max / 32)
		return n * 4;
	if (n <= max / 4)
		return n * 2;
	return max;
}

/* get_next_ra_size(): ramp up x4 while small, then x2, up to max. */
static uint64_t next_ra_size(uint64_t cur, uint64_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

static inline bool resident(const struct pagecache *pc, uint64_t i)
{
	return pc_flags(pc, i) & PC_RESIDENT;
}


/*
 * page_cache_next_miss() (@dir +1) and page_cache_prev_miss() (@dir -1) as
 * the XArray walk behind them behaves.  The walk starts with xas_load(),
 * which resolves an index inside a multi-page folio to the folio's head
 * slot; the following xas_next()/xas_prev() steps move index and slot
 * together, so the walk reports every index (index - head) too far until
 * it reaches the end of its 64-slot node.  Going up, __xas_next() finds
 * the next node's slot by the index: in step again.  Going down,
 * __xas_prev() finds the slot of the index's offset in the node before:
 * in step only if they were one apart, else the walk goes on a node
 * behind its index and reports every gap 64 too high.  Folios
 * of 64 pages or more live in higher nodes and are walked in step.
 * Returns what the kernel functions return: the (reported) index of the
 * first gap; 0 or UINT64_MAX when the walk runs off either end of the index
 * space; with no gap in @max indices, index + max going up and the last
 * index looked at going down.
 */
#define XA_CHUNK 64
static uint64_t xa_miss(const struct pagecache *pc, uint64_t index, int dir,
			uint64_t max)
{
	uint64_t idx = index, slot = index, n;

	if (index < pc->npages && resident(pc, index) &&
	    pc_folio_pages(pc, index) < XA_CHUNK)
		slot = pc_folio_head(pc, index);
	for (n = 0; n < max; n++) {
		if (n) {
			idx += dir;
			if (dir > 0 && idx == 0)
				return 0;
			if (dir < 0 && idx == UINT64_MAX)
				return UINT64_MAX;
			if (dir > 0)
				slot = slot % XA_CHUNK == XA_CHUNK - 1 ? idx : slot + 1;
			else if (slot % XA_CHUNK)
				slot--;
			else if (idx % XA_CHUNK) {
				/*
				 * __xas_prev() from the node's first slot: into
				 * the node before, at the slot of the index's
				 * offset there, which is the slot before only if
				 * index and slot agreed; out of step by 2 or
				 * more, the walk stays a node (64) behind its
				 * index from there on.
				 */
				if (slot < XA_CHUNK)
					return idx;
				slot = slot - XA_CHUNK + idx % XA_CHUNK;
			}
			/* else: index and offset agree again: the same slot once more */
		}
		if (slot >= pc->npages || !resident(pc, slot))
			return idx;
	}
	return dir > 0 ? index + max : idx;
}

void pagecache_touch(struct host *h, struct pagecache *pc, uint64_t i)
{
	enum lru_list l;

	if (!host_lru_kept(h, LRU_CACHE))
		return;		/* nor LRU_MAPPED: no reclaim */
	if (pc_flags(pc, i) & PC_ACTIVE)
		return;		/* modern: the active list holds both kinds */
	l = pc_mapcount(pc, i) ? LRU_MAPPED : LRU_CACHE;
	host_lru_add(h, l, pc->id, (uint32_t)i, pc_lru_genp(pc, i));
}

/* modern: the folio of page @i goes to the active list (folio_activate()). */
static void activate_folio(struct host *h, struct pagecache *pc, uint64_t i)
{
	uint64_t head = pc_folio_head(pc, i), n = pc_folio_pages(pc, i), j, nr = 0;

	for (j = head; j < head + n; j++) {
		uint16_t *f = pc_flagsp(pc, j);

		if ((*f & (PC_RESIDENT | PC_ACTIVE)) != PC_RESIDENT)
			continue;	/* reclaim took it (mapped pages go apart) */
		*f = (uint16_t)((*f | PC_ACTIVE) & ~PC_REFERENCED);
		host_lru_add(h, LRU_ACTIVE, pc->id, (uint32_t)j, pc_lru_genp(pc, j));
		nr++;
	}
	host_note_activate(h, nr);
}

void pagecache_deactivate(struct host *h, struct pagecache *pc, uint64_t i)
{
	uint64_t head = pc_folio_head(pc, i), n = pc_folio_pages(pc, i), j;

	for (j = head; j < head + n; j++) {
		uint16_t *f = pc_flagsp(pc, j);

		if (!(*f & PC_ACTIVE))
			continue;
		/* shrink_active_list(): "we are de-activating" */
		*f = (uint16_t)((*f & ~PC_ACTIVE) | PC_WORKINGSET);
		h->active_file--;
		pagecache_touch(h, pc, j);	/* the young end of the inactive list */
	}
}

/*
 * modern: folio_mark_accessed(): the first access marks the folio
 * referenced, the second activates it.
 */
static void mark_accessed(struct host *h, struct pagecache *pc, uint64_t i)
{
	uint16_t f = pc_flags(pc, i);

	if (!(f & PC_REFERENCED)) {
		uint64_t head = pc_folio_head(pc, i), n = pc_folio_pages(pc, i), j;

		for (j = head; j < head + n; j++)
			*pc_flagsp(pc, j) |= PC_REFERENCED;
	} else if (!(f & PC_ACTIVE)) {
		activate_folio(h, pc, i);
	}
}

/* Page @i enters the cache as part of a folio of @order. */
static void cache_insert(struct host *h, struct pagecache *pc, uint64_t i,
			 unsigned order)
{
	*pc_flagsp(pc, i) = (uint16_t)(PC_RESIDENT | (order << PC_ORDER_SHIFT));
	pc->resident++;
	pagecache_touch(h, pc, i);
	host_charge(h, CAT_CACHE, 1);
}

/* Add the folio [index, index + 2^order) to the cache. */
static bool add_folio(struct host *h, struct pagecache *pc, uint64_t index,
		      unsigned order, bool mark, uint64_t req_lo, uint64_t req_hi,
		      struct read_stats *st)
{
	uint64_t i, n = 1ULL << order;
	uint16_t shadow = pc_flags(pc, index);
	bool recent = false;

	/* filemap_add_folio() -> workingset_refault() on the folio's shadow */
	if ((shadow & PC_EVICTED) && h->policy == RECLAIM_MODERN &&
	    host_lru_kept(h, LRU_ACTIVE))
		recent = host_refault_recent(h, *pc_lru_genp(pc, index));
	/*
	 * mem_cgroup_charge(): the folio is charged whole, before it is
	 * added; readahead's charge (__GFP_NORETRY) gives up after its
	 * reclaim, and the folio is not read ahead
	 */
	if (h->policy == RECLAIM_MODERN && h->nofs) {
		if (!host_try_reserve(h, n))
			return false;
	} else if (h->policy == RECLAIM_MODERN) {
		host_reserve(h, n);	/* so reclaim never meets the folio */
	}
	for (i = index; i < index + n; i++) {
		if (pc_flags(pc, i) & PC_EVICTED)
			st->refaults++;
		else if (i >= req_lo && i < req_hi)
			st->demand++;
		else
			st->readahead++;
		cache_insert(h, pc, i, order);
	}
	if (mark)
		*pc_flagsp(pc, index) |= PC_RA_MARK;
	if (h->nofs && host_lru_kept(h, LRU_CACHE))	/* no reclaim: no lock */
		for (i = index; i < index + n; i++)
			*pc_flagsp(pc, i) |= PC_LOCKED;
	if (!recent)
		return true;
	/* a refault within the workingset's size comes back active */
	activate_folio(h, pc, index);
	host_note_refault_activate(h, n);
	if (shadow & PC_WORKINGSET) {
		/* workingset_restore: it was active before: reclaiming file cost IO */
		for (i = index; i < index + n; i++)
			*pc_flagsp(pc, i) |= PC_WORKINGSET;
		host_note_restore(h, n);
	}
	return true;
}

/* Is any page of [index, index + n) cached (the folio would not fit)? */
static bool range_busy(const struct pagecache *pc, uint64_t index, uint64_t n)
{
	uint64_t i;

	for (i = index; i < index + n; i++)
		if (resident(pc, i))
			return true;
	return false;
}

/*
 * read_pages() at the end of the outermost readahead call: the folios it
 * added are read and unlocked.
 */
static void ra_unlock(struct host *h, struct pagecache *pc, uint64_t lo, uint64_t hi)
{
	uint64_t i;

	/* an inner call (the outer one reads them), or no reclaim (no lock) */
	if (h->nofs || !host_lru_kept(h, LRU_CACHE))
		return;
	if (hi > pc->npages)
		hi = pc->npages;
	for (i = lo; i < hi; i++)
		if (pc_flags(pc, i) & PC_LOCKED)
			*pc_flagsp(pc, i) &= (uint16_t)~PC_LOCKED;
}

/*
 * page_cache_ra_unbounded() via do_page_cache_ra(): order-0 pages over
 * [index, index + nr) clipped to the file, cached ones skipped, the mark on
 * the page @lookahead before the end.
 */
static void do_ra(struct host *h, struct pagecache *pc, uint64_t index,
		  uint64_t nr, uint64_t lookahead, uint64_t req_lo, uint64_t req_hi,
		  struct read_stats *st)
{
	uint64_t i;

	if (index >= pc->npages)
		return;
	if (nr > pc->npages - index)
		nr = pc->npages - index;
	host_nofs_save(h);
	for (i = 0; i < nr; i++)
		if (!resident(pc, index + i) &&
		    !add_folio(h, pc, index + i, 0, lookahead && i == nr - lookahead,
			       req_lo, req_hi, st))
			break;	/* -ENOMEM: the rest is not read ahead */
	host_nofs_restore(h);
	ra_unlock(h, pc, index, index + nr);
}

/*
 * page_cache_ra_order(): the window of ra's size from @start (the
 * readahead control's index) in folios of ra->order at most.
 */
static void ra_order(struct host *h, struct pagecache *pc, struct ra_state *ra,
		     uint64_t start, uint64_t req_lo, uint64_t req_hi,
		     struct read_stats *st)
{
	uint64_t index = start, limit, mark;
	unsigned new_order = ra->order;

	if (start >= pc->npages)
		return;
	limit = pc->npages - 1;
	if (start + ra->size - 1 < limit)
		limit = start + ra->size - 1;
	mark = start + ra->size - ra->async_size;
	if (new_order > MAX_FOLIO_ORDER)
		new_order = MAX_FOLIO_ORDER;
	if (new_order > ilog2_u64(ra->size))
		new_order = ilog2_u64(ra->size);
	ra->order = new_order;
	host_nofs_save(h);
	while (index <= limit) {
		unsigned order = new_order;
		uint64_t n;

		if (index & ((1ULL << order) - 1))
			order = (unsigned)__builtin_ctzll(index);
		while (order > 0 && index + (1ULL << order) - 1 > limit)
			order--;
		n = 1ULL << order;
		if (range_busy(pc, index, n))
			break;	/* -EEXIST: the rest falls back to single pages */
		if (!add_folio(h, pc, index, order, index == (mark & ~(n - 1)),
			       req_lo, req_hi, st))
			break;	/* -ENOMEM: so does it */
		index += n;
	}
	if (index <= limit && ra->size > index - start)
		do_ra(h, pc, index, ra->size - (index - start), ra->async_size,
		      req_lo, req_hi, st);
	host_nofs_restore(h);
	ra_unlock(h, pc, start, limit + 1);
}

/* page_cache_sync_ra(): page @index is missing; @req pages are wanted. */
static void sync_ra(struct host *h, struct pagecache *pc, struct ra_state *ra,
		    uint64_t index, uint64_t req, struct read_stats *st)
{
	uint64_t max = ra->ra_pages, miss, contig;

	if (!max) {
		do_ra(h, pc, index, 1, 0, index, index + 1, st);
		return;
	}
	if (!index || req > max ||
	    (ra->prev_index != UINT64_MAX && index >= ra->prev_index &&
	     index - ra->prev_index <= 1)) {
		ra->start = index;
		ra->size = init_ra_size(req, max);
		ra->async_size = ra->size > req ? ra->size - req : ra->size >> 1;
		goto readit;
	}
	/* cached history a sequential stream leaves behind */
	miss = xa_miss(pc, index - 1, -1, max);
	contig = index - miss - 1;
	if (contig <= req) {
		do_ra(h, pc, index, req, 0, index, index + req, st);
		return;
	}
	if (miss == UINT64_MAX)
		contig *= 2;	/* cached from the start: a long stream */
	ra->start = index;
	ra->size = contig + req < max ? contig + req : max;
	ra->async_size = 1;
readit:
	ra->order = 0;
	ra_order(h, pc, ra, ra->start, index, index + req, st);
}

/*
 * page_cache_async_ra(): a read reached the marked folio at @index (a
 * fault: the page of the folio it touched), @req pages its request, of
 * which @want are wanted now (a fault's request is the whole window).
 */
static void async_ra(struct host *h, struct pagecache *pc, struct ra_state *ra,
		     uint64_t index, uint64_t req, uint64_t want, struct read_stats *st)
{
	uint64_t max = ra->ra_pages, folio = pc_folio_pages(pc, index);
	uint64_t expected, start, align, end, aligned_end;

	*pc_flagsp(pc, pc_folio_head(pc, index)) &= (uint16_t)~PC_RA_MARK;
	if (!max)
		return;
	expected = (ra->start + ra->size - ra->async_size) & ~(folio - 1);
	if (index == expected) {
		uint64_t next = next_ra_size(ra->size, max);

		ra->start += ra->size;
		ra->size = next > ra->size ? next : ra->size;
	} else {
		/* a mark without matching state (interleaved streams) */
		start = xa_miss(pc, index + 1, +1, max);
		if (!start || start - index > max)
			return;
		ra->start = start;
		ra->size = next_ra_size(start - index + req, max);
	}
	ra->order += 2;
	align = 1ULL << (ra->order < (unsigned)__builtin_ctzll(max) ?
			 ra->order : (unsigned)__builtin_ctzll(max));
	end = ra->start + ra->size;
	aligned_end = end & ~(align - 1);
	if (aligned_end > ra->start)
		ra->size -= end - aligned_end;
	ra->async_size = ra->size;
	ra_order(h, pc, ra, ra->start, index, index + want, st);
}

/*
 * modern, filemap_read(): every folio a read meets is marked accessed
 * (folio_mark_accessed(), "if (i > 0)" for each of a batch after the
 * first), the first one too unless the read starts in the folio the last
 * one ended in (pos_same_folio()): so a stream of small sequential reads
 * marks a folio once, and a read across several marks each of them.
 */
static void read_mark_accessed(struct host *h, struct pagecache *pc,
			       const struct ra_state *ra, uint64_t pos, uint64_t i)
{
	unsigned shift = 12 + pc_folio_order(pc, i);

	if (i != pos >> 12 && i != pc_folio_head(pc, i))
		return;		/* not the first page of a folio the read meets */
	if (i == pos >> 12 && ra->prev_pos &&
	    pos >> shift == (ra->prev_pos - 1) >> shift)
		return;
	mark_accessed(h, pc, i);
}

void pagecache_read(struct host *h, struct pagecache *pc, struct ra_state *ra,
		    uint64_t pos, uint64_t len, struct read_stats *st)
{
	uint64_t i, last = (pos + len + 4095) >> 12;
	bool modern = h->policy == RECLAIM_MODERN;
	bool kept = host_lru_kept(h, LRU_ACTIVE);	/* no reclaim: no LRU */

	for (i = pos >> 12; i < last && i < pc->npages; i++) {
		uint64_t head;

		if (!resident(pc, i)) {
			sync_ra(h, pc, ra, i, last - i, st);
			if (!resident(pc, i))	/* nothing read it: a single page */
				add_folio(h, pc, i, 0, false, i, i + 1, st);
		}
		head = pc_folio_head(pc, i);
		if (pc_flags(pc, head) & PC_RA_MARK)
			async_ra(h, pc, ra, head, last - head, last - head, st);
		if (!modern)
			pagecache_touch(h, pc, i);	/* accessed: to the young end */
		else if (kept)
			read_mark_accessed(h, pc, ra, pos, i);
	}
	/* filemap_read() leaves prev_pos at the end of the read */
	ra->prev_index = (pos + len) >> 12;
	ra->prev_pos = pos + len;
}

/* HPAGE_PMD_ORDER: the folio one PMD maps */
#define PMD_ORDER 9

/*
 * filemap_fault() on page @index of a shared mapping the VMM madvised
 * MADV_HUGEPAGE (QEMU does so for each of its RAM blocks, a pmem device's
 * file among them).  A miss reads two PMD folios from the PMD boundary
 * below it, the second marked, whatever the readahead window
 * (do_sync_mmap_readahead(), VM_HUGEPAGE; ra->start is left as it was);
 * a page still missing is read alone.  A hit on a marked folio reads
 * ahead, the file's whole window its request (do_async_mmap_readahead()).
 * As in 6.18, the PMD reads come before the file's mmap_miss count is
 * looked at, so it is not kept (6.19 looks first: a file missed 100 times
 * more than hit is then read a page at a time).
 */
void pagecache_fault(struct host *h, struct pagecache *pc, struct ra_state *ra,
		     uint64_t index, struct read_stats *st)
{
	if (index >= pc->npages)
		return;
	if (!resident(pc, index)) {
		ra->size = 2ULL << PMD_ORDER;
		ra->async_size = 1ULL << PMD_ORDER;
		ra->order = PMD_ORDER;
		ra_order(h, pc, ra, index & ~((1ULL << PMD_ORDER) - 1), index, index + 1, st);
		if (!resident(pc, index))
			add_folio(h, pc, index, 0, false, index, index + 1, st);
		return;
	}
	if (pc_flags(pc, pc_folio_head(pc, index)) & PC_RA_MARK)
		async_ra(h, pc, ra, index, ra->ra_pages, 1, st);
}

void pagecache_write(struct host *h, struct pagecache *pc, uint64_t index,
		     uint64_t nr)
{
	uint64_t i;

	for (i = index; i < index + nr && i < pc->npages; i++) {
		if (!(pc_flags(pc, i) & PC_RESIDENT))
			cache_insert(h, pc, i, 0);
		else if (h->policy != RECLAIM_MODERN)
			pagecache_touch(h, pc, i);
		/* modern: a write does not mark the folio accessed */
	}
}

void pagecache_evict(struct host *h, struct pagecache *pc, uint64_t index)
{
	uint16_t f = pc_flags(pc, index);

	if (f & PC_ACTIVE)
		h->active_file--;
	*pc_flagsp(pc, index) = (uint16_t)(PC_EVICTED | (f & PC_WORKINGSET));
	pc->resident--;
	/* modern: the shadow entry's nonresident age, in the stamp's place */
	*pc_lru_genp(pc, index) = h->policy == RECLAIM_MODERN ? host_age_evict(h, 1) : 0;
	if (pc_mapcount(pc, index))
		h->evicted_mapped++;
	else
		h->evicted_cache++;
	host_release(h, CAT_CACHE, 1);
}
