/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * instance.c - a UML instance's physical pages, memory file and devices.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/instance.h"
#include "model/strategy.h"
#include "util/xalloc.h"

#define PG_SHIFT 12
#define PG_SIZE 4096u

/* The mappings of page @p --check has counted. */
static uint32_t shadow_get(const struct instance *in, uint64_t p)
{
	const uint32_t *v = chunked_peek(&in->shadow, p, sizeof(*v));

	return v ? *v : 0;
}

static uint32_t *shadow_at(struct instance *in, uint64_t p)
{
	return chunked_at(&in->shadow, p, sizeof(uint32_t));
}

/* --- the memory file's view of the page cache (src/kernel calls these) -- */

/* UML maps its memory file shared: a present pte maps the file's page. */
static enum shmem_pte pops_pte(void *priv, unsigned long idx)
{
	struct ppage pg = inst_page_get(priv, idx);

	return pg.tmpfs == TMPFS_RESIDENT && !inst_file_mapped(priv, idx) ?
		SHMEM_PTE_CACHE : SHMEM_PTE_NONE;
}

/* UML's memory file has no page locks to wait for: only residency matters */
static bool pops_lock_page(void *priv, unsigned long idx)
{
	return inst_page_get(priv, idx).tmpfs == TMPFS_RESIDENT;
}

static void pops_unlock_page(void *priv, unsigned long idx)
{
}

static bool pops_page_locked(void *priv, unsigned long idx)
{
	return false;
}

static bool pops_remove_page(void *priv, unsigned long idx)
{
	struct instance *in = priv;
	struct ppage *pg;

	if (inst_page_get(in, idx).tmpfs != TMPFS_RESIDENT)
		return false;
	pg = inst_page(in, idx);
	/* map-count reclaim must only free pages nobody maps any more */
	if (in->check && in->has_maps && shadow_get(in, idx))
		in->find.freed_while_mapped++;
	pg->tmpfs = TMPFS_NONE;
	inst_lru_gen_clear(in, idx);
	pg->workingset = 0;
	pg->referenced = 0;
	if (pg->active) {
		pg->active = 0;
		host_anon_active_gone(in->host);
	}
	in->resident--;
	host_release(in->host, CAT_TMPFS, 1);
	return true;
}

/* how the host reclaims the memory file's pages, defined below */
static const struct tmpfs_owner_ops inst_tmpfs_ops;

static const struct shmem_page_ops inst_page_ops = {
	.pte = pops_pte,
	.lock_page = pops_lock_page,
	.unlock_page = pops_unlock_page,
	.page_locked = pops_page_locked,
	.remove_page = pops_remove_page,
};

/* Pages the kernel code freed the swap entry of are no longer swapped. */
static void sync_swapped(struct instance *in, uint64_t p, uint64_t nr)
{
	uint64_t i;

	if (!in->swapped)
		return;		/* nothing is: most replays never swap */
	/* a page in a chunk never written is not swapped */
	for (i = chunked_next(&in->pages, p); i < p + nr && i < in->npages;
	     i = chunked_next(&in->pages, i + 1)) {
		struct ppage *pg = inst_page(in, i);

		if (pg->tmpfs == TMPFS_SWAPPED &&
		    !shmem_swap_lookup(&in->ai.shm, i).val) {
			pg->tmpfs = TMPFS_NONE;
			pg->workingset = 0;	/* its shadow gone with the entry */
			in->swapped--;
		}
	}
}

void inst_fail(struct instance *in, const char *what, uint64_t p)
{
	if (!in->find.other++)
		snprintf(in->find.first_other, sizeof(in->find.first_other),
			 "instance %u, page %llu: %s", in->id,
			 (unsigned long long)p, what);
}

/* --- setup and teardown ----------------------------------------------------- */

int instance_header_supported(const struct trace_header *hdr, char *err, size_t errlen)
{
	unsigned d;

	for (d = 0; d < hdr->nr_devices; d++)
		if (hdr->devices[d].pmem) {
			snprintf(err, errlen,
				 "device %s is mapped into guest physical memory (pmem, DAX): "
				 "the guest's reads of it are page faults no recorder sees; record the "
				 "guest with the image as a disk (cache=writeback) and replay that with -s dax",
				 hdr->devices[d].name);
			return -1;
		}
	return 0;
}

