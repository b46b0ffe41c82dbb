/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_procs.c - the memory of UML's host processes, from a trace's host
 * events: kernel memory (page tables, kernel stacks, slab), which the
 * host never reclaims, and anonymous pages, which it can swap.
 *
 * A booting UML forks a burst of host processes; a host short of memory
 * swaps some of their anonymous pages (measured: README, Real density).
 * So those pages are on the host's swap-backed LRU beside the memory
 * file's, numbered past its last page.  Each came from a fault, whose
 * page-table entry is young: like a tmpfs page, it goes round the list
 * once before it can be swapped ("all mapped folios start out with page
 * table references from the instantiating fault", mm/vmscan.c).  A host
 * event gives only how many there are, so they come and go as a stack:
 * the newest go first, resident or swapped, and a page the host swapped
 * stays swapped until it goes (the trace does not say when a host
 * process touches it again).  The instance's own process (--overhead-anon:
 * anonsim live's, which stands in for UML) holds anonymous pages from its
 * start; they are the first of the stack and go as it ends.
 */
#include <config.h>

#include <stdlib.h>

#include "model/instance.h"
#include "util/xalloc.h"

/* Page @k leaves: its memory or its swap slot goes back to the host. */
static void hanon_drop(struct instance *in, uint64_t k)
{
	struct host *h = in->host;
	struct host_anon_page *hp = &in->hanon[k];

	if (hp->slot) {
		host_swap_free(h, hp->slot);
	} else {
		h->host_anon--;
		host_release(h, CAT_OVERHEAD, 1);
	}
}

static void hanon_add(struct instance *in, uint64_t anon)
{
	struct host *h = in->host;
	uint64_t k, n = anon - in->nr_hanon;

	if (anon > in->cap_hanon) {
		uint64_t cap = in->cap_hanon ? in->cap_hanon : 256;

		while (cap < anon)
			cap *= 2;
		in->hanon = xrealloc(in->hanon, cap * sizeof(*in->hanon),
				     "the host processes' pages");
		in->cap_hanon = cap;
	}
	for (k = in->nr_hanon; k < anon; k++) {
		struct host_anon_page *hp = &in->hanon[k];

		*hp = (struct host_anon_page){ .young = 1 };
		/* counted before it is queued: a queue compacting keeps it */
		in->nr_hanon = k + 1;
		if (host_lru_kept(h, LRU_TMPFS))
			host_lru_add(h, LRU_TMPFS, in->id, (uint32_t)(in->npages + k),
				     &hp->lru_gen);
	}
	h->host_anon += n;
	/* after the pages are in place: the charge may reclaim them */
	host_charge(h, CAT_OVERHEAD, n);
}

/* @kernel pages of kernel memory and @anon anonymous pages in all */
static void set_host_pages(struct instance *in, uint64_t kernel, uint64_t anon)
{
	struct host *h = in->host;

	if (kernel > in->host_kernel)
		host_charge(h, CAT_OVERHEAD, kernel - in->host_kernel);
	else
		host_release(h, CAT_OVERHEAD, in->host_kernel - kernel);
	in->host_kernel = kernel;
	while (in->nr_hanon > anon)
		hanon_drop(in, --in->nr_hanon);
	if (anon > in->nr_hanon)
		hanon_add(in, anon);
}

/* The instance's own process's pages are the bottom of the stack: a host
 * event, which counts UML's host processes, comes and goes above them. */
void inst_start_host_pages(struct instance *in, uint64_t anon)
{
	in->hanon_base = anon;
	set_host_pages(in, 0, anon);
}

void inst_set_host_pages(struct instance *in, uint64_t pages, uint64_t anon)
{
	set_host_pages(in, pages - anon, in->hanon_base + anon);
}

void inst_stop_host_pages(struct instance *in)
{
	set_host_pages(in, 0, 0);
}

uint32_t *inst_hanon_lru_gen(struct instance *in, uint64_t k)
{
	if (k >= in->nr_hanon || in->hanon[k].slot)
		return NULL;
	return &in->hanon[k].lru_gen;
}

bool inst_hanon_swap_out(struct instance *in, uint64_t k)
{
	struct host *h = in->host;
	struct host_anon_page *hp;
	uint64_t slot;

	if (!inst_hanon_lru_gen(in, k))
		return false;
	slot = host_swap_alloc(h);
	if (!slot)
		return false;
	hp = &in->hanon[k];
	hp->slot = slot;
	hp->lru_gen = 0;
	h->host_anon--;
	host_release(h, CAT_OVERHEAD, 1);
	host_count_swap_out(h);
	return true;
}

/* Kept while used since reclaim last looked; never activated (a few pages). */
enum folio_ref inst_hanon_references(struct instance *in, uint64_t k)
{
	struct host_anon_page *hp = &in->hanon[k];
	bool young = hp->young;

	hp->young = 0;
	return young ? FOLIOREF_KEEP : FOLIOREF_RECLAIM;
}
