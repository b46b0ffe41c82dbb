/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ahead.c - a trace decoded on another CPU than the one that uses it.
 *
 * A replay of a plain binary trace spent about a fifth of its thread
 * decoding and checking events, while the thread that reads the file
 * ahead sat idle.  Here a thread runs the reader's own decoder and rules
 * (a copy of the reader, its decoder's) into a ring of slots of events,
 * and the caller's reader hands them out as its batches.  Handing events
 * to another CPU costs about 2 ns an event (bench/handoff), decoding them
 * several times that.  The decoder writes each batch straight into its
 * slot, so nothing is copied; the events and errors are the reader's
 * own, in the same order, and an error ends the slot whose events came
 * before it.
 */
#include <config.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "trace/internal.h"
#include "util/handoff.h"
#include "util/util.h"
#include "util/xalloc.h"

#define AHEAD_SLOTS 8
#define SLOT_EVENTS 2048
/*
 * Wake a sleeping decoder only when this many slots are free: it wakes
 * in some hundreds of microseconds on a virtual machine, while the
 * caller still has half the ring (8192 events) to use.
 */
#define WAKE_FREE (AHEAD_SLOTS / 2)
#define SPIN_US 300

struct ahead_slot {
	size_t n;		/* events */
	int rc;			/* after them: 1 more follow, 0 the clean end, -1 an error */
	uint64_t done;		/* trace_progress after the last */
	struct trace_event ev[SLOT_EVENTS];
};

_Static_assert(AHEAD_SLOTS * sizeof(struct ahead_slot) <= RING_BYTES,
	       "the slots fit the ring's block");

struct trace_ahead {
	struct trace_reader *dec;	/* the decoder's reader: its thread's alone */
	struct ahead_slot *slots;	/* in a ring_alloc() block */
	pthread_t thread;
	struct handoff filled, freed;	/* the caller's wait; the decoder's */
	atomic_uint produced, released, stop;
	unsigned taken;			/* the caller's: slots taken so far */
	int holding;			/* slot taken - 1 is being handed out */
	int ended;			/* the decoder's last slot is used up */
	uint64_t done;			/* progress at the held slot's end */
};

static int slot_free(void *arg)
{
	struct trace_ahead *a = arg;

	return handoff_load(&a->produced) - handoff_load(&a->released) < AHEAD_SLOTS ||
	       handoff_load(&a->stop);
}

static int slot_filled(void *arg)
{
	struct trace_ahead *a = arg;

	return handoff_load(&a->produced) != a->taken;
}

static void *decode_ahead(void *arg)
{
	struct trace_ahead *a = arg;
	struct trace_reader *d = a->dec;
	const struct trace_event *ev;
	unsigned k = 0;
	int rc = 1;

	cpu_unpin();
	while (rc > 0) {
		struct ahead_slot *s;

		handoff_wait(&a->freed, slot_free, a, 0);
		if (handoff_load(&a->stop))
			break;
		s = &a->slots[k % AHEAD_SLOTS];
		s->n = 0;
		do {
			d->batch = s->ev + s->n;	/* decoded in place */
			rc = reader_next_batch(d, &ev);
			if (rc > 0) {
				s->n += (size_t)(d->out.end - d->batch);
				d->out.next = d->out.end;
			}
		} while (rc > 0 && s->n + TRACE_BATCH <= SLOT_EVENTS);
		reader_progress(d, &s->done);
		s->rc = rc;
		handoff_store(&a->produced, ++k);
		handoff_wake(&a->filled);
	}
	return NULL;
}

/*
 * One decoding thread in the process at a time: replays of several
 * traces at once, or a sweep's replays side by side, would otherwise
 * start more threads than there are CPUs, each spinning for its slots.
 */
static atomic_int decoders;

int trace_read_ahead(struct trace_reader *r)
{
	const char *off = getenv("ANONSIM_READAHEAD");
	struct trace_ahead *a;
	int rc;

	if (r->ahead || !r->binary || r->gzip || r->failed || r->file_size <= INPUT_FIRST_CHUNK ||
	    r->out.next != r->out.end || (off && !strcmp(off, "0")) || cpus_allowed() < 2)
		return 0;
	if (atomic_fetch_add(&decoders, 1)) {
		atomic_fetch_sub(&decoders, 1);
		return 0;
	}
	a = xcalloc(1, sizeof(*a), "a trace's decoding thread");
	a->slots = (struct ahead_slot *)(void *)ring_alloc();
	if (!a->slots) {
		free(a);
		atomic_fetch_sub(&decoders, 1);
		return 0;
	}
	a->dec = xmalloc(sizeof(*a->dec), "a trace's decoder");
	*a->dec = *r;		/* its input, decoder and rules go with it */
	a->dec->batch = a->dec->batch_mem;
	reader_progress(r, &a->done);
	handoff_init(&a->filled);
	handoff_init(&a->freed);
	rc = thread_start_elsewhere(&a->thread, decode_ahead, a);
	if (rc) {
		handoff_destroy(&a->freed);
		handoff_destroy(&a->filled);
		free(a->dec);
		ring_free((unsigned char *)a->slots);
		free(a);
		atomic_fetch_sub(&decoders, 1);
		return 0;
	}
	r->in = NULL;
	r->ahead = a;
	return 1;
}

/* The held slot goes back to the decoder. */
static void release(struct trace_ahead *a)
{
	handoff_store(&a->released, a->taken);
	a->holding = 0;
	if (AHEAD_SLOTS - (handoff_load(&a->produced) - a->taken) >= WAKE_FREE)
		handoff_wake(&a->freed);
}

/* The decoder has stopped (its thread has ended): its end is the reader's. */
static int end(struct trace_reader *r, int rc)
{
	struct trace_ahead *a = r->ahead;

	a->ended = 1;
	if (rc < 0) {
		memcpy(r->err, a->dec->err, sizeof(r->err));
		r->failed = 1;
	}
	return rc;
}

int ahead_next_batch(struct trace_reader *r, const struct trace_event **ev)
{
	struct trace_ahead *a = r->ahead;
	const struct ahead_slot *s;

	for (;;) {
		if (a->holding) {
			int rc = a->slots[(a->taken - 1) % AHEAD_SLOTS].rc;

			release(a);
			if (rc <= 0)
				return end(r, rc);
		}
		if (a->ended)
			return r->failed ? -1 : 0;
		handoff_wait(&a->filled, slot_filled, a, SPIN_US);
		s = &a->slots[a->taken++ % AHEAD_SLOTS];
		a->holding = 1;
		a->done = s->done;
		if (s->n) {
			*ev = s->ev;
			r->out.next = s->ev + 1;
			r->out.end = s->ev + s->n;
			return 1;
		}
	}
}

void ahead_progress(const struct trace_reader *r, uint64_t *done)
{
	*done = r->ahead->done;
}

void ahead_close(struct trace_reader *r)
{
	struct trace_ahead *a = r->ahead;

	handoff_store(&a->stop, 1);
	handoff_wake(&a->freed);
	pthread_join(a->thread, NULL);	/* it ends after at most one slot */
	handoff_destroy(&a->freed);
	handoff_destroy(&a->filled);
	input_close(a->dec->in);
	trace_maps_free(&a->dec->maps);
	free(a->dec);
	ring_free((unsigned char *)a->slots);
	free(a);
	r->ahead = NULL;
	atomic_fetch_sub(&decoders, 1);
}
