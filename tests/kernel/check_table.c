/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_table.c - the block table: boundaries, spare pages, allocation
 * failure, a differential run against a flat array, teardown.
 */
#include <config.h>

#include <stdlib.h>

#include "check_util.h"
#include "model/core_check.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif
#ifdef HAVE_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* Loop tests run once per geometry: _i indexes this array. */
static const struct shmem_geom *const geoms[] = {
	&shmem_geom_i386, &shmem_geom_x86_64,
};

/*
 * Boundary indices, worked out per geometry (EPP entries per page):
 *   i386   EPP 1024: first half ends at 16 + 1024*512 - 1 = 524303,
 *                    max_index = 16 + 524288 * 1025 = 537395216
 *   x86_64 EPP 512:  first half ends at 16 + 512*256 - 1 = 131087,
 *                    max_index = 16 + 131072 * 513 = 67239952
 */
static const struct {
	unsigned long last_first_half, first_mid, max_index;
} bounds[] = {
	{ 524303, 524304, 537395216 },
	{ 131087, 131088, 67239952 },
};

static struct shmem_table t;
static spinlock_t lock;

/* Each test starts with a context whose table pages fit geometry _i. */
static void setup(int i)
{
	ctx_setup_geom(geoms[i]);
	spin_lock_init(&lock);
}

START_TEST(test_geometry_constants)
{
	setup(_i);
	ck_assert_uint_eq(geoms[_i]->entries_per_page, _i ? 512 : 1024);
	/* the walk shifts by it: 2^10 and 2^9 entries */
	ck_assert_uint_eq(geoms[_i]->epp_shift, _i ? 9 : 10);
	ck_assert_uint_eq(geoms[_i]->max_index, bounds[_i].max_index);
}
END_TEST

/* Table pages an empty table needs for @index, and the entry it hands out. */
static unsigned long pages_for(const struct shmem_geom *g, unsigned long index)
{
	unsigned long *e, pages;

	shmem_table_init(&t, g, KAPI_PAGE_SWAP_TABLE);
	spin_lock(&lock);
	e = shmem_table_get(&t, index, &lock);
	ck_assert_msg(!IS_ERR_OR_NULL(e), "index %lu: no entry", index);
	*e = 0x5a;
	ck_assert_ptr_eq(shmem_table_walk(&t, index, NULL), e);
	pages = t.nr_pages;
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_SWAP_TABLE], pages);
	ck_assert_uint_eq(shmem_table_truncate(&t, 0, NULL, NULL), 1);
	spin_unlock(&lock);
	ck_assert_uint_eq(t.nr_pages, 0);
	ck_assert_uint_eq(held_total(), 0);
	return pages;
}

START_TEST(test_boundaries_each)
{
	const struct shmem_geom *g = geoms[_i];

	setup(_i);
	ck_assert_uint_eq(pages_for(g, 0), 0);		/* direct */
	ck_assert_uint_eq(pages_for(g, 15), 0);		/* last direct */
	ck_assert_uint_eq(pages_for(g, 16), 2);		/* indirect + leaf */
	/* still the first half: indirect + leaf EPP/2 - 1 */
	ck_assert_uint_eq(pages_for(g, bounds[_i].last_first_half), 2);
	/* behind a middle page: indirect + middle + leaf */
	ck_assert_uint_eq(pages_for(g, bounds[_i].first_mid), 3);
	ck_assert_uint_eq(pages_for(g, bounds[_i].max_index - 1), 3);
	ck_assert_uint_eq(ctx.bad_frees, 0);
	ck_assert_uint_eq(ctx.lock_errors, 0);
}
END_TEST

START_TEST(test_max_index_efbig)
{
	unsigned long page = 0;

	setup(_i);
	shmem_table_init(&t, geoms[_i], KAPI_PAGE_SWAP_TABLE);
	spin_lock(&lock);
	ck_assert_ptr_eq(shmem_table_get(&t, bounds[_i].max_index, &lock),
			 ERR_PTR(-EFBIG));
	ck_assert_ptr_eq(shmem_table_walk(&t, bounds[_i].max_index, &page),
			 ERR_PTR(-EFBIG));
	spin_unlock(&lock);
	ck_assert_uint_eq(t.nr_pages, 0);
	ck_assert_uint_eq(ctx.nr_allocs, 0);
}
END_TEST

/*
 * All boundaries in one table, pages cumulative: 0 and 15 need none; 16
 * brings indirect + leaf 0 (2); the last first-half index leaf EPP/2-1 (3);
 * the first middle index middle 0 + its leaf 0 (5); the last index middle
 * EPP/2-1 + its leaf EPP-1 (7).  Truncation then peels them off again.
 */
