/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.c - merge the event streams of all instances by time and apply them.
 */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/fault.h"
#include "model/replay.h"
#include "trace/share.h"
#include "util/decimal.h"
#include "util/progress.h"
#include "util/util.h"
#include "util/xalloc.h"

#define RECOUNT_EVERY 1024	/* default events between full recounts under --check */

/*
 * One instance and its trace, read through the trace's share
 * (trace/share.h): each distinct trace is decoded once, by one reader
 * (with one read-ahead thread) opened at the start, where its header is
 * read, and closed at the trace's end, however many instances of it run,
 * one after another or at once; they read its events from the share's
 * compact window, each at its own place.
 */
struct cursor {
	struct trace_share *sh;
	struct trace_tap tap;
	const char *path;
	const struct trace_header *hdr;	/* outlives the reader */
	const struct trace_event *ev;
	bool joined, have, done, started;
	uint64_t start_us;		/* trace time 0 of this instance on the host clock */
	uint64_t index;			/* events of this trace applied */
	struct instance in;
};

/*
 * The cursors with an event due, in a binary heap by host time and then by
 * index: the order a scan of every cursor for the earliest event (the
 * first of equals) gives.  A staggered instance not yet opened waits in it
 * under its start time, which no event of its trace can precede.  Each
 * entry holds its cursor's due time: with thousands of instances at once,
 * a comparison that read it from the cursor and its event missed the
 * cache twice.
 */
struct merge_entry {
	uint64_t due;
	unsigned i;
};

struct merge {
	struct merge_entry *v;
	unsigned n;
};

static uint64_t due(const struct cursor *c)
{
	return c->start_us + (c->have ? c->ev->time_us : 0);
}

static bool before(struct merge_entry a, struct merge_entry b)
{
	return a.due < b.due || (a.due == b.due && a.i < b.i);
}

static void merge_down(struct merge *m, unsigned at)
{
	struct merge_entry x = m->v[at];

	for (;;) {
		unsigned l = 2 * at + 1, k = l;

		if (l >= m->n)
			break;
		if (l + 1 < m->n && before(m->v[l + 1], m->v[l]))
			k = l + 1;
		if (!before(m->v[k], x))
			break;
		m->v[at] = m->v[k];
		at = k;
	}
	m->v[at] = x;
}

static void merge_push(struct merge *m, const struct cursor *c, unsigned i)
{
	struct merge_entry x = { due(&c[i]), i };
	unsigned at = m->n++;

	while (at && before(x, m->v[(at - 1) / 2])) {
		m->v[at] = m->v[(at - 1) / 2];
		at = (at - 1) / 2;
	}
	m->v[at] = x;
}

/* The top cursor's due time changed (it only grows): put it in place, or out. */
static void merge_update_top(struct merge *m, const struct cursor *c, bool keep)
{
	if (keep)
		m->v[0].due = due(&c[m->v[0].i]);
	else
		m->v[0] = m->v[--m->n];
	if (m->n > 1)
		merge_down(m, 0);
}

/* Recount every category from the pages themselves. */
static void audit(struct host *h, struct cursor *c, unsigned n)
{
	uint64_t tmpfs = 0, swapped = 0, cache = 0, host_anon = 0;
	unsigned i;
	size_t k;

	for (i = 0; i < n; i++) {
		struct instance *in = &c[i].in;
		uint64_t p, res = 0, sw = 0;

		if (!c[i].started)
			continue;
		for (p = chunked_next(&in->pages, 0); p < in->npages;
		     p = chunked_next(&in->pages, p + 1)) {
			struct ppage pg = inst_page_get(in, p);

			res += pg.tmpfs == TMPFS_RESIDENT;
			sw += pg.tmpfs == TMPFS_SWAPPED;
		}
		if (res != in->resident || sw != in->swapped)
			inst_fail(in, "tmpfs page counts disagree with page states", 0);
		tmpfs += res;
		swapped += sw;
		for (p = 0; p < in->nr_hanon; p++) {
			host_anon += !in->hanon[p].slot;
			swapped += in->hanon[p].slot != 0;
		}
	}
	for (i = 0; i < h->nr_caches; i++) {
		struct pagecache *pc = h->caches[i];
		uint64_t p, res = 0;

		for (p = pc_next(pc, 0); p < pc->npages; p = pc_next(pc, p + 1))
			res += (pc_flags(pc, p) & PC_RESIDENT) != 0;
		if (res != pc->resident && n)
			inst_fail(&c[0].in, "page cache count disagrees with its pages", 0);
		cache += res;
	}
	if (!n)
		return;
	/* the swap cache: swapped out, still in memory (host.c) */
	for (k = 0; k < h->wb_nr; k++) {
		tmpfs += h->wb[k].cat == CAT_TMPFS;
		host_anon += h->wb[k].cat == CAT_OVERHEAD;
	}
	if (tmpfs != h->pages[CAT_TMPFS] || cache != h->pages[CAT_CACHE] ||
	    swapped != h->swap_used || host_anon != h->host_anon ||
	    h->pages[CAT_SWAP_TABLE] != h->kctx.held[KAPI_PAGE_SWAP_TABLE] ||
	    h->pages[CAT_MAP_TABLE] != h->kctx.held[KAPI_PAGE_MAP_TABLE])
		inst_fail(&c[0].in, "host totals disagree with the pages", 0);
}

