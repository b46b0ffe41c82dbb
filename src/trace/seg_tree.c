/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seg_tree.c - segments of page states in a summing B+ tree (see seg_tree.h).
 *
 * Every change is one replacement: the whole segments of a range [e0, e1)
 * make way for at most three that cover it, found by looking up the
 * segments at the range's ends and the neighbours it may merge with.  A
 * node that overflows splits; one left empty goes; nodes are not merged
 * when they thin out.  A node splits into halves of 8 or more, and splits
 * again only after 8 more entries: a change adds at most 2 to a leaf, and
 * a split one to its parent.  So a map that has seen c changes made at
 * most c / 4 leaves, and each level an eighth of the nodes below it: the
 * height grows with the log of the changes, not of the segments held now.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "trace/seg_tree.h"
#include "util/xalloc.h"

#define WHAT "the validator's map of mappings"

/* A segment [s, e) in @state. */
struct seg_piece {
	uint32_t s, e, state;
};

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

/* The summary of one segment. */
static struct seg_sum piece_sum(const struct seg_tree *t, struct seg_piece p)
{
	int in_run = t->run_states >> p.state & 1;
	struct seg_sum s;

	s.first = p.s;
	s.last = p.e;
	s.mask = 1u << p.state;
	s.pre_end = in_run ? p.e : p.s;
	s.suf_start = in_run ? p.s : p.e;
	s.longest = (struct seg_span){ p.s, p.state == t->keep_state ? p.e : p.s };
	s.run = (struct seg_span){ p.s, in_run ? p.e : p.s };
	return s;
}

/* What node @x holds, its entries joined in order. */
static struct seg_sum node_sum(const struct seg_tree *t, uint32_t x)
{
	const struct seg_node *n = &t->n[x];
	struct seg_sum s = n->sum[0];
	uint32_t i;

	for (i = 1; i < n->nr; i++)
		s = join(&s, &n->sum[i]);
	return s;
}

static uint32_t new_node(struct seg_tree *t, uint32_t leaf)
{
	uint32_t x = t->free;

	if (x) {
		t->free = t->n[x].kid[0];
	} else {
		t->n = xgrow(t->n, &t->cap, t->used + 2, sizeof(*t->n), WHAT);
		x = ++t->used;
	}
	t->n[x].nr = 0;
	t->n[x].leaf = leaf;
	return x;
}

static void free_node(struct seg_tree *t, uint32_t x)
{
	t->n[x].kid[0] = t->free;
	t->free = x;
}

/* Put subtree @x's nodes on the free list. */
static void free_tree(struct seg_tree *t, uint32_t x)
{
	uint32_t i;

	if (!t->n[x].leaf)
		for (i = 0; i < t->n[x].nr; i++)
			free_tree(t, t->n[x].kid[i]);
	free_node(t, x);
}

/* The segment holding page @p (below t->pages). */
static struct seg_piece lookup(const struct seg_tree *t, uint32_t p)
{
	const struct seg_node *n = &t->n[t->root];
	uint32_t i;

	for (;;) {
		for (i = 0; n->sum[i].last <= p; i++)
			;
		if (n->leaf)
			return (struct seg_piece){ n->sum[i].first, n->sum[i].last, n->kid[i] };
		n = &t->n[n->kid[i]];
	}
}

/* A replacement: the segments of [e0, e1) become the @k pieces. */
struct seg_replace {
	uint32_t e0, e1, k;
	struct seg_piece p[3];
};

/* The entries a node is rebuilt from: at most three more than it holds. */
struct seg_entries {
	uint32_t nr;
	uint32_t kid[SEG_FAN + 3];
	struct seg_sum sum[SEG_FAN + 3];
};

static void add_entry(struct seg_entries *e, uint32_t kid, struct seg_sum sum)
{
	e->kid[e->nr] = kid;
	e->sum[e->nr++] = sum;
}

/*
 * Node @x takes the entries @e: returns the new right sibling the second
 * half went to if they do not fit, else 0.
 */
