// SPDX-License-Identifier: GPL-2.0
/*
 * anon_kunit.c - KUnit tests of the reference code (src/kernel) as the
 * kernel builds it: real table pages, the real spin lock (lockdep), a
 * page cache of a few flags.  The same cases as the simulator's Check
 * suites where they ask the kernel build the same question: the table
 * geometry, the walk a table page at a time, what munmap locks and frees,
 * and the index bound.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/slab.h>

#include "anon.h"

#define EPP		512UL		/* x86_64's entries per table page */
#define NR_FAKE		64

struct fake_cache {
	DECLARE_BITMAP(resident, NR_FAKE);
	unsigned int lock_calls;	/* lock_page asked for, cached or not */
};

static enum shmem_pte fake_pte(void *priv, unsigned long index)
{
	return SHMEM_PTE_NONE;
}

static bool fake_lock_page(void *priv, unsigned long index)
{
	struct fake_cache *fc = priv;

	fc->lock_calls++;
	return index < NR_FAKE && test_bit(index, fc->resident);
}

static void fake_unlock_page(void *priv, unsigned long index)
{
}

static bool fake_page_locked(void *priv, unsigned long index)
{
	return false;
}

static bool fake_remove_page(void *priv, unsigned long index)
{
	struct fake_cache *fc = priv;

	return index < NR_FAKE && test_and_clear_bit(index, fc->resident);
}

static const struct shmem_page_ops fake_pops = {
	.pte = fake_pte,
	.lock_page = fake_lock_page,
	.unlock_page = fake_unlock_page,
	.page_locked = fake_page_locked,
	.remove_page = fake_remove_page,
};

struct anon_fixture {
	struct anon_inode ai;
	struct fake_cache fc;
};

static int anon_test_init(struct kunit *test)
{
	struct anon_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	anon_inode_init(&f->ai, &shmem_geom_x86_64, ANON_FIXED, &fake_pops,
			&f->fc);
	test->priv = f;
	return 0;
}

/* Every table page back, whatever a case left. */
static void anon_test_exit(struct kunit *test)
{
	struct anon_fixture *f = test->priv;

	anon_truncate(&f->ai, 0);
	KUNIT_EXPECT_EQ(test, f->ai.maps.nr_pages, 0UL);
}

static void anon_test_span(struct kunit *test)
{
	struct anon_fixture *f = test->priv;
	const struct shmem_table *t = &f->ai.maps;
	unsigned long max = shmem_geom_x86_64.max_index;

	KUNIT_EXPECT_EQ(test, max, 67239952UL);
	KUNIT_EXPECT_EQ(test, shmem_table_span(t, 0), 16UL);
	KUNIT_EXPECT_EQ(test, shmem_table_span(t, 15), 1UL);
	KUNIT_EXPECT_EQ(test, shmem_table_span(t, 16), EPP);
	KUNIT_EXPECT_EQ(test, shmem_table_span(t, 527), 1UL);
	KUNIT_EXPECT_EQ(test, shmem_table_span(t, 528), EPP);
	KUNIT_EXPECT_EQ(test, shmem_table_span(t, max - 1), 1UL);
	KUNIT_EXPECT_EQ(test, shmem_table_span(t, max), 0UL);
}

/* mmap(500, 1100): the indirect page and four leaves; counts 500-1599. */
static void anon_test_walk_runs(struct kunit *test)
{
	struct anon_fixture *f = test->priv;
	struct anon_inode *ai = &f->ai;

	KUNIT_ASSERT_EQ(test, anon_mmap(ai, 500, 1100), 0);
	KUNIT_EXPECT_EQ(test, ai->maps.nr_pages, 5UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 499), 0UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 500), 1UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 527), 1UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 528), 1UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 1599), 1UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 1600), 0UL);
	KUNIT_EXPECT_EQ(test, anon_munmap(ai, 500, 1100), 0UL);
	KUNIT_EXPECT_EQ(test, f->fc.lock_calls, 1100U);
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 1599), 0UL);
	/* table pages go with the file, not with the mapping */
	KUNIT_EXPECT_EQ(test, ai->maps.nr_pages, 5UL);
}