int instance_init(struct instance *in, unsigned id, struct host *h,
		  const struct strategy *s, enum anon_variant variant,
		  const struct trace_header *hdr, bool share, bool check,
		  int report_order, char *err, size_t errlen)
{
	unsigned d;

	memset(in, 0, sizeof(*in));
	in->id = id;
	in->host = h;
	in->strat = s;
	in->hdr = hdr;
	in->check = check;
	in->has_maps = s->map_counts;
	in->phys_base = UINT64_MAX;
	span_tree_init(&in->map_index);
	in->npages = hdr->memory / PG_SIZE;
	chunked_init(&in->pages, in->npages, sizeof(struct ppage));
	chunked_init(&in->lru_gens, in->npages, sizeof(uint32_t));
	chunked_init(&in->file_pages, in->npages, sizeof(struct pfile));
	chunked_init(&in->file_map, (in->npages + 63) / 64, sizeof(uint64_t));
	chunked_init(&in->shadow, check ? in->npages : 0, sizeof(uint32_t));
	anon_inode_init(&in->ai, h->geom, variant, &inst_page_ops, in);

	for (d = 0; d < hdr->nr_devices; d++) {
		const struct trace_device *td = &hdr->devices[d];
		struct inst_device *dv = &in->dev[d];
		uint64_t np = (td->size + PG_SIZE - 1) / PG_SIZE;
		char ident[300];
		const char *base = td->cow[0] ? td->cow : td->backing;

		if (share)
			snprintf(ident, sizeof(ident), "%s", base);
		else
			snprintf(ident, sizeof(ident), "%s#%u", base, id);
		dv->cache = host_cache(h, ident, np);
		if (td->cow[0]) {
			/* the COW layer is the instance's own file */
			snprintf(ident, sizeof(ident), "%s#%u", td->backing, id);
			dv->cow = host_cache(h, ident, np);
			chunked_init(&dv->cow_written, np, 1);
		}
		if (!dv->cache || (td->cow[0] && !dv->cow)) {
			snprintf(err, errlen,
				 "device %s: backing '%s' is shared with a smaller device",
				 td->name, base);
			/* what was set up so far; teardown is for started instances */
			do {
				chunked_destroy(&in->dev[d].cow_written);
				chunked_destroy(&in->dev[d].dax_mapped);
			} while (d--);
			chunked_destroy(&in->pages);
			chunked_destroy(&in->lru_gens);
			chunked_destroy(&in->file_pages);
			chunked_destroy(&in->file_map);
			chunked_destroy(&in->shadow);
			span_tree_destroy(&in->map_index);
			return -1;
		}
		chunked_init(&dv->dax_mapped, s->read_skips_guest ? np : 0, 1);
		ra_state_init(&dv->ra, h->ra_pages);
		ra_state_init(&dv->cow_ra, h->ra_pages);
	}
	if (report_order >= 0) {
		in->report = xmalloc(sizeof(*in->report), "free page reporting");
		page_report_init(in->report, (unsigned)report_order, in->npages,
				 !strcmp(hdr->vmm, "qemu"));
	}
	h->owners[id] = (struct tmpfs_owner){ &inst_tmpfs_ops, in };
	host_charge(h, CAT_OVERHEAD, h->overhead_pages);
	inst_start_host_pages(in, h->overhead_anon_pages);
	return 0;
}

static void unmap_range(struct instance *in, uint64_t addr, uint64_t off,
			uint64_t len);

/*
 * A word of the bitmap at a time, and the chunks of it never written
 * skipped whole: read-copy writes none.
 */
uint64_t inst_next_file_page_far(const struct instance *in, uint64_t p, uint64_t end)
{
	uint64_t q = p;

	while (q < end) {
		uint64_t w = q >> 6;
		const uint64_t *v = chunked_peek(&in->file_map, w, sizeof(*v));
		uint64_t bits;

		if (!v) {
			q = chunked_next(&in->file_map, w) << 6;
			continue;
		}
		bits = *v & (~0ULL << (q & 63));
		if (bits) {
			q = (w << 6) + (uint64_t)__builtin_ctzll(bits);
			return q < end ? q : end;
		}
		q = (w + 1) << 6;
	}
	return p < end ? end : p;
}

static void dax_unmap_all(struct instance *in, struct inst_device *dv);

