/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * validate.c - the rules every event obeys, whatever its encoding:
 * the reader applies them to what it decodes, the writer to what it is
 * given, so no file that breaks them is ever read or written.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/internal.h"
#include "util/util.h"
#include "util/xalloc.h"

int trace_device_index(const struct trace_header *h, const char *name)
{
	unsigned i;

	for (i = 0; i < h->nr_devices; i++)
		if (!strcmp(h->devices[i].name, name))
			return (int)i;
	return -1;
}

void trace_rules_init(struct trace_rules *rules, const struct trace_header *h)
{
	unsigned i;

	rules->h = h;
	rules->page_shift = 0;
	while (h->page_size >> rules->page_shift > 1)
		rules->page_shift++;
	rules->mem_pages = h->memory >> rules->page_shift;
	rules->mem_bytes = h->memory;
	rules->page_mask = h->page_size - 1;
	/* a pmem device takes no I/O: no span fits in it */
	for (i = 0; i < 257; i++)
		rules->dev_size[i] = i < h->nr_devices && !h->devices[i].pmem ?
				     h->devices[i].size : 0;
}

typedef unsigned long long ull;

/* Whether the kind's rule holds; names are checked here, off the hot path. */
static int event_ok(const struct trace_rules *r, const struct trace_event *ev)
{
	switch (ev->kind) {
	case EV_READ:
	case EV_WRITE:
		return trace_io_ok(r, ev);
	case EV_TOUCH:
	case EV_FREE:
		return trace_pages_ok(r, ev->page, ev->count);
	case EV_DISCARD:
		return r->h->version >= 2 && trace_pages_ok(r, ev->page, ev->count);
	case EV_REQUEST:
		return r->h->version >= 2 && trace_dev_span_ok(r, ev);
	case EV_MMAP:
	case EV_MAPDUP:
	case EV_MUNMAP:
		return trace_map_ok(r, ev) && (ev->kind != EV_MUNMAP || !ev->offset);
	case EV_PHASE:
		return memchr(ev->name, '\0', TRACE_NAME_MAX) &&
		       trace_name_ok(ev->name, strlen(ev->name));
	case EV_FOOTPRINT:
		return memchr(ev->name, '\0', TRACE_NAME_MAX) &&
		       (!strcmp(ev->name, "tmpfs") ||
			(!strncmp(ev->name, "cache:", 6) && trace_device_index(r->h, ev->name + 6) >= 0));
	case EV_HOST:
		return ev->count <= TRACE_SIZE_MAX >> r->page_shift && ev->anon <= ev->count;
	default:
		return 0;
	}
}

