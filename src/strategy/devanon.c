/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * devanon: ubd-mmap over /dev/anon (the 2004 RFC).  UML unmaps its memory
 * file under the pages a read fills and maps the image pages there; the map
 * counts of those tmpfs pages drop to zero and src/kernel frees them.
 */
#include <config.h>

#include "strategy/registry.h"
#include "strategy/ubd_mmap.h"

static void da_release(struct instance *in, uint64_t p, uint64_t nr)
{
	in->calls.munmap++;
	inst_mem_munmap(in, p, nr);
}

static void da_read(struct instance *in, const struct trace_event *ev)
{
	ubd_mmap_read(in, ev, da_release);
}

const struct strategy strategy_devanon = {
	.name = "devanon",
	.summary = "ubd-mmap; /dev/anon map counts free the tmpfs page (posted or fixed)",
	.map_counts = true,
	.has_variants = true,
	.read = da_read,
	.write = inst_write_buffered,
	.touch = ubd_mmap_touch,
	.free = ubd_mmap_free,
};