void instance_teardown(struct instance *in)
{
	struct host *h = in->host;
	uint64_t p;
	unsigned i;

	for (i = 0; i < in->nr_maps; i++)
		unmap_range(in, in->maps[i].addr, in->maps[i].off, in->maps[i].len);
	in->nr_maps = 0;
	for (p = inst_next_file_page(in, 0, in->npages); p < in->npages;
	     p = inst_next_file_page(in, p + 1, in->npages))
		inst_unmap_file(in, p);
	for (i = 0; i < in->hdr->nr_devices; i++)
		dax_unmap_all(in, &in->dev[i]);
	if (in->has_maps)
		anon_truncate(&in->ai, 0);
	else
		shmem_truncate(&in->ai.shm, 0);
	sync_swapped(in, 0, in->npages);
	for (p = chunked_next(&in->pages, 0); p < in->npages;
	     p = chunked_next(&in->pages, p + 1))
		if (inst_page_get(in, p).tmpfs == TMPFS_RESIDENT)
			pops_remove_page(in, p);
	in->find.pages_leaked += in->resident + in->swapped;
	in->find.tables_leaked += in->ai.shm.swap.nr_pages + in->ai.maps.nr_pages;
	host_release(h, CAT_OVERHEAD, h->overhead_pages);
	inst_stop_host_pages(in);
	free(in->hanon);
	host_sync_tables(h);
	chunked_destroy(&in->pages);
	chunked_destroy(&in->lru_gens);
	chunked_destroy(&in->file_pages);
	chunked_destroy(&in->file_map);
	chunked_destroy(&in->shadow);
	free(in->maps);
	span_tree_destroy(&in->map_index);
	for (i = 0; i < in->hdr->nr_devices; i++) {
		chunked_destroy(&in->dev[i].cow_written);
		chunked_destroy(&in->dev[i].dax_mapped);
	}
	if (in->report) {
		page_report_destroy(in->report);
		free(in->report);
	}
	host_swapcache_forget(h, in->id);
	h->owners[in->id].priv = NULL;
}

/* --- tmpfs pages ---------------------------------------------------------- */

/* One page of inst_tmpfs_fault(), inlined in its loop. */
static inline void tmpfs_fault(struct instance *in, struct host *h, uint64_t p)
{
	struct ppage *pg = inst_page(in, p);
	bool cached = false;	/* swapped, and still in the host's swap cache */
	enum lru_list l = LRU_TMPFS;

	if (pg->tmpfs == TMPFS_RESIDENT) {
		pg->young = 1;
		/* 2.4: a use moves the page to the young end; modern: the
		 * young pte waits for reclaim to look at it */
		if (h->policy != RECLAIM_MODERN && host_lru_kept(h, LRU_TMPFS))
			host_lru_add(h, LRU_TMPFS, in->id, (uint32_t)p, inst_lru_gen(in, p));
		return;
	}
	if (pg->tmpfs == TMPFS_SWAPPED) {
		swp_entry_t e = shmem_swap_in(&in->ai.shm, p);

		if (e.val)
			host_swap_free(h, e.val);
		else
			inst_fail(in, "swapped page without a swap entry", p);
		in->swapped--;
		h->swap_ins++;
		cached = host_swapcache_take(h, in->id, (uint32_t)p);
		/* read back from swap: its shadow decides where it goes */
		if (!cached && h->policy == RECLAIM_MODERN && host_lru_kept(h, LRU_TMPFS) &&
		    host_anon_refault(h, inst_lru_gen_get(in, p), pg->workingset)) {
			l = LRU_ACTIVE_ANON;
			pg->active = 1;
		}
	}
	/* not marked (PG_referenced): every way out of memory cleared it */
	pg->young = 1;
	pg->tmpfs = TMPFS_RESIDENT;
	in->resident++;
	if (host_lru_kept(h, l))
		host_lru_add(h, l, in->id, (uint32_t)p, inst_lru_gen(in, p));
	if (!cached)
		host_charge(h, CAT_TMPFS, 1);
}

void inst_tmpfs_fault(struct instance *in, uint64_t p, uint64_t nr)
{
	struct host *h = in->host;
	uint64_t end = p + nr;

	for (; p < end; p++)
		tmpfs_fault(in, h, p);
}

static bool instance_swap_out(struct instance *in, uint64_t p)
{
	struct host *h = in->host;
	struct ppage *pg;
	uint64_t slot;

	if (inst_page_get(in, p).tmpfs != TMPFS_RESIDENT)
		return false;
	pg = inst_page(in, p);
	slot = host_swap_alloc(h);
	if (!slot)
		return false;
	if (shmem_swap_out(&in->ai.shm, p, (swp_entry_t){ slot })) {
		host_swap_free(h, slot);
		return false;
	}
	pg->tmpfs = TMPFS_SWAPPED;
	inst_lru_gen_clear(in, p);
	in->resident--;
	in->swapped++;
	host_release(h, CAT_TMPFS, 1);
	host_count_swap_out(h);
	host_sync_tables(h);
	return true;
}

/* --- the host's view of the memory file (host.h calls these) -------------- */

/* Pages from npages on are the host processes' (host_procs.c). */
static uint32_t *tops_lru_gen(void *owner, uint32_t page)
{
	struct instance *in = owner;

	if (page >= in->npages)
		return inst_hanon_lru_gen(in, page - in->npages);
	if (inst_page_get(in, page).tmpfs != TMPFS_RESIDENT)
		return NULL;
	return inst_lru_gen(in, page);
}

