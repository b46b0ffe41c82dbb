/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * strace_log.c - an strace log read into UML's calls (strace_log.h).
 *
 * Every line is either used, counted, or refused with its place: a line
 * strace does not write, a time stamp of another form than the log's, a
 * call of the four whose arguments or result cannot be read.  A line cut
 * off in its middle is refused, unless it is the last one, which strace
 * had not finished when the log was taken: that is counted and told.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "trace/strace_log.h"
#include "util/util.h"
#include "util/xalloc.h"

#define LINE_MAX_LEN 65536
#define HALF_DAY_US (12ULL * 3600 * 1000000)

/* A call begun on one line and still waiting for its "<... resumed>". */
struct pending {
	long pid;
	unsigned line;
	uint64_t t_us;
	char name[64];
	char *text;
};

struct reader {
	const char *path;
	struct strace_log *log;
	char *err;
	size_t errlen;
	unsigned line;
	bool last;		/* the line has no newline: the log ends inside it */
	/* the log's clock: set by its first stamped line */
	bool clock_set;
	unsigned clock_line;
	uint64_t now, day;	/* this line's time; -t and -tt: days passed */
	struct pending *pend;
	size_t npend, cappend;
};

static const char *const io_calls[] = { "pread64", "pwrite64", "mmap", "munmap" };
static const char *const vector_calls[] = { "preadv", "pwritev", "preadv2", "pwritev2" };

static int name_in(const char *name, const char *const *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return i;
	return -1;
}

/* One of the calls a trace is made of, or that could have been one. */
static bool ours(const char *name)
{
	return name_in(name, io_calls, 4) >= 0 || name_in(name, vector_calls, 4) >= 0;
}

static int bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A message "PATH:LINE: what"; returns EXIT_DATA. */
static int bad(struct reader *r, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	set_error(r->err, r->errlen, "%s:%u: ", r->path, r->line);
	n = strlen(r->err);
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - n, fmt, ap);
	va_end(ap);
	return EXIT_DATA;
}

/* The one copy of a -y decoration's text. */
static const char *intern(struct strace_log *log, const char *file)
{
	size_t i;

	if (!file)
		return NULL;
	for (i = 0; i < log->nfiles; i++)
		if (!strcmp(log->files[i], file))
			return log->files[i];
	log->files = xrealloc(log->files, (log->nfiles + 1) * sizeof(*log->files),
			      "the files of a log");
	return log->files[log->nfiles++] = xstrdup(file, "a file of a log");
}

static void add_call(struct strace_log *log, const struct log_call *c)
{
	if (log->n == log->cap) {
		log->cap = log->cap ? log->cap * 2 : 4096;
		log->calls = xrealloc(log->calls, log->cap * sizeof(*log->calls),
				      "the calls of a log");
	}
	log->calls[log->n++] = *c;
}

/* Argument @i of @c as a number, or a message. */
static int arg_number(struct reader *r, const char *name, const struct strace_call *c, int i,
		      uint64_t *v)
{
	if (!strace_number(c->args[i], v))
		return 0;
	return bad(r, "%s: argument %d '%.80s' is not a number", name, i + 1, c->args[i]);
}

static int arg_count(struct reader *r, const char *name, const struct strace_call *c, int n)
{
	if (c->nargs == n)
		return 0;
	return bad(r, "%s: expected %d arguments", name, n);
}

/* A descriptor argument: a number, or -1 (as strace prints mmap's). */
static int arg_fd(struct reader *r, const char *name, const struct strace_call *c, int i,
		  int *fd)
{
	uint64_t v;

	if (!strcmp(c->args[i], "-1")) {
		*fd = -1;
		return 0;
	}
	if (arg_number(r, name, c, i, &v))
		return EXIT_DATA;
	*fd = v > 0x7fffffff ? -1 : (int)v;	/* -e raw=mmap: 0xffffffff */
	return 0;
}

static int take_transfer(struct reader *r, const char *name, struct strace_call *c,
			 struct log_call *lc, uint64_t ret)
{
	uint64_t v[4];
	int i;

