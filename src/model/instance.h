/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * instance.h - one UML instance on the host: the state of each physical page,
 * its physical-memory file (a tmpfs or /dev/anon inode from src/kernel), its
 * block devices, and the host calls it makes.  Strategies (strategy.h) decide
 * which calls; the helpers here carry them out and keep the accounting.
 */
#ifndef ANONSIM_INSTANCE_H
#define ANONSIM_INSTANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/anon.h"
#include "model/chunked.h"
#include "model/host.h"
#include "model/page_report.h"
#include "model/span_tree.h"
#include "trace/trace.h"

struct strategy;

/* The tmpfs page behind physical page P (index P of the memory file). */
enum tmpfs_state {
	TMPFS_NONE,		/* no page: untouched, freed, punched or reclaimed */
	TMPFS_RESIDENT,
	TMPFS_SWAPPED,
};

/*
 * What every replay keeps of physical page P: one byte, so that many
 * instances at once keep theirs in cache.  What reclaim and ubd-mmap add
 * lies apart (struct instance's lru_gens and file_pages), allocated only
 * where they are at work.
 */
struct ppage {
	uint8_t tmpfs : 2;	/* enum tmpfs_state */
	uint8_t young : 1;	/* tmpfs: used since reclaim last looked (a young pte) */
	uint8_t referenced : 1;	/* tmpfs, `modern`: used when reclaim last looked (PG_referenced) */
	uint8_t active : 1;	/* tmpfs, `modern`: on the host's LRU_ACTIVE_ANON */
	uint8_t workingset : 1;	/* tmpfs, `modern`: was active (PG_workingset) */
};

_Static_assert(sizeof(struct ppage) == 1, "a page's state is one byte");

/* The backing-file page mapped over P (inst_file_mapped). */
struct pfile {
	uint32_t ipage;		/* its page in that backing file */
	uint16_t cache;		/* the file: host pagecache id */
};

struct inst_device {
	struct pagecache *cache;	/* where reads of unwritten blocks go */
	struct pagecache *cow;		/* the instance's own COW layer, or NULL */
	struct chunked cow_written;	/* uint8_t per device page: block lives in the COW layer */
	/* uint8_t per device page (dax): the VMM's window maps it, from the
	 * image (INST_DAX_CACHE) or the COW layer (INST_DAX_COW) */
	struct chunked dax_mapped;
	struct ra_state ra, cow_ra;
};

enum { INST_DAX_CACHE = 1, INST_DAX_COW = 2 };

/* UML's own mappings of its memory file, from the trace's mmap events. */
struct inst_mapping {
	uint64_t addr, len, off;
	uint32_t node;			/* in the instance's span tree; 0: none */
};

struct host_calls {
	uint64_t read, write, mmap, munmap, punch;
};

/* Invariant breaks found by --check, by cause. */
struct findings {
	uint64_t freed_while_mapped;	/* a page reclaimed under a live mapping */
	uint64_t count_underflow;	/* a map count went below zero */
	uint64_t swap_stranded;		/* swap entries left under a file mapping, count 0 */
	uint64_t tables_leaked;		/* table pages still held at teardown */
	uint64_t pages_leaked;		/* tmpfs pages still resident at teardown */
	uint64_t bad_frees, unlocked_walks;
	uint64_t kernel_warnings;	/* WARN_ON_ONCE hits in src/kernel */
	uint64_t other;			/* breaks no RFC defect explains: simulator bugs */
	char first_other[160];
};

