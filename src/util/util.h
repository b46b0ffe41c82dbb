/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * util.h - what every command shares: exit statuses, messages, number parsing.
 *
 * src/util/ holds the small helpers every part above the kernel code uses:
 * these, and the key=value files of profiles and configs (keyval.h).  It
 * uses libc alone and no other part of anonsim.
 */
#ifndef ANONSIM_UTIL_H
#define ANONSIM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Documented exit statuses (see anonsim(1)). */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,		/* wrong option, missing argument, impossible parameter */
	EXIT_DATA = 2,		/* bad input data: corrupt trace, unreadable file */
	EXIT_INTERNAL = 3,	/* an invariant of the simulator itself broke */
	EXIT_TARGET = 4,	/* a figure missed its target (reproduce, fidelity) */
	EXIT_OUTPUT = 5,	/* an output could not be written, or the system failed us */
};

/* Print "anonsim CMD: MESSAGE" on stderr ("anonsim: MESSAGE" before a
 * command is known). */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The CMD of every message from now on, e.g. "replay" or "trace check". */
void msg_set_command(const char *command);

/*
 * Parse a size: a number with an optional K, M, G or T suffix (powers of
 * 1024), e.g. "512M".  Returns 0 and sets *out, or -1 on bad syntax/overflow.
 */
int parse_size(const char *s, uint64_t *out);

/* Parse a non-negative decimal integer up to @max; -1 if not one. */
int parse_uint(const char *s, uint64_t max, uint64_t *out);

/* Parse a decimal number from 0 to @max, the whole of @s ("2.5", "1e3");
 * -1 if not one (no sign, no inf or nan, nothing after it). */
int parse_real(const char *s, double max, double *out);

/* How messages name input @path: "standard input" for "-", else @path. */
const char *input_name(const char *path);

/* Format a message into @buf (snprintf-style) and return -1, for error paths. */
int set_error(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * How far @model lies from @measured, in percent of @measured (+inf when
 * nothing was measured and the model says something, 0 when both are 0).
 */
double diff_pct(double model, double measured);

/*
 * The length (1-4) of the well-formed UTF-8 sequence at @s (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF); 0 when @s does
 * not start one.
 */
int utf8_len(const char *s);
/* Is all of @s well-formed UTF-8? */
int utf8_valid(const char *s);

/* Online CPUs, at least 1: the default number of parallel jobs. */
unsigned online_cpus(void);
/* The CPUs this process may run on (its affinity, as taskset sets it), at least 1. */
unsigned cpus_allowed(void);

/* Microseconds on the monotonic clock (from an arbitrary start). */
uint64_t monotonic_us(void);

/* xorshift32: the next of a deterministic sequence (never 0 from a nonzero *@s). */
uint32_t xorshift32(uint32_t *s);

#endif