static uint32_t store(struct seg_tree *t, uint32_t x, const struct seg_entries *e)
{
	uint32_t keep = e->nr, sib = 0;
	struct seg_node *n;

	if (e->nr > SEG_FAN) {
		keep = e->nr / 2;
		sib = new_node(t, t->n[x].leaf);
		n = &t->n[sib];
		n->nr = e->nr - keep;
		memcpy(n->kid, e->kid + keep, n->nr * sizeof(*n->kid));
		memcpy(n->sum, e->sum + keep, n->nr * sizeof(*n->sum));
	}
	n = &t->n[x];
	n->nr = keep;
	memcpy(n->kid, e->kid, keep * sizeof(*n->kid));
	memcpy(n->sum, e->sum, keep * sizeof(*n->sum));
	return sib;
}

/*
 * Replace in subtree @x: its segments within [e0, e1) go, and the pieces
 * take their place where e0 is.  A child wholly within the range goes
 * whole, unless e0 starts it; a child left empty goes.  Returns the new
 * right sibling of @x when it split, else 0; @x may be left empty.
 */
static uint32_t replace(struct seg_tree *t, uint32_t x, const struct seg_replace *r)
{
	struct seg_entries e;
	uint32_t i, j, nr = t->n[x].nr;

	e.nr = 0;
	for (i = 0; i < nr; i++) {
		const struct seg_node *n = &t->n[x];
		struct seg_sum s = n->sum[i];
		uint32_t c = n->kid[i], sib;

		if (s.last <= r->e0 || s.first >= r->e1) {
			add_entry(&e, c, s);
		} else if (n->leaf) {
			/* within the range, whole: the pieces go where e0 is */
			if (s.first == r->e0)
				for (j = 0; j < r->k; j++)
					add_entry(&e, r->p[j].state, piece_sum(t, r->p[j]));
		} else if (s.first >= r->e0 && s.last <= r->e1 && s.first != r->e0) {
			free_tree(t, c);
		} else {
			sib = replace(t, c, r);	/* may move t->n */
			if (t->n[c].nr)
				add_entry(&e, c, node_sum(t, c));
			else
				free_node(t, c);
			if (sib)
				add_entry(&e, sib, node_sum(t, sib));
		}
	}
	return store(t, x, &e);
}

/* The whole map's segments [e0, e1) become @r's pieces. */
static void replace_root(struct seg_tree *t, const struct seg_replace *r)
{
	uint32_t sib = replace(t, t->root, r), x;

	if (sib) {
		x = new_node(t, 0);
		t->n[x].nr = 2;
		t->n[x].kid[0] = t->root;
		t->n[x].sum[0] = node_sum(t, t->root);
		t->n[x].kid[1] = sib;
		t->n[x].sum[1] = node_sum(t, sib);
		t->root = x;
	}
	while (!t->n[t->root].leaf && t->n[t->root].nr == 1) {
		x = t->root;
		t->root = t->n[x].kid[0];
		free_node(t, x);
	}
	t->sum = node_sum(t, t->root);
}

void seg_tree_init(struct seg_tree *t, uint64_t pages, unsigned state,
		   unsigned keep_state, unsigned run_states)
{
	struct seg_node *n;

	memset(t, 0, sizeof(*t));
	t->keep_state = keep_state;
	t->run_states = run_states;
	t->pages = (uint32_t)pages;
	t->root = new_node(t, 1);
	n = &t->n[t->root];
	n->nr = 1;
	n->kid[0] = state;
	n->sum[0] = piece_sum(t, (struct seg_piece){ 0, t->pages, state });
	t->sum = n->sum[0];
}

void seg_tree_destroy(struct seg_tree *t)
{
	free(t->n);
	free(t->found);
	memset(t, 0, sizeof(*t));
}

/*
 * The segments across lo and hi keep what lies outside [lo, hi), and the
 * range merges with them, or with the neighbours it touches, where they
 * are in @state: neighbours are never in one state.
 */