START_TEST(test_boundaries_cumulative)
{
	const unsigned long idx[6] = {
		0, 15, 16, bounds[_i].last_first_half, bounds[_i].first_mid,
		bounds[_i].max_index - 1,
	};
	const unsigned long pages[6] = { 0, 0, 2, 3, 5, 7 };
	unsigned long *e;
	int i;

	setup(_i);
	shmem_table_init(&t, geoms[_i], KAPI_PAGE_MAP_TABLE);
	spin_lock(&lock);
	for (i = 0; i < 6; i++) {
		e = shmem_table_get(&t, idx[i], &lock);
		ck_assert(!IS_ERR_OR_NULL(e));
		*e = (unsigned long)i + 1;
		ck_assert_uint_eq(t.nr_pages, pages[i]);
		ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], pages[i]);
	}
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(*shmem_table_walk(&t, idx[i], NULL),
				  (unsigned long)i + 1);
	/* from the first middle index: both middles and their leaves go */
	ck_assert_uint_eq(shmem_table_pages_beyond(&t, bounds[_i].first_mid), 4);
	ck_assert_uint_eq(shmem_table_truncate(&t, bounds[_i].first_mid, NULL, NULL), 2);
	ck_assert_uint_eq(t.nr_pages, 3);
	/* from 17: leaf EPP/2-1 goes, leaf 0 still covers 16 */
	ck_assert_uint_eq(shmem_table_truncate(&t, 17, NULL, NULL), 1);
	ck_assert_uint_eq(t.nr_pages, 2);
	ck_assert_uint_eq(*shmem_table_walk(&t, 16, NULL), 3);
	/* from 16: leaf 0 and the indirect page */
	ck_assert_uint_eq(shmem_table_truncate(&t, 16, NULL, NULL), 1);
	ck_assert_uint_eq(t.nr_pages, 0);
	ck_assert_ptr_null(t.indirect);
	ck_assert_uint_eq(*shmem_table_walk(&t, 15, NULL), 2);
	ck_assert_uint_eq(shmem_table_truncate(&t, 0, NULL, NULL), 2);
	spin_unlock(&lock);
	ck_assert_uint_eq(held_total(), 0);
	ck_assert_uint_eq(ctx.frees[KAPI_PAGE_MAP_TABLE], 7);
	ck_assert_uint_eq(ctx.bad_frees, 0);
}
END_TEST

/* Walk @index with a fresh spare; returns the entry, checks consumption. */
static unsigned long *walk_spare(unsigned long index, int consumed)
{
	unsigned long page = kapi_get_zeroed_page(GFP_KERNEL, t.kind);
	unsigned long before = t.nr_pages, *e;

	ck_assert_uint_ne(page, 0);
	e = shmem_table_walk(&t, index, &page);
	if (consumed) {
		ck_assert_uint_eq(page, 0);
		ck_assert_uint_eq(t.nr_pages, before + 1);
	} else {
		ck_assert_uint_ne(page, 0);
		ck_assert_uint_eq(t.nr_pages, before);
		kapi_free_page(page, t.kind);
	}
	return e;
}

