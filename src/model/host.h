/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host.h - the host: its memory by category, its swap device, the page
 * caches of backing files, and reclaim when demand exceeds memory.
 *
 * Reclaim picks victims from LRU queues: clean unmapped page cache, clean
 * mapped file pages, tmpfs pages, and (`modern`) active page cache and
 * active tmpfs pages: the first two are then the kernel's inactive file
 * list.  Queues hold (owner, page, gen)
 * entries; a page remembers the gen of its newest entry, so moving or
 * refreshing a page just pushes a new entry and the old one is skipped
 * when it reaches the head.  Gens grow with time, so a smaller gen is older.
 */
#ifndef ANONSIM_HOST_H
#define ANONSIM_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernel/shmem_table.h"
#include "kernel/user/kapi_user.h"
#include "model/pagecache.h"

enum mem_cat {
	CAT_TMPFS,		/* resident tmpfs pages of UML physical memory */
	CAT_CACHE,		/* host page cache of backing files (mapped or not) */
	CAT_SWAP_TABLE,		/* block-table pages of swap entries */
	CAT_MAP_TABLE,		/* block-table pages of /dev/anon map counts */
	CAT_OVERHEAD,		/* fixed per-instance cost, and UML's host processes */
	CAT_NR
};

extern const char *const mem_cat_names[CAT_NR];

enum reclaim_policy {
	RECLAIM_MODERN,		/* Linux 6.x: active and inactive file lists, swappiness 60 */
	RECLAIM_24,		/* one LRU over cache and tmpfs: swaps as soon as memory runs out */
};

/* The policies' names, by enum reclaim_policy, NULL-terminated. */
extern const char *const reclaim_policy_names[];

/* @name ("modern" or "2.4") into *@out: 0, or -1 when it names no policy. */
int reclaim_policy_find(const char *name, enum reclaim_policy *out);

/* The block-table geometries a host can have, NULL-terminated. */
extern const struct shmem_geom *const shmem_geoms[];

/* The geometry called @name, or NULL. */
const struct shmem_geom *shmem_geom_find(const char *name);

/* The geometries' names, "x86_64 or i386", in @buf (cut to @len). */
char *shmem_geom_names(char *buf, size_t len);

/*
 * LRU_TMPFS: every swap-backed page, tmpfs and host processes' anonymous,
 * but the tmpfs pages on LRU_ACTIVE_ANON (`modern`: used on two looks of
 * reclaim in a row, or swapped in again within the workingset's size)
 */
enum lru_list { LRU_CACHE, LRU_MAPPED, LRU_TMPFS, LRU_ACTIVE, LRU_ACTIVE_ANON, LRU_NR };

/* Whether list @l holds swap-backed pages (owners' pages, not page cache). */
static inline int lru_is_anon(enum lru_list l)
{
	return l == LRU_TMPFS || l == LRU_ACTIVE_ANON;
}

struct lru_entry {
	uint32_t owner;		/* pagecache id, or instance id (lru_is_anon()) */
	uint32_t page;
	uint32_t gen;
};

struct lru_queue {
	struct lru_entry *v;
	size_t head, tail, cap;	/* live entries are v[head..tail) */
};

enum folio_ref { FOLIOREF_RECLAIM, FOLIOREF_KEEP, FOLIOREF_ACTIVATE };

/*
 * An owner of tmpfs pages on the host's LRU: an instance, whose memory file
 * the host reclaims through these operations, as the kernel reclaims a
 * mapping through its address_space_operations.  The host never sees an
 * instance itself, so the model's layers stay one-way: instance -> host.
 */