/* A simulator failure was just found: name the trace, event and its text. */
static void note_failure(struct replay_result *res, const struct cursor *cur)
{
	char text[TRACE_EVENT_TEXT_MAX];

	trace_format_event(cur->hdr, cur->ev, text, sizeof(text));
	text[strcspn(text, "\n")] = '\0';
	snprintf(res->fail_at, sizeof(res->fail_at), "%s: event %" PRIu64 " (%s)",
		 cur->path, cur->index, text);
}

static bool any_failure(const struct cursor *c, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (c[i].in.find.other)
			return true;
	return false;
}

/* A line of the series CSV, at full precision (util/decimal.h). */
static void series_line(FILE *f, const char *label, const struct host *h)
{
	char b[DECIMAL_MAX];

	fprintf(f, "%s,%s", label, fmt_useconds(b, h->now_us));
	for (int c = 0; c < CAT_NR; c++)
		fprintf(f, ",%s", fmt_mib(b, h->pages[c]));
	fprintf(f, ",%s", fmt_mib(b, host_total(h)));
	fprintf(f, ",%s\n", fmt_mib(b, h->swap_used));
}

/* The next event of @c's trace, joining its share at the first; at its end @c leaves. */
static int fetch(struct cursor *c, char *err, size_t errlen)
{
	int rc;

	if (!c->joined) {
		if (trace_tap_join(c->sh, &c->tap, err, errlen))
			return -1;
		c->joined = true;
	}
	rc = trace_tap_next(&c->tap, &c->ev);
	if (rc < 0) {
		snprintf(err, errlen, "%s", trace_tap_error(&c->tap));
		return -1;
	}
	c->have = rc > 0;
	c->done = rc == 0;
	if (c->done) {
		trace_tap_leave(&c->tap);
		c->joined = false;
	}
	return 0;
}

static void collect(struct replay_result *res, const struct host *h,
		    struct cursor *c, unsigned n)
{
	unsigned i;
	int k;

	for (k = 0; k < CAT_NR; k++) {
		res->final[k] = h->pages[k];
		res->peak[k] = h->peak[k];
	}
	res->final_total = host_total(h);
	res->peak_total = h->peak_total;
	res->swap_final = h->swap_used;
	res->swap_peak = h->swap_peak;
	res->swap_outs = h->swap_outs;
	res->swap_ins = h->swap_ins;
	res->first_swap_out_us = h->first_swap_out_us;
	res->oom_pages = h->oom_pages;
	res->reads = h->reads;
	res->end_us = h->now_us;
	for (i = 0; i < n; i++) {
		const struct host_calls *hc = &c[i].in.calls;

		res->calls.read += hc->read;
		res->calls.write += hc->write;
		res->calls.mmap += hc->mmap;
		res->calls.munmap += hc->munmap;
		res->calls.punch += hc->punch;
	}
}

static void add_findings(struct replay_result *res, const struct instance *in)
{
	const struct findings *f = &in->find;
	int d;

	res->find.freed_while_mapped += f->freed_while_mapped;
	res->find.count_underflow += f->count_underflow;
	res->find.swap_stranded += f->swap_stranded;
	res->find.tables_leaked += f->tables_leaked;
	res->find.pages_leaked += f->pages_leaked;
	if (f->other && !res->find.other)
		memcpy(res->find.first_other, f->first_other, sizeof(f->first_other));
	res->find.other += f->other;
	for (d = 0; d < ANON_NR_DEFECTS; d++)
		res->defects[d] += in->ai.defects[d];
}

