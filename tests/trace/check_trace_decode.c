/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_trace_decode.c - the decoders at scale and at their edges:
 * traces that span many read-ahead chunks come back event for event in
 * all four forms, with the read-ahead thread and without it, a gzip stream cut off chunks in fails at the right
 * place, and the binary decoder's per-kind rule parameters accept exactly
 * what trace_validate_event accepts; the map of mappings gives the
 * page-by-page verdicts.
 */
#include <config.h>

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_trace_util.h"
#include "trace/internal.h"
#include "util/util.h"

#define NR_EVENTS 60000		/* about 1.6 MB binary, 2 MB text: many chunks */

static uint64_t next_random(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
}

/*
 * Event @i of a valid trace of every kind: in random order in the first
 * half, in runs of 11 of one kind in the second (as real traces come,
 * which the binary decoder takes run by run); every 4999th event waits
 * past 2^32 us, so that the binary form uses wide deltas.
 */
static void make_event(uint64_t i, uint64_t *seed, uint64_t *t, struct trace_event *ev)
{
	uint64_t r = next_random(seed);

	memset(ev, 0, sizeof(*ev));
	*t += r % 97 + (i % 4999 == 4998 ? 5000000000ULL : 0);
	ev->time_us = *t;
	if (i == 0) {	/* memory, mapped at its own address (FORMAT.md, Mappings) */
		ev->kind = EV_MMAP;
		ev->addr = 0x60000000;
		ev->length = 64 << 20;
		return;
	}
	if (i % 1000 == 999) {
		ev->kind = EV_PHASE;
		snprintf(ev->name, sizeof(ev->name), "phase-%llu", (unsigned long long)i);
		return;
	}
	if (i < NR_EVENTS / 2)
		ev->kind = (enum trace_kind)(r % EV_PHASE);
	else
		ev->kind = (enum trace_kind)((i / 11 * 2654435761u) >> 7 & 0xffff) % EV_PHASE;
	r >>= 3;
	switch (ev->kind) {
	case EV_READ:
	case EV_WRITE:
		ev->dev = r & 1;
		ev->length = 512 * (1 + (r >> 1) % 128);
		ev->offset = 512 * ((r >> 8) % (ev->dev ? 16000 : 2000000));
		ev->page = (r >> 30) % 16000;
		break;
	case EV_TOUCH:
	case EV_FREE:
		ev->page = r % 16000;
		ev->count = 1 + (r >> 16) % 300;
		break;
	case EV_MUNMAP:	/* elsewhere: memory stays mapped where reads go */
		ev->addr = 0x7f0000000000ULL + 4096 * (r % 16384);
		ev->length = 4096 * (1 + (r >> 16) % 64);
		break;
	default:	/* mmap, mapdup: within memory, at its own address */
		ev->length = 4096 * (1 + (r >> 16) % 64);
		ev->offset = 4096 * ((r >> 24) % (16384 - 64));
		ev->addr = 0x60000000 + ev->offset;
		break;
	}
}

static void write_events(const char *path)
{
	struct trace_header h;
	struct trace_event ev;
	char err[1024] = "";
	struct trace_writer *w;
	uint64_t seed = 42, t = 0, i;

	sample_header(&h);
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	for (i = 0; i < NR_EVENTS; i++) {
		make_event(i, &seed, &t, &ev);
		ck_assert_int_eq(trace_write(w, &ev), 0);
	}
	ck_assert_msg(trace_writer_commit(w, err, sizeof(err)) == 0, "%s", err);
}

static const char *const names[] = { "t.trace", "t.atr", "t.trace.gz", "t.atr.gz" };

/*
 * Open @path, decoded on another CPU if @ahead asks: trace_read_ahead
 * takes the plain binary form alone, where a second CPU is free and the
 * read-ahead is not turned off.
 */
static struct trace_reader *open_events(const char *path, int ahead)
{
	char err[1024] = "";
	struct trace_reader *r = trace_open(path, err, sizeof(err));
	const char *off = getenv("ANONSIM_READAHEAD");
	size_t len = strlen(path);

	ck_assert_msg(r != NULL, "%s", err);
	if (ahead)
		ck_assert_int_eq(trace_read_ahead(r),
				 len > 4 && !strcmp(path + len - 4, ".atr") && cpus_allowed() > 1 &&
				 !(off && !strcmp(off, "0")));
	return r;
}

