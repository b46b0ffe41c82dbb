/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace.h - the trace model (see traces/FORMAT.md) and its reader and writer.
 *
 * One reader serves both encodings, plain or gzip-compressed; it decodes
 * into events it owns, with no per-event allocation.
 *
 * src/trace/ is the part of anonsim that knows traces: this model, the
 * reader (reader.c, input.c), a trace decoded once for many readers
 * (share.h), the writer, the validator, the text and binary encodings,
 * and the generator of synthetic traces (gen.h).  It may
 * use src/util and src/kernel, and knows nothing of the host model, the
 * strategies or the command line.
 */
#ifndef ANONSIM_TRACE_H
#define ANONSIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

/*
 * Versions 1 and 2 are read.  Writers write the version of the header
 * they are given; TRACE_VERSION is what a header gets when nothing of a
 * later version is in it (trace_header_version), so that traces without
 * the QEMU pieces stay readable by an anonsim of version 1 alone.
 */
#define TRACE_VERSION 1
#define TRACE_VERSION_MAX 2
#define TRACE_MAX_DEVICES 16
#define TRACE_NAME_MAX 64	/* device names, phase names, footprint "what" */

enum trace_kind {
	EV_READ,
	EV_WRITE,
	EV_TOUCH,
	EV_FREE,
	EV_MMAP,
	EV_MUNMAP,
	EV_MAPDUP,
	EV_PHASE,
	EV_FOOTPRINT,
	EV_HOST,
	EV_DISCARD,		/* version 2 on: version 1 has the kinds before it */
	EV_REQUEST,		/* version 2: the reads that follow are parts of one host read */
	EV_NR_KINDS
};

extern const char *const trace_kind_names[EV_NR_KINDS + 1];	/* NULL-terminated */

struct trace_device {
	char name[TRACE_NAME_MAX];
	uint64_t size;			/* bytes */
	char backing[256];		/* backing identity: equal => shared page cache */
	char cow[256];			/* backing identity under a COW layer, "" if none */
	/* version 2: mapped into guest physical memory (pmem/DAX), not I/O */
	int pmem;
	uint64_t pmem_page;		/* the window's first page, past physical memory */
};

struct trace_header {
	unsigned version;
	uint32_t page_size;
	uint64_t memory;		/* bytes of UML physical memory */
	unsigned nr_devices;
	struct trace_device devices[TRACE_MAX_DEVICES];
	int64_t readahead_kb;		/* -1: not recorded */
	char recorder[1024];		/* "" if absent */
	char notes[4096];		/* note lines joined by '\n' */
	/* version 2: the VMM that ran the guest, "" if not recorded */
	char vmm[TRACE_NAME_MAX];
	char vmm_version[TRACE_NAME_MAX];
};

/* The event kinds of version @version: the first this many of enum trace_kind. */
unsigned trace_kinds_of_version(unsigned version);

/* The lowest version that holds everything in @h's fields (1 or 2). */
unsigned trace_header_version(const struct trace_header *h);

/*
 * The latest event time, in microseconds (292,471 years): host time is
 * kept in a signed 64-bit count where a time may be absent (-1), and every
 * output prints it whole.
 */
#define TRACE_TIME_MAX ((uint64_t)INT64_MAX)

struct trace_event {
	uint64_t time_us;
	enum trace_kind kind;
	uint32_t dev;			/* read/write/request: device index */
	union {
		uint64_t page;		/* read/write/touch/free/discard: first physical page */
		uint64_t anon;		/* host: of count, the anonymous pages */
	};
	uint64_t count;			/* touch/free/discard, footprint, host: pages */
	uint64_t offset;		/* read/write/request: device bytes; mmap/mapdup: file bytes */
	uint64_t length;		/* read/write/request/mmap/munmap/mapdup: bytes */
	uint64_t addr;			/* mmap/munmap/mapdup: host address */
	char name[TRACE_NAME_MAX];	/* phase name; footprint "tmpfs" or "cache:DEV" */
};

/*
 * Whether @ev is a part of request @req (FORMAT.md, Version 2): a read of
 * its device at its time, inside its range.  Parts follow their request;
 * the first event that is none ends it.
 */
static inline int trace_request_part(const struct trace_event *req, const struct trace_event *ev)
{
	uint64_t into = ev->offset - req->offset;

	return ev->kind == EV_READ && ev->time_us == req->time_us && ev->dev == req->dev &&
	       ev->offset >= req->offset && into <= req->length && ev->length <= req->length - into;
}

struct trace_reader;

/*
 * Open @path (text or binary, plain or gzip) and read its header.  On error
 * returns NULL and writes a message naming the file and place into @err.
 * A @path of "-" is standard input (see trace_stdin_path).
 */
