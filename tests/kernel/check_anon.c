/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_anon.c - /dev/anon map counts: each defect of the posted RFC patch
 * shown in ANON_POSTED and absent from ANON_FIXED, with exact counts.
 */
#include <config.h>

#include <limits.h>

#include "check_util.h"
#include "kernel/anon_dev.h"

/* x86_64 geometry: EPP 512, max_index 67239952 */
#define EPP 512UL
#define MAX_INDEX 67239952UL

static struct anon_inode ai;
static struct fake_pages fp;

static void start(enum anon_variant v)
{
	fp.n = 0;
	fp.waits = 0;
	fp.lock_calls = 0;
	anon_inode_init(&ai, &shmem_geom_x86_64, v, &fake_pops, &fp);
}

/* Defects other than @a and @b (-1: none) are all zero. */
static void only_defects(int a, int b)
{
	int d;

	for (d = 0; d < ANON_NR_DEFECTS; d++)
		if (d != a && d != b)
			ck_assert_msg(ai.defects[d] == 0, "defect %s: %lu",
				      anon_defect_names[d], ai.defects[d]);
}

static void only_defect(int except)
{
	only_defects(except, -1);
}

/* A first mmap at an offset maps beyond the i_size it sets: once. */
static void only_defect_and_size(int except)
{
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_SIZE_FIRST_MAP], 1);
	only_defects(except, ANON_DEFECT_SIZE_FIRST_MAP);
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
	only_defect_and_size(ANON_DEFECT_STALE_SPARE);
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
	only_defect_and_size(ANON_DEFECT_STALE_SPARE);
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
}

START_TEST(test_defect_enomem_no_rollback_posted)
{
	enomem_scenario(ANON_POSTED);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 1);
	/* 14 and 15 keep the counts taken before the failure */
	ck_assert_uint_eq(anon_map_count(&ai, 14), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 15), 1);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_ENOMEM_NO_ROLLBACK], 1);
	only_defect_and_size(ANON_DEFECT_ENOMEM_NO_ROLLBACK);
}
END_TEST

START_TEST(test_defect_enomem_no_rollback_fixed)
{
	enomem_scenario(ANON_FIXED);
	/* the indirect page it built is freed with the counts */
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 0);
	ck_assert_uint_eq(anon_map_count(&ai, 14), 0);
	ck_assert_uint_eq(anon_map_count(&ai, 15), 0);
	ck_assert_uint_eq(ctx.warnings, 0);
	ck_assert_int_eq(ai.shm.lock.held, 0);
	no_defects();
	anon_truncate(&ai, 0);
	ck_assert_uint_eq(held_total(), 0);
}
END_TEST

/*
 * ---- shmem_free_swp(entry, 1) under 2.4.23: page 0 went to swap and came
 * back: shmem_getpage cleared its entry (2.4.23 mm/shmem.c) when it put the
 * page back in the page cache, as shmem_swap_in does.  Mapped, then
 * unmapped: there is no entry left to free, and both variants free none.
 */
static void swapped_in_scenario(enum anon_variant v)
{
	swp_entry_t e = { 9 };

	start(v);
	ck_assert_int_eq(shmem_swap_out(&ai.shm, 0, e), 0);
	ck_assert_uint_eq(ai.shm.swapped, 1);
	ck_assert_uint_eq(shmem_swap_in(&ai.shm, 0).val, 9);	/* the fault */
	fake_set(&fp, 0, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 1), 0);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 1), 1);
	ck_assert_int_eq(fake_resident(&fp, 0), 0);
	ck_assert_uint_eq(shmem_swap_lookup(&ai.shm, 0).val, 0);
	ck_assert_uint_eq(ai.shm.swapped, 0);
	ck_assert_uint_eq(ctx.swap_frees, 0);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_SWAP_NOT_FREED], 0);
}

START_TEST(test_swapped_in_posted)
{
	swapped_in_scenario(ANON_POSTED);
	only_defect(ANON_DEFECT_UNLOCKED_DECREMENT);
}
END_TEST

START_TEST(test_swapped_in_fixed)
{
	swapped_in_scenario(ANON_FIXED);
	no_defects();
}
END_TEST

/*
 * ---- private-cow: page 0 mapped MAP_PRIVATE and written: the pte maps a
 * private copy.  Unmapping takes the count to zero.
 */
static unsigned long cow_scenario(enum anon_variant v)
{
	start(v);
	fake_set(&fp, 0, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 1), 0);
	fake_cow(&fp, 0);
	return anon_munmap(&ai, 0, 1);
}

