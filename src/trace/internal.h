/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * internal.h - what the trace reader, writer and the two encodings
 * share.  Not an API: only the files of src/trace include it.
 */
#ifndef ANONSIM_TRACE_INTERNAL_H
#define ANONSIM_TRACE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "trace/seg_tree.h"
#include "trace/trace.h"

/* Limits, stated in traces/FORMAT.md. */
#define TRACE_LINE_MAX		4096		/* text line, newline included */
#define TRACE_BIN_HEADER_MAX	65536		/* binary header block */
#define TRACE_SIZE_MAX		(1ULL << 40)	/* memory and device sizes */
#define TRACE_PAGE_SIZE		4096		/* the one page size modelled */
#define TRACE_PAGE_SIZE_MAX	(1U << 20)	/* parsed before it is refused */
#define TRACE_READAHEAD_MAX	(1ULL << 30)	/* KiB */
#define TRACE_GUEST_PHYS_SHIFT	52		/* x86-64's widest physical address */
#define TRACE_GUEST_PHYS_MAX	(1ULL << TRACE_GUEST_PHYS_SHIFT)	/* pmem windows end below */

/* Binary layout: magic, version (u32 LE), header length (u32 LE), header. */
#define TRACE_MAGIC_LEN		8
extern const unsigned char trace_magic[TRACE_MAGIC_LEN];
#define TRACE_BIN_WIDE		0x80		/* kind byte: time delta is u64 */
#define TRACE_BIN_HOST_ANON	10		/* kind number: host, with its anonymous part */
#define TRACE_BIN_DISCARD	11		/* kind number: discard (version 2) */
#define TRACE_BIN_REQUEST	12		/* kind number: request (version 2) */
#define TRACE_BIN_KINDS		13		/* kind numbers of records: 0-12 */
#define TRACE_BIN_KINDS_V1	11		/* of version 1: 0-10 */
/* Kinds up to host keep their enum value as kind number; those after follow host-anon. */
_Static_assert(TRACE_BIN_HOST_ANON == EV_DISCARD && TRACE_BIN_DISCARD == EV_DISCARD + 1 &&
	       TRACE_BIN_REQUEST == EV_REQUEST + 1 && TRACE_BIN_KINDS == EV_NR_KINDS + 1,
	       "a new event kind takes the next kind number of FORMAT.md");
#define TRACE_BIN_REC_MAX	(1 + 8 + 8 + 1 + TRACE_NAME_MAX)

/*
 * Input chunks (trace_input.c): large enough that inflate fills them
 * without an extra copy.  The room before the data holds the unread tail
 * of the chunk before, up to the largest piece a decoder asks for in one
 * piece (the binary header block); the slack after it leaves room for the
 * NUL that ends a last text line and for the binary decoder's loads past
 * the last record.
 */
#define INPUT_CHUNK		(256 * 1024)
#define INPUT_FIRST_CHUNK	(64 * 1024)	/* read by the caller */
#define INPUT_HEAD		(TRACE_BIN_HEADER_MAX + 64)
#define TRACE_BUF_SLACK		64

/* ---- input (trace_input.c) ---- */
struct input_chunk {
	unsigned char *data;	/* INPUT_HEAD bytes of room before it */
	size_t len;
	int end;		/* the data ends after this chunk, cleanly or not */
	int errnum;		/* zlib's error after the good bytes, or Z_OK */
	int sys_errno;		/* errno, for Z_ERRNO */
	char why[256];		/* what broke, and at which byte of the file */
	uint64_t file_start, file_end;	/* bytes of the file behind the data
					 * (compressed bytes, for gzip) */
};

struct trace_input;

/*
 * Read @fd, which input_close closes, inflating it if @gzip (die_oom()
 * when out of memory).  @early: the data is likely to outgrow the first chunk, so
 * start the thread now.
 */
struct trace_input *input_open(int fd, int gzip, int early);
/*
 * The next chunk, waiting for it, with the @carry_len bytes at @carry
 * (the unread tail of the chunk before) put just before its data; the
 * chunk before is given back.  Not called again after an end chunk.
 * Without a thread (none to be had) the caller reads on, more slowly.
 */
const struct input_chunk *input_next(struct trace_input *in, const unsigned char *carry,
				     size_t carry_len);
void input_close(struct trace_input *in);

/* ---- header (trace_header.c) ---- */
struct header_parser {
	struct trace_header *h;
	unsigned lines;		/* header lines seen (comments included) */
	int seen_version, seen_page_size, seen_memory, seen_readahead;
	int seen_recorder, seen_vmm;
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
	uint64_t mem_bytes;		/* where mappings of the memory file end */
	uint64_t page_mask;
	unsigned page_shift;
	/* By device byte, 0 past nr_devices; [256], 0, for kinds with no device. */
	uint64_t dev_size[257];
};

void trace_rules_init(struct trace_rules *rules, const struct trace_header *h);

