/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * odirect: read-copy with the image opened O_DIRECT.  Reads bypass the host
 * page cache, so only the tmpfs copy exists; the price is that nothing is
 * shared between instances and every read goes to the disk.
 */
#include <config.h>

#include "model/instance.h"
#include "strategy/registry.h"

const struct strategy strategy_odirect = {
	.name = "odirect",
	.summary = "read-copy with O_DIRECT images: no host page cache",
	.read = inst_copy_read_direct,
	.write = inst_write_direct,
	.touch = inst_tmpfs_fault,
	.free = inst_free_unseen,
};