static bool tops_swap_out(void *owner, uint32_t page)
{
	struct instance *in = owner;

	if (page >= in->npages)
		return inst_hanon_swap_out(in, page - in->npages);
	return instance_swap_out(in, page);
}

/*
 * folio_check_references() of a page one pte maps: used since reclaim
 * last looked, kept and marked (PG_referenced); used since each of the
 * last two looks, or since it was deactivated, activated; else reclaimed.
 */
static enum folio_ref tops_references(void *owner, uint32_t page)
{
	struct instance *in = owner;
	struct ppage *pg;
	bool young, marked;

	if (page >= in->npages)
		return inst_hanon_references(in, page - in->npages);
	pg = inst_page(in, page);
	young = pg->young;
	marked = pg->referenced;
	pg->young = 0;
	pg->referenced = young;
	if (!young)
		return FOLIOREF_RECLAIM;
	if (!marked)
		return FOLIOREF_KEEP;
	pg->active = 1;
	return FOLIOREF_ACTIVATE;
}

static bool tops_is_tmpfs(void *owner, uint32_t page)
{
	const struct instance *in = owner;

	return page < in->npages;	/* the rest are the host processes' */
}

static void tops_evicted(void *owner, uint32_t page, uint32_t eviction)
{
	struct instance *in = owner;

	if (inst_page_get(in, page).tmpfs == TMPFS_SWAPPED)
		*inst_lru_gen(in, page) = eviction;
}

static void tops_deactivate(void *owner, uint32_t page)
{
	struct instance *in = owner;
	struct ppage *pg = inst_page(in, page);

	pg->active = 0;
	pg->workingset = 1;
	pg->young = 0;
}

static const struct tmpfs_owner_ops inst_tmpfs_ops = {
	.lru_gen = tops_lru_gen,
	.swap_out = tops_swap_out,
	.references = tops_references,
	.is_tmpfs = tops_is_tmpfs,
	.evicted = tops_evicted,
	.deactivate = tops_deactivate,
};

void inst_tmpfs_punch(struct instance *in, uint64_t p, uint64_t nr)
{
	shmem_punch(&in->ai.shm, p, nr);
	sync_swapped(in, p, nr);
	host_sync_tables(in->host);
}

/* --- UML's mappings of its memory file -------------------------------------- */

static void check_counts(struct instance *in, uint64_t pgoff, uint64_t nr)
{
	uint64_t i;

	if (!in->check || !in->has_maps)
		return;
	for (i = pgoff; i < pgoff + nr && i < in->npages; i++) {
		unsigned long c = anon_map_count(&in->ai, i);

		if (c > (1UL << 31))
			in->find.count_underflow++;
		else if (c != shadow_get(in, i) && in->ai.variant == ANON_FIXED)
			inst_fail(in, "map count differs from the mappings", i);
	}
}

/* A new mapping of pages [pgoff, pgoff + nr): by ->mmap, or copied (@dup). */
static void mem_map(struct instance *in, uint64_t pgoff, uint64_t nr, bool dup)
{
	uint64_t i;

	if (in->check)
		for (i = pgoff; i < pgoff + nr && i < in->npages; i++)
			(*shadow_at(in, i))++;
	if (in->has_maps &&
	    (dup ? anon_vma_dup(&in->ai, pgoff, nr) : anon_mmap(&in->ai, pgoff, nr)))
		inst_fail(in, "mapping the memory file failed", pgoff);
	host_sync_tables(in->host);
	check_counts(in, pgoff, nr);
}

void inst_mem_mmap(struct instance *in, uint64_t pgoff, uint64_t nr)
{
	mem_map(in, pgoff, nr, false);
}

void inst_mem_mapdup(struct instance *in, uint64_t pgoff, uint64_t nr)
{
	mem_map(in, pgoff, nr, true);
}

void inst_mem_munmap(struct instance *in, uint64_t pgoff, uint64_t nr)
{
	uint64_t i;

	if (in->check)
		for (i = pgoff; i < pgoff + nr && i < in->npages; i++) {
			if (!shadow_get(in, i))
				inst_fail(in, "munmap of a page not mapped", i);
			else
				(*shadow_at(in, i))--;
		}
	if (in->has_maps) {
		anon_munmap(&in->ai, pgoff, nr);
		sync_swapped(in, pgoff, nr);
	}
	host_sync_tables(in->host);
	check_counts(in, pgoff, nr);
}

/*
 * Where UML maps page P at P's own address (its physical memory), ubd-mmap
 * may have put a file page over P: there the memory file is not mapped, so
 * unmapping such a mapping leaves those pages alone.  Other mappings of the
 * memory file (UML's kernel maps pages elsewhere too) count in full.
 */
