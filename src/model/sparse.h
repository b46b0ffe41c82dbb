/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sparse.h - per-page state that costs memory by the 64 pages touched, as
 * the kernel's page cache does (an xarray: nodes of XA_CHUNK_SIZE, 64,
 * slots).  Leaves of 64 pages, of a layout the user defines, hang from
 * nodes of 64 leaf pointers under a flat directory, one pointer per 4096
 * pages.  A page read alone on a 1 TiB disk costs its leaf and a share of
 * a 512-byte node, where chunked.h's 4096-page chunks cost 4096 elements.
 * Dense arrays (instance memory) keep chunked.h: one load fewer a lookup.
 */
#ifndef ANONSIM_SPARSE_H
#define ANONSIM_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#define SPARSE_SHIFT 6			/* XA_CHUNK_SHIFT */
#define SPARSE_SLOTS (1U << SPARSE_SHIFT)

/* Pages [leaf << SPARSE_SHIFT, +SPARSE_SLOTS) are in leaf number leaf. */
#define SPARSE_LEAF(page) ((page) >> SPARSE_SHIFT)
#define SPARSE_SLOT(page) ((page) & (SPARSE_SLOTS - 1))

struct sparse_node {
	void *leaf[SPARSE_SLOTS];	/* NULL: all zero */
};

struct sparse {
	struct sparse_node **dir;	/* by leaf >> SPARSE_SHIFT; NULL: all zero */
	uint64_t nr_leaves;		/* leaves the array spans */
	uint64_t nodes, leaves;		/* allocated */
	size_t leaf_bytes;
};

/* An array of @nr_leaves zeroed leaves of @leaf_bytes (die_oom() when out of memory). */
void sparse_init(struct sparse *a, uint64_t nr_leaves, size_t leaf_bytes);
void sparse_destroy(struct sparse *a);

/* Allocate leaf @k (and its node); die_oom() when out of memory. */
void *sparse_fill(struct sparse *a, uint64_t k);

/* Leaf @k to read, or NULL where nothing was ever written (all zero). */
static inline void *sparse_peek(const struct sparse *a, uint64_t k)
{
	const struct sparse_node *n = a->dir[k >> SPARSE_SHIFT];

	return n ? n->leaf[k & (SPARSE_SLOTS - 1)] : NULL;
}

/* Leaf @k, to write (allocated if need be). */
static inline void *sparse_leaf(struct sparse *a, uint64_t k)
{
	void *l = sparse_peek(a, k);

	return l ? l : sparse_fill(a, k);
}

/* The first allocated leaf from @k on, or a->nr_leaves: walks skip the rest. */
uint64_t sparse_next(const struct sparse *a, uint64_t k);

/* Bytes the array holds: directory, nodes and leaves (allocator headers aside). */
uint64_t sparse_bytes(const struct sparse *a);

#endif