START_TEST(test_defect_private_cow_posted)
{
	/* the copy is "removed"; the file's page stays, mapped by no one */
	ck_assert_uint_eq(cow_scenario(ANON_POSTED), 0);
	ck_assert_int_eq(fake_resident(&fp, 0), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 0), 0);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_PRIVATE_COW], 1);
}
END_TEST

START_TEST(test_defect_private_cow_fixed)
{
	ck_assert_uint_eq(cow_scenario(ANON_FIXED), 1);
	ck_assert_int_eq(fake_resident(&fp, 0), 0);
	no_defects();
}
END_TEST

/*
 * ---- swap-not-freed: as above, but the file's page, mapped by no one
 * after the copy-on-write, went to swap (entry 9) before the munmap: a
 * present pte over a page whose entry is set, a state 2.4.23 can reach.
 */
static unsigned long cow_swapped_scenario(enum anon_variant v)
{
	swp_entry_t e = { 9 };

	start(v);
	fake_set(&fp, 0, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 1), 0);
	fake_cow(&fp, 0);
	ck_assert_int_eq(shmem_swap_out(&ai.shm, 0, e), 0);
	fake_set(&fp, 0, 0, 0);
	return anon_munmap(&ai, 0, 1);
}

START_TEST(test_defect_swap_not_freed_posted)
{
	ck_assert_uint_eq(cow_swapped_scenario(ANON_POSTED), 0);
	/* shmem_free_swp(entry, 1) freed nothing: the slot stays taken */
	ck_assert_uint_eq(shmem_swap_lookup(&ai.shm, 0).val, 9);
	ck_assert_uint_eq(ai.shm.swapped, 1);
	ck_assert_uint_eq(ctx.swap_frees, 0);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_SWAP_NOT_FREED], 1);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_PRIVATE_COW], 1);
	/* until the file is released */
	anon_truncate(&ai, 0);
	ck_assert_uint_eq(ctx.swap_frees, 1);
	ck_assert_uint_eq(ai.shm.swapped, 0);
}
END_TEST

START_TEST(test_defect_swap_not_freed_fixed)
{
	ck_assert_uint_eq(cow_swapped_scenario(ANON_FIXED), 1);
	ck_assert_uint_eq(shmem_swap_lookup(&ai.shm, 0).val, 0);
	ck_assert_uint_eq(ai.shm.swapped, 0);
	ck_assert_uint_eq(ctx.swap_frees, 1);
	no_defects();
}
END_TEST

/*
 * ---- exit-uncounted: processes A and B both map pages 0..3 of one
 * /dev/anon file (counts 2).  A exits: exit_mmap() tears its vma down
 * through ->close.  Then B unmaps: nobody maps the pages any more.
 */
static void exit_scenario(enum anon_variant v)
{
	unsigned long i;

	start(v);
	for (i = 0; i < 4; i++)
		fake_set(&fp, i, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 4), 0);	/* A */
	ck_assert_int_eq(anon_mmap(&ai, 0, 4), 0);	/* B */
	anon_vma_close(&ai, 0, 4);			/* A exits */
}

START_TEST(test_defect_exit_uncounted_posted)
{
	exit_scenario(ANON_POSTED);
	ck_assert_uint_eq(anon_map_count(&ai, 0), 2);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 4), 0);
	/* counts 1, mapped by no one: the four pages stay till release */
	ck_assert_uint_eq(anon_map_count(&ai, 3), 1);
	ck_assert_int_eq(fake_resident(&fp, 0), 1);
	ck_assert_int_eq(fake_resident(&fp, 3), 1);
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_EXIT_UNCOUNTED], 1);
}
END_TEST

START_TEST(test_defect_exit_uncounted_fixed)
{
	exit_scenario(ANON_FIXED);
	ck_assert_uint_eq(anon_map_count(&ai, 0), 1);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 4), 4);
	ck_assert_uint_eq(anon_map_count(&ai, 3), 0);
	ck_assert_int_eq(fake_resident(&fp, 0), 0);
	ck_assert_int_eq(fake_resident(&fp, 3), 0);
	no_defects();
}
END_TEST

/*
 * ---- size-first-map: the first mmap is 4 pages at offset 0, the second
 * 4 pages at offset 8; in a second file the first mmap is 4 pages at
 * offset 2.  A fault on page 8, or on page 5, then needs it in i_size.
 */