/*
 * Read @path to its end or first error (*rc, the message in @msg); the
 * events must be make_event's.  Returns how many came back.
 */
static uint64_t read_events(const char *path, int ahead, int *rc, char *msg, size_t msglen)
{
	struct trace_reader *r = open_events(path, ahead);
	const struct trace_event *ev;
	struct trace_event want;
	uint64_t seed = 42, t = 0, n = 0;

	while ((*rc = trace_next(r, &ev)) > 0) {
		make_event(n, &seed, &t, &want);
		assert_event_eq(ev, &want);
		n++;
	}
	snprintf(msg, msglen, "%s", *rc < 0 ? trace_error(r) : "");
	trace_close(r);
	return n;
}

/*
 * Loop index: the form; from 4 on reading without the thread; from 8 on
 * decoded on another CPU (the binary form) and, from 12 on, asked to be
 * but with the read-ahead turned off.
 */
START_TEST(many_chunks)
{
	char path[512], msg[1024];
	int rc;

	if ((_i >= 4 && _i < 8) || _i >= 12)
		setenv("ANONSIM_READAHEAD", "0", 1);
	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, names[_i % 4]);
	write_events(path);
	ck_assert_uint_eq(read_events(path, _i >= 8, &rc, msg, sizeof(msg)), NR_EVENTS);
	ck_assert_msg(rc == 0, "%s", msg);
	remove_dir();
}
END_TEST

/*
 * One trace at a time is decoded on another CPU: a second reader asked
 * while the first decodes so is read in its caller's thread, and once the
 * first is closed the next one asked is decoded ahead again.  Both hand
 * out all NR_EVENTS events, side by side.
 */
START_TEST(one_decoder_at_a_time)
{
	char path[512], err[1024] = "";
	struct trace_reader *first, *second, *third;
	const struct trace_event *ev;
	int can = cpus_allowed() > 1;
	uint64_t n = 0;

	make_dir();
	snprintf(path, sizeof(path), "%s/t.atr", dir);
	write_events(path);
	first = trace_open(path, err, sizeof(err));
	second = trace_open(path, err, sizeof(err));
	ck_assert_msg(first && second, "%s", err);
	ck_assert_int_eq(trace_read_ahead(first), can);
	ck_assert_int_eq(trace_read_ahead(second), 0);
	while (trace_next(second, &ev) > 0 && trace_next(first, &ev) > 0)
		n++;
	ck_assert_uint_eq(n, NR_EVENTS);
	trace_close(first);
	trace_close(second);
	third = open_events(path, 1);
	trace_close(third);
	remove_dir();
}
END_TEST

/*
 * Bad data deep in the plain binary form (64 bytes of 0xff a megabyte in:
 * a record there has an unknown kind, or its own cut short before one
 * does): decoded on another CPU, the same events come back before it, and
 * the same message, as read in the caller's thread.
 */
START_TEST(error_ahead)
{
	char path[512], msg[1024], msg_ahead[1024];
	unsigned char bad[64];
	uint64_t n, n_ahead;
	int rc, rc_ahead, fd;

	make_dir();
	snprintf(path, sizeof(path), "%s/t.atr", dir);
	write_events(path);
	memset(bad, 0xff, sizeof(bad));
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, bad, sizeof(bad), 1 << 20), (ssize_t)sizeof(bad));
	close(fd);
	n_ahead = read_events(path, 1, &rc_ahead, msg_ahead, sizeof(msg_ahead));
	setenv("ANONSIM_READAHEAD", "0", 1);
	n = read_events(path, 0, &rc, msg, sizeof(msg));
	unsetenv("ANONSIM_READAHEAD");
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(rc_ahead, -1);
	/* a megabyte into 1.6: well past the first of the decoder's slots */
	ck_assert_uint_gt(n, NR_EVENTS / 2);
	ck_assert_uint_eq(n_ahead, n);
	ck_assert_str_eq(msg_ahead, msg);
	remove_dir();
}
END_TEST

/*
 * trace_progress, which gives replay's progress line its part done before
 * the events are counted: the file's size as the total, never more done
 * than that, never less than before, within a tenth of the events handed
 * out (the data is about even through the file), and all of it at the end.
 * Each form, with the thread and without, and decoded on another CPU
 * (where the progress is the end of the slot of 2048 events handed out).
 */