/*
 * Findings the posted code's own defects explain stay findings; the same
 * break under the fixed code, or one no defect explains, is a failure.
 */
static void attribute(struct replay_result *res)
{
	struct findings *f = &res->find;
	bool posted = res->variant == ANON_POSTED && res->strat->map_counts;
	const char *why = NULL;

	if (f->freed_while_mapped && !(posted && res->defects[ANON_DEFECT_DUP_UNCOUNTED]))
		why = "a page was freed while still mapped";
	else if (f->count_underflow && !(posted && res->defects[ANON_DEFECT_COUNT_UNDERFLOW]))
		why = "a map count went below zero";
	else if (f->swap_stranded && !(posted && res->defects[ANON_DEFECT_PTE_ONLY_RECLAIM]))
		why = "a swap entry outlived the page it belonged to";
	else if (f->tables_leaked && !(posted && res->defects[ANON_DEFECT_MAP_TABLE_LEAK]))
		why = "table pages were still held after teardown";
	else if (f->pages_leaked)
		why = "tmpfs pages were still resident after teardown";
	else if (f->kernel_warnings)
		why = "the kernel code warned (WARN_ON_ONCE)";
	else if ((f->bad_frees && !(posted && res->defects[ANON_DEFECT_STALE_SPARE])) ||
		 (f->unlocked_walks && !(posted && res->defects[ANON_DEFECT_UNLOCKED_DECREMENT])))
		why = "a table page was freed twice or a table walked unlocked";
	if (why) {
		if (!f->other)
			snprintf(f->first_other, sizeof(f->first_other), "%s", why);
		f->other++;
	}
}

/*
 * In sequential mode a replay of N copies is a prefix of a replay of more:
 * what one of N would report, now that the N-th instance has ended.
 * Teardown is left out (the instances run on), and with it the leaks it
 * finds; --check's attribution, which needs them, is not made.
 */
static bool prefix_done(const struct replay_opts *o, const struct replay_result *res,
			const struct host *h, struct cursor *c, unsigned started,
			uint64_t nev)
{
	struct replay_result snap = *res;
	unsigned i;

	snap.instances = started;
	snap.events = nev;
	collect(&snap, h, c, started);
	for (i = 0; i < started; i++)
		if (c[i].started)
			add_findings(&snap, &c[i].in);
	snap.find.bad_frees = h->kctx.bad_frees;
	snap.find.unlocked_walks = h->kctx.unlocked_walks;
	snap.find.kernel_warnings = h->kctx.warnings;
	return o->prefix(o->prefix_arg, &snap);
}

/*
 * How far the replay is, for its progress line while the events it will
 * apply are not known: the bytes of the traces read, of @whole, as far as
 * each instance has read its trace (a finished instance has read all of it).
 */
static uint64_t bytes_read(const struct cursor *c, unsigned n, unsigned started,
			   const uint64_t *size, unsigned npaths, uint64_t *whole)
{
	uint64_t part = 0, d;
	unsigned i;

	*whole = 0;
	for (i = 0; i < n; i++) {
		*whole += size[i % npaths];
		if (i >= started) {
			continue;	/* not yet bound to its trace */
		} else if (c[i].done) {
			part += size[i % npaths];
		} else if (c[i].joined) {
			trace_tap_progress(&c[i].tap, &d);
			part += d;
		}
	}
	return part;
}

/* One replay: its instances, their traces, the merge of their events, the host. */
struct run {
	char *const *paths;
	unsigned npaths;
	const struct strategy *s;
	enum anon_variant variant;
	const struct replay_opts *o;
	struct replay_result *res;
	char *err;
	size_t errlen;

	unsigned n;			/* instances */
	unsigned nstarted;		/* of them, started (sequential mode) */
	struct cursor *c;
	struct trace_share **shares;	/* by path; a path given twice shares one */
	unsigned *taps;
	uint64_t *size;			/* each trace file's size, for the progress line */
	struct merge q;
	struct host h;
	uint64_t next_series, prev_end, nev;
	struct progress prog;
	const char *traced;		/* the path xalloc_trace() was last given */
};