static bool is_phys_mapping(const struct instance *in, uint64_t addr, uint64_t off)
{
	return in->phys_base != UINT64_MAX && addr - off == in->phys_base;
}

static void unmap_range(struct instance *in, uint64_t addr, uint64_t off,
			uint64_t len)
{
	uint64_t pgoff = off >> PG_SHIFT, nr = len >> PG_SHIFT;
	uint64_t f, end = pgoff + nr < in->npages ? pgoff + nr : in->npages;
	uint64_t start = pgoff;

	if (!is_phys_mapping(in, addr, off)) {
		inst_mem_munmap(in, pgoff, nr);
		return;
	}
	/* the runs between file pages */
	for (;;) {
		f = inst_next_file_page(in, start, end);
		if (f > start)
			inst_mem_munmap(in, start, f - start);
		if (f >= end)
			break;
		start = f + 1;
	}
}

/* A mapping of the memory file over P's own address takes it back from a file page. */
static void map_range(struct instance *in, uint64_t addr, uint64_t off,
		      uint64_t len, bool dup)
{
	uint64_t p, pgoff = off >> PG_SHIFT, nr = len >> PG_SHIFT;

	if (in->phys_base == UINT64_MAX && !dup)
		in->phys_base = addr - off;
	if (is_phys_mapping(in, addr, off)) {
		uint64_t end = pgoff + nr < in->npages ? pgoff + nr : in->npages;

		for (p = inst_next_file_page(in, pgoff, end); p < end;
		     p = inst_next_file_page(in, p + 1, end))
			inst_unmap_file(in, p);
	}
	if (dup)
		inst_mem_mapdup(in, pgoff, nr);
	else
		inst_mem_mmap(in, pgoff, nr);
}

/* A mapping into the last slot; @node: its span in the tree already, or 0. */
static void maps_add(struct instance *in, uint64_t addr, uint64_t len, uint64_t off,
		     uint32_t node)
{
	if (in->nr_maps == in->cap_maps) {
		unsigned cap = in->cap_maps ? in->cap_maps * 2 : 8;
		in->maps = xrealloc(in->maps, cap * sizeof(*in->maps),
				    "the table of mappings");
		in->cap_maps = cap;
	}
	if (node)
		in->map_index.n[node].value = in->nr_maps;
	else if (addr + len > addr)	/* one that ends at 2^64 overlaps nothing, as below */
		node = span_tree_insert(&in->map_index, addr, addr + len, in->nr_maps);
	in->maps[in->nr_maps++] = (struct inst_mapping){ addr, len, off, node };
}

/*
 * Take the mapping in slot @i out; the last slot's moves into it.  @keep:
 * its span stays in the tree, for a mapping of the same range to take.
 */
static void maps_take(struct instance *in, unsigned i, bool keep)
{
	struct inst_mapping *m = &in->maps[i];

	if (m->node && !keep)
		span_tree_remove(&in->map_index, m->addr);
	*m = in->maps[--in->nr_maps];
	if (m->node)
		in->map_index.n[m->node].value = i;
}

/*
 * munmap(addr, len), the mappings it overlaps found in t->hits: unmap the
 * overlap with each.  They are unmapped in the order of their slots as the
 * slots change, the order a scan of the slots from the first meets them in.
 */
static void maps_remove_hits(struct instance *in, uint64_t addr, uint64_t len)
{
	struct span_tree *t = &in->map_index;
	uint64_t end = addr + len;

	while (t->nr_hits) {
		unsigned k, first = 0;
		struct inst_mapping m;
		uint64_t mend, lo, hi;

		for (k = 1; k < t->nr_hits; k++)
			if (t->n[t->hits[k]].value < t->n[t->hits[first]].value)
				first = k;
		m = in->maps[t->n[t->hits[first]].value];
		t->hits[first] = t->hits[--t->nr_hits];
		mend = m.addr + m.len;
		lo = addr > m.addr ? addr : m.addr;
		hi = end < mend ? end : mend;
		unmap_range(in, lo, m.off + (lo - m.addr), hi - lo);
		/* keep what lies outside [lo, hi) */
		maps_take(in, t->n[m.node].value, false);
		if (m.addr < lo)
			maps_add(in, m.addr, lo - m.addr, m.off, 0);
		if (hi < mend)
			maps_add(in, hi, mend - hi, m.off + (hi - m.addr), 0);
	}
}

static void maps_remove(struct instance *in, uint64_t addr, uint64_t len)
{
	span_tree_overlaps(&in->map_index, addr, addr + len);
	maps_remove_hits(in, addr, len);
}