struct tmpfs_owner_ops {
	/* the LRU stamp of @page while it is resident in tmpfs, else NULL */
	uint32_t *(*lru_gen)(void *owner, uint32_t page);
	/* swap @page out (reclaim); false if it cannot */
	bool (*swap_out)(void *owner, uint32_t page);
	/*
	 * what reclaim does with @page (folio_check_references()): reclaim
	 * it, keep it on the inactive list (used since reclaim last looked),
	 * or activate it (used since each of the last two looks)
	 */
	enum folio_ref (*references)(void *owner, uint32_t page);
	/*
	 * whether @page is a tmpfs page (else a host process's anonymous
	 * one): writing it out takes a reclaim that may enter the
	 * filesystem (__GFP_FS: shmem_writeout() puts it in the swap cache;
	 * may_enter_fs()), where a process's page only needs IO
	 */
	bool (*is_tmpfs)(void *owner, uint32_t page);
	/*
	 * `modern`: tmpfs page @page, written to swap, leaves memory at
	 * nonresident age @eviction (its shadow, workingset_eviction())
	 */
	void (*evicted)(void *owner, uint32_t page, uint32_t eviction);
	/*
	 * `modern`: @page leaves LRU_ACTIVE_ANON for the inactive list
	 * (shrink_active_list(): PG_workingset set, its ptes' young bits
	 * cleared by folio_referenced())
	 */
	void (*deactivate)(void *owner, uint32_t page);
};

struct tmpfs_owner {
	const struct tmpfs_owner_ops *ops;
	void *priv;			/* NULL: the owner is gone */
};

struct host {
	uint64_t mem_pages;		/* 0: unlimited */
	uint64_t swap_pages;
	enum reclaim_policy policy;
	const struct shmem_geom *geom;	/* block-table shape of every memory file */
	uint64_t ra_pages;		/* readahead window of every open image */
	uint64_t overhead_pages;	/* fixed cost of each instance */
	/* and its process's anonymous pages, which reclaim can swap */
	uint64_t overhead_anon_pages;
	int balancing;			/* reclaim under way: no nested reclaim */
	/*
	 * modern: charges come from readahead, whose reclaim may not enter
	 * the filesystem (memalloc_nofs_save() in page_cache_ra_unbounded()
	 * and page_cache_ra_order()): it cannot write tmpfs pages to swap
	 */
	int nofs;

	uint64_t pages[CAT_NR];		/* now */
	/* of CAT_OVERHEAD, the host processes' resident anonymous pages:
	 * on LRU_TMPFS with the tmpfs pages, the kernel's anon list */
	uint64_t host_anon;
	uint64_t total;			/* their sum, kept with them */
	uint64_t peak[CAT_NR];		/* each category's own peak */
	uint64_t peak_total;		/* peak of the sum */
	uint64_t now_us;		/* trace time of the event being replayed */

	/* swap device: slot bitmap, slots numbered from 1 (0 = no entry) */
	uint64_t *swap_map;
	uint64_t swap_used, swap_peak, swap_hint;
	uint64_t swap_outs, swap_ins;
	int64_t first_swap_out_us;	/* -1: never */
	uint64_t oom_pages;		/* demand beyond memory that nothing could reclaim */

	struct lru_queue lru[LRU_NR];
	uint32_t gen;

	/* `modern` : the kernel's LRU balance, mm/vmscan.c */
	uint64_t active_file;		/* pages on LRU_ACTIVE */
	uint64_t active_anon;		/* pages on LRU_ACTIVE_ANON */
	uint64_t anon_cost, file_cost;	/* lru_note_cost() */
	/*
	 * mm/workingset.c: the evictions and activations so far
	 * (lruvec->nonresident_age), the file refaults that came back
	 * active (WORKINGSET_ACTIVATE_FILE), and that count as the last
	 * reclaim left it (snapshot_refaults()).
	 */
	uint32_t nonresident_age;
	uint64_t refault_activations, refaults_snapshot;
	/* the same for swapped-in pages (WORKINGSET_ACTIVATE_ANON) */
	uint64_t anon_refault_activations, anon_refaults_snapshot;
	/*
	 * Swap-backed pages written out to swap and still in memory, in the
	 * swap cache: [0, wb_done) written (the writeback ended, the page
	 * rotated to the tail of its list: freed when reclaim next looks),
	 * [wb_done, wb_nr) under writeback, each with when its write ends on
	 * the model's clock (host.c, "the swap cache").  Each stays charged
	 * to the category it left.
	 */
	struct swapcache_page {
		uint32_t owner, page;
		uint8_t cat;		/* enum mem_cat: CAT_TMPFS or CAT_OVERHEAD */
		uint64_t done_ns;	/* its write ends: wb_clock_ns() */
	} *wb;
	size_t wb_nr, wb_done, wb_cap;
	uint64_t reclaim_work;		/* pages reclaim has scanned so far, of every list */
	uint64_t wb_free_ns;		/* the swap device's last write ends */
	/*
	 * The memory cgroup's statistics as reclaim's heuristics read them
	 * (inactive_is_low(), cache_trim_mode): list sizes as of their last
	 * flush, which comes at most every 2 s (FLUSH_TIME); the scan sizes
	 * themselves are exact (lruvec_lru_size()).
	 */
	struct {
		int64_t at_us;		/* the last flush; -1: none yet */
		uint64_t inactive_file, active_file, anon, active_anon;
		uint64_t refault_activations, anon_refault_activations;
	} stats;

