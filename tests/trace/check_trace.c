/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_trace.c - the trace reader and writer: every event kind survives
 * text, binary and their gzip forms with exact values, headers included,
 * and the writer refuses what the reader would refuse.
 */
#include <config.h>

#include "check_trace_util.h"
#include "trace/share.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "util/cleanup.h"
#include "util/xalloc.h"

/* One event of every kind, with values that fill the wide fields. */
static const struct trace_event sample[] = {
	{ .time_us = 0, .kind = EV_MMAP, .addr = 0x60000000, .length = 64 << 20, .offset = 0 },
	{ .time_us = 17, .kind = EV_READ, .dev = 0, .offset = (1ULL << 30) - 4096,
	  .length = 4096, .page = 16383 },
	{ .time_us = 17, .kind = EV_WRITE, .dev = 1, .offset = 512, .length = 1024, .page = 3 },
	{ .time_us = 40, .kind = EV_TOUCH, .page = 100, .count = 28 },
	{ .time_us = 41, .kind = EV_FREE, .page = 16380, .count = 4 },
	{ .time_us = 50, .kind = EV_MUNMAP, .addr = 0x7fff00000000ULL, .length = 8192 },
	{ .time_us = 5000000000ULL, .kind = EV_MAPDUP, .addr = 0xffffffffffffe000ULL,
	  .length = 4096, .offset = (64 << 20) - 4096 },
	{ .time_us = 5000000001ULL, .kind = EV_PHASE, .name = "boot-done" },
	{ .time_us = 5000000002ULL, .kind = EV_FOOTPRINT, .name = "tmpfs", .count = 8093 },
	{ .time_us = 5000000002ULL, .kind = EV_FOOTPRINT, .name = "cache:ubdb", .count = 11683 },
	/* the largest host figure: 2^40 bytes */
	{ .time_us = 5000000003ULL, .kind = EV_HOST, .count = 1ULL << 28 },
	/* with its anonymous part: all of it */
	{ .time_us = 5000000004ULL, .kind = EV_HOST, .count = 1ULL << 28, .anon = 1ULL << 28 },
};
#define NR_SAMPLE (sizeof(sample) / sizeof(sample[0]))

static void write_sample(const char *path, const struct trace_header *h)
{
	char err[1024] = "";
	struct trace_writer *w = trace_writer_open(path, h, err, sizeof(err));
	size_t i;

	ck_assert_msg(w != NULL, "%s", err);
	for (i = 0; i < NR_SAMPLE; i++)
		ck_assert_int_eq(trace_write(w, &sample[i]), 0);
	ck_assert_msg(trace_writer_commit(w, err, sizeof(err)) == 0, "%s", err);
}

static void assert_header_equal(const struct trace_header *a, const struct trace_header *b)
{
	unsigned i;

	ck_assert_uint_eq(a->version, b->version);
	ck_assert_uint_eq(a->page_size, b->page_size);
	ck_assert_uint_eq(a->memory, b->memory);
	ck_assert_uint_eq(a->nr_devices, b->nr_devices);
	for (i = 0; i < a->nr_devices; i++) {
		ck_assert_str_eq(a->devices[i].name, b->devices[i].name);
		ck_assert_uint_eq(a->devices[i].size, b->devices[i].size);
		ck_assert_str_eq(a->devices[i].backing, b->devices[i].backing);
		ck_assert_str_eq(a->devices[i].cow, b->devices[i].cow);
	}
	ck_assert_int_eq(a->readahead_kb, b->readahead_kb);
	ck_assert_str_eq(a->recorder, b->recorder);
	ck_assert_str_eq(a->notes, b->notes);
}

static void assert_reads_sample(const char *path, const struct trace_header *h, int binary)
{
	char err[1024] = "";
	struct trace_reader *r = trace_open(path, err, sizeof(err));
	const struct trace_event *ev;
	size_t i;

	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_int_eq(trace_is_binary(r), binary);
	assert_header_equal(trace_header(r), h);
	for (i = 0; i < NR_SAMPLE; i++) {
		const struct trace_event *want = &sample[i];

		ck_assert_int_eq(trace_next(r, &ev), 1);
		assert_event_eq(ev, want);
	}
	ck_assert_int_eq(trace_next(r, &ev), 0);
	ck_assert_int_eq(trace_next(r, &ev), 0);
	trace_close(r);
}

