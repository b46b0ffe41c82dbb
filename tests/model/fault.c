/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_fault.c - the faults of src/model/fault.h, built into the test
 * programs only (never into anonsim itself: see Makefile.am).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fault.h"
#include "model/host.h"
#include "model/instance.h"
#include "model/pagecache.h"

struct fault {
	char kind[16];
	unsigned long long at, page;
};

/* The fault the environment names now: false when none (or not parsed). */
static bool fault_get(struct fault *f)
{
	const char *s = getenv("ANONSIM_FAULT");
	int end = 0;

	if (!s || sscanf(s, "%15[a-z-]:%llu:%llu%n", f->kind, &f->at, &f->page, &end) != 3 ||
	    s[end]) {
		if (s && *s) {
			fprintf(stderr, "ANONSIM_FAULT=%s: not KIND:EVENT:PAGE\n", s);
			exit(1);
		}
		return false;
	}
	return true;
}

void fault_event(struct host *h, struct instance *in, uint64_t index)
{
	struct fault f;

	if (in->id || !fault_get(&f) || f.at != index)
		return;
	if (!strcmp(f.kind, "tmpfs-count")) {
		in->resident++;
	} else if (!strcmp(f.kind, "host-total")) {
		h->pages[CAT_TMPFS]++;
	} else if (!strcmp(f.kind, "cache-page")) {
		*pc_flagsp(h->caches[0], f.page) &= (uint16_t)~PC_RESIDENT;
	} else if (!strcmp(f.kind, "swap-entry")) {
		shmem_swap_in(&in->ai.shm, (unsigned long)f.page);
	} else if (!strcmp(f.kind, "map-count")) {
		anon_mmap(&in->ai, (unsigned long)f.page, 1);
	} else if (!strcmp(f.kind, "shadow")) {
		*(uint32_t *)chunked_at(&in->shadow, f.page, sizeof(uint32_t)) = 0;
	} else if (!strcmp(f.kind, "alloc")) {
		h->kctx.fail_nth = h->kctx.nr_allocs + 1;
	}
}

void fault_core(struct anon_inode *ai)
{
	struct fault f;

	if (!fault_get(&f) || f.at)
		return;
	if (!strcmp(f.kind, "core-map"))
		anon_mmap(ai, (unsigned long)f.page, 1);
	else if (!strcmp(f.kind, "core-swap"))
		shmem_swap_out(&ai->shm, (unsigned long)f.page, (swp_entry_t){ 999999 });
}
