/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gen.c - see gen.h.  Physical pages of the ordering trace are
 * renumbered densely in order of first use, so the synthetic UML can be
 * smaller than the recorded one while pages keep their reuse pattern.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/gen.h"
#include "trace/internal.h"
#include "trace/trace.h"
#include "util/keyval.h"
#include "util/util.h"
#include "util/xalloc.h"

#define PG 4096u

int profile_load(const char *file, struct gen_profile *p, char *err, size_t errlen)
{
	static const char *const known[] = { "ordering", "memory", "read", "touch",
		"free", "readahead-kb", "backing", "note", NULL };
	static const char *const multi[] = { "note", NULL };
	struct kv_file f;
	const struct kv_entry *e;
	unsigned long long v;
	unsigned i;
	const char *path = input_name(file);	/* in messages */
	int rc = EXIT_DATA;

	memset(p, 0, sizeof(*p));
	p->readahead_kb = -1;
	snprintf(p->path, sizeof(p->path), "%s", input_name(file));
	if (kv_load(&f, file, known, multi, err, errlen))
		return EXIT_DATA;
	if (!(e = kv_get(&f, "ordering"))) {
		snprintf(err, errlen, "%s: missing setting 'ordering'", path);
		goto out;
	}
	kv_path(&f, e->value, p->ordering, sizeof(p->ordering));
	if (kv_size(&f, "memory", &v, err, errlen) < 0)
		goto out;
	if (!kv_get(&f, "memory") || !v || v % PG) {
		snprintf(err, errlen, "%s: 'memory' must be set to a whole number of 4 KiB pages", path);
		goto out;
	}
	p->memory = v;
	{
		static const char *const keys[] = { "read", "touch", "free" };
		uint64_t *dst[] = { &p->read_pages, &p->touch_pages, &p->free_pages };

		for (i = 0; i < 3; i++) {
			v = 0;
			if (kv_size(&f, keys[i], &v, err, errlen) < 0)
				goto out;
			*dst[i] = (v + PG - 1) / PG;
		}
	}
	if ((e = kv_get(&f, "readahead-kb"))) {
		uint64_t kb;

		if (parse_uint(e->value, 1u << 30, &kb)) {
			snprintf(err, errlen, "%s:%u: readahead-kb '%s': expected KiB",
				 path, e->line, e->value);
			goto out;
		}
		p->readahead_kb = (int64_t)kb;
	}
	/* the header rules, checked here, where the profile's line can be named */
	if ((e = kv_get(&f, "backing"))) {
		if (!trace_name_ok(e->value, strlen(e->value)) ||
		    strlen(e->value) >= sizeof(p->backing)) {
			snprintf(err, errlen,
				 "%s:%u: backing '%.80s': expected one word of printable ASCII without '#', under %zu bytes",
				 path, e->line, e->value, sizeof(p->backing));
			goto out;
		}
		snprintf(p->backing, sizeof(p->backing), "%s", e->value);
	}
	for (i = 0; i < f.n; i++)
		if (!strcmp(f.v[i].key, "note")) {
			const struct kv_entry *x = &f.v[i];
			size_t n = strlen(p->notes);

			if (!utf8_valid(x->value)) {
				snprintf(err, errlen, "%s:%u: note is not valid UTF-8", path, x->line);
				goto out;
			}
			if (n + (n > 0) + strlen(x->value) >= sizeof(p->notes)) {
				snprintf(err, errlen, "%s:%u: notes longer than %zu bytes in all",
					 path, x->line, sizeof(p->notes) - 1);
				goto out;
			}
			if (n)
				p->notes[n++] = '\n';
			memcpy(p->notes + n, x->value, strlen(x->value) + 1);
		}
	rc = 0;
out:
	kv_free(&f);
	return rc;
}

