/*
 * trace_internal.h - what the trace reader, writer and the two encodings
 * share.  Not an API: only src/trace_*.c include it.
 */
#ifndef ANONSIM_TRACE_INTERNAL_H
#define ANONSIM_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "trace.h"

/* Limits, stated in traces/FORMAT.md. */
#define TRACE_LINE_MAX		4096		/* text line, newline included */
#define TRACE_BIN_HEADER_MAX	65536		/* binary header block */
#define TRACE_SIZE_MAX		(1ULL << 40)	/* memory and device sizes */
#define TRACE_PAGE_SIZE_MIN	512
#define TRACE_PAGE_SIZE_MAX	(1U << 20)
#define TRACE_READAHEAD_MAX	(1ULL << 30)	/* KiB */

/* Binary layout: magic, version (u32 LE), header length (u32 LE), header. */
#define TRACE_MAGIC_LEN		8
extern const unsigned char trace_magic[TRACE_MAGIC_LEN];
#define TRACE_BIN_WIDE		0x80		/* kind byte: time delta is u64 */
#define TRACE_BIN_REC_MAX	(1 + 8 + 8 + 1 + TRACE_NAME_MAX)

/*
 * Read buffer: large enough that gzread fills it without an extra copy;
 * the slack after it leaves room for the NUL that ends a last text line.
 */
#define TRACE_BUF_SIZE		(512 * 1024)
#define TRACE_BUF_SLACK		64

/* ---- header (trace_header.c) ---- */
struct header_parser {
	struct trace_header *h;
	unsigned lines;		/* header lines seen (comments included) */
	int seen_version, seen_page_size, seen_memory, seen_readahead;
	int seen_recorder;
};

void header_parser_init(struct header_parser *p, struct trace_header *h);
/*
 * One header line, comment and newline removed, NUL-terminated; the parser
 * may modify it.  1: it was "events" (the header ends), 0: go on, -1: bad
 * with the reason in @why.
 */
int header_parse_line(struct header_parser *p, char *line, char *why, size_t len);
/* After "events": the required fields and the rules that span lines. */
int header_parser_finish(struct header_parser *p, char *why, size_t len);

/* ---- events (trace_validate.c) ---- */
/* The header's limits in the form the per-event checks want them. */
struct trace_rules {
	const struct trace_header *h;
	uint64_t mem_pages;
	unsigned page_shift;
};

void trace_rules_init(struct trace_rules *rules, const struct trace_header *h);

/*
 * The event rules, one test per kind: these define what is valid.  The
 * decoders call them on their hot paths; trace_validate_event calls them
 * too and, when one fails, says which part of it.
 */
static inline int trace_pages_ok(const struct trace_rules *r, uint64_t page, uint64_t n)
{
	return n && page < r->mem_pages && n <= r->mem_pages - page;
}

static inline int trace_io_ok(const struct trace_rules *r, const struct trace_event *ev)
{
	const struct trace_device *d;

	if (ev->dev >= r->h->nr_devices)
		return 0;
	d = &r->h->devices[ev->dev];
	return ev->length && !((ev->offset | ev->length) & 511) &&
	       ev->offset <= d->size && ev->length <= d->size - ev->offset &&
	       trace_pages_ok(r, ev->page,
			      (ev->length + r->h->page_size - 1) >> r->page_shift);
}

static inline int trace_map_ok(const struct trace_rules *r, const struct trace_event *ev)
{
	uint64_t mask = r->h->page_size - 1;

	return ev->length && !((ev->addr | ev->length | ev->offset) & mask) &&
	       ev->length <= UINT64_MAX - ev->addr &&
	       ev->length <= UINT64_MAX - ev->offset;
}
/* 0 if @ev may follow an event at @prev_time, else -1 and the reason. */
int trace_validate_event(const struct trace_rules *rules, uint64_t prev_time,
			 const struct trace_event *ev, char *why, size_t len);
/* Does @name lie in the phase/footprint alphabet (one printable word)? */
int trace_name_ok(const char *name, size_t len);
int trace_device_index(const struct trace_header *h, const char *name);

/* ---- the reader (trace_reader.c) and the two decoders ---- */
enum reader_place { AT_FILE, AT_BYTE, AT_LINE, AT_HEADER_LINE, AT_RECORD };

struct trace_reader {
	gzFile gz;
	char *path;
	int binary;
	int failed;
	int eof;		/* gzread said end of data, cleanly */
	struct trace_header h;
	struct trace_rules rules;
	unsigned char *buf;	/* TRACE_BUF_SIZE + TRACE_BUF_SLACK */
	size_t pos, end;	/* unread bytes are buf[pos..end) */
	uint64_t base;		/* stream offset of buf[0] */
	enum reader_place place;
	uint64_t line;		/* text line, binary header line */
	uint64_t record;	/* binary: index of the record being read */
	uint64_t place_off;	/* binary: stream offset of that record/line */
	uint64_t prev_time;
	char err[1024];
};

/*
 * Make at least @want bytes available at buf[pos] unless the data ends
 * first.  Returns the number available (may be < @want at the end), or -1
 * after reporting a gzip or I/O error.
 */
long reader_fill(struct trace_reader *r, size_t want);
void reader_fail(struct trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int text_read_header(struct trace_reader *r);
int text_next(struct trace_reader *r, struct trace_event *ev);
int binary_read_header(struct trace_reader *r);
int binary_next(struct trace_reader *r, struct trace_event *ev);

/* ---- encoders (trace_text.c, trace_binary.c) ---- */
/* Binary encoding of @ev after an event at @prev_time; returns bytes used. */
size_t binary_format_event(const struct trace_event *ev, uint64_t prev_time,
			   unsigned char *buf);

#endif
