/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_seg_tree.c - the validator's map of segments (src/trace/seg_tree.c):
 * worked cases, then random changes held page by page to a plain array of
 * states, with the tree's shape (entries in order, their summaries true
 * to what lies below, neighbours never in one state) checked after each.
 */
#include <config.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "trace/seg_tree.h"

/*
 * Check's assertions report each pass to the parent process: the loops
 * below test millions of values, so they fail through this instead.
 */
#define EXPECT(cond) do { if (!(cond)) ck_abort_msg("expected %s", #cond); } while (0)

#define KEEP 1			/* the state whose longest segment is kept */
#define RUN (1u << 1 | 1u << 2)	/* the states a run is made of */

START_TEST(worked_cases)
{
	struct seg_tree t;
	const struct seg_sum *s;

	seg_tree_init(&t, 10, 0, KEEP, RUN);
	seg_tree_set(&t, 2, 4, 1);
	seg_tree_set(&t, 6, 8, 1);
	/* 0 0 1 1 0 0 1 1 0 0: two segments of 2 in state 1, the first kept */
	s = seg_tree_sum(&t);
	ck_assert_uint_eq(s->longest.s, 2);
	ck_assert_uint_eq(s->longest.e, 4);
	ck_assert_uint_eq(s->mask, 1u << 0 | 1u << 1);
	ck_assert_uint_eq(seg_tree_states(&t, 4, 6), 1u << 0);
	ck_assert_uint_eq(seg_tree_states(&t, 3, 7), 1u << 0 | 1u << 1);
	/* the gap filled: one segment [2, 8) */
	seg_tree_set(&t, 4, 6, 1);
	ck_assert_uint_eq(s->longest.s, 2);
	ck_assert_uint_eq(s->longest.e, 8);
	ck_assert_uint_eq(t.n[t.root].nr, 3);
	/* a run of states 1 and 2 across [1, 9), state 1 only where it was */
	seg_tree_set(&t, 1, 2, 2);
	seg_tree_set(&t, 8, 9, 2);
	ck_assert_uint_eq(s->run.s, 1);
	ck_assert_uint_eq(s->run.e, 9);
	ck_assert_uint_eq(s->pre_end, 0);
	ck_assert_uint_eq(s->suf_start, 10);
	seg_tree_set_from(&t, 0, 10, 2, 3);
	ck_assert_uint_eq(seg_tree_states(&t, 0, 10), 1u << 0 | 1u << 1 | 1u << 3);
	ck_assert_uint_eq(s->run.s, 2);
	ck_assert_uint_eq(s->run.e, 8);
	/* past the end: clipped; an empty range: nothing */
	seg_tree_set(&t, 9, 100, 1);
	ck_assert_uint_eq(seg_tree_states(&t, 9, 1000), 1u << 1);
	ck_assert_uint_eq(seg_tree_states(&t, 10, 1000), 0);
	seg_tree_set(&t, 5, 5, 0);
	ck_assert_uint_eq(s->longest.e, 8);
	seg_tree_destroy(&t);
}
END_TEST

static uint64_t next_random(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
}

/* The subtree @x covers [*at, ...) in order: returns its states, checks its sums. */
static unsigned check_node(const struct seg_tree *t, uint32_t x, const unsigned char *st,
			   uint32_t *at, unsigned *last_state)
{
	const struct seg_node *n = &t->n[x];
	unsigned mask = 0, m;
	uint32_t i, p;

	EXPECT(n->nr >= 1);
	EXPECT(n->nr <= SEG_FAN);
	for (i = 0; i < n->nr; i++) {
		const struct seg_sum *s = &n->sum[i];

		EXPECT(s->first == *at);
		EXPECT(s->last > s->first);
		if (n->leaf) {
			EXPECT(n->kid[i] != *last_state);
			for (p = s->first; p < s->last; p++)
				EXPECT(st[p] == n->kid[i]);
			*last_state = n->kid[i];
			*at = s->last;
			m = 1u << n->kid[i];
		} else {
			m = check_node(t, n->kid[i], st, at, last_state);
			EXPECT(*at == s->last);
		}
		EXPECT(s->mask == m);
		mask |= m;
	}
	return mask;
}

