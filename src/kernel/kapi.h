/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi.h - the small slice of the kernel API that the reference code uses.
 *
 * Everything under src/kernel/ includes this header and nothing else, so the
 * same files build in three places:
 *   - inside a kernel tree (__KERNEL__): the real kernel headers below;
 *   - freestanding (-ffreestanding -nostdinc), to prove no libc slipped in;
 *   - in the simulator, against the userspace implementation in
 *     src/kernel/user/kapi_user.c, which counts pages by kind and injects failures.
 * Outside the kernel the types and calls come from user/kapi_defs.h: the
 * kernel's own types under their kernel names need typedefs, which kernel
 * code must not add, so they live with the userspace half.
 *
 * Page kinds exist only for accounting: the kernel build ignores them.
 */
#ifndef ANONSIM_KAPI_H
#define ANONSIM_KAPI_H

enum kapi_page_kind {
	KAPI_PAGE_DATA,		/* tmpfs data page of a file */
	KAPI_PAGE_SWAP_TABLE,	/* block-table page holding swap entries */
	KAPI_PAGE_MAP_TABLE,	/* block-table page holding map counts */
	KAPI_PAGE_NR_KINDS
};

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/spinlock.h>
#include <linux/lockdep.h>
#include <linux/swap.h>
#include <linux/bug.h>

#include <linux/sched.h>

#define kapi_get_zeroed_page(gfp, kind)	get_zeroed_page(gfp)
#define kapi_free_page(addr, kind)	free_page(addr)

#else /* userspace or freestanding: the same API, in user/ (no typedef here) */

#include "user/kapi_defs.h"

#endif /* __KERNEL__ */

#endif /* ANONSIM_KAPI_H */
