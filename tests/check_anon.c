/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_anon.c - /dev/anon map counts: each defect of the posted RFC patch
 * shown in ANON_POSTED and absent from ANON_FIXED, with exact counts.
 */
#include <config.h>

#include <limits.h>

#include "check_util.h"

/* x86_64 geometry: EPP 512, max_index 67239952 */
#define EPP 512UL
#define MAX_INDEX 67239952UL

static struct anon_inode ai;
static struct fake_pages fp;

static void start(enum anon_variant v)
{
	fp.n = 0;
	anon_inode_init(&ai, &shmem_geom_x86_64, v, &fake_pops, &fp);
}

/* Defects other than @except are all zero. */
static void only_defect(int except)
{
	int d;

	for (d = 0; d < ANON_NR_DEFECTS; d++)
		if (d != except)
			ck_assert_msg(ai.defects[d] == 0, "defect %s: %lu",
				      anon_defect_names[d], ai.defects[d]);
}

static void no_defects(void)
{
	only_defect(-1);
}

START_TEST(test_defect_names)
{
	ck_assert_str_eq(anon_defect_names[ANON_DEFECT_DUP_UNCOUNTED], "dup-uncounted");
	ck_assert_str_eq(anon_defect_names[ANON_DEFECT_INDEX_UNCHECKED], "index-unchecked");
	for (int d = 0; d < ANON_NR_DEFECTS; d++)
		ck_assert_ptr_nonnull(anon_defect_names[d]);
}
END_TEST

/* ---- dup-uncounted: fork copies the vma, the parent unmaps ------------ */

static unsigned long dup_scenario(enum anon_variant v)
{
	unsigned long i, got;

	start(v);
	for (i = 0; i < 4; i++)
		fake_set(&fp, i, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 4), 0);
	ck_assert_int_eq(anon_vma_dup(&ai, 0, 4), 0);	/* fork */
	got = anon_munmap(&ai, 0, 4);			/* the parent unmaps */
	return got;
}

START_TEST(test_defect_dup_uncounted_posted)
{
	/* counts 1 -> 0: the four pages the child still maps are freed */
	ck_assert_uint_eq(dup_scenario(ANON_POSTED), 4);
	ck_assert_uint_eq(anon_map_count(&ai, 0), 0);
	ck_assert_int_eq(fake_resident(&fp, 0), 0);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_DUP_UNCOUNTED], 1);
	/* the child's munmap then underflows each of the four counts */
	ck_assert_uint_eq(anon_munmap(&ai, 0, 4), 0);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_COUNT_UNDERFLOW], 4);
}
END_TEST

START_TEST(test_defect_dup_uncounted_fixed)
{
	/* counts 2 -> 1: nothing freed while the child maps the pages */
	ck_assert_uint_eq(dup_scenario(ANON_FIXED), 0);
	ck_assert_uint_eq(anon_map_count(&ai, 0), 1);
	ck_assert_int_eq(fake_resident(&fp, 0), 1);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 4), 4);
	no_defects();
	ck_assert_uint_eq(ctx.warnings, 0);
}
END_TEST

/* ---- pte-only-reclaim: page 0 resident but unmapped here, page 1 swapped */

static unsigned long pte_scenario(enum anon_variant v)
{
	swp_entry_t e = { 77 };

	start(v);
	fake_set(&fp, 0, 1, 0);
	ck_assert_int_eq(shmem_swap_out(&ai.shm, 1, e), 0);
	ck_assert_int_eq(anon_mmap(&ai, 0, 2), 0);
	return anon_munmap(&ai, 0, 2);
}

START_TEST(test_defect_pte_only_reclaim_posted)
{
	ck_assert_uint_eq(pte_scenario(ANON_POSTED), 0);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_PTE_ONLY_RECLAIM], 2);
	ck_assert_int_eq(fake_resident(&fp, 0), 1);		/* page stays */
	ck_assert_uint_eq(shmem_swap_lookup(&ai.shm, 1).val, 77); /* leaked */
	ck_assert_uint_eq(ctx.swap_frees, 0);
	ck_assert_uint_eq(ai.shm.swapped, 1);
}
END_TEST

START_TEST(test_defect_pte_only_reclaim_fixed)
{
	ck_assert_uint_eq(pte_scenario(ANON_FIXED), 2);
	ck_assert_int_eq(fake_resident(&fp, 0), 0);
	ck_assert_uint_eq(shmem_swap_lookup(&ai.shm, 1).val, 0);
	ck_assert_uint_eq(ctx.swap_frees, 1);
	ck_assert_uint_eq(ai.shm.swapped, 0);
	no_defects();
}
END_TEST

