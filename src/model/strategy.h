/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * strategy.h - the strategy interface: how a UML gets disk data into its
 * physical memory, and what it tells the host when the guest frees a page.
 *
 * src/strategy/ is the part of anonsim that holds the strategies: this
 * interface, one file per strategy (read_copy.c, devanon.c, ...) each filling
 * one struct strategy, the mechanism the ubd-mmap strategies share
 * (ubd_mmap.c), and the one registry that lists them (registry.h).
 * Strategies are built on the model's instance (model/instance.h) and may
 * use the model, the trace and the kernel parts.  The model calls a
 * strategy only through this interface, the one header of this part it
 * includes, as the kernel calls a filesystem through its operations.
 */
#ifndef ANONSIM_STRATEGY_H
#define ANONSIM_STRATEGY_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/trace.h"

struct instance;

struct strategy {
	const char *name;
	const char *summary;
	bool map_counts;	/* the memory file is /dev/anon (map-count tables) */
	bool has_variants;	/* runs with the posted and fixed src/kernel code */
	bool read_skips_guest;	/* a read fills no guest page (DAX): the page
				 * the trace names stays free in the guest */
	/* ubd read of ev->length bytes into pages from ev->page */
	void (*read)(struct instance *in, const struct trace_event *ev);
	/* ubd write from pages at ev->page */
	void (*write)(struct instance *in, const struct trace_event *ev);
	/* the guest writes pages [p, p + nr) for the first time since they
	 * were free, in this order */
	void (*touch)(struct instance *in, uint64_t p, uint64_t nr);
	/* the guest frees pages [p, p + nr) */
	void (*free)(struct instance *in, uint64_t p, uint64_t nr);
};

#endif
