/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sparse.h - per-page state that costs memory by the 64 pages touched, as
 * the kernel's page cache does (an xarray: nodes of XA_CHUNK_SIZE, 64,
 * slots).  Leaves of 64 pages, of a layout the user defines, hang from
 * nodes of 64 leaf pointers under a flat directory, one pointer per 4096
 * pages.  A page read alone on a 1 TiB disk costs its leaf and a share of
 * a 512-byte node, where chunked.h's 4096-page chunks cost 4096 elements.
 *
 * Where one pointer per leaf costs no more than SPARSE_FLAT_MAX leaves
 * (512 KiB: chunked.h's directory for a 1 TiB disk; a file of 16 GiB or
 * less), the directory holds the leaves themselves: a lookup is then two
 * loads, as chunked.h's, not three, which a replay reading its disk page
 * by page notices.  Dense arrays (a guest's memory) keep chunked.h.
 */
#ifndef ANONSIM_SPARSE_H
#define ANONSIM_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPARSE_SHIFT 6			/* XA_CHUNK_SHIFT */
#define SPARSE_SLOTS (1U << SPARSE_SHIFT)
#define SPARSE_FLAT_MAX ((uint64_t)1 << 16)

/* Pages [leaf << SPARSE_SHIFT, +SPARSE_SLOTS) are in leaf number leaf. */
#define SPARSE_LEAF(page) ((page) >> SPARSE_SHIFT)
#define SPARSE_SLOT(page) ((page) & (SPARSE_SLOTS - 1))

struct sparse_node {
	void *leaf[SPARSE_SLOTS];	/* NULL: all zero */
};

struct sparse {
	/*
	 * flat: leaves by number; else nodes by leaf >> SPARSE_SHIFT.
	 * NULL: all zero.
	 */
	void **dir;
	bool flat;
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
	const struct sparse_node *n;

	if (a->flat)
		return a->dir[k];
	n = a->dir[k >> SPARSE_SHIFT];
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
