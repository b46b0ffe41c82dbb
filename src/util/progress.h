/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progress.h - the one progress line of long commands, on standard error:
 * what runs, how far it is ("N of M", never more than M), and once it has
 * run a few seconds the time left at the rate so far.  The caller decides
 * whether to show it (a terminal, no -q).
 */
#ifndef ANONSIM_PROGRESS_H
#define ANONSIM_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool on;
	double start, shown;	/* seconds, monotonic */
};

void progress_start(struct progress *p, bool on);

/*
 * "\rWHAT: DONE of TOTAL UNIT (P%), about T left": @done is shown as at
 * most @total; @total 0 means not known (then "DONE UNIT", no estimate).
 * At most five lines a second reach the terminal.
 */
void progress_show(struct progress *p, const char *what, uint64_t done,
		   uint64_t total, const char *unit);

/*
 * "\rWHAT: DONE UNIT (P%), about T left" when the total of @done is not
 * known but the part done is: @part of @whole (bytes of input read, say),
 * shown as at most 100 %.  @whole 0: as progress_show() with no total.
 */
void progress_show_part(struct progress *p, const char *what, uint64_t done,
			const char *unit, uint64_t part, uint64_t whole);

/* Erase the line. */
void progress_end(struct progress *p);

/* The last part of @path, for naming a trace in the line. */
const char *progress_name(const char *path);

#endif
