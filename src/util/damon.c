/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * damon.c - the host's DAMON contexts paused while runs measure it (damon.h).
 *
 * The registry is a text file of lines "user PID START" and "paused PATH",
 * read and written whole under flock(2).  Everything damon_resume() does
 * is async-signal-safe: open, flock, pread, pwrite, ftruncate, kill and
 * hand-made number formatting, in buffers on the stack.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/damon.h"

#define REG_MAX 64		/* runs at once, contexts paused */
#define REG_PATH 256		/* a context's state file */
#define REG_START 24		/* a process's start time, as /proc says it */
#define REG_BYTES (REG_MAX * (REG_PATH + 48))

struct registry {
	int nr_users, nr_paused;
	pid_t user[REG_MAX];
	char start[REG_MAX][REG_START];
	char paused[REG_MAX][REG_PATH];
};

static const struct damon_paths *last_paths;
static volatile pid_t last_user;

const struct damon_paths *damon_host_paths(void)
{
	static const struct damon_paths run = {
		"/sys/kernel/mm/damon/admin/kdamonds/*/state", "/run/lock/anonsim-damon"
	};
	static const struct damon_paths tmp = {
		"/sys/kernel/mm/damon/admin/kdamonds/*/state", "/tmp/anonsim-damon.lock"
	};

	return access("/run/lock", W_OK) == 0 ? &run : &tmp;
}

static int write_state(const char *path, const char *state)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, state, strlen(state)) == (ssize_t)strlen(state);
	close(fd);
	return ok ? 0 : -1;
}

static int is_on(const char *path)
{
	char buf[8] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 2 && !strncmp(buf, "on", 2) && (n == 2 || buf[2] == '\n');
}

/* Copy the word at *@s (up to a space or newline) to @dst of @len; past it. */
static int take_word(const char **s, char *dst, size_t len)
{
	size_t n = 0;

	while (**s == ' ')
		(*s)++;
	while (**s && **s != ' ' && **s != '\n') {
		if (n + 1 >= len)
			return -1;
		dst[n++] = *(*s)++;
	}
	dst[n] = '\0';
	return n ? 0 : -1;
}

/* @pid in decimal into @out (16 bytes), without snprintf: for a handler. */
static void format_pid(char *out, pid_t pid)
{
	char digits[16];
	size_t n = 0, k = 0;

	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	while (n)
		out[k++] = digits[--n];
	out[k] = '\0';
}

static int parse_pid(const char *s, pid_t *pid)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 99999999)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*pid = (pid_t)v;
	return v > 0 ? 0 : -1;
}

/*
 * The start time of @pid in clock ticks since boot (/proc/PID/stat's 22nd
 * field), or "-" where there is no /proc; -1: no such process.
 */
static int start_time(pid_t pid, char *out)
{
	char path[32] = "/proc/", buf[1024];
	const char *s;
	ssize_t got;
	int fd, spaces = 0;

	format_pid(path + strlen(path), pid);
	memcpy(path + strlen(path), "/stat", 6);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (access("/proc/self/stat", R_OK) == 0)
			return -1;
		memcpy(out, "-", 2);
		return 0;
	}
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	/* the name in parentheses may hold spaces: count from its end */
	s = strrchr(buf, ')');
	if (!s)
		return -1;
	for (s++; *s && spaces < 20; s++)
		spaces += *s == ' ';
	return take_word(&s, out, REG_START);
}

static int user_alive(pid_t pid, const char *start)
{
	char now[REG_START];

	if (start_time(pid, now))
		return 0;
	if (!strcmp(now, "-"))
		return kill(pid, 0) == 0 || errno == EPERM;
	return !strcmp(now, start);
}

static void registry_parse(struct registry *r, const char *s)
{
	char word[REG_PATH];

	r->nr_users = r->nr_paused = 0;
	for (; *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s)) {
		const char *line = s;

		if (take_word(&line, word, sizeof(word)))
			continue;
		if (!strcmp(word, "user") && r->nr_users < REG_MAX &&
		    !take_word(&line, word, sizeof(word)) &&
		    !parse_pid(word, &r->user[r->nr_users]) &&
		    !take_word(&line, r->start[r->nr_users], REG_START))
			r->nr_users++;
		else if (!strcmp(word, "paused") && r->nr_paused < REG_MAX &&
			 !take_word(&line, r->paused[r->nr_paused], REG_PATH))
			r->nr_paused++;
	}
}

static size_t append(char *buf, size_t at, const char *s)
{
	size_t n = strlen(s);

	if (at + n < REG_BYTES) {
		memcpy(buf + at, s, n);
		at += n;
	}
	return at;
}

