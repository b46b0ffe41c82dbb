/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_util.h - what the Check suites share: a kapi context per test and a
 * fake page cache for shmem_page_ops.
 */
#ifndef ANONSIM_CHECK_UTIL_H
#define ANONSIM_CHECK_UTIL_H

#include <check.h>

#include "kernel/anon.h"
#include "kernel/user/kapi_user.h"

/* The context every test runs in: set up fresh by ctx_setup(). */
static struct kapi_ctx ctx;

/* A fresh context for tables of @geom. */
static inline void ctx_setup_geom(const struct shmem_geom *geom)
{
	kapi_ctx_init(&ctx, geom);
	kapi_set_current(&ctx);
}

static inline void ctx_setup(void)
{
	ctx_setup_geom(&shmem_geom_x86_64);
}

static inline void ctx_teardown(void)
{
	kapi_ctx_destroy(&ctx);
}

static inline unsigned long held_total(void)
{
	return ctx.held[KAPI_PAGE_DATA] + ctx.held[KAPI_PAGE_SWAP_TABLE] +
	       ctx.held[KAPI_PAGE_MAP_TABLE];
}

/* A fake page cache: a page is resident, and mapped in the unmapping mm. */
#define FAKE_MAX 32
struct fake_pages {
	unsigned long index[FAKE_MAX];
	unsigned char resident[FAKE_MAX], mapped[FAKE_MAX], locked[FAKE_MAX];
	unsigned char cow[FAKE_MAX];	/* the pte maps a private copy */
	unsigned int n;
	unsigned int waits;		/* lock_page found the page locked */
	unsigned int lock_calls;	/* lock_page asked for, cached or not */
};

static inline int fake_find(struct fake_pages *fp, unsigned long index)
{
	unsigned int i;

	for (i = 0; i < fp->n; i++)
		if (fp->index[i] == index)
			return (int)i;
	return -1;
}

static inline void fake_set(struct fake_pages *fp, unsigned long index,
			    int resident, int mapped)
{
	int i = fake_find(fp, index);

	if (i < 0) {
		ck_assert_uint_lt(fp->n, FAKE_MAX);
		i = (int)fp->n++;
		fp->index[i] = index;
		fp->locked[i] = 0;
		fp->cow[i] = 0;
	}
	fp->resident[i] = (unsigned char)resident;
	fp->mapped[i] = (unsigned char)mapped;
}

/* Another path (a read from swap, writeback) holds page @index locked. */
static inline void fake_lock_elsewhere(struct fake_pages *fp, unsigned long index)
{
	int i = fake_find(fp, index);

	ck_assert_int_ge(i, 0);
	fp->locked[i] = 1;
}

/* A MAP_PRIVATE write: the pte now maps a private copy of page @index. */
static inline void fake_cow(struct fake_pages *fp, unsigned long index)
{
	int i = fake_find(fp, index);

	ck_assert_int_ge(i, 0);
	fp->cow[i] = 1;
	fp->mapped[i] = 0;
}

static inline int fake_resident(struct fake_pages *fp, unsigned long index)
{
	int i = fake_find(fp, index);

	return i >= 0 && fp->resident[i];
}

static inline enum shmem_pte fake_pte(void *priv, unsigned long index)
{
	struct fake_pages *fp = priv;
	int i = fake_find(fp, index);

	if (i < 0)
		return SHMEM_PTE_NONE;
	if (fp->cow[i])
		return SHMEM_PTE_ANON;
	return fp->resident[i] && fp->mapped[i] ? SHMEM_PTE_CACHE : SHMEM_PTE_NONE;
}

static inline bool fake_remove_page(void *priv, unsigned long index)
{
	struct fake_pages *fp = priv;
	int i = fake_find(fp, index);
	bool was = i >= 0 && fp->resident[i];

	if (i >= 0)
		fp->resident[i] = fp->mapped[i] = 0;
	return was;
}

/* Waiting for a page lock held elsewhere: that holder finishes first. */
static inline bool fake_lock_page(void *priv, unsigned long index)
{
	struct fake_pages *fp = priv;
	int i = fake_find(fp, index);

	fp->lock_calls++;
	if (i < 0 || !fp->resident[i])
		return false;
	if (fp->locked[i])
		fp->waits++;
	fp->locked[i] = 1;
	return true;
}

static inline bool fake_page_locked(void *priv, unsigned long index)
{
	struct fake_pages *fp = priv;
	int i = fake_find(fp, index);

	return i >= 0 && fp->locked[i];
}

static inline void fake_unlock_page(void *priv, unsigned long index)
{
	struct fake_pages *fp = priv;
	int i = fake_find(fp, index);

	ck_assert_msg(i >= 0 && fp->locked[i], "page %lu not locked", index);
	fp->locked[i] = 0;
}

static const struct shmem_page_ops fake_pops = {
	.pte = fake_pte,
	.lock_page = fake_lock_page,
	.unlock_page = fake_unlock_page,
	.page_locked = fake_page_locked,
	.remove_page = fake_remove_page,
};

/* Run a Check suite; exit status for the test harness. */
static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif
