/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * registry.h - the one registry of strategies (registry.c), in report order.
 * The commands choose a strategy here and hand it to the model.
 */
#ifndef ANONSIM_STRATEGY_REGISTRY_H
#define ANONSIM_STRATEGY_REGISTRY_H

#include "kernel/anon.h"
#include "model/strategy.h"

extern const struct strategy strategy_read_copy;
extern const struct strategy strategy_devanon;
extern const struct strategy strategy_punch;
extern const struct strategy strategy_free_hint;
extern const struct strategy strategy_odirect;

/* The registry, NULL-terminated, in report order. */
extern const struct strategy *const strategies[];

/* The strategy called @name, or NULL. */
const struct strategy *strategy_find(const char *name);

/* The names of the registry, "read-copy, devanon, ...", for messages. */
const char *strategy_names(void);

/* One strategy run a command or the library makes, in report order. */
struct strategy_run {
	const struct strategy *s;
	enum anon_variant v;
};

/*
 * The runs that @name (a strategy's name, or "all") and @variant
 * ("posted", "fixed" or "both": devanon's src/kernel code) select, in
 * report order: the fixed code before the posted.  Fills at most @max of
 * @runs; returns their count (0 when @name is no strategy).
 */
unsigned strategy_runs(const char *name, const char *variant,
		       struct strategy_run *runs, unsigned max);

#endif