/* ---- map-table-leak: index 16 needs indirect + leaf map pages ---------- */

static void leak_scenario(enum anon_variant v)
{
	start(v);
	ck_assert_int_eq(anon_mmap(&ai, 16, 1), 0);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 2);
	anon_munmap(&ai, 16, 1);
	anon_truncate(&ai, 0);
}

START_TEST(test_defect_map_table_leak_posted)
{
	leak_scenario(ANON_POSTED);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 2);
	ck_assert_uint_eq(ai.maps.nr_pages, 2);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_MAP_TABLE_LEAK], 1);
}
END_TEST

START_TEST(test_defect_map_table_leak_fixed)
{
	leak_scenario(ANON_FIXED);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 0);
	ck_assert_uint_eq(ai.maps.nr_pages, 0);
	no_defects();
}
END_TEST

/* ---- stale-spare ---------------------------------------------------------- */

/* Fills the path of @index at the second spin_lock: after our allocation. */
struct racer {
	unsigned long index;
	int skip;
};

static void racer_fill(void *arg)
{
	struct racer *r = arg;

	if (r->skip-- > 0) {
		ctx.racer = racer_fill;
		return;
	}
	spin_lock(&ai.shm.lock);
	ck_assert(!IS_ERR_OR_NULL(shmem_table_get(&ai.maps, r->index, &ai.shm.lock)));
	spin_unlock(&ai.shm.lock);
}

/*
 * mmap(16, 3): index 16 allocates spare P1; the racer builds indirect +
 * leaf (2 allocations); P1 is left over and freed.  Posted keeps P1 set, so
 * indices 17 and 18 free it again: 2 double frees.
 */
static void double_free_scenario(enum anon_variant v)
{
	struct racer r = { 16, 1 };

	start(v);
	ctx.racer = racer_fill;
	ctx.racer_arg = &r;
	ck_assert_int_eq(anon_mmap(&ai, 16, 3), 0);
	ck_assert_uint_eq(anon_map_count(&ai, 18), 1);
	ck_assert_uint_eq(ctx.allocs[KAPI_PAGE_MAP_TABLE], 3);
	ck_assert_uint_eq(ctx.frees[KAPI_PAGE_MAP_TABLE], 1);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 2);
}

START_TEST(test_defect_stale_spare_posted)
{
	double_free_scenario(ANON_POSTED);
	ck_assert_uint_eq(ctx.bad_frees, 2);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_STALE_SPARE], 2);
	only_defect(ANON_DEFECT_STALE_SPARE);
}
END_TEST

START_TEST(test_defect_stale_spare_fixed)
{
	double_free_scenario(ANON_FIXED);
	ck_assert_uint_eq(ctx.bad_frees, 0);
	no_defects();
}
END_TEST

/*
 * mmap(A, 2) with A = 16 + EPP - 1, the last index of leaf 0; B = A + 1 is
 * the first of leaf 1.  At A spare P1 is left over (racer built indirect +
 * leaf 0) and freed.  Posted then walks B with P1 still set: P1 becomes
 * leaf 1 although it is free (use after free).  Fixed allocates a new leaf.
 */
static void uaf_scenario(enum anon_variant v)
{
	struct racer r = { 16 + EPP - 1, 1 };

	start(v);
	ctx.racer = racer_fill;
	ctx.racer_arg = &r;
	ck_assert_int_eq(anon_mmap(&ai, 16 + EPP - 1, 2), 0);
	ck_assert_uint_eq(anon_map_count(&ai, 16 + EPP - 1), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 16 + EPP), 1);
	ck_assert_uint_eq(ai.maps.nr_pages, 3);	/* indirect, leaf 0, leaf 1 */
	ck_assert_uint_eq(ctx.bad_frees, 0);
}

START_TEST(test_defect_stale_spare_uaf_posted)
{
	uaf_scenario(ANON_POSTED);
	/* allocated: P1, indirect, leaf 0; P1 freed and reused as leaf 1 */
	ck_assert_uint_eq(ctx.allocs[KAPI_PAGE_MAP_TABLE], 3);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 2);
	ck_assert(!kapi_page_live(&ctx, (unsigned long)ai.maps.indirect[1]));
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_STALE_SPARE], 1);
	only_defect(ANON_DEFECT_STALE_SPARE);
}
END_TEST

