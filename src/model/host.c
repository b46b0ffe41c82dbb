/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host.c - host memory accounting, the swap device and reclaim.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/host.h"
#include "util/xalloc.h"

const char *const mem_cat_names[CAT_NR] = {
	[CAT_TMPFS] = "tmpfs",
	[CAT_CACHE] = "cache",
	[CAT_SWAP_TABLE] = "swap-table",
	[CAT_MAP_TABLE] = "map-table",
	[CAT_OVERHEAD] = "overhead",
};

static void host_swap_free_cb(void *arg, swp_entry_t entry)
{
	host_swap_free(arg, entry.val);
}

void host_init(struct host *h, uint64_t mem_pages, uint64_t swap_pages,
	       enum reclaim_policy policy, const struct shmem_geom *geom)
{
	memset(h, 0, sizeof(*h));
	h->mem_pages = mem_pages;
	h->swap_pages = swap_pages;
	h->policy = policy;
	h->first_swap_out_us = -1;
	h->gen = 1;
	h->geom = geom;
	if (swap_pages)
		h->swap_map = xcalloc((swap_pages + 63) / 64, sizeof(uint64_t),
				      "the map of swap slots");
	kapi_ctx_init(&h->kctx, geom);
	h->kctx.swap_free = host_swap_free_cb;
	h->kctx.swap_arg = h;
	kapi_set_current(&h->kctx);
}

void host_destroy(struct host *h)
{
	unsigned i;

	for (i = 0; i < h->nr_caches; i++) {
		pagecache_destroy(h->caches[i]);
		free(h->caches[i]);
	}
	free(h->caches);
	for (i = 0; i < LRU_NR; i++)
		free(h->lru[i].v);
	free(h->swap_map);
	free(h->owners);
	kapi_ctx_destroy(&h->kctx);
	if (kapi_current() == &h->kctx)
		kapi_set_current(NULL);
}

struct pagecache *host_cache(struct host *h, const char *ident, uint64_t npages)
{
	struct pagecache *pc;
	unsigned i;

	for (i = 0; i < h->nr_caches; i++)
		if (!strcmp(h->caches[i]->ident, ident)) {
			pc = h->caches[i];
			return pc->npages >= npages ? pc : NULL;
		}
	if (h->nr_caches >= UINT16_MAX)
		return NULL;
	h->caches = xrealloc(h->caches, (h->nr_caches + 1) * sizeof(*h->caches),
			     "the list of page caches");
	pc = xmalloc(sizeof(*pc), "a page cache");
	pagecache_init(pc, h->nr_caches, ident, npages);
	h->caches[h->nr_caches++] = pc;
	return pc;
}

uint64_t host_total(const struct host *h)
{
	uint64_t t = 0;
	int c;

	for (c = 0; c < CAT_NR; c++)
		t += h->pages[c];
	return t;
}

static void note_peaks(struct host *h)
{
	uint64_t t = host_total(h);
	int c;

	for (c = 0; c < CAT_NR; c++)
		if (h->pages[c] > h->peak[c])
			h->peak[c] = h->pages[c];
	if (t > h->peak_total)
		h->peak_total = t;
}

void host_charge(struct host *h, enum mem_cat cat, uint64_t n)
{
	h->pages[cat] += n;
	host_balance(h);
	note_peaks(h);
}

void host_release(struct host *h, enum mem_cat cat, uint64_t n)
{
	h->pages[cat] -= n;
}

void host_sync_tables(struct host *h)
{
	uint64_t st = h->kctx.held[KAPI_PAGE_SWAP_TABLE];
	uint64_t mt = h->kctx.held[KAPI_PAGE_MAP_TABLE];

	if (st == h->pages[CAT_SWAP_TABLE] && mt == h->pages[CAT_MAP_TABLE])
		return;
	h->pages[CAT_SWAP_TABLE] = st;
	h->pages[CAT_MAP_TABLE] = mt;
	host_balance(h);
	note_peaks(h);
}

/* --- LRU queues --------------------------------------------------------- */

/* The stamp of an owner's resident tmpfs page; NULL if gone or not resident. */
static uint32_t *owner_lru_gen(struct host *h, uint32_t owner, uint32_t page)
{
	const struct tmpfs_owner *o = &h->owners[owner];

	return o->priv ? o->ops->lru_gen(o->priv, page) : NULL;
}