static const char *const names[] = { "t.trace", "t.atr", "t.trace.gz", "t.atr.gz" };

START_TEST(round_trip_every_kind)
{
	struct trace_header h;
	char path[512];

	sample_header(&h);
	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, names[_i]);
	write_sample(path, &h);
	assert_reads_sample(path, &h, _i % 2);
	remove_dir();
}
END_TEST

/* Re-encode through every other form: the events stay the same. */
START_TEST(convert_chain)
{
	struct trace_header h;
	char a[512], b[512], err[1024] = "";
	struct trace_reader *r;
	struct trace_writer *w;
	const struct trace_event *ev;
	int i;

	sample_header(&h);
	make_dir();
	snprintf(a, sizeof(a), "%s/%s", dir, names[0]);
	write_sample(a, &h);
	for (i = 1; i < 4; i++) {
		snprintf(b, sizeof(b), "%s/%s", dir, names[i]);
		r = trace_open(a, err, sizeof(err));
		ck_assert_msg(r != NULL, "%s", err);
		w = trace_writer_open(b, trace_header(r), err, sizeof(err));
		ck_assert_msg(w != NULL, "%s", err);
		while (trace_next(r, &ev) > 0)
			ck_assert_int_eq(trace_write(w, ev), 0);
		trace_close(r);
		ck_assert_int_eq(trace_writer_commit(w, err, sizeof(err)), 0);
		assert_reads_sample(b, &h, i % 2);
		strcpy(a, b);
	}
	remove_dir();
}
END_TEST

/* The text form of the sample, exactly. */
START_TEST(text_form)
{
	struct trace_header h;
	char buf[TRACE_HEADER_TEXT_MAX], line[TRACE_EVENT_TEXT_MAX];

	sample_header(&h);
	ck_assert_uint_eq(trace_format_header(&h, buf, sizeof(buf)), strlen(buf));
	ck_assert_str_eq(buf,
		"anonsim-trace 1\n"
		"page-size 4096\n"
		"memory 67108864\n"
		"device ubda size=1073741824 backing=sha256:abc123\n"
		"device ubdb size=8388608 backing=swap-image cow=base-image\n"
		"readahead-kb 8192\n"
		"recorder anonsim-record host-kernel=6.18 residency-interval-ms=10\n"
		"note Debian bookworm minbase\n"
		"note second note line\n"
		"events\n");
	trace_format_event(&h, &sample[1], line, sizeof(line));
	ck_assert_str_eq(line, "17 read ubda 1073737728 4096 16383\n");
	trace_format_event(&h, &sample[6], line, sizeof(line));
	ck_assert_str_eq(line, "5000000000 mapdup 0xffffffffffffe000 4096 67104768\n");
	trace_format_event(&h, &sample[9], line, sizeof(line));
	ck_assert_str_eq(line, "5000000002 footprint cache:ubdb 11683\n");
	trace_format_event(&h, &sample[10], line, sizeof(line));
	ck_assert_str_eq(line, "5000000003 host 268435456\n");
	trace_format_event(&h, &sample[11], line, sizeof(line));
	ck_assert_str_eq(line, "5000000004 host 268435456 268435456\n");
}
END_TEST