START_TEST(test_defect_stale_spare_uaf_fixed)
{
	uaf_scenario(ANON_FIXED);
	/* allocated: P1, indirect, leaf 0, leaf 1; P1 freed */
	ck_assert_uint_eq(ctx.allocs[KAPI_PAGE_MAP_TABLE], 4);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 3);
	ck_assert(kapi_page_live(&ctx, (unsigned long)ai.maps.indirect[1]));
	no_defects();
	anon_truncate(&ai, 0);
	ck_assert_uint_eq(held_total(), 0);
}
END_TEST

/* ---- unlocked-decrement: two pages mapped once, unmapped ---------------- */

static void unlocked_scenario(enum anon_variant v)
{
	start(v);
	fake_set(&fp, 0, 1, 1);
	fake_set(&fp, 1, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 2), 0);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 2), 2);
}

START_TEST(test_defect_unlocked_decrement_posted)
{
	unlocked_scenario(ANON_POSTED);
	/* 2 map-count walks + 2 swap-entry walks on reclaim, all unlocked */
	ck_assert_uint_eq(ctx.unlocked_walks, 4);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_UNLOCKED_DECREMENT], 2);
	only_defect(ANON_DEFECT_UNLOCKED_DECREMENT);
}
END_TEST

START_TEST(test_defect_unlocked_decrement_fixed)
{
	unlocked_scenario(ANON_FIXED);
	ck_assert_uint_eq(ctx.unlocked_walks, 0);
	ck_assert_uint_eq(ctx.lock_errors, 0);
	no_defects();
}
END_TEST

/* ---- count-underflow: mapped once, unmapped twice ------------------------ */

static void underflow_scenario(enum anon_variant v)
{
	start(v);
	fake_set(&fp, 0, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 1), 0);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 1), 1);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 1), 0);
}

START_TEST(test_defect_count_underflow_posted)
{
	underflow_scenario(ANON_POSTED);
	ck_assert_uint_eq(anon_map_count(&ai, 0), ULONG_MAX);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_COUNT_UNDERFLOW], 1);
	ck_assert_uint_eq(ctx.warnings, 0);
}
END_TEST

START_TEST(test_defect_count_underflow_fixed)
{
	underflow_scenario(ANON_FIXED);
	ck_assert_uint_eq(anon_map_count(&ai, 0), 0);
	ck_assert_uint_eq(ctx.warnings, 1);
	no_defects();
}
END_TEST

/* ---- enomem-no-rollback: mmap(14, 4), leaf allocation for 16 fails ------- */

static void enomem_scenario(enum anon_variant v)
{
	start(v);
	/* allocation 1: indirect page, 2: leaf 0 (fails) */
	ctx.nr_allocs = 0;
	ctx.fail_nth = 2;
	ck_assert_int_eq(anon_mmap(&ai, 14, 4), -ENOMEM);
	ctx.fail_nth = 0;
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 1);
}

START_TEST(test_defect_enomem_no_rollback_posted)
{
	enomem_scenario(ANON_POSTED);
	/* 14 and 15 keep the counts taken before the failure */
	ck_assert_uint_eq(anon_map_count(&ai, 14), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 15), 1);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_ENOMEM_NO_ROLLBACK], 1);
	only_defect(ANON_DEFECT_ENOMEM_NO_ROLLBACK);
}
END_TEST

START_TEST(test_defect_enomem_no_rollback_fixed)
{
	enomem_scenario(ANON_FIXED);
	ck_assert_uint_eq(anon_map_count(&ai, 14), 0);
	ck_assert_uint_eq(anon_map_count(&ai, 15), 0);
	ck_assert_uint_eq(ctx.warnings, 0);
	ck_assert_int_eq(ai.shm.lock.held, 0);
	no_defects();
	anon_truncate(&ai, 0);
	ck_assert_uint_eq(held_total(), 0);
}
END_TEST

/* ---- swapped-not-updated: a mapped page whose swap entry is still set ---- */

static void swapped_scenario(enum anon_variant v)
{
	swp_entry_t e = { 9 };

	start(v);
	fake_set(&fp, 0, 1, 1);		/* in the swap cache and mapped */
	ck_assert_int_eq(shmem_swap_out(&ai.shm, 0, e), 0);
	ck_assert_int_eq(anon_mmap(&ai, 0, 1), 0);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 1), 1);
	ck_assert_uint_eq(ctx.swap_frees, 1);
	ck_assert_uint_eq(shmem_swap_lookup(&ai.shm, 0).val, 0);
}

