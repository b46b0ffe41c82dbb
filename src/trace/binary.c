/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * binary.c - the binary encoding: a magic, a version, the header as
 * a length-prefixed block of the text header lines, then records of a kind
 * byte, a time delta and a fixed little-endian payload per kind.
 */
#include <config.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/internal.h"
#include "util/xalloc.h"

const unsigned char trace_magic[TRACE_MAGIC_LEN] = {
	0x89, 'A', 'T', 'R', '\r', '\n', 0x1a, '\n'
};

/* Payload bytes after the kind byte and time delta; names add their length. */
static const unsigned char payload[TRACE_BIN_KINDS] = {
	[EV_READ] = 1 + 8 + 8 + 8, [EV_WRITE] = 1 + 8 + 8 + 8,
	[EV_TOUCH] = 8 + 8, [EV_FREE] = 8 + 8,
	[EV_MMAP] = 8 + 8 + 8, [EV_MUNMAP] = 8 + 8, [EV_MAPDUP] = 8 + 8 + 8,
	[EV_PHASE] = 1, [EV_FOOTPRINT] = 8 + 1, [EV_HOST] = 8,
	[TRACE_BIN_HOST_ANON] = 8 + 8, [TRACE_BIN_DISCARD] = 8 + 8,
	[TRACE_BIN_REQUEST] = 1 + 8 + 8,
};

/* The kind number of @k: its enum value up to host, then after host-anon. */
static unsigned kind_number(enum trace_kind k)
{
	return k >= EV_DISCARD ? (unsigned)k + 1 : (unsigned)k;
}

/* Byte-wise little-endian loads: compilers turn them into one load. */
static inline uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Parse the header block [block, block + len) line by line. */
static int parse_block(struct trace_reader *r, char *block, size_t len, uint64_t at)
{
	struct header_parser p;
	char why[512], *line = block, *end = block + len, *nl, *hash;
	int rc;

	header_parser_init(&p, &r->h);
	r->place = AT_HEADER_LINE;
	r->line = 0;
	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;	/* block[len] is a NUL */
		*nl = '\0';
		r->line++;
		r->place_off = at + (uint64_t)(line - block);
		if (nl - line >= TRACE_LINE_MAX) {
			reader_fail(r, "line longer than %d bytes", TRACE_LINE_MAX);
			return -1;
		}
		if (strlen(line) != (size_t)(nl - line)) {
			reader_fail(r, "NUL byte in a header line");
			return -1;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		rc = header_parse_line(&p, line, why, sizeof(why));
		if (rc < 0) {
			reader_fail(r, "%s", why);
			return -1;
		}
		line = nl + 1;
		if (rc == 1) {
			if (line < end) {
				r->place_off = at + (uint64_t)(line - block);
				reader_fail(r, "%zu bytes after 'events' in the header block",
					    (size_t)(end - line));
				return -1;
			}
			if (header_parser_finish(&p, why, sizeof(why))) {
				reader_fail(r, "%s", why);
				return -1;
			}
			return 0;
		}
	}
	reader_fail(r, "header block not ended by an 'events' line");
	return -1;
}

