/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reader.c - open a trace (text or binary, plain or gzip: input.c
 * inflates gzip data, every member), tell the encodings apart by the first
 * byte, and hand out events from the decoder of that encoding (batch.c),
 * or from the thread that decodes them ahead on another CPU (ahead.c).
 * The decoders take their bytes from the reader's buffer (buffer.c).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/internal.h"
#include "util/util.h"
#include "util/xalloc.h"

/* Is the data at @fd gzip-compressed?  Peeked without moving the offset. */
static int looks_gzip(int fd)
{
	unsigned char magic[2];

	return pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

static struct trace_reader *reader_start(int fd, const char *name,
					 char *err, size_t errlen)
{
	struct trace_reader *r = xcalloc(1, sizeof(*r), "a trace reader");
	int gzip = looks_gzip(fd);
	struct stat st;
	int big;
	unsigned char c;
	long n;
	int rc;

	/* More than the first chunk, compressed about four to one. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		r->file_size = (uint64_t)st.st_size;
	big = r->file_size > (gzip ? INPUT_FIRST_CHUNK / 4 : INPUT_FIRST_CHUNK);
	r->path = xstrdup(name, "a trace's name");
	r->batch = r->batch_mem;
	r->gzip = gzip;
	r->in = input_open(fd, gzip, big);
	r->place = AT_FILE;
	n = reader_fill(r, 1);
	if (n == 0)
		reader_fail(r, "empty file");
	if (n <= 0) {
		snprintf(err, errlen, "%s", r->err);
		trace_close(r);
		return NULL;
	}
	/* Text starts with a printable byte; binary with a magic that is not. */
	c = r->buf[r->pos];
	r->binary = !(c == '\t' || c == '\n' || c == '\r' || (c >= ' ' && c < 0x7f));
	rc = r->binary ? binary_read_header(r) : text_read_header(r);
	if (rc) {
		snprintf(err, errlen, "%s", r->err);
		trace_close(r);
		return NULL;
	}
	trace_rules_init(&r->rules, &r->h);
	r->nr_kinds = trace_kinds_of_version(r->h.version);
	if (r->binary)
		binary_shapes_init(r);
	return r;
}

struct trace_reader *trace_open(const char *path, char *err, size_t errlen)
{
	const char *file = path;
	int fd;

	if (!strcmp(path, "-")) {
		file = trace_stdin_path(err, errlen);
		if (!file)
			return NULL;
		path = input_name(path);
	}
	fd = open(file, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return reader_start(fd, path, err, errlen);
}

struct trace_reader *trace_open_fd(int fd, const char *name, char *err, size_t errlen)
{
	return reader_start(fd, name, err, errlen);
}

const struct trace_header *trace_header(const struct trace_reader *r)
{
	return &r->h;
}

void trace_progress(const struct trace_reader *r, uint64_t *done, uint64_t *total)
{
	*total = r->file_size;
	if (r->ahead)
		ahead_progress(r, done);
	else
		reader_progress(r, done);
}

int trace_is_binary(const struct trace_reader *r)
{
	return r->binary;
}

int trace_next_batch(struct trace_reader *r, const struct trace_event **ev)
{
	return r->ahead ? ahead_next_batch(r, ev) : reader_next_batch(r, ev);
}

int trace_next_run(struct trace_reader *r, const struct trace_event **ev, size_t *n)
{
	int rc = trace_next(r, ev);

	if (rc <= 0)
		return rc;
	*n = (size_t)(r->out.end - *ev);
	r->out.next = r->out.end;
	return 1;
}

const char *trace_error(const struct trace_reader *r)
{
	return r->err;
}

void trace_close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->ahead) {
		ahead_close(r);		/* the decoder's input and rules */
	} else {
		input_close(r->in);
		trace_maps_free(&r->maps);
	}
	free(r->path);
	free(r);
}
