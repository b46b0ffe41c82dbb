/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * span_tree.h - disjoint address spans ordered by address (a treap), for
 * finding the few of many mappings a munmap or MAP_FIXED mmap overlaps in
 * O(log n) instead of scanning them all.
 *
 * Nodes live in one array and are named by their index (0: none); each
 * carries a value the caller keeps current (the mapping's slot).
 */
#ifndef ANONSIM_SPAN_TREE_H
#define ANONSIM_SPAN_TREE_H

#include <stddef.h>
#include <stdint.h>

struct span_node {
	uint64_t start, end;		/* [start, end) */
	uint32_t left, right;		/* children; left also links the free list */
	uint32_t prio;			/* heap order: a parent's is not smaller */
	uint32_t value;
};

struct span_tree {
	struct span_node *n;		/* n[0] unused */
	uint32_t root, free, used, cap;
	uint32_t seed;			/* priorities: the same tree on every run */
	uint32_t *hits;			/* span_tree_overlaps' result, reused */
	uint32_t nr_hits, cap_hits;
};

void span_tree_init(struct span_tree *t);
void span_tree_destroy(struct span_tree *t);

/* Add [start, end), which overlaps no span in @t; returns its node. */
uint32_t span_tree_insert(struct span_tree *t, uint64_t start, uint64_t end,
			  uint32_t value);

/* The node of the span that starts at @start, or 0. */
uint32_t span_tree_find(const struct span_tree *t, uint64_t start);

/* Remove the span that starts at @start. */
void span_tree_remove(struct span_tree *t, uint64_t start);

/* The nodes of the spans overlapping [lo, hi), into t->hits[0..nr_hits). */
void span_tree_overlaps(struct span_tree *t, uint64_t lo, uint64_t hi);

#endif