/* The binary form: magic, version, header length, then the records. */
START_TEST(binary_layout)
{
	struct trace_header h;
	char path[512], err[1024], text[TRACE_HEADER_TEXT_MAX];
	unsigned char buf[4096];
	struct trace_writer *w;
	struct trace_event touch = { .time_us = 300, .kind = EV_TOUCH, .page = 7, .count = 2 };
	struct trace_event host = { .time_us = 301, .kind = EV_HOST, .count = 0x1234 };
	struct trace_event host_anon = { .time_us = 303, .kind = EV_HOST, .count = 0x1234,
					 .anon = 0x1200 };
	size_t hlen, n;
	FILE *f;

	sample_header(&h);
	hlen = trace_format_header(&h, text, sizeof(text));
	make_dir();
	snprintf(path, sizeof(path), "%s/b.atr", dir);
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(trace_write(w, &touch), 0);
	ck_assert_int_eq(trace_write(w, &host), 0);
	ck_assert_int_eq(trace_write(w, &host_anon), 0);
	ck_assert_int_eq(trace_writer_commit(w, err, sizeof(err)), 0);
	f = fopen(path, "rb");
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert_uint_eq(n, 16 + hlen + 21 + 13 + 21);
	ck_assert_mem_eq(buf, "\x89" "ATR\r\n\x1a\n" "\1\0\0\0", 12);
	ck_assert_uint_eq(buf[12] | buf[13] << 8 | buf[14] << 16 | buf[15] << 24, hlen);
	ck_assert_mem_eq(buf + 16, text, hlen);
	ck_assert_mem_eq(buf + 16 + hlen,
		"\x02" "\x2c\x01\0\0" "\7\0\0\0\0\0\0\0" "\2\0\0\0\0\0\0\0", 21);
	/* host: kind 9, delta 1, pages u64 */
	ck_assert_mem_eq(buf + 16 + hlen + 21, "\x09" "\1\0\0\0" "\x34\x12\0\0\0\0\0\0", 13);
	/* host with an anonymous part: kind 10, delta 2, pages u64, anon u64 */
	ck_assert_mem_eq(buf + 16 + hlen + 34, "\x0a" "\2\0\0\0" "\x34\x12\0\0\0\0\0\0"
			 "\0\x12\0\0\0\0\0\0", 21);
	remove_dir();
}
END_TEST

/* The writer refuses a bad event with a message, and leaves no file. */
START_TEST(writer_refuses)
{
	struct trace_header h;
	struct trace_event ev = { .time_us = 5, .kind = EV_TOUCH, .page = 16383, .count = 2 };
	struct trace_event back = { .time_us = 4, .kind = EV_PHASE, .name = "x" };
	char path[512], err[1024] = "";
	struct trace_writer *w;

	sample_header(&h);
	make_dir();
	snprintf(path, sizeof(path), "%s/w.atr.gz", dir);
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(trace_write(w, &ev), -1);
	ck_assert_int_eq(trace_writer_commit(w, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "w.atr.gz: event 0: touch: pages 16383+2 beyond physical memory (16384 pages)"));
	ck_assert_int_eq(access(path, F_OK), -1);

	/* a host figure above 2^40 bytes */
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(trace_write(w, &(struct trace_event){ .time_us = 5, .kind = EV_HOST,
							       .count = (1ULL << 28) + 1 }), -1);
	ck_assert_int_eq(trace_writer_commit(w, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "w.atr.gz: event 0: host: 268435457 pages is more than 2^40 bytes"));
	ck_assert_int_eq(access(path, F_OK), -1);

	/* more anonymous pages than pages */
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(trace_write(w, &(struct trace_event){ .time_us = 5, .kind = EV_HOST,
							       .count = 10, .anon = 11 }), -1);
	ck_assert_int_eq(trace_writer_commit(w, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "w.atr.gz: event 0: host: 11 anonymous pages of only 10"));
	ck_assert_int_eq(access(path, F_OK), -1);

	ev.count = 1;
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_int_eq(trace_write(w, &ev), 0);
	ck_assert_int_eq(trace_write(w, &back), -1);
	trace_writer_abort(w);
	ck_assert_int_eq(access(path, F_OK), -1);

	snprintf(path, sizeof(path), "%s/w.txt", dir);
	ck_assert_ptr_null(trace_writer_open(path, &h, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "w.txt: name must end in .trace, .atr, .trace.gz or .atr.gz"));

	snprintf(path, sizeof(path), "%s/w.trace", dir);
	strcpy(h.recorder, "see #3");
	ck_assert_ptr_null(trace_writer_open(path, &h, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "holds a '#'"));
	sample_header(&h);
	strcpy(h.devices[1].backing, "two words");
	ck_assert_ptr_null(trace_writer_open(path, &h, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "bad header: device ubdb: 'words' is not key=value"));
	remove_dir();
}
END_TEST