int binary_read_header(struct trace_reader *r)
{
	unsigned char *p;
	uint32_t version, len;
	char *block;
	long n;
	int rc;

	r->place = AT_BYTE;
	r->place_off = 0;
	n = reader_fill(r, TRACE_MAGIC_LEN + 8);
	if (n < 0)
		return -1;
	p = r->buf + r->pos;
	if (n < TRACE_MAGIC_LEN || memcmp(p, trace_magic, TRACE_MAGIC_LEN)) {
		reader_fail(r, "wrong magic: neither a text nor a binary anonsim trace");
		return -1;
	}
	r->place_off = TRACE_MAGIC_LEN;
	if (n < TRACE_MAGIC_LEN + 8) {
		reader_fail(r, "truncated header: the file ends after %ld bytes", n);
		return -1;
	}
	version = le32(p + TRACE_MAGIC_LEN);
	if (version < TRACE_VERSION || version > TRACE_VERSION_MAX) {
		reader_fail(r, "unknown version %lu (this anonsim reads versions %d to %d)",
			    (unsigned long)version, TRACE_VERSION, TRACE_VERSION_MAX);
		return -1;
	}
	len = le32(p + TRACE_MAGIC_LEN + 4);
	r->place_off = TRACE_MAGIC_LEN + 4;
	if (!len || len > TRACE_BIN_HEADER_MAX) {
		reader_fail(r, "header length %lu not within 1..%d", (unsigned long)len,
			    TRACE_BIN_HEADER_MAX);
		return -1;
	}
	r->pos += TRACE_MAGIC_LEN + 8;
	r->place_off = TRACE_MAGIC_LEN + 8;
	n = reader_fill(r, len);
	if (n < 0)
		return -1;
	if ((size_t)n < len) {
		reader_fail(r, "truncated header block: %ld of %lu bytes", n, (unsigned long)len);
		return -1;
	}
	/* A copy, so that lines can be cut with NULs. */
	block = xmalloc((size_t)len + 1, "a trace's header");
	memcpy(block, r->buf + r->pos, len);
	block[len] = '\0';
	rc = parse_block(r, block, len, TRACE_MAGIC_LEN + 8);
	free(block);
	if (rc)
		return -1;
	if (r->h.version != version) {
		r->place = AT_BYTE;
		r->place_off = TRACE_MAGIC_LEN;
		reader_fail(r, "version %lu, but the header block says 'anonsim-trace %u'",
			    (unsigned long)version, r->h.version);
		return -1;
	}
	r->pos += len;
	r->place = AT_RECORD;
	r->record = 0;
	return 0;
}

static int bad_record(struct trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad_record(struct trace_reader *r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	r->place_off = r->base + r->pos;
	reader_fail(r, "%s", what);
	return -1;
}

/* Report why @ev breaks the rules. */
static int bad_event(struct trace_reader *r, const struct trace_event *ev)
{
	char why[512];

	if (!trace_validate_event(&r->rules, r->prev_time, ev, why, sizeof(why)))
		snprintf(why, sizeof(why), "%s: invalid", trace_kind_names[ev->kind]);
	return bad_record(r, "%s", why);
}

/*
 * A phase or footprint record: kept out of line so that the decoder's
 * hot path carries no message buffer in its frame.
 */
static __attribute__((noinline)) int decode_named(struct trace_reader *r,
		struct trace_event *ev, unsigned kind, const unsigned char *p,
		size_t name_len)
{
	char why[512];

	ev->dev = 0;
	ev->page = ev->offset = ev->length = ev->addr = 0;
	ev->count = kind == EV_FOOTPRINT ? le64(p) : 0;
	p += payload[kind];
	if (!trace_name_ok((const char *)p, name_len))
		return bad_record(r, "name is not one word of printable characters");
	memcpy(ev->name, p, name_len);
	ev->name[name_len] = '\0';
	if (trace_validate_event(&r->rules, r->prev_time, ev, why, sizeof(why)))
		return bad_record(r, "%s", why);
	return 0;
}

/*
 * Shapes of the fixed-size kinds, so that they decode without a branch on
 * the kind: with random kinds such a branch mispredicts on most records.
 * A record's three u64s a, b, c sit at the same offsets in every kind
 * (after the device byte of read and write); the shape names the event
 * fields they land in, and the kind's rule is two spans over them:
 *
 *	kind		a	b	c	first span	second span
 *	read, write	offset	length	page	(a, b) device	(c, pages of b) memory
 *	request		offset	length	-	(a, b) device	(0, b) 2^64: holds
 *	touch, free,	page	count	-	(a, b) memory	(0, b) 2^64: holds
 *	discard
 *	mmap, mapdup	addr	length	offset	(a, b) 2^64	(c, b) memory
 *	munmap		addr	length	-	(a, b) 2^64	(0, b) 2^64
 */
#define SLOTS(sh, fa, fb, fc) do {					\
	(sh)->slot[0] = offsetof(struct trace_event, fa);		\
	(sh)->slot[1] = offsetof(struct trace_event, fb);		\
	(sh)->slot[2] = offsetof(struct trace_event, fc);		\
} while (0)

