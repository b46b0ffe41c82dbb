/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * registry.h - the one registry of strategies (registry.c), in report order.
 * The commands choose a strategy here and hand it to the model.
 */
#ifndef ANONSIM_STRATEGY_REGISTRY_H
#define ANONSIM_STRATEGY_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/anon.h"
#include "model/strategy.h"

extern const struct strategy strategy_read_copy;
extern const struct strategy strategy_devanon;
extern const struct strategy strategy_punch;
extern const struct strategy strategy_free_hint;
extern const struct strategy strategy_odirect;
extern const struct strategy strategy_dax;

/* The registry, NULL-terminated, in report order. */
extern const struct strategy *const strategies[];

/* Another name of a strategy: QEMU's cache modes. */
struct strategy_alias {
	const char *name;
	const struct strategy *s;
};

/* The aliases, terminated by a NULL name. */
extern const struct strategy_alias strategy_aliases[];

/* The strategy called @name (or aliased so), or NULL. */
const struct strategy *strategy_find(const char *name);

/* The names of the registry and its aliases, "read-copy, devanon, ...",
 * for messages. */
const char *strategy_names(void);

/* What --variant takes: devanon's posted code, the fixed, or both;
 * NULL-terminated. */
extern const char *const strategy_variant_names[];

/* One strategy run a command or the library makes, in report order. */
struct strategy_run {
	const struct strategy *s;
	enum anon_variant v;
};

/*
 * The runs that @list (comma-separated strategy names, "all" among them
 * standing for every one) and @variant ("posted", "fixed" or "both":
 * devanon's src/kernel code) select, in the order of @list and, for
 * "all", report order: the fixed code before the posted.  Fills at most
 * @max of @runs; returns their count (0 when a name is no strategy).
 */
unsigned strategy_runs(const char *list, const char *variant,
		       struct strategy_run *runs, unsigned max);

/*
 * Whether @list names each strategy at most once: 0, or -1 with the name
 * that is not a strategy (or is empty) or comes twice in @bad, and
 * *@twice saying which.
 */
int strategy_list_check(const char *list, char *bad, size_t badlen, bool *twice);

#endif