struct instance {
	unsigned id;
	struct host *host;
	const struct strategy *strat;
	const struct trace_header *hdr;
	uint64_t npages;			/* physical memory in pages */
	struct chunked pages;			/* struct ppage per page: inst_page() */
	/* uint32_t per page: the tmpfs LRU stamp, or, swapped (`modern`),
	 * the shadow's eviction age; only a host that reclaims writes one */
	struct chunked lru_gens;
	struct chunked file_pages;		/* struct pfile per page, ubd-mmap */
	/* a bit per page, 64 to a word: a backing-file page is mapped over
	 * it (inst_file_mapped); apart, so that walks and frees test the
	 * bits of 64 pages at a time in a word, not the pages' state */
	struct chunked file_map;
	struct anon_inode ai;			/* ai.shm is the tmpfs inode */
	bool has_maps;				/* /dev/anon map counts in use */
	struct inst_device dev[TRACE_MAX_DEVICES];
	struct inst_mapping *maps;		/* in the order munmap meets them */
	unsigned nr_maps, cap_maps;
	struct span_tree map_index;		/* the same mappings by address */
	/* host address of physical page 0 (address - file offset of UML's
	 * first mapping of its memory file); UINT64_MAX until it maps it */
	uint64_t phys_base;
	struct chunked shadow;			/* uint32_t per page, --check: its true mappings */
	bool check;
	struct host_calls calls;
	struct findings find;
	uint64_t resident;			/* TMPFS_RESIDENT pages */
	uint64_t swapped;			/* TMPFS_SWAPPED pages */
	/* UML's host processes (host events, host_procs.c) and the
	 * instance's own process: kernel memory, never reclaimed, and
	 * anonymous pages, which reclaim can swap */
	uint64_t host_kernel;
	struct host_anon_page *hanon;		/* the anonymous pages, by number */
	uint64_t nr_hanon, cap_hanon;
	uint64_t hanon_base;			/* the first, the instance's own process's */
	struct page_report *report;		/* free page reporting, or NULL */
	/* a request event (trace version 2) and its parts, the reads after
	 * it: the host read its range once, at the first part */
	bool req_open, req_read;
	struct trace_event req;
};

/* One anonymous page of UML's host processes: on the host's LRU_TMPFS as
 * page npages + its number, which is past every page of the memory file. */
struct host_anon_page {
	uint64_t slot;			/* swap slot; 0: resident */
	uint32_t lru_gen;
	uint8_t young;			/* used since reclaim last looked */
};

/*
 * Set up instance @id of trace header @hdr on host @h.  @share: devices whose
 * backing identities match share page cache with other instances; otherwise
 * the identity is made private to this instance.  Returns 0 or -1 (message
 * in @err).
 */
/*
 * Whether the model replays a trace of header @hdr: 0, or -1 with the
 * reason in @err (a device it cannot model yet).
 */
int instance_header_supported(const struct trace_header *hdr, char *err, size_t errlen);

/*
 * @report_order: the guest reports its free blocks of 2^order pages
 * (page_report.h) and the VMM gives them back; -1: no reporting.
 */
int instance_init(struct instance *in, unsigned id, struct host *h,
		  const struct strategy *s, enum anon_variant variant,
		  const struct trace_header *hdr, bool share, bool check,
		  int report_order, char *err, size_t errlen);

/* Apply one trace event. */
void instance_event(struct instance *in, const struct trace_event *ev);

/*
 * What UML's host processes hold now (a host event): @pages, @anon of them
 * anonymous.  Anonymous pages that come were faulted in: they go to the
 * LRU referenced once, as tmpfs pages do; those that go are the newest.
 */
void inst_set_host_pages(struct instance *in, uint64_t pages, uint64_t anon);
/* The instance's own process starts with @anon anonymous pages (setup), and
 * it and the host processes leave (teardown). */
void inst_start_host_pages(struct instance *in, uint64_t anon);
void inst_stop_host_pages(struct instance *in);

/* The reclaim operations (tmpfs_owner_ops) on host-process page @k. */
uint32_t *inst_hanon_lru_gen(struct instance *in, uint64_t k);
bool inst_hanon_swap_out(struct instance *in, uint64_t k);
enum folio_ref inst_hanon_references(struct instance *in, uint64_t k);

/* Release everything; leaks are recorded in in->find. */
void instance_teardown(struct instance *in);

/* Physical page @p, to change. */
static inline struct ppage *inst_page(struct instance *in, uint64_t p)
{
	return chunked_at(&in->pages, p, sizeof(struct ppage));
}

/* Physical page @p, to look at (all zero: untouched). */
static inline struct ppage inst_page_get(const struct instance *in, uint64_t p)
{
	const struct ppage *pg = chunked_peek(&in->pages, p, sizeof(struct ppage));

	return pg ? *pg : (struct ppage){ 0 };
}

/* The LRU stamp or shadow of page @p, to change. */
static inline uint32_t *inst_lru_gen(struct instance *in, uint64_t p)
{
	return chunked_at(&in->lru_gens, p, sizeof(uint32_t));
}

/* The LRU stamp or shadow of page @p (0: none was ever written). */
static inline uint32_t inst_lru_gen_get(const struct instance *in, uint64_t p)
{
	const uint32_t *g = chunked_peek(&in->lru_gens, p, sizeof(uint32_t));

	return g ? *g : 0;
}