START_TEST(progress_through_file)
{
	char path[512];
	const struct trace_event *ev;
	struct trace_reader *r;
	struct stat st;
	uint64_t n = 0, done, total, before = 0;
	int rc;

	if (_i >= 4 && _i < 8)
		setenv("ANONSIM_READAHEAD", "0", 1);
	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, names[_i % 4]);
	write_events(path);
	ck_assert_int_eq(stat(path, &st), 0);
	r = open_events(path, _i >= 8);
	while ((rc = trace_next(r, &ev)) > 0) {
		if (++n % 1000)
			continue;
		trace_progress(r, &done, &total);
		ck_assert_uint_eq(total, (uint64_t)st.st_size);
		ck_assert_uint_le(done, total);
		ck_assert_uint_ge(done, before);
		ck_assert_msg(fabs((double)done / (double)total - (double)n / NR_EVENTS) < 0.1,
			      "%s: %llu of %llu bytes after %llu of %d events", names[_i % 4],
			      (unsigned long long)done, (unsigned long long)total,
			      (unsigned long long)n, NR_EVENTS);
		before = done;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(n, NR_EVENTS);
	trace_progress(r, &done, &total);
	ck_assert_uint_eq(done, total);
	trace_close(r);
	remove_dir();
}
END_TEST

/*
 * A consumer slower than the reader: the ring fills, the read-ahead
 * thread waits past its spin and sleeps, and each pause of the consumer
 * must end with it woken, not with a hang (the test's timeout) or a lost
 * chunk.  Then a reader closed early, its thread waiting on a full ring.
 * The text form: its 2 MB outgrow the ring by enough that the reader
 * fills it while the consumer sleeps (the binary 1.6 MB, read ahead at
 * once, did not: the test passed with the wake-up taken out).  Then the
 * binary form decoded on another CPU (loop index 1): its 60000 events
 * fill the decoder's 16384 while the consumer sleeps, and the decoder
 * waits on a full ring when the reader is closed.
 */
START_TEST(slow_consumer)
{
	const struct timespec pause = { 0, 2 * 1000 * 1000 };
	char path[512];
	const struct trace_event *ev;
	struct trace_reader *r;
	struct trace_event want;
	uint64_t seed = 42, t = 0, n = 0;
	int rc;

	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, _i ? "t.atr" : "t.trace");
	write_events(path);
	r = open_events(path, _i);
	while ((rc = trace_next(r, &ev)) > 0) {
		make_event(n++, &seed, &t, &want);
		assert_event_eq(ev, &want);
		if (n % 3000 == 0)
			nanosleep(&pause, NULL);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(n, NR_EVENTS);
	trace_close(r);

	r = open_events(path, _i);
	for (n = 0; n < 100; n++)
		ck_assert_int_eq(trace_next(r, &ev), 1);
	nanosleep(&pause, NULL);
	trace_close(r);
	remove_dir();
}
END_TEST

/* trace_next_run hands out the same events, a batch at a time. */
START_TEST(runs_of_events)
{
	char path[512], err[1024] = "";
	const struct trace_event *ev;
	struct trace_reader *r;
	struct trace_event want;
	uint64_t seed = 42, t = 0, n = 0, runs = 0;
	size_t run, i;

	make_dir();
	snprintf(path, sizeof(path), "%s/t.atr", dir);
	write_events(path);
	r = trace_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_int_eq(trace_next(r, &ev), 1);	/* one alone, then runs */
	make_event(n++, &seed, &t, &want);
	assert_event_eq(ev, &want);
	while (trace_next_run(r, &ev, &run) > 0) {
		ck_assert_uint_ge(run, 1);
		for (i = 0; i < run; i++) {
			make_event(n++, &seed, &t, &want);
			assert_event_eq(&ev[i], &want);
		}
		runs++;
	}
	ck_assert_uint_eq(n, NR_EVENTS);
	/*
	 * Batches hold up to 64 events; a phase (one in 1000) is decoded
	 * alone and cuts the batch before it, a wide delta (one in 4999)
	 * cuts the batch before it, and so may each of the few chunk ends:
	 * at most two runs more per phase, one per wide delta, 32 for the
	 * chunks.
	 */
	ck_assert_uint_ge(runs, (NR_EVENTS - 1 + 63) / 64);
	ck_assert_uint_le(runs, NR_EVENTS / 64 + 2 * (NR_EVENTS / 1000) + NR_EVENTS / 4999 + 32);
	ck_assert_int_eq(trace_next_run(r, &ev, &run), 0);
	trace_close(r);
	remove_dir();
}
END_TEST