/*
 * mmap(addr, len, off) with MAP_FIXED: what it overlaps is unmapped, and
 * the new mapping takes the last slot.  Where it replaces one mapping of
 * exactly its range (UML maps the same pages again and again), that
 * mapping's span in the tree is the new one's: same outcome, no tree
 * surgery.  Mappings are disjoint, so one of exactly its range is the only
 * one it overlaps: found by its start alone.
 */
static void maps_replace(struct instance *in, uint64_t addr, uint64_t len, uint64_t off)
{
	struct span_tree *t = &in->map_index;
	uint32_t x = span_tree_find(t, addr);

	if (x && t->n[x].end == addr + len) {
		unmap_range(in, addr, in->maps[t->n[x].value].off, len);
		maps_take(in, t->n[x].value, true);
		maps_add(in, addr, len, off, x);
		return;
	}
	maps_remove(in, addr, len);
	maps_add(in, addr, len, off, 0);
}

/* --- devices ---------------------------------------------------------------- */

struct pagecache *inst_dev_source(struct instance *in, unsigned dev,
				  uint64_t dpage, struct ra_state **ra)
{
	struct inst_device *dv = &in->dev[dev];

	if (dv->cow && chunked_peek(&dv->cow_written, dpage, 1) &&
	    *(const uint8_t *)chunked_peek(&dv->cow_written, dpage, 1)) {
		*ra = &dv->cow_ra;
		return dv->cow;
	}
	*ra = &dv->ra;
	return dv->cache;
}

/* One host read of @len bytes of device @dev at @off. */
static void dev_read(struct instance *in, unsigned dev, uint64_t off, uint64_t len,
		     bool direct)
{
	uint64_t first = off >> PG_SHIFT;
	uint64_t last = (off + len - 1) >> PG_SHIFT;
	uint64_t i = first;

	in->calls.read++;
	if (direct) {
		in->host->reads.demand += last - first + 1;
		return;
	}
	if (!in->dev[dev].cow) {	/* one source: no page to look up */
		pagecache_read(in->host, in->dev[dev].cache, &in->dev[dev].ra, off, len,
			       &in->host->reads);
		return;
	}
	/* runs of pages with the same source: the COW layer or its backing */
	while (i <= last) {
		struct ra_state *ra, *ra_j;
		struct pagecache *pc = inst_dev_source(in, dev, i, &ra);
		uint64_t j = i + 1;

		while (j <= last && inst_dev_source(in, dev, j, &ra_j) == pc)
			j++;
		{
			uint64_t lo = i << PG_SHIFT, hi = j << PG_SHIFT;
			uint64_t end = off + len;

			if (lo < off)
				lo = off;
			if (hi > end)
				hi = end;
			pagecache_read(in->host, pc, ra, lo, hi - lo, &in->host->reads);
		}
		i = j;
	}
}

/*
 * A part of a request reads nothing more: the host read the request's
 * whole range at its first part, as one read that its readahead saw
 * whole; a second look at the pages would activate them.
 */
void inst_dev_read(struct instance *in, const struct trace_event *ev, bool direct)
{
	if (!in->req_open) {
		dev_read(in, ev->dev, ev->offset, ev->length, direct);
		return;
	}
	if (in->req_read)
		return;
	in->req_read = true;
	dev_read(in, in->req.dev, in->req.offset, in->req.length, direct);
}


void inst_dev_write(struct instance *in, const struct trace_event *ev, bool direct)
{
	struct inst_device *dv = &in->dev[ev->dev];
	uint64_t first = ev->offset >> PG_SHIFT;
	uint64_t last = (ev->offset + ev->length - 1) >> PG_SHIFT;
	uint64_t np = (ev->length + PG_SIZE - 1) / PG_SIZE, i;

	/* the data comes from guest memory: it must be there to be written */
	for (i = ev->page; i < ev->page + np && i < in->npages; i++) {
		struct ppage pg = inst_page_get(in, i);

		if (inst_file_mapped(in, i))
			inst_file_access(in, i);
		else if (pg.tmpfs == TMPFS_SWAPPED)
			inst_tmpfs_fault(in, i, 1);
	}
	in->calls.write++;
	if (direct)
		return;
	if (dv->cow) {
		for (i = first; i <= last; i++)
			*(uint8_t *)chunked_at(&dv->cow_written, i, 1) = 1;
		pagecache_write(in->host, dv->cow, first, last - first + 1);
	} else {
		pagecache_write(in->host, dv->cache, first, last - first + 1);
	}
}

/* --- backing-file pages mapped over physical memory (ubd-mmap) ---------------- */