int trace_validate_event(const struct trace_rules *r, uint64_t prev_time,
			 const struct trace_event *ev, char *why, size_t len)
{
	const struct trace_header *h = r->h;
	const char *kind = (unsigned)ev->kind < EV_NR_KINDS ? trace_kind_names[ev->kind] : "?";
	uint64_t page_mask = r->page_mask, n;

	if (ev->time_us < prev_time)
		return set_error(why, len, "time %llu goes backwards (previous event at %llu)",
			    (ull)ev->time_us, (ull)prev_time);
	if (ev->time_us > TRACE_TIME_MAX)
		return set_error(why, len, "time %llu is past 2^63 - 1 microseconds",
			    (ull)ev->time_us);
	if (event_ok(r, ev))
		return 0;
	/* Which part of the rule failed. */
	switch (ev->kind) {
	case EV_REQUEST:
		if (h->version < 2)
			return set_error(why, len, "request: an event of version 2, in a version %u trace",
				    h->version);
		/* fall through */
	case EV_READ:
	case EV_WRITE: {
		const struct trace_device *d;

		if (ev->dev >= h->nr_devices)
			return set_error(why, len, "%s: device %u not in the header (%u devices)",
				    kind, (unsigned)ev->dev, h->nr_devices);
		d = &h->devices[ev->dev];
		if (d->pmem)
			return set_error(why, len, "%s: device %s is a pmem device, mapped into guest physical memory: no I/O reaches it",
				    kind, d->name);
		if (!ev->length)
			return set_error(why, len, "%s: length 0", kind);
		if (ev->offset % 512 || ev->length % 512)
			return set_error(why, len, "%s: offset %llu and length %llu must be multiples of 512",
				    kind, (ull)ev->offset, (ull)ev->length);
		if (ev->offset > d->size || ev->length > d->size - ev->offset)
			return set_error(why, len, "%s: bytes %llu+%llu beyond the end of device %s (%llu bytes)",
				    kind, (ull)ev->offset, (ull)ev->length, d->name, (ull)d->size);
		n = (ev->length + page_mask) >> r->page_shift;
		if (ev->kind != EV_REQUEST && !trace_pages_ok(r, ev->page, n))	/* n >= 1: length is */
			return set_error(why, len, "%s: pages %llu+%llu beyond physical memory (%llu pages)",
				    kind, (ull)ev->page, (ull)n, (ull)r->mem_pages);
		break;
	}
	case EV_DISCARD:
		if (h->version < 2)
			return set_error(why, len, "discard: an event of version 2, in a version %u trace",
				    h->version);
		/* fall through */
	case EV_TOUCH:
	case EV_FREE:
		if (!ev->count)
			return set_error(why, len, "%s: count 0", kind);
		if (!trace_pages_ok(r, ev->page, ev->count))
			return set_error(why, len, "%s: pages %llu+%llu beyond physical memory (%llu pages)",
				    kind, (ull)ev->page, (ull)ev->count, (ull)r->mem_pages);
		break;
	case EV_MMAP:
	case EV_MAPDUP:
		if (ev->offset & page_mask)
			return set_error(why, len, "%s: offset %llu is not page-aligned", kind, (ull)ev->offset);
		/* fall through */
	case EV_MUNMAP:
		if (ev->kind == EV_MUNMAP && ev->offset)
			return set_error(why, len, "munmap: offset %llu, not 0", (ull)ev->offset);
		if (!ev->length)
			return set_error(why, len, "%s: length 0", kind);
		if ((ev->addr | ev->length) & page_mask)
			return set_error(why, len, "%s: address 0x%llx and length %llu must be page-aligned",
				    kind, (ull)ev->addr, (ull)ev->length);
		if (ev->length > UINT64_MAX - ev->addr)
			return set_error(why, len, "%s: address 0x%llx + length %llu wraps around",
				    kind, (ull)ev->addr, (ull)ev->length);
		if (ev->kind != EV_MUNMAP &&
		    (ev->offset > h->memory || ev->length > h->memory - ev->offset))
			return set_error(why, len, "%s: file bytes %llu+%llu beyond physical memory (%llu bytes)",
				    kind, (ull)ev->offset, (ull)ev->length, (ull)h->memory);
		break;
	case EV_PHASE:
		if (!trace_name_ok(ev->name, strnlen(ev->name, TRACE_NAME_MAX)) ||
		    !memchr(ev->name, '\0', TRACE_NAME_MAX))
			return set_error(why, len, "phase: name is not one word of 1-%d printable characters",
				    TRACE_NAME_MAX - 1);
		break;
	case EV_FOOTPRINT:
		if (!memchr(ev->name, '\0', TRACE_NAME_MAX))
			return set_error(why, len, "footprint: name too long");
		if (strcmp(ev->name, "tmpfs") &&
		    (strncmp(ev->name, "cache:", 6) || trace_device_index(h, ev->name + 6) < 0))
			return set_error(why, len, "footprint: '%s' is neither 'tmpfs' nor 'cache:DEVICE' of a device in the header",
				    ev->name);
		break;
	case EV_HOST:
		if (ev->anon > ev->count)
			return set_error(why, len, "host: %llu anonymous pages of only %llu",
					 (ull)ev->anon, (ull)ev->count);
		return set_error(why, len, "host: %llu pages is more than 2^40 bytes",
				 (ull)ev->count);
	default:
		return set_error(why, len, "unknown event kind %d", (int)ev->kind);
	}
	return set_error(why, len, "%s: invalid", kind);
}

/* --- the rules between events: mappings of the memory file ---------------- */

void trace_maps_init(struct trace_maps *m)
{
	memset(m, 0, sizeof(*m));
}

void trace_maps_free(struct trace_maps *m)
{
	seg_tree_destroy(&m->seg);
	trace_maps_init(m);
}

/*
 * Pages [lo, hi) become @to: all of them (@only_from == -1), or those in
 * state @only_from.  Neighbours of one state are merged again.
 */
static void seg_set(struct trace_maps *m, uint64_t lo, uint64_t hi, enum own_state to,
		    int only_from)
{
	if (only_from < 0)
		seg_tree_set(&m->seg, lo, hi, to);
	else
		seg_tree_set_from(&m->seg, lo, hi, (unsigned)only_from, to);
}

