/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * writer.c - write a trace in the encoding its name asks for, under
 * a temporary name beside it that only a complete write renames into
 * place.  Every event passes the same checks as on reading.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/internal.h"
#include "util/cleanup.h"
#include "util/names.h"
#include "util/xalloc.h"

#define WRITE_BUF (256 * 1024)

struct trace_writer {
	gzFile gz;
	char *path, *tmp;
	int binary;
	struct trace_header h;
	struct trace_rules rules;
	struct trace_maps maps;		/* the rules between events */
	uint64_t prev_time;
	uint64_t count;
	unsigned char *buf;
	size_t used;
	char err[1024];
};

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

const char *const trace_suffixes[] = { ".trace", ".atr", ".trace.gz", ".atr.gz", NULL };

int trace_path_encoding(const char *path, int *binary, int *gz)
{
	size_t len = strlen(path);
	int i;

	for (i = 0; trace_suffixes[i]; i++)
		if (ends_with(path, len, trace_suffixes[i]) && len > strlen(trace_suffixes[i])) {
			*binary = i & 1;
			*gz = i >= 2;
			return 0;
		}
	return -1;
}

char *trace_suffix_error(const char *name, char *buf, size_t len)
{
	char list[NAMES_LIST_MAX];

	snprintf(buf, len, "%s must end in %s", name, names_or(trace_suffixes, list, sizeof(list)));
	return buf;
}