START_TEST(test_defect_size_first_map_posted)
{
	start(ANON_POSTED);
	ck_assert_int_eq(anon_mmap(&ai, 0, 4), 0);
	ck_assert_int_eq(anon_mmap(&ai, 8, 4), 0);
	ck_assert_uint_eq(ai.size, 4);
	ck_assert(anon_index_in_size(&ai, 3));
	ck_assert(!anon_index_in_size(&ai, 8));		/* SIGBUS */
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_SIZE_FIRST_MAP], 1);
	start(ANON_POSTED);
	ck_assert_int_eq(anon_mmap(&ai, 2, 4), 0);
	ck_assert(anon_index_in_size(&ai, 3));
	ck_assert(!anon_index_in_size(&ai, 5));		/* SIGBUS */
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_SIZE_FIRST_MAP], 1);
}
END_TEST

START_TEST(test_defect_size_first_map_fixed)
{
	start(ANON_FIXED);
	ck_assert_int_eq(anon_mmap(&ai, 0, 4), 0);
	ck_assert_int_eq(anon_mmap(&ai, 8, 4), 0);
	ck_assert_uint_eq(ai.size, 12);
	ck_assert(anon_index_in_size(&ai, 11));
	ck_assert(!anon_index_in_size(&ai, 12));
	start(ANON_FIXED);
	ck_assert_int_eq(anon_mmap(&ai, 2, 4), 0);
	ck_assert(anon_index_in_size(&ai, 5));
	no_defects();
	anon_truncate(&ai, 0);
	ck_assert(!anon_index_in_size(&ai, 0));
}
END_TEST

/*
 * ---- lockpage-no-wait: page 0, mapped once, is locked by another path
 * (writeback, a read) when munmap takes its count to zero.
 */
static void lockpage_scenario(enum anon_variant v)
{
	start(v);
	fake_set(&fp, 0, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 1), 0);
	fake_lock_elsewhere(&fp, 0);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 1), 1);
	ck_assert_int_eq(fake_resident(&fp, 0), 0);
}

START_TEST(test_defect_lockpage_no_wait_posted)
{
	lockpage_scenario(ANON_POSTED);
	/* removed under the holder, whose lock UnlockPage() then dropped */
	ck_assert_uint_eq(fp.waits, 0);
	ck_assert(!fake_page_locked(&fp, 0));
	ck_assert_uint_eq(ai.defects[ANON_DEFECT_LOCKPAGE_NO_WAIT], 1);
}
END_TEST

START_TEST(test_defect_lockpage_no_wait_fixed)
{
	lockpage_scenario(ANON_FIXED);
	/* waited for the holder, then removed the page under its own lock */
	ck_assert_uint_eq(fp.waits, 1);
	ck_assert(!fake_page_locked(&fp, 0));
	no_defects();
}
END_TEST

/* ---- the /dev/anon file: tmpfs files set up and released ---------------- */

static struct anon_dev dev;
static struct anon_inode files[4];
static unsigned int setups, releases;
static int race_next_setup;		/* the next setup lets a racer in */
static struct anon_inode *racer_got;

static struct anon_inode *dev_setup(void *priv, unsigned long size)
{
	struct anon_inode *f = &files[setups++];
	int err;

	ck_assert_uint_le(setups, 4);
	if (race_next_setup) {
		/* another first mmap on the same file while this one sleeps */
		race_next_setup = 0;
		racer_got = anon_dev_mmap(&dev, 0, 4, &err);
		ck_assert_int_eq(err, 0);
	}
	anon_inode_init(f, &shmem_geom_x86_64, dev.variant, &fake_pops, &fp);
	return f;
}

static void dev_release(void *priv, struct anon_inode *f)
{
	releases++;
	anon_truncate(f, 0);
}

static const struct anon_dev_ops dev_ops = {
	.setup = dev_setup,
	.release = dev_release,
};

static void dev_start(enum anon_variant v)
{
	start(v);
	setups = releases = 0;
	race_next_setup = 0;
	racer_got = NULL;
	anon_dev_open(&dev, v, &dev_ops, NULL);
}

/* Defects of the file other than @except are all zero. */
static void dev_only_defect(int except)
{
	int d;

	for (d = 0; d < ANON_NR_DEFECTS; d++)
		if (d != except)
			ck_assert_msg(dev.defects[d] == 0, "defect %s: %lu",
				      anon_defect_names[d], dev.defects[d]);
}

