/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cleanup.c - remove a command's temporary files when a signal ends it.
 * The handler reads only what is complete: a slot's path is set before
 * the slot counts, and cleared before it is freed.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"

#define CLEANUP_MAX 16	/* a command has a few outputs open at a time */

static char *volatile paths[CLEANUP_MAX];
static void (*volatile also)(void);

void cleanup_now(void)
{
	int i;

	for (i = 0; i < CLEANUP_MAX; i++)
		if (paths[i])
			unlink(paths[i]);
	if (also)
		also();
}

void cleanup_also(void (*fn)(void))
{
	also = fn;
}

void cleanup_disown(void)
{
	int i;

	/* the parent frees its copies; this process only forgets them */
	for (i = 0; i < CLEANUP_MAX; i++)
		paths[i] = NULL;
	also = NULL;
}

static void on_signal(int sig)
{
	cleanup_now();
	_exit(128 + sig);
}

static void catch_signals(void)
{
	static int done;
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM,
		SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF };
	struct sigaction sa;
	unsigned i;

	if (done)
		return;
	done = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* a signal ignored by whoever started us stays ignored */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

int cleanup_add(const char *path)
{
	char *copy = strdup(path);
	int i;

	if (!copy)
		return -1;
	catch_signals();
	for (i = 0; i < CLEANUP_MAX; i++)
		if (!paths[i]) {
			paths[i] = copy;
			return 0;
		}
	free(copy);
	return -1;
}

void cleanup_forget(const char *path)
{
	int i;

	for (i = 0; i < CLEANUP_MAX; i++)
		if (paths[i] && !strcmp(paths[i], path)) {
			char *p = paths[i];

			paths[i] = NULL;
			free(p);
			return;
		}
}

int cleanup_temp_beside(const char *path, char **tmp)
{
	struct stat old;
	char *name = malloc(strlen(path) + sizeof(".tmpXXXXXX"));
	int fd, saved;

	*tmp = NULL;
	if (!name) {
		errno = ENOMEM;
		return -1;
	}
	sprintf(name, "%s.tmpXXXXXX", path);
	fd = mkstemp(name);
	if (fd < 0 || cleanup_add(name)) {
		saved = fd < 0 ? errno : ENOMEM;
		if (fd >= 0) {
			close(fd);
			unlink(name);
		}
		free(name);
		errno = saved;
		return -1;
	}
	if (!stat(path, &old) && S_ISREG(old.st_mode)) {
		/* the file it replaces keeps what it was; an owner we may not
		 * give (not root) stays ours, as a plain rewrite by us would */
		if (fchown(fd, old.st_uid, old.st_gid))
			(void)!fchown(fd, (uid_t)-1, old.st_gid);
		fchmod(fd, old.st_mode & 07777);
	} else {
		/* mkstemp makes it private; give it the mode a plain create would */
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	*tmp = name;
	return fd;
}