/*
 * Every event rule is made of spans: @n units from @x end at or below
 * @lim, @n is not 0, and @x and @n are multiples of @align + 1.  Tests are
 * joined with & rather than &&, so that the binary decoder can evaluate
 * a span for any kind without branching on the kind.
 */
static inline int trace_span_fits(uint64_t x, uint64_t n, uint64_t lim)
{
	return (x <= lim) & (n - 1 < lim - x);
}

static inline int trace_span_ok(uint64_t x, uint64_t n, uint64_t lim, uint64_t align)
{
	return trace_span_fits(x, n, lim) & !((x | n) & align);
}

/*
 * The event rules, one test per kind: these define what is valid.  The
 * text decoder calls them on its hot path, the binary decoder checks the
 * same spans with parameters per kind (trace_binary.c), and
 * trace_validate_event says which part of a rule failed.
 */
static inline int trace_pages_ok(const struct trace_rules *r, uint64_t page, uint64_t n)
{
	return trace_span_ok(page, n, r->mem_pages, 0);
}

/* Bytes of a device that takes I/O: a request's rule, and half of a read's. */
static inline int trace_dev_span_ok(const struct trace_rules *r, const struct trace_event *ev)
{
	return trace_span_ok(ev->offset, ev->length, r->dev_size[ev->dev & 255], 511) &
	       (ev->dev < 256);
}

static inline int trace_io_ok(const struct trace_rules *r, const struct trace_event *ev)
{
	return trace_dev_span_ok(r, ev) &
	       trace_pages_ok(r, ev->page, (ev->length + r->page_mask) >> r->page_shift);
}

/*
 * No wrap past 2^64 - 1 in the address space; mmap and mapdup map pages of
 * the memory file that lie within physical memory (munmap's offset is 0).
 */
static inline int trace_map_ok(const struct trace_rules *r, const struct trace_event *ev)
{
	return trace_span_ok(ev->addr, ev->length, UINT64_MAX, r->page_mask) &
	       trace_span_ok(ev->offset, ev->length,
			     ev->kind == EV_MUNMAP ? UINT64_MAX : r->mem_bytes, r->page_mask);
}
/* 0 if @ev may follow an event at @prev_time, else -1 and the reason. */
int trace_validate_event(const struct trace_rules *rules, uint64_t prev_time,
			 const struct trace_event *ev, char *why, size_t len);
/*
 * The rules between events on UML's mappings of its memory file (FORMAT.md,
 * "Mappings"): which physical pages are mapped at their own address.  The
 * page numbers from 0 to memory / page size are cut into segments of one
 * state; mappings are few, so the segments are few.
 */
enum own_state {
	OWN_NEVER,
	OWN_MAPPED,
	OWN_UNMAPPED,
	OWN_READ_EARLY,		/* read into before the first mmap: not mapped there */
};

struct trace_maps {
	uint64_t base;			/* address of page 0: the first mmap's address - offset */
	int based;
	struct seg_tree seg;		/* each page's own_state; seg.n NULL: none yet */
	/*
	 * By kind, pages [lo, hi) where an event of that kind keeps the
	 * rules and changes no state: reads in the largest run of pages
	 * mapped at their own address, touches, frees and discards in the largest run
	 * of pages mapped there or never mapped, writes anywhere, mappings
	 * nowhere (they have their own test).  Events inside are passed
	 * without a look at the segments.
	 */
	uint64_t lo[EV_NR_KINDS], hi[EV_NR_KINDS];
	/*
	 * The request whose parts are being read (FORMAT.md, Version 2):
	 * while one is open every event takes the slow path, and the first
	 * that is no part of it closes it.
	 */
	int req_open;
	struct trace_event req;
	uint64_t req_index;		/* its index among the events applied */
	uint64_t req_parts;
	uint64_t req_next;		/* the next part starts at or past this byte */
	uint64_t applied;		/* events applied by earlier calls */
};

void trace_maps_init(struct trace_maps *m);
void trace_maps_free(struct trace_maps *m);
/*
 * Apply @n events to @m, in order: the index of the first that breaks a
 * rule (the reason in @why), or @n.
 */
size_t trace_maps_apply(struct trace_maps *m, const struct trace_rules *r,
			const struct trace_event *ev, size_t n, char *why, size_t len);
/*
 * At the end of the events: NULL, or the request that ends them without
 * a part, with its index in *@index and the reason in @why.
 */
const struct trace_event *trace_maps_finish(const struct trace_maps *m, uint64_t *index,
					    char *why, size_t len);

/* Does @name lie in the phase/footprint alphabet (one printable word)? */
int trace_name_ok(const char *name, size_t len);
int trace_device_index(const struct trace_header *h, const char *name);

/* ---- the reader (trace_reader.c) and the two decoders ---- */
enum reader_place { AT_FILE, AT_BYTE, AT_LINE, AT_HEADER_LINE, AT_RECORD };

