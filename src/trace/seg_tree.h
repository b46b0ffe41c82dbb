/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seg_tree.h - pages [0, pages) cut into segments, each in one small
 * state, neighbours never in the same one: the trace validator's map of
 * which pages are mapped at their own address.
 *
 * A B+ tree of segments in order of address whose entries also sum up
 * what lies below them (the states, the longest segment in one state, the
 * longest run of segments in a set of states), so that changing a range
 * and asking which states a range holds take O(log n) in a map changed n
 * times (seg_tree.c), and the whole map's longest segment and run are
 * there after each change: a hostile trace of n small mappings costs
 * n log n, not n^2.  Wide nodes keep the walk from root to
 * segment at a few cache lines' distance where a binary tree's would miss
 * the cache at every level.  Nodes live in one array, named by index.
 * Pages are 32 bits: a trace's memory is at most 2^40 bytes of 4096-byte
 * pages, 2^28 pages.
 */
#ifndef ANONSIM_SEG_TREE_H
#define ANONSIM_SEG_TREE_H

#include <stdint.h>

/* A span [s, e); empty when s == e. */
struct seg_span {
	uint32_t s, e;
};

/* What an entry holds: its pages [first, last) and their summary. */
struct seg_sum {
	uint32_t first, last;
	uint32_t pre_end;		/* the run starting at first ends here */
	uint32_t suf_start;		/* the run ending at last starts here */
	struct seg_span longest;	/* the longest segment in keep_state */
	struct seg_span run;		/* the longest run in run_states */
	uint32_t mask;			/* the states present, one bit each */
};

/* Entries per node: a node is about ten cache lines. */
#define SEG_FAN 16

/*
 * A leaf's entries are segments (kid: the state), an inner node's its
 * children (kid: the child's index), in order of address.
 */
struct seg_node {
	uint32_t nr, leaf;
	uint32_t kid[SEG_FAN];		/* kid[0] also links the free list */
	struct seg_sum sum[SEG_FAN];
};

struct seg_tree {
	struct seg_node *n;		/* n[0] unused; NULL before seg_tree_init */
	uint32_t root, free, used, cap;
	uint32_t pages;
	unsigned keep_state, run_states;
	struct seg_sum sum;		/* the whole map's */
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
