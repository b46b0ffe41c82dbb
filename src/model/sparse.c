/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sparse.c - per-page state by the 64 pages touched (see sparse.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/sparse.h"
#include "util/xalloc.h"

static uint64_t nr_dir(const struct sparse *a)
{
	return (a->nr_leaves + SPARSE_SLOTS - 1) >> SPARSE_SHIFT;
}

void sparse_init(struct sparse *a, uint64_t nr_leaves, size_t leaf_bytes)
{
	memset(a, 0, sizeof(*a));
	a->nr_leaves = nr_leaves;
	a->leaf_bytes = leaf_bytes;
	/* calloc: the kernel's pages of it stay unmapped until a node is hung there */
	a->dir = xcalloc(nr_dir(a) ? nr_dir(a) : 1, sizeof(*a->dir),
			 "a directory of per-page state");
}

void sparse_destroy(struct sparse *a)
{
	uint64_t d;
	unsigned s;

	for (d = 0; a->dir && d < nr_dir(a); d++) {
		if (!a->dir[d])
			continue;
		for (s = 0; s < SPARSE_SLOTS; s++)
			free(a->dir[d]->leaf[s]);
		free(a->dir[d]);
	}
	free(a->dir);
	memset(a, 0, sizeof(*a));
}

void *sparse_fill(struct sparse *a, uint64_t k)
{
	struct sparse_node **n = &a->dir[k >> SPARSE_SHIFT];
	void **l;

	if (!*n) {
		*n = xcalloc(1, sizeof(**n), "a node of per-page state");
		a->nodes++;
	}
	l = &(*n)->leaf[k & (SPARSE_SLOTS - 1)];
	if (!*l) {
		*l = xcalloc(1, a->leaf_bytes, "per-page state");
		a->leaves++;
	}
	return *l;
}

uint64_t sparse_next(const struct sparse *a, uint64_t k)
{
	while (k < a->nr_leaves) {
		const struct sparse_node *n = a->dir[k >> SPARSE_SHIFT];

		if (!n)
			k = (k | (SPARSE_SLOTS - 1)) + 1;	/* the node's 64 at once */
		else if (n->leaf[k & (SPARSE_SLOTS - 1)])
			return k;
		else
			k++;
	}
	return a->nr_leaves;
}

uint64_t sparse_bytes(const struct sparse *a)
{
	return nr_dir(a) * sizeof(*a->dir) + a->nodes * sizeof(struct sparse_node) +
	       a->leaves * a->leaf_bytes;
}