/* Open and lock the registry: its descriptor, -1 if it cannot be. */
static int registry_lock(const struct damon_paths *p, struct registry *r)
{
	char buf[REG_BYTES + 1];
	ssize_t n;
	int fd = open(p->registry, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

	/* made only where missing: an O_CREAT open of another user's file in
	 * a sticky directory (/tmp) is refused where protected_regular is set */
	if (fd < 0 && errno == ENOENT) {
		fd = open(p->registry, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST)
			fd = open(p->registry, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX))
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	n = pread(fd, buf, REG_BYTES, 0);
	buf[n > 0 ? n : 0] = '\0';
	registry_parse(r, buf);
	return fd;
}

/* Write the registry back and let it go. */
static void registry_unlock(int fd, const struct registry *r)
{
	char buf[REG_BYTES], pid[16];
	size_t at = 0;
	int i;

	for (i = 0; i < r->nr_users; i++) {
		at = append(buf, at, "user ");
		format_pid(pid, r->user[i]);
		at = append(buf, at, pid);
		at = append(buf, at, " ");
		at = append(buf, at, r->start[i]);
		at = append(buf, at, "\n");
	}
	for (i = 0; i < r->nr_paused; i++) {
		at = append(buf, at, "paused ");
		at = append(buf, at, r->paused[i]);
		at = append(buf, at, "\n");
	}
	if (pwrite(fd, buf, at, 0) == (ssize_t)at)
		(void)!ftruncate(fd, (off_t)at);
	close(fd);	/* the lock goes with it */
}

/* Drop the runs that have ended without leaving (and @user, if @drop). */
static void registry_prune(struct registry *r, pid_t user, int drop, int *found)
{
	int i, kept = 0;

	for (i = 0; i < r->nr_users; i++) {
		if (r->user[i] == user)
			*found = 1;
		if ((r->user[i] == user && drop) || !user_alive(r->user[i], r->start[i]))
			continue;
		r->user[kept] = r->user[i];
		memcpy(r->start[kept], r->start[i], REG_START);
		kept++;
	}
	r->nr_users = kept;
}

static int listed(const struct registry *r, const char *path)
{
	int i;

	for (i = 0; i < r->nr_paused; i++)
		if (!strcmp(r->paused[i], path))
			return 1;
	return 0;
}

/* Switch off every context that is on, listing it; 0, or -1 if one stays on. */
static int switch_off(const struct damon_paths *p, struct registry *r)
{
	glob_t g;
	size_t i;
	int rc = 0;

	if (glob(p->states, 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *path = g.gl_pathv[i];

		if (!is_on(path))
			continue;
		/* listed once off (signals are held): a run that may not
		 * switch it off leaves it to one that may */
		if (strlen(path) >= REG_PATH ||
		    (!listed(r, path) && r->nr_paused == REG_MAX) ||
		    write_state(path, "off")) {
			rc = -1;
			continue;
		}
		if (!listed(r, path))
			memcpy(r->paused[r->nr_paused++], path, strlen(path) + 1);
	}
	globfree(&g);
	return rc;
}

enum damon_state damon_pause(const struct damon_paths *p, pid_t user)
{
	struct registry r;
	sigset_t all, old;
	int fd, found = 0, failed = 0;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	fd = registry_lock(p, &r);
	if (fd < 0) {
		/* no registry, no sharing: leave DAMON as it is, and say so */
		glob_t g;
		size_t i;

		if (!glob(p->states, 0, NULL, &g)) {
			for (i = 0; i < g.gl_pathc; i++)
				failed |= is_on(g.gl_pathv[i]);
			globfree(&g);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		return failed ? DAMON_RUNNING : DAMON_NONE;
	}
	registry_prune(&r, user, 0, &found);
	if (!found) {
		if (r.nr_users < REG_MAX && !start_time(user, r.start[r.nr_users])) {
			r.user[r.nr_users++] = user;
			found = 1;
		}
	}
	/* not registered: nobody would switch it on again, so touch nothing */
	failed = found ? switch_off(p, &r) : -1;
	registry_unlock(fd, &r);
	if (found) {
		last_paths = p;
		last_user = user;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return failed ? DAMON_RUNNING : r.nr_paused ? DAMON_PAUSED : DAMON_NONE;
}

void damon_resume(const struct damon_paths *p, pid_t user)
{
	struct registry r;
	int fd = registry_lock(p, &r), found = 0, i;

	if (fd < 0)
		return;
	registry_prune(&r, user, 1, &found);
	if (found && !r.nr_users) {
		int kept = 0;

		/* one on already (something else switched it on; a second
		 * "on" is EBUSY) is done; one that cannot be switched on
		 * (this run may not) stays listed, for the next run out */
		for (i = 0; i < r.nr_paused; i++)
			if (!is_on(r.paused[i]) && write_state(r.paused[i], "on"))
				memmove(r.paused[kept++], r.paused[i], REG_PATH);
		r.nr_paused = kept;
	}
	registry_unlock(fd, &r);
}

void damon_resume_last(void)
{
	pid_t user = last_user;

	last_user = 0;
	if (user && last_paths)
		damon_resume(last_paths, user);
}

const char *damon_state_name(enum damon_state s)
{
	return s == DAMON_PAUSED ? "paused" : s == DAMON_RUNNING ? "running" : "none";
}