/*
 * ---- double-fput: the first mmap, of index 16, fails: its map-count
 * table page cannot be allocated.  Then the descriptor is closed.
 */
static void fput_scenario(enum anon_variant v)
{
	int err = 0;

	dev_start(v);
	ctx.nr_allocs = 0;
	ctx.fail_nth = 1;
	ck_assert_ptr_null(anon_dev_mmap(&dev, 16, 1, &err));
	ctx.fail_nth = 0;
	ck_assert_int_eq(err, -ENOMEM);
	ck_assert_uint_eq(setups, 1);
}

START_TEST(test_defect_double_fput_posted)
{
	fput_scenario(ANON_POSTED);
	/* the descriptor's own reference is gone: the file was released */
	ck_assert_int_eq(dev.refs, 0);
	ck_assert_int_eq(files[0].file_refs, 1);	/* the vma's, leaked */
	anon_dev_close(&dev);				/* a use after free */
	ck_assert_int_eq(dev.refs, -1);
	ck_assert_uint_eq(releases, 0);			/* never freed */
	ck_assert_uint_eq(dev.defects[ANON_DEFECT_DOUBLE_FPUT], 1);
	dev_only_defect(ANON_DEFECT_DOUBLE_FPUT);
	anon_truncate(&files[0], 0);
}
END_TEST

START_TEST(test_defect_double_fput_fixed)
{
	fput_scenario(ANON_FIXED);
	ck_assert_int_eq(dev.refs, 1);
	ck_assert_int_eq(files[0].file_refs, 1);	/* private_data's */
	anon_dev_close(&dev);
	ck_assert_int_eq(dev.refs, 0);
	ck_assert_uint_eq(releases, 1);
	ck_assert_int_eq(files[0].file_refs, 0);
	dev_only_defect(-1);
	ck_assert_uint_eq(held_total(), 0);
}
END_TEST

/*
 * ---- private-data-race: two first mmaps of pages 0..3 on one file, the
 * second while the first sleeps in shmem_file_setup().  Both vmas go, then
 * the descriptor is closed.
 */
static struct anon_inode *race_scenario(enum anon_variant v)
{
	struct anon_inode *got;
	int err = 0;

	dev_start(v);
	race_next_setup = 1;
	got = anon_dev_mmap(&dev, 0, 4, &err);
	ck_assert_int_eq(err, 0);
	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(racer_got);
	ck_assert_uint_eq(setups, 2);
	return got;
}

START_TEST(test_defect_private_data_race_posted)
{
	struct anon_inode *got = race_scenario(ANON_POSTED);

	/* two files: the mappings share no page */
	ck_assert_ptr_ne(got, racer_got);
	ck_assert_uint_eq(anon_map_count(got, 0), 1);
	ck_assert_uint_eq(anon_map_count(racer_got, 0), 1);
	ck_assert_uint_eq(dev.defects[ANON_DEFECT_PRIVATE_DATA_RACE], 1);
	anon_dev_vma_put(&dev, got);
	anon_dev_vma_put(&dev, racer_got);
	anon_dev_close(&dev);
	/* the racer's file kept private_data's reference: never freed */
	ck_assert_uint_eq(releases, 1);
	ck_assert_int_eq(racer_got->file_refs, 1);
	dev_only_defect(ANON_DEFECT_PRIVATE_DATA_RACE);
	anon_truncate(racer_got, 0);
}
END_TEST

