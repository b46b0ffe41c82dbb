/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kapi_user.c - the kernel API of src/kernel/kapi.h in userspace, with the
 * accounting, failure injection and misuse detection of kapi_user.h.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/user/kapi_user.h"
#include "util/xalloc.h"

static _Thread_local struct kapi_ctx *current_ctx;
_Thread_local void (*const *kapi_lock_racer)(void *);
_Thread_local void (*const *kapi_unlock_racer)(void *);

#define LIVE_MIN_CAP 64

static struct kapi_ctx *ctx_get(void)
{
	if (!current_ctx) {
		fputs("anonsim: kernel API used with no current kapi_ctx\n", stderr);
		abort();
	}
	return current_ctx;
}

void kapi_set_current(struct kapi_ctx *ctx)
{
	current_ctx = ctx;
	kapi_lock_racer = ctx ? &ctx->racer : NULL;
	kapi_unlock_racer = ctx ? &ctx->unlock_racer : NULL;
}

struct kapi_ctx *kapi_current(void)
{
	return current_ctx;
}

/* ---- live set: open addressing, linear probing, backward-shift delete ---- */

static size_t live_hash(unsigned long addr, size_t cap)
{
	/* pages are at least 16-byte aligned: mix the high bits down */
	unsigned long long h = (unsigned long long)addr * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static int live_alloc(struct kapi_ctx *ctx, size_t cap)
{
	ctx->live = calloc(cap, sizeof(*ctx->live));
	ctx->live_kind = calloc(cap, sizeof(*ctx->live_kind));
	if (!ctx->live || !ctx->live_kind) {
		free(ctx->live);
		free(ctx->live_kind);
		ctx->live = NULL;
		ctx->live_kind = NULL;
		return -1;
	}
	ctx->live_cap = cap;
	return 0;
}

/* Slot holding @addr, or the empty slot where it would go. */
static size_t live_slot(const struct kapi_ctx *ctx, unsigned long addr)
{
	size_t i = live_hash(addr, ctx->live_cap);

	while (ctx->live[i] && ctx->live[i] != addr)
		i = (i + 1) & (ctx->live_cap - 1);
	return i;
}

static int live_grow(struct kapi_ctx *ctx)
{
	unsigned long *old = ctx->live;
	enum kapi_page_kind *old_kind = ctx->live_kind;
	size_t old_cap = ctx->live_cap, i, j;

	if (live_alloc(ctx, old_cap * 2))
		return -1;
	for (i = 0; i < old_cap; i++) {
		if (!old[i])
			continue;
		j = live_slot(ctx, old[i]);
		ctx->live[j] = old[i];
		ctx->live_kind[j] = old_kind[i];
	}
	free(old);
	free(old_kind);
	return 0;
}

static int live_insert(struct kapi_ctx *ctx, unsigned long addr,
		       enum kapi_page_kind kind)
{
	size_t i;

	if ((ctx->live_count + 1) * 2 > ctx->live_cap && live_grow(ctx))
		return -1;
	i = live_slot(ctx, addr);
	ctx->live[i] = addr;
	ctx->live_kind[i] = kind;
	ctx->live_count++;
	return 0;
}

static void live_remove_slot(struct kapi_ctx *ctx, size_t hole)
{
	size_t mask = ctx->live_cap - 1, i = hole, home;

	/* shift back any entry whose probe sequence passed through the hole */
	for (;;) {
		i = (i + 1) & mask;
		if (!ctx->live[i])
			break;
		home = live_hash(ctx->live[i], ctx->live_cap);
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			ctx->live[hole] = ctx->live[i];
			ctx->live_kind[hole] = ctx->live_kind[i];
			hole = i;
		}
	}
	ctx->live[hole] = 0;
	ctx->live_count--;
}

int kapi_page_live(const struct kapi_ctx *ctx, unsigned long addr)
{
	return addr && ctx->live && ctx->live[live_slot(ctx, addr)] == addr;
}

/* ---- context ---- */