/*
 * What the binary decoder needs to know of a kind byte (trace_binary.c):
 * where the kind keeps its fields, which event fields they fill, and the
 * parameters of the two spans its rule checks.  Indexed by the kind byte,
 * beside the record sizes (rec_size), where 0 marks the bytes the fast
 * path leaves to the careful one: named kinds, bad kinds.
 */
struct rec_shape {
	unsigned char at;		/* offset of the first u64, a */
	unsigned char kind;
	unsigned char slot[3];		/* event fields of a, b, c: offsetof */
	unsigned char dev_mask;		/* 0xff for read and write */
	unsigned short dev_base;	/* 256 (no device) for the other kinds */
	uint64_t dt_mask;		/* u32 or u64 time delta */
	uint64_t third;			/* ~0 if the kind has a third u64, c */
	uint64_t lim1;			/* first span (a, b): lim1 | device size */
	uint64_t add2, lim2;		/* second span: (c, (b + add2) >> shift2) */
	uint32_t align1, align2;
	unsigned shift2;
};

#define TRACE_BATCH 64			/* events decoded per refill of the batch */

struct trace_ahead;

struct trace_reader {
	struct trace_batch out;	/* first: trace_next reads it; in batch[] */
	struct trace_input *in;
	char *path;
	int binary;
	int gzip;
	int failed;
	/* decoded on another CPU (ahead.c): the events come from there, and
	 * the decoding state below (input, place, batch, rules) is a copy
	 * the decoder took; the header, path, error and size stay here */
	struct trace_ahead *ahead;
	int eof;		/* the data ended cleanly: no more chunks */
	const struct input_chunk *broken;	/* the data broke after this chunk */
	struct trace_header h;
	struct trace_rules rules;
	unsigned char *buf;	/* in the current chunk, its carry first */
	size_t pos, end;	/* unread bytes are buf[pos..end) */
	uint64_t base;		/* stream offset of buf[0] */
	enum reader_place place;
	uint64_t line;		/* text line, binary header line */
	uint64_t record;	/* binary: index of the record being read */
	uint64_t place_off;	/* binary: stream offset of that record/line */
	uint64_t prev_time;
	unsigned nr_kinds;	/* the event kinds of the trace's version */
	struct trace_event *batch;	/* TRACE_BATCH events: batch_mem, or ahead.c's */
	struct trace_event batch_mem[TRACE_BATCH];
	/* binary: by kind byte; the sizes apart, as the next record's place
	 * waits on them */
	unsigned char rec_size[256];
	struct rec_shape shapes[256];
	/* binary: batches still to decode by shape, before runs are tried again */
	unsigned by_shape;
	struct trace_maps maps;	/* the rules between events */
	uint64_t handed;	/* events decoded before the current batch */
	/* how far into the file: the current chunk's data starts at stream
	 * offset chunk_at, holds chunk_len bytes from file bytes
	 * [file_start, file_end) (trace_progress) */
	uint64_t chunk_at, chunk_len, file_start, file_end, file_size;
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

/*
 * input.c's thread helpers, which ahead.c's thread uses too: a block of
 * RING_BYTES aligned to a huge page (zeroed, NULL if none), and a thread
 * started on another CPU than the caller's (pthread_create's return),
 * which once it runs lets the scheduler place it (cpu_unpin()).
 */
#define RING_BYTES	((size_t)2 << 20)
unsigned char *ring_alloc(void);
void ring_free(unsigned char *p);
int thread_start_elsewhere(pthread_t *t, void *(*fn)(void *), void *arg);
void cpu_unpin(void);

/*
 * batch.c: the next batch from @r's own decoder, as trace_next_batch
 * returns it; how far into the file its events reach, as trace_progress.
 */
int reader_next_batch(struct trace_reader *r, const struct trace_event **ev);
void reader_progress(const struct trace_reader *r, uint64_t *done);

/* ahead.c: the events of a reader decoding ahead, and its end. */
int ahead_next_batch(struct trace_reader *r, const struct trace_event **ev);
void ahead_progress(const struct trace_reader *r, uint64_t *done);
void ahead_close(struct trace_reader *r);

/* Decoders: fill r->batch with events, r->out.end after the last, and
 * return 1; 0 at the clean end; -1 after reporting bad data. */
int text_read_header(struct trace_reader *r);
int text_fill(struct trace_reader *r);
int binary_read_header(struct trace_reader *r);
int binary_fill(struct trace_reader *r);
/* The binary decoder's per-kind table, from the header's rules. */
void binary_shapes_init(struct trace_reader *r);

/* ---- encoders (trace_text.c, trace_binary.c) ---- */
/* Binary encoding of @ev after an event at @prev_time; returns bytes used. */
size_t binary_format_event(const struct trace_event *ev, uint64_t prev_time,
			   unsigned char *buf);

#endif
