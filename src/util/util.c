/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

static const char *msg_command;

void msg_set_command(const char *command)
{
	msg_command = command;
}

void msg(const char *fmt, ...)
{
	va_list ap;

	if (msg_command)
		fprintf(stderr, "anonsim %s: ", msg_command);
	else
		fputs("anonsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end == 'i' && shift)	/* accept "512MiB" too */
		end++;
	if (*end == 'B' && shift)
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

unsigned cpus_allowed(void)
{
#if defined(__linux__) && defined(CPU_COUNT)
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
#endif
	return online_cpus();
}

uint64_t monotonic_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

const char *input_name(const char *path)
{
	return strcmp(path, "-") ? path : "standard input";
}

int set_error(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

int parse_real(const char *s, double max, double *out)
{
	char *end;
	double v;

	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;	/* strtod would take a sign, blanks, inf and nan */
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v > max)
		return -1;
	*out = v;
	return 0;
}

double diff_pct(double model, double measured)
{
	return measured ? 100.0 * (model - measured) / measured : (model ? INFINITY : 0);
}

int utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0], n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;	/* also the terminating NUL */
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return (int)n;
}

int utf8_valid(const char *s)
{
	int n;

	for (; *s; s += n)
		if (!(n = utf8_len(s)))
			return 0;
	return 1;
}

uint32_t xorshift32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}
