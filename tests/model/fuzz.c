/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tests/model/fuzz.c - libFuzzer target: the contract between "anonsim trace
 * check" and "anonsim replay --check".  The bytes are a trace (either
 * encoding, plain or gzip); the validator decodes it as check does, and a
 * trace it accepts is replayed under every strategy and variant of the
 * registry with the invariant checker on: once on an unlimited host, once
 * on a small one that must reclaim and swap, with two instances of the
 * trace, the second started while the first runs.  A replay that refuses
 * an accepted trace, or whose checker finds the simulator broken (what
 * makes replay exit 3), is a finding, as is any crash or sanitizer report.
 *
 * Replays cost what a trace does: an accepted trace whose events name more
 * than WORK_MAX pages in all is checked but not replayed, so that a run
 * looks for wrong results, not for the time 1 TiB of touches takes.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/replay.h"
#include "strategy/registry.h"
#include "trace/trace.h"

#define WORK_MAX (1u << 16)	/* pages: 256 MiB of guest memory */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[4096];
static int fd = -1;

static void remove_file(void)
{
	unlink(path);
}

/* The input as a file, for the reader and replay to open by name. */
static void put_file(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		const char *dir = getenv("TMPDIR");

		snprintf(path, sizeof(path), "%s/fuzz_replay.XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkstemp(path);
		if (fd < 0) {
			perror(path);
			abort();
		}
		atexit(remove_file);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		perror(path);
		abort();
	}
}

/* Pages an event names (lengths in bytes rounded up), saturating. */
static uint64_t event_work(const struct trace_event *ev)
{
	switch (ev->kind) {
	case EV_TOUCH:
	case EV_FREE:
		return ev->count;
	case EV_READ:
	case EV_WRITE:
	case EV_REQUEST:
	case EV_MMAP:
	case EV_MUNMAP:
	case EV_MAPDUP:
		return ev->length / 4096 + 1;
	default:
		return 1;
	}
}

/* As "anonsim trace check": 1 accepted (and *work set), 0 refused. */
static int check(uint64_t *work)
{
	char err[1024];
	struct trace_reader *r = trace_open(path, err, sizeof(err));
	const struct trace_event *ev;
	size_t run, i;
	int rc;

	*work = 0;
	if (!r) {
		if (strncmp(err, path, strlen(path)))	/* every message names the file */
			abort();
		return 0;
	}
	while ((rc = trace_next_run(r, &ev, &run)) > 0)
		for (i = 0; i < run; i++) {
			uint64_t w = event_work(&ev[i]);

			*work = *work + w < *work ? UINT64_MAX : *work + w;
		}
	if (rc < 0 && strncmp(trace_error(r), path, strlen(path)))
		abort();
	trace_close(r);
	return rc == 0;
}

static void replay(const struct strategy *s, enum anon_variant v,
		   const struct replay_opts *o, const char *how)
{
	static struct replay_result res;
	char err[1024], *paths[1] = { path };
	int rc = replay_run(paths, 1, s, v, o, &res, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "fuzz_replay: %s %s: check accepted the trace, replay refused it (exit %d): %s\n",
			res.label, how, rc, err);
		abort();
	}
	if (replay_failed(&res)) {
		fprintf(stderr, "fuzz_replay: %s %s: simulator failure: %s; at %s\n",
			res.label, how, res.find.first_other, res.fail_at);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* replay's defaults with --check (see host_options.c) ... */
	const struct replay_opts roomy = {
		.swap = 1ULL << 30, .policy = RECLAIM_MODERN, .readahead_kb = -1,
		.copies = 1, .stagger_us = -1, .share = true, .check = true,
		.recount_every = 64, .geom = &shmem_geom_x86_64,
	};
	/* ... and a host of 256 KiB with 256 KiB of swap, two instances
	 * 10 ms apart, 2.4's reclaim and the i386 tables */
	const struct replay_opts tight = {
		.host_mem = 256 << 10, .swap = 256 << 10, .policy = RECLAIM_24,
		.readahead_kb = 16, .overhead = 4096, .copies = 2,
		.stagger_us = 10000, .share = true, .check = true,
		.recount_every = 64, .geom = &shmem_geom_i386,
	};
	const struct strategy *const *s;
	uint64_t work;

	put_file(data, size);
	if (!check(&work) || work > WORK_MAX)
		return 0;
	for (s = strategies; *s; s++) {
		replay(*s, ANON_FIXED, &roomy, "(unlimited host)");
		replay(*s, ANON_FIXED, &tight, "(256 KiB host, two instances)");
		if ((*s)->has_variants) {
			replay(*s, ANON_POSTED, &roomy, "(unlimited host)");
			replay(*s, ANON_POSTED, &tight, "(256 KiB host, two instances)");
		}
	}
	return 0;
}
