/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_trace_util.h - what the trace suites share: a scratch directory,
 * a header with two devices, and field-by-field event comparison.
 */
#ifndef ANONSIM_CHECK_TRACE_UTIL_H
#define ANONSIM_CHECK_TRACE_UTIL_H

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"

static char dir[256];

static inline void make_dir(void)
{
	snprintf(dir, sizeof(dir), "%s/check_trace.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Remove the scratch directory and what the test left in it. */
static inline void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static inline void sample_header(struct trace_header *h)
{
	memset(h, 0, sizeof(*h));
	h->version = 1;
	h->page_size = 4096;
	h->memory = 64ULL << 20;		/* 16384 pages */
	h->nr_devices = 2;
	strcpy(h->devices[0].name, "ubda");
	h->devices[0].size = 1ULL << 30;
	strcpy(h->devices[0].backing, "sha256:abc123");
	strcpy(h->devices[1].name, "ubdb");
	h->devices[1].size = 8 << 20;
	strcpy(h->devices[1].backing, "swap-image");
	strcpy(h->devices[1].cow, "base-image");
	h->readahead_kb = 8192;
	strcpy(h->recorder, "anonsim-record host-kernel=6.18 residency-interval-ms=10");
	strcpy(h->notes, "Debian bookworm minbase\nsecond note line");
}

static inline void assert_event_eq(const struct trace_event *got,
				   const struct trace_event *want)
{
	ck_assert_uint_eq(got->time_us, want->time_us);
	ck_assert_int_eq(got->kind, want->kind);
	ck_assert_uint_eq(got->dev, want->dev);
	ck_assert_uint_eq(got->page, want->page);
	ck_assert_uint_eq(got->count, want->count);
	ck_assert_uint_eq(got->offset, want->offset);
	ck_assert_uint_eq(got->length, want->length);
	ck_assert_uint_eq(got->addr, want->addr);
	ck_assert_str_eq(got->name, want->name);
}

#endif