/* Clear page @p's LRU stamp, allocating nothing where none was written. */
static inline void inst_lru_gen_clear(struct instance *in, uint64_t p)
{
	if (chunked_peek(&in->lru_gens, p, sizeof(uint32_t)))
		*inst_lru_gen(in, p) = 0;
}

/* The backing-file page mapped over page @p, to set or, once set, to read. */
static inline struct pfile *inst_file_page(struct instance *in, uint64_t p)
{
	return chunked_at(&in->file_pages, p, sizeof(struct pfile));
}

/* Whether a backing-file page is mapped over P (ubd-mmap). */
static inline bool inst_file_mapped(const struct instance *in, uint64_t p)
{
	const uint64_t *w = chunked_peek(&in->file_map, p >> 6, sizeof(*w));

	return w && (*w >> (p & 63) & 1);
}

/*
 * The first page from @p on, below @end, with a file page mapped over it;
 * else @end (or @p, from @p >= @end).
 */
uint64_t inst_next_file_page_far(const struct instance *in, uint64_t p, uint64_t end);

static inline uint64_t inst_next_file_page(const struct instance *in, uint64_t p, uint64_t end)
{
	const uint64_t *w;
	uint64_t bits;

	/* within one word of the bitmap (a read of a page or a few): inline */
	if (p >= end || p >> 6 != (end - 1) >> 6)
		return inst_next_file_page_far(in, p, end);
	w = chunked_peek(&in->file_map, p >> 6, sizeof(*w));
	bits = w ? *w & (~0ULL << (p & 63)) & (~0ULL >> (63 - ((end - 1) & 63))) : 0;
	return bits ? (p & ~63ULL) + (uint64_t)__builtin_ctzll(bits) : end;
}

/* --- helpers for the strategies ------------------------------------------- */

/*
 * Give pages [p, p + nr) resident tmpfs pages, in order: allocate, or swap
 * in; nothing for those resident.
 */
void inst_tmpfs_fault(struct instance *in, uint64_t p, uint64_t nr);
/* Drop P's tmpfs page and swap entry (punch). */
void inst_tmpfs_punch(struct instance *in, uint64_t p, uint64_t nr);
/* Read device pages through the host page cache (or around it: @direct). */
void inst_dev_read(struct instance *in, const struct trace_event *ev, bool direct);
void inst_dev_write(struct instance *in, const struct trace_event *ev, bool direct);
/* Map backing page (cache, ipage) over P, or take the mapping away. */
void inst_map_file(struct instance *in, uint64_t p, struct pagecache *pc, uint64_t ipage);
void inst_unmap_file(struct instance *in, uint64_t p);
/* The cache and page that device offset @off reads from now. */
struct pagecache *inst_dev_source(struct instance *in, unsigned dev,
				  uint64_t dpage, struct ra_state **ra);
/* The file page mapped at P was touched: refault it if reclaim took it. */
void inst_file_access(struct instance *in, uint64_t p);
/* The guest reaches the device pages of @ev through the VMM's window
 * (DAX): each faults in and stays mapped until the instance ends. */
void inst_dax_access(struct instance *in, const struct trace_event *ev);

/* UML maps / unmaps its memory file (trace events and ubd-mmap alike). */
void inst_mem_mmap(struct instance *in, uint64_t pgoff, uint64_t nr);
void inst_mem_munmap(struct instance *in, uint64_t pgoff, uint64_t nr);
void inst_mem_mapdup(struct instance *in, uint64_t pgoff, uint64_t nr);

/* Whole strategy operations more than one strategy uses. */
void inst_copy_read(struct instance *in, const struct trace_event *ev);
void inst_copy_read_direct(struct instance *in, const struct trace_event *ev);
void inst_write_buffered(struct instance *in, const struct trace_event *ev);
void inst_write_direct(struct instance *in, const struct trace_event *ev);
void inst_free_unseen(struct instance *in, uint64_t p, uint64_t nr);
/* The guest's free reported to the host, which punches the pages out. */
void inst_free_punch(struct instance *in, uint64_t p, uint64_t nr);

/* Record a broken invariant that no RFC defect explains. */
void inst_fail(struct instance *in, const char *what, uint64_t p);

#endif
