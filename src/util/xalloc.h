/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xalloc.h - memory the simulator itself needs, or a clean end.
 *
 * When the host cannot give anonsim the memory its own state needs (a
 * trace touching more pages than the machine or "ulimit -v" allows), the
 * run cannot go on and no result would be true.  These print
 *
 *     anonsim CMD: out of memory allocating WHAT for TRACE
 *
 * on stderr, remove the command's temporary files (cleanup.h), and exit
 * with EXIT_OUTPUT (5, a system failure).  CMD is what main() named,
 * TRACE the trace the calling thread works on, each left out when unset.
 * Never abort(), never a NULL to check.
 */
#ifndef ANONSIM_XALLOC_H
#define ANONSIM_XALLOC_H

#include <stddef.h>
#include <stdint.h>

/* The trace the calling thread works on now (NULL: none); kept by pointer. */
void xalloc_trace(const char *trace);

/* Print the message for @what, remove temporary files, exit 5. */
_Noreturn void die_oom(const char *what);

/*
 * In a child process whose parent reports for it (density's demand
 * replay): die_oom() passes its message, without the "anonsim CMD: ",
 * to @report, which ends the process, instead of printing it.
 */
void xalloc_on_oom(void (*report)(const char *message));

/* malloc, calloc, realloc and strdup that die_oom(@what) on failure. */
void *xmalloc(size_t size, const char *what);
void *xcalloc(size_t n, size_t size, const char *what);
void *xrealloc(void *p, size_t size, const char *what);
char *xstrdup(const char *s, const char *what);

/*
 * Array @v of @size-byte elements, *@cap of them, grown by doubling (from
 * 16) to hold @need: amortized O(1) a push.
 */
void *xgrow(void *v, uint32_t *cap, uint32_t need, size_t size, const char *what);

#endif
