/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * validate.c - the rules every event obeys, whatever its encoding:
 * the reader applies them to what it decodes, the writer to what it is
 * given, so no file that breaks them is ever read or written.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "trace/internal.h"
#include "util/util.h"

int trace_name_ok(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~' || name[i] == '#')
			return 0;
	return len > 0;
}

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
	rules->page_mask = h->page_size - 1;
	for (i = 0; i < 257; i++)
		rules->dev_size[i] = i < h->nr_devices ? h->devices[i].size : 0;
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
	if (event_ok(r, ev))
		return 0;
	/* Which part of the rule failed. */
	switch (ev->kind) {
	case EV_READ:
	case EV_WRITE: {
		const struct trace_device *d;

		if (ev->dev >= h->nr_devices)
			return set_error(why, len, "%s: device %u not in the header (%u devices)",
				    kind, (unsigned)ev->dev, h->nr_devices);
		d = &h->devices[ev->dev];
		if (!ev->length)
			return set_error(why, len, "%s: length 0", kind);
		if (ev->offset % 512 || ev->length % 512)
			return set_error(why, len, "%s: offset %llu and length %llu must be multiples of 512",
				    kind, (ull)ev->offset, (ull)ev->length);
		if (ev->offset > d->size || ev->length > d->size - ev->offset)
			return set_error(why, len, "%s: bytes %llu+%llu beyond the end of device %s (%llu bytes)",
				    kind, (ull)ev->offset, (ull)ev->length, d->name, (ull)d->size);
		n = (ev->length + page_mask) >> r->page_shift;
		if (!trace_pages_ok(r, ev->page, n))	/* n >= 1: length is */
			return set_error(why, len, "%s: pages %llu+%llu beyond physical memory (%llu pages)",
				    kind, (ull)ev->page, (ull)n, (ull)r->mem_pages);
		break;
	}
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
		if (ev->kind != EV_MUNMAP && ev->length > UINT64_MAX - ev->offset)
			return set_error(why, len, "%s: offset %llu + length %llu wraps around",
				    kind, (ull)ev->offset, (ull)ev->length);
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
	default:
		return set_error(why, len, "unknown event kind %d", (int)ev->kind);
	}
	return set_error(why, len, "%s: invalid", kind);
}
