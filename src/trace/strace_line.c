/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * strace_line.c - one line of an strace log taken apart (strace_line.h).
 *
 * What strace 6 writes before a call: with -f or several -p a process id
 * left-aligned in five columns and a blank ("4971  ", "16877 "), or
 * "[pid  4971] " when it writes to a terminal; then with -t "HH:MM:SS ",
 * -tt "HH:MM:SS.micro ", -ttt "seconds.micro " (--timestamps gives other
 * precisions), -r the seconds since the line before, right-aligned
 * ("     0.000123 "), or -t and -r together "HH:MM:SS (+     0.000123) ".
 * Calls are "name(args) = result", padded to a column before "=", and
 * with -y a descriptor carries its file: "3</dev/shm/#626>(deleted)".
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/strace_line.h"
#include "util/util.h"

static char *skip_blanks(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The digits at @s: how many, their value in *@v (saturated). */
static size_t digits(const char *s, uint64_t *v)
{
	size_t n = 0;

	*v = 0;
	for (; isdigit((unsigned char)s[n]); n++)
		*v = *v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : *v * 10 + (uint64_t)(s[n] - '0');
	return n;
}

/* ".fraction" at @s into microseconds (digits past the sixth dropped). */
static size_t fraction(const char *s, uint64_t *us)
{
	size_t n = 1;

	*us = 0;
	if (*s != '.')
		return 0;
	for (; isdigit((unsigned char)s[n]); n++)
		if (n <= 6)
			*us = *us * 10 + (uint64_t)(s[n] - '0');
	for (size_t k = n; k <= 6; k++)
		*us *= 10;
	return n > 1 ? n : 0;
}

/* A time stamp at @s: its clock, value and length; 0 if none is there. */
static size_t time_stamp(const char *s, struct strace_line *l)
{
	uint64_t a, b, c, us;
	size_t n = digits(s, &a), m, k;

	if (!n)
		return 0;
	if (s[n] == ':') {	/* -t, -tt */
		m = digits(s + n + 1, &b);
		if (m != 2 || s[n + 1 + m] != ':' || digits(s + n + 2 + m, &c) != 2 ||
		    a > 23 || b > 59 || c > 60)
			return 0;
		n += 1 + m + 1 + 2;
		k = fraction(s + n, &us);
		l->clock = SC_DAY;
		l->t_us = ((a * 60 + b) * 60 + c) * 1000000 + us;
		return n + k;
	}
	k = fraction(s + n, &us);
	if (a > UINT64_MAX / 1000000 - 1)
		return 0;
	/* seconds since 1970 pass 10^8 in 1973: a smaller figure is -r's */
	if (a < 100000000 && !k)
		return 0;
	l->clock = a < 100000000 ? SC_DELTA : SC_EPOCH;
	l->t_us = a * 1000000 + us;
	return n + k;
}

/* Does @s end with @tail?  Then cut it off. */
static bool cut_tail(char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	if (n < t || strcmp(s + n - t, tail))
		return false;
	s[n - t] = '\0';
	return true;
}

/*
 * Past one element of a call's text at @s: a quoted string with its
 * escapes, a -y decoration after a descriptor ("<...>", a -yy socket's
 * "[...]" inside it), or one character.  Decorations are known by the
 * digit before them: strace escapes '<' and '>' in the paths.
 */
static char *past_element(char *start, char *s)
{
	if (*s == '"') {
		for (s++; *s && *s != '"'; s++)
			if (*s == '\\' && s[1])
				s++;
		return *s ? s + 1 : s;
	}
	if (*s == '<' && s > start && isdigit((unsigned char)s[-1])) {
		int square = 0;

		for (s++; *s && (*s != '>' || square); s++)
			square += *s == '[' ? 1 : *s == ']' && square ? -1 : 0;
		return *s ? s + 1 : s;
	}
	return s + 1;
}

/* The ')' that closes the '(' at @open, or NULL. */
static char *closing(char *open)
{
	int depth = 0;
	char *s = open;

	while (*s) {
		if (*s == '(' || *s == '[' || *s == '{')
			depth++;
		else if (*s == ')' || *s == ']' || *s == '}')
			if (--depth == 0)
				return *s == ')' ? s : NULL;
		s = past_element(open, s);
	}
	return NULL;
}

enum strace_body strace_call_kind(char *text, bool *detached)
{
	char *open = strchr(text, '('), *close, *eq;

	*detached = false;
	if (cut_tail(text, " <unfinished ...>"))
		return SB_UNFINISHED;
	if (cut_tail(text, " <detached ...>")) {
		*detached = true;
		return SB_UNFINISHED;
	}
	close = open ? closing(open) : NULL;
	if (!close)
		return SB_CUT;
	eq = skip_blanks(close + 1);
	if (eq[0] != '=' || (eq[1] != ' ' && eq[1] != '\0'))
		return SB_CUT;
	return eq[1] ? SB_CALL : SB_CUT;
}

/* The name at @s ("pread64" of "pread64(..."): its length, 0 if none. */
static size_t call_name(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return s[n] == '(' ? n : 0;
}

/* Is [@s, @end) one name, as "pread64" in "<... pread64 resumed>"? */
static bool one_name(const char *s, const char *end)
{
	const char *c;

	for (c = s; c < end; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return c > s;
}

static void set_name(struct strace_line *l, const char *s, size_t n)
{
	if (n >= sizeof(l->name))
		n = sizeof(l->name) - 1;
	memcpy(l->name, s, n);
	l->name[n] = '\0';
}

/* What follows the prefix. */
static int parse_body(char *s, struct strace_line *l, char *why, size_t len)
{
	size_t n;

	l->text = s;
	if (!strncmp(s, "--- ", 4)) {
		l->body = cut_tail(s, " ---") ? SB_SIGNAL : SB_CUT;
		return 0;
	}
	if (!strncmp(s, "+++ ", 4)) {
		l->body = cut_tail(s, " +++") ? SB_EXIT : SB_CUT;
		return 0;
	}
	if (!strncmp(s, "strace: ", 8) || !strncmp(s, "[ Process PID=", 14)) {
		l->body = SB_MESSAGE;
		return 0;
	}
	if (!strncmp(s, "<... ", 5)) {
		char *end = strstr(s, " resumed>");

		if (!end) {
			l->body = SB_CUT;
			return 0;
		}
		if (end < s + 5 || !one_name(s + 5, end))
			return set_error(why, len, "a '<... resumed>' without the call's name");
		set_name(l, s + 5, (size_t)(end - s - 5));
		l->body = SB_RESUMED;
		l->text = end + 9;
		return 0;
	}
	n = call_name(s);
	if (!n)
		return set_error(why, len, "not a system call, signal or exit as strace writes them");
	set_name(l, s, n);
	l->body = strace_call_kind(s, &l->detached);
	return 0;
}

int strace_line_parse(char *s, struct strace_line *l, char *why, size_t len)
{
	uint64_t v;
	size_t n;

	memset(l, 0, sizeof(*l));
	if (!*s)
		return set_error(why, len, "an empty line");
	if (!strncmp(s, "[pid", 4)) {
		char *p = skip_blanks(s + 4);

		n = digits(p, &v);
		if (!n || p[n] != ']' || !v || v > STRACE_PID_MAX)
			return set_error(why, len, "a '[pid N]' without a process id");
		l->pid = (long)v;
		s = p + n + 1;
	} else {
		n = digits(s, &v);
		if (n && (s[n] == ' ' || s[n] == '\t') && v && v <= STRACE_PID_MAX) {
			l->pid = (long)v;
			s += n;
		}
	}
	s = skip_blanks(s);	/* -r pads its field on the left */
	n = time_stamp(s, l);
	if (isdigit((unsigned char)*s) && (!n || (s[n] != ' ' && s[n] != '\t' && s[n])))
		return set_error(why, len, "'%.*s' is neither a process id nor a time stamp",
				 (int)strcspn(s, " \t"), s);
	s = skip_blanks(s + n);
	if (!strncmp(s, "(+", 2) && l->clock != SC_NONE) {	/* -r beside -t */
		char *end = strchr(s, ')');

		if (!end)
			return set_error(why, len, "a '(+ seconds)' without its ')'");
		s = skip_blanks(end + 1);
	}
	if (!*s) {	/* the prefix alone */
		l->body = SB_CUT;
		l->text = s;
		return 0;
	}
	return parse_body(s, l, why, len);
}

void strace_call_split(char *text, struct strace_call *c)
{
	char *open = strchr(text, '('), *close = closing(open), *s, *arg;
	int i;

	memset(c, 0, sizeof(*c));
	*close = '\0';
	c->result = skip_blanks(close + 1) + 2;
	/* the arguments: commas outside strings, brackets and decorations */
	s = open + 1;
	arg = s;
	for (int depth = 0; ; ) {
		if (!*s || (*s == ',' && !depth)) {
			bool end = !*s;

			*s = '\0';
			if (*skip_blanks(arg) || c->nargs) {
				if (c->nargs == STRACE_MAX_ARGS) {
					c->nargs = -1;
					return;
				}
				c->args[c->nargs++] = skip_blanks(arg);
			}
			if (end)
				break;
			arg = ++s;
			continue;
		}
		if (*s == '(' || *s == '[' || *s == '{')
			depth++;
		else if (*s == ')' || *s == ']' || *s == '}')
			depth--;
		s = past_element(text, s);
	}
	for (i = 0; i < c->nargs; i++) {
		char *lt = c->args[i] + strspn(c->args[i], "0123456789abcdefx");

		if (*lt == '<' && lt > c->args[i]) {
			*lt = '\0';
			c->file[i] = lt + 1;
		}
	}
}

int strace_number(const char *s, uint64_t *v)
{
	char *end;

	if (!strcmp(s, "NULL")) {
		*v = 0;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return *end || errno ? -1 : 0;
}

int strace_result(const char *s, uint64_t *v)
{
	char *end;

	if (*s == '?' || (*s == '-' && isdigit((unsigned char)s[1])))
		return 1;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	/* what strace adds: "(DELAYED)", "<0.000013>" of -T, a -y file */
	return errno || (*end && *end != ' ' && *end != '<') ? -1 : 0;
}
