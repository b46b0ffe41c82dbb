/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * free-hint: read-copy, but the guest reports the pages it frees and UML
 * punches them out of its memory file, as free page reporting does today.
 */
#include <config.h>

#include "model/instance.h"
#include "strategy/registry.h"

const struct strategy strategy_free_hint = {
	.name = "free-hint",
	.summary = "read-copy; each page the guest frees is punched out at once",
	.read = inst_copy_read,
	.write = inst_write_buffered,
	.touch = inst_tmpfs_fault,
	.free = inst_free_punch,
};