void kapi_ctx_init(struct kapi_ctx *ctx, const struct shmem_geom *geom)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->table_page_bytes = geom->entries_per_page * sizeof(unsigned long);
	if (live_alloc(ctx, LIVE_MIN_CAP))
		die_oom("the kernel API's page set");
}

void kapi_ctx_destroy(struct kapi_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->live_cap; i++)
		free((void *)ctx->live[i]);
	for (i = 0; i < KAPI_QUARANTINE; i++)
		free(ctx->quarantine[i]);
	free(ctx->live);
	free(ctx->live_kind);
	ctx->live = NULL;
	ctx->live_kind = NULL;
	ctx->live_cap = ctx->live_count = 0;
	memset(ctx->quarantine, 0, sizeof(ctx->quarantine));
	if (current_ctx == ctx)
		kapi_set_current(NULL);
}

/* ---- pages ---- */

unsigned long kapi_get_zeroed_page(gfp_t gfp, enum kapi_page_kind kind)
{
	struct kapi_ctx *ctx = ctx_get();
	void *p;

	ctx->nr_allocs++;
	ctx->last_gfp = gfp;
	if (ctx->fail_nth && ctx->nr_allocs == ctx->fail_nth)
		return 0;
	p = calloc(1, ctx->table_page_bytes);
	if (!p)
		return 0;
	if (live_insert(ctx, (unsigned long)p, kind)) {
		free(p);
		return 0;
	}
	ctx->held[kind]++;
	ctx->allocs[kind]++;
	if (ctx->held[kind] > ctx->peak_held[kind])
		ctx->peak_held[kind] = ctx->held[kind];
	return (unsigned long)p;
}

void kapi_free_page(unsigned long addr, enum kapi_page_kind kind)
{
	struct kapi_ctx *ctx = ctx_get();
	size_t i;

	if (!addr)		/* free_page(0) is a no-op in the kernel too */
		return;
	i = live_slot(ctx, addr);
	if (ctx->live[i] != addr) {
		ctx->bad_frees++;
		return;
	}
	/* account by the kind it was allocated as */
	kind = ctx->live_kind[i];
	live_remove_slot(ctx, i);
	ctx->held[kind]--;
	ctx->frees[kind]++;
	free(ctx->quarantine[ctx->quarantine_next]);
	ctx->quarantine[ctx->quarantine_next] = (void *)addr;
	ctx->quarantine_next = (ctx->quarantine_next + 1) % KAPI_QUARANTINE;
}

/* ---- locks ---- */

void spin_lock_init(spinlock_t *lock)
{
	lock->held = 0;
}

void kapi_spin_lock_slow(spinlock_t *lock)
{
	struct kapi_ctx *ctx = ctx_get();
	void (*racer)(void *) = ctx->racer;

	if (racer) {
		ctx->racer = NULL;
		racer(ctx->racer_arg);
	}
	if (lock->held)
		ctx->lock_errors++;	/* would deadlock */
	lock->held = 1;
}

void kapi_spin_unlock_slow(spinlock_t *lock)
{
	struct kapi_ctx *ctx = ctx_get();
	void (*racer)(void *) = ctx->unlock_racer;

	if (!lock->held)
		ctx->lock_errors++;
	lock->held = 0;
	if (racer) {
		ctx->unlock_racer = NULL;
		racer(ctx->unlock_racer_arg);
	}
}

void kapi_lock_not_held(spinlock_t *lock)
{
	ctx_get()->unlocked_walks++;
}

int cond_resched_lock(spinlock_t *lock)
{
	struct kapi_ctx *ctx = ctx_get();

	if (!lock->held)
		ctx->lock_errors++;
	ctx->resched_points++;
	return 0;
}

/* ---- swap and warnings ---- */

void swap_free(swp_entry_t entry)
{
	struct kapi_ctx *ctx = ctx_get();

	ctx->swap_frees++;
	if (ctx->swap_free)
		ctx->swap_free(ctx->swap_arg, entry);
}

void kapi_warn(const char *what)
{
	struct kapi_ctx *ctx = ctx_get();

	ctx->warnings++;
	ctx->last_warning = what;
}