void binary_shapes_init(struct trace_reader *r)
{
	const struct trace_rules *rules = &r->rules;
	unsigned k, wide;

	memset(r->shapes, 0, sizeof(r->shapes));
	memset(r->rec_size, 0, sizeof(r->rec_size));
	for (k = 0; k < r->nr_kinds; k++) {
		unsigned num = kind_number((enum trace_kind)k);

		for (wide = 0; wide < 2; wide++) {
			struct rec_shape *sh = &r->shapes[num | wide * TRACE_BIN_WIDE];

			if (k == EV_PHASE || k == EV_FOOTPRINT || k == EV_HOST)
				continue;	/* named or rare: size 0, the careful path */
			sh->at = wide ? 9 : 5;
			/* wide: marked, for the fast run to leave it (binary_fill) */
			r->rec_size[num | wide * TRACE_BIN_WIDE] =
				(unsigned char)((sh->at + payload[num]) | wide * TRACE_BIN_WIDE);
			sh->lim2 = UINT64_MAX;
			sh->kind = (unsigned char)k;
			sh->dt_mask = wide ? UINT64_MAX : UINT32_MAX;
			sh->dev_base = 256;
			switch (k) {
			case EV_READ:
			case EV_WRITE:
				sh->at++;	/* after the device byte */
				sh->dev_mask = 0xff;
				sh->dev_base = 0;
				sh->third = UINT64_MAX;
				sh->align1 = 511;
				sh->add2 = rules->page_mask;
				sh->shift2 = rules->page_shift;
				sh->lim2 = rules->mem_pages;
				SLOTS(sh, offset, length, page);
				break;
			case EV_REQUEST:	/* as read, with no page */
				sh->at++;
				sh->dev_mask = 0xff;
				sh->dev_base = 0;
				sh->align1 = 511;
				SLOTS(sh, offset, length, page);	/* c: 0 */
				break;
			case EV_TOUCH:
			case EV_FREE:
			case EV_DISCARD:
				sh->lim1 = rules->mem_pages;
				SLOTS(sh, page, count, addr);	/* c: 0 */
				break;
			default:	/* mmap, munmap, mapdup */
				sh->third = k == EV_MUNMAP ? 0 : UINT64_MAX;
				sh->lim1 = UINT64_MAX;
				if (k != EV_MUNMAP)
					sh->lim2 = rules->mem_bytes;
				sh->align1 = sh->align2 = (uint32_t)rules->page_mask;
				SLOTS(sh, addr, length, offset);	/* munmap's c: 0 */
				break;
			}
		}
	}
}

/*
 * Decode the fixed-size record at @p (its shape @sh) into @ev; whether it
 * keeps its kind's rule and, with @check_time, its time stays within
 * TRACE_TIME_MAX (and 64 bits).  Loads reach 34 bytes past @p, within the buffer's slack at the
 * end of the data; what lies past the record is masked off.
 */
static inline __attribute__((always_inline)) int
decode_fixed(const struct rec_shape *sh, const uint64_t *dev_size, const unsigned char *p,
	     uint64_t *prev, struct trace_event *ev, int check_time)
{
	const unsigned char *at = p + sh->at;
	uint64_t a = le64(at), b = le64(at + 8), c = le64(at + 16) & sh->third;
	uint64_t t = *prev + (le64(p + 1) & sh->dt_mask);
	int time_ok = (!check_time) | ((t >= *prev) & (t <= TRACE_TIME_MAX));
	/* read, write: the device byte; the others: 0, and no device (256) */
	unsigned dev = at[-1] & sh->dev_mask;
	uint64_t lim1 = sh->lim1 | dev_size[dev + sh->dev_base];
	uint64_t n2 = (b + sh->add2) >> sh->shift2;
	char *f = (char *)ev;

	ev->time_us = t;
	ev->kind = (enum trace_kind)sh->kind;
	ev->dev = dev;
	/* The fields no kind's slot fills stay 0; then a, b and c land. */
	ev->page = ev->count = ev->offset = ev->length = ev->addr = 0;
	*(uint64_t *)(void *)(f + sh->slot[2]) = c;
	*(uint64_t *)(void *)(f + sh->slot[0]) = a;
	*(uint64_t *)(void *)(f + sh->slot[1]) = b;
	ev->name[0] = '\0';
	/*
	 * The second span's alignment is not tested on n2: where align2 is
	 * set (mmap, mapdup), n2 is b, tested with the same mask as the first.
	 */
	if (!(trace_span_fits(a, b, lim1) & trace_span_fits(c, n2, sh->lim2) &
	      !(((a | b) & sh->align1) | (c & sh->align2)) & time_ok))
		return 0;
	*prev = t;
	return 1;
}