/* One more mapping of page @i of @pc (a ubd-mmap or the VMM's DAX window). */
static void cache_page_map(struct instance *in, struct pagecache *pc, uint64_t i)
{
	if ((*pc_mapcountp(pc, i))++ == 0 && (pc_flags(pc, i) & PC_RESIDENT))
		pagecache_touch(in->host, pc, i);	/* now on the mapped list */
}

static void cache_page_unmap(struct instance *in, struct pagecache *pc, uint64_t i)
{
	if (--*pc_mapcountp(pc, i) == 0 && (pc_flags(pc, i) & PC_RESIDENT))
		pagecache_touch(in->host, pc, i);	/* back on the cache list */
}

void inst_map_file(struct instance *in, uint64_t p, struct pagecache *pc,
		   uint64_t ipage)
{
	struct pfile *f = inst_file_page(in, p);
	uint64_t *w = chunked_at(&in->file_map, p >> 6, sizeof(*w)), bit = 1ULL << (p & 63);

	/* inst_unmap_file(), with the bit looked up once: it is set again */
	if (*w & bit)
		cache_page_unmap(in, in->host->caches[f->cache], f->ipage);
	*w |= bit;
	f->cache = (uint16_t)pc->id;
	f->ipage = (uint32_t)ipage;
	cache_page_map(in, pc, ipage);
}

void inst_unmap_file(struct instance *in, uint64_t p)
{
	const struct pfile *f = inst_file_page(in, p);
	struct pagecache *pc = in->host->caches[f->cache];

	*(uint64_t *)chunked_at(&in->file_map, p >> 6, sizeof(uint64_t)) &= ~(1ULL << (p & 63));
	cache_page_unmap(in, pc, f->ipage);
}

void inst_file_access(struct instance *in, uint64_t p)
{
	const struct pfile *f = inst_file_page(in, p);
	struct pagecache *pc = in->host->caches[f->cache];
	struct ra_state none;

	if (pc_flags(pc, f->ipage) & PC_RESIDENT)
		return;
	ra_state_init(&none, 0);	/* a fault on a mapped page: no readahead */
	pagecache_read(in->host, pc, &none, (uint64_t)f->ipage << PG_SHIFT, PG_SIZE,
		       &in->host->reads);
}

/* --- device pages the VMM maps into guest memory (DAX) ------------------------ */

/*
 * The guest's loads and stores through the window: a page not mapped
 * there, or mapped but taken by reclaim, faults (pagecache_fault()), and
 * the folio it is in is mapped whole, as a PMD maps a PMD-sized folio.
 * The device's readahead state is the window's file's: the VMM reads
 * the file through nothing else.  Under 2.4 reclaim each page reached is
 * a use, as a read's.
 */
void inst_dax_access(struct instance *in, const struct trace_event *ev)
{
	struct inst_device *dv = &in->dev[ev->dev];
	uint64_t first = ev->offset >> PG_SHIFT;
	uint64_t last = (ev->offset + ev->length - 1) >> PG_SHIFT, i, j;

	for (i = first; i <= last && i < dv->dax_mapped.n; i++) {
		struct ra_state *ra, *ra_j;
		struct pagecache *pc = inst_dev_source(in, ev->dev, i, &ra);
		uint8_t bit = pc == dv->cow ? INST_DAX_COW : INST_DAX_CACHE;
		const uint8_t *mapped = chunked_peek(&dv->dax_mapped, i, 1);
		bool hit = mapped && (*mapped & bit) && (pc_flags(pc, i) & PC_RESIDENT);
		uint64_t head, n;

		if (!hit)
			pagecache_fault(in->host, pc, ra, i, &in->host->reads);
		if (in->host->policy != RECLAIM_MODERN && (pc_flags(pc, i) & PC_RESIDENT))
			pagecache_touch(in->host, pc, i);	/* 2.4: a use */
		if (hit)
			continue;
		head = pc_folio_head(pc, i);
		n = pc_folio_pages(pc, i);
		for (j = head; j < head + n && j < dv->dax_mapped.n; j++) {
			uint8_t *m = chunked_at(&dv->dax_mapped, j, 1);

			if ((*m & bit) || !(pc_flags(pc, j) & PC_RESIDENT) ||
			    inst_dev_source(in, ev->dev, j, &ra_j) != pc)
				continue;
			*m |= bit;
			cache_page_map(in, pc, j);
		}
	}
}

/* The VMM's window goes with the instance. */
static void dax_unmap_all(struct instance *in, struct inst_device *dv)
{
	uint64_t i;

	for (i = chunked_next(&dv->dax_mapped, 0); i < dv->dax_mapped.n;
	     i = chunked_next(&dv->dax_mapped, i + 1)) {
		uint8_t m = *(const uint8_t *)chunked_peek(&dv->dax_mapped, i, 1);

		if (m & INST_DAX_CACHE)
			cache_page_unmap(in, dv->cache, i);
		if (m & INST_DAX_COW)
			cache_page_unmap(in, dv->cow, i);
	}
}

