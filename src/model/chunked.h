/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunked.h - a per-page array that costs memory for the pages used, not
 * for the size a trace declares: chunks of CHUNK_LEN elements, allocated
 * zeroed on the first write into them.  A trace may declare 1 TiB of
 * memory or disk and touch four pages of it.  A lookup is two loads, for
 * the arrays a replay fills densely (a guest's memory); a page alone in
 * its 4096 costs the whole chunk, so state a trace may scatter over a
 * large disk (the page cache) is kept by the 64 pages instead (sparse.h).
 */
#ifndef ANONSIM_CHUNKED_H
#define ANONSIM_CHUNKED_H

#include <stddef.h>
#include <stdint.h>

#define CHUNK_SHIFT 12
#define CHUNK_LEN ((uint64_t)1 << CHUNK_SHIFT)

struct chunked {
	unsigned char **chunk;		/* by index >> CHUNK_SHIFT; NULL: all zero */
	uint64_t n;			/* elements */
	uint64_t nr_chunks, used;	/* directory length, chunks allocated */
	size_t elem;			/* bytes per element */
};

/* An array of @n zero elements of @elem bytes (die_oom() when out of memory). */
void chunked_init(struct chunked *a, uint64_t n, size_t elem);
void chunked_destroy(struct chunked *a);

/* Allocate the chunk of element @i; die_oom() when out of memory. */
void *chunked_fill(struct chunked *a, uint64_t i);

/* Element @i, to write (its chunk allocated if need be). */
static inline void *chunked_at(struct chunked *a, uint64_t i, size_t elem)
{
	unsigned char *c = a->chunk[i >> CHUNK_SHIFT];

	return c ? c + (i & (CHUNK_LEN - 1)) * elem : chunked_fill(a, i);
}

/* Element @i to read, or NULL where nothing was ever written (all zero). */
static inline const void *chunked_peek(const struct chunked *a, uint64_t i,
				       size_t elem)
{
	const unsigned char *c = a->chunk[i >> CHUNK_SHIFT];

	return c ? c + (i & (CHUNK_LEN - 1)) * elem : NULL;
}

/* The first index from @i on in an allocated chunk, or a->n: walks skip the rest. */
static inline uint64_t chunked_next(const struct chunked *a, uint64_t i)
{
	uint64_t k;

	for (k = i >> CHUNK_SHIFT; i < a->n; i = ++k << CHUNK_SHIFT)
		if (a->chunk[k])
			return i;
	return a->n;
}

#endif
