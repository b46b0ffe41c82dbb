/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * registry.c - the one registry of strategies, in report order.
 */
#include <config.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "strategy/registry.h"

const struct strategy *const strategies[] = {
	&strategy_read_copy,
	&strategy_devanon,
	&strategy_punch,
	&strategy_free_hint,
	&strategy_odirect,
	NULL
};

const struct strategy *strategy_find(const char *name)
{
	const struct strategy *const *s;

	for (s = strategies; *s; s++)
		if (!strcmp((*s)->name, name))
			return *s;
	return NULL;
}

const char *strategy_names(void)
{
	static char names[256];	/* filled once, from the table */
	const struct strategy *const *s;
	size_t at = 0;

	if (names[0])
		return names;
	for (s = strategies; *s && at < sizeof(names); s++)
		at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
				       s == strategies ? "" : ", ", (*s)->name);
	return names;
}

unsigned strategy_runs(const char *name, const char *variant,
		       struct strategy_run *runs, unsigned max)
{
	const struct strategy *const *s;
	unsigned n = 0;

	for (s = strategies; *s; s++) {
		int k;

		if (strcmp(name, "all") && strcmp(name, (*s)->name))
			continue;
		/* the fixed code first, then the posted code as sent in 2004 */
		for (k = 0; k < 2 && n < max; k++) {
			enum anon_variant var = k ? ANON_POSTED : ANON_FIXED;

			if (k && !(*s)->has_variants)
				break;
			if ((*s)->has_variants &&
			    ((var == ANON_POSTED && !strcmp(variant, "fixed")) ||
			     (var == ANON_FIXED && !strcmp(variant, "posted"))))
				continue;
			runs[n++] = (struct strategy_run){ *s, var };
		}
	}
	return n;
}