void host_lru_add(struct host *h, enum lru_list l, uint32_t owner,
		  uint32_t page, uint32_t *gen_slot)
{
	struct lru_queue *q = &h->lru[l];

	if (!host_lru_kept(h, l))
		return;
	if (q->tail == q->cap) {
		/* compact: keep only entries still current, then grow if needed */
		size_t i, n = 0;

		for (i = q->head; i < q->tail; i++) {
			struct lru_entry *e = &q->v[i];
			const uint32_t *cur = NULL;

			if (l != LRU_TMPFS)
				cur = pc_lru_genp(h->caches[e->owner], e->page);
			else
				cur = owner_lru_gen(h, e->owner, e->page);
			if (cur && *cur == e->gen)
				q->v[n++] = *e;
		}
		q->head = 0;
		q->tail = n;
		if (n * 2 >= q->cap) {
			size_t cap = q->cap ? q->cap * 2 : 4096;
			q->v = xrealloc(q->v, cap * sizeof(*q->v), "a reclaim list");
			q->cap = cap;
		}
	}
	*gen_slot = h->gen;
	q->v[q->tail++] = (struct lru_entry){ owner, page, h->gen };
	h->gen++;
}

/* The oldest current entry of a queue, or NULL; stale heads are dropped. */
static struct lru_entry *lru_head(struct host *h, enum lru_list l)
{
	struct lru_queue *q = &h->lru[l];

	while (q->head < q->tail) {
		struct lru_entry *e = &q->v[q->head];

		if (l == LRU_TMPFS) {
			const uint32_t *cur = owner_lru_gen(h, e->owner, e->page);

			if (cur && *cur == e->gen)
				return e;
		} else {
			struct pagecache *pc = h->caches[e->owner];
			bool mapped = pc_mapcount(pc, e->page) != 0;

			if (*pc_lru_genp(pc, e->page) == e->gen &&
			    (pc_flags(pc, e->page) & PC_RESIDENT) &&
			    mapped == (l == LRU_MAPPED))
				return e;
		}
		q->head++;
	}
	return NULL;
}

static bool evict_cache(struct host *h, enum lru_list l)
{
	struct lru_entry *e = lru_head(h, l);

	if (!e)
		return false;
	h->lru[l].head++;
	pagecache_evict(h, h->caches[e->owner], e->page);
	return true;
}

static bool swap_out_one(struct host *h)
{
	struct lru_entry *e;

	while ((e = lru_head(h, LRU_TMPFS))) {
		struct lru_entry v = *e;
		const struct tmpfs_owner *o = &h->owners[v.owner];

		h->lru[LRU_TMPFS].head++;
		if (o->ops->swap_out(o->priv, v.page))
			return true;
		if (h->swap_used >= h->swap_pages)
			return false;	/* swap full: nothing more to do */
	}
	return false;
}

/* 2.4: whichever of the oldest cache page and the oldest tmpfs page is older. */
static bool reclaim_24(struct host *h)
{
	struct lru_entry *c = lru_head(h, LRU_CACHE);
	struct lru_entry *m = lru_head(h, LRU_MAPPED);
	struct lru_entry *t = lru_head(h, LRU_TMPFS);
	struct lru_entry *oldest = c;
	enum lru_list l = LRU_CACHE;

	if (m && (!oldest || m->gen < oldest->gen)) {
		oldest = m;
		l = LRU_MAPPED;
	}
	if (t && h->swap_used < h->swap_pages && (!oldest || t->gen < oldest->gen))
		return swap_out_one(h) || evict_cache(h, LRU_CACHE) ||
		       evict_cache(h, LRU_MAPPED);
	return oldest ? evict_cache(h, l) : false;
}

static bool reclaim_modern(struct host *h)
{
	return evict_cache(h, LRU_CACHE) || evict_cache(h, LRU_MAPPED) ||
	       (h->swap_used < h->swap_pages && swap_out_one(h));
}

void host_balance(struct host *h)
{
	uint64_t before;

	if (!h->mem_pages || h->balancing)	/* unlimited, or already reclaiming */
		return;
	h->balancing = 1;
	while (host_total(h) > h->mem_pages) {
		before = host_total(h);
		if (!(h->policy == RECLAIM_24 ? reclaim_24(h) : reclaim_modern(h))) {
			h->oom_pages = h->oom_pages > before - h->mem_pages ?
				       h->oom_pages : before - h->mem_pages;
			break;
		}
	}
	h->balancing = 0;
}

/* --- swap device ---------------------------------------------------------- */

uint64_t host_swap_alloc(struct host *h)
{
	uint64_t i, n = h->swap_pages;

	if (h->swap_used >= n)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t s = (h->swap_hint + i) % n;

		if (!(h->swap_map[s / 64] & (1ULL << (s % 64)))) {
			h->swap_map[s / 64] |= 1ULL << (s % 64);
			h->swap_used++;
			if (h->swap_used > h->swap_peak)
				h->swap_peak = h->swap_used;
			h->swap_hint = s + 1;
			return s + 1;
		}
	}
	return 0;
}

void host_swap_free(struct host *h, uint64_t slot)
{
	uint64_t s = slot - 1;

	if (!slot || s >= h->swap_pages ||
	    !(h->swap_map[s / 64] & (1ULL << (s % 64)))) {
		h->kctx.bad_frees++;	/* a swap entry freed twice or never taken */
		return;
	}
	h->swap_map[s / 64] &= ~(1ULL << (s % 64));
	h->swap_used--;
}
