/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * decimal.c - figures for machines, exactly: MiB of pages and bytes, and
 * seconds of microseconds, as the decimals they are.
 */
#include <config.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/decimal.h"


/* @whole.@frac with @digits fraction digits, trailing zeros dropped. */
static const char *fixed(char *buf, uint64_t whole, uint64_t frac, int digits)
{
	int n = snprintf(buf, DECIMAL_MAX, "%" PRIu64 ".%0*" PRIu64, whole, digits, frac);

	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

const char *fmt_mib(char buf[DECIMAL_MAX], uint64_t pages)
{
	/* 1/256 = 0.00390625 exactly */
	return fixed(buf, pages / 256, (pages % 256) * 390625, 8);
}

const char *fmt_bytes_mib(char buf[DECIMAL_MAX], uint64_t bytes)
{
	uint64_t rest = bytes % 1048576;
	int n = snprintf(buf, DECIMAL_MAX, "%" PRIu64, bytes / 1048576);

	/* long division by 2^20: at most 20 digits, all exact */
	if (rest)
		buf[n++] = '.';
	while (rest) {
		rest *= 10;
		buf[n++] = (char)('0' + (rest >> 20));
		rest &= 1048575;
	}
	buf[n] = '\0';
	return buf;
}

const char *fmt_seconds(char buf[DECIMAL_MAX], int64_t us)
{
	if (us < 0)
		return NULL;
	return fmt_useconds(buf, (uint64_t)us);
}

const char *fmt_useconds(char buf[DECIMAL_MAX], uint64_t us)
{
	return fixed(buf, us / 1000000, us % 1000000, 6);
}

const char *fmt_double(char buf[DECIMAL_MAX], double v)
{
	if (!isfinite(v))
		return NULL;
	snprintf(buf, DECIMAL_MAX, "%.17g", v);
	if (strtod(buf, NULL) == v) {	/* the shortest that reads back */
		int p;

		for (p = 1; p < 17; p++) {
			char t[DECIMAL_MAX];

			snprintf(t, sizeof(t), "%.*g", p, v);
			if (strtod(t, NULL) == v) {
				memcpy(buf, t, sizeof(t));
				break;
			}
		}
	}
	return buf;
}
