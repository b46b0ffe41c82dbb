/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * buffer.c - the byte buffer the decoders (text.c, binary.c) read from, and
 * the reader's error message.  Bytes come through one large buffer, so
 * decoding makes no system call per event; a message names the file and
 * the place the decoder has reached (byte, line, header line or record).
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace/internal.h"

void reader_fail(struct trace_reader *r, const char *fmt, ...)
{
	char what[768], *c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	for (c = what; *c; c++)	/* quoted bad data must not upset a terminal */
		if ((unsigned char)*c < ' ' || (unsigned char)*c > '~')
			*c = '?';
	switch (r->place) {
	case AT_FILE:
		snprintf(r->err, sizeof(r->err), "%s: %s", r->path, what);
		break;
	case AT_BYTE:
		snprintf(r->err, sizeof(r->err), "%s: byte %llu: %s", r->path,
			 (unsigned long long)r->place_off, what);
		break;
	case AT_LINE:
		snprintf(r->err, sizeof(r->err), "%s:%llu: %s", r->path,
			 (unsigned long long)r->line, what);
		break;
	case AT_HEADER_LINE:
		snprintf(r->err, sizeof(r->err), "%s: header line %llu (byte %llu): %s",
			 r->path, (unsigned long long)r->line,
			 (unsigned long long)r->place_off, what);
		break;
	case AT_RECORD:
		snprintf(r->err, sizeof(r->err), "%s: record %llu (byte %llu): %s",
			 r->path, (unsigned long long)r->record,
			 (unsigned long long)r->place_off, what);
		break;
	}
	r->failed = 1;
}

/* Report why the data broke after the good bytes of chunk @c. */
static void report_broken(struct trace_reader *r, const struct input_chunk *c)
{
	if (r->binary) {	/* the place: where the good data ends */
		r->place = AT_BYTE;
		r->place_off = r->base + r->end;
	}
	if (c->errnum == Z_BUF_ERROR)	/* zlib's word for a cut-off stream */
		reader_fail(r, "truncated gzip stream (%s)", c->why);
	else if (c->errnum == Z_ERRNO)
		reader_fail(r, "read error: %s", strerror(c->sys_errno));
	else
		reader_fail(r, "corrupt gzip stream (%s)", c->why);
}

long reader_fill(struct trace_reader *r, size_t want)
{
	size_t have = r->end - r->pos;

	while (have < want && !r->eof && !r->broken) {
		/* no buffer before the first chunk: no pointer arithmetic on NULL */
		const struct input_chunk *c = input_next(r->in, r->buf ? r->buf + r->pos : NULL,
							 have);

		r->base += r->pos;
		r->buf = c->data - have;
		r->pos = 0;
		r->end = have + c->len;
		r->chunk_at = r->base + have;
		r->chunk_len = c->len;
		r->file_start = c->file_start;
		r->file_end = c->file_end;
		have = r->end;
		if (c->end && c->errnum == Z_OK)
			r->eof = 1;
		else if (c->end)
			r->broken = c;
	}
	if (have < want && r->broken) {
		report_broken(r, r->broken);
		return -1;
	}
	return (long)have;
}
