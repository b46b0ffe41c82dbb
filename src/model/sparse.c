/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sparse.c - per-page state by the 64 pages touched (see sparse.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/sparse.h"
#include "util/xalloc.h"

/* Directory entries: one a leaf (flat) or one a node of SPARSE_SLOTS leaves. */
static uint64_t nr_dir(const struct sparse *a)
{
	if (a->flat)
		return a->nr_leaves;
	return (a->nr_leaves + SPARSE_SLOTS - 1) >> SPARSE_SHIFT;
}

void sparse_init(struct sparse *a, uint64_t nr_leaves, size_t leaf_bytes)
{
	memset(a, 0, sizeof(*a));
	a->nr_leaves = nr_leaves;
	a->leaf_bytes = leaf_bytes;
	a->flat = nr_leaves <= SPARSE_FLAT_MAX;
	/* calloc: the pages of a large directory stay unmapped until written */
	a->dir = xcalloc(nr_dir(a) ? nr_dir(a) : 1, sizeof(*a->dir),
			 "a directory of per-page state");
}

void sparse_destroy(struct sparse *a)
{
	uint64_t d;
	unsigned s;

	for (d = 0; a->dir && d < nr_dir(a); d++) {
		struct sparse_node *n = a->dir[d];

		if (n && !a->flat)
			for (s = 0; s < SPARSE_SLOTS; s++)
				free(n->leaf[s]);
		free(n);	/* flat: the leaf itself */
	}
	free(a->dir);
	memset(a, 0, sizeof(*a));
}

void *sparse_fill(struct sparse *a, uint64_t k)
{
	struct sparse_node *n;
	void **l = &a->dir[k];

	if (!a->flat) {
		n = a->dir[k >> SPARSE_SHIFT];
		if (!n) {
			n = xcalloc(1, sizeof(*n), "a node of per-page state");
			a->dir[k >> SPARSE_SHIFT] = n;
			a->nodes++;
		}
		l = &n->leaf[k & (SPARSE_SLOTS - 1)];
	}
	if (!*l) {
		*l = xcalloc(1, a->leaf_bytes, "per-page state");
		a->leaves++;
	}
	return *l;
}

uint64_t sparse_next(const struct sparse *a, uint64_t k)
{
	for (; k < a->nr_leaves; k++) {
		if (!a->flat && !a->dir[k >> SPARSE_SHIFT])
			k |= SPARSE_SLOTS - 1;	/* no node: its 64 leaves at once */
		else if (sparse_peek(a, k))
			return k;
	}
	return a->nr_leaves;
}

uint64_t sparse_bytes(const struct sparse *a)
{
	return nr_dir(a) * sizeof(*a->dir) + a->nodes * sizeof(struct sparse_node) +
	       a->leaves * a->leaf_bytes;
}
