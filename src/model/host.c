/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host.c - host memory accounting, the swap device and reclaim.
 *
 * host.c and pagecache.c call each other, the one circle the tree allows
 * (tests/layout/include_layers.sh): a page-cache insertion charges the host,
 * the charge can reclaim, and reclaim evicts page cache, as in the kernel
 * (filemap_add_folio -> mem_cgroup_charge -> try_to_free_pages -> shrink_folio_list).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/host.h"
#include "util/names.h"
#include "util/xalloc.h"

const char *const mem_cat_names[CAT_NR] = {
	[CAT_TMPFS] = "tmpfs",
	[CAT_CACHE] = "cache",
	[CAT_SWAP_TABLE] = "swap-table",
	[CAT_MAP_TABLE] = "map-table",
	[CAT_OVERHEAD] = "overhead",
};

const char *const reclaim_policy_names[] = {
	[RECLAIM_MODERN] = "modern",
	[RECLAIM_24] = "2.4",
	NULL
};

int reclaim_policy_find(const char *name, enum reclaim_policy *out)
{
	int i = names_find(reclaim_policy_names, name);

	if (i < 0)
		return -1;
	*out = (enum reclaim_policy)i;
	return 0;
}

const struct shmem_geom *const shmem_geoms[] = {
	&shmem_geom_x86_64,
	&shmem_geom_i386,
	NULL
};

const struct shmem_geom *shmem_geom_find(const char *name)
{
	const struct shmem_geom *const *g;

	for (g = shmem_geoms; *g; g++)
		if (!strcmp((*g)->name, name))
			return *g;
	return NULL;
}

char *shmem_geom_names(char *buf, size_t len)
{
	const char *names[sizeof(shmem_geoms) / sizeof(shmem_geoms[0])];
	size_t i;

	for (i = 0; shmem_geoms[i]; i++)
		names[i] = shmem_geoms[i]->name;
	names[i] = NULL;
	return names_or(names, buf, len);
}

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
	h->stats.at_us = -1;
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
	free(h->wb);
	free(h->swap_map);
	free(h->owners);
	kapi_ctx_destroy(&h->kctx);
	if (kapi_current() == &h->kctx)
		kapi_set_current(NULL);
}

