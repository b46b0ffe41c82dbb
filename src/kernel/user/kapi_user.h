/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kapi_user.h - the userspace implementation of src/kernel/kapi.h.
 *
 * All state lives in a struct kapi_ctx made current for the calling thread
 * (like "current" in the kernel), so independent simulations can run side by
 * side, one per thread.  It counts table pages by kind, can make the Nth
 * allocation fail, catches double frees and frees of unknown pages, counts
 * lock misuse and warnings instead of aborting, routes swap_free() to the
 * host model, and can run a "racer" callback at the next spin_lock (before
 * the lock is taken) or at the next spin_unlock (after the lock is
 * released), to reproduce what another CPU would do while the lock was
 * dropped: for an allocation, or to take a page lock.
 */
#ifndef ANONSIM_KAPI_USER_H
#define ANONSIM_KAPI_USER_H

#include <stddef.h>

#include "kernel/shmem_table.h"

/*
 * Freed pages are kept this long (not returned to malloc) so that a use after
 * free by the posted /dev/anon code writes to memory we still own: it shows as
 * a table pointer to a page that is not live instead of a sanitizer abort.
 */
#define KAPI_QUARANTINE 16

struct kapi_ctx {
	/*
	 * Bytes behind each table page: the geometry's entries as native
	 * words, no more, so that a walk past the last entry is an overflow
	 * the address sanitizer reports (i386's 1024 entries take 8 KiB on a
	 * 64-bit host; they are accounted as one page all the same).
	 */
	size_t table_page_bytes;

	/* pages held now, and allocated / freed in total, by kind */
	unsigned long held[KAPI_PAGE_NR_KINDS];
	unsigned long allocs[KAPI_PAGE_NR_KINDS];
	unsigned long frees[KAPI_PAGE_NR_KINDS];
	unsigned long peak_held[KAPI_PAGE_NR_KINDS];

	/* fail the allocation whose 1-based number is fail_nth (0: never) */
	unsigned long fail_nth;
	unsigned long nr_allocs;	/* allocations attempted so far */
	gfp_t last_gfp;			/* the flags of the last one */

	/* misuse found, counted rather than fatal */
	unsigned long bad_frees;	/* double free or never allocated */
	unsigned long unlocked_walks;	/* lockdep_assert_held on a free lock */
	unsigned long lock_errors;	/* unlock of a free lock, lock of a held one */
	unsigned long warnings;		/* WARN_ON_ONCE hits */
	unsigned long resched_points;	/* cond_resched_lock() calls */
	const char *last_warning;

	/* where swap_free() goes; NULL: only counted */
	void (*swap_free)(void *arg, swp_entry_t entry);
	void *swap_arg;
	unsigned long swap_frees;

	/*
	 * Run once at the next spin_lock, before the lock is taken (cleared
	 * first, so the racer may take locks, allocate, or re-arm itself to
	 * fire at a later spin_lock).
	 */
	void (*racer)(void *arg);
	void *racer_arg;
	/* the same at the next spin_unlock, once the lock is released */
	void (*unlock_racer)(void *arg);
	void *unlock_racer_arg;

	/* live pages, for double-free detection: open-addressed set */
	unsigned long *live;
	size_t live_cap, live_count;
	enum kapi_page_kind *live_kind;

	/* recently freed pages, released for real later (ring) */
	void *quarantine[KAPI_QUARANTINE];
	unsigned int quarantine_next;
};

/* A context whose table pages are sized for the tables of @geom. */
void kapi_ctx_init(struct kapi_ctx *ctx, const struct shmem_geom *geom);
/*
 * Frees any pages still live (the caller reads held[] first to count them as
 * leaks) and the quarantine; stops being current if it was.
 */
void kapi_ctx_destroy(struct kapi_ctx *ctx);
void kapi_set_current(struct kapi_ctx *ctx);
struct kapi_ctx *kapi_current(void);

/* Is @addr a live page handed out by this context? */
int kapi_page_live(const struct kapi_ctx *ctx, unsigned long addr);

#endif /* ANONSIM_KAPI_USER_H */
