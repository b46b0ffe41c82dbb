/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * registry.c - the one registry of strategies, in report order.
 */
#include <config.h>

#include <stddef.h>
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