	struct pagecache **caches;	/* by id */
	unsigned nr_caches;

	struct tmpfs_owner *owners;	/* by instance id, for tmpfs reclaim */
	unsigned nr_owners;

	struct kapi_ctx kctx;		/* table pages of every instance */
	struct read_stats reads;
	uint64_t evicted_cache, evicted_mapped;

	/*
	 * What the running modern reclaim did, as the kernel's vmscan
	 * tracepoints count it; a CSV line each on @reclaim_log (NULL: none),
	 * labelled @reclaim_label (host_reclaim_log_header()).
	 */
	struct reclaim_tally {
		uint64_t anon_scanned, anon_written, anon_freed;
		uint64_t file_freed, deactivated;
		int priority;		/* the lowest scanned */
	} tally;
	FILE *reclaim_log;
	const char *reclaim_label;
};

/* The header of the --reclaim-log CSV (its columns: README, "Under pressure"). */
void host_reclaim_log_header(FILE *f);

/* A host whose /dev/anon and tmpfs files have block tables of @geom. */
void host_init(struct host *h, uint64_t mem_pages, uint64_t swap_pages,
	       enum reclaim_policy policy, const struct shmem_geom *geom);
void host_destroy(struct host *h);

/*
 * Room for @n instances (their tmpfs owners), each costing @overhead_pages
 * that stay and @overhead_anon_pages of anonymous memory besides, which
 * reclaim meets as the host processes' pages (host_procs.c).
 */
void host_set_instances(struct host *h, unsigned n, uint64_t overhead_pages,
			uint64_t overhead_anon_pages);

/* The trace time of the event about to be replayed: the host's clock. */
static inline void host_set_time(struct host *h, uint64_t now_us)
{
	h->now_us = now_us;
}

/* The readahead window of images opened from now on, in pages. */
static inline void host_set_readahead(struct host *h, uint64_t pages)
{
	h->ra_pages = pages;
}

/* The page cache for backing identity @ident, created on first use. */
struct pagecache *host_cache(struct host *h, const char *ident, uint64_t npages);

/* Reclaim until demand fits memory (or nothing is left to reclaim). */
void host_balance(struct host *h);

/*
 * Charge or release @n pages of a category; charging may reclaim.  Every
 * increase of a category goes through host_charge or host_sync_tables,
 * which note the peaks at once, so a charge notes its own category and the
 * total only: reclaim lowers the others (its table changes note their own).
 * Inline: a page fault charges one page, millions of times a replay.
 */
static inline void host_charge(struct host *h, enum mem_cat cat, uint64_t n)
{
	h->pages[cat] += n;
	h->total += n;
	if (h->mem_pages && h->total > h->mem_pages)
		host_balance(h);
	if (h->pages[cat] > h->peak[cat])
		h->peak[cat] = h->pages[cat];
	if (h->total > h->peak_total)
		h->peak_total = h->total;
}

/*
 * Make room for @n pages charged one by one next, reclaiming for them at
 * once: a large folio's charge (mem_cgroup_charge()) asks reclaim for
 * all its pages, where page by page would ask 32 at a time.
 */
static inline void host_reserve(struct host *h, uint64_t n)
{
	h->total += n;
	if (h->mem_pages && h->total > h->mem_pages)
		host_balance(h);
	h->total -= n;
}

/*
 * `modern`: room for @n pages of readahead, whose charge does not retry
 * (__GFP_NORETRY): true if reclaim made it; false if it did not, and the
 * pages are not to be added.
 */
