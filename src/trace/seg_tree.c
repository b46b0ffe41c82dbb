/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seg_tree.c - segments of page states in a summing treap (see seg_tree.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "trace/seg_tree.h"
#include "util/util.h"
#include "util/xalloc.h"

#define WHAT "the validator's map of mappings"

static uint32_t span_len(struct seg_span x)
{
	return x.e - x.s;
}

/* The longer of @a and @b; @a, the one to the left, when as long. */
static struct seg_span longer(struct seg_span a, struct seg_span b)
{
	return span_len(b) > span_len(a) ? b : a;
}

/* The summary of @a's pages followed by @b's. */
static struct seg_sum join(const struct seg_sum *a, const struct seg_sum *b)
{
	struct seg_sum s;
	struct seg_span across = { a->suf_start, b->pre_end };

	s.first = a->first;
	s.last = b->last;
	s.mask = a->mask | b->mask;
	s.pre_end = a->pre_end == a->last ? b->pre_end : a->pre_end;
	s.suf_start = b->suf_start == b->first ? a->suf_start : b->suf_start;
	s.longest = longer(a->longest, b->longest);
	/* in order of start, so that of runs as long the first is kept */
	s.run = longer(longer(a->run, across), b->run);
	return s;
}

/* Recompute node @x's summary from its segment and its children's. */
static void pull(struct seg_tree *t, uint32_t x)
{
	struct seg_node *n = &t->n[x];
	int in_run = t->run_states >> n->state & 1;
	struct seg_sum s;

	s.first = n->start;
	s.last = n->end;
	s.mask = 1u << n->state;
	s.pre_end = in_run ? n->end : n->start;
	s.suf_start = in_run ? n->start : n->end;
	s.longest = (struct seg_span){ n->start, n->state == t->keep_state ? n->end : n->start };
	s.run = (struct seg_span){ n->start, in_run ? n->end : n->start };
	if (n->kid[0])
		s = join(&t->n[n->kid[0]].sum, &s);
	if (n->kid[1])
		s = join(&s, &t->n[n->kid[1]].sum);
	n->sum = s;
}

/* Node @x alone, segment [start, end) in @state. */
static uint32_t reset(struct seg_tree *t, uint32_t x, uint32_t start, uint32_t end,
		      uint32_t state)
{
	t->n[x].start = start;
	t->n[x].end = end;
	t->n[x].state = state;
	t->n[x].kid[0] = t->n[x].kid[1] = 0;
	pull(t, x);
	return x;
}

static uint32_t new_node(struct seg_tree *t, uint32_t start, uint32_t end, uint32_t state)
{
	uint32_t x = t->free;

	if (x) {
		t->free = t->n[x].kid[0];
	} else {
		t->n = xgrow(t->n, &t->cap, t->used + 2, sizeof(*t->n), WHAT);
		x = ++t->used;
	}
	t->n[x].prio = xorshift32(&t->seed);
	return reset(t, x, start, end, state);
}

/* Put subtree @x's nodes on the free list. */
static void free_tree(struct seg_tree *t, uint32_t x)
{
	while (x) {
		uint32_t right = t->n[x].kid[1];

		free_tree(t, t->n[x].kid[0]);
		t->n[x].kid[0] = t->free;
		t->free = x;
		x = right;
	}
}

/* Split subtree @x into segments starting before @key (*l) and the others (*g). */
static void split(struct seg_tree *t, uint32_t x, uint32_t key, uint32_t *l, uint32_t *g)
{
	if (!x) {
		*l = *g = 0;
	} else if (t->n[x].start < key) {
		split(t, t->n[x].kid[1], key, &t->n[x].kid[1], g);
		*l = x;
		pull(t, x);
	} else {
		split(t, t->n[x].kid[0], key, l, &t->n[x].kid[0]);
		*g = x;
		pull(t, x);
	}
}

/* Join @l and @g, every segment of @l before every segment of @g. */
static uint32_t merge(struct seg_tree *t, uint32_t l, uint32_t g)
{
	if (!l || !g)
		return l ? l : g;
	if (t->n[l].prio >= t->n[g].prio) {
		t->n[l].kid[1] = merge(t, t->n[l].kid[1], g);
		pull(t, l);
		return l;
	}
	t->n[g].kid[0] = merge(t, l, t->n[g].kid[0]);
	pull(t, g);
	return g;
}

/* Take the first (@side 0) or last (1) segment out of subtree @x: returns it, the rest in *rest. */
static uint32_t pop_end(struct seg_tree *t, uint32_t x, int side, uint32_t *rest)
{
	uint32_t y;

	if (!t->n[x].kid[side]) {
		*rest = t->n[x].kid[!side];
		t->n[x].kid[!side] = 0;
		return x;
	}
	y = pop_end(t, t->n[x].kid[side], side, &t->n[x].kid[side]);
	pull(t, x);
	*rest = x;
	return y;
}

void seg_tree_init(struct seg_tree *t, uint64_t pages, unsigned state,
		   unsigned keep_state, unsigned run_states)
{
	memset(t, 0, sizeof(*t));
	t->seed = 0x9e3779b9u;
	t->keep_state = keep_state;
	t->run_states = run_states;
	t->root = new_node(t, 0, (uint32_t)pages, state);
}

void seg_tree_destroy(struct seg_tree *t)
{
	free(t->n);
	free(t->found);
	memset(t, 0, sizeof(*t));
}

/*
 * Two splits take out the segments starting in [lo, hi); the one before
 * lo (or across it) and the one across hi keep what lies outside, and
 * only they and the segment after hi can be neighbours to merge with.
 */
void seg_tree_set(struct seg_tree *t, uint64_t lo64, uint64_t hi64, unsigned state)
{
	uint32_t total = t->n[t->root].sum.last, lo, hi, a, m, c, head, last, x, y;
	uint32_t tail_end, tail_state, tail = 0;

	if (hi64 > total)
		hi64 = total;
	if (lo64 >= hi64)
		return;
	lo = (uint32_t)lo64;
	hi = (uint32_t)hi64;
	split(t, t->root, lo, &a, &m);
	split(t, m, hi, &m, &c);
	head = a ? pop_end(t, a, 1, &a) : 0;	/* none only when lo is 0 */
	last = m ? pop_end(t, m, 1, &m) : head;
	free_tree(t, m);
	tail_end = t->n[last].end;
	tail_state = t->n[last].state;
	if (head && t->n[head].state == state) {
		x = reset(t, head, t->n[head].start, hi, state);
		head = 0;
	} else {
		if (head)
			reset(t, head, t->n[head].start, lo, t->n[head].state);
		x = new_node(t, lo, hi, state);
	}
	if (last != head && last != x)
		free_tree(t, last);
	if (tail_end > hi && tail_state == state) {
		reset(t, x, t->n[x].start, tail_end, state);
	} else if (tail_end > hi) {
		tail = new_node(t, hi, tail_end, tail_state);
	} else if (c) {
		for (y = c; t->n[y].kid[0]; y = t->n[y].kid[0])
			;
		if (t->n[y].state == state) {
			y = pop_end(t, c, 0, &c);
			reset(t, x, t->n[x].start, t->n[y].end, state);
			free_tree(t, reset(t, y, 0, 0, 0));
		}
	}
	t->root = merge(t, merge(t, a, merge(t, merge(t, head, x), tail)), c);
}

/* Collect into t->found the segments in state @from overlapping [lo, hi). */
static void find_from(struct seg_tree *t, uint32_t x, uint64_t lo, uint64_t hi, unsigned from)
{
	while (x && t->n[x].sum.mask >> from & 1 &&
	       t->n[x].sum.first < hi && t->n[x].sum.last > lo) {
		const struct seg_node *n = &t->n[x];

		find_from(t, n->kid[0], lo, hi, from);
		n = &t->n[x];
		if (n->state == from && n->start < hi && n->end > lo) {
			t->found = xgrow(t->found, &t->cap_found, t->nr_found + 1,
					 sizeof(*t->found), WHAT);
			t->found[t->nr_found++] = (struct seg_span){ n->start, n->end };
		}
		x = t->n[x].kid[1];
	}
}

void seg_tree_set_from(struct seg_tree *t, uint64_t lo, uint64_t hi,
		       unsigned from, unsigned to)
{
	uint32_t i;

	if (from == to)
		return;
	t->nr_found = 0;
	find_from(t, t->root, lo, hi, from);
	/*
	 * Segments of one state are never neighbours, so setting one (and
	 * merging it with neighbours in @to) leaves the next one as found.
	 * Each is set once: no change here makes a segment in @from again.
	 */
	for (i = 0; i < t->nr_found; i++)
		seg_tree_set(t, t->found[i].s > lo ? t->found[i].s : lo,
			     t->found[i].e < hi ? t->found[i].e : hi, to);
}

static unsigned states_in(const struct seg_tree *t, uint32_t x, uint64_t lo, uint64_t hi)
{
	unsigned mask = 0;

	while (x && t->n[x].sum.first < hi && t->n[x].sum.last > lo) {
		const struct seg_node *n = &t->n[x];

		if (lo <= n->sum.first && n->sum.last <= hi)
			return mask | n->sum.mask;
		if (n->start < hi && n->end > lo)
			mask |= 1u << n->state;
		/* a range reaches into one side only, except at the split node */
		if (hi <= n->start) {
			x = n->kid[0];
		} else if (lo >= n->end) {
			x = n->kid[1];
		} else {
			mask |= states_in(t, n->kid[0], lo, hi);
			x = n->kid[1];
		}
	}
	return mask;
}

unsigned seg_tree_states(const struct seg_tree *t, uint64_t lo, uint64_t hi)
{
	return states_in(t, t->root, lo, hi);
}

const struct seg_sum *seg_tree_sum(const struct seg_tree *t)
{
	return &t->n[t->root].sum;
}
