/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * read-copy: what UML does by default.  A ubd read lands in the host page
 * cache of the image and is copied into the tmpfs page of physical memory:
 * two copies.  The host never learns that the guest freed a page.
 */
#include <config.h>

#include "model/instance.h"
#include "strategy/registry.h"

const struct strategy strategy_read_copy = {
	.name = "read-copy",
	.summary = "ubd reads copied into tmpfs memory; host page cache keeps its copy",
	.read = inst_copy_read,
	.write = inst_write_buffered,
	.touch = inst_tmpfs_fault,
	.free = inst_free_unseen,
};
