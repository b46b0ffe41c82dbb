/*
 * trace_binary.c - the binary encoding: a magic, a version, the header as
 * a length-prefixed block of the text header lines, then records of a kind
 * byte, a time delta and a fixed little-endian payload per kind.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

const unsigned char trace_magic[TRACE_MAGIC_LEN] = {
	0x89, 'A', 'T', 'R', '\r', '\n', 0x1a, '\n'
};

/* Payload bytes after the kind byte and time delta; names add their length. */
static const unsigned char payload[EV_NR_KINDS] = {
	[EV_READ] = 1 + 8 + 8 + 8, [EV_WRITE] = 1 + 8 + 8 + 8,
	[EV_TOUCH] = 8 + 8, [EV_FREE] = 8 + 8,
	[EV_MMAP] = 8 + 8 + 8, [EV_MUNMAP] = 8 + 8, [EV_MAPDUP] = 8 + 8 + 8,
	[EV_PHASE] = 1, [EV_FOOTPRINT] = 8 + 1,
};

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
	if (version != TRACE_VERSION) {
		reader_fail(r, "unknown version %lu (this anonsim reads version %d)",
			    (unsigned long)version, TRACE_VERSION);
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
	block = malloc((size_t)len + 1);
	if (!block) {
		reader_fail(r, "out of memory");
		return -1;
	}
	memcpy(block, r->buf + r->pos, len);
	block[len] = '\0';
	rc = parse_block(r, block, len, TRACE_MAGIC_LEN + 8);
	free(block);
	if (rc)
		return -1;
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
 * A phase or footprint record: kept out of binary_next() so that the hot
 * path carries no message buffer in its frame.
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

int binary_next(struct trace_reader *r, struct trace_event *ev)
{
	const unsigned char *p;
	size_t have = r->end - r->pos, size, name_len = 0;
	unsigned kind_byte, kind;
	uint64_t dt;

	if (have < TRACE_BIN_REC_MAX) {
		long n;

		r->place_off = r->base + r->pos;
		n = reader_fill(r, TRACE_BIN_REC_MAX);
		if (n <= 0)
			return (int)n;	/* 0: the clean end, -1: reported */
		have = (size_t)n;
	}
	p = r->buf + r->pos;
	kind_byte = p[0];
	kind = kind_byte & ~(unsigned)TRACE_BIN_WIDE;
	if (kind >= EV_NR_KINDS)
		return bad_record(r, "unknown event kind 0x%02x", kind_byte);
	size = (kind_byte & TRACE_BIN_WIDE ? 9 : 5) + payload[kind];
	if (kind == EV_PHASE || kind == EV_FOOTPRINT) {
		if (size > have)
			goto truncated;
		name_len = p[size - 1];
		if (!name_len || name_len >= TRACE_NAME_MAX)
			return bad_record(r, "name length %u not within 1..63", (unsigned)name_len);
		size += name_len;
	}
	if (size > have)
		goto truncated;
	if (kind_byte & TRACE_BIN_WIDE) {
		dt = le64(p + 1);
		p += 9;
	} else {
		dt = le32(p + 1);
		p += 5;
	}
	if (dt > UINT64_MAX - r->prev_time)
		return bad_record(r, "time overflows 64 bits");
	ev->time_us = r->prev_time + dt;
	ev->kind = (enum trace_kind)kind;
	/* Decode and check in one switch: one hard-to-predict branch per event. */
	switch (kind) {
	case EV_READ:
	case EV_WRITE:
		ev->dev = p[0];
		ev->offset = le64(p + 1);
		ev->length = le64(p + 9);
		ev->page = le64(p + 17);
		ev->count = ev->addr = 0;
		ev->name[0] = '\0';
		if (!trace_io_ok(&r->rules, ev))
			return bad_event(r, ev);
		break;
	case EV_TOUCH:
	case EV_FREE:
		ev->page = le64(p);
		ev->count = le64(p + 8);
		ev->dev = 0;
		ev->offset = ev->length = ev->addr = 0;
		ev->name[0] = '\0';
		if (!trace_pages_ok(&r->rules, ev->page, ev->count))
			return bad_event(r, ev);
		break;
	case EV_MMAP:
	case EV_MAPDUP:
	case EV_MUNMAP:
		ev->addr = le64(p);
		ev->length = le64(p + 8);
		ev->offset = kind == EV_MUNMAP ? 0 : le64(p + 16);
		ev->dev = 0;
		ev->page = ev->count = 0;
		ev->name[0] = '\0';
		if (!trace_map_ok(&r->rules, ev))
			return bad_event(r, ev);
		break;
	default:	/* phase, footprint: rare, checked in full */
		if (decode_named(r, ev, kind, p, name_len))
			return -1;
		break;
	}
	r->prev_time = ev->time_us;
	r->pos += size;
	r->record++;
	return 1;

truncated:
	return bad_record(r, "truncated record: the file ends %u bytes into it", (unsigned)have);
}

size_t binary_format_event(const struct trace_event *ev, uint64_t prev_time,
			   unsigned char *buf)
{
	uint64_t dt = ev->time_us - prev_time;
	unsigned char *p = buf;
	size_t n;

	if (dt > UINT32_MAX) {
		*p = (unsigned char)(ev->kind | TRACE_BIN_WIDE);
		put64(p + 1, dt);
		p += 9;
	} else {
		*p = (unsigned char)ev->kind;
		put32(p + 1, (uint32_t)dt);
		p += 5;
	}
	switch (ev->kind) {
	case EV_READ:
	case EV_WRITE:
		p[0] = (unsigned char)ev->dev;
		put64(p + 1, ev->offset);
		put64(p + 9, ev->length);
		put64(p + 17, ev->page);
		break;
	case EV_TOUCH:
	case EV_FREE:
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
	case EV_FOOTPRINT:
		put64(p, ev->count);
		/* fall through */
	case EV_PHASE:
		n = strlen(ev->name);
		p[payload[ev->kind] - 1] = (unsigned char)n;
		memcpy(p + payload[ev->kind], ev->name, n);
		p += n;
		break;
	default:
		break;
	}
	return (size_t)(p - buf) + payload[ev->kind];
}