START_TEST(test_defect_private_data_race_fixed)
{
	struct anon_inode *got = race_scenario(ANON_FIXED);

	/* one file, mapped twice; the loser's file was released at once */
	ck_assert_ptr_eq(got, racer_got);
	ck_assert_uint_eq(anon_map_count(got, 0), 2);
	ck_assert_uint_eq(releases, 1);
	anon_dev_vma_put(&dev, got);
	anon_dev_vma_put(&dev, racer_got);
	anon_dev_close(&dev);
	ck_assert_uint_eq(releases, 2);
	ck_assert_int_eq(got->file_refs, 0);
	dev_only_defect(-1);
	ck_assert_uint_eq(held_total(), 0);
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
	only_defect_and_size(ANON_DEFECT_INDEX_UNCHECKED);
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

/* ---- fixed: an mmap and fault while munmap has the lock dropped ---------- */

/* Another CPU maps page @arg again and faults it in: it is in the page cache. */
static void racer_map_fault(void *arg)
{
	unsigned long idx = *(unsigned long *)arg;

	ck_assert_int_eq(anon_mmap(&ai, idx, 1), 0);
	fake_set(&fp, idx, 1, 1);
}

/*
 * Pages 3 and 4 mapped once; munmap(3, 2) takes both counts to zero.  At the
 * first unlock inside munmap (where fixed drops the lock to take page 3's
 * page lock) page 3 is mapped and faulted again.  Page 3 must stay in the
 * page cache with count 1; page 4 is reclaimed.
 */
START_TEST(test_fixed_munmap_race_window)
{
	unsigned long racing = 3;

	start(ANON_FIXED);
	fake_set(&fp, 3, 1, 1);
	fake_set(&fp, 4, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 3, 2), 0);
	ctx.unlock_racer = racer_map_fault;
	ctx.unlock_racer_arg = &racing;
	ck_assert_uint_eq(anon_munmap(&ai, 3, 2), 1);
	ck_assert_ptr_null(ctx.unlock_racer);		/* the racer ran */
	ck_assert_uint_eq(anon_map_count(&ai, 3), 1);
	ck_assert_int_eq(fake_resident(&fp, 3), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 4), 0);
	ck_assert_int_eq(fake_resident(&fp, 4), 0);
	ck_assert_uint_eq(ai.reclaimed, 1);
	ck_assert_uint_eq(ctx.warnings + ctx.lock_errors + ctx.unlocked_walks, 0);
	ck_assert_int_eq(ai.shm.lock.held, 0);
	/* the racer's mapping goes: now page 3 is reclaimed */
	ck_assert_uint_eq(anon_munmap(&ai, 3, 1), 1);
	ck_assert_int_eq(fake_resident(&fp, 3), 0);
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

/* ---- fixed: what munmap decides ------------------------------------------ */

/*
 * Pages 0-7 resident, mapped once; 4-7 mapped a second time.  munmap(0, 8)
 * takes 0-3 to zero and 4-7 to one: it locks exactly pages 0-3 and frees
 * them, and touches no page whose count stays above zero (a reclaim started
 * at count 1 would lock 8, its recheck hiding it from the counts).
 */
START_TEST(test_fixed_munmap_locks_only_zero_counts)
{
	unsigned long i;

	start(ANON_FIXED);
	for (i = 0; i < 8; i++)
		fake_set(&fp, i, 1, 1);
	ck_assert_int_eq(anon_mmap(&ai, 0, 8), 0);
	ck_assert_int_eq(anon_vma_dup(&ai, 4, 4), 0);
	ck_assert_uint_eq(fp.lock_calls, 0);
	ck_assert_uint_eq(anon_munmap(&ai, 0, 8), 4);
	ck_assert_uint_eq(fp.lock_calls, 4);
	for (i = 0; i < 8; i++) {
		ck_assert_uint_eq(anon_map_count(&ai, i), i < 4 ? 0 : 1);
		ck_assert_int_eq(fake_resident(&fp, i), i >= 4);
	}
	ck_assert_uint_eq(anon_munmap(&ai, 4, 4), 4);
	ck_assert_uint_eq(fp.lock_calls, 8);
	ck_assert_uint_eq(ai.reclaimed, 8);
	no_defects();
}
END_TEST

/* ---- fixed: a table page at a time, charged to the caller ----------------- */

/*
 * mmap(500, 1100) covers leaf 0 from entry 484 (indices 500-527), leaves 1
 * and 2 whole (528-1551) and 48 entries of leaf 3 (1552-1599): four runs,
 * each a chance for the scheduler, munmap the same.  Truncation offers one
 * per leaf it frees.
 */
START_TEST(test_fixed_walk_per_table_page)
{
	start(ANON_FIXED);
	ck_assert_int_eq(anon_mmap(&ai, 500, 1100), 0);
	ck_assert_uint_eq(ctx.resched_points, 4);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 5);	/* indirect, 4 leaves */
	ck_assert_uint_eq(ctx.last_gfp, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
	ck_assert_uint_eq(anon_map_count(&ai, 499), 0);
	ck_assert_uint_eq(anon_map_count(&ai, 500), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 527), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 528), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 1599), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 1600), 0);
	ck_assert_uint_eq(anon_munmap(&ai, 500, 1100), 0);
	ck_assert_uint_eq(ctx.resched_points, 8);
	ck_assert_uint_eq(anon_map_count(&ai, 1599), 0);
	/* the direct entries are a run of their own: 10-15, then 16-20 */
	ck_assert_int_eq(anon_mmap(&ai, 10, 11), 0);
	ck_assert_uint_eq(ctx.resched_points, 10);
	anon_truncate(&ai, 0);
	ck_assert_uint_eq(ctx.resched_points, 14);
	ck_assert_uint_eq(held_total(), 0);
	ck_assert_uint_eq(ctx.warnings + ctx.bad_frees + ctx.lock_errors +
			  ctx.unlocked_walks, 0);
	no_defects();
}
END_TEST