/* The rules on mappings (FORMAT.md, Mappings): the writer keeps them too. */
START_TEST(writer_keeps_mapping_rules)
{
	static const struct trace_event ok[] = {
		/* memory at 0x60000000; page 4's own address taken by page 0 */
		{ .time_us = 0, .kind = EV_MMAP, .addr = 0x60000000, .length = 64 << 20 },
		{ .time_us = 1, .kind = EV_MMAP, .addr = 0x60004000, .length = 4096 },
		{ .time_us = 2, .kind = EV_READ, .offset = 0, .length = 16384, .page = 0 },
	};
	static const struct trace_event bad[] = {
		{ .time_us = 3, .kind = EV_READ, .offset = 0, .length = 4096, .page = 4 },
		{ .time_us = 3, .kind = EV_TOUCH, .page = 3, .count = 2 },
		{ .time_us = 3, .kind = EV_MAPDUP, .addr = 0x70000000, .length = 8192,
		  .offset = (64 << 20) - 4096 },
	};
	static const char *const why[] = {
		"event 3: read: pages 4+1 are not all mapped at their own address",
		"event 3: touch: pages 3+2 include a page whose own address was unmapped",
		"event 3: mapdup: file bytes 67104768+8192 beyond physical memory (67108864 bytes)",
	};
	struct trace_header h;
	char path[512], err[1024] = "";
	struct trace_writer *w;
	unsigned i;

	sample_header(&h);
	make_dir();
	snprintf(path, sizeof(path), "%s/m.trace", dir);
	w = trace_writer_open(path, &h, err, sizeof(err));
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(trace_write(w, &ok[i]), 0);
	ck_assert_int_eq(trace_write(w, &bad[_i]), -1);
	ck_assert_int_eq(trace_writer_commit(w, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, why[_i]) != NULL, "%s", err);
	ck_assert_int_eq(access(path, F_OK), -1);
	remove_dir();
}
END_TEST

/*
 * The rules of requests (FORMAT.md, Version 2): the writer keeps them,
 * the one at the end of the events when it commits, and a version 1
 * trace has no request.  Memory at 0x60000000, page 4's own address
 * taken by page 0; event 1 is a request of 16 KiB at time 2.
 */
START_TEST(writer_keeps_request_rules)
{
	static const struct trace_event ok[] = {
		{ .time_us = 0, .kind = EV_MMAP, .addr = 0x60000000, .length = 64 << 20 },
		{ .time_us = 2, .kind = EV_REQUEST, .offset = 8192, .length = 16384 },
		{ .time_us = 2, .kind = EV_READ, .offset = 8192, .length = 8192, .page = 9 },
	};
	static const struct trace_event bad[] = {
		{ .time_us = 2, .kind = EV_READ, .offset = 12288, .length = 4096, .page = 1 },
		{ .time_us = 2, .kind = EV_MMAP, .addr = 0x60004000, .length = 4096 },
		{ .time_us = 2, .kind = EV_READ, .offset = 0, .length = 4096, .page = 4 },
	};
	static const char *const why[] = {
		"event 3: read: a part of the request (event 1) that starts before byte 16384, where the part before ends",
		"event 1: request with no part: the trace ends after it",
		"event 1: request: an event of version 2, in a version 1 trace",
		"event 4: read: pages 4+1 are not all mapped at their own address",
	};
	struct trace_header h;
	char path[512], err[1024] = "";
	struct trace_writer *w;
	unsigned i, n = _i == 0 || _i == 3 ? 3 : 2;

	sample_header(&h);
	h.version = _i == 2 ? 1 : 2;
	make_dir();
	snprintf(path, sizeof(path), "%s/r.atr", dir);
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_ptr_nonnull(w);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(trace_write(w, &ok[i]), _i == 2 && i == 1 ? -1 : 0);
	if (_i == 0)
		ck_assert_int_eq(trace_write(w, &bad[0]), -1);
	if (_i == 3) {
		ck_assert_int_eq(trace_write(w, &bad[1]), 0);	/* not a part: ends it */
		ck_assert_int_eq(trace_write(w, &bad[2]), -1);
	}
	ck_assert_int_eq(trace_writer_commit(w, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, why[_i]) != NULL, "%s", err);
	ck_assert_int_eq(access(path, F_OK), -1);
	remove_dir();
}
END_TEST