/* A spare goes to the first missing level; NULL until the leaf exists. */
START_TEST(test_spare_each_level)
{
	unsigned long zero = 0, *e;

	setup(_i);
	shmem_table_init(&t, geoms[_i], KAPI_PAGE_SWAP_TABLE);
	spin_lock(&lock);
	/* no spare, or an empty one: nothing installed */
	ck_assert_ptr_null(shmem_table_walk(&t, bounds[_i].first_mid, NULL));
	ck_assert_ptr_null(shmem_table_walk(&t, bounds[_i].first_mid, &zero));
	ck_assert_uint_eq(t.nr_pages, 0);
	/* direct entries never take the spare */
	ck_assert_ptr_eq(walk_spare(3, 0), &t.direct[3]);
	/* first middle index: indirect, then middle, then leaf */
	ck_assert_ptr_null(walk_spare(bounds[_i].first_mid, 1));
	ck_assert_ptr_nonnull(t.indirect);
	ck_assert_ptr_null(walk_spare(bounds[_i].first_mid, 1));
	e = walk_spare(bounds[_i].first_mid, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert(!IS_ERR(e));
	ck_assert_uint_eq(t.nr_pages, 3);
	/* all levels there: the spare stays with the caller */
	ck_assert_ptr_eq(walk_spare(bounds[_i].first_mid, 0), e);
	/* index 16: indirect exists, its leaf is the one missing level */
	e = walk_spare(16, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(t.nr_pages, 4);
	shmem_table_truncate(&t, 0, NULL, NULL);
	spin_unlock(&lock);
	ck_assert_uint_eq(held_total(), 0);
	ck_assert_uint_eq(ctx.bad_frees, 0);
}
END_TEST

/* The racer fills the whole path of its index while the lock is dropped. */
struct racer {
	struct shmem_table *t;
	spinlock_t *lock;
	unsigned long index;
	int skip;		/* spin_locks to let pass first */
};

static void racer_fill(void *arg)
{
	struct racer *r = arg;

	if (r->skip-- > 0) {
		ctx.racer = racer_fill;
		return;
	}
	spin_lock(r->lock);
	ck_assert(!IS_ERR_OR_NULL(shmem_table_get(r->t, r->index, r->lock)));
	spin_unlock(r->lock);
}

/*
 * get(16) on an empty table allocates spare P1 with the lock dropped; the
 * racer then builds indirect + leaf itself (2 allocations).  P1 is left
 * over and freed: 3 allocations, 1 free, 2 pages held, no bad free.
 */
START_TEST(test_get_frees_leftover_spare)
{
	struct racer r = { &t, &lock, 16, 0 };
	unsigned long *e;

	setup(_i);
	shmem_table_init(&t, geoms[_i], KAPI_PAGE_SWAP_TABLE);
	spin_lock(&lock);
	ctx.racer = racer_fill;
	ctx.racer_arg = &r;
	e = shmem_table_get(&t, 16, &lock);
	ck_assert_ptr_eq(e, shmem_table_walk(&t, 16, NULL));
	ck_assert_uint_eq(ctx.allocs[KAPI_PAGE_SWAP_TABLE], 3);
	ck_assert_uint_eq(ctx.frees[KAPI_PAGE_SWAP_TABLE], 1);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_SWAP_TABLE], 2);
	ck_assert_uint_eq(t.nr_pages, 2);
	shmem_table_truncate(&t, 0, NULL, NULL);
	spin_unlock(&lock);
	ck_assert_uint_eq(held_total(), 0);
	ck_assert_uint_eq(ctx.bad_frees, 0);
	ck_assert_uint_eq(ctx.lock_errors, 0);
}
END_TEST

/*
 * Allocation failure at each level of the first middle index: allocation
 * 1 is the indirect page, 2 the middle, 3 the leaf.  Failing the Nth leaves
 * the N-1 before it installed (and freed by truncate), lock held.
 */
START_TEST(test_alloc_failure_each_level)
{
	unsigned long n;

	setup(_i);
	for (n = 1; n <= 3; n++) {
		shmem_table_init(&t, geoms[_i], KAPI_PAGE_SWAP_TABLE);
		ctx.nr_allocs = 0;
		ctx.fail_nth = n;
		spin_lock(&lock);
		ck_assert_ptr_eq(shmem_table_get(&t, bounds[_i].first_mid, &lock),
				 ERR_PTR(-ENOMEM));
		ck_assert_int_eq(lock.held, 1);
		ck_assert_uint_eq(t.nr_pages, n - 1);
		ck_assert_uint_eq(ctx.held[KAPI_PAGE_SWAP_TABLE], n - 1);
		ck_assert_uint_eq(shmem_table_truncate(&t, 0, NULL, NULL), 0);
		spin_unlock(&lock);
		ck_assert_uint_eq(held_total(), 0);
	}
	ck_assert_uint_eq(ctx.bad_frees, 0);
	ck_assert_uint_eq(ctx.lock_errors, 0);
}
END_TEST

/* Through the inode: -ENOMEM changes nothing, -EFBIG beyond the end. */
START_TEST(test_swap_out_failure)
{
	struct shmem_inode info;
	swp_entry_t e = { 42 };
	unsigned long n;

	setup(_i);
	shmem_inode_init(&info, geoms[_i], &fake_pops, NULL);
	for (n = 1; n <= 2; n++) {
		ctx.nr_allocs = 0;
		ctx.fail_nth = n;
		ck_assert_int_eq(shmem_swap_out(&info, 16, e), -ENOMEM);
		ck_assert_uint_eq(info.swapped, 0);
		ck_assert_uint_eq(shmem_swap_lookup(&info, 16).val, 0);
	}
	ctx.fail_nth = 0;
	ck_assert_int_eq(shmem_swap_out(&info, bounds[_i].max_index, e), -EFBIG);
	ck_assert_int_eq(shmem_swap_out(&info, 16, e), 0);
	ck_assert_uint_eq(info.swapped, 1);
	ck_assert_uint_eq(shmem_swap_lookup(&info, 16).val, 42);
	shmem_truncate(&info, 0);
	ck_assert_uint_eq(info.swapped, 0);
	ck_assert_uint_eq(ctx.swap_frees, 1);
	ck_assert_uint_eq(held_total(), 0);
	ck_assert_uint_eq(ctx.unlocked_walks, 0);
}
END_TEST