bool host_try_reserve(struct host *h, uint64_t n);

static inline void host_release(struct host *h, enum mem_cat cat, uint64_t n)
{
	h->pages[cat] -= n;
	h->total -= n;
}

void host_sync_tables_changed(struct host *h);

/* Bring the table-page categories in line with the kapi context's counts. */
static inline void host_sync_tables(struct host *h)
{
	if (h->kctx.held[KAPI_PAGE_SWAP_TABLE] != h->pages[CAT_SWAP_TABLE] ||
	    h->kctx.held[KAPI_PAGE_MAP_TABLE] != h->pages[CAT_MAP_TABLE])
		host_sync_tables_changed(h);
}

/* `modern`: @nr file pages were activated (folio_mark_accessed()). */
void host_note_activate(struct host *h, uint64_t nr);

/*
 * `modern`: a file page evicted at nonresident age @eviction (its shadow)
 * is read again: whether it comes back active (workingset_test_recent()).
 */
bool host_refault_recent(struct host *h, uint32_t eviction);
/*
 * `modern`: a tmpfs page evicted at nonresident age @eviction is swapped
 * in again (@workingset: it was active before, its shadow says): true if
 * it comes back active, on LRU_ACTIVE_ANON, which the caller puts it on
 * (workingset_refault() for an anonymous folio).
 */
bool host_anon_refault(struct host *h, uint32_t eviction, bool workingset);
/* `modern`: a page on LRU_ACTIVE_ANON leaves memory (truncated, freed). */
static inline void host_anon_active_gone(struct host *h)
{
	h->active_anon--;
}

/* `modern`: @nr refaulting pages came back active (WORKINGSET_ACTIVATE). */
static inline void host_note_refault_activate(struct host *h, uint64_t nr)
{
	h->refault_activations += nr;
}

/* `modern`: @nr pages that were active before eviction came back active. */
void host_note_restore(struct host *h, uint64_t nr);

/* `modern`: @nr pages left memory; returns the age their shadows keep. */
static inline uint32_t host_age_evict(struct host *h, uint64_t nr)
{
	uint32_t eviction = h->nonresident_age;

	h->nonresident_age += (uint32_t)nr;
	return eviction;
}

/*
 * `modern`: page @page of tmpfs owner @owner, swapped out, is used again:
 * true if it is still in the swap cache (its memory already charged),
 * which it leaves; false if it must be read back (charge it).
 */
bool host_swapcache_take(struct host *h, uint32_t owner, uint32_t page);

/* Owner @owner is gone: its pages in the swap cache leave memory. */
void host_swapcache_forget(struct host *h, uint32_t owner);

/* Readahead's allocations begin and end (memalloc_nofs_save/restore()). */
static inline void host_nofs_save(struct host *h)
{
	h->nofs++;
}

static inline void host_nofs_restore(struct host *h)
{
	h->nofs--;
}

/* Put (or refresh) a page at the young end of an LRU list. */
void host_lru_add(struct host *h, enum lru_list l, uint32_t owner,
		  uint32_t page, uint32_t *gen_slot);

/*
 * Whether list @l is kept: reclaim never runs on unlimited memory, and
 * never swaps without swap.  Callers skip host_lru_add (and finding the
 * stamp) where it is not.
 */
static inline bool host_lru_kept(const struct host *h, enum lru_list l)
{
	return h->mem_pages && (!lru_is_anon(l) || h->swap_pages);
}

/* Swap slots: 0 when the device is full. */
uint64_t host_swap_alloc(struct host *h);
void host_swap_free(struct host *h, uint64_t slot);

/* A page went out to swap: counted, and the time of the first kept. */
static inline void host_count_swap_out(struct host *h)
{
	h->swap_outs++;
	if (h->first_swap_out_us < 0)
		h->first_swap_out_us = (int64_t)h->now_us;
}

static inline uint64_t host_total(const struct host *h)
{
	return h->total;
}

/* Pages of 4 KiB as MiB, for reports. */
static inline double pages_mib(uint64_t pages)
{
	return (double)pages / 256.0;
}

#endif