/*
 * The rules on mappings as events move in and out of the runs the
 * validator passes without looking at its map (validate.c, the windows),
 * written and read back: pages 0-7 never mapped, 8-16383 mapped at their
 * own address (base 0x60000000); 16-17 unmapped and mapped back; a mapping
 * away from memory's addresses and a second mapping of mapped pages change
 * nothing; at last page 100's own address is taken by another page.
 */
#define OWN(p) (0x60000000ULL + ((uint64_t)(p) << 12))
static const struct trace_event window_ok[] = {
	{ .time_us = 0, .kind = EV_MMAP, .addr = OWN(8), .length = 16376ULL << 12, .offset = 8 << 12 },
	{ .time_us = 1, .kind = EV_TOUCH, .page = 0, .count = 16384 },
	{ .time_us = 2, .kind = EV_READ, .offset = 0, .length = 4 << 12, .page = 8 },
	{ .time_us = 3, .kind = EV_MMAP, .addr = 0x70000000, .length = 4096, .offset = 0 },
	{ .time_us = 4, .kind = EV_MUNMAP, .addr = OWN(16), .length = 2 << 12 },
	{ .time_us = 5, .kind = EV_TOUCH, .page = 0, .count = 16 },
	{ .time_us = 6, .kind = EV_READ, .offset = 0, .length = 8 << 12, .page = 8 },
	{ .time_us = 7, .kind = EV_MMAP, .addr = OWN(16), .length = 2 << 12, .offset = 16 << 12 },
	{ .time_us = 8, .kind = EV_MMAP, .addr = OWN(256), .length = 4096, .offset = 256 << 12 },
	{ .time_us = 9, .kind = EV_READ, .offset = 0, .length = 2 << 12, .page = 16 },
	{ .time_us = 10, .kind = EV_MAPDUP, .addr = OWN(100), .length = 4096, .offset = 0 },
};
#define NR_WINDOW_OK (sizeof(window_ok) / sizeof(window_ok[0]))
static const struct trace_event window_bad[] = {
	{ .time_us = 11, .kind = EV_READ, .offset = 0, .length = 4096, .page = 7 },
	{ .time_us = 11, .kind = EV_TOUCH, .page = 99, .count = 2 },
	{ .time_us = 11, .kind = EV_READ, .offset = 0, .length = 4096, .page = 100 },
	{ .time_us = 11, .kind = EV_FREE, .page = 100, .count = 1 },
};
static const char *const window_why[] = {
	"event 11 (11 read ubda 0 4096 7): read: pages 7+1 are not all mapped at their own address",
	"event 11 (11 touch 99 2): touch: pages 99+2 include a page whose own address was unmapped",
	"event 11 (11 read ubda 0 4096 100): read: pages 100+1 are not all mapped at their own address",
	"event 11 (11 free 100 1): free: pages 100+1 include a page whose own address was unmapped",
};