START_TEST(test_differential)
{
	char err[256] = "";

	setup(_i);
	/* 100,000 operations, fixed seed */
	ck_assert_msg(core_check_differential(geoms[_i], 1, 100000, NULL, err,
					      sizeof(err)) == 0, "%s", err);
}
END_TEST

/* The same with allocation failures injected: each leaves the table as it was. */
START_TEST(test_differential_enomem)
{
	char err[256] = "";
	unsigned long enomem = 0;

	setup(_i);
	ck_assert_msg(core_check_differential(geoms[_i], 2, 100000, &enomem, err,
					      sizeof(err)) == 0, "%s", err);
	/* a failure needs an operation that allocates: some did */
	ck_assert_uint_gt(enomem, 100);
}
END_TEST

/*
 * The run the kernel fuzzer makes, its choices given as bytes (four, little
 * endian, per choice: operation % 100, slot % 1536, length - 1 % 8, then,
 * for a swap out or mmap, the injected failure: v % 4 == 0 fails the
 * allocation after (v / 4) % 3 that succeed).  Slot 256 is the first of
 * the second window, index SHMEM_NR_DIRECT + EPP - 128: in leaf 0, so its
 * map count or swap entry needs the indirect page and leaf 0.
 *   mmap 256+1, the indirect page fails: -ENOMEM, nothing installed
 *   mmap 256+1: indirect and leaf installed, count 1
 *   swap out 256, the indirect page is had, the leaf fails: -ENOMEM
 *   swap out 256: the leaf is installed
 *   munmap 256+1: count 0, the swap entry freed
 * then two bytes, too few for a choice: the run ends, and its teardown
 * finds every table page back.  Two operations failed.
 */