void seg_tree_set(struct seg_tree *t, uint64_t lo64, uint64_t hi64, unsigned state)
{
	struct seg_replace r;
	struct seg_piece a, b, next;
	uint32_t lo, hi;

	if (hi64 > t->pages)
		hi64 = t->pages;
	if (lo64 >= hi64)
		return;
	lo = (uint32_t)lo64;
	hi = (uint32_t)hi64;
	a = lookup(t, lo);
	if (a.state == state && hi <= a.e)
		return;
	b = hi <= a.e ? a : lookup(t, hi - 1);
	r.e0 = a.s;
	r.e1 = b.e;
	r.k = 0;
	if (a.s < lo && a.state != state) {
		r.p[r.k++] = (struct seg_piece){ a.s, lo, a.state };
	} else if (a.s < lo) {
		lo = a.s;
	} else if (lo > 0) {
		struct seg_piece prev = lookup(t, lo - 1);

		if (prev.state == state)
			lo = r.e0 = prev.s;
	}
	if (hi < b.e && b.state == state) {
		hi = b.e;
	} else if (hi == b.e && hi < t->pages) {
		next = lookup(t, hi);
		if (next.state == state)
			hi = r.e1 = next.e;
	}
	r.p[r.k++] = (struct seg_piece){ lo, hi, state };
	if (hi < b.e)
		r.p[r.k++] = (struct seg_piece){ hi, b.e, b.state };
	replace_root(t, &r);
}

/* Collect into t->found the segments in state @from overlapping [lo, hi). */
static void find_from(struct seg_tree *t, uint32_t x, uint32_t lo, uint32_t hi, unsigned from)
{
	uint32_t i;

	for (i = 0; i < t->n[x].nr; i++) {
		const struct seg_node *n = &t->n[x];
		const struct seg_sum *s = &n->sum[i];

		if (s->last <= lo)
			continue;
		if (s->first >= hi)
			break;
		if (!(s->mask >> from & 1))
			continue;
		if (!n->leaf) {
			find_from(t, n->kid[i], lo, hi, from);
			continue;
		}
		t->found = xgrow(t->found, &t->cap_found, t->nr_found + 1,
				 sizeof(*t->found), WHAT);
		t->found[t->nr_found++] = (struct seg_span){ s->first, s->last };
	}
}

void seg_tree_set_from(struct seg_tree *t, uint64_t lo, uint64_t hi,
		       unsigned from, unsigned to)
{
	uint32_t i;

	if (hi > t->pages)
		hi = t->pages;
	if (from == to || lo >= hi)
		return;
	t->nr_found = 0;
	find_from(t, t->root, (uint32_t)lo, (uint32_t)hi, from);
	/*
	 * Segments of one state are never neighbours, so setting one (and
	 * merging it with neighbours in @to) leaves the next one as found.
	 * Each is set once: no change here makes a segment in @from again.
	 */
	for (i = 0; i < t->nr_found; i++)
		seg_tree_set(t, t->found[i].s > lo ? t->found[i].s : lo,
			     t->found[i].e < hi ? t->found[i].e : hi, to);
}

static unsigned states_in(const struct seg_tree *t, uint32_t x, uint32_t lo, uint32_t hi)
{
	const struct seg_node *n = &t->n[x];
	unsigned mask = 0;
	uint32_t i;

	for (i = 0; i < n->nr; i++) {
		const struct seg_sum *s = &n->sum[i];

		if (s->last <= lo)
			continue;
		if (s->first >= hi)
			break;
		if (n->leaf || (lo <= s->first && s->last <= hi))
			mask |= s->mask;
		else
			mask |= states_in(t, n->kid[i], lo, hi);
	}
	return mask;
}

unsigned seg_tree_states(const struct seg_tree *t, uint64_t lo, uint64_t hi)
{
	if (hi > t->pages)
		hi = t->pages;
	if (lo >= hi)
		return 0;
	return states_in(t, t->root, (uint32_t)lo, (uint32_t)hi);
}

const struct seg_sum *seg_tree_sum(const struct seg_tree *t)
{
	return &t->sum;
}
