/*
 * strategy.h - how a UML gets disk data into its physical memory, and what
 * it tells the host when the guest frees a page.  One file per strategy
 * (strategy_*.c), each filling one struct strategy; strategies.c lists them.
 */
#ifndef ANONSIM_STRATEGY_H
#define ANONSIM_STRATEGY_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

struct instance;

struct strategy {
	const char *name;
	const char *summary;
	bool map_counts;	/* the memory file is /dev/anon (map-count tables) */
	bool has_variants;	/* runs with the posted and fixed src/kernel code */
	/* ubd read of ev->length bytes into pages from ev->page */
	void (*read)(struct instance *in, const struct trace_event *ev);
	/* ubd write from pages at ev->page */
	void (*write)(struct instance *in, const struct trace_event *ev);
	/* the guest writes page P for the first time since it was free */
	void (*touch)(struct instance *in, uint64_t p);
	/* the guest frees pages [p, p + nr) */
	void (*free)(struct instance *in, uint64_t p, uint64_t nr);
};

extern const struct strategy strategy_read_copy;
extern const struct strategy strategy_devanon;
extern const struct strategy strategy_punch;
extern const struct strategy strategy_free_hint;
extern const struct strategy strategy_odirect;

/* The registry, NULL-terminated, in report order. */
extern const struct strategy *const strategies[];

const struct strategy *strategy_find(const char *name);

#endif