/* The lines of the text header trace_format_header writes. */
static uint64_t header_lines(void)
{
	struct trace_header h;
	char text[TRACE_HEADER_TEXT_MAX];
	uint64_t n = 0;
	char *c;

	sample_header(&h);
	trace_format_header(&h, text, sizeof(text));
	for (c = text; *c; c++)
		n += *c == '\n';
	return n;
}

/*
 * A gzip stream cut off more than a chunk in: every event before the cut
 * comes back right, then the error names the place the good data ends.
 */
START_TEST(gzip_cut_after_chunks)
{
	static const char *const gz[] = { "t.trace.gz", "t.atr.gz" };
	char path[512], want[1024], msg[1024], why[256];
	struct stat st;
	uint64_t n;
	int rc;

	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, gz[_i]);
	write_events(path);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(truncate(path, st.st_size * 3 / 5), 0);
	/* the end of the file is where the member breaks off */
	snprintf(why, sizeof(why), ": truncated gzip stream (unexpected end of file at byte %llu, in the gzip member from byte 0)",
		 (unsigned long long)(st.st_size * 3 / 5));
	n = read_events(path, 0, &rc, msg, sizeof(msg));
	ck_assert_int_eq(rc, -1);
	ck_assert_uint_gt(n, NR_EVENTS / 3);
	ck_assert_uint_lt(n, NR_EVENTS);
	if (_i == 0) {	/* text: the line being read when the data broke */
		snprintf(want, sizeof(want), "%s:%llu%s",
			 path, (unsigned long long)(header_lines() + n + 1), why);
		ck_assert_str_eq(msg, want);
	} else {	/* binary: the byte where the good data ends */
		snprintf(want, sizeof(want), "%s: byte ", path);
		ck_assert_msg(!strncmp(msg, want, strlen(want)), "%s", msg);
		ck_assert_ptr_nonnull(strstr(msg, why));
	}
	remove_dir();
}
END_TEST

/*
 * Field values at and around every limit the rules know of, or small
 * ones, page-aligned (or one past, now and then), so that many records
 * are valid too.
 */
static uint64_t edge_value(uint64_t r)
{
	static const uint64_t edges[] = {
		0, 1, 511, 512, 513, 4095, 4096, 4097, 8192,
		16383, 16384, 16385, (16384ULL << 12) - 4096, 16384ULL << 12,
		(8ULL << 20) - 512, 8ULL << 20, (8ULL << 20) + 512,
		(1ULL << 30) - 4096, 1ULL << 30, (1ULL << 30) + 512,
		1ULL << 40, 1ULL << 63, UINT64_MAX - 4095, UINT64_MAX - 511, UINT64_MAX,
	};
	size_t n = sizeof(edges) / sizeof(edges[0]);

	if (r % 10 < 7)		/* mostly small, page-aligned values */
		return 4096 * ((r >> 4) % 64) + ((r >> 12) % 8 == 0);
	return edges[(r >> 4) % n];
}

/*
 * A binary trace at @path with the sample header and no events, opened
 * for appending records by hand, unchecked; *@header_bytes its size.
 */