/* The result's identity, the instances' cursors and the host they run on. */
static void run_setup(struct run *r)
{
	const struct replay_opts *o = r->o;
	struct replay_result *res = r->res;

	memset(res, 0, sizeof(*res));
	progress_start(&r->prog, o->progress);
	res->strat = r->s;
	res->variant = r->variant;
	res->instances = r->n;
	snprintf(res->label, sizeof(res->label), "%s%s", r->s->name,
		 r->s->has_variants ? (r->variant == ANON_POSTED ? "/posted" : "/fixed") : "");
	xalloc_trace(r->paths[0]);
	r->traced = r->paths[0];
	r->c = xcalloc(r->n, sizeof(*r->c), "the instances' cursors");
	r->shares = xcalloc(r->npaths, sizeof(*r->shares), "the traces' readers");
	r->taps = xcalloc(r->npaths, sizeof(*r->taps), "the traces' readers");
	r->size = xcalloc(r->npaths, sizeof(*r->size), "the traces' sizes");
	r->q.v = xcalloc(r->n, sizeof(*r->q.v), "the queue of instances");
	host_init(&r->h, o->host_mem / 4096, o->swap / 4096, o->policy,
		  o->geom ? o->geom : &shmem_geom_x86_64);
	host_set_instances(&r->h, r->n, (o->overhead + 4095) / 4096,
			   (o->overhead_anon + 4095) / 4096);
	r->h.reclaim_log = o->reclaim_log;
	r->h.reclaim_label = res->label;
}

/* The share of path @k (of r->paths): the first path's of that name. */
static unsigned share_of(const struct run *r, unsigned k)
{
	unsigned j;

	for (j = 0; !r->shares[j] || strcmp(r->paths[j], r->paths[k]); j++)
		;
	return j;
}

/* Cursor @i on its trace: instance i runs trace i mod npaths. */
static void cursor_bind(struct run *r, unsigned i)
{
	struct cursor *c = &r->c[i];
	unsigned j = share_of(r, i % r->npaths);

	c->path = r->paths[i % r->npaths];
	c->sh = r->shares[j];
	c->hdr = trace_share_header(r->shares[j]);
}

/*
 * Each trace's header, read up front, so that a missing file or a bad
 * header is found before anything runs; one share per distinct path, with
 * a tap for each of its instances.  Returns 0 or an exit status.
 */
static int run_open_traces(struct run *r)
{
	unsigned i, j, n = r->n, npaths = r->npaths;
	char *const *paths = r->paths;
	char why[256];

	for (j = 0; j < npaths; j++) {
		for (i = 0; i < j && strcmp(paths[i], paths[j]); i++)
			;
		r->taps[i] += n / npaths;
	}
	for (j = 0; j < npaths; j++) {
		if (!r->taps[j])
			continue;	/* the same path as one before */
		r->shares[j] = trace_share_open(paths[j], r->taps[j], r->err, r->errlen);
		if (!r->shares[j])
			return EXIT_DATA;
		if (instance_header_supported(trace_share_header(r->shares[j]), why, sizeof(why))) {
			snprintf(r->err, r->errlen, "%s: %s", paths[j], why);
			return EXIT_DATA;
		}
	}
	for (j = 0; j < npaths; j++)
		r->size[j] = trace_share_size(r->shares[share_of(r, j)]);
	/*
	 * Sequential mode binds each cursor as its instance starts
	 * (run_merge): a sweep's replay of --max copies that ends after a
	 * tenth of them never touches the rest (a cursor is some 4.7 KB, a
	 * page fault each).
	 */
	if (r->o->stagger_us < 0)
		return 0;
	for (i = 0; i < n; i++) {
		cursor_bind(r, i);
		if (r->o->stagger_us > 0 && i > TRACE_TIME_MAX / (uint64_t)r->o->stagger_us) {
			char b[DECIMAL_MAX];

			snprintf(r->err, r->errlen,
				 "--stagger %s: instance %u would start past 2^63 - 1 microseconds of host time",
				 fmt_useconds(b, (uint64_t)r->o->stagger_us), i + 1);
			return EXIT_USAGE;	/* an impossible parameter */
		}
		r->c[i].start_us = (uint64_t)r->o->stagger_us * i;
	}
	return 0;
}

/*
 * Staggered mode: every instance waits in the merge from the start, and
 * starts when its first event comes due; a trace's first instance reads
 * its first event now, the others when they open.
 */
static int run_queue_staggered(struct run *r)
{
	unsigned i;

	r->nstarted = r->n;
	for (i = 0; i < r->n; i++) {
		if (i < r->npaths && fetch(&r->c[i], r->err, r->errlen))
			return -1;
		if (i >= r->npaths || r->c[i].have)
			merge_push(&r->q, r->c, i);
	}
	return 0;
}

