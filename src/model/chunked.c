/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunked.c - per-page arrays allocated by the chunk (see chunked.h).
 *
 * Chunks come from huge pages: with thousands of instances at once, a
 * replay reaches into a gigabyte of them at random, and a 4 KiB page
 * each faulted in and mapped cost a third of its time (measured,
 * bench/README.md).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "model/chunked.h"
#include "util/hugemem.h"
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
		huge_free(a->chunk[k], CHUNK_LEN * a->elem);
	free(a->chunk);
	memset(a, 0, sizeof(*a));
}

void *chunked_fill(struct chunked *a, uint64_t i)
{
	unsigned char **c = &a->chunk[i >> CHUNK_SHIFT];

	*c = huge_zalloc(CHUNK_LEN * a->elem, "per-page state");
	a->used++;
	return *c + (i & (CHUNK_LEN - 1)) * a->elem;
}
