/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * share.c - one trace decoded once for many taps (see share.h).
 *
 * The compact encoding of an event, as the window keeps it:
 *   byte 0   the kind (low 4 bits); bit 4: a name follows
 *   byte 1   which numeric fields follow, nonzero (bit 0 dev, 1 page,
 *            2 count, 3 offset, 4 length, 5 addr); the others are 0
 *   then     the time since the event before (events never go back in
 *            time), and the fields named, each as an unsigned LEB128
 *            varint; then the name, its length in a byte and its bytes.
 * A read event takes some 10-15 bytes, the shipped traces 5-10 on average.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "trace/share.h"
#include "util/xalloc.h"

#define CHUNK_BYTES (64 * 1024)
/* The most an event takes: 2 + 10 (time) + 5 (dev) + 5 * 10 + 1 + name. */
#define EVENT_MAX (2 + 10 + 5 + 5 * 10 + 1 + TRACE_NAME_MAX)
#define HAS_NAME 0x10

struct share_chunk {
	struct share_chunk *next;
	unsigned users;			/* taps reading in it */
	size_t len;			/* bytes of events in data */
	uint64_t file_from, file_to;	/* how far into the file its events reach */
	unsigned char data[CHUNK_BYTES];
};

struct trace_share {
	char *path;
	struct trace_header hdr;
	uint64_t size;			/* of the file */
	struct trace_reader *r;		/* open while a group reads it */
	unsigned opens;
	unsigned pending;		/* taps still to join, in all */
	unsigned alive;			/* taps of this group not yet left */
	bool windowed;			/* this group's taps read the window */
	bool ended;			/* the reader met the end or an error */
	bool failed;			/* ... an error, with its message: */
	char err[1024];
	uint64_t time_us;		/* the last event encoded */
	struct share_chunk *head, *tail;
};

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static inline const unsigned char *get_varint(const unsigned char *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	while (*p & 0x80) {
		x |= (uint64_t)(*p++ & 0x7f) << shift;
		shift += 7;
	}
	*v = x | (uint64_t)*p++ << shift;
	return p;
}

static unsigned char *encode(unsigned char *p, const struct trace_event *ev, uint64_t prev)
{
	unsigned char *mask;
	size_t nl = strnlen(ev->name, TRACE_NAME_MAX - 1);

	*p++ = (unsigned char)(ev->kind | (nl ? HAS_NAME : 0));
	mask = p++;
	*mask = 0;
	p = put_varint(p, ev->time_us - prev);
#define FIELD(bit, f) if (ev->f) { *mask |= 1u << (bit); p = put_varint(p, ev->f); }
	FIELD(0, dev)
	FIELD(1, page)
	FIELD(2, count)
	FIELD(3, offset)
	FIELD(4, length)
	FIELD(5, addr)
#undef FIELD
	if (nl) {
		*p++ = (unsigned char)nl;
		memcpy(p, ev->name, nl);
		p += nl;
	}
	return p;
}

static const unsigned char *decode(const unsigned char *p, struct trace_event *ev, uint64_t prev)
{
	unsigned head = *p++, mask = *p++;
	uint64_t v;

	ev->kind = (enum trace_kind)(head & 0x0f);
	p = get_varint(p, &v);
	ev->time_us = prev + v;
#define FIELD(bit, f) if (mask & 1u << (bit)) { p = get_varint(p, &v); ev->f = v; } else ev->f = 0;
	FIELD(0, dev)
	FIELD(1, page)
	FIELD(2, count)
	FIELD(3, offset)
	FIELD(4, length)
	FIELD(5, addr)
#undef FIELD
	if (head & HAS_NAME) {
		size_t nl = *p++;

		memcpy(ev->name, p, nl);
		ev->name[nl] = '\0';
		p += nl;
	} else {
		ev->name[0] = '\0';
	}
	return p;
}

struct trace_share *trace_share_open(const char *path, unsigned taps,
				     char *err, size_t errlen)
{
	struct trace_reader *r = trace_open(path, err, errlen);
	struct trace_share *s;
	uint64_t done;

	if (!r)
		return NULL;
	s = xcalloc(1, sizeof(*s), "a shared trace");
	s->path = xstrdup(path, "a shared trace's name");
	s->r = r;
	s->opens = 1;
	s->hdr = *trace_header(r);
	trace_progress(r, &done, &s->size);
	s->pending = taps;
	return s;
}

const struct trace_header *trace_share_header(const struct trace_share *s)
{
	return &s->hdr;
}

size_t trace_share_chunks(const struct trace_share *s)
{
	const struct share_chunk *c;
	size_t n = 0;

	for (c = s->head; c; c = c->next)
		n++;
	return n;
}

uint64_t trace_share_size(const struct trace_share *s)
{
	return s->size;
}

