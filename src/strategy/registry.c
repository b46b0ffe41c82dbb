/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * registry.c - the one registry of strategies, in report order.
 */
#include <config.h>

#include <stdbool.h>
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
	&strategy_dax,
	NULL
};

/*
 * QEMU's cache modes by name: the host side of each is one of the above
 * (writethrough flushes each write, unsafe ignores flushes: the page cache
 * holds the same pages; directsync is O_DIRECT with each write flushed).
 */
const struct strategy_alias strategy_aliases[] = {
	{ "writeback", &strategy_read_copy },
	{ "writethrough", &strategy_read_copy },
	{ "unsafe", &strategy_read_copy },
	{ "none", &strategy_odirect },
	{ "directsync", &strategy_odirect },
	{ NULL, NULL }
};

const char *const strategy_variant_names[] = { "posted", "fixed", "both", NULL };

const struct strategy *strategy_find(const char *name)
{
	const struct strategy *const *s;

	const struct strategy_alias *a;

	for (s = strategies; *s; s++)
		if (!strcmp((*s)->name, name))
			return *s;
	for (a = strategy_aliases; a->name; a++)
		if (!strcmp(a->name, name))
			return a->s;
	return NULL;
}

const char *strategy_names(void)
{
	static char names[256];	/* filled once, from the tables */
	const struct strategy *const *s;
	const struct strategy_alias *a;
	size_t at = 0;

	if (names[0])
		return names;
	for (s = strategies; *s && at < sizeof(names); s++)
		at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
				       s == strategies ? "" : ", ", (*s)->name);
	for (a = strategy_aliases; a->name && at < sizeof(names); a++)
		at += (size_t)snprintf(names + at, sizeof(names) - at, ", %s", a->name);
	return names;
}

/* The next name of a comma-separated list at *@p into @name (cut to
 * @len); false at the end of the list. */
static bool next_name(const char **p, char *name, size_t len)
{
	size_t n;

	if (!*p)
		return false;
	n = strcspn(*p, ",");
	snprintf(name, len, "%.*s", (int)n, *p);
	*p = (*p)[n] ? *p + n + 1 : NULL;
	return true;
}

/* The runs of strategy @s under @variant, after the @n of @runs. */
static unsigned add_runs(const struct strategy *s, const char *variant,
			 struct strategy_run *runs, unsigned n, unsigned max)
{
	int k;

	/* the fixed code first, then the posted code as sent in 2004 */
	for (k = 0; k < 2 && n < max; k++) {
		enum anon_variant var = k ? ANON_POSTED : ANON_FIXED;

		if (k && !s->has_variants)
			break;
		if (s->has_variants &&
		    ((var == ANON_POSTED && !strcmp(variant, "fixed")) ||
		     (var == ANON_FIXED && !strcmp(variant, "posted"))))
			continue;
		runs[n++] = (struct strategy_run){ s, var };
	}
	return n;
}

unsigned strategy_runs(const char *list, const char *variant,
		       struct strategy_run *runs, unsigned max)
{
	const struct strategy *const *s;
	const char *p = list;
	char name[64];
	unsigned n = 0;

	while (next_name(&p, name, sizeof(name))) {
		if (strcmp(name, "all")) {
			if (!strategy_find(name))
				return 0;
			n = add_runs(strategy_find(name), variant, runs, n, max);
			continue;
		}
		for (s = strategies; *s; s++)
			n = add_runs(*s, variant, runs, n, max);
	}
	return n;
}

int strategy_list_check(const char *list, char *bad, size_t badlen, bool *twice)
{
	const struct strategy *const *s;
	const char *p = list;
	char name[64];
	unsigned seen[sizeof(strategies) / sizeof(strategies[0])] = { 0 };

	while (next_name(&p, name, sizeof(name))) {
		bool all = !strcmp(name, "all");

		*twice = false;
		snprintf(bad, badlen, "%s", name);
		if (!all && !strategy_find(name))
			return -1;
		for (s = strategies; *s; s++)
			if ((all || *s == strategy_find(name)) && seen[s - strategies]++) {
				*twice = true;
				if (all)	/* the strategy "all" repeats */
					snprintf(bad, badlen, "%s", (*s)->name);
				else if (strcmp(name, (*s)->name))	/* an alias */
					snprintf(bad, badlen, "%s (as %s)", (*s)->name, name);
				return -1;
			}
	}
	return 0;
}