void host_set_instances(struct host *h, unsigned n, uint64_t overhead_pages,
			uint64_t overhead_anon_pages)
{
	h->overhead_pages = overhead_pages;
	h->overhead_anon_pages = overhead_anon_pages;
	h->owners = xcalloc(n, sizeof(*h->owners), "the host's list of instances");
	h->nr_owners = n;
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

static void note_peaks(struct host *h)
{
	int c;

	for (c = 0; c < CAT_NR; c++)
		if (h->pages[c] > h->peak[c])
			h->peak[c] = h->pages[c];
	if (h->total > h->peak_total)
		h->peak_total = h->total;
}

void host_sync_tables_changed(struct host *h)
{
	uint64_t st = h->kctx.held[KAPI_PAGE_SWAP_TABLE];
	uint64_t mt = h->kctx.held[KAPI_PAGE_MAP_TABLE];

	h->total += st + mt - h->pages[CAT_SWAP_TABLE] - h->pages[CAT_MAP_TABLE];
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

			if (!lru_is_anon(l))
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

/*
 * The oldest current entry of a queue, or NULL; stale heads are dropped.
 * Of an anonymous list, *@slot is the page's stamp, which the caller
 * that puts the page back on a list writes again (NULL: not wanted).
 */
static struct lru_entry *lru_head_slot(struct host *h, enum lru_list l, uint32_t **slot)
{
	struct lru_queue *q = &h->lru[l];

	while (q->head < q->tail) {
		struct lru_entry *e = &q->v[q->head];

		if (lru_is_anon(l)) {
			uint32_t *cur = owner_lru_gen(h, e->owner, e->page);

			if (cur && *cur == e->gen) {
				if (slot)
					*slot = cur;
				return e;
			}
		} else {
			struct pagecache *pc = h->caches[e->owner];
			uint16_t f = pc_flags(pc, e->page);

			if (*pc_lru_genp(pc, e->page) == e->gen && (f & PC_RESIDENT) &&
			    (l == LRU_ACTIVE ||
			     (pc_mapcount(pc, e->page) != 0) == (l == LRU_MAPPED)))
				return e;
		}
		q->head++;
	}
	return NULL;
}

static struct lru_entry *lru_head(struct host *h, enum lru_list l)
{
	return lru_head_slot(h, l, NULL);
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

/* --- modern: the swap cache ----------------------------------------------
 *
 * shrink_folio_list() writes a swap-backed folio out (pageout() ->
 * shmem_writeout() -> swap_writepage()) and keeps it: it stays in memory,
 * in the swap cache, until its writeback ends.  Then it is freed the next
 * time reclaim looks: folio_end_writeback() rotates it to the tail of the
 * inactive list (folio_rotate_reclaimable()), or the batch that wrote it,
 * still isolated, retries it (find_folios_written_back(), 6.14).  A
 * reclaim that writes thus frees what it wrote only once the writes have
 * ended, and the pages it frees meanwhile are the ones earlier reclaims
 * wrote: the kernel's reclaims traced one by one show both (README, "Swap
 * writes that end later").
 *
 * How long a write takes is counted on the model's clock: the trace's time
 * and, within an event, the pages reclaim scans, SCAN_NS_PER_PAGE each.
 * On this host (bench/reclaim_trace.sh --latency, the 64M boot, six in
 * 128 MiB) the swap file's writes take 194 us from submission to
 * completion (median of 976; 90 % within 415 us), and the reclaims that
 * write 50 pages or more 2.19 us a page scanned (median of 97).  The
 * model waits longer, SWAP_WRITE_US: its clock stops between the charges
 * of one event, where the kernel's runs on through the copying and the
 * faults of the read or write that charges.  That wait is fitted on the
 * fit half's reclaim traces (bench/results/reclaim-trace): the per-kind
 * sums of three kernel runs of boot64-128-6-rc are met within a
 * root-mean-square log error of 0.62 at 194 us, 0.22 at 700 and 1000 us,
 * where each kernel run against the three runs' mean is off by
 * 0.16-0.35.  Between 400 and 2000 us the fit half's end figures move up
 * and down by a few configurations, with no trend (README, "Swap writes
 * that end later", has the table).
 *
 * The device writes one page at a time behind another, SWAP_PAGE_NS
 * each: a write ends no sooner than SWAP_PAGE_NS after the one before it.
 * A burst of writes outruns the device (a reclaim scans a page in about
 * 2 us and may write every one), and its last writes end milliseconds
 * after it.  Measured on this host (bench/reclaim_trace.sh --latency, the
 * same boot; bench/results/reclaim-trace/lat2-boot64-128-6-rc): in the
 * six bursts of 700 pages or more written, 3.11, 3.30, 3.46, 3.59, 3.87
 * and 6.67 us a page from the first write's completion to the last's:
 * SWAP_PAGE_NS is the lower of the middle two (latency.txt prints the
 * upper); one dd of 1 MiB direct writes to the same file system went at
 * 3.2 us a page.
 */
#define SCAN_NS_PER_PAGE 2190
#define SWAP_WRITE_US 1000
#define SWAP_PAGE_NS 3460

/* The model's clock: trace time, and within an event the pages reclaim scans. */
static uint64_t wb_clock_ns(const struct host *h)
{
	return h->now_us * 1000 + h->reclaim_work * SCAN_NS_PER_PAGE;
}

/* The page leaves the instance for the swap cache: charged again, kept. */
static void swapcache_add(struct host *h, uint32_t owner, uint32_t page,
			  enum mem_cat cat)
{
	uint64_t done = wb_clock_ns(h) + SWAP_WRITE_US * 1000;

	if (done < h->wb_free_ns + SWAP_PAGE_NS)
		done = h->wb_free_ns + SWAP_PAGE_NS;	/* the device is busy */
	h->wb_free_ns = done;
	if (h->wb_nr == h->wb_cap) {
		h->wb_cap = h->wb_cap ? h->wb_cap * 2 : 256;
		h->wb = xrealloc(h->wb, h->wb_cap * sizeof(*h->wb), "the swap cache");
	}
	h->wb[h->wb_nr++] = (struct swapcache_page){ owner, page, (uint8_t)cat, done };
	h->pages[cat]++;
	h->total++;
	if (cat == CAT_OVERHEAD)
		h->host_anon++;
}

/* folio_end_writeback() of each write whose end has come on the model's clock */
static void swapcache_writeback_end(struct host *h)
{
	uint64_t now = wb_clock_ns(h);
	size_t i;

	for (i = h->wb_done; i < h->wb_nr; i++) {
		const struct swapcache_page *w = &h->wb[i];

		if (now >= w->done_ns) {
			struct swapcache_page t = *w;

			h->wb[i] = h->wb[h->wb_done];
			h->wb[h->wb_done++] = t;
		}
	}
}

/* Entry @i leaves the swap cache; its charge stays with the caller. */
static void swapcache_remove(struct host *h, size_t i)
{
	/* keep the written ones before those under writeback */
	if (i < h->wb_done) {
		h->wb[i] = h->wb[--h->wb_done];
		i = h->wb_done;
	}
	h->wb[i] = h->wb[--h->wb_nr];
}

/* Entry @i leaves the swap cache and memory. */
static void swapcache_del(struct host *h, size_t i)
{
	enum mem_cat cat = (enum mem_cat)h->wb[i].cat;

	if (cat == CAT_OVERHEAD)
		h->host_anon--;
	host_release(h, cat, 1);
	swapcache_remove(h, i);
}

/*
 * Entry @i, its writeback ended, is freed: a tmpfs page leaves its shadow
 * (workingset_eviction() from __remove_mapping()), aging the workingset.
 */
static void swapcache_evict(struct host *h, size_t i)
{
	uint32_t eviction = host_age_evict(h, 1);
	const struct swapcache_page *w = &h->wb[i];
	const struct tmpfs_owner *o = &h->owners[w->owner];

	if (w->cat == CAT_TMPFS && o->priv)
		o->ops->evicted(o->priv, w->page, eviction);
	swapcache_del(h, i);
}

bool host_swapcache_take(struct host *h, uint32_t owner, uint32_t page)
{
	size_t i;

	for (i = 0; i < h->wb_nr; i++)
		if (h->wb[i].owner == owner && h->wb[i].page == page) {
			/* swapin: back in the file, on the charge it kept */
			swapcache_remove(h, i);
			return true;
		}
	return false;
}

void host_swapcache_forget(struct host *h, uint32_t owner)
{
	size_t i = h->wb_nr;

	while (i-- > 0)
		if (h->wb[i].owner == owner)
			swapcache_del(h, i);
}

/*
 * modern: look at the oldest anonymous page.  A written one whose
 * writeback has ended is freed (its shadow ages the workingset, as
 * __remove_mapping() -> workingset_eviction() does).  One used since
 * reclaim last looked (its pte young, as every page is after its first
 * fault) goes round again; any other is written to swap.  With none left
 * on the list, it waits for a write to end.  Returns 2 freed, 1 written,
 * 0 rotated, -1 none.
 */
static int scan_anon(struct host *h)
{
	struct lru_entry *e;
	uint32_t *slot;

	if (h->wb_done) {
		swapcache_evict(h, 0);
		return 2;
	}
	while (h->swap_used < h->swap_pages && (e = lru_head_slot(h, LRU_TMPFS, &slot))) {
		struct lru_entry v = *e;
		const struct tmpfs_owner *o = &h->owners[v.owner];
		enum folio_ref ref;

		h->lru[LRU_TMPFS].head++;
		ref = o->ops->references(o->priv, v.page);
		if (ref == FOLIOREF_ACTIVATE) {
			h->active_anon++;
			host_lru_add(h, LRU_ACTIVE_ANON, v.owner, v.page, slot);
			return 0;
		}
		if (ref == FOLIOREF_KEEP ||
		    (h->nofs && o->ops->is_tmpfs(o->priv, v.page))) {
			host_lru_add(h, LRU_TMPFS, v.owner, v.page, slot);
			return 0;
		}
		if (o->ops->swap_out(o->priv, v.page)) {
			bool tmpfs = o->ops->is_tmpfs(o->priv, v.page);

			swapcache_add(h, v.owner, v.page, tmpfs ? CAT_TMPFS : CAT_OVERHEAD);
			return 1;
		}
	}
	/*
	 * The list scanned to its end: reclaim meets the pages it wrote, at
	 * the head, and a cgroup v1 reclaim waits for a write to end
	 * (shrink_folio_list(), case 3: folio_wait_writeback())
	 */
	if (h->swap_used < h->swap_pages && h->wb_nr > h->wb_done) {
		h->wb_done++;
		swapcache_evict(h, 0);
		return 2;
	}
	return -1;
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

/* --- modern: Linux 6.x, mm/vmscan.c, mm/swap.c and mm/workingset.c --------
 *
 * Page cache enters the inactive file list; a second access to a folio
 * moves it to the active list (pagecache.c), and so does a refault within
 * the workingset's size (workingset_refault()).  The active list is
 * scanned only while it outgrows the inactive one (inactive_is_low()) or
 * file refaults came back active since the last reclaim, and the inactive
 * file list alone while it is large and neither holds (cache_trim_mode);
 * otherwise tmpfs (anon, swap-backed) and file lists are scanned in the
 * proportion get_scan_count() takes from swappiness 60 and the cost of
 * reclaiming each kind: swap-outs and rotations for anon, refaults of
 * pages that had been active for file.  A tmpfs page used since reclaim
 * last looked goes round once more; one reclaim may not write (a
 * readahead's, memalloc_nofs_save()) goes round too; a written one stays
 * in the swap cache until its writeback ends.  The kernel's counters of
 * these events, measured on Linux 6.18 beside the model's, are in the
 * README ("Under pressure").
 */

#define SWAP_CLUSTER_MAX 32
#define DEF_PRIORITY 12
#define SWAPPINESS 60		/* vm.swappiness and memory.swappiness here */
#define MAX_SWAPPINESS 200

static uint64_t inactive_file(const struct host *h)
{
	return h->pages[CAT_CACHE] - h->active_file;
}

/*
 * lru_note_cost(): what reclaiming a kind costs, IO weighed 32 times a
 * rotation, both halved whenever they outgrow a quarter of the LRU.
 */
static void note_cost(struct host *h, bool file, uint64_t nr_io, uint64_t nr_rotated)
{
	uint64_t lru = h->pages[CAT_CACHE] + h->pages[CAT_TMPFS] + h->host_anon;

	*(file ? &h->file_cost : &h->anon_cost) += nr_io * SWAP_CLUSTER_MAX + nr_rotated;
	if (h->file_cost + h->anon_cost > lru / 4) {
		h->file_cost /= 2;
		h->anon_cost /= 2;
	}
}

/* An activation ages the shadows as an eviction does (workingset_activation()). */
void host_note_activate(struct host *h, uint64_t nr)
{
	h->active_file += nr;
	h->nonresident_age += (uint32_t)nr;
}

/* FLUSH_TIME: 2 * HZ */
#define STATS_FLUSH_US 2000000

/*
 * The statistics reclaim reads, flushed when they are 2 s old.  The
 * kernel's flusher runs every 2 s of wall-clock time, unaligned with the
 * trace's clock: the model flushes at the first reclaim 2 s after the
 * last flush (mem_cgroup_flush_stats_ratelimited() in
 * prepare_scan_control()), so that statistics a reclaim reads are 0 to
 * 2 s old, as the kernel's are.  A flush at fixed 2 s ticks of trace time
 * instead met the fitted half less well (density 13 of 15 against 14,
 * swap 11 against 13).
 */
static void stats_flush(struct host *h)
{
	if (h->stats.at_us >= 0 && (int64_t)h->now_us - h->stats.at_us < STATS_FLUSH_US)
		return;
	h->stats.at_us = (int64_t)h->now_us;
	h->stats.inactive_file = inactive_file(h);
	h->stats.active_file = h->active_file;
	h->stats.anon = h->pages[CAT_TMPFS] + h->host_anon;
	h->stats.active_anon = h->active_anon;
	h->stats.refault_activations = h->refault_activations;
	h->stats.anon_refault_activations = h->anon_refault_activations;
}

/*
 * workingset_test_recent() for a file page: the evictions and activations
 * since it left, against what could have held it: the active file list
 * and, while swap has room, the anonymous pages; on the statistics as
 * last flushed (mem_cgroup_flush_stats_ratelimited()).
 */
bool host_refault_recent(struct host *h, uint32_t eviction)
{
	uint32_t distance = h->nonresident_age - eviction;
	uint64_t size;

	stats_flush(h);
	size = h->stats.active_file;
	if (h->swap_used < h->swap_pages)
		size += h->stats.anon;
	return distance <= size;
}

/*
 * workingset_refault() of a swapped-in page: workingset_test_recent()
 * against the file lists and, while swap has room, the active anonymous
 * list; a page back within it is activated, ages the workingset, and if
 * it was active before (restored) charges the anonymous list's cost.
 */
bool host_anon_refault(struct host *h, uint32_t eviction, bool workingset)
{
	uint32_t distance = h->nonresident_age - eviction;
	uint64_t size;

	stats_flush(h);
	size = h->stats.active_file + h->stats.inactive_file;
	if (h->swap_used < h->swap_pages)
		size += h->stats.active_anon;
	if (distance > size)
		return false;
	h->active_anon++;
	h->nonresident_age++;
	h->anon_refault_activations++;
	if (workingset)
		note_cost(h, false, 1, 0);
	return true;
}

/* workingset_refault(): a restored page charges the file list's cost. */
void host_note_restore(struct host *h, uint64_t nr)
{
	note_cost(h, true, nr, 0);
}

/* inactive_is_low(): inactive * int_sqrt(10 * GB of the lists) < active. */
static bool inactive_is_low(uint64_t inactive, uint64_t active)
{
	uint64_t gb = (inactive + active) >> 18, ratio = 1;

	if (gb)
		while ((ratio + 1) * (ratio + 1) <= 10 * gb)
			ratio++;
	return inactive * ratio < active;
}

/* The file lists' inactive_is_low(), on the statistics of the last flush. */
static bool inactive_file_is_low(const struct host *h)
{
	return inactive_is_low(h->stats.inactive_file, h->stats.active_file);
}

/*
 * Reclaim the oldest inactive file folio, whole: unmapped page cache
 * first, then mapped.  A folio a readahead under way holds locked goes
 * back to the young end (shrink_folio_list(): folio_trylock() fails).
 * Returns the pages freed; *@scanned the pages looked at (0: none left).
 */
static uint64_t evict_folio(struct host *h, uint64_t *scanned)
{
	enum lru_list l = LRU_CACHE;
	struct lru_entry *e = lru_head(h, l);
	struct pagecache *pc;
	uint64_t head, i, n, freed = 0;

	*scanned = 0;
	if (!e) {
		l = LRU_MAPPED;
		e = lru_head(h, l);
	}
	if (!e)
		return 0;
	pc = h->caches[e->owner];
	head = pc_folio_head(pc, e->page);
	n = pc_folio_pages(pc, e->page);
	if (pc_flags(pc, head) & PC_LOCKED) {
		for (i = head; i < head + n; i++)
			if ((pc_flags(pc, i) & (PC_RESIDENT | PC_ACTIVE)) == PC_RESIDENT)
				pagecache_touch(h, pc, i);
		*scanned = n;
		return 0;
	}
	for (i = head; i < head + n; i++)
		if ((pc_flags(pc, i) & (PC_RESIDENT | PC_ACTIVE)) == PC_RESIDENT &&
		    (pc_mapcount(pc, i) != 0) == (l == LRU_MAPPED)) {
			pagecache_evict(h, pc, i);
			freed++;
		}
	*scanned = freed;
	return freed;
}

/* shrink_active_list() on file pages: @nr pages (whole folios) go inactive. */
static void deactivate_file(struct host *h, uint64_t nr)
{
	uint64_t done = 0;
	struct lru_entry *e;

	while (done < nr && (e = lru_head(h, LRU_ACTIVE))) {
		struct pagecache *pc = h->caches[e->owner];
		uint64_t before = h->active_file;

		pagecache_deactivate(h, pc, e->page);
		done += before - h->active_file;
	}
	h->tally.deactivated += done;
}

/*
 * shrink_active_list() on anonymous pages: @nr go inactive, to the young
 * end of the inactive list; referenced or not, none stays active.
 */
static void deactivate_anon(struct host *h, uint64_t nr)
{
	uint64_t done = 0;
	struct lru_entry *e;

	uint32_t *slot;

	while (done < nr && (e = lru_head_slot(h, LRU_ACTIVE_ANON, &slot))) {
		struct lru_entry v = *e;
		const struct tmpfs_owner *o = &h->owners[v.owner];

		h->lru[LRU_ACTIVE_ANON].head++;
		o->ops->deactivate(o->priv, v.page);
		host_lru_add(h, LRU_TMPFS, v.owner, v.page, slot);
		h->active_anon--;
		done++;
	}
}

/* The anonymous lists' inactive_is_low(), on the statistics of the last flush. */
static bool inactive_anon_is_low(const struct host *h)
{
	return inactive_is_low(h->stats.anon - h->stats.active_anon, h->stats.active_anon);
}

/* shrink_inactive_list(): scan @nr pages of a kind; returns pages freed. */
static uint64_t shrink_inactive(struct host *h, bool file, uint64_t nr)
{
	uint64_t scanned = 0, freed = 0, written = 0;

	/*
	 * lru_add_drain(): the pages whose writes have ended since wait at
	 * the tail of the list
	 */
	if (!file)
		swapcache_writeback_end(h);
	while (scanned < nr) {
		uint64_t n;

		if (file) {
			uint64_t looked;

			n = evict_folio(h, &looked);
			if (!looked)
				break;
			scanned += looked;
			freed += n;
			continue;
		}
		switch (scan_anon(h)) {
		case -1:
			scanned = nr;	/* nothing left to scan */
			break;
		case 2:
			freed++;
			scanned++;
			break;
		case 1:
			written++;
			/* fall through */
		default:
			scanned++;
		}
	}
	h->reclaim_work += scanned;
	if (file) {
		h->tally.file_freed += freed;
	} else {
		h->tally.anon_scanned += scanned;
		h->tally.anon_written += written;
		h->tally.anon_freed += freed;
	}
	/* a swap-out is IO; a clean file page is not; a written one is kept */
	note_cost(h, file, written, scanned - freed);
	return freed;
}

/* The lists get_scan_count() sizes, in the kernel's order (enum lru_list). */
enum scan_list { SCAN_INACTIVE_ANON, SCAN_ACTIVE_ANON, SCAN_INACTIVE_FILE,
		 SCAN_ACTIVE_FILE, SCAN_NR };

/*
 * shrink_lruvec(): scan the lists in turn, 32 pages at a time, while the
 * inactive lists or the active file list have some of their target left
 * (what is left of the active anonymous list's alone ends the loop).
 * Enough is what this call, one priority's, has reclaimed (its own
 * nr_reclaimed, returned and added up as sc->nr_reclaimed): what the
 * priorities before it freed does not count, so a priority scans its
 * anonymous target whole unless it frees the whole request itself.
 * Once enough is reclaimed, a memory cgroup's reclaim stops the kind with
 * less left to scan and scans the other to the share of its target the
 * first has reached, so both are scanned in the proportion
 * get_scan_count() set.  That check comes after every round, so the round
 * after it finds one kind stopped and ends the loop: since Linux 6.0
 * ("mm: vmscan: fix extreme overreclaim and swap floods") the adjustment
 * no longer lets the other kind run to its share, which at priority 0,
 * with the file lists nearly empty, was the whole anonymous list.
 * An active list that may not be deactivated (sc->may_deactivate) keeps
 * its target: shrink_list() passes over it, but what is left of it keeps
 * the loop going and counts in the adjustment, as get_scan_count() set.
 */
static uint64_t shrink_lruvec(struct host *h, uint64_t nr[SCAN_NR], uint64_t nr_to_reclaim,
			      bool deact_file, bool deact_anon)
{
	uint64_t targets[SCAN_NR], got = 0;	/* this priority's, as the kernel counts */
	int i;

	memcpy(targets, nr, sizeof(targets));
	while (nr[SCAN_INACTIVE_ANON] || nr[SCAN_INACTIVE_FILE] || nr[SCAN_ACTIVE_FILE]) {
		uint64_t nr_file, nr_anon, pct, done;
		int stop, other;

		for (i = 0; i < SCAN_NR; i++) {
			uint64_t n = nr[i] < SWAP_CLUSTER_MAX ? nr[i] : SWAP_CLUSTER_MAX;

			nr[i] -= n;
			if (!n)
				continue;
			if (i == SCAN_ACTIVE_FILE) {
				if (deact_file)
					deactivate_file(h, n);
			} else if (i == SCAN_ACTIVE_ANON) {
				if (deact_anon)
					deactivate_anon(h, n);
			} else
				got += shrink_inactive(h, i == SCAN_INACTIVE_FILE, n);
		}
		if (got < nr_to_reclaim)
			continue;
		nr_file = nr[SCAN_INACTIVE_FILE] + nr[SCAN_ACTIVE_FILE];
		nr_anon = nr[SCAN_INACTIVE_ANON] + nr[SCAN_ACTIVE_ANON];
		if (!nr_file || !nr_anon)
			break;
		if (nr_file > nr_anon) {
			stop = SCAN_INACTIVE_ANON;
			pct = nr_anon * 100 / (targets[0] + targets[1] + 1);
		} else {
			stop = SCAN_INACTIVE_FILE;
			pct = nr_file * 100 / (targets[2] + targets[3] + 1);
		}
		other = stop == SCAN_INACTIVE_FILE ? SCAN_INACTIVE_ANON : SCAN_INACTIVE_FILE;
		nr[stop] = nr[stop + 1] = 0;
		for (i = other; i <= other + 1; i++) {
			done = targets[i] - nr[i];
			nr[i] = targets[i] * (100 - pct) / 100;
			nr[i] -= nr[i] < done ? nr[i] : done;
		}
	}
	/* whatever was scanned, the anonymous lists kept in balance */
	if (h->swap_used < h->swap_pages && inactive_anon_is_low(h))
		deactivate_anon(h, SWAP_CLUSTER_MAX);
	return got;
}

void host_reclaim_log_header(FILE *f)
{
	fputs("strategy,time_s,kind,nr_pages,priority,reclaimed,anon_scanned,anon_written,"
	      "anon_freed,file_freed,deactivated,tmpfs_pages,inactive_file_pages,"
	      "active_file_pages,active_anon_pages\n", f);
}

/*
 * One reclaim, as bench/reclaim_trace.sh reads the kernel's: kind nofs
 * (readahead's charge: may not write tmpfs) or full; the pages the charge
 * asked for; the lowest priority scanned; what it scanned, wrote, freed
 * and deactivated; the lists as it left them.
 */
static void reclaim_log_line(const struct host *h, uint64_t asked, uint64_t reclaimed)
{
	const struct reclaim_tally *t = &h->tally;

	fprintf(h->reclaim_log, "%s,%llu.%06llu,%s,%llu,%d,%llu,%llu,%llu,%llu,%llu,%llu,"
		"%llu,%llu,%llu,%llu\n", h->reclaim_label ? h->reclaim_label : "",
		(unsigned long long)(h->now_us / 1000000), (unsigned long long)(h->now_us % 1000000),
		h->nofs ? "nofs" : "full", (unsigned long long)asked, t->priority,
		(unsigned long long)reclaimed, (unsigned long long)t->anon_scanned,
		(unsigned long long)t->anon_written, (unsigned long long)t->anon_freed,
		(unsigned long long)t->file_freed, (unsigned long long)t->deactivated,
		(unsigned long long)h->pages[CAT_TMPFS], (unsigned long long)inactive_file(h),
		(unsigned long long)h->active_file, (unsigned long long)h->active_anon);
}

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_FILE };	/* no SCAN_ANON: swappiness is 60 */

/*
 * Reclaim at least what demand exceeds memory by, 32 pages at least, as a
 * memory cgroup's charge does.  False if nothing could be reclaimed.
 */
static bool reclaim_modern(struct host *h, uint64_t nr_to_reclaim)
{
	uint64_t reclaimed = 0, deactivated = h->active_file + h->active_anon;
	bool force = false, full_walk = false, skipped = false;
	size_t wb;
	int prio;

	uint64_t asked = nr_to_reclaim;

	memset(&h->tally, 0, sizeof(h->tally));
	h->tally.priority = DEF_PRIORITY;
	if (nr_to_reclaim < SWAP_CLUSTER_MAX)
		nr_to_reclaim = SWAP_CLUSTER_MAX;
	stats_flush(h);
	swapcache_writeback_end(h);
	wb = h->wb_nr;
retry:
	for (prio = DEF_PRIORITY; prio >= 0 && reclaimed < nr_to_reclaim; prio--) {
		/* prepare_scan_control() and get_scan_count() */
		uint64_t anon = h->pages[CAT_TMPFS] + h->host_anon;
		bool can_swap = h->swap_used < h->swap_pages && anon;
		/* refaults since the last reclaim: a new workingset forms */
		bool deact = force || inactive_file_is_low(h) ||
			     h->stats.refault_activations != h->refaults_snapshot;
		bool deact_anon = force || inactive_anon_is_low(h) ||
				  h->stats.anon_refault_activations != h->anon_refaults_snapshot;
		uint64_t size[SCAN_NR] = { can_swap ? anon - h->active_anon : 0,
					   can_swap ? h->active_anon : 0,
					   inactive_file(h), h->active_file };
		uint64_t nr[SCAN_NR], fraction[2] = { 0, 1 }, denominator = 1;
		enum scan_balance sb;
		int i;

		if (prio < h->tally.priority)
			h->tally.priority = prio;

		if (!can_swap)
			sb = SCAN_FILE;
		else if (!prio)
			sb = SCAN_EQUAL;
		else if ((h->stats.inactive_file >> prio) && !deact)
			sb = SCAN_FILE;		/* cache_trim_mode, on the statistics */
		else {
			uint64_t total = h->anon_cost + h->file_cost;
			uint64_t ac = total + h->anon_cost, fc = total + h->file_cost;

			total = ac + fc;
			fraction[0] = SWAPPINESS * (total + 1) / (ac + 1);
			fraction[1] = (MAX_SWAPPINESS - SWAPPINESS) * (total + 1) / (fc + 1);
			denominator = fraction[0] + fraction[1];
			sb = SCAN_FRACT;
		}
		for (i = 0; i < SCAN_NR; i++) {
			uint64_t scan = size[i] >> prio;
			bool file = i >= SCAN_INACTIVE_FILE;

			if (sb == SCAN_FRACT)
				scan = scan * fraction[file] / denominator;
			else if (sb == SCAN_FILE && !file)
				scan = 0;
			nr[i] = scan;
		}
		if ((!deact && nr[SCAN_ACTIVE_FILE]) || (!deact_anon && nr[SCAN_ACTIVE_ANON]))
			skipped = true;		/* shrink_list(): sc->skipped_deactivate */
		reclaimed += shrink_lruvec(h, nr, nr_to_reclaim, deact, deact_anon);
	}
	/*
	 * do_try_to_free_pages(), nothing reclaimed: first the whole walk
	 * again, as it was (sc->memcg_full_walk: one memory cgroup here, so
	 * the same pass once more; the 6.18 kernel here, not 6.1); then,
	 * if the active list was left alone on statistics that may be old,
	 * again deactivating.  Each pass that goes down to priority 0
	 * scans the whole anonymous list.
	 */
	if (!reclaimed && !full_walk) {
		full_walk = true;
		goto retry;
	}
	if (!reclaimed && skipped && !force) {
		force = true;
		goto retry;
	}
	/* snapshot_refaults() */
	h->refaults_snapshot = h->stats.refault_activations;
	h->anon_refaults_snapshot = h->stats.anon_refault_activations;
	if (h->reclaim_log)
		reclaim_log_line(h, asked, reclaimed);
	/* pages moved to the inactive list, or written to swap, are
	 * reclaimed on the next call */
	return reclaimed > 0 || h->active_file + h->active_anon < deactivated ||
	       h->wb_nr > wb;
}

/*
 * try_charge_memcg() for a __GFP_NORETRY charge: reclaim, and once more
 * after draining the per-CPU stocks, then give up (nomem).
 */
#define NORETRY_RECLAIMS 2

bool host_try_reserve(struct host *h, uint64_t n)
{
	int tries;

	if (!h->mem_pages || h->balancing)
		return true;	/* unlimited; or reclaim's own allocation */
	h->balancing = 1;
	for (tries = 0; tries < NORETRY_RECLAIMS && h->total + n > h->mem_pages; tries++)
		reclaim_modern(h, n);
	h->balancing = 0;
	return h->total + n <= h->mem_pages;
}

void host_balance(struct host *h)
{
	uint64_t before;

	if (!h->mem_pages || h->balancing)	/* unlimited, or already reclaiming */
		return;
	h->balancing = 1;
	while (host_total(h) > h->mem_pages) {
		before = host_total(h);
		if (!(h->policy == RECLAIM_24 ? reclaim_24(h) :
		      reclaim_modern(h, before - h->mem_pages))) {
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