/* Whether a page of [lo, hi) is in state @s (@all: every page is). */
static int seg_any(const struct trace_maps *m, uint64_t lo, uint64_t hi,
		   enum own_state s, int all)
{
	unsigned states = seg_tree_states(&m->seg, lo, hi);

	return all ? states == 1u << s : states >> s & 1;
}

/* The pages whose own address [addr, addr + len) covers: [*lo, *hi). */
static void own_pages(const struct trace_maps *m, const struct trace_rules *r,
		      uint64_t addr, uint64_t len, uint64_t *lo, uint64_t *hi)
{
	uint64_t d = addr - m->base, e = m->base - addr;

	*lo = *hi = 0;
	if (!m->based)
		return;
	if (d < r->mem_bytes) {
		*lo = d >> r->page_shift;
		*hi = len >= r->mem_bytes - d ? r->mem_pages : (d + len) >> r->page_shift;
	} else if (e < len) {	/* the range starts below page 0's address */
		*hi = len - e >= r->mem_bytes ? r->mem_pages : (len - e) >> r->page_shift;
	}
}

/*
 * The rules of requests: parts in order of offset, none over another,
 * and no request without one.  Opens a request, or closes one.
 */
static int req_event(struct trace_maps *m, const struct trace_event *ev,
		     char *why, size_t len)
{
	if (m->req_open && trace_request_part(&m->req, ev)) {
		if (ev->offset < m->req_next)
			return set_error(why, len, "read: a part of the request (event %llu) that starts before byte %llu, where the part before ends: parts follow in order of offset, none over another",
				    (ull)m->req_index, (ull)m->req_next);
		m->req_next = ev->offset + ev->length;
		m->req_parts++;
		return 0;
	}
	if (m->req_open && !m->req_parts)
		return set_error(why, len, "the request (event %llu) has no part: a read inside its range at its time must follow it",
			    (ull)m->req_index);
	m->req_open = ev->kind == EV_REQUEST;
	if (m->req_open) {
		m->req = *ev;
		m->req_parts = 0;
		m->req_next = ev->offset;
	}
	return 0;
}

static int maps_event(struct trace_maps *m, const struct trace_rules *r,
		      const struct trace_event *ev, char *why, size_t len)
{
	const char *kind = trace_kind_names[ev->kind];
	uint64_t lo, hi, n;

	if (req_event(m, ev, why, len))
		return -1;
	switch (ev->kind) {
	case EV_READ:
		n = (ev->length + r->page_mask) >> r->page_shift;
		if (!m->based) {
			seg_set(m, ev->page, ev->page + n, OWN_READ_EARLY, -1);
			break;
		}
		if (!seg_any(m, ev->page, ev->page + n, OWN_MAPPED, 1))
			return set_error(why, len, "read: pages %llu+%llu are not all mapped at their own address (see Mappings in FORMAT.md)",
				    (ull)ev->page, (ull)n);
		return 0;
	case EV_TOUCH:
	case EV_FREE:
	case EV_DISCARD:
		if (!m->based) {	/* what a read put there goes */
			seg_set(m, ev->page, ev->page + ev->count, OWN_NEVER, OWN_READ_EARLY);
			break;
		}
		if (seg_any(m, ev->page, ev->page + ev->count, OWN_UNMAPPED, 0))
			return set_error(why, len, "%s: pages %llu+%llu include a page whose own address was unmapped (see Mappings in FORMAT.md)",
				    kind, (ull)ev->page, (ull)ev->count);
		if (seg_any(m, ev->page, ev->page + ev->count, OWN_READ_EARLY, 0))
			return set_error(why, len, "%s: pages %llu+%llu include a page read into before the first mmap and not mapped at its own address since (see Mappings in FORMAT.md)",
				    kind, (ull)ev->page, (ull)ev->count);
		return 0;
	case EV_MMAP:
	case EV_MAPDUP:
		if (!m->based && ev->kind == EV_MMAP) {
			m->based = 1;
			m->base = ev->addr - ev->offset;
		}
		if (m->based && ev->addr - ev->offset == m->base) {
			lo = ev->offset >> r->page_shift;
			seg_set(m, lo, lo + (ev->length >> r->page_shift), OWN_MAPPED, -1);
			break;
		}
		/* a mapping elsewhere replaces what it covers, as munmap would */
		/* fall through */
	case EV_MUNMAP:
		own_pages(m, r, ev->addr, ev->length, &lo, &hi);
		seg_set(m, lo, hi, OWN_UNMAPPED, OWN_MAPPED);
		break;
	default:
		return 0;
	}
	return 0;
}