/* An instance's first event: its model instance, on the trace's readahead. */
static int start_instance(struct run *r, unsigned k)
{
	const struct replay_opts *o = r->o;
	struct cursor *cur = &r->c[k];
	const struct trace_header *hdr = cur->hdr;
	char m[256];

	host_set_readahead(&r->h, (uint64_t)(o->readahead_kb >= 0 ? o->readahead_kb :
				  hdr->readahead_kb >= 0 ? hdr->readahead_kb : 0) / 4);
	if (!instance_init(&cur->in, k, &r->h, r->s, r->variant, hdr,
			   o->share, o->check, o->report ? (int)o->report_order : -1,
			   r->err, r->errlen)) {
		cur->started = true;
		return 0;
	}
	snprintf(m, sizeof(m), "%s", r->err);
	snprintf(r->err, r->errlen, "%s: %s", cur->path, m);
	return -1;
}

/* What replay prints as it goes: the progress line, from events or bytes. */
static void show_progress(struct run *r, const struct cursor *cur)
{
	char what[400];

	snprintf(what, sizeof(what), "replay %s, %s", r->res->label,
		 progress_name(cur->path));
	if (r->o->progress_events) {
		progress_show(&r->prog, what, r->nev, r->o->progress_events, "events");
	} else {	/* the first run: from the bytes of the traces read */
		uint64_t whole, part = bytes_read(r->c, r->n, r->nstarted, r->size, r->npaths, &whole);

		progress_show_part(&r->prog, what, r->nev, "events", part, whole);
	}
}

/*
 * Apply the event instance @k has due, with what goes with it (the
 * observer, --check's recount, the series line, the progress line).
 * Returns 0, or the exit status of an observer that stopped the replay.
 */
static int apply_event(struct run *r, unsigned k)
{
	const struct replay_opts *o = r->o;
	struct cursor *cur = &r->c[k];
	struct host *h = &r->h;
	int rc;

	if (cur->ev->time_us > TRACE_TIME_MAX - cur->start_us) {
		snprintf(r->err, r->errlen,
			 "%s: event %llu: instance %u, started at %llu us, passes 2^63 - 1 microseconds of host time",
			 cur->path, (unsigned long long)cur->index, k,
			 (unsigned long long)cur->start_us);
		return EXIT_DATA;
	}
	host_set_time(h, cur->start_us + cur->ev->time_us);
	if (cur->path != r->traced) {	/* a call an event costs 1 % of a replay */
		xalloc_trace(cur->path);
		r->traced = cur->path;
	}
	if (!cur->started && start_instance(r, k))
		return EXIT_DATA;
	if (o->observe) {
		rc = o->observe(o->observe_arg, k, cur->ev, h, r->err, r->errlen);
		if (rc)
			return rc;
	}
	fault_event(h, &cur->in, cur->index);
	if (!(o->no_host_events && cur->ev->kind == EV_HOST))
		instance_event(&cur->in, cur->ev);
	r->nev++;
	if (o->check && r->nev % (o->recount_every ? o->recount_every : RECOUNT_EVERY) == 0) {
		audit(h, r->c, r->nstarted);
		if (!r->res->fail_at[0] && any_failure(r->c, r->nstarted))
			note_failure(r->res, cur);
	}
	if (cur->in.find.other && !r->res->fail_at[0])
		note_failure(r->res, cur);
	cur->index++;
	if (o->series && h->now_us >= r->next_series) {
		series_line(o->series, r->res->label, h);
		r->next_series = h->now_us + o->series_step_us;
	}
	if (o->progress && r->nev % 65536 == 0)
		show_progress(r, cur);
	return 0;
}

/*
 * The merge: events of every instance in host-time order until all have
 * ended (sequential mode: each instance starts when the one before has
 * ended), or a prefix caller has seen enough.  Returns 0 or an exit status.
 */
