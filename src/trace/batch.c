/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * batch.c - a reader's next batch from its own decoder: the events the
 * encoding's decoder fills, then the rules between events over them;
 * and how far into the file they reach.  The reader's thread runs it,
 * or the thread that decodes ahead of it (ahead.c).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "trace/internal.h"

void reader_progress(const struct trace_reader *r, uint64_t *done)
{
	uint64_t at = r->base + r->pos, into;

	if (r->eof && r->pos == r->end) {
		*done = r->file_size;
		return;
	}
	/* the file bytes behind the chunk, in proportion to the data decoded */
	into = at > r->chunk_at ? at - r->chunk_at : 0;
	if (into > r->chunk_len)
		into = r->chunk_len;
	*done = r->file_start + (r->chunk_len ? (uint64_t)((double)(r->file_end - r->file_start) *
				  (double)into / (double)r->chunk_len) : 0);
	if (*done > r->file_size)
		*done = r->file_size;
}

/* A rule between events broken by event @i, @ev: its place is its index and text. */
static void fail_event(struct trace_reader *r, uint64_t i, const struct trace_event *ev,
		       const char *why)
{
	char text[TRACE_EVENT_TEXT_MAX];

	trace_format_event(&r->h, ev, text, sizeof(text));
	text[strcspn(text, "\n")] = '\0';
	snprintf(r->err, sizeof(r->err), "%s: event %llu (%s): %s", r->path,
		 (unsigned long long)i, text, why);
	r->failed = 1;
}

/*
 * The rules between events, over the batch just decoded: the events before
 * one that breaks them are handed out, then the error.  Its place is the
 * event's index and text, as the decoders have moved on.  -1 if the
 * batch's first event breaks them.
 */
static int check_between(struct trace_reader *r)
{
	size_t n = (size_t)(r->out.end - r->batch), k;
	char why[512];

	k = trace_maps_apply(&r->maps, &r->rules, r->batch, n, why, sizeof(why));
	if (k < n) {
		fail_event(r, r->handed + k, &r->batch[k], why);
		r->out.end = r->batch + k;
	}
	r->handed += k;
	return k == 0 && n ? -1 : 0;
}

/* At the clean end: a request without a part breaks the rules.  0 or -1. */
static int check_end(struct trace_reader *r)
{
	const struct trace_event *ev;
	char why[512];
	uint64_t i;

	ev = trace_maps_finish(&r->maps, &i, why, sizeof(why));
	if (!ev)
		return 0;
	fail_event(r, i, ev, why);
	return -1;
}

int reader_next_batch(struct trace_reader *r, const struct trace_event **ev)
{
	int rc;

	if (r->failed)
		return -1;
	r->out.next = r->out.end = r->batch;
	rc = r->binary ? binary_fill(r) : text_fill(r);
	if (!rc)
		return check_end(r);
	if (rc < 0)
		return rc;
	if (check_between(r))
		return -1;
	*ev = r->out.next++;
	return 1;
}
