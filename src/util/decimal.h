/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * decimal.h - the numbers of every machine output (CSV, JSON) at full
 * precision: memory in MiB is the exact decimal of pages / 256, seconds
 * the exact decimal of the microseconds.  Tables for people round.
 */
#ifndef ANONSIM_DECIMAL_H
#define ANONSIM_DECIMAL_H

#include <stdint.h>

#define DECIMAL_MAX 48	/* room for any of them */

/* The exact MiB of @pages 4 KiB pages, e.g. "1.00390625". */
const char *fmt_mib(char buf[DECIMAL_MAX], uint64_t pages);
/* The exact MiB of @bytes. */
const char *fmt_bytes_mib(char buf[DECIMAL_MAX], uint64_t bytes);
/* Exact seconds of @us microseconds, e.g. "1.5"; NULL when @us < 0 (never). */
const char *fmt_seconds(char buf[DECIMAL_MAX], int64_t us);
/* Exact seconds of a time that always exists, the whole range of @us. */
const char *fmt_useconds(char buf[DECIMAL_MAX], uint64_t us);
/* A double in the fewest digits that read back the same value; NULL when
 * it is not finite (an output writes null or nothing there). */
const char *fmt_double(char buf[DECIMAL_MAX], double v);

#endif