struct gen {
	const struct gen_profile *p;
	struct trace_writer *w;
	uint32_t *remap;		/* ordering page -> new page + 1 */
	uint64_t remap_len, next_page, new_pages;
	uint8_t *read_seen[TRACE_MAX_DEVICES];
	struct gen_stats st;
	char *err;
	size_t errlen;
};

/* The new number of ordering page @p; UINT64_MAX when memory is full. */
static uint64_t remap(struct gen *g, uint64_t p)
{
	if (p >= g->remap_len)
		return UINT64_MAX;
	if (!g->remap[p]) {
		if (g->next_page >= g->new_pages)
			return UINT64_MAX;
		g->remap[p] = (uint32_t)++g->next_page;
	}
	return g->remap[p] - 1;
}

static int emit(struct gen *g, const struct trace_event *ev)
{
	g->st.events++;
	return trace_write(g->w, ev);
}

/* Emit @ev's single-page events for pages [page, page + n) renumbered. */
static int emit_pages(struct gen *g, struct trace_event ev, uint64_t n)
{
	uint64_t i, first = ev.page;

	for (i = 0; i < n; i++) {
		uint64_t np = remap(g, first + i);

		if (np == UINT64_MAX) {
			snprintf(g->err, g->errlen,
				 "%s: memory %llu bytes is too small for the pages %s uses",
				 g->p->path, (unsigned long long)g->p->memory, g->p->ordering);
			return -1;
		}
		ev.page = np;
		ev.count = 1;
		if (emit(g, &ev))
			return -1;
	}
	return 0;
}

/* A read, clipped to the distinct-page budget; skipped once it is spent. */
static int gen_read(struct gen *g, struct trace_event ev)
{
	uint8_t *seen = g->read_seen[ev.dev];
	uint64_t d0 = ev.offset / PG, dn = (ev.offset + ev.length + PG - 1) / PG;
	uint64_t d, keep = 0, fresh = 0, i, np;

	if (g->st.read_pages >= g->p->read_pages)
		return 0;
	for (d = d0; d < dn; d++) {
		keep++;
		if (!seen[d]) {
			seen[d] = 1;
			fresh++;
			if (g->st.read_pages + fresh >= g->p->read_pages)
				break;
		}
	}
	g->st.read_pages += fresh;
	if (keep < dn - d0 && ev.offset % PG == 0)
		ev.length = keep * PG;
	np = (ev.length + PG - 1) / PG;
	for (i = 0; i < np; i++)
		if (remap(g, ev.page + i) == UINT64_MAX)
			goto full;
	/* a read fills consecutive pages: keep them consecutive if renumbering did */
	for (i = 1; i < np; i++)
		if (remap(g, ev.page + i) != remap(g, ev.page) + i)
			break;
	if (i < np) {
		/* split into single-page reads */
		struct trace_event one = ev;

		for (i = 0; i < np; i++) {
			one.offset = ev.offset + i * PG;
			one.length = PG;
			one.page = remap(g, ev.page + i);
			if (emit(g, &one))
				return -1;
		}
		return 0;
	}
	ev.page = remap(g, ev.page);
	return emit(g, &ev);
full:
	snprintf(g->err, g->errlen, "%s: memory %llu bytes is too small for the pages %s uses",
		 g->p->path, (unsigned long long)g->p->memory, g->p->ordering);
	return -1;
}

static int gen_budgeted(struct gen *g, struct trace_event ev, uint64_t *done,
			uint64_t budget)
{
	uint64_t n = ev.count;

	if (*done >= budget)
		return 0;
	if (n > budget - *done)
		n = budget - *done;
	*done += n;
	return emit_pages(g, ev, n);
}