	if (arg_count(r, name, c, 4))
		return EXIT_DATA;
	if (c->args[1][0] == '"')
		return bad(r, "%s shows its buffer's data, not its address: record with strace -e raw=pread64,pwrite64",
			   name);
	for (i = 0; i < 4; i++)
		if (arg_number(r, name, c, i, &v[i]))
			return EXIT_DATA;
	if (!ret) {
		r->log->empty++;
		return 0;
	}
	lc->kind = name[1] == 'r' ? LC_READ : LC_WRITE;
	r->log->preads += lc->kind == LC_READ;
	lc->fd = v[0] > 0x7fffffff ? -1 : (int)v[0];
	lc->file = intern(r->log, c->file[0]);
	lc->addr = v[1];
	lc->len = ret;
	lc->off = v[3];
	add_call(r->log, lc);
	return 0;
}

static int take_mmap(struct reader *r, struct strace_call *c, struct log_call *lc, uint64_t ret)
{
	uint64_t flags;

	if (arg_count(r, "mmap", c, 6) || arg_number(r, "mmap", c, 1, &lc->len) ||
	    arg_fd(r, "mmap", c, 4, &lc->fd) || arg_number(r, "mmap", c, 5, &lc->off))
		return EXIT_DATA;
	/* MAP_SHARED, or MAP_SHARED_VALIDATE; as a number (-e raw, -X raw): bit 0 */
	lc->shared = strstr(c->args[3], "MAP_SHARED") ||
		     (!strace_number(c->args[3], &flags) && (flags & 1));
	lc->kind = LC_MMAP;
	lc->addr = ret;
	lc->file = intern(r->log, c->file[4]);
	add_call(r->log, lc);
	return 0;
}

/* A whole call, begun at @t_us on line @line. */
static int take_call(struct reader *r, const char *name, char *text, uint64_t t_us,
		     unsigned line)
{
	struct log_call lc = { .t_us = t_us, .line = line, .fd = -1 };
	struct strace_call c;
	uint64_t ret;
	int k = name_in(name, io_calls, 4);

	if (k < 0) {
		if (name_in(name, vector_calls, 4) >= 0)
			r->log->vector++;
		else
			r->log->other++;
		return 0;
	}
	strace_call_split(text, &c);
	switch (strace_result(c.result, &ret)) {
	case 1:
		r->log->failed++;
		return 0;
	case -1:
		return bad(r, "%s: result '%.80s' is not a number", name, c.result);
	}
	if (k < 2)
		return take_transfer(r, name, &c, &lc, ret);
	if (k == 2)
		return take_mmap(r, &c, &lc, ret);
	if (arg_count(r, "munmap", &c, 2) || arg_number(r, "munmap", &c, 0, &lc.addr) ||
	    arg_number(r, "munmap", &c, 1, &lc.len))
		return EXIT_DATA;
	lc.kind = LC_MUNMAP;
	add_call(r->log, &lc);
	return 0;
}

/* The log's last line, which strace had not finished. */
static int take_cut(struct reader *r, const char *name)
{
	if (!r->last)
		return bad(r, "%s", "cut off: neither a whole line nor the first half of a call (<unfinished ...>)");
	r->log->cut_line = r->line;
	snprintf(r->log->cut_name, sizeof(r->log->cut_name), "%s", name);
	if (ours(name))
		r->log->cut++;
	else if (*name)
		r->log->other++;
	return 0;
}

static struct pending *pending_of(struct reader *r, long pid)
{
	size_t i;

	for (i = 0; i < r->npend; i++)
		if (r->pend[i].pid == pid)
			return &r->pend[i];
	return NULL;
}

static void remove_pending(struct reader *r, struct pending *p)
{
	free(p->text);
	*p = r->pend[--r->npend];
}

/* A call that will never be resumed: its process ended, or the log. */
static void drop_pending(struct reader *r, struct pending *p)
{
	if (ours(p->name))
		r->log->cut++;
	else
		r->log->other++;
	remove_pending(r, p);
}

static void add_pending(struct reader *r, const struct strace_line *l)
{
	struct pending *p = pending_of(r, l->pid);

	if (p)		/* one call at a time per process: the other one ended */
		drop_pending(r, p);
	if (r->npend == r->cappend) {
		r->cappend = r->cappend ? r->cappend * 2 : 16;
		r->pend = xrealloc(r->pend, r->cappend * sizeof(*r->pend), "a log's unfinished calls");
	}
	p = &r->pend[r->npend++];
	p->pid = l->pid;
	p->line = r->line;
	p->t_us = r->now;
	snprintf(p->name, sizeof(p->name), "%s", l->name);
	p->text = xstrdup(l->text, "an unfinished call");
}

