/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * share.h - one trace decoded once for many readers at a time.
 *
 * A replay of many staggered copies of a trace reads it at as many places
 * at once.  A share opens the trace once while copies of it run, decodes
 * and validates each event once, and keeps the events in a compact
 * encoding (a few bytes an event, not a struct trace_event) in a window
 * of chunks from the slowest tap to the fastest; each tap reads at its own
 * place and decodes the compact form into an event of its own.  A chunk
 * is freed when the last tap has passed it, unless a tap still to join
 * will need it (a tap joins at the first event): while taps are still to
 * come, one after another or at once, the window keeps the whole trace,
 * which is so decoded once however often it is read.
 *
 * The reader (with its read-ahead thread) is opened when the first tap of
 * a group joins and closed when the trace has been read to its end or the
 * last tap leaves; a tap joining a share no tap is reading starts a new
 * group, unless the whole trace is in the window.  The last tap of all,
 * when no other reads (a trace replayed once), reads the reader directly,
 * as a lone reader would, which decodes it on another CPU where that
 * pays (trace_read_ahead).
 *
 * Taps of one share are used from one thread.
 */
#ifndef ANONSIM_TRACE_SHARE_H
#define ANONSIM_TRACE_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct trace_share;
struct share_chunk;

/* One reader of a share: the share's, once joined. */
struct trace_tap {
	struct trace_share *s;
	struct share_chunk *chunk;	/* the window's chunk it reads in */
	size_t off;			/* next event's byte in it */
	uint64_t time_us;		/* the last event's time: events hold deltas */
	bool direct;			/* reads the reader itself */
	struct trace_event ev;		/* the last event handed out */
};

/*
 * Open @path and read its header, for @taps taps in all.  NULL on error,
 * with trace_open's message in @err.
 */
struct trace_share *trace_share_open(const char *path, unsigned taps,
				     char *err, size_t errlen);

const struct trace_header *trace_share_header(const struct trace_share *s);

/* The trace file's size in bytes (0 if it is not a regular file). */
uint64_t trace_share_size(const struct trace_share *s);

/*
 * How far into the file the events @t has read reach, in bytes (as
 * trace_progress; in the window, interpolated within a chunk): for a
 * progress line, not for every event.
 */
void trace_tap_progress(const struct trace_tap *t, uint64_t *done);

/* Chunks the window holds now. */
size_t trace_share_chunks(const struct trace_share *s);

/* Distinct readers opened so far (the one opened for the header counts). */
unsigned trace_share_opens(const struct trace_share *s);

/*
 * @t joins @s at the trace's first event.  Returns 0, or -1 with
 * trace_open's message in @err.
 */
int trace_tap_join(struct trace_share *s, struct trace_tap *t, char *err, size_t errlen);

/*
 * The next event, as trace_next: 1 with *ev (valid until the next call on
 * @t), 0 at the end, -1 on bad data with the reader's message in
 * trace_tap_error().  Each tap meets the end or the error at the same
 * event.
 */
int trace_tap_next(struct trace_tap *t, const struct trace_event **ev);
const char *trace_tap_error(const struct trace_tap *t);

/* @t stops reading; the last tap of a group closes the reader. */
void trace_tap_leave(struct trace_tap *t);

/* Close @s; every tap must have left. */
void trace_share_close(struct trace_share *s);

#endif