START_TEST(test_defect_swapped_not_updated_posted)
{
	swapped_scenario(ANON_POSTED);
	ck_assert_uint_eq(ai.shm.swapped, 1);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_SWAPPED_NOT_UPDATED], 1);
}
END_TEST

START_TEST(test_defect_swapped_not_updated_fixed)
{
	swapped_scenario(ANON_FIXED);
	ck_assert_uint_eq(ai.shm.swapped, 0);
	no_defects();
}
END_TEST

/* ---- index-unchecked: mmap(max_index - 1, 2) ------------------------------ */

START_TEST(test_defect_index_unchecked_posted)
{
	start(ANON_POSTED);
	ck_assert_int_eq(anon_mmap(&ai, MAX_INDEX - 1, 2), -EFBIG);
	/* the last index was counted (indirect + middle + leaf) and kept */
	ck_assert_uint_eq(anon_map_count(&ai, MAX_INDEX - 1), 1);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 3);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_INDEX_UNCHECKED], 1);
	only_defect(ANON_DEFECT_INDEX_UNCHECKED);
}
END_TEST

START_TEST(test_defect_index_unchecked_fixed)
{
	start(ANON_FIXED);
	ck_assert_int_eq(anon_mmap(&ai, MAX_INDEX - 1, 2), -EFBIG);
	ck_assert_uint_eq(anon_map_count(&ai, MAX_INDEX - 1), 0);
	ck_assert_uint_eq(held_total(), 0);
	no_defects();
}
END_TEST

/* ---- fixed: balanced mapping, teardown clean ------------------------------ */

START_TEST(test_fixed_teardown_clean)
{
	unsigned long i;

	start(ANON_FIXED);
	for (i = 0; i < 20; i++)
		fake_set(&fp, i, 1, (int)(i & 1));
	ck_assert_int_eq(anon_mmap(&ai, 0, 20), 0);
	ck_assert_int_eq(anon_vma_dup(&ai, 10, 10), 0);
	/* 0..9 drop to zero: 10 reclaimed, mapped or not */
	ck_assert_uint_eq(anon_munmap(&ai, 0, 20), 10);
	ck_assert_uint_eq(anon_munmap(&ai, 10, 10), 10);
	ck_assert_uint_eq(ai.reclaimed, 20);
	anon_truncate(&ai, 0);
	ck_assert_uint_eq(held_total(), 0);
	ck_assert_uint_eq(ctx.warnings + ctx.bad_frees + ctx.lock_errors +
			  ctx.unlocked_walks, 0);
	no_defects();
}
END_TEST

static Suite *anon_suite(void)
{
	Suite *s = suite_create("anon");
	TCase *tc = tcase_create("defects");

	tcase_add_checked_fixture(tc, ctx_setup, ctx_teardown);
	tcase_add_test(tc, test_defect_names);
	tcase_add_test(tc, test_defect_dup_uncounted_posted);
	tcase_add_test(tc, test_defect_dup_uncounted_fixed);
	tcase_add_test(tc, test_defect_pte_only_reclaim_posted);
	tcase_add_test(tc, test_defect_pte_only_reclaim_fixed);
	tcase_add_test(tc, test_defect_map_table_leak_posted);
	tcase_add_test(tc, test_defect_map_table_leak_fixed);
	tcase_add_test(tc, test_defect_stale_spare_posted);
	tcase_add_test(tc, test_defect_stale_spare_fixed);
	tcase_add_test(tc, test_defect_stale_spare_uaf_posted);
	tcase_add_test(tc, test_defect_stale_spare_uaf_fixed);
	tcase_add_test(tc, test_defect_unlocked_decrement_posted);
	tcase_add_test(tc, test_defect_unlocked_decrement_fixed);
	tcase_add_test(tc, test_defect_count_underflow_posted);
	tcase_add_test(tc, test_defect_count_underflow_fixed);
	tcase_add_test(tc, test_defect_enomem_no_rollback_posted);
	tcase_add_test(tc, test_defect_enomem_no_rollback_fixed);
	tcase_add_test(tc, test_defect_swapped_not_updated_posted);
	tcase_add_test(tc, test_defect_swapped_not_updated_fixed);
	tcase_add_test(tc, test_defect_index_unchecked_posted);
	tcase_add_test(tc, test_defect_index_unchecked_fixed);
	tcase_add_test(tc, test_fixed_teardown_clean);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(anon_suite());
}
