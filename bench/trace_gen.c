/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace_gen.c - write a large synthetic trace for the decode benchmark:
 * a boot-like mix of reads, touches, frees, writes and mappings with
 * deterministic pseudo-random values.  It keeps FORMAT.md's Mappings
 * rules: physical memory is mapped at its own address first, and the
 * mappings that come and go lie at a second address, as the guest
 * kernel's own mappings of its memory do.
 *
 * With a SHAPE, one of the hostile inputs the corner benchmark
 * (corners.sh) measures instead, EVENTS events of it:
 *   maps   one-page mappings, each at its own address, every other page
 *          in random order: as many segments of the validator's map
 *   early  one-page reads before the first mapping, every other page in
 *          random order: as many segments read into early
 *   far    one-page reads at random page-aligned offsets of a 1 TiB disk
 *          into 64 MiB of memory mapped at its own address: nearly every
 *          read a new page of the host's page cache, far from the last
 *
 * Usage: trace_gen EVENTS OUT [SHAPE]   (OUT's name chooses the encoding)
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "util/util.h"

/* xorshift64: the same trace on every run. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A header of @pages pages of memory and one device of @dev_bytes. */
static void set_header(struct trace_header *h, uint64_t pages, uint64_t dev_bytes)
{
	memset(h, 0, sizeof(*h));
	h->version = TRACE_VERSION;
	h->page_size = 4096;
	h->memory = pages * 4096;
	h->nr_devices = 1;
	strcpy(h->devices[0].name, "ubda");
	h->devices[0].size = dev_bytes;
	strcpy(h->devices[0].backing, "synthetic");
	h->readahead_kb = 128;
	strcpy(h->recorder, "trace_gen");
}

/* 0..n-1 in an order of @seed's: each page of a shape once, far from the last. */
static uint64_t *shuffled(uint64_t n, uint64_t *seed)
{
	uint64_t *p = malloc((n ? n : 1) * sizeof(*p)), i, j, x;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n; i > 1; i--) {
		j = next(seed) % i;
		x = p[i - 1];
		p[i - 1] = p[j];
		p[j] = x;
	}
	return p;
}

/* A hostile shape's @n events into @out (see the top of the file). */
static int write_shape(const char *shape, uint64_t n, const char *out)
{
	struct trace_header h;
	struct trace_event ev;
	struct trace_writer *w;
	char err[1024];
	uint64_t seed = 0x9e3779b97f4a7c15ULL, i, *order = NULL;
	const uint64_t own = 0x60000000;
	int far = !strcmp(shape, "far"), early = !strcmp(shape, "early");
	/* every other page of 2n, so that no two mappings or reads meet */
	uint64_t pages = far ? 16384 : 2 * (n + 1);

	if (!far && !early && strcmp(shape, "maps")) {
		fprintf(stderr, "trace_gen: unknown shape '%s' (maps, early or far)\n", shape);
		return EXIT_USAGE;
	}
	set_header(&h, pages, far ? 1ULL << 40 : 1ULL << 30);
	if (!far && !(order = shuffled(n, &seed))) {
		msg("out of memory");
		return EXIT_OUTPUT;
	}
	w = trace_writer_open(out, &h, err, sizeof(err));
	if (!w) {
		msg("%s", err);
		free(order);
		return EXIT_DATA;
	}
	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.time_us = i;
		if (i == 0 && !early) {	/* where memory lies: page 0 (maps), all (far) */
			ev.kind = EV_MMAP;
			ev.addr = own;
			ev.length = far ? pages * 4096 : 4096;
		} else if (far) {
			ev.kind = EV_READ;
			ev.offset = next(&seed) % (h.devices[0].size >> 12) << 12;
			ev.length = 4096;
			ev.page = next(&seed) % pages;
		} else if (early) {
			ev.kind = EV_READ;
			ev.offset = next(&seed) % (h.devices[0].size >> 12) << 12;
			ev.length = 4096;
			ev.page = 2 * order[i] + 1;
		} else {
			ev.kind = EV_MMAP;
			ev.offset = (2 * order[i] + 2) << 12;
			ev.addr = own + ev.offset;
			ev.length = 4096;
		}
		if (trace_write(w, &ev))
			break;
	}
	free(order);
	if (trace_writer_commit(w, err, sizeof(err))) {
		msg("%s", err);
		return EXIT_DATA;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct trace_header h;
	struct trace_event ev;
	struct trace_writer *w;
	char err[1024];
	uint64_t n, i, seed = 0x9e3779b97f4a7c15ULL, r, t = 0;
	const uint64_t pages = 16384, dev_pages = 262144;	/* 64 MiB, 1 GiB */
	const uint64_t own = 0x60000000, second = 0x70000000;

	if (argc < 3 || argc > 4 || parse_uint(argv[1], UINT64_MAX, &n)) {
		fprintf(stderr, "Usage: trace_gen EVENTS OUT [SHAPE]\n");
		return EXIT_USAGE;
	}
	if (argc == 4)
		return write_shape(argv[3], n, argv[2]);
	set_header(&h, pages, dev_pages * 4096);
	w = trace_writer_open(argv[2], &h, err, sizeof(err));
	if (!w) {
		msg("%s", err);
		return EXIT_DATA;
	}
	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		if (i == 0) {	/* where memory lies, before anything reads */
			ev.kind = EV_MMAP;
			ev.addr = own;
			ev.length = pages * 4096;
			if (trace_write(w, &ev))
				break;
			continue;
		}
		r = next(&seed);
		t += r % 50;
		ev.time_us = t;
		switch ((r >> 8) % 20) {
		case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8:
			ev.kind = EV_READ;
			ev.offset = (r >> 16) % (dev_pages - 8) * 4096;
			ev.length = 4096 * (1 + (r >> 40) % 8);
			ev.page = (r >> 24) % (pages - 8);
			break;
		case 9:
			ev.kind = EV_WRITE;
			ev.offset = (r >> 16) % (dev_pages - 1) * 4096;
			ev.length = 4096;
			ev.page = (r >> 24) % pages;
			break;
		case 10: case 11: case 12: case 13: case 14:
			ev.kind = EV_TOUCH;
			ev.page = (r >> 16) % (pages - 4);
			ev.count = 1 + (r >> 40) % 4;
			break;
		case 15: case 16: case 17:
			ev.kind = EV_FREE;
			ev.page = (r >> 16) % pages;
			ev.count = 1;
			break;
		case 18:
			ev.kind = EV_MMAP;
			ev.offset = (r >> 16) % pages * 4096;
			ev.addr = second + ev.offset;
			ev.length = 4096;
			break;
		default:
			ev.kind = EV_MUNMAP;
			ev.addr = second + (r >> 16) % pages * 4096;
			ev.length = 4096;
			break;
		}
		if (i == n / 2) {
			memset(&ev, 0, sizeof(ev));
			ev.time_us = t;
			ev.kind = EV_PHASE;
			strcpy(ev.name, "boot-done");
		}
		if (trace_write(w, &ev))
			break;
	}
	if (trace_writer_commit(w, err, sizeof(err))) {
		msg("%s", err);
		return EXIT_DATA;
	}
	return EXIT_OK;
}
