/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seg_tree.h - pages [0, pages) cut into segments, each in one small
 * state, neighbours never in the same one: the trace validator's map of
 * which pages are mapped at their own address.
 *
 * A treap ordered by address whose nodes also sum up their subtree (the
 * states in it, its longest segment in one state, its longest run of
 * segments in a set of states), so that changing a range, asking which
 * states a range holds and finding the longest segment and run all take
 * O(log n) for n segments: a hostile trace of many small mappings costs
 * n log n, not n^2.  Nodes live in one array, named by index (0: none).
 * Pages are 32 bits: a trace's memory is at most 2^40 bytes of 4096-byte
 * pages, 2^28 pages; so a node is 64 bytes, one cache line.
 */
#ifndef ANONSIM_SEG_TREE_H
#define ANONSIM_SEG_TREE_H

#include <stdint.h>

/* A span [s, e); empty when s == e. */
struct seg_span {
	uint32_t s, e;
};

/* What a subtree holds: its pages [first, last) and their summary. */
struct seg_sum {
	uint32_t first, last;
	uint32_t pre_end;		/* the run starting at first ends here */
	uint32_t suf_start;		/* the run ending at last starts here */
	struct seg_span longest;	/* the longest segment in keep_state */
	struct seg_span run;		/* the longest run in run_states */
	uint32_t mask;			/* the states present, one bit each */
};

struct seg_node {
	uint32_t start, end;		/* the segment, [start, end) */
	uint32_t kid[2];		/* left, right; kid[0] also links the free list */
	uint32_t prio;			/* heap order: a parent's is not smaller */
	uint32_t state;
	struct seg_sum sum;
};

struct seg_tree {
	struct seg_node *n;		/* n[0] unused */
	uint32_t root, free, used, cap;
	uint32_t seed;			/* priorities: the same tree on every run */
	unsigned keep_state, run_states;
	struct seg_span *found;		/* seg_tree_set_from's segments, reused */
	uint32_t nr_found, cap_found;
};

/*
 * One segment [0, pages) in @state.  The summary tracks the longest
 * segment in @keep_state and the longest run of neighbours whose states
 * are all in the mask @run_states.  States are below 32, @pages at most
 * 2^32 - 1.
 */
void seg_tree_init(struct seg_tree *t, uint64_t pages, unsigned state,
		   unsigned keep_state, unsigned run_states);
void seg_tree_destroy(struct seg_tree *t);

/* Pages [lo, hi) become @state. */
void seg_tree_set(struct seg_tree *t, uint64_t lo, uint64_t hi, unsigned state);

/* The pages of [lo, hi) in state @from become @to. */
void seg_tree_set_from(struct seg_tree *t, uint64_t lo, uint64_t hi,
		       unsigned from, unsigned to);

/* The states of the pages [lo, hi), one bit each. */
unsigned seg_tree_states(const struct seg_tree *t, uint64_t lo, uint64_t hi);

/* The whole map's summary (longest segment, longest run). */
const struct seg_sum *seg_tree_sum(const struct seg_tree *t);

#endif