START_TEST(mapping_windows)
{
	struct trace_header h;
	char path[512], err[1024] = "", line[TRACE_EVENT_TEXT_MAX];
	const struct trace_event *ev;
	struct trace_reader *r;
	struct trace_writer *w;
	size_t i;
	FILE *f;
	int rc;

	sample_header(&h);
	make_dir();
	/* the events that keep the rules, written and read back whole */
	snprintf(path, sizeof(path), "%s/ok.atr", dir);
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	for (i = 0; i < NR_WINDOW_OK; i++)
		ck_assert_int_eq(trace_write(w, &window_ok[i]), 0);
	ck_assert_msg(trace_writer_commit(w, err, sizeof(err)) == 0, "%s", err);
	r = trace_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	for (i = 0; i < NR_WINDOW_OK; i++) {
		ck_assert_int_eq(trace_next(r, &ev), 1);
		assert_event_eq(ev, &window_ok[i]);
	}
	ck_assert_int_eq(trace_next(r, &ev), 0);
	trace_close(r);

	/* one that breaks them: the writer refuses it ... */
	w = trace_writer_open(path, &h, err, sizeof(err));
	for (i = 0; i < NR_WINDOW_OK; i++)
		ck_assert_int_eq(trace_write(w, &window_ok[i]), 0);
	ck_assert_int_eq(trace_write(w, &window_bad[_i]), -1);
	ck_assert_int_eq(trace_writer_commit(w, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, strchr(window_why[_i], ':') + 2) != NULL, "%s", err);

	/* ... and the reader, given it by hand, stops there */
	snprintf(path, sizeof(path), "%s/bad.trace", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	{
		char hdr[TRACE_HEADER_TEXT_MAX];

		trace_format_header(&h, hdr, sizeof(hdr));
		fputs(hdr, f);
	}
	for (i = 0; i <= NR_WINDOW_OK; i++) {
		trace_format_event(&h, i < NR_WINDOW_OK ? &window_ok[i] : &window_bad[_i],
				   line, sizeof(line));
		fputs(line, f);
	}
	ck_assert_int_eq(fclose(f), 0);
	r = trace_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	for (i = 0; i < NR_WINDOW_OK; i++)
		ck_assert_int_eq(trace_next(r, &ev), 1);
	rc = trace_next(r, &ev);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(trace_error(r), window_why[_i]) != NULL, "%s", trace_error(r));
	trace_close(r);
	remove_dir();
}
END_TEST

START_TEST(path_encoding)
{
	int binary = -1, gz = -1;

	ck_assert_int_eq(trace_path_encoding("a.trace", &binary, &gz), 0);
	ck_assert_int_eq(binary, 0);
	ck_assert_int_eq(gz, 0);
	ck_assert_int_eq(trace_path_encoding("dir/a.atr.gz", &binary, &gz), 0);
	ck_assert_int_eq(binary, 1);
	ck_assert_int_eq(gz, 1);
	ck_assert_int_eq(trace_path_encoding(".atr", &binary, &gz), -1);
	ck_assert_int_eq(trace_path_encoding("a.gz", &binary, &gz), -1);
	ck_assert_int_eq(trace_path_encoding("a.trace.bz2", &binary, &gz), -1);
}
END_TEST

/* The events of @path as a lone reader gives them; *n of them, *rc at the end. */
static struct trace_event *read_all(const char *path, size_t *n, int *rc, char *msg,
				    size_t msglen)
{
	char err[1024] = "";
	struct trace_reader *r = trace_open(path, err, sizeof(err));
	const struct trace_event *ev;
	struct trace_event *all = NULL;
	size_t cap = 0;

	ck_assert_msg(r != NULL, "%s", err);
	for (*n = 0; (*rc = trace_next(r, &ev)) > 0; (*n)++) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			all = realloc(all, cap * sizeof(*all));
			ck_assert_ptr_nonnull(all);
		}
		all[*n] = *ev;
	}
	snprintf(msg, msglen, "%s", *rc < 0 ? trace_error(r) : "");
	trace_close(r);
	return all;
}

static bool same_event(const struct trace_event *a, const struct trace_event *b)
{
	return a->time_us == b->time_us && a->kind == b->kind && a->dev == b->dev &&
	       a->page == b->page && a->count == b->count && a->offset == b->offset &&
	       a->length == b->length && a->addr == b->addr && !strcmp(a->name, b->name);
}

/* @t reads @count events (all, if SIZE_MAX), from its @at-th, as the lone reader. */
static size_t tap_reads(struct trace_tap *t, const struct trace_event *want, size_t nwant,
			int end_rc, const char *end_msg, size_t at, size_t count)
{
	const struct trace_event *ev;

	for (; count; count--, at++) {
		int rc = trace_tap_next(t, &ev);

		if (at == nwant) {
			ck_assert_int_eq(rc, end_rc);
			if (rc < 0)
				ck_assert_str_eq(trace_tap_error(t), end_msg);
			return at;
		}
		/* each check a message to Check's parent: only where it fails */
		if (rc != 1)
			ck_assert_int_eq(rc, 1);
		if (!same_event(ev, &want[at]))
			assert_event_eq(ev, &want[at]);
	}
	return at;
}