START_TEST(test_differential_data)
{
	static const uint32_t choice[] = {
		60, 256, 0, 0,
		60, 256, 0, 1,
		10, 256, 0, 4,
		10, 256, 0, 1,
		80, 256, 0,
	};
	unsigned char data[sizeof(choice) + 2];
	unsigned long enomem = 0;
	char err[256] = "";
	size_t i;

	setup(_i);
	for (i = 0; i < sizeof(choice); i++)
		data[i] = (unsigned char)(choice[i / 4] >> (8 * (i % 4)));
	data[sizeof(choice)] = data[sizeof(choice) + 1] = 0xff;
	ck_assert_msg(core_check_differential_data(geoms[_i], data, sizeof(data), &enomem,
						   err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(enomem, 2);
	/* without failures injected the same bytes mean other choices: the
	 * v of a swap out or mmap is the next operation; still no disagreement */
	ck_assert_msg(core_check_differential_data(geoms[_i], data, sizeof(data), NULL,
						   err, sizeof(err)) == 0, "%s", err);
}
END_TEST

/*
 * A table page holds the geometry's EPP entries as native words and no
 * more: 512 words for x86_64 (4 KiB on a 64-bit host), 1024 for i386 (8 KiB
 * there).  Under the address sanitizer the word behind entry EPP-1 of a
 * leaf (x86_64: entry 511) is poisoned, so a walk past it is reported.
 */
START_TEST(test_table_page_size)
{
	unsigned long epp = geoms[_i]->entries_per_page;
	unsigned long *last;

	setup(_i);
	ck_assert_uint_eq(ctx.table_page_bytes, epp * sizeof(unsigned long));
	if (sizeof(unsigned long) == 8)
		ck_assert_uint_eq(ctx.table_page_bytes, _i ? 4096 : 8192);
	shmem_table_init(&t, geoms[_i], KAPI_PAGE_SWAP_TABLE);
	spin_lock(&lock);
	last = shmem_table_get(&t, SHMEM_NR_DIRECT + epp - 1, &lock);
	ck_assert(!IS_ERR_OR_NULL(last));
	ck_assert_ptr_eq(last, (unsigned long *)t.indirect[0] + epp - 1);
#ifdef HAVE_ASAN
	ck_assert(!__asan_address_is_poisoned(last));
	ck_assert(__asan_address_is_poisoned(last + 1));
#endif
	shmem_table_truncate(&t, 0, NULL, NULL);
	spin_unlock(&lock);
	ck_assert_uint_eq(held_total(), 0);
}
END_TEST

/*
 * Teardown: swap entries and map counts spread over every level of both
 * tables; truncate(0) must hand back every table page of each kind.
 */
/*
 * The userspace kernel API counts lock misuse instead of deadlocking: a
 * lock taken twice (one error), released twice (another), and a free of a
 * page it never handed out or already took back (a bad free each).
 */
START_TEST(test_kapi_counts_misuse)
{
	unsigned long page;

	setup(0);
	spin_lock(&lock);
	spin_lock(&lock);
	ck_assert_uint_eq(ctx.lock_errors, 1);
	spin_unlock(&lock);
	spin_unlock(&lock);
	ck_assert_uint_eq(ctx.lock_errors, 2);
	lockdep_assert_held(&lock);
	ck_assert_uint_eq(ctx.unlocked_walks, 1);
	page = kapi_get_zeroed_page(GFP_KERNEL, KAPI_PAGE_SWAP_TABLE);
	ck_assert_uint_ne(page, 0);
	kapi_free_page(page, KAPI_PAGE_SWAP_TABLE);
	kapi_free_page(page, KAPI_PAGE_SWAP_TABLE);
	kapi_free_page((unsigned long)&lock, KAPI_PAGE_SWAP_TABLE);
	ck_assert_uint_eq(ctx.bad_frees, 2);
	ck_assert_uint_eq(ctx.allocs[KAPI_PAGE_SWAP_TABLE], 1);
	ck_assert_uint_eq(ctx.frees[KAPI_PAGE_SWAP_TABLE], 1);
	ck_assert_uint_eq(held_total(), 0);
}
END_TEST

START_TEST(test_teardown_returns_all)
{
	static struct anon_inode ai;
	struct fake_pages fp = { .n = 0 };
	const unsigned long idx[5] = {
		5, 16, bounds[_i].last_first_half, bounds[_i].first_mid,
		bounds[_i].max_index - 1,
	};
	swp_entry_t e;
	int i;

	setup(_i);
	anon_inode_init(&ai, geoms[_i], ANON_FIXED, &fake_pops, &fp);
	for (i = 0; i < 5; i++) {
		e.val = 100 + (unsigned long)i;
		ck_assert_int_eq(shmem_swap_out(&ai.shm, idx[i], e), 0);
		ck_assert_int_eq(anon_mmap(&ai, idx[i], 1), 0);
	}
	/* per table: indirect, leaves 0 and EPP/2-1, 2 middles, 2 leaves = 7 */
	ck_assert_uint_eq(ai.shm.swap.nr_pages, 7);
	ck_assert_uint_eq(ai.maps.nr_pages, 7);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_SWAP_TABLE], 7);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 7);
	anon_truncate(&ai, 0);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_SWAP_TABLE], 0);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 0);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_DATA], 0);
	ck_assert_uint_eq(ai.shm.swap.nr_pages + ai.maps.nr_pages, 0);
	ck_assert_uint_eq(ctx.swap_frees, 5);
	ck_assert_uint_eq(ai.shm.swapped, 0);
	ck_assert_uint_eq(ctx.bad_frees + ctx.warnings + ctx.lock_errors, 0);
}
END_TEST

static Suite *table_suite(void)
{
	Suite *s = suite_create("table");
	TCase *tc = tcase_create("table");

	tcase_add_checked_fixture(tc, NULL, ctx_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_geometry_constants, 0, 2);
	tcase_add_loop_test(tc, test_boundaries_each, 0, 2);
	tcase_add_loop_test(tc, test_max_index_efbig, 0, 2);
	tcase_add_loop_test(tc, test_boundaries_cumulative, 0, 2);
	tcase_add_loop_test(tc, test_spare_each_level, 0, 2);
	tcase_add_loop_test(tc, test_get_frees_leftover_spare, 0, 2);
	tcase_add_loop_test(tc, test_alloc_failure_each_level, 0, 2);
	tcase_add_loop_test(tc, test_swap_out_failure, 0, 2);
	tcase_add_loop_test(tc, test_differential, 0, 2);
	tcase_add_loop_test(tc, test_differential_enomem, 0, 2);
	tcase_add_loop_test(tc, test_differential_data, 0, 2);
	tcase_add_loop_test(tc, test_table_page_size, 0, 2);
	tcase_add_loop_test(tc, test_teardown_returns_all, 0, 2);
	tcase_add_test(tc, test_kapi_counts_misuse);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(table_suite());
}
