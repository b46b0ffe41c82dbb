/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunked.c - per-page arrays allocated by the chunk (see chunked.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/chunked.h"

int chunked_init(struct chunked *a, uint64_t n, size_t elem)
{
	memset(a, 0, sizeof(*a));
	a->n = n;
	a->elem = elem;
	a->nr_chunks = (n + CHUNK_LEN - 1) >> CHUNK_SHIFT;
	a->chunk = calloc(a->nr_chunks ? a->nr_chunks : 1, sizeof(*a->chunk));
	return a->chunk ? 0 : -1;
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

	*c = calloc(CHUNK_LEN, a->elem);
	if (!*c)
		abort();	/* out of memory in the simulator itself */
	a->used++;
	return *c + (i & (CHUNK_LEN - 1)) * a->elem;
}
