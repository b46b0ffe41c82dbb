/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * text.c - the text encoding: decode lines into events, format
 * events as lines.  Parsing is by hand (no sscanf): this is a hot path.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "trace/internal.h"
#include "util/names.h"

/*
 * The next line as a NUL-terminated string with its comment cut off, or
 * NULL at the end of the data or on error (r->failed tells which).
 */
static char *next_line(struct trace_reader *r)
{
	size_t have, len;
	char *s, *nl, *hash;

	for (;;) {
		s = (char *)r->buf + r->pos;
		have = r->end - r->pos;
		nl = memchr(s, '\n', have < TRACE_LINE_MAX ? have : TRACE_LINE_MAX);
		if (nl) {
			len = (size_t)(nl - s);
			r->pos += len + 1;
			break;
		}
		if (have >= TRACE_LINE_MAX) {
			r->line++;
			reader_fail(r, "line longer than %d bytes", TRACE_LINE_MAX);
			return NULL;
		}
		if (r->eof) {
			if (!have)
				return NULL;
			len = have;	/* a last line without its newline */
			r->pos = r->end;
			break;
		}
		/* a failure to read more is reported at the line being read */
		r->line++;
		if (reader_fill(r, have + 1) < 0)
			return NULL;
		r->line--;
	}
	r->line++;
	s[len] = '\0';
	if (strlen(s) != len) {
		reader_fail(r, "NUL byte in a text line");
		return NULL;
	}
	hash = memchr(s, '#', len);
	if (hash)
		*hash = '\0';
	return s;
}

