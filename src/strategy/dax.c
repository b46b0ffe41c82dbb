/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dax: the image is a virtio-pmem (or nvdimm) device that the VMM maps into
 * guest physical memory, and the guest's filesystem reads it in place
 * (ext4 -o dax): ubd-mmap's heir.  No guest page holds a copy; the host
 * page cache is the one copy, shared by every guest of the image, and its
 * pages stay mapped by each guest's window until the guest ends, so
 * reclaim takes them only as mapped file pages.
 *
 * It replays a recording made with the image as an ordinary disk
 * (cache=writeback): a DAX guest reaches the same blocks that guest read,
 * so each read brings them into the host page cache, as the read did, and
 * maps them; the guest page the read filled stays free.  The guest's
 * writes go to the image's page cache through the window.  A recording
 * cannot tell the pages the guest filled to write a file from its other
 * pages: they count as guest memory, as they did under writeback.
 */
#include <config.h>

#include "model/instance.h"
#include "strategy/registry.h"

static void dax_read(struct instance *in, const struct trace_event *ev)
{
	inst_dev_read(in, ev, false);
	inst_dax_map(in, ev);
}

static void dax_write(struct instance *in, const struct trace_event *ev)
{
	inst_dev_write(in, ev, false);
	inst_dax_map(in, ev);
}

const struct strategy strategy_dax = {
	.name = "dax",
	.summary = "the image mapped into the guest (virtio-pmem, DAX): no guest copy",
	.read_skips_guest = true,
	.read = dax_read,
	.write = dax_write,
	.touch = inst_tmpfs_fault,
	.free = inst_free_unseen,
};
