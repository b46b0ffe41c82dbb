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