void trace_tap_progress(const struct trace_tap *t, uint64_t *done)
{
	const struct share_chunk *c = t->chunk;
	uint64_t total;

	if (t->direct) {
		trace_progress(t->s->r, done, &total);
		return;
	}
	*done = c->file_from + (c->len ? (uint64_t)((double)(c->file_to - c->file_from) *
						    (double)t->off / (double)c->len) : 0);
}

unsigned trace_share_opens(const struct trace_share *s)
{
	return s->opens;
}

static struct share_chunk *chunk_new(uint64_t file_at)
{
	struct share_chunk *c = xmalloc(sizeof(*c), "a shared trace's window");

	c->next = NULL;
	c->users = 0;
	c->len = 0;
	c->file_from = c->file_to = file_at;
	return c;
}

/* Free the chunks every tap has passed and none still to join needs. */
static void trim(struct trace_share *s)
{
	while (!s->pending && s->head != s->tail && !s->head->users) {
		struct share_chunk *c = s->head;

		s->head = c->next;
		free(c);
	}
}

static void close_reader(struct trace_share *s)
{
	trace_close(s->r);
	s->r = NULL;
}

static void free_window(struct trace_share *s)
{
	while (s->head) {
		struct share_chunk *c = s->head;

		s->head = c->next;
		free(c);
	}
	s->tail = NULL;
}

/* The whole trace is in the window, from its first event. */
static bool window_whole(const struct trace_share *s)
{
	return s->windowed && s->ended && s->head;
}

int trace_tap_join(struct trace_share *s, struct trace_tap *t, char *err, size_t errlen)
{
	if (s->alive && !s->windowed)
		abort();	/* a group read directly takes no other tap */
	if (!s->alive && !window_whole(s)) {
		/* a new group: its reader, and the window empty */
		free_window(s);
		if (!s->r) {
			s->r = trace_open(s->path, err, errlen);
			if (!s->r)
				return -1;
			s->opens++;
		}
		s->windowed = s->pending > 1;
		s->ended = s->failed = false;
		s->time_us = 0;
		if (s->windowed)
			s->head = s->tail = chunk_new(0);
	}
	if (s->pending)
		s->pending--;
	s->alive++;
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->direct = !s->windowed;
	if (t->direct) {
		trace_read_ahead(s->r);	/* a trace replayed once: decoded beside it */
	} else {
		t->chunk = s->head;
		t->chunk->users++;
		trim(s);	/* the last to join unpins the window's start */
	}
	return 0;
}

/* Decode the reader's next run of events into the window. */
static void fill(struct trace_share *s)
{
	const struct trace_event *ev;
	size_t n, i;
	int rc = trace_next_run(s->r, &ev, &n);
	uint64_t done, total;

	if (rc <= 0) {
		s->ended = true;
		s->failed = rc < 0;
		if (s->failed)
			snprintf(s->err, sizeof(s->err), "%s", trace_error(s->r));
		close_reader(s);	/* all it had is in the window */
		return;
	}
	for (i = 0; i < n; i++) {
		struct share_chunk *c = s->tail;

		if (CHUNK_BYTES - c->len < EVENT_MAX) {
			c = chunk_new(c->file_to);
			s->tail->next = c;
			s->tail = c;
		}
		c->len = (size_t)(encode(c->data + c->len, &ev[i], s->time_us) - c->data);
		s->time_us = ev[i].time_us;
	}
	trace_progress(s->r, &done, &total);
	s->tail->file_to = done;
}

int trace_tap_next(struct trace_tap *t, const struct trace_event **ev)
{
	struct trace_share *s = t->s;

	if (t->direct)
		return trace_next(s->r, ev);
	for (;;) {
		struct share_chunk *c = t->chunk;

		if (t->off < c->len) {
			t->off = (size_t)(decode(c->data + t->off, &t->ev, t->time_us) - c->data);
			t->time_us = t->ev.time_us;
			*ev = &t->ev;
			return 1;
		}
		if (c->next) {
			c->users--;
			c->next->users++;
			t->chunk = c->next;
			t->off = 0;
			trim(s);
			continue;
		}
		if (s->ended)
			return s->failed ? -1 : 0;
		fill(s);
	}
}

const char *trace_tap_error(const struct trace_tap *t)
{
	return t->direct ? trace_error(t->s->r) : t->s->err;
}

void trace_tap_leave(struct trace_tap *t)
{
	struct trace_share *s = t->s;

	if (!s)
		return;
	if (!t->direct)
		t->chunk->users--;
	t->s = NULL;
	if (--s->alive) {
		trim(s);
		return;
	}
	if (s->pending && window_whole(s))
		return;		/* kept for the copies to come */
	free_window(s);
	if (s->r)
		close_reader(s);
}

void trace_share_close(struct trace_share *s)
{
	if (!s)
		return;
	free_window(s);
	trace_close(s->r);
	free(s->path);
	free(s);
}