struct trace_reader *trace_open(const char *path, char *err, size_t errlen);

const struct trace_header *trace_header(const struct trace_reader *r);

/*
 * Decode the rest of @r on another CPU while the caller uses its events,
 * where that pays: binary data (text decodes slower than a replay uses
 * it), plain (gzip's inflating thread is the slower side already), larger
 * than a first read, a second CPU to run on, no other trace decoded so in
 * the process, and ANONSIM_READAHEAD not 0.  Call it before the first
 * event.  Returns whether it does; either way @r is read as before, with
 * the same events and errors.
 */
int trace_read_ahead(struct trace_reader *r);

/*
 * The decoded events a reader holds: every reader starts with one, so
 * that trace_next can hand out events without a call (as getc does).
 */
struct trace_batch {
	const struct trace_event *next, *end;	/* not yet handed out */
};

/* Decode the next batch: trace_next's slow path. */
int trace_next_batch(struct trace_reader *r, const struct trace_event **ev);

/*
 * Next event: 1 and *ev pointing at it, 0 at a clean end, -1 on bad data
 * with the message (file, line or record index and byte offset, what is
 * wrong) in trace_error().  The event lives in the reader and stays valid
 * until the next call on @r: events are decoded in batches, not copied.
 */
static inline int trace_next(struct trace_reader *r, const struct trace_event **ev)
{
	struct trace_batch *b = (struct trace_batch *)(void *)r;

	if (b->next == b->end)
		return trace_next_batch(r, ev);
	*ev = b->next++;
	return 1;
}

/*
 * All the decoded events not yet handed out, *n >= 1 of them from *ev:
 * for readers that take events in bulk (the next call decodes more).
 * Returns as trace_next does.
 */
int trace_next_run(struct trace_reader *r, const struct trace_event **ev, size_t *n);
const char *trace_error(const struct trace_reader *r);

void trace_close(struct trace_reader *r);

/*
 * The file that holds standard input: read whole into a scratch file
 * under $TMPDIR on the first call (removed at exit), the same file after.
 * Call it before starting threads that open "-".  NULL with a message in
 * @err when standard input is a terminal or cannot be kept.
 */
const char *trace_stdin_path(char *err, size_t errlen);

/* As trace_open, from an open descriptor (which it takes over); @name is
 * the name messages give the data. */
struct trace_reader *trace_open_fd(int fd, const char *name,
				   char *err, size_t errlen);

/* 1 if the data is in the binary encoding, 0 if text. */
int trace_is_binary(const struct trace_reader *r);

/*
 * How far the events handed out so far reach into the file: *@done of
 * *@total bytes (compressed bytes for gzip; *@total is 0 when the file is
 * not a regular file).  Never more than *@total; cheap, but not meant for
 * every event.
 */
void trace_progress(const struct trace_reader *r, uint64_t *done, uint64_t *total);

/*
 * The text encoding of a header (lines up to "events") and of one event
 * (one line with its newline), as snprintf: the length it needs.  A buffer
 * of TRACE_HEADER_TEXT_MAX / TRACE_EVENT_TEXT_MAX bytes always suffices.
 */
#define TRACE_HEADER_TEXT_MAX 65536
#define TRACE_EVENT_TEXT_MAX 256
size_t trace_format_header(const struct trace_header *h, char *buf, size_t len);
size_t trace_format_event(const struct trace_header *h,
			  const struct trace_event *ev, char *buf, size_t len);

struct trace_writer;

/*
 * The names a trace file may end in, by encoding: text, binary, then the
 * same gzip-compressed; NULL-terminated.
 */
extern const char *const trace_suffixes[];

/*
 * The encoding a file name asks for: 0 with *binary and *gz set, or -1 if
 * the name ends in none of trace_suffixes.
 */
int trace_path_encoding(const char *path, int *binary, int *gz);

/* "NAME must end in .trace, .atr, .trace.gz or .atr.gz", in @buf. */
char *trace_suffix_error(const char *name, char *buf, size_t len);

/*
 * Create @path: text or binary by its name (.trace / .atr), gzip when it
 * ends in .gz.  Writes go to a temporary file beside it; trace_writer_commit
 * renames it into place, trace_writer_abort removes it.
 */
struct trace_writer *trace_writer_open(const char *path,
				       const struct trace_header *h,
				       char *err, size_t errlen);
int trace_write(struct trace_writer *w, const struct trace_event *ev);
int trace_writer_commit(struct trace_writer *w, char *err, size_t errlen);
void trace_writer_abort(struct trace_writer *w);

#endif /* ANONSIM_TRACE_H */