/* The windows of trace_maps (lo, hi), after the segments changed. */
static void set_windows(struct trace_maps *m)
{
	const struct seg_sum *sum = seg_tree_sum(&m->seg);
	/* reads, touches and frees; (0, 0) when there is none */
	struct seg_span best[2] = { { 0, 0 }, { 0, 0 } };
	int k;

	if (m->based) {
		if (sum->longest.e > sum->longest.s)
			best[0] = sum->longest;
		if (sum->run.e > sum->run.s)
			best[1] = sum->run;
	}
	/* before the first mmap every read, touch, free and discard changes the state */
	for (k = 0; k < EV_NR_KINDS; k++) {
		m->lo[k] = 0;
		m->hi[k] = UINT64_MAX;
	}
	m->lo[EV_READ] = best[0].s;
	m->hi[EV_READ] = best[0].e;
	m->lo[EV_TOUCH] = m->lo[EV_FREE] = m->lo[EV_DISCARD] = best[1].s;
	m->hi[EV_TOUCH] = m->hi[EV_FREE] = m->hi[EV_DISCARD] = best[1].e;
	m->lo[EV_MMAP] = m->lo[EV_MAPDUP] = m->lo[EV_MUNMAP] = UINT64_MAX;
	m->hi[EV_MMAP] = m->hi[EV_MAPDUP] = m->hi[EV_MUNMAP] = 0;
	/* a request, and any event while one is open, is looked at */
	for (k = 0; k < EV_NR_KINDS; k++) {
		if (k != EV_REQUEST && !m->req_open)
			continue;
		m->lo[k] = UINT64_MAX;
		m->hi[k] = 0;
	}
}

/*
 * Whether mapping @e leaves the segments as they are: it lies away from
 * physical memory's own addresses, or maps pages at their own address
 * that are mapped there already.
 */
static int map_keeps_state(const struct trace_maps *m, const struct trace_rules *r,
			   const struct trace_event *e)
{
	uint64_t fo = e->offset >> r->page_shift, fn = e->length >> r->page_shift;

	if (!m->based)
		return 0;
	if (e->addr - m->base >= r->mem_bytes && m->base - e->addr >= e->length)
		return 1;
	return e->kind != EV_MUNMAP && e->addr - e->offset == m->base &&
	       fo >= m->lo[EV_READ] && fo + fn <= m->hi[EV_READ];
}

size_t trace_maps_apply(struct trace_maps *m, const struct trace_rules *r,
			const struct trace_event *ev, size_t n, char *why, size_t len)
{
	size_t i;

	if (!m->seg.n) {
		/* the longest segment mapped, the longest run mapped or never */
		seg_tree_init(&m->seg, r->mem_pages, OWN_NEVER, OWN_MAPPED,
			      1u << OWN_MAPPED | 1u << OWN_NEVER);
		set_windows(m);
	}
	for (i = 0; i < n; i++) {
		const struct trace_event *e = &ev[i];
		/*
		 * The fields a kind does not have are 0 as decoded, so a
		 * read's pages come from its length, a touch's or a free's
		 * from its count: one test, whatever the kind.  A mapping's
		 * window is empty.
		 */
		uint64_t pages = e->count + ((e->length + r->page_mask) >> r->page_shift);

		if ((e->page >= m->lo[e->kind]) & (e->page + pages <= m->hi[e->kind]))
			continue;
		if ((e->kind == EV_MMAP || e->kind == EV_MAPDUP || e->kind == EV_MUNMAP) &&
		    !m->req_open && map_keeps_state(m, r, e))
			continue;
		if (maps_event(m, r, &ev[i], why, len)) {
			m->applied += i;
			return i;
		}
		if (e->kind == EV_REQUEST)
			m->req_index = m->applied + i;
		set_windows(m);
	}
	m->applied += n;
	return n;
}

const struct trace_event *trace_maps_finish(const struct trace_maps *m, uint64_t *index,
					    char *why, size_t len)
{
	if (!m->req_open || m->req_parts)
		return NULL;
	*index = m->req_index;
	set_error(why, len, "request with no part: the trace ends after it");
	return &m->req;
}