static int run_merge(struct run *r)
{
	const struct replay_opts *o = r->o;
	struct cursor *cur;
	unsigned i, k;
	int rc;

	for (;;) {
		if (!r->q.n) {
			/* sequential mode: start the next instance after the last */
			if (r->nstarted == r->n)
				return 0;
			i = r->nstarted++;
			cursor_bind(r, i);
			r->c[i].start_us = r->prev_end;
			if (fetch(&r->c[i], r->err, r->errlen))
				return EXIT_DATA;
			if (r->c[i].have)
				merge_push(&r->q, r->c, i);
			else if (o->prefix &&
				 !prefix_done(o, r->res, &r->h, r->c, r->nstarted, r->nev))
				return 0;
			continue;
		}
		k = r->q.v[0].i;
		cur = &r->c[k];
		if (!cur->have) {
			/* a staggered instance whose start has come: open its trace */
			if (fetch(cur, r->err, r->errlen))
				return EXIT_DATA;
			merge_update_top(&r->q, r->c, cur->have);
			continue;
		}
		rc = apply_event(r, k);
		if (rc)
			return rc;
		if (fetch(cur, r->err, r->errlen))
			return EXIT_DATA;
		merge_update_top(&r->q, r->c, cur->have);
		if (cur->done) {
			r->prev_end = r->h.now_us;
			if (o->prefix && o->stagger_us < 0 &&
			    !prefix_done(o, r->res, &r->h, r->c, r->nstarted, r->nev))
				return 0;
		}
	}
}

/* The replay ended: the host's figures, the instances torn down, the findings. */
static void run_collect(struct run *r)
{
	struct replay_result *res = r->res;
	unsigned i;

	progress_end(&r->prog);
	if (r->o->check)
		audit(&r->h, r->c, r->nstarted);
	if (r->o->series)
		series_line(r->o->series, res->label, &r->h);
	res->events = r->nev;
	collect(res, &r->h, r->c, r->nstarted);
	for (i = 0; i < r->nstarted; i++)
		if (r->c[i].started) {
			instance_teardown(&r->c[i].in);
			add_findings(res, &r->c[i].in);
		}
	res->find.bad_frees = r->h.kctx.bad_frees;
	res->find.unlocked_walks = r->h.kctx.unlocked_walks;
	res->find.kernel_warnings = r->h.kctx.warnings;
	if ((r->h.pages[CAT_TMPFS] || r->h.swap_used) && !res->find.pages_leaked)
		res->find.pages_leaked = r->h.pages[CAT_TMPFS] + r->h.swap_used;
	if (r->o->check)
		attribute(res);
	if (res->find.other && !res->fail_at[0])
		snprintf(res->fail_at, sizeof(res->fail_at), "%s: after the last event",
			 r->npaths == 1 ? r->paths[0] : "the traces");
}

/* Everything the replay holds, let go; after a failure @rc, its instances too. */
static void run_teardown(struct run *r, int rc)
{
	unsigned i, j;

	/* cursors past the ones started were never touched */
	for (i = 0; i < r->nstarted; i++) {
		if (rc && r->c[i].started)
			instance_teardown(&r->c[i].in);
		if (r->c[i].joined)
			trace_tap_leave(&r->c[i].tap);
	}
	for (j = 0; j < r->npaths; j++) {
		if (r->shares[j])
			r->res->readers += trace_share_opens(r->shares[j]);
		trace_share_close(r->shares[j]);
	}
	free(r->c);
	free(r->shares);
	free(r->taps);
	free(r->size);
	free(r->q.v);
	host_destroy(&r->h);
	xalloc_trace(NULL);
}

void replay_opts_init(struct replay_opts *o)
{
	*o = (struct replay_opts){
		.swap = 1ULL << 30, .policy = RECLAIM_MODERN,
		.readahead_kb = -1, .copies = 1, .stagger_us = -1,
		.share = true, .series_step_us = 100000,
		.geom = &shmem_geom_x86_64,
	};
}

int replay_run(char *const *paths, unsigned npaths, const struct strategy *s,
	       enum anon_variant variant, const struct replay_opts *o,
	       struct replay_result *res, char *err, size_t errlen)
{
	struct run r = {
		.paths = paths, .npaths = npaths, .s = s, .variant = variant, .o = o,
		.res = res, .err = err, .errlen = errlen,
		.n = npaths * (o->copies ? o->copies : 1),
	};
	int rc;

	if (o->swap > REPLAY_SWAP_MAX) {	/* the command lines refuse it first */
		snprintf(err, errlen, "a swap device of more than 1 TiB");
		return EXIT_USAGE;
	}
	run_setup(&r);
	rc = run_open_traces(&r);
	if (!rc && o->stagger_us >= 0 && run_queue_staggered(&r))
		rc = EXIT_DATA;
	if (!rc)
		rc = run_merge(&r);
	if (!rc)
		run_collect(&r);
	run_teardown(&r, rc);
	return rc;
}
