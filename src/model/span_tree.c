/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * span_tree.c - disjoint address spans in a treap (see span_tree.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/span_tree.h"
#include "util/util.h"
#include "util/xalloc.h"

void span_tree_init(struct span_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->seed = 0x9e3779b9u;
}

void span_tree_destroy(struct span_tree *t)
{
	free(t->n);
	free(t->hits);
	memset(t, 0, sizeof(*t));
}

/* Split subtree @r into spans starting before @key (*l) and the others (*g). */
static void split(struct span_node *n, uint32_t r, uint64_t key,
		  uint32_t *l, uint32_t *g)
{
	if (!r) {
		*l = *g = 0;
	} else if (n[r].start < key) {
		split(n, n[r].right, key, &n[r].right, g);
		*l = r;
	} else {
		split(n, n[r].left, key, l, &n[r].left);
		*g = r;
	}
}

/* Join @l and @g, every span of @l before every span of @g. */
static uint32_t merge(struct span_node *n, uint32_t l, uint32_t g)
{
	if (!l || !g)
		return l ? l : g;
	if (n[l].prio >= n[g].prio) {
		n[l].right = merge(n, n[l].right, g);
		return l;
	}
	n[g].left = merge(n, l, n[g].left);
	return g;
}

static uint32_t insert_at(struct span_node *n, uint32_t r, uint32_t x)
{
	if (!r)
		return x;
	if (n[x].prio > n[r].prio) {
		split(n, r, n[x].start, &n[x].left, &n[x].right);
		return x;
	}
	if (n[x].start < n[r].start)
		n[r].left = insert_at(n, n[r].left, x);
	else
		n[r].right = insert_at(n, n[r].right, x);
	return r;
}

uint32_t span_tree_insert(struct span_tree *t, uint64_t start, uint64_t end,
			  uint32_t value)
{
	uint32_t x = t->free;

	if (x) {
		t->free = t->n[x].left;
	} else {
		t->n = xgrow(t->n, &t->cap, t->used + 2, sizeof(*t->n), "the index of mappings");
		x = ++t->used;
	}
	t->n[x] = (struct span_node){ start, end, 0, 0, xorshift32(&t->seed), value };
	t->root = insert_at(t->n, t->root, x);
	return x;
}

uint32_t span_tree_find(const struct span_tree *t, uint64_t start)
{
	uint32_t x = t->root;

	while (x && t->n[x].start != start)
		x = start < t->n[x].start ? t->n[x].left : t->n[x].right;
	return x;
}

void span_tree_remove(struct span_tree *t, uint64_t start)
{
	uint32_t *link = &t->root, x;

	while ((x = *link) && t->n[x].start != start)
		link = start < t->n[x].start ? &t->n[x].left : &t->n[x].right;
	if (!x)
		return;
	*link = merge(t->n, t->n[x].left, t->n[x].right);
	t->n[x].left = t->free;
	t->free = x;
}

/* Spans are disjoint, so their ends are in the order of their starts. */
static void collect(struct span_tree *t, uint32_t r, uint64_t lo, uint64_t hi)
{
	while (r) {
		const struct span_node *x = &t->n[r];

		if (x->end <= lo) {
			r = x->right;
		} else if (x->start >= hi) {
			r = x->left;
		} else {
			collect(t, x->left, lo, hi);
			t->hits = xgrow(t->hits, &t->cap_hits, t->nr_hits + 1,
					sizeof(*t->hits), "the index of mappings");
			t->hits[t->nr_hits++] = r;
			r = x->right;
		}
	}
}

void span_tree_overlaps(struct span_tree *t, uint64_t lo, uint64_t hi)
{
	t->nr_hits = 0;
	if (lo < hi)
		collect(t, t->root, lo, hi);
}
