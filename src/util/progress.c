/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progress.c - the progress line: clamped counts and an estimate of the
 * time left once a run is long enough for one to mean something.
 */
#include <config.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/progress.h"
#include "util/util.h"

/* No estimate before this many seconds: short runs end before it matters. */
#define ETA_AFTER_S 2.0

static double now_s(void)
{
	return (double)monotonic_us() / 1e6;
}

void progress_start(struct progress *p, bool on)
{
	p->on = on;
	p->start = on ? now_s() : 0;
	p->shown = 0;
}

static void put_duration(double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	if (t >= 3600)
		fprintf(stderr, "%luh%02lum", t / 3600, t / 60 % 60);
	else if (t >= 60)
		fprintf(stderr, "%lum%02lus", t / 60, t % 60);
	else
		fprintf(stderr, "%lus", t);
}

/* Whether a line is due (at most five a second, and always the last one). */
static bool due(struct progress *p, bool last, double *ran)
{
	double t;

	if (!p->on)
		return false;
	t = now_s();
	if (p->shown && t - p->shown < 0.2 && !last)
		return false;
	p->shown = t;
	*ran = t - p->start;
	return true;
}

/* ", about T left" once the run is long enough, from the fraction done. */
static void put_left(double ran, double frac)
{
	if (ran >= ETA_AFTER_S && frac > 0 && frac < 1) {
		fputs(", about ", stderr);
		put_duration(ran * (1 - frac) / frac);
		fputs(" left", stderr);
	}
}

void progress_show(struct progress *p, const char *what, uint64_t done,
		   uint64_t total, const char *unit)
{
	double ran;

	if (!due(p, total && done >= total, &ran))
		return;
	if (total && done > total)
		done = total;
	if (!total) {
		fprintf(stderr, "\r\033[K%s: %" PRIu64 " %s", what, done, unit);
		return;
	}
	fprintf(stderr, "\r\033[K%s: %" PRIu64 " of %" PRIu64 " %s (%.0f%%)", what, done,
		total, unit, 100.0 * (double)done / (double)total);
	put_left(ran, (double)done / (double)total);
}

void progress_show_part(struct progress *p, const char *what, uint64_t done,
			const char *unit, uint64_t part, uint64_t whole)
{
	double ran, frac;

	if (!whole) {
		progress_show(p, what, done, 0, unit);
		return;
	}
	if (part > whole)
		part = whole;
	if (!due(p, part == whole, &ran))
		return;
	frac = (double)part / (double)whole;
	fprintf(stderr, "\r\033[K%s: %" PRIu64 " %s (%.0f%%)", what, done, unit,
		100.0 * frac);
	put_left(ran, frac);
}

void progress_end(struct progress *p)
{
	if (p->on)
		fputs("\r\033[K", stderr);
}

const char *progress_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}