static void writer_fail(struct trace_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void writer_fail(struct trace_writer *w, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(w->err, sizeof(w->err), "%s: %s", w->path, what);
}

static void writer_free(struct trace_writer *w)
{
	if (w->gz)
		gzclose_w(w->gz);
	if (w->tmp) {
		unlink(w->tmp);
		cleanup_forget(w->tmp);
	}
	trace_maps_free(&w->maps);
	free(w->buf);
	free(w->tmp);
	free(w->path);
	free(w);
}

static int flush(struct trace_writer *w)
{
	int errnum;

	if (w->used && gzwrite(w->gz, w->buf, (unsigned)w->used) != (int)w->used) {
		const char *why = gzerror(w->gz, &errnum);

		writer_fail(w, "write failed: %s", errnum == Z_ERRNO ? strerror(errno) : why);
		return -1;
	}
	w->used = 0;
	return 0;
}

static int put(struct trace_writer *w, const void *p, size_t n)
{
	if (w->used + n > WRITE_BUF && flush(w))
		return -1;
	memcpy(w->buf + w->used, p, n);
	w->used += n;
	return 0;
}

/*
 * A header is writable when its text form parses back to the same header:
 * the one parser decides for both encodings.
 */
static int header_writable(struct trace_writer *w, const struct trace_header *h,
			   const char *text)
{
	struct header_parser p;
	struct trace_header back;
	char why[512], copy[TRACE_LINE_MAX];
	const char *line = text, *nl;
	unsigned i;
	int rc = 0;

	header_parser_init(&p, &back);
	while (rc == 0 && (nl = strchr(line, '\n'))) {
		if (nl - line >= TRACE_LINE_MAX) {
			writer_fail(w, "bad header: a line longer than %d bytes", TRACE_LINE_MAX);
			return -1;
		}
		memcpy(copy, line, (size_t)(nl - line));
		copy[nl - line] = '\0';
		if (strchr(copy, '#')) {
			writer_fail(w, "bad header: line '%.80s' holds a '#'", copy);
			return -1;
		}
		/* the parser cuts the line it parses */
		rc = header_parse_line(&p, copy, why, sizeof(why));
		line = nl + 1;
	}
	if (rc == 1)
		rc = header_parser_finish(&p, why, sizeof(why));
	if (rc) {
		writer_fail(w, "bad header: %s", why);
		return -1;
	}
	rc = back.version != h->version || back.page_size != h->page_size ||
	     back.memory != h->memory || back.nr_devices != h->nr_devices ||
	     back.readahead_kb != h->readahead_kb || strcmp(back.recorder, h->recorder) ||
	     strcmp(back.notes, h->notes) || strcmp(back.vmm, h->vmm) ||
	     strcmp(back.vmm_version, h->vmm_version);
	for (i = 0; !rc && i < h->nr_devices; i++)
		rc = strcmp(back.devices[i].name, h->devices[i].name) ||
		     back.devices[i].size != h->devices[i].size ||
		     strcmp(back.devices[i].backing, h->devices[i].backing) ||
		     strcmp(back.devices[i].cow, h->devices[i].cow) ||
		     back.devices[i].pmem != h->devices[i].pmem ||
		     back.devices[i].pmem_page != h->devices[i].pmem_page;
	if (rc) {
		writer_fail(w, "bad header: a field does not survive writing (spaces, empty note lines?)");
		return -1;
	}
	return 0;
}

struct trace_writer *trace_writer_open(const char *path, const struct trace_header *h,
				       char *err, size_t errlen)
{
	struct trace_writer *w = xcalloc(1, sizeof(*w), "a trace writer");
	char *text;
	size_t len;
	int gz, fd;

	w->path = xstrdup(path, "an output's name");
	w->buf = xmalloc(WRITE_BUF, "a trace writer's buffer");
	text = xmalloc(TRACE_HEADER_TEXT_MAX, "a trace's header");
	if (trace_path_encoding(path, &w->binary, &gz)) {
		char why[NAMES_LIST_MAX + 32];

		writer_fail(w, "%s", trace_suffix_error("name", why, sizeof(why)));
		goto fail;
	}
	if (h->version < TRACE_VERSION || h->version > TRACE_VERSION_MAX) {
		writer_fail(w, "bad header: version %u (this anonsim writes versions %d to %d)",
			    h->version, TRACE_VERSION, TRACE_VERSION_MAX);
		goto fail;
	}
	len = trace_format_header(h, text, TRACE_HEADER_TEXT_MAX);
	if (len >= TRACE_HEADER_TEXT_MAX || h->nr_devices > TRACE_MAX_DEVICES) {
		writer_fail(w, "bad header: too large");
		goto fail;
	}
	if (header_writable(w, h, text))
		goto fail;
	w->h = *h;
	trace_rules_init(&w->rules, &w->h);

	/* named only now: a failure before has no file to remove */
	fd = cleanup_temp_beside(path, &w->tmp);
	if (fd < 0) {
		writer_fail(w, "cannot create a temporary file beside it: %s", strerror(errno));
		goto fail;
	}
	w->gz = gzdopen(fd, gz ? "wb6" : "wbT");
	if (!w->gz) {
		close(fd);
		writer_fail(w, "cannot open for writing");
		goto fail;
	}
	gzbuffer(w->gz, 128 * 1024);
	if (w->binary) {
		unsigned char pre[TRACE_MAGIC_LEN + 8];
		size_t i;

		memcpy(pre, trace_magic, TRACE_MAGIC_LEN);
		for (i = 0; i < 4; i++) {
			pre[TRACE_MAGIC_LEN + i] = (unsigned char)(h->version >> 8 * i);
			pre[TRACE_MAGIC_LEN + 4 + i] = (unsigned char)(len >> 8 * i);
		}
		if (put(w, pre, sizeof(pre)))
			goto fail;
	}
	if (put(w, text, len))
		goto fail;
	free(text);
	return w;

fail:
	snprintf(err, errlen, "%s", w->err);
	free(text);
	writer_free(w);
	return NULL;
}

int trace_write(struct trace_writer *w, const struct trace_event *ev)
{
	char why[512];
	size_t n;

	if (w->err[0])
		return -1;
	if (trace_validate_event(&w->rules, w->prev_time, ev, why, sizeof(why)) ||
	    !trace_maps_apply(&w->maps, &w->rules, ev, 1, why, sizeof(why))) {
		writer_fail(w, "event %llu: %s", (unsigned long long)w->count, why);
		return -1;
	}
	if (w->used + TRACE_EVENT_TEXT_MAX > WRITE_BUF && flush(w))
		return -1;
	if (w->binary)
		n = binary_format_event(ev, w->prev_time, w->buf + w->used);
	else
		n = trace_format_event(&w->h, ev, (char *)w->buf + w->used, TRACE_EVENT_TEXT_MAX);
	w->used += n;
	w->prev_time = ev->time_us;
	w->count++;
	return 0;
}

int trace_writer_commit(struct trace_writer *w, char *err, size_t errlen)
{
	char why[512];
	uint64_t i;
	int rc;

	if (!w->err[0] && trace_maps_finish(&w->maps, &i, why, sizeof(why)))
		writer_fail(w, "event %llu: %s", (unsigned long long)i, why);
	if (!w->err[0] && !flush(w)) {
		rc = gzclose_w(w->gz);
		w->gz = NULL;
		if (rc != Z_OK)
			writer_fail(w, "write failed: %s", rc == Z_ERRNO ? strerror(errno) : "zlib failed");
		else if (rename(w->tmp, w->path))
			writer_fail(w, "cannot rename the temporary file into place: %s", strerror(errno));
		else {
			cleanup_forget(w->tmp);
			free(w->tmp);
			w->tmp = NULL;
		}
	}
	rc = w->err[0] ? -1 : 0;
	if (rc)
		snprintf(err, errlen, "%s", w->err);
	writer_free(w);
	return rc;
}

void trace_writer_abort(struct trace_writer *w)
{
	if (w)
		writer_free(w);
}
