/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * page_report.h - free page reporting (virtio-balloon's, --report-order) as
 * the guest's kernel does it, mm/page_reporting.c of Linux 6.1: only free
 * blocks of 2^order aligned pages are reported, by a pass that runs 2 s
 * after a block became free while no pass was queued
 * (PAGE_REPORTING_DELAY), and only in a zone whose free pages exceed its
 * low watermark plus 32 blocks (page_reporting_process_zone()).  What the
 * pass reports, the VMM gives back (a discard: the pages' tmpfs goes).
 *
 * The guest's free memory is what the trace says: a page is in use from
 * its touch or a read into it until its free.  Not modelled: the budget of
 * a sixteenth of each free list plus one batch of 32 blocks per pass
 * (it binds only past 64 blocks of one order freed between two passes),
 * and reporting's own allocations.
 */
#ifndef ANONSIM_PAGE_REPORT_H
#define ANONSIM_PAGE_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/chunked.h"

/* MAX_ORDER - 1 of x86_64: the largest block the buddy allocator makes */
#define PAGE_REPORT_ORDER_MAX 10
/* PAGE_REPORTING_DELAY: 2 * HZ */
#define PAGE_REPORT_DELAY_US 2000000
/* DMA, DMA32, Normal */
#define PAGE_REPORT_ZONES 3

struct page_report {
	unsigned order;
	uint64_t npages;
	/* zone z holds the memory-file pages [zone_start[z], zone_start[z + 1]) */
	uint64_t zone_start[PAGE_REPORT_ZONES + 1];
	uint64_t zone_used[PAGE_REPORT_ZONES];	/* pages in use */
	uint64_t zone_low[PAGE_REPORT_ZONES];	/* low watermark, pages */
	struct chunked used;	/* uint64_t words: a bit per page in use */
	/* uint16_t per block: pages in use, and PR_UNREPORTED when it was in
	 * use since its last report (PageReported cleared) */
	struct chunked blocks;
	uint64_t *pending;	/* blocks freed whole since the last pass */
	uint64_t nr_pending, cap_pending;
	int64_t pass_us;	/* the queued pass; -1: none (idle) */
	uint64_t reported;	/* blocks given back */
};

/*
 * Reporting of blocks of 2^@order pages for a guest of @npages, laid out
 * as QEMU's q35 machine lays out guest RAM (@q35: DMA below 16 MiB,
 * DMA32 up to the 2 GiB split, Normal past it) or as one zone.
 */
void page_report_init(struct page_report *pr, unsigned order, uint64_t npages, bool q35);
void page_report_destroy(struct page_report *pr);

/* The guest uses pages [p, p + nr). */
void page_report_use(struct page_report *pr, uint64_t p, uint64_t nr);

/* The guest frees pages [p, p + nr) at trace time @now_us. */
void page_report_free(struct page_report *pr, uint64_t p, uint64_t nr, int64_t now_us);

/* Whether the queued pass is due at @now_us. */
static inline bool page_report_due(const struct page_report *pr, int64_t now_us)
{
	return pr->pass_us >= 0 && now_us >= pr->pass_us;
}

/*
 * The pass: each block freed whole since the last, still free and in a
 * zone above its watermark, goes to @give_back(@arg, first page, pages).
 */
void page_report_pass(struct page_report *pr,
		      void (*give_back)(void *arg, uint64_t p, uint64_t nr), void *arg);

#endif