static FILE *header_only(const char *path, off_t *header_bytes)
{
	struct trace_header h;
	struct trace_writer *w;
	char err[1024] = "";
	struct stat st;
	FILE *f;

	sample_header(&h);
	w = trace_writer_open(path, &h, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_msg(trace_writer_commit(w, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(stat(path, &st), 0);
	*header_bytes = st.st_size;
	f = fopen(path, "ab");
	ck_assert_ptr_nonnull(f);
	return f;
}

/* Append @n touches of page 0 at @time to the binary trace @f. */
static void append_touches(FILE *f, uint64_t time, int n)
{
	struct trace_event ev;
	unsigned char rec[TRACE_BIN_REC_MAX];
	size_t len;
	int i;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_TOUCH;
	ev.time_us = time;
	ev.count = 1;
	for (i = 0; i < n; i++) {
		len = binary_format_event(&ev, time, rec);
		ck_assert_uint_eq(fwrite(rec, 1, len, f), len);
	}
}

/*
 * Touches before and after the record under test: 70 of 21 bytes before
 * it, 120 after, so that it lies inside a batch decoded away from the end
 * of the data (64 records of at most 34 bytes), as most records do.
 */
#define TOUCHES_BEFORE 70
#define TOUCHES_AFTER 120

/*
 * The binary decoder checks each kind's rule with parameters per kind;
 * trace_validate_event checks it field by field.  Thousands of records
 * with fields at the edges: the decoder accepts a record exactly when the
 * validator does, and then returns its fields unchanged.
 */
START_TEST(binary_rules_match_validator)
{
	struct trace_header h;
	struct trace_rules rules;
	char path[512], err[1024], why[512], want[600];
	unsigned char rec[TRACE_BIN_REC_MAX];
	uint64_t seed = 7, accepted = 0, refused = 0;
	const char *name = "e.atr";
	int i, j;

	sample_header(&h);
	trace_rules_init(&rules, &h);
	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; i < 4000; i++) {
		struct trace_event ev;
		struct trace_reader *r;
		const struct trace_event *got;
		off_t header_bytes;
		size_t len;
		FILE *f;
		int valid, rc;

		memset(&ev, 0, sizeof(ev));
		ev.kind = (enum trace_kind)(next_random(&seed) % EV_PHASE);
		ev.time_us = next_random(&seed) % 3 ? 7 : 1ULL << 33;
		ev.dev = next_random(&seed) % 5 ? 0 : (uint32_t)(next_random(&seed) % 4);
		ev.offset = edge_value(next_random(&seed));
		ev.length = edge_value(next_random(&seed));
		ev.page = edge_value(next_random(&seed));
		ev.count = edge_value(next_random(&seed));
		ev.addr = edge_value(next_random(&seed));
		/* What the encoding keeps of the kind: the rest reads back as 0. */
		switch (ev.kind) {
		case EV_READ:
		case EV_WRITE:
			ev.count = ev.addr = 0;
			break;
		case EV_TOUCH:
		case EV_FREE:
			ev.dev = 0;
			ev.offset = ev.length = ev.addr = 0;
			break;
		default:
			ev.dev = 0;
			ev.page = ev.count = 0;
			if (ev.kind == EV_MUNMAP)
				ev.offset = 0;
			break;
		}
		valid = !trace_validate_event(&rules, 0, &ev, why, sizeof(why));

		/* A header with no events, then the record amid touches. */
		f = header_only(path, &header_bytes);
		len = binary_format_event(&ev, 0, rec);
		append_touches(f, 0, TOUCHES_BEFORE);
		ck_assert_uint_eq(fwrite(rec, 1, len, f), len);
		append_touches(f, ev.time_us, TOUCHES_AFTER);
		ck_assert_int_eq(fclose(f), 0);

		r = trace_open(path, err, sizeof(err));
		ck_assert_msg(r != NULL, "%s", err);
		for (j = 0; j < TOUCHES_BEFORE; j++) {
			ck_assert_int_eq(trace_next(r, &got), 1);
			ck_assert_int_eq(got->kind, EV_TOUCH);
		}
		rc = trace_next(r, &got);
		ck_assert_msg(rc == (valid ? 1 : -1),
			      "event %d (%s, dev %u, offset %llu, length %llu, page %llu, count %llu, addr 0x%llx): decoder %d, validator %s",
			      i, trace_kind_names[ev.kind], ev.dev, (unsigned long long)ev.offset,
			      (unsigned long long)ev.length, (unsigned long long)ev.page,
			      (unsigned long long)ev.count, (unsigned long long)ev.addr,
			      rc, valid ? "valid" : why);
		if (valid) {
			assert_event_eq(got, &ev);
			for (j = 0; j < TOUCHES_AFTER; j++)
				ck_assert_int_eq(trace_next(r, &got), 1);
			ck_assert_int_eq(trace_next(r, &got), 0);
			accepted++;
		} else {
			snprintf(want, sizeof(want), "%s: record %d (byte ", path, TOUCHES_BEFORE);
			ck_assert_msg(!strncmp(trace_error(r), want, strlen(want)), "%s",
				      trace_error(r));
			ck_assert_ptr_nonnull(strstr(trace_error(r), why));
			refused++;
		}
		trace_close(r);
	}
	/* Both verdicts are well represented: the test says something. */
	ck_assert_uint_gt(accepted, 400);
	ck_assert_uint_gt(refused, 400);
	remove_dir();
}
END_TEST

/*
 * The map of mappings (validate.c) against the rules of FORMAT.md,
 * Mappings, stated page by page: 96 pages, one-page to 8-page reads,
 * touches, frees, mappings at and away from their own address and
 * munmaps in random order split segments, merge them and split them
 * again; each event's verdict must be the page-by-page one.  Events are
 * given one at a time, so a refused one changes nothing and the next
 * goes on from the same state.  _i chooses how many events come before
 * the first mapping (40, 80 or 120: reads into memory not yet mapped).
 */
enum { P_NEVER, P_MAPPED, P_UNMAPPED, P_EARLY };
#define MAP_PAGES 96
#define MAP_BASE 0x60000000ULL

/* Whether a page of [lo, hi) is in @s (@all: every page is). */
static int pages_any(const unsigned char *st, uint64_t lo, uint64_t hi, int s, int all)
{
	for (; lo < hi; lo++)
		if ((st[lo] == s) != all)
			return !all;
	return all;
}

static void pages_set(unsigned char *st, uint64_t lo, uint64_t hi, int to, int from)
{
	for (; lo < hi && lo < MAP_PAGES; lo++)
		if (from < 0 || st[lo] == from)
			st[lo] = to;
}

/* The verdict page by page: 0, or 1 (unmapped) or 2 (read early) or 3 (read not mapped). */
static int pages_rule(unsigned char *st, int *based, const struct trace_event *ev)
{
	uint64_t n = ev->count + (ev->length >> 12), a, e;

	switch (ev->kind) {
	case EV_READ:
		if (!*based) {
			pages_set(st, ev->page, ev->page + n, P_EARLY, -1);
			return 0;
		}
		return pages_any(st, ev->page, ev->page + n, P_MAPPED, 1) ? 0 : 3;
	case EV_TOUCH:
	case EV_FREE:
		if (!*based) {
			pages_set(st, ev->page, ev->page + n, P_NEVER, P_EARLY);
			return 0;
		}
		if (pages_any(st, ev->page, ev->page + n, P_UNMAPPED, 0))
			return 1;
		return pages_any(st, ev->page, ev->page + n, P_EARLY, 0) ? 2 : 0;
	default:
		if (ev->kind == EV_MMAP && !*based)
			*based = ev->addr - ev->offset == MAP_BASE;
		if (ev->kind == EV_MMAP && ev->addr - ev->offset == MAP_BASE) {
			pages_set(st, ev->offset >> 12, (ev->offset + ev->length) >> 12, P_MAPPED, -1);
			return 0;
		}
		/* a mapping elsewhere takes over the own addresses it covers */
		a = (ev->addr - MAP_BASE) >> 12;
		e = a + (ev->length >> 12);
		if (*based)
			pages_set(st, a, e, P_UNMAPPED, P_MAPPED);
		return 0;
	}
}

START_TEST(mapping_segments)
{
	static const char *const why[] = {
		NULL, "include a page whose own address was unmapped",
		"include a page read into before the first mmap",
		"are not all mapped at their own address",
	};
	static const uint64_t counts[3][4] = {	/* ok, unmapped, read early, not mapped */
		{ 13392, 1662, 10, 4936 }, { 13467, 1595, 14, 4924 }, { 13467, 1624, 9, 4900 },
	};
	unsigned char st[MAP_PAGES] = { 0 };
	struct trace_header h;
	struct trace_rules rules;
	struct trace_maps maps;
	struct trace_event ev;
	uint64_t seed = 7 + _i, i, r, p, n, refused[4] = { 0 };
	char err[512];
	int based = 0, want;

	sample_header(&h);
	h.memory = MAP_PAGES << 12;
	trace_rules_init(&rules, &h);
	trace_maps_init(&maps);
	for (i = 0; i < 20000; i++) {
		r = next_random(&seed);
		p = r % MAP_PAGES;
		n = 1 + (r >> 8) % 8;
		if (p + n > MAP_PAGES)
			n = MAP_PAGES - p;
		memset(&ev, 0, sizeof(ev));
		ev.time_us = i;
		switch (i < 40 * (uint64_t)(_i + 1) || i % 3000 == 0 ? 0 : (r >> 16) % 10) {
		case 0: case 1: case 2:
			ev.kind = EV_READ;
			ev.length = n << 12;
			ev.page = p;
			break;
		case 3:
			ev.kind = (r >> 20) & 1 ? EV_TOUCH : EV_FREE;
			ev.page = p;
			ev.count = n;
			break;
		case 4: case 5: case 6:	/* at its own address, or (1 in 4) another's */
			ev.kind = EV_MMAP;
			ev.addr = MAP_BASE + (p << 12);
			ev.offset = (r >> 24) & 3 ? p << 12 : ((p + 1) % (MAP_PAGES - 8)) << 12;
			ev.length = n << 12;
			break;
		default:
			ev.kind = EV_MUNMAP;
			ev.addr = MAP_BASE + (p << 12);
			ev.length = n << 12;
			break;
		}
		if (i == 40 * (uint64_t)(_i + 1) && !based) {	/* the first mapping: page 0's own address */
			ev.kind = EV_MMAP;
			ev.addr = MAP_BASE + (p << 12);
			ev.offset = p << 12;
		}
		want = pages_rule(st, &based, &ev);
		err[0] = '\0';
		ck_assert_uint_eq(trace_maps_apply(&maps, &rules, &ev, 1, err, sizeof(err)), !want);
		ck_assert_msg(!want || strstr(err, why[want]), "event %llu: %s", (unsigned long long)i, err);
		refused[want]++;
	}
	/* each verdict came many times: every path of the map was taken */
	/* how often each verdict came, as the rules page by page give them */
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(refused[i], counts[_i][i]);
	trace_maps_free(&maps);
}
END_TEST

/*
 * A time near the latest a trace may hold (TRACE_TIME_MAX, 2^63 - 1), then
 * narrow deltas: the decoder tests each record's time there, and reports
 * the one past it.  Record 0 (wide delta) sets the time to TRACE_TIME_MAX -
 * 100; 100 touches keep it; the next adds 200 and passes it.
 */
START_TEST(time_past_the_latest)
{
	struct trace_event ev;
	const struct trace_event *got;
	struct trace_reader *r;
	unsigned char rec[TRACE_BIN_REC_MAX];
	char path[512], err[1024], want[600];
	uint64_t start = TRACE_TIME_MAX - 100;
	off_t header_bytes;
	size_t len;
	FILE *f;
	int i;

	make_dir();
	snprintf(path, sizeof(path), "%s/wrap.atr", dir);
	f = header_only(path, &header_bytes);
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_TOUCH;
	ev.count = 1;
	ev.time_us = start;
	len = binary_format_event(&ev, 0, rec);
	ck_assert_uint_eq(len, 9 + 16);		/* wide */
	ck_assert_uint_eq(fwrite(rec, 1, len, f), len);
	append_touches(f, start, 100);
	ev.time_us = start + 200;		/* a delta of 200 */
	len = binary_format_event(&ev, start, rec);
	ck_assert_uint_eq(len, 5 + 16);		/* narrow */
	ck_assert_uint_eq(fwrite(rec, 1, len, f), len);
	append_touches(f, start + 200, 200);
	ck_assert_int_eq(fclose(f), 0);

	r = trace_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	for (i = 0; i < 101; i++) {
		ck_assert_int_eq(trace_next(r, &got), 1);
		ck_assert_uint_eq(got->time_us, start);
	}
	ck_assert_int_eq(trace_next(r, &got), -1);
	snprintf(want, sizeof(want),
		 "%s: record 101 (byte %llu): time %llu is past 2^63 - 1 microseconds",
		 path, (unsigned long long)header_bytes + 25 + 100 * 21,
		 (unsigned long long)(start + 200));
	ck_assert_str_eq(trace_error(r), want);
	trace_close(r);
	remove_dir();
}
END_TEST

static Suite *trace_decode_suite(void)
{
	Suite *s = suite_create("trace_decode");
	TCase *tc = tcase_create("decode");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, many_chunks, 0, 16);
	tcase_add_test(tc, error_ahead);
	tcase_add_test(tc, one_decoder_at_a_time);
	tcase_add_loop_test(tc, mapping_segments, 0, 3);
	tcase_add_loop_test(tc, progress_through_file, 0, 12);
	tcase_add_loop_test(tc, slow_consumer, 0, 2);
	tcase_add_test(tc, runs_of_events);
	tcase_add_loop_test(tc, gzip_cut_after_chunks, 0, 2);
	tcase_add_test(tc, binary_rules_match_validator);
	tcase_add_test(tc, time_past_the_latest);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_decode_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
