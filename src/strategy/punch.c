/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * punch: ubd-mmap plus sys_punch (today fallocate(FALLOC_FL_PUNCH_HOLE) or
 * madvise(MADV_REMOVE)).  The image page is mapped over physical memory with
 * MAP_FIXED and the tmpfs page underneath is punched out; no map counts.
 */
#include <config.h>

#include "strategy/registry.h"
#include "strategy/ubd_mmap.h"

static void pu_release(struct instance *in, uint64_t p, uint64_t nr)
{
	inst_mem_munmap(in, p, nr);	/* replaced by the MAP_FIXED mapping */
	in->calls.punch++;
	inst_tmpfs_punch(in, p, nr);
}

static void pu_read(struct instance *in, const struct trace_event *ev)
{
	ubd_mmap_read(in, ev, pu_release);
}

const struct strategy strategy_punch = {
	.name = "punch",
	.summary = "ubd-mmap; the tmpfs page under the mapping is punched out",
	.read = pu_read,
	.write = inst_write_buffered,
	.touch = ubd_mmap_touch,
	.free = ubd_mmap_free,
};
