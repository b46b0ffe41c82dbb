/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ubd_mmap.c - the mechanism shared by the ubd-mmap strategies.
 */
#include <config.h>

#include "model/strategy.h"
#include "strategy/ubd_mmap.h"

#define PG_SIZE 4096u

/* A read UML cannot map (not whole, aligned pages) is copied, as read-copy does. */
static void copy_read(struct instance *in, const struct trace_event *ev)
{
	uint64_t np = (ev->length + PG_SIZE - 1) / PG_SIZE, p;

	for (p = ev->page; p < ev->page + np; p++)
		ubd_mmap_restore(in, p);
	inst_copy_read(in, ev);
}

void ubd_mmap_read(struct instance *in, const struct trace_event *ev,
		   ubd_release_fn release)
{
	uint64_t np = ev->length / PG_SIZE, dpage = ev->offset / PG_SIZE, i;
	uint64_t end = ev->page + np, p, f;

	if (ev->offset % PG_SIZE || ev->length % PG_SIZE) {
		copy_read(in, ev);
		return;
	}
	inst_dev_read(in, ev, false);
	/* the memory file under pages not yet file-mapped goes, run by run
	 * (before UML maps its memory, nothing of it lies under them) */
	for (p = ev->page; p < end && in->phys_base != UINT64_MAX; p = f + 1) {
		f = inst_next_file_page(in, p, end);
		if (f > p)
			release(in, p, f - p);
	}
	/*
	 * a swapped page nobody maps any more should have lost its entry;
	 * before UML maps its memory no page was ever mapped, so none lost a
	 * mapping here: its data and swap entry stay in the memory file, as
	 * data write() put there would
	 */
	for (p = ev->page; p < end && in->swapped && in->phys_base != UINT64_MAX; p++) {
		struct ppage pg = inst_page_get(in, p);

		if (!inst_file_mapped(in, p) && pg.tmpfs == TMPFS_SWAPPED &&
		    (!in->has_maps || !anon_map_count(&in->ai, p)))
			in->find.swap_stranded++;
	}
	in->calls.mmap++;
	for (i = 0; i < np; i++) {
		struct ra_state *ra;
		struct pagecache *pc = inst_dev_source(in, ev->dev, dpage + i, &ra);

		inst_map_file(in, ev->page + i, pc, dpage + i);
	}
}

void ubd_mmap_restore(struct instance *in, uint64_t p)
{
	if (!inst_file_mapped(in, p))
		return;
	inst_unmap_file(in, p);
	if (in->phys_base == UINT64_MAX)
		return;	/* UML has not mapped its memory yet: nothing to restore */
	in->calls.mmap++;
	inst_mem_mmap(in, p, 1);
}

/* Page by page, in order: the runs between file pages fault whole. */
void ubd_mmap_touch(struct instance *in, uint64_t p, uint64_t nr)
{
	uint64_t end = p + nr, f;

	for (; p < end; p = f + 1) {
		f = inst_next_file_page(in, p, end);
		inst_tmpfs_fault(in, p, f - p);
		if (f < end) {
			ubd_mmap_restore(in, f);
			inst_tmpfs_fault(in, f, 1);
		}
	}
}

void ubd_mmap_free(struct instance *in, uint64_t p, uint64_t nr)
{
	uint64_t end = p + nr, f;

	for (f = inst_next_file_page(in, p, end); f < end;
	     f = inst_next_file_page(in, f + 1, end))
		ubd_mmap_restore(in, f);
}
