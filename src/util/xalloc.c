/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xalloc.c - allocation that ends the command cleanly when memory cannot
 * be had (see xalloc.h).
 */
#include <config.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/util.h"
#include "util/xalloc.h"

static _Thread_local const char *trace;
static void (*oom_report)(const char *message);

void xalloc_on_oom(void (*report)(const char *message))
{
	oom_report = report;
}

void xalloc_trace(const char *t)
{
	trace = t;
}

_Noreturn void die_oom(const char *what)
{
	static atomic_flag dying = ATOMIC_FLAG_INIT;
	char m[512];

	/* one thread reports and ends the process; another that runs out of
	 * memory at the same time (density's parallel replays) waits for it */
	if (atomic_flag_test_and_set(&dying))
		for (;;)
			pause();
	snprintf(m, sizeof(m), "out of memory allocating %s%s%s", what,
		 trace ? " for " : "", trace ? trace : "");
	if (oom_report)
		oom_report(m);
	/* msg() writes to unbuffered stderr: no memory of its own */
	msg("%s", m);
	cleanup_now();
	/* no exit handlers: they would flush half a result, and may allocate */
	_exit(EXIT_OUTPUT);
}

void *xmalloc(size_t size, const char *what)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die_oom(what);
	return p;
}

void *xcalloc(size_t n, size_t size, const char *what)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die_oom(what);
	return p;
}

void *xrealloc(void *p, size_t size, const char *what)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		die_oom(what);
	return q;
}

void *xgrow(void *v, uint32_t *cap, uint32_t need, size_t size, const char *what)
{
	uint32_t c = *cap ? *cap : 16;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return v;
	v = xrealloc(v, (size_t)c * size, what);
	*cap = c;
	return v;
}

char *xstrdup(const char *s, const char *what)
{
	char *p = strdup(s);

	if (!p)
		die_oom(what);
	return p;
}