static int gen_event(struct gen *g, const struct trace_event *ev)
{
	switch (ev->kind) {
	case EV_READ:
		return gen_read(g, *ev);
	case EV_WRITE: {
		struct trace_event w = *ev;
		uint64_t i, np = (ev->length + PG - 1) / PG;

		/* the source pages must exist in the synthetic memory */
		for (i = 0; i < np; i++)
			if (!g->remap[ev->page + i] || remap(g, ev->page + i) != remap(g, ev->page) + i)
				return 0;
		w.page = remap(g, ev->page);
		return emit(g, &w);
	}
	case EV_TOUCH:
		return gen_budgeted(g, *ev, &g->st.touch_pages, g->p->touch_pages);
	case EV_FREE:
		return gen_budgeted(g, *ev, &g->st.free_pages, g->p->free_pages);
	case EV_PHASE:
		return emit(g, ev);
	default:
		/* UML's own mappings are replaced by one of the whole memory */
		return 0;
	}
}

int trace_generate(const struct gen_profile *p, const char *out,
		   struct gen_stats *st, char *err, size_t errlen)
{
	struct trace_reader *r;
	struct trace_header h;
	const struct trace_event *in;
	struct trace_event ev;
	struct gen g;
	unsigned d;
	int rc = EXIT_DATA, more, committed;

	memset(&g, 0, sizeof(g));
	g.p = p;
	g.err = err;
	g.errlen = errlen;
	r = trace_open(p->ordering, err, errlen);
	if (!r)
		return EXIT_DATA;
	h = *trace_header(r);
	g.remap_len = h.memory / PG;
	g.new_pages = p->memory / PG;
	g.remap = xcalloc(g.remap_len, sizeof(*g.remap), "the map of the ordering's pages");
	for (d = 0; d < h.nr_devices; d++)
		g.read_seen[d] = xcalloc(h.devices[d].size / PG + 1, 1,
					 "the map of a device's pages read");
	h.memory = p->memory;
	if (p->readahead_kb >= 0)
		h.readahead_kb = p->readahead_kb;
	if (p->backing[0])
		snprintf(h.devices[0].backing, sizeof(h.devices[0].backing), "%s", p->backing);
	snprintf(h.recorder, sizeof(h.recorder), "anonsim-trace-gen");
	snprintf(h.notes, sizeof(h.notes), "%s", p->notes);
	g.w = trace_writer_open(out, &h, err, errlen);
	if (!g.w) {
		/* the header keeps the rules (the profile was held to them):
		 * what failed is the output's temporary file */
		rc = EXIT_OUTPUT;
		goto out;
	}
	ev = (struct trace_event){ .kind = EV_MMAP, .addr = 0x60000000, .length = p->memory };
	if (emit(&g, &ev))
		goto fail;
	while ((more = trace_next(r, &in)) > 0)
		if (gen_event(&g, in))
			goto fail;
	if (more < 0) {
		snprintf(err, errlen, "%s", trace_error(r));
		goto fail;
	}
	if (g.st.read_pages < p->read_pages || g.st.touch_pages < p->touch_pages ||
	    g.st.free_pages < p->free_pages) {
		snprintf(err, errlen,
			 "%s: %s has only %llu pages read, %llu touched, %llu freed; the profile asks for %llu, %llu, %llu",
			 p->path, p->ordering,
			 (unsigned long long)g.st.read_pages, (unsigned long long)g.st.touch_pages,
			 (unsigned long long)g.st.free_pages, (unsigned long long)p->read_pages,
			 (unsigned long long)p->touch_pages, (unsigned long long)p->free_pages);
		goto fail;
	}
	g.st.phys_pages = g.next_page;
	committed = trace_writer_commit(g.w, err, errlen);
	g.w = NULL;	/* the commit frees the writer, whether it failed or not */
	if (committed) {
		rc = EXIT_OUTPUT;	/* the output, not the profile */
		goto out;
	}
	if (st)
		*st = g.st;
	rc = 0;
	goto out;
fail:
	trace_writer_abort(g.w);
	g.w = NULL;
out:
	if (g.w)
		trace_writer_abort(g.w);
	trace_close(r);
	free(g.remap);
	for (d = 0; d < TRACE_MAX_DEVICES; d++)
		free(g.read_seen[d]);
	return rc;
}