/* The whole map's summary, from the array: longest segment and run, leftmost of the longest. */
static void check_sum(const struct seg_tree *t, const unsigned char *st, uint32_t pages)
{
	const struct seg_sum *s = seg_tree_sum(t);
	uint32_t p, q, best = 0, best_s = 0, run = 0, run_s = 0, pre = 0, suf = pages;
	unsigned mask = 0;

	for (p = 0; p < pages; p = q) {
		for (q = p; q < pages && st[q] == st[p]; q++)
			mask |= 1u << st[q];
		if (st[p] == KEEP && q - p > best) {
			best = q - p;
			best_s = p;
		}
	}
	for (p = 0; p < pages; p = q) {
		for (q = p; q < pages && RUN >> st[q] & 1; q++)
			;
		if (q - p > run) {
			run = q - p;
			run_s = p;
		}
		if (q == p)
			q++;
	}
	while (pre < pages && RUN >> st[pre] & 1)
		pre++;
	while (suf > 0 && RUN >> st[suf - 1] & 1)
		suf--;
	EXPECT(s->first == 0);
	EXPECT(s->last == pages);
	EXPECT(s->mask == mask);
	EXPECT(s->pre_end == pre);
	EXPECT(s->suf_start == suf);
	EXPECT(s->longest.e - s->longest.s == best);
	if (best)
		EXPECT(s->longest.s == best_s);
	EXPECT(s->run.e - s->run.s == run);
	if (run)
		EXPECT(s->run.s == run_s);
}

/*
 * Random changes, small and large, to maps of 1, 37, 700 and 5000 pages,
 * each checked whole after every change.
 */
START_TEST(random_against_array)
{
	static const uint32_t sizes[] = { 1, 37, 700, 5000 };
	uint32_t pages = sizes[_i], p, lo, hi, at, ops = pages < 1000 ? 20000 : 6000;
	unsigned char *st = calloc(pages, 1);
	uint64_t seed = 12345 + _i;
	struct seg_tree t;
	unsigned i, state, from, last;

	ck_assert_ptr_nonnull(st);
	seg_tree_init(&t, pages, 0, KEEP, RUN);
	for (i = 0; i < ops; i++) {
		uint64_t r = next_random(&seed);

		lo = (uint32_t)(r % (pages + 2));
		r = next_random(&seed);
		/* mostly a few pages; one in eight up to the whole map and past it */
		hi = lo + (uint32_t)(r % 8 ? r % 5 : r % (pages + 3));
		state = (unsigned)(next_random(&seed) % 4);
		if (next_random(&seed) % 5) {
			seg_tree_set(&t, lo, hi, state);
			for (p = lo; p < hi && p < pages; p++)
				st[p] = (unsigned char)state;
		} else {
			from = (unsigned)(next_random(&seed) % 4);
			seg_tree_set_from(&t, lo, hi, from, state);
			for (p = lo; p < hi && p < pages; p++)
				if (st[p] == from)
					st[p] = (unsigned char)state;
		}
		at = 0;
		last = 99;
		check_node(&t, t.root, st, &at, &last);
		EXPECT(at == pages);
		check_sum(&t, st, pages);
		/* a range's states */
		lo = (uint32_t)(next_random(&seed) % (pages + 1));
		hi = lo + (uint32_t)(next_random(&seed) % 50);
		{
			unsigned want = 0;

			for (p = lo; p < hi && p < pages; p++)
				want |= 1u << st[p];
			EXPECT(seg_tree_states(&t, lo, hi) == want);
		}
	}
	seg_tree_destroy(&t);
	free(st);
}
END_TEST

/* Many segments: the tree grows several levels and shrinks back to one leaf. */
START_TEST(grow_and_shrink)
{
	const uint32_t pages = 200000;
	struct seg_tree t;
	uint32_t p, levels = 0, x;

	seg_tree_init(&t, pages, 0, KEEP, RUN);
	for (p = 1; p < pages; p += 2)
		seg_tree_set(&t, p, p + 1, (p >> 1) % 3 + 1);
	for (x = t.root; !t.n[x].leaf; x = t.n[x].kid[0])
		levels++;
	/* at most 16 entries a node: 200000 segments need 4 levels above the leaves */
	ck_assert_uint_ge(levels, 4);
	/* runs of one page (the even pages are in state 0): the first */
	ck_assert_uint_eq(seg_tree_sum(&t)->run.s, 1);
	ck_assert_uint_eq(seg_tree_sum(&t)->run.e, 2);
	ck_assert_uint_eq(seg_tree_states(&t, 0, pages), 0xf);
	seg_tree_set(&t, 0, pages, 2);
	ck_assert(t.n[t.root].leaf);
	ck_assert_uint_eq(t.n[t.root].nr, 1);
	ck_assert_uint_eq(seg_tree_sum(&t)->run.e, pages);
	seg_tree_destroy(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("seg_tree");
	TCase *tc = tcase_create("segments");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, worked_cases);
	tcase_add_loop_test(tc, random_against_array, 0, 4);
	tcase_add_test(tc, grow_and_shrink);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