/* --- events ------------------------------------------------------------------- */

/*
 * The VMM gave the pages back (free page reporting): the guest had freed
 * them, and the host frees their tmpfs pages and swap; a later touch finds
 * a fresh zero page.  A strategy whose free punches has given them back.
 * /dev/anon frees a page when nobody maps it, and a punch of a mapped one
 * is a fault there: the pages' own address is unmapped and mapped again.
 */
static void inst_give_back(struct instance *in, uint64_t p, uint64_t nr)
{
	if (in->strat->free == inst_free_punch)
		return;
	if (!in->has_maps || in->phys_base == UINT64_MAX) {
		inst_free_punch(in, p, nr);
		return;
	}
	in->calls.munmap++;
	inst_mem_munmap(in, p, nr);
	in->calls.mmap++;
	inst_mem_mmap(in, p, nr);
}

static void give_back_cb(void *in, uint64_t p, uint64_t nr)
{
	inst_give_back(in, p, nr);
}

/* What the guest's free page reporting sees of @ev, and its pass when due. */
static void report_event(struct instance *in, const struct trace_event *ev)
{
	struct page_report *pr = in->report;

	if (page_report_due(pr, (int64_t)ev->time_us))
		page_report_pass(pr, give_back_cb, in);
	switch (ev->kind) {
	case EV_TOUCH:
		page_report_use(pr, ev->page, ev->count);
		break;
	case EV_READ:
		if (!in->strat->read_skips_guest)
			page_report_use(pr, ev->page, (ev->length + PG_SIZE - 1) / PG_SIZE);
		break;
	case EV_FREE:
		page_report_free(pr, ev->page, ev->count, (int64_t)ev->time_us);
		break;
	default:
		break;
	}
}

void instance_event(struct instance *in, const struct trace_event *ev)
{
	const struct strategy *s = in->strat;

	if (in->report)
		report_event(in, ev);
	if (in->req_open && !trace_request_part(&in->req, ev))
		in->req_open = false;	/* the first event that is no part ends it */
	switch (ev->kind) {
	case EV_REQUEST:
		in->req = *ev;
		in->req_open = true;
		in->req_read = false;
		break;
	case EV_READ:
		s->read(in, ev);
		break;
	case EV_WRITE:
		s->write(in, ev);
		break;
	case EV_TOUCH:
		s->touch(in, ev->page, ev->count);
		break;
	case EV_FREE:
		s->free(in, ev->page, ev->count);
		break;
	case EV_DISCARD:
		s->free(in, ev->page, ev->count);	/* the guest had freed them */
		inst_give_back(in, ev->page, ev->count);
		break;
	case EV_MMAP:
	case EV_MAPDUP:
		/* MAP_FIXED over an old mapping replaces it */
		maps_replace(in, ev->addr, ev->length, ev->offset);
		map_range(in, ev->addr, ev->offset, ev->length, ev->kind == EV_MAPDUP);
		break;
	case EV_MUNMAP:
		maps_remove(in, ev->addr, ev->length);
		break;
	case EV_HOST:
		inst_set_host_pages(in, ev->count, ev->anon);
		break;
	case EV_PHASE:
	case EV_FOOTPRINT:
	case EV_NR_KINDS:
		break;
	}
}

/* --- building blocks the strategies are made of -------------------------------- */

void inst_copy_read(struct instance *in, const struct trace_event *ev)
{
	uint64_t np = (ev->length + PG_SIZE - 1) / PG_SIZE;

	inst_dev_read(in, ev, false);
	inst_tmpfs_fault(in, ev->page, np);
}

void inst_copy_read_direct(struct instance *in, const struct trace_event *ev)
{
	uint64_t np = (ev->length + PG_SIZE - 1) / PG_SIZE;

	inst_dev_read(in, ev, true);
	inst_tmpfs_fault(in, ev->page, np);
}

void inst_write_buffered(struct instance *in, const struct trace_event *ev)
{
	inst_dev_write(in, ev, false);
}

void inst_write_direct(struct instance *in, const struct trace_event *ev)
{
	inst_dev_write(in, ev, true);
}

void inst_free_unseen(struct instance *in, uint64_t p, uint64_t nr)
{
	/* the host never learns that the guest freed these pages */
}

void inst_free_punch(struct instance *in, uint64_t p, uint64_t nr)
{
	in->calls.punch++;
	inst_tmpfs_punch(in, p, nr);
}
