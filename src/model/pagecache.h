/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pagecache.h - the host page cache of one backing file (a disk image, a
 * copy-on-write layer), shared by every instance whose device names the same
 * backing identity, with Linux's on-demand readahead in front of it.
 */
#ifndef ANONSIM_PAGECACHE_H
#define ANONSIM_PAGECACHE_H

#include <stdint.h>

#include "model/sparse.h"

struct host;

/*
 * Per-page flags of a cached file.  Readahead builds large folios; every
 * page of a folio carries the folio's order, so the head (where the
 * readahead mark lives) is the page index rounded down to the folio size.
 * The `modern` policy's LRU flags (PG_referenced, PG_active) are the
 * folio's too: every page of a folio carries them alike.
 */
enum {
	PC_RESIDENT = 1 << 0,	/* in the host page cache */
	PC_RA_MARK = 1 << 1,	/* PG_readahead (on a folio's head page) */
	PC_EVICTED = 1 << 2,	/* was cached and reclaimed: reading it again is a refault */
	PC_REFERENCED = 1 << 3,	/* PG_referenced: accessed once on its list */
	PC_ORDER_SHIFT = 4,	/* bits 4-7: order of the folio the page belongs to */
	PC_ACTIVE = 1 << 8,	/* PG_active: on the active file list */
	/*
	 * PG_workingset: was active, then deactivated, or came back active
	 * from a refault that had been; an evicted page keeps it in its
	 * shadow (and, under `modern`, the nonresident age at its eviction
	 * in its LRU stamp's place: workingset_eviction())
	 */
	PC_WORKINGSET = 1 << 9,
	/*
	 * PG_locked: read ahead by the readahead call under way, whose reads
	 * are not submitted yet (read_pages() at its end): reclaim, which
	 * cannot lock it, puts it back (filemap_add_folio() sets the lock)
	 */
	PC_LOCKED = 1 << 10,
};

/*
 * The per-page state of 64 pages of a file, as one xarray node's slots.
 * The LRU stamp sits beside the flags, allocated with them whether or not
 * the host has a limit: a limit ages pages, it should not add state (the
 * kernel's struct page carries its lru links either way).  In the kernel
 * the slot holds the shadow entry of an evicted page, so the stamp of an
 * evicted page lives on too (its nonresident age, pagecache_evict()).
 */
struct pc_leaf {
	uint32_t lru_gen[SPARSE_SLOTS];	/* see host.h: LRU position stamp */
	uint16_t flags[SPARSE_SLOTS];	/* PC_* */
};

struct pagecache {
	unsigned id;			/* index in the host's table */
	char ident[256];		/* backing identity from the trace header */
	uint64_t npages;		/* file size in pages */
	/* per page, allocated by the 64 (sparse.h); read through pc_*() */
	struct sparse pages;		/* struct pc_leaf */
	struct sparse mapcount;		/* uint32_t[SPARSE_SLOTS]: instance pages mapping it (ubd-mmap) */
	uint64_t resident;		/* pages with PC_RESIDENT */
};

static inline uint16_t pc_flags(const struct pagecache *pc, uint64_t i)
{
	const struct pc_leaf *l = sparse_peek(&pc->pages, SPARSE_LEAF(i));

	return l ? l->flags[SPARSE_SLOT(i)] : 0;
}

static inline uint16_t *pc_flagsp(struct pagecache *pc, uint64_t i)
{
	struct pc_leaf *l = sparse_leaf(&pc->pages, SPARSE_LEAF(i));

	return &l->flags[SPARSE_SLOT(i)];
}

static inline uint32_t pc_mapcount(const struct pagecache *pc, uint64_t i)
{
	const uint32_t *l = sparse_peek(&pc->mapcount, SPARSE_LEAF(i));

	return l ? l[SPARSE_SLOT(i)] : 0;
}

static inline uint32_t *pc_mapcountp(struct pagecache *pc, uint64_t i)
{
	uint32_t *l = sparse_leaf(&pc->mapcount, SPARSE_LEAF(i));

	return &l[SPARSE_SLOT(i)];
}