/*
 * A share read by three taps at once, each at its own place and joining
 * while the others read, gives each every event as a lone reader does,
 * from the trace's one reader; once all have left, a fourth tap (beyond
 * those expected) opens the trace again and reads it alone.  Every kind of event
 * (the sample, with names and 64-bit fields) and a trace long enough to
 * fill several of the window's chunks (12270 events of the boot trace).
 */
START_TEST(share_taps)
{
	const char *top = getenv("top_srcdir");
	char path[512], err[1024], msg[1024];
	struct trace_header h;
	struct trace_event *want;
	struct trace_share *s;
	struct trace_tap t[4];
	const struct trace_event *ev;
	size_t n, a, b, c, chunks;
	int end;

	if (_i == 0) {
		sample_header(&h);
		make_dir();
		snprintf(path, sizeof(path), "%s/t.atr", dir);
		write_sample(path, &h);
	} else {
		snprintf(path, sizeof(path), "%s/traces/debian-boot-64M.trace.gz",
			 top ? top : ".");
	}
	want = read_all(path, &n, &end, msg, sizeof(msg));
	ck_assert_int_eq(end, 0);
	ck_assert_uint_eq(n, _i == 0 ? NR_SAMPLE : 12270);
	s = trace_share_open(path, 3, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(trace_tap_join(s, &t[0], err, sizeof(err)), 0);
	a = tap_reads(&t[0], want, n, 0, "", 0, n - 2);
	ck_assert_int_eq(trace_tap_join(s, &t[1], err, sizeof(err)), 0);
	b = tap_reads(&t[1], want, n, 0, "", 0, n / 2);
	a = tap_reads(&t[0], want, n, 0, "", a, n / 4);
	ck_assert_int_eq(trace_tap_join(s, &t[2], err, sizeof(err)), 0);
	c = tap_reads(&t[2], want, n, 0, "", 0, 1);
	a = tap_reads(&t[0], want, n, 0, "", a, SIZE_MAX);
	ck_assert_uint_eq(a, n);
	trace_tap_leave(&t[0]);
	b = tap_reads(&t[1], want, n, 0, "", b, SIZE_MAX);
	/* the whole trace is held while t[2] is still at its start */
	chunks = trace_share_chunks(s);
	ck_assert_uint_ge(chunks, _i == 0 ? 1 : 2);
	c = tap_reads(&t[2], want, n, 0, "", c, n - 1);
	ck_assert_uint_eq(b + c, 2 * n);
	/* every tap has passed all but the last chunk */
	ck_assert_uint_eq(trace_share_chunks(s), 1);
	ck_assert_int_eq(trace_tap_next(&t[2], &ev), 0);
	trace_tap_leave(&t[1]);
	trace_tap_leave(&t[2]);
	ck_assert_uint_eq(trace_share_chunks(s), 0);
	ck_assert_uint_eq(trace_share_opens(s), 1);
	ck_assert_int_eq(trace_tap_join(s, &t[3], err, sizeof(err)), 0);
	ck_assert(t[3].direct);
	ck_assert_uint_eq(tap_reads(&t[3], want, n, 0, "", 0, SIZE_MAX), n);
	trace_tap_leave(&t[3]);
	ck_assert_uint_eq(trace_share_opens(s), 2);
	trace_share_close(s);
	free(want);
	if (_i == 0)
		remove_dir();
}
END_TEST

/*
 * Bad data part way: every tap, windowed (joining while another reads,
 * or after all have left) or direct, reads the events before it and then
 * meets the error with the lone reader's message
 * (time-backwards.trace: 3 events, then line 9; bad-name.atr: records
 * 0-3, then record 4).
 */
START_TEST(share_bad_data)
{
	static const char *const bad[] = { "time-backwards.trace", "bad-name.atr" };
	const char *top = getenv("top_srcdir");
	char path[512], err[1024], msg[1024];
	struct trace_event *want;
	struct trace_share *s;
	struct trace_tap t[3];
	size_t n;
	int end, i;

	snprintf(path, sizeof(path), "%s/tests/trace/traces/corrupt/%s", top ? top : ".", bad[_i]);
	want = read_all(path, &n, &end, msg, sizeof(msg));
	ck_assert_int_eq(end, -1);
	ck_assert_uint_eq(n, _i == 0 ? 3 : 4);
	ck_assert_ptr_nonnull(strstr(msg, _i == 0 ? ":9: time 19 goes backwards" :
					 ": record 4 (byte 212): name is not"));
	s = trace_share_open(path, 3, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(trace_tap_join(s, &t[i], err, sizeof(err)), 0);
	ck_assert(!t[0].direct);
	for (i = 0; i < 2; i++) {
		ck_assert_uint_eq(tap_reads(&t[i], want, n, -1, msg, 0, SIZE_MAX), n);
		trace_tap_leave(&t[i]);
	}
	/* the third, after both have left, reads the window they left */
	ck_assert_int_eq(trace_tap_join(s, &t[2], err, sizeof(err)), 0);
	ck_assert(!t[2].direct);
	ck_assert_uint_eq(tap_reads(&t[2], want, n, -1, msg, 0, SIZE_MAX), n);
	trace_tap_leave(&t[2]);
	ck_assert_uint_eq(trace_share_opens(s), 1);
	trace_share_close(s);
	/* a tap alone reads the reader itself */
	s = trace_share_open(path, 1, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(trace_tap_join(s, &t[0], err, sizeof(err)), 0);
	ck_assert(t[0].direct);
	ck_assert_uint_eq(tap_reads(&t[0], want, n, -1, msg, 0, SIZE_MAX), n);
	trace_tap_leave(&t[0]);
	trace_share_close(s);
	free(want);
}
END_TEST

/*
 * Out of memory, the one way (util/xalloc.h): one line naming what and for
 * which trace, the registered files removed, the command's other undoing
 * (cleanup_also: live's processes, swap file, cgroup) run, exit 5.  A
 * child process that disowned its parent's registrations removes nothing.
 */
static char oom_marker[300];

static void oom_also(void)
{
	close(open(oom_marker, O_WRONLY | O_CREAT, 0600));
}

/* die_oom in a child, @disown: after cleanup_disown(); its stderr in @msg */
static int oom_child(bool disown, char *msg, size_t len)
{
	char path[300], errpath[300];
	int status, fd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/output.tmp", dir);
	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	snprintf(oom_marker, sizeof(oom_marker), "%s/also-ran", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		if (cleanup_add(path))
			_exit(99);
		cleanup_also(oom_also);
		if (disown)
			cleanup_disown();
		xalloc_trace("huge.trace");
		die_oom("a test's state");
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	fd = open(errpath, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	msg[read(fd, msg, len - 1)] = '\0';
	close(fd);
	return status;
}

START_TEST(oom_one_way)
{
	char msg[256], path[300];

	make_dir();
	ck_assert_int_eq(oom_child(false, msg, sizeof(msg)), 5);
	ck_assert_str_eq(msg, "anonsim: out of memory allocating a test's state for huge.trace\n");
	snprintf(path, sizeof(path), "%s/output.tmp", dir);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(access(oom_marker, F_OK), 0);
	unlink(oom_marker);
	/* disowned: the file stays, the undoing does not run */
	ck_assert_int_eq(oom_child(true, msg, sizeof(msg)), 5);
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_int_eq(access(oom_marker, F_OK), -1);
	remove_dir();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("encodings");
	SRunner *sr;
	int failed;

	/* Check's default of 4 s is a hang detector; under the sanitizers, with
	 * make -j2 check's UMLs swapping beside it, share_taps once took longer */
	tcase_set_timeout(tc, 120);

	tcase_add_loop_test(tc, round_trip_every_kind, 0, 4);
	tcase_add_test(tc, convert_chain);
	tcase_add_test(tc, text_form);
	tcase_add_test(tc, binary_layout);
	tcase_add_test(tc, writer_refuses);
	tcase_add_loop_test(tc, writer_keeps_mapping_rules, 0, 3);
	tcase_add_loop_test(tc, writer_keeps_request_rules, 0, 4);
	tcase_add_loop_test(tc, mapping_windows, 0, 4);
	tcase_add_test(tc, path_encoding);
	tcase_add_loop_test(tc, share_taps, 0, 2);
	tcase_add_loop_test(tc, share_bad_data, 0, 2);
	tcase_add_test(tc, oom_one_way);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