/*
 * Unmapping a range no table page covers: one warning for the run, not one
 * per page, and no count goes below zero.
 */
START_TEST(test_fixed_munmap_skips_missing_table_page)
{
	start(ANON_FIXED);
	ck_assert_int_eq(anon_mmap(&ai, 0, 16), 0);
	ck_assert_uint_eq(anon_munmap(&ai, 16, 512), 0);
	ck_assert_uint_eq(ctx.warnings, 1);
	ck_assert_uint_eq(ctx.resched_points, 2);
	ck_assert_uint_eq(fp.lock_calls, 0);
	ck_assert_uint_eq(anon_map_count(&ai, 15), 1);
	no_defects();
}
END_TEST

/*
 * A failed mmap gives back the table pages it built and no other: page 20
 * mapped first (indirect page and leaf 0).  mmap(16, 3 * 512) builds leaf 1
 * and fails at leaf 2: leaf 1 goes, leaf 0 (page 20 counted) stays.  An
 * mmap past the first half builds a middle page and its first leaf and
 * fails at the second leaf: both go.
 */
START_TEST(test_fixed_enomem_frees_what_it_built)
{
	start(ANON_FIXED);
	ck_assert_int_eq(anon_mmap(&ai, 20, 1), 0);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 2);
	ctx.fail_nth = ctx.nr_allocs + 2;
	ck_assert_int_eq(anon_mmap(&ai, 16, 3 * EPP), -ENOMEM);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 2);
	ck_assert_uint_eq(ctx.frees[KAPI_PAGE_MAP_TABLE], 1);
	ck_assert_uint_eq(anon_map_count(&ai, 20), 1);
	ck_assert_uint_eq(anon_map_count(&ai, 16), 0);
	ck_assert_uint_eq(anon_map_count(&ai, 16 + EPP), 0);
	ctx.fail_nth = ctx.nr_allocs + 3;
	ck_assert_int_eq(anon_mmap(&ai, 16 + EPP * EPP / 2, EPP + 1), -ENOMEM);
	ck_assert_uint_eq(ctx.held[KAPI_PAGE_MAP_TABLE], 2);
	ck_assert_uint_eq(ctx.frees[KAPI_PAGE_MAP_TABLE], 3);
	ctx.fail_nth = 0;
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
	tcase_add_test(tc, test_swapped_in_posted);
	tcase_add_test(tc, test_swapped_in_fixed);
	tcase_add_test(tc, test_defect_private_cow_posted);
	tcase_add_test(tc, test_defect_private_cow_fixed);
	tcase_add_test(tc, test_defect_swap_not_freed_posted);
	tcase_add_test(tc, test_defect_swap_not_freed_fixed);
	tcase_add_test(tc, test_defect_exit_uncounted_posted);
	tcase_add_test(tc, test_defect_exit_uncounted_fixed);
	tcase_add_test(tc, test_defect_size_first_map_posted);
	tcase_add_test(tc, test_defect_size_first_map_fixed);
	tcase_add_test(tc, test_defect_lockpage_no_wait_posted);
	tcase_add_test(tc, test_defect_lockpage_no_wait_fixed);
	tcase_add_test(tc, test_defect_double_fput_posted);
	tcase_add_test(tc, test_defect_double_fput_fixed);
	tcase_add_test(tc, test_defect_private_data_race_posted);
	tcase_add_test(tc, test_defect_private_data_race_fixed);
	tcase_add_test(tc, test_defect_index_unchecked_posted);
	tcase_add_test(tc, test_defect_index_unchecked_fixed);
	tcase_add_test(tc, test_fixed_munmap_race_window);
	tcase_add_test(tc, test_fixed_teardown_clean);
	tcase_add_test(tc, test_fixed_munmap_locks_only_zero_counts);
	tcase_add_test(tc, test_fixed_walk_per_table_page);
	tcase_add_test(tc, test_fixed_munmap_skips_missing_table_page);
	tcase_add_test(tc, test_fixed_enomem_frees_what_it_built);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(anon_suite());
}