static inline uint32_t *pc_lru_genp(struct pagecache *pc, uint64_t i)
{
	struct pc_leaf *l = sparse_leaf(&pc->pages, SPARSE_LEAF(i));

	return &l->lru_gen[SPARSE_SLOT(i)];
}

/* The first page from @i on whose leaf was ever written, or pc->npages: walks skip the rest. */
static inline uint64_t pc_next(const struct pagecache *pc, uint64_t i)
{
	uint64_t k = i < pc->npages ? sparse_next(&pc->pages, SPARSE_LEAF(i)) : pc->pages.nr_leaves;

	if (k >= pc->pages.nr_leaves)
		return pc->npages;
	return k == SPARSE_LEAF(i) ? i : k << SPARSE_SHIFT;
}

/* Readahead state of one open file (struct file_ra_state). */
struct ra_state {
	uint64_t start, size, async_size;
	unsigned order;			/* folio order of the last window */
	uint64_t prev_index;		/* page of prev_pos (end of the last read); UINT64_MAX: none */
	uint64_t prev_pos;		/* prev_pos itself, in bytes; 0: none */
	uint64_t ra_pages;		/* window: read_ahead_kb / 4; 0 disables */
};

/* Where the pages a read brought in came from, for the report. */
struct read_stats {
	uint64_t demand;		/* pages the guest asked for, read from disk */
	uint64_t readahead;		/* pages read ahead of the guest */
	uint64_t refaults;		/* pages read again after reclaim evicted them */
};

void ra_state_init(struct ra_state *ra, uint64_t ra_pages);

void pagecache_init(struct pagecache *pc, unsigned id, const char *ident,
		    uint64_t npages);
void pagecache_destroy(struct pagecache *pc);

/*
 * A buffered read of @len bytes at @pos through @ra, as filemap_read does:
 * synchronous readahead on a miss, asynchronous on a marked folio.  Brings
 * the pages into the cache (charging the host) and counts them.
 */
void pagecache_read(struct host *h, struct pagecache *pc, struct ra_state *ra,
		    uint64_t pos, uint64_t len, struct read_stats *st);

/*
 * A fault on page @index of a mapping madvised MADV_HUGEPAGE (a VMM's
 * window on a pmem file): a miss reads the two PMD-sized folios from the
 * PMD below it, a marked folio reads ahead.  The caller maps the folio.
 */
void pagecache_fault(struct host *h, struct pagecache *pc, struct ra_state *ra,
		     uint64_t index, struct read_stats *st);

/*
 * Page @i was used (`2.4`), entered the cache, or moved between mapped and
 * unmapped: put it at the young end of the LRU list it now belongs to.
 * Under `modern` an active page stays where it is: one active list holds
 * mapped and unmapped pages alike.
 */
void pagecache_touch(struct host *h, struct pagecache *pc, uint64_t i);

/* A write of [index, index + nr): the pages become (clean, after writeback) cached. */
void pagecache_write(struct host *h, struct pagecache *pc, uint64_t index,
		     uint64_t nr);

/*
 * Drop page @index from the cache (reclaim).  A mapped page keeps its
 * mappings: the instance that touches it next reads it back (a refault).
 */
void pagecache_evict(struct host *h, struct pagecache *pc, uint64_t index);

/* `modern`: the folio of page @i, on the active list, goes to the inactive one. */
void pagecache_deactivate(struct host *h, struct pagecache *pc, uint64_t i);

/* The first page and the number of pages of the folio holding page @i. */
static inline unsigned pc_folio_order(const struct pagecache *pc, uint64_t i)
{
	return pc_flags(pc, i) >> PC_ORDER_SHIFT & 0xf;
}

static inline uint64_t pc_folio_pages(const struct pagecache *pc, uint64_t i)
{
	return 1ULL << pc_folio_order(pc, i);
}

static inline uint64_t pc_folio_head(const struct pagecache *pc, uint64_t i)
{
	return i & ~(pc_folio_pages(pc, i) - 1);
}

#endif
