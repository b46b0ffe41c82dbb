/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * header.c - the trace header: one parser for the header lines of
 * both encodings (text lines; the binary header block holds the same
 * lines), and their formatting.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace/internal.h"
#include "util/util.h"

const char *const trace_kind_names[EV_NR_KINDS + 1] = {
	[EV_READ] = "read", [EV_WRITE] = "write", [EV_TOUCH] = "touch",
	[EV_FREE] = "free", [EV_MMAP] = "mmap", [EV_MUNMAP] = "munmap",
	[EV_MAPDUP] = "mapdup", [EV_PHASE] = "phase",
	[EV_FOOTPRINT] = "footprint", [EV_HOST] = "host", [EV_DISCARD] = "discard",
	[EV_REQUEST] = "request",
};

unsigned trace_kinds_of_version(unsigned version)
{
	return version >= 2 ? EV_NR_KINDS : EV_DISCARD;
}

unsigned trace_header_version(const struct trace_header *h)
{
	unsigned i;

	for (i = 0; i < h->nr_devices && i < TRACE_MAX_DEVICES; i++)
		if (h->devices[i].pmem)
			return 2;
	return h->vmm[0] ? 2 : 1;
}

int trace_name_ok(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~' || name[i] == '#')
			return 0;
	return len > 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Cut the next whitespace-separated word out of *s; NULL when none left. */
static char *next_word(char **s)
{
	char *p = *s, *w;

	while (is_space(*p))
		p++;
	if (!*p)
		return *s = p, NULL;
	w = p;
	while (*p && !is_space(*p))
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return w;
}

/* The rest of the line, without surrounding whitespace. */
static char *rest_of_line(char *s)
{
	char *e;

	while (is_space(*s))
		s++;
	e = s + strlen(s);
	while (e > s && is_space(e[-1]))
		*--e = '\0';
	return s;
}

/* An opaque identity: one printable word, no '#'. */
static int word_ok(const char *w, size_t max)
{
	size_t n = strlen(w);

	return n > 0 && n < max && trace_name_ok(w, n);
}

static int parse_device(struct trace_header *h, char *s, char *why, size_t len)
{
	struct trace_device *d;
	char *name = next_word(&s), *kv;
	int seen_size = 0;
	const uint64_t max_pages = TRACE_GUEST_PHYS_MAX / TRACE_PAGE_SIZE;
	unsigned i;

	if (!name)
		return set_error(why, len, "device: missing name");
	if (h->nr_devices == TRACE_MAX_DEVICES)
		return set_error(why, len, "more than %d devices", TRACE_MAX_DEVICES);
	if (!word_ok(name, TRACE_NAME_MAX))
		return set_error(why, len, "device name '%.80s' is not one word of 1-%d printable characters",
			    name, TRACE_NAME_MAX - 1);
	for (i = 0; i < h->nr_devices; i++)
		if (!strcmp(h->devices[i].name, name))
			return set_error(why, len, "device '%s' named twice", name);
	d = &h->devices[h->nr_devices];
	memset(d, 0, sizeof(*d));
	strcpy(d->name, name);
	while ((kv = next_word(&s))) {
		char *val = strchr(kv, '=');

		if (!val)
			return set_error(why, len, "device %s: '%.80s' is not key=value", d->name, kv);
		*val++ = '\0';
		if (!strcmp(kv, "size")) {
			if (seen_size++)
				return set_error(why, len, "device %s: size given twice", d->name);
			if (parse_uint(val, TRACE_SIZE_MAX, &d->size) || !d->size ||
			    d->size % 512)
				return set_error(why, len, "device %s: size '%.80s' is not a positive multiple of 512 up to %llu",
					    d->name, val, (unsigned long long)TRACE_SIZE_MAX);
		} else if (!strcmp(kv, "backing") || !strcmp(kv, "cow")) {
			char *dst = kv[0] == 'b' ? d->backing : d->cow;

			if (*dst)
				return set_error(why, len, "device %s: %s given twice", d->name, kv);
			if (!word_ok(val, sizeof(d->backing)))
				return set_error(why, len, "device %s: %s is not one word of 1-%zu printable characters",
					    d->name, kv, sizeof(d->backing) - 1);
			strcpy(dst, val);
		} else if (!strcmp(kv, "pmem") && h->version >= 2) {
			if (d->pmem++)
				return set_error(why, len, "device %s: pmem given twice", d->name);
			if (parse_uint(val, max_pages - 1, &d->pmem_page))
				return set_error(why, len, "device %s: pmem '%.80s' is not a page number below %llu",
					    d->name, val, (unsigned long long)max_pages);
		} else {
			return set_error(why, len, "device %s: unknown key '%.80s'", d->name, kv);
		}
	}
	if (!seen_size)
		return set_error(why, len, "device %s: missing size=", d->name);
	if (!d->backing[0])
		return set_error(why, len, "device %s: missing backing=", d->name);
	if (d->pmem && d->size % TRACE_PAGE_SIZE)
		return set_error(why, len, "device %s: a pmem device's size must be a multiple of %d",
			    d->name, TRACE_PAGE_SIZE);
	if (d->pmem && d->size / TRACE_PAGE_SIZE > max_pages - d->pmem_page)
		return set_error(why, len, "device %s: pmem window %llu+%llu pages past 2^%d bytes of guest physical memory",
			    d->name, (unsigned long long)d->pmem_page,
			    (unsigned long long)(d->size / TRACE_PAGE_SIZE), TRACE_GUEST_PHYS_SHIFT);
	h->nr_devices++;
	return 0;
}

/* A keyword with a single number after it. */
static int parse_number_field(const char *key, char *s, uint64_t max,
			      uint64_t *out, char *why, size_t len)
{
	char *v = next_word(&s);

	if (!v)
		return set_error(why, len, "%s: missing value", key);
	if (next_word(&s))
		return set_error(why, len, "%s: more than one value", key);
	if (parse_uint(v, max, out))
		return set_error(why, len, "%s: '%.80s' is not a number up to %llu",
			    key, v, (unsigned long long)max);
	return 0;
}

/* "vmm NAME VERSION": two words of the name alphabet. */
static int parse_vmm(struct header_parser *p, char *s, char *why, size_t len)
{
	struct trace_header *h = p->h;
	char *name = next_word(&s), *version = next_word(&s);

	if (p->seen_vmm++)
		return set_error(why, len, "vmm given twice");
	if (!version || next_word(&s))
		return set_error(why, len, "vmm: expected NAME VERSION");
	if (!word_ok(name, sizeof(h->vmm)) || !word_ok(version, sizeof(h->vmm_version)))
		return set_error(why, len, "vmm: NAME and VERSION are each one word of 1-%d printable characters",
			    TRACE_NAME_MAX - 1);
	strcpy(h->vmm, name);
	strcpy(h->vmm_version, version);
	return 0;
}

void header_parser_init(struct header_parser *p, struct trace_header *h)
{
	memset(p, 0, sizeof(*p));
	memset(h, 0, sizeof(*h));
	h->readahead_kb = -1;
	p->h = h;
}

int header_parse_line(struct header_parser *p, char *line, char *why, size_t len)
{
	struct trace_header *h = p->h;
	char *s = line, *key = next_word(&s);
	uint64_t v;

	p->lines++;
	if (!key)
		return 0;
	if (!p->seen_version) {
		if (strcmp(key, "anonsim-trace"))
			return set_error(why, len, "not an anonsim trace: expected 'anonsim-trace %d', found '%.80s'",
				    TRACE_VERSION, key);
		if (parse_number_field(key, s, UINT32_MAX, &v, why, len))
			return -1;
		if (v < TRACE_VERSION || v > TRACE_VERSION_MAX)
			return set_error(why, len, "unknown version %llu (this anonsim reads versions %d to %d)",
				    (unsigned long long)v, TRACE_VERSION, TRACE_VERSION_MAX);
		h->version = (unsigned)v;
		p->seen_version = 1;
		return 0;
	}
	if (!strcmp(key, "events")) {
		if (next_word(&s))
			return set_error(why, len, "events: unexpected text after it");
		return 1;
	}
	if (!strcmp(key, "page-size")) {
		if (p->seen_page_size++)
			return set_error(why, len, "page-size given twice");
		if (parse_number_field(key, s, TRACE_PAGE_SIZE_MAX, &v, why, len))
			return -1;
		/* the one page size the model knows: others cannot be replayed */
		if (v != TRACE_PAGE_SIZE)
			return set_error(why, len, "page-size %llu: only %d-byte pages are modelled",
				    (unsigned long long)v, TRACE_PAGE_SIZE);
		h->page_size = (uint32_t)v;
		return 0;
	}
	if (!strcmp(key, "memory")) {
		if (p->seen_memory++)
			return set_error(why, len, "memory given twice");
		if (parse_number_field(key, s, TRACE_SIZE_MAX, &h->memory, why, len))
			return -1;
		if (!h->memory)
			return set_error(why, len, "memory is 0");
		return 0;
	}
	if (!strcmp(key, "device"))
		return parse_device(h, s, why, len);
	if (!strcmp(key, "readahead-kb")) {
		if (p->seen_readahead++)
			return set_error(why, len, "readahead-kb given twice");
		if (parse_number_field(key, s, TRACE_READAHEAD_MAX, &v, why, len))
			return -1;
		h->readahead_kb = (int64_t)v;
		return 0;
	}
	if (!strcmp(key, "recorder")) {
		char *text = rest_of_line(s);

		if (p->seen_recorder++)
			return set_error(why, len, "recorder given twice");
		if (!utf8_valid(text))
			return set_error(why, len, "recorder is not valid UTF-8");
		if (strlen(text) >= sizeof(h->recorder))
			return set_error(why, len, "recorder longer than %zu bytes", sizeof(h->recorder) - 1);
		strcpy(h->recorder, text);
		return 0;
	}
	if (!strcmp(key, "vmm") && h->version >= 2)
		return parse_vmm(p, s, why, len);
	if (!strcmp(key, "note")) {
		char *text = rest_of_line(s);
		size_t have = strlen(h->notes), add = strlen(text);

		if (!add)	/* an empty note says nothing */
			return 0;
		if (!utf8_valid(text))
			return set_error(why, len, "note is not valid UTF-8");
		if (have + (have > 0) + add >= sizeof(h->notes))
			return set_error(why, len, "notes longer than %zu bytes in all", sizeof(h->notes) - 1);
		if (have)
			h->notes[have++] = '\n';
		memcpy(h->notes + have, text, add + 1);
		return 0;
	}
	return set_error(why, len, "unknown header field '%.80s'", key);
}

/* Each pmem window lies past physical memory and clear of the others. */
static int pmem_windows_ok(const struct trace_header *h, char *why, size_t len)
{
	uint64_t mem_pages = h->memory / h->page_size;
	unsigned i, j;

	for (i = 0; i < h->nr_devices; i++) {
		const struct trace_device *d = &h->devices[i];
		uint64_t pages = d->size / h->page_size;

		if (!d->pmem)
			continue;
		if (d->pmem_page < mem_pages)
			return set_error(why, len, "device %s: pmem window at page %llu inside physical memory (%llu pages)",
				    d->name, (unsigned long long)d->pmem_page,
				    (unsigned long long)mem_pages);
		for (j = 0; j < i; j++) {
			const struct trace_device *e = &h->devices[j];

			if (e->pmem && d->pmem_page < e->pmem_page + e->size / h->page_size &&
			    e->pmem_page < d->pmem_page + pages)
				return set_error(why, len, "device %s: pmem window %llu+%llu pages overlaps device %s's",
					    d->name, (unsigned long long)d->pmem_page,
					    (unsigned long long)pages, e->name);
		}
	}
	return 0;
}

int header_parser_finish(struct header_parser *p, char *why, size_t len)
{
	struct trace_header *h = p->h;

	if (!p->seen_version)
		return set_error(why, len, "missing required header field 'anonsim-trace'");
	if (!p->seen_page_size)
		return set_error(why, len, "missing required header field 'page-size'");
	if (!p->seen_memory)
		return set_error(why, len, "missing required header field 'memory'");
	if (!h->nr_devices)
		return set_error(why, len, "missing required header field 'device'");
	if (h->memory % h->page_size)
		return set_error(why, len, "memory %llu is not a multiple of page-size %u",
			    (unsigned long long)h->memory, h->page_size);
	return pmem_windows_ok(h, why, len);
}

/* snprintf that appends at *at and keeps counting past the end of buf. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

size_t trace_format_header(const struct trace_header *h, char *buf, size_t len)
{
	size_t at = 0;
	const char *note, *nl;
	unsigned i;

	if (len)
		buf[0] = '\0';
	put(buf, len, &at, "anonsim-trace %u\npage-size %u\nmemory %llu\n",
	    h->version, h->page_size, (unsigned long long)h->memory);
	for (i = 0; i < h->nr_devices && i < TRACE_MAX_DEVICES; i++) {
		const struct trace_device *d = &h->devices[i];

		put(buf, len, &at, "device %s size=%llu backing=%s", d->name,
		    (unsigned long long)d->size, d->backing);
		if (d->cow[0])
			put(buf, len, &at, " cow=%s", d->cow);
		if (d->pmem)
			put(buf, len, &at, " pmem=%llu", (unsigned long long)d->pmem_page);
		put(buf, len, &at, "\n");
	}
	if (h->readahead_kb >= 0)
		put(buf, len, &at, "readahead-kb %lld\n", (long long)h->readahead_kb);
	if (h->vmm[0])
		put(buf, len, &at, "vmm %s %s\n", h->vmm, h->vmm_version);
	if (h->recorder[0])
		put(buf, len, &at, "recorder %s\n", h->recorder);
	for (note = h->notes; *note; note = *nl ? nl + 1 : nl) {
		nl = strchr(note, '\n');
		if (!nl)
			nl = note + strlen(note);
		put(buf, len, &at, "note %.*s\n", (int)(nl - note), note);
	}
	put(buf, len, &at, "events\n");
	return at;
}