/*
 * Runs in a batch past which it goes on by shapes (runs of under 2.7
 * events on average), and the batches that follow by shapes before runs
 * are tried again.
 */
#define RUNS_MAX 24
#define BY_SHAPE_BATCHES 64

/* The longest fixed-size record: a read or write with a wide delta. */
#define FIXED_REC_MAX (9 + 1 + 8 + 8 + 8)

/*
 * Decode up to @n fixed-size records from *@pp into @ev while they keep
 * their rules; returns how many.  With @checked, each record is tested
 * against @end, and each time against overflow.  Without, the caller has
 * made sure that @n records of the longest size lie before @end and that
 * @n narrow deltas cannot carry the time past TRACE_TIME_MAX; a wide one ends the
 * batch.  Both are inlined whole, each mode into its own loop: GCC left
 * decode_fixed a call in one of them, which cost more than the decoding.
 */
static inline __attribute__((always_inline)) size_t
decode_shapes(const struct trace_reader *r, const unsigned char **pp, const unsigned char *end,
	      uint64_t *prev, struct trace_event *ev, size_t n, int checked)
{
	const unsigned char *p = *pp;
	struct trace_event *e, *e_end = ev + n;
	uint64_t t = *prev;	/* a local: kept in a register through the stores */
	size_t size;

	for (e = ev; e < e_end; e++) {
		/* A named or bad kind has size 0: left to the careful path. */
		size = r->rec_size[p[0]];
		if (checked ? (size &= ~(size_t)TRACE_BIN_WIDE) - 1 >= (size_t)(end - p) :
			      size - 1 >= TRACE_BIN_WIDE - 1)
			break;
		if (!decode_fixed(&r->shapes[p[0]], r->rules.dev_size, p, &t, e, checked))
			break;
		p += size;
	}
	*pp = p;
	*prev = t;
	return (size_t)(e - ev);
}

/*
 * Records of one kind come in runs in real traces: in the four shipped,
 * 68-90 % of the events have the kind of the one before.  There a loop
 * per kind beats the shapes: the kind is a constant in it, so the
 * record's layout (binary_format_event's) and its rule (the validator's
 * own, trace_io_ok and the others) compile to far fewer instructions,
 * and the branch on the kind is taken once a run.  Run from *@pp while
 * the records have kind @k and narrow deltas, into *@pe up to @e_end; 0
 * if one breaks the rule (left where it is, for the careful path).
 * Times cannot wrap: see binary_fill.
 */
static inline __attribute__((always_inline)) int
decode_same(const struct trace_rules *rules, const enum trace_kind k, const unsigned char **pp,
	    uint64_t *prev, struct trace_event **pe, const struct trace_event *e_end)
{
	const unsigned char *p = *pp;
	struct trace_event *e = *pe;
	uint64_t t = *prev;
	int ok;

	do {
		const unsigned char *q = p + 5;	/* after the kind and the delta */

		e->time_us = t + le32(p + 1);
		e->kind = k;
		e->name[0] = '\0';
		switch (k) {
		case EV_READ:
		case EV_WRITE:
			e->dev = q[0];
			e->offset = le64(q + 1);
			e->length = le64(q + 9);
			e->page = le64(q + 17);
			e->count = e->addr = 0;
			ok = trace_io_ok(rules, e);
			break;
		case EV_TOUCH:
		case EV_FREE:
			e->dev = 0;
			e->page = le64(q);
			e->count = le64(q + 8);
			e->offset = e->length = e->addr = 0;
			ok = trace_pages_ok(rules, e->page, e->count);
			break;
		default:	/* mmap, mapdup, munmap */
			e->dev = 0;
			e->page = e->count = 0;
			e->addr = le64(q);
			e->length = le64(q + 8);
			e->offset = k == EV_MUNMAP ? 0 : le64(q + 16);
			ok = trace_map_ok(rules, e);
			break;
		}
		if (!ok)
			break;
		t = e->time_us;
		p += 5 + payload[k];
	} while (++e < e_end && p[0] == k);
	*pp = p;
	*pe = e;
	*prev = t;
	return ok;
}

