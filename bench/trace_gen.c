/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace_gen.c - write a large synthetic trace for the decode benchmark:
 * a boot-like mix of reads, touches, frees, writes and mappings with
 * deterministic pseudo-random values.  It keeps FORMAT.md's Mappings
 * rules: physical memory is mapped at its own address first, and the
 * mappings that come and go lie at a second address, as the guest
 * kernel's own mappings of its memory do.
 *
 * Usage: trace_gen EVENTS OUT   (OUT's name chooses the encoding)
 */
#include <config.h>

#include <stdio.h>
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

int main(int argc, char **argv)
{
	struct trace_header h;
	struct trace_event ev;
	struct trace_writer *w;
	char err[1024];
	uint64_t n, i, seed = 0x9e3779b97f4a7c15ULL, r, t = 0;
	const uint64_t pages = 16384, dev_pages = 262144;	/* 64 MiB, 1 GiB */
	const uint64_t own = 0x60000000, second = 0x70000000;

	if (argc != 3 || parse_uint(argv[1], UINT64_MAX, &n)) {
		fprintf(stderr, "Usage: trace_gen EVENTS OUT\n");
		return EXIT_USAGE;
	}
	memset(&h, 0, sizeof(h));
	h.version = TRACE_VERSION;
	h.page_size = 4096;
	h.memory = pages * 4096;
	h.nr_devices = 1;
	strcpy(h.devices[0].name, "ubda");
	h.devices[0].size = dev_pages * 4096;
	strcpy(h.devices[0].backing, "synthetic");
	h.readahead_kb = 128;
	strcpy(h.recorder, "trace_gen");
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