/* Past the first half: a middle page, and two leaves under it. */
static void anon_test_middle(struct kunit *test)
{
	struct anon_fixture *f = test->priv;
	unsigned long first = 16 + EPP * EPP / 2;

	KUNIT_ASSERT_EQ(test, anon_mmap(&f->ai, first, EPP + 1), 0);
	KUNIT_EXPECT_EQ(test, f->ai.maps.nr_pages, 4UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(&f->ai, first + EPP), 1UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(&f->ai, first + EPP + 1), 0UL);
}

/*
 * Pages 0-7 resident, mapped once, 4-7 twice: munmap(0, 8) locks and
 * frees 0-3 alone; munmap(4, 4) then the rest.
 */
static void anon_test_munmap_decides(struct kunit *test)
{
	struct anon_fixture *f = test->priv;
	struct anon_inode *ai = &f->ai;

	bitmap_set(f->fc.resident, 0, 8);
	KUNIT_ASSERT_EQ(test, anon_mmap(ai, 0, 8), 0);
	KUNIT_ASSERT_EQ(test, anon_vma_dup(ai, 4, 4), 0);
	KUNIT_EXPECT_EQ(test, anon_munmap(ai, 0, 8), 4UL);
	KUNIT_EXPECT_EQ(test, f->fc.lock_calls, 4U);
	KUNIT_EXPECT_EQ(test, bitmap_weight(f->fc.resident, NR_FAKE), 4U);
	KUNIT_EXPECT_TRUE(test, test_bit(4, f->fc.resident));
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 4), 1UL);
	KUNIT_EXPECT_EQ(test, anon_munmap(ai, 4, 4), 4UL);
	KUNIT_EXPECT_EQ(test, f->fc.lock_calls, 8U);
	KUNIT_EXPECT_EQ(test, ai->reclaimed, 8UL);
}

/* An index past the table: -EFBIG, nothing counted, nothing built. */
static void anon_test_efbig(struct kunit *test)
{
	struct anon_fixture *f = test->priv;
	unsigned long max = shmem_geom_x86_64.max_index;

	KUNIT_EXPECT_EQ(test, anon_mmap(&f->ai, max - 1, 2), -EFBIG);
	KUNIT_EXPECT_EQ(test, f->ai.maps.nr_pages, 0UL);
	KUNIT_ASSERT_EQ(test, anon_mmap(&f->ai, max - 1, 1), 0);
	KUNIT_EXPECT_EQ(test, f->ai.maps.nr_pages, 3UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(&f->ai, max - 1), 1UL);
}

/* Table pages left empty by unmapped ranges are what a trim frees. */
static void anon_test_trim(struct kunit *test)
{
	struct anon_fixture *f = test->priv;
	struct anon_inode *ai = &f->ai;

	KUNIT_ASSERT_EQ(test, anon_mmap(ai, 20, 1), 0);
	KUNIT_ASSERT_EQ(test, anon_mmap(ai, 16 + EPP, 2 * EPP), 0);
	KUNIT_EXPECT_EQ(test, ai->maps.nr_pages, 4UL);
	anon_munmap(ai, 16 + EPP, 2 * EPP);
	spin_lock(&ai->shm.lock);
	KUNIT_EXPECT_EQ(test, shmem_table_trim(&ai->maps, 16, 16 + 3 * EPP), 2UL);
	spin_unlock(&ai->shm.lock);
	KUNIT_EXPECT_EQ(test, ai->maps.nr_pages, 2UL);
	KUNIT_EXPECT_EQ(test, anon_map_count(ai, 20), 1UL);
}

static struct kunit_case anon_test_cases[] = {
	KUNIT_CASE(anon_test_span),
	KUNIT_CASE(anon_test_walk_runs),
	KUNIT_CASE(anon_test_middle),
	KUNIT_CASE(anon_test_munmap_decides),
	KUNIT_CASE(anon_test_efbig),
	KUNIT_CASE(anon_test_trim),
	{}
};

static struct kunit_suite anon_test_suite = {
	.name = "devanon",
	.init = anon_test_init,
	.exit = anon_test_exit,
	.test_cases = anon_test_cases,
};

kunit_test_suite(anon_test_suite);

MODULE_LICENSE("GPL");