/*
 * Decode up to @n records with narrow deltas from *@pp into @ev, run by
 * run, where binary_fill allows decode_shapes' unchecked mode, and no more
 * than RUNS_MAX runs; returns how many, *@runs how many runs they made.
 */
static inline __attribute__((always_inline)) size_t
decode_runs(const struct trace_reader *r, const unsigned char **pp, uint64_t *prev,
	    struct trace_event *ev, size_t n, unsigned *runs)
{
	const struct trace_rules *rules = &r->rules;
	struct trace_event *e = ev, *e_end = ev + n;
	int ok = 1;

	*runs = 0;
	while (ok && e < e_end && *runs < RUNS_MAX) {
		++*runs;
		switch (**pp) {
#define RUN(k) case k: ok = decode_same(rules, k, pp, prev, &e, e_end); break
		RUN(EV_READ);
		RUN(EV_WRITE);
		RUN(EV_TOUCH);
		RUN(EV_FREE);
		RUN(EV_MMAP);
		RUN(EV_MUNMAP);
		RUN(EV_MAPDUP);
#undef RUN
		default:	/* wide, named or bad: the general paths */
			ok = 0;
			break;
		}
	}
	return (size_t)(e - ev);
}

/*
 * The record the fast path refused, alone in the batch: a named one, or
 * bad data to report.
 */
static __attribute__((noinline)) int fill_careful(struct trace_reader *r, size_t have)
{
	const unsigned char *p = r->buf + r->pos;
	unsigned kind_byte = p[0], kind = kind_byte & ~(unsigned)TRACE_BIN_WIDE;
	unsigned delta = kind_byte & TRACE_BIN_WIDE ? 9 : 5;
	struct trace_event *ev = &r->batch[0];
	size_t size, name_len;
	uint64_t dt;

	if (kind >= (r->nr_kinds == EV_NR_KINDS ? TRACE_BIN_KINDS : TRACE_BIN_KINDS_V1))
		return bad_record(r, "unknown event kind 0x%02x", kind_byte);
	size = delta + payload[kind];
	if (size > have)
		goto truncated;
	dt = kind_byte & TRACE_BIN_WIDE ? le64(p + 1) : le32(p + 1);
	if (dt > UINT64_MAX - r->prev_time)
		return bad_record(r, "time overflows 64 bits");
	if (r->prev_time + dt > TRACE_TIME_MAX)
		return bad_record(r, "time %llu is past 2^63 - 1 microseconds",
				  (unsigned long long)(r->prev_time + dt));
	if (kind == EV_HOST || kind == TRACE_BIN_HOST_ANON) {
		char why[512];

		*ev = (struct trace_event){ .time_us = r->prev_time + dt, .kind = EV_HOST,
					    .count = le64(p + delta) };
		if (kind == TRACE_BIN_HOST_ANON)
			ev->anon = le64(p + delta + 8);
		if (trace_validate_event(&r->rules, r->prev_time, ev, why, sizeof(why)))
			return bad_record(r, "%s", why);
		goto done;
	}
	if (kind != EV_PHASE && kind != EV_FOOTPRINT) {
		uint64_t prev = r->prev_time;

		/* Refused for its rule: decode it to say which part broke. */
		decode_fixed(&r->shapes[kind_byte], r->rules.dev_size, p, &prev, ev, 1);
		return bad_event(r, ev);
	}
	name_len = p[size - 1];
	if (!name_len || name_len >= TRACE_NAME_MAX)
		return bad_record(r, "name length %u not within 1..63", (unsigned)name_len);
	size += name_len;
	if (size > have)
		goto truncated;
	ev->time_us = r->prev_time + dt;
	ev->kind = (enum trace_kind)kind;
	if (decode_named(r, ev, kind, p + delta, name_len))
		return -1;
done:
	r->prev_time = ev->time_us;
	r->pos += size;
	r->record++;
	r->out.end = r->batch + 1;
	return 1;

truncated:
	return bad_record(r, "truncated record: the file ends %u bytes into it", (unsigned)have);
}

