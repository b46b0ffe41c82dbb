/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunked.c - per-page arrays allocated by the chunk (see chunked.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/chunked.h"
#include "util/xalloc.h"

void chunked_init(struct chunked *a, uint64_t n, size_t elem)
{
	memset(a, 0, sizeof(*a));
	a->n = n;
	a->elem = elem;
	a->nr_chunks = (n + CHUNK_LEN - 1) >> CHUNK_SHIFT;
	a->chunk = xcalloc(a->nr_chunks, sizeof(*a->chunk), "a directory of per-page state");
}

void chunked_destroy(struct chunked *a)
{
	uint64_t k;

	for (k = 0; a->chunk && k < a->nr_chunks; k++)
		free(a->chunk[k]);
	free(a->chunk);
	memset(a, 0, sizeof(*a));
}

void *chunked_fill(struct chunked *a, uint64_t i)
{
	unsigned char **c = &a->chunk[i >> CHUNK_SHIFT];

	*c = xcalloc(CHUNK_LEN, a->elem, "per-page state");
	a->used++;
	return *c + (i & (CHUNK_LEN - 1)) * a->elem;
}
