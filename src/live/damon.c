/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * damon.c - the host's DAMON contexts paused for a run (damon.h).
 */
#include <config.h>

#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "live/damon.h"

#define DAMON_STATES "/sys/kernel/mm/damon/admin/kdamonds/*/state"
#define DAMON_MAX 64

/* the contexts switched off; kept for the signal handlers */
static char paused[DAMON_MAX][PATH_MAX];
static volatile int nr_paused;

static int write_state(const char *path, const char *state)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

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

enum damon_state damon_pause(void)
{
	enum damon_state st = DAMON_NONE;
	glob_t g;
	size_t i;

	if (glob(DAMON_STATES, 0, NULL, &g))
		return DAMON_NONE;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i];

		if (!is_on(p))
			continue;
		/* known before it is switched off: a signal between the two
		 * switches on a context that is on, which does no harm */
		if (nr_paused < DAMON_MAX && strlen(p) < PATH_MAX) {
			strcpy(paused[nr_paused], p);
			nr_paused = nr_paused + 1;
			if (!write_state(p, "off")) {
				if (st == DAMON_NONE)
					st = DAMON_PAUSED;
				continue;
			}
			nr_paused = nr_paused - 1;
		}
		st = DAMON_RUNNING;
	}
	globfree(&g);
	return st;
}

void damon_resume(void)
{
	int i, n = nr_paused;

	nr_paused = 0;
	for (i = 0; i < n; i++)
		write_state(paused[i], "on");
}

const char *damon_state_name(enum damon_state s)
{
	return s == DAMON_PAUSED ? "paused" : s == DAMON_RUNNING ? "running" : "none";
}