/*
 * A batch by runs while they are long enough to pay.  One that breaks
 * into too many goes on by shapes, and so do the batches after it for a
 * while; then runs are tried again: kinds in random order take runs twice
 * as long as shapes.  Out of line: it keeps binary_fill's loop by shapes
 * as lean as it was alone.
 */
static __attribute__((noinline)) size_t
decode_batch_by_runs(struct trace_reader *r, const unsigned char **pp, const unsigned char *end,
		     uint64_t *prev)
{
	unsigned runs;
	size_t n = decode_runs(r, pp, prev, r->batch, TRACE_BATCH, &runs);

	if (runs == RUNS_MAX && n < TRACE_BATCH) {
		r->by_shape = BY_SHAPE_BATCHES;
		n += decode_shapes(r, pp, end, prev, r->batch + n, TRACE_BATCH - n, 0);
	}
	return n;
}

int binary_fill(struct trace_reader *r)
{
	const unsigned char *p, *end;
	uint64_t prev = r->prev_time;
	size_t n = 0;

	if (r->end - r->pos < TRACE_BIN_REC_MAX) {
		long got;

		r->place_off = r->base + r->pos;
		got = reader_fill(r, TRACE_BIN_REC_MAX);
		if (got <= 0)
			return (int)got;	/* 0: the clean end, -1: reported */
	}
	/* Locals, not r's fields: the loop keeps them in registers. */
	p = r->buf + r->pos;
	end = r->buf + r->end;
	/*
	 * Away from the end of the data, and from the latest time, a batch of
	 * records with narrow deltas needs no test of each against either.
	 */
	if ((size_t)(end - p) >= TRACE_BATCH * FIXED_REC_MAX &&
	    prev <= TRACE_TIME_MAX - TRACE_BATCH * (uint64_t)UINT32_MAX) {
		if (r->by_shape) {
			r->by_shape--;
			n = decode_shapes(r, &p, end, &prev, r->batch, TRACE_BATCH, 0);
		} else {
			n = decode_batch_by_runs(r, &p, end, &prev);
		}
	}
	if (!n)
		n = decode_shapes(r, &p, end, &prev, r->batch, TRACE_BATCH, 1);
	r->pos = (size_t)(p - r->buf);
	r->prev_time = prev;
	r->record += n;
	r->out.end = r->batch + n;
	return n ? 1 : fill_careful(r, (size_t)(end - p));
}

size_t binary_format_event(const struct trace_event *ev, uint64_t prev_time,
			   unsigned char *buf)
{
	uint64_t dt = ev->time_us - prev_time;
	unsigned char *p = buf;
	/* a host event with an anonymous part has a kind number of its own */
	unsigned kind = ev->kind == EV_HOST && ev->anon ? TRACE_BIN_HOST_ANON : kind_number(ev->kind);
	size_t n;

	if (dt > UINT32_MAX) {
		*p = (unsigned char)(kind | TRACE_BIN_WIDE);
		put64(p + 1, dt);
		p += 9;
	} else {
		*p = (unsigned char)kind;
		put32(p + 1, (uint32_t)dt);
		p += 5;
	}
	switch (ev->kind) {
	case EV_READ:
	case EV_WRITE:
		put64(p + 17, ev->page);
		/* fall through */
	case EV_REQUEST:
		p[0] = (unsigned char)ev->dev;
		put64(p + 1, ev->offset);
		put64(p + 9, ev->length);
		break;
	case EV_TOUCH:
	case EV_FREE:
	case EV_DISCARD:
		put64(p, ev->page);
		put64(p + 8, ev->count);
		break;
	case EV_MMAP:
	case EV_MAPDUP:
		put64(p + 16, ev->offset);
		/* fall through */
	case EV_MUNMAP:
		put64(p, ev->addr);
		put64(p + 8, ev->length);
		break;
	case EV_HOST:
		put64(p, ev->count);
		if (kind == TRACE_BIN_HOST_ANON)
			put64(p + 8, ev->anon);
		break;
	case EV_FOOTPRINT:
		put64(p, ev->count);
		/* fall through */
	case EV_PHASE:
		n = strlen(ev->name);
		p[payload[kind] - 1] = (unsigned char)n;
		memcpy(p + payload[kind], ev->name, n);
		p += n;
		break;
	default:
		break;
	}
	return (size_t)(p - buf) + payload[kind];
}
