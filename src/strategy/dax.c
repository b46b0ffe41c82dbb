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
 * with loads through the window, and the guest page the read filled stays
 * free.  Each page not yet mapped faults on the host: QEMU madvises its
 * RAM blocks MADV_HUGEPAGE, so a miss reads two PMD-sized folios from the
 * PMD below it, whatever the readahead window, and the folio is mapped
 * whole (pagecache_fault()).  The guest's writes are stores through the
 * window, each page faulted in first.  A recording cannot tell the pages
 * the guest filled to write a file from its other pages: they count as
 * guest memory, as they did under writeback; nor the blocks the guest's
 * own readahead read from those it used, which a DAX guest never loads.
 */
#include <config.h>

#include "model/instance.h"
#include "strategy/registry.h"

/* a read of the disk is the guest's loads from the window: faults, no read call */
static void dax_read(struct instance *in, const struct trace_event *ev)
{
	inst_dax_access(in, ev);
}

/* a write: stores through the window, each page faulted in first */
static void dax_write(struct instance *in, const struct trace_event *ev)
{
	inst_dax_access(in, ev);
	inst_dev_write(in, ev, false);
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