int text_read_header(struct trace_reader *r)
{
	struct header_parser p;
	char why[512], *line;
	int rc;

	header_parser_init(&p, &r->h);
	r->place = AT_LINE;
	for (;;) {
		line = next_line(r);
		if (!line) {
			if (r->failed)
				return -1;
			if (!p.seen_version)
				reader_fail(r, "empty trace: no 'anonsim-trace %d' line", TRACE_VERSION);
			else
				reader_fail(r, "header not ended by an 'events' line");
			return -1;
		}
		rc = header_parse_line(&p, line, why, sizeof(why));
		if (rc < 0) {
			reader_fail(r, "%s", why);
			return -1;
		}
		if (rc == 1)
			break;
	}
	if (header_parser_finish(&p, why, sizeof(why))) {
		reader_fail(r, "%s", why);
		return -1;
	}
	return 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Split @s into at most @max words; returns max + 1 if there are more. */
static int split(char *s, char **w, int max)
{
	int n = 0;

	for (;;) {
		while (is_space(*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s && !is_space(*s))
			s++;
		if (!*s)
			return n;
		*s++ = '\0';
	}
}

/* A decimal number that fills the whole word. */
static int dec(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned d;

	do {
		d = (unsigned)(*s - '0');
		if (d > 9 || v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return -1;
		v = v * 10 + d;
	} while (*++s);
	*out = v;
	return 0;
}

/* An address: decimal or 0x hexadecimal. */
static int address(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned d;
	int n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return dec(s, out);
	for (s += 2; *s; s++, n++) {
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			d = (unsigned)((*s | 0x20) - 'a' + 10);
		else
			return -1;
		if (v >> 60)
			return -1;
		v = v << 4 | d;
	}
	if (!n)
		return -1;
	*out = v;
	return 0;
}

/* The kind named @w among the @nr_kinds of the trace's version, or -1. */
static int kind_of(const char *w, int nr_kinds)
{
	int k;

	for (k = 0; k < nr_kinds; k++)
		if (w[0] == trace_kind_names[k][0] && !strcmp(w, trace_kind_names[k]))
			return k;
	return -1;
}

/* The words each kind takes after TIME KIND, for messages. */
static const char *const kind_fields[EV_NR_KINDS] = {
	[EV_READ] = "DEVICE OFFSET LENGTH PAGE", [EV_WRITE] = "DEVICE OFFSET LENGTH PAGE",
	[EV_TOUCH] = "PAGE COUNT", [EV_FREE] = "PAGE COUNT",
	[EV_MMAP] = "ADDRESS LENGTH OFFSET", [EV_MUNMAP] = "ADDRESS LENGTH",
	[EV_MAPDUP] = "ADDRESS LENGTH OFFSET", [EV_PHASE] = "NAME",
	[EV_FOOTPRINT] = "WHAT PAGES", [EV_HOST] = "PAGES [ANON]",
	[EV_DISCARD] = "PAGE COUNT", [EV_REQUEST] = "DEVICE OFFSET LENGTH",
};
static const int kind_nfields[EV_NR_KINDS] = {
	[EV_READ] = 4, [EV_WRITE] = 4, [EV_TOUCH] = 2, [EV_FREE] = 2,
	[EV_MMAP] = 3, [EV_MUNMAP] = 2, [EV_MAPDUP] = 3, [EV_PHASE] = 1,
	[EV_FOOTPRINT] = 2, [EV_HOST] = 1, [EV_DISCARD] = 2, [EV_REQUEST] = 3,
};

#define BAD_NUMBER(what, w) \
	(reader_fail(r, "%s: %s '%.40s' is not a number", trace_kind_names[k], what, w), -1)

static int text_next(struct trace_reader *r, struct trace_event *ev)
{
	char *line, *w[7], why[512];
	int n, k, dev;

	for (;;) {
		line = next_line(r);
		if (!line)
			return r->failed ? -1 : 0;
		n = split(line, w, 6);
		if (n)
			break;
	}
	if (dec(w[0], &ev->time_us)) {
		reader_fail(r, "time '%.40s' is not a number", w[0]);
		return -1;
	}
	if (n < 2) {
		reader_fail(r, "missing event kind after the time");
		return -1;
	}
	k = kind_of(w[1], (int)r->nr_kinds);
	if (k < 0) {
		const char *names[EV_NR_KINDS + 1];
		char kinds[NAMES_LIST_MAX];

		/* the kinds of this trace's version */
		memcpy(names, trace_kind_names, r->nr_kinds * sizeof(*names));
		names[r->nr_kinds] = NULL;
		reader_fail(r, "unknown event kind '%.40s': expected %s", w[1],
			    names_or(names, kinds, sizeof(kinds)));
		return -1;
	}
	/* host alone has an optional field: ANON, 0 when left out */
	if (n - 2 != kind_nfields[k] && !(k == EV_HOST && n - 2 == 2)) {
		reader_fail(r, "%s: expected %s", trace_kind_names[k], kind_fields[k]);
		return -1;
	}
	ev->kind = (enum trace_kind)k;
	ev->dev = 0;
	ev->page = ev->count = ev->offset = ev->length = ev->addr = 0;
	ev->name[0] = '\0';
	switch (k) {
	case EV_READ:
	case EV_WRITE:
	case EV_REQUEST:
		dev = trace_device_index(&r->h, w[2]);
		if (dev < 0) {
			reader_fail(r, "%s: unknown device '%.40s'", trace_kind_names[k], w[2]);
			return -1;
		}
		ev->dev = (uint32_t)dev;
		if (dec(w[3], &ev->offset))
			return BAD_NUMBER("OFFSET", w[3]);
		if (dec(w[4], &ev->length))
			return BAD_NUMBER("LENGTH", w[4]);
		if (k != EV_REQUEST && dec(w[5], &ev->page))
			return BAD_NUMBER("PAGE", w[5]);
		break;
	case EV_TOUCH:
	case EV_FREE:
	case EV_DISCARD:
		if (dec(w[2], &ev->page))
			return BAD_NUMBER("PAGE", w[2]);
		if (dec(w[3], &ev->count))
			return BAD_NUMBER("COUNT", w[3]);
		break;
	case EV_MMAP:
	case EV_MAPDUP:
		if (dec(w[4], &ev->offset))
			return BAD_NUMBER("OFFSET", w[4]);
		/* fall through */
	case EV_MUNMAP:
		if (address(w[2], &ev->addr))
			return BAD_NUMBER("ADDRESS", w[2]);
		if (dec(w[3], &ev->length))
			return BAD_NUMBER("LENGTH", w[3]);
		break;
	case EV_PHASE:
	case EV_FOOTPRINT:
		if (strlen(w[2]) >= TRACE_NAME_MAX) {
			reader_fail(r, "%s: name longer than %d bytes", trace_kind_names[k],
				    TRACE_NAME_MAX - 1);
			return -1;
		}
		strcpy(ev->name, w[2]);
		if (k == EV_FOOTPRINT && dec(w[3], &ev->count))
			return BAD_NUMBER("PAGES", w[3]);
		break;
	case EV_HOST:
		if (dec(w[2], &ev->count))
			return BAD_NUMBER("PAGES", w[2]);
		if (n == 4 && dec(w[3], &ev->anon))
			return BAD_NUMBER("ANON", w[3]);
		break;
	}
	if (trace_validate_event(&r->rules, r->prev_time, ev, why, sizeof(why))) {
		reader_fail(r, "%s", why);
		return -1;
	}
	r->prev_time = ev->time_us;
	return 1;
}

size_t trace_format_event(const struct trace_header *h,
			  const struct trace_event *ev, char *buf, size_t len)
{
	unsigned long long t = ev->time_us;
	const char *k = (unsigned)ev->kind < EV_NR_KINDS ? trace_kind_names[ev->kind] : "?";
	int n;

	switch (ev->kind) {
	case EV_READ:
	case EV_WRITE:
		n = snprintf(buf, len, "%llu %s %s %llu %llu %llu\n", t, k,
			     ev->dev < h->nr_devices ? h->devices[ev->dev].name : "?",
			     (unsigned long long)ev->offset, (unsigned long long)ev->length,
			     (unsigned long long)ev->page);
		break;
	case EV_REQUEST:
		n = snprintf(buf, len, "%llu %s %s %llu %llu\n", t, k,
			     ev->dev < h->nr_devices ? h->devices[ev->dev].name : "?",
			     (unsigned long long)ev->offset, (unsigned long long)ev->length);
		break;
	case EV_TOUCH:
	case EV_FREE:
	case EV_DISCARD:
		n = snprintf(buf, len, "%llu %s %llu %llu\n", t, k,
			     (unsigned long long)ev->page, (unsigned long long)ev->count);
		break;
	case EV_MMAP:
	case EV_MAPDUP:
		n = snprintf(buf, len, "%llu %s 0x%llx %llu %llu\n", t, k,
			     (unsigned long long)ev->addr, (unsigned long long)ev->length,
			     (unsigned long long)ev->offset);
		break;
	case EV_MUNMAP:
		n = snprintf(buf, len, "%llu %s 0x%llx %llu\n", t, k,
			     (unsigned long long)ev->addr, (unsigned long long)ev->length);
		break;
	case EV_PHASE:
		n = snprintf(buf, len, "%llu %s %.*s\n", t, k, TRACE_NAME_MAX - 1, ev->name);
		break;
	case EV_FOOTPRINT:
		n = snprintf(buf, len, "%llu %s %.*s %llu\n", t, k, TRACE_NAME_MAX - 1,
			     ev->name, (unsigned long long)ev->count);
		break;
	case EV_HOST:
		if (ev->anon)
			n = snprintf(buf, len, "%llu %s %llu %llu\n", t, k,
				     (unsigned long long)ev->count, (unsigned long long)ev->anon);
		else
			n = snprintf(buf, len, "%llu %s %llu\n", t, k, (unsigned long long)ev->count);
		break;
	default:
		n = snprintf(buf, len, "%llu ?\n", t);
		break;
	}
	return n > 0 ? (size_t)n : 0;
}

int text_fill(struct trace_reader *r)
{
	int rc = text_next(r, &r->batch[0]);

	r->out.end = r->batch + (rc > 0);
	return rc;
}