static int take_resumed(struct reader *r, const struct strace_line *l)
{
	struct pending *p = pending_of(r, l->pid);
	char *joined;
	bool detached;
	int rc = 0;

	/* [pid N] appears once strace traces two processes: the first may lack it */
	if (!p && l->pid)
		p = pending_of(r, 0);
	if (!p || strcmp(p->name, l->name)) {
		if (p && l->pid == p->pid)
			return bad(r, "'%s resumed' where the process's unfinished call (line %u) is %s",
				   l->name, p->line, p->name);
		if (ours(l->name))
			r->log->before++;
		else
			r->log->other++;
		return 0;
	}
	joined = xmalloc(strlen(p->text) + strlen(l->text) + 1, "a resumed call");
	strcpy(joined, p->text);
	strcat(joined, l->text);
	switch (strace_call_kind(joined, &detached)) {
	case SB_CALL:
		rc = take_call(r, p->name, joined, p->t_us, p->line);
		remove_pending(r, p);
		break;
	case SB_UNFINISHED:
		if (detached) {
			drop_pending(r, p);
			break;
		}
		free(p->text);
		p->text = joined;
		return 0;
	default:
		rc = take_cut(r, l->name);
		remove_pending(r, p);
	}
	free(joined);
	return rc;
}

/* The line's time on one clock for the whole log, in microseconds. */
static int line_time(struct reader *r, const struct strace_line *l)
{
	static const char *const forms[] = { "no time stamp", "a time of day (-t, -tt)",
					     "seconds since 1970 (-ttt)", "relative times (-r)" };
	if (!r->clock_set) {
		r->clock_set = true;
		r->clock_line = r->line;
		r->log->clock = l->clock;
	} else if (l->clock != r->log->clock) {
		return bad(r, "%s, where line %u has %s: one log, one form of time",
			   forms[l->clock], r->clock_line, forms[r->log->clock]);
	}
	switch (l->clock) {
	case SC_NONE:
		r->now = 0;
		break;
	case SC_EPOCH:
		r->now = l->t_us;
		break;
	case SC_DAY:	/* past midnight the time of day starts again */
		if (r->line > r->clock_line && l->t_us + r->day + HALF_DAY_US < r->now)
			r->day += 24 * 3600 * 1000000ULL;
		r->now = l->t_us + r->day;
		break;
	case SC_DELTA:
		r->now += l->t_us;
		break;
	}
	return 0;
}

static int take_line(struct reader *r, char *s)
{
	struct strace_line l;
	char why[160];
	struct pending *p;

	if (strace_line_parse(s, &l, why, sizeof(why)))
		return bad(r, "%s", why);
	if (l.body == SB_MESSAGE) {	/* strace's stderr: no prefix of its own */
		r->log->messages++;
		return 0;
	}
	if (line_time(r, &l))
		return EXIT_DATA;
	switch (l.body) {
	case SB_SIGNAL:
		r->log->signals++;
		return 0;
	case SB_EXIT:
		r->log->exits++;
		p = pending_of(r, l.pid);
		if (p)
			drop_pending(r, p);
		return 0;
	case SB_UNFINISHED:
		if (l.detached) {
			if (ours(l.name))
				r->log->cut++;
			else
				r->log->other++;
			return 0;
		}
		add_pending(r, &l);
		return 0;
	case SB_RESUMED:
		return take_resumed(r, &l);
	case SB_CALL:
		return take_call(r, l.name, l.text, r->now, r->line);
	default:
		return take_cut(r, l.name);
	}
}

