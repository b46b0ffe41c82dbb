/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page_report.c - free page reporting as the guest's kernel does it
 * (page_report.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/page_report.h"
#include "util/xalloc.h"

#define PG_SHIFT 12
/* the block word: pages in use in the low bits, then two flags */
#define PR_PENDING 0x4000u	/* on the pending list */
#define PR_UNREPORTED 0x8000u	/* in use since its last report */
#define PR_COUNT 0x3fffu
/* PAGE_REPORTING_CAPACITY: the blocks of one report */
#define PR_CAPACITY 32

/* int_sqrt(): the largest r with r * r <= x */
static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/*
 * The low watermarks: calculate_min_free_kbytes() (int_sqrt(16 * lowmem
 * KiB), clamped to 128 KiB .. 256 MiB) shared out by zone size, plus the
 * larger of a quarter of that and watermark_scale_factor's 0.1 % of the
 * zone (__setup_per_zone_wmarks()).  Every page counts as managed.
 */
static void set_watermarks(struct page_report *pr)
{
	uint64_t kb = isqrt(pr->npages * 4 * 16), pages_min;
	unsigned z;

	if (kb < 128)
		kb = 128;
	if (kb > 262144)
		kb = 262144;
	pages_min = kb >> 2;
	for (z = 0; z < PAGE_REPORT_ZONES; z++) {
		uint64_t size = pr->zone_start[z + 1] - pr->zone_start[z];
		uint64_t min = pr->npages ? pages_min * size / pr->npages : 0;
		uint64_t gap = size * 10 / 10000;

		pr->zone_low[z] = min + (min >> 2 > gap ? min >> 2 : gap);
	}
}

void page_report_init(struct page_report *pr, unsigned order, uint64_t npages, bool q35)
{
	/* q35 puts RAM past 2.75 GiB above 4 GiB, from 2 GiB of it on */
	uint64_t low = npages > (0xb0000000ULL >> PG_SHIFT) ? 0x80000000ULL >> PG_SHIFT : npages;
	uint64_t dma = 16ULL << (20 - PG_SHIFT);

	memset(pr, 0, sizeof(*pr));
	pr->order = order;
	pr->npages = npages;
	pr->pass_us = -1;
	if (!q35)
		dma = low = 0;		/* one zone: Normal */
	if (dma > npages)
		dma = npages;
	pr->zone_start[1] = dma;
	pr->zone_start[2] = low > dma ? low : dma;
	pr->zone_start[3] = npages;
	set_watermarks(pr);
	chunked_init(&pr->used, (npages + 63) / 64, sizeof(uint64_t));
	chunked_init(&pr->blocks, (npages >> order) + 1, sizeof(uint16_t));
}

void page_report_destroy(struct page_report *pr)
{
	chunked_destroy(&pr->used);
	chunked_destroy(&pr->blocks);
	free(pr->pending);
	pr->pending = NULL;
}

static unsigned zone_of(const struct page_report *pr, uint64_t p)
{
	unsigned z = 0;

	while (z + 1 < PAGE_REPORT_ZONES && p >= pr->zone_start[z + 1])
		z++;
	return z;
}

/* Flip page @p's bit to @in_use; whether it changed. */
static bool set_used(struct page_report *pr, uint64_t p, bool in_use)
{
	uint64_t *w = chunked_at(&pr->used, p >> 6, sizeof(uint64_t));
	uint64_t bit = 1ULL << (p & 63);

	if (!(*w & bit) == !in_use)
		return false;
	*w ^= bit;
	return true;
}

void page_report_use(struct page_report *pr, uint64_t p, uint64_t nr)
{
	uint64_t i;

	for (i = p; i < p + nr && i < pr->npages; i++) {
		uint16_t *b;

		if (!set_used(pr, i, true))
			continue;
		pr->zone_used[zone_of(pr, i)]++;
		b = chunked_at(&pr->blocks, i >> pr->order, sizeof(uint16_t));
		*b = (uint16_t)((*b + 1) | PR_UNREPORTED);
	}
}

/* Block @blk became free whole: queue it, and a pass if none is (__page_reporting_request()). */
static void block_freed(struct page_report *pr, uint64_t blk, uint16_t *b, int64_t now_us)
{
	if (!(*b & PR_UNREPORTED) || ((blk + 1) << pr->order) > pr->npages)
		return;		/* nothing to give back, or not a whole block */
	if (!(*b & PR_PENDING)) {
		if (pr->nr_pending == pr->cap_pending) {
			pr->cap_pending = pr->cap_pending ? 2 * pr->cap_pending : 64;
			pr->pending = xrealloc(pr->pending, pr->cap_pending * sizeof(*pr->pending),
					       "free page reporting");
		}
		pr->pending[pr->nr_pending++] = blk;
		*b |= PR_PENDING;
	}
	if (pr->pass_us < 0)
		pr->pass_us = now_us + PAGE_REPORT_DELAY_US;
}

void page_report_free(struct page_report *pr, uint64_t p, uint64_t nr, int64_t now_us)
{
	uint64_t i;

	for (i = p; i < p + nr && i < pr->npages; i++) {
		uint16_t *b;

		if (!set_used(pr, i, false))
			continue;
		pr->zone_used[zone_of(pr, i)]--;
		b = chunked_at(&pr->blocks, i >> pr->order, sizeof(uint16_t));
		if (!(--*b & PR_COUNT))
			block_freed(pr, i >> pr->order, b, now_us);
	}
}

void page_report_pass(struct page_report *pr,
		      void (*give_back)(void *arg, uint64_t p, uint64_t nr), void *arg)
{
	bool above[PAGE_REPORT_ZONES];
	uint64_t i, kept = 0;
	unsigned z;

	/* zone_watermark_ok(zone, 0, low + (capacity << order), ...) */
	for (z = 0; z < PAGE_REPORT_ZONES; z++) {
		uint64_t size = pr->zone_start[z + 1] - pr->zone_start[z];

		above[z] = size - pr->zone_used[z] >
			   pr->zone_low[z] + ((uint64_t)PR_CAPACITY << pr->order);
	}
	for (i = 0; i < pr->nr_pending; i++) {
		uint64_t blk = pr->pending[i];
		uint16_t *b = chunked_at(&pr->blocks, blk, sizeof(uint16_t));

		if (*b & PR_COUNT) {		/* in use again: queued when next freed */
			*b &= (uint16_t)~PR_PENDING;
			continue;
		}
		if (!above[zone_of(pr, blk << pr->order)]) {
			pr->pending[kept++] = blk;	/* stays on the free list unreported */
			continue;
		}
		*b &= (uint16_t)~(PR_PENDING | PR_UNREPORTED);
		pr->reported++;
		give_back(arg, blk << pr->order, 1ULL << pr->order);
	}
	pr->nr_pending = kept;
	pr->pass_us = -1;
}