static int by_time(const void *a, const void *b)
{
	const struct log_call *x = a, *y = b;

	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * Where strace's "Process N attached" (or detached) breaks into a line: on
 * a terminal strace writes it at once, in the middle of the line of the
 * clone that made the process; the line goes on, unprefixed, on the next.
 */
static char *spliced_message(char *s)
{
	char *m = strstr(s, "strace: Process ");
	long pid;
	int n = 0;
	char how[16];

	if (!m || m == s || sscanf(m, "strace: Process %ld %15s%n", &pid, how, &n) != 2 ||
	    m[n] || (strcmp(how, "attached") && strcmp(how, "detached")))
		return NULL;
	return m;
}

/* The gzip stream broke: where, and zlib's words without the path it adds. */
static int broken(struct reader *r, gzFile f, unsigned whole)
{
	int zerr;
	const char *why = gzerror(f, &zerr);
	size_t n = strlen(r->path);

	if (zerr == Z_ERRNO)
		why = strerror(errno);
	else if (!strncmp(why, r->path, n) && !strncmp(why + n, ": ", 2))
		why += n + 2;
	set_error(r->err, r->errlen, "%s: after line %u: %s", r->path, whole, why);
	return EXIT_DATA;
}

static int read_lines(struct reader *r, gzFile f)
{
	char *buf = xmalloc(LINE_MAX_LEN, "a line of a log"), *carry = NULL, *m;
	int rc = 0, zerr;

	while (!rc && gzgets(f, buf, LINE_MAX_LEN)) {
		size_t n = strlen(buf);

		r->line++;
		if (n == LINE_MAX_LEN - 1 && buf[n - 1] != '\n') {
			rc = bad(r, "line longer than %d bytes", LINE_MAX_LEN - 1);
			break;
		}
		r->last = !n || buf[n - 1] != '\n';
		if (r->last) {	/* the log's end, or where its gzip stream broke? */
			(void)gzgetc(f);
			if (gzerror(f, &zerr), zerr != Z_OK) {
				rc = broken(r, f, r->line - 1);
				break;
			}
		}
		buf[strcspn(buf, "\r\n")] = '\0';
		if (carry) {	/* the rest of a line strace's message broke */
			size_t c = strlen(carry);

			carry = xrealloc(carry, c + strlen(buf) + 1, "a line of a log");
			strcpy(carry + c, buf);
			rc = take_line(r, carry);
			free(carry);
			carry = NULL;
			continue;
		}
		m = spliced_message(buf);
		if (m) {
			r->log->messages++;
			*m = '\0';
			carry = xstrdup(buf, "a line of a log");
			continue;
		}
		rc = take_line(r, buf);
	}
	if (!rc && (gzerror(f, &zerr), zerr != Z_OK))
		rc = broken(r, f, r->line);
	if (!rc && carry) {	/* the log ended before the rest */
		r->last = true;
		rc = take_line(r, carry);
	}
	free(carry);
	free(buf);
	return rc;
}

int strace_log_read(const char *path, struct strace_log *log, char *err, size_t errlen)
{
	struct reader r = { .path = input_name(path), .log = log, .err = err,
			    .errlen = errlen };
	gzFile f;
	size_t i;
	int rc, fd;

	memset(log, 0, sizeof(*log));
	if (!strcmp(path, "-") && isatty(STDIN_FILENO)) {
		set_error(err, errlen, "standard input: a terminal, not a log");
		return EXIT_DATA;
	}
	errno = 0;
	/* standard input is read once, as it comes: no scratch copy needed */
	fd = strcmp(path, "-") ? -2 : dup(STDIN_FILENO);
	f = fd == -2 ? gzopen(path, "rb") : fd < 0 ? NULL : gzdopen(fd, "rb");
	if (fd >= 0 && !f)
		close(fd);
	if (!f) {
		if (!errno)	/* zlib's own allocation failed */
			die_oom("a log's gzip stream");
		set_error(err, errlen, "%s: %s", r.path, strerror(errno));
		return EXIT_DATA;
	}
	rc = read_lines(&r, f);
	gzclose(f);
	while (r.npend)
		drop_pending(&r, &r.pend[r.npend - 1]);
	free(r.pend);
	if (rc || !log->n)
		return rc;
	qsort(log->calls, log->n, sizeof(*log->calls), by_time);
	for (i = log->n; i-- > 0;)
		log->calls[i].t_us -= log->calls[0].t_us;
	return 0;
}

void strace_log_free(struct strace_log *log)
{
	size_t i;

	for (i = 0; i < log->nfiles; i++)
		free(log->files[i]);
	free(log->files);
	free(log->calls);
	memset(log, 0, sizeof(*log));
}
