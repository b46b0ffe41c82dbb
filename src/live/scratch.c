/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scratch.c - scratch files of a live run, and their removal on a signal.
 *
 * The handler may only make async-signal-safe calls, so the paths to remove
 * are kept ready-made in static storage.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/scratch.h"
#include "util/cleanup.h"
#include "util/util.h"

#define TMPFS_MAGIC_NR 0x01021994

static char dir[PATH_MAX];
static char files[SCRATCH_MAX_FILES][PATH_MAX + 32];	/* dir + "/image-N" */
static volatile sig_atomic_t nr_files;
#define MAX_CHILDREN 256
static pid_t children[MAX_CHILDREN];
static volatile sig_atomic_t nr_children;
static char swap_file[PATH_MAX];
static char last_dir[PATH_MAX];
static char limit_file[PATH_MAX + 32];
static void (*volatile undo_last)(void);
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
/* the actions before scratch_open(), given back by scratch_close() */
static struct sigaction saved[sizeof(cleanup_signals) / sizeof(cleanup_signals[0])];

/* Async-signal-safe: called from the handlers too. */
static void remove_all(void)
{
	int i;

	if (swap_file[0])
		swapoff(swap_file);
	swap_file[0] = '\0';
	for (i = 0; i < nr_files; i++)
		unlink(files[i]);
	nr_files = 0;
	if (dir[0])
		rmdir(dir);
	dir[0] = '\0';
	if (last_dir[0])
		rmdir(last_dir);
	last_dir[0] = '\0';
	if (undo_last)
		undo_last();
	undo_last = NULL;
}

/* Async-signal-safe: everything a run made, undone (a signal, die_oom). */
static void abandon(void)
{
	int i;

	for (i = 0; i < nr_children; i++)
		kill(children[i], SIGKILL);
	for (i = 0; i < nr_children; i++)
		while (waitpid(children[i], NULL, 0) < 0 && errno == EINTR)
			;
	/* drop the memory files, and lift the limit on the pages still mapped,
	 * so that swapoff can read them back in */
	for (i = 3; i < 4096; i++)
		close(i);
	if (limit_file[0]) {
		int fd = open(limit_file, O_WRONLY);

		if (fd >= 0) {
			if (write(fd, "-1", 2) < 0)
				limit_file[0] = '\0';
			close(fd);
		}
	}
	remove_all();
}

static void on_signal(int sig)
{
	/* the command's own temporary files (util/cleanup.h), then abandon(),
	 * which scratch_open() registered there */
	cleanup_now();
	_exit(128 + sig);
}

/* Hold off the cleanup signals while the set of things to undo changes:
 * a signal then finds either the old set or the new one, never a file
 * made but not yet known, nor known but no longer undone. */
static void hold_signals(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static const char *fs_name(long type)
{
	switch ((unsigned long)type) {
	case 0xEF53: return "ext2/3/4";
	case 0x58465342: return "xfs";
	case 0x9123683E: return "btrfs";
	case 0x794C7630: return "overlayfs";
	case TMPFS_MAGIC_NR: return "tmpfs";
	default: return "other";
	}
}

int scratch_open(const char *parent, char *fstype, size_t fslen,
		 char *err, size_t errlen)
{
	struct statfs st;
	struct sigaction sa;
	sigset_t held;
	size_t i;

	if (statfs(parent, &st))
		return set_error(err, errlen, "%s: %s", parent, strerror(errno));
	snprintf(fstype, fslen, "%s", fs_name(st.f_type));
	if ((unsigned long)st.f_type == TMPFS_MAGIC_NR)
		return set_error(err, errlen,
				 "%s is a tmpfs: its files have no page cache of their own; give a directory on a disk filesystem (--dir)",
				 parent);
	if ((size_t)snprintf(dir, sizeof(dir), "%s/anonsim-live.XXXXXX", parent) >= sizeof(dir))
		return set_error(err, errlen, "%s: path too long", parent);
	hold_signals(&held);
	if (!mkdtemp(dir)) {
		set_error(err, errlen, "%s: cannot make a scratch directory: %s",
			  parent, strerror(errno));
		dir[0] = '\0';
		sigprocmask(SIG_SETMASK, &held, NULL);
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&sa.sa_mask, cleanup_signals[i]);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaction(cleanup_signals[i], &sa, &saved[i]);
	/* a signal and out of memory (util/xalloc.h) undo it all */
	cleanup_also(abandon);
	sigprocmask(SIG_SETMASK, &held, NULL);
	return 0;
}

int scratch_file(uint64_t size, char *path, size_t pathlen, char *err, size_t errlen)
{
	int n = nr_files, fd;
	sigset_t held;

	if (n >= SCRATCH_MAX_FILES)
		return set_error(err, errlen, "more than %d scratch files", SCRATCH_MAX_FILES);
	snprintf(files[n], sizeof(files[n]), "%s/image-%d", dir, n);
	hold_signals(&held);
	fd = open(files[n], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		nr_files = n + 1;
	sigprocmask(SIG_SETMASK, &held, NULL);
	if (fd < 0)
		return set_error(err, errlen, "%s: %s", files[n], strerror(errno));
	snprintf(path, pathlen, "%s", files[n]);
	if (ftruncate(fd, (off_t)size)) {
		set_error(err, errlen, "%s: cannot size to %llu bytes: %s", files[n],
			  (unsigned long long)size, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

void scratch_watch_child(pid_t pid)
{
	if (nr_children < MAX_CHILDREN) {
		children[nr_children] = pid;
		nr_children = nr_children + 1;
	}
}

void scratch_forget_children(void)
{
	nr_children = 0;
}

void scratch_swapoff_at_exit(const char *path)
{
	snprintf(swap_file, sizeof(swap_file), "%s", path ? path : "");
}

void scratch_remove_dir_last(const char *path)
{
	snprintf(last_dir, sizeof(last_dir), "%s", path);
	snprintf(limit_file, sizeof(limit_file), "%s/memory.limit_in_bytes", path);
}

void scratch_undo_at_exit(void (*undo)(void))
{
	undo_last = undo;
}

void scratch_close(void)
{
	sigset_t held;
	size_t i;

	/* undone first, then the actions given back: a signal meanwhile
	 * waits, and then finds nothing left to undo */
	hold_signals(&held);
	nr_children = 0;
	cleanup_also(NULL);
	remove_all();
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaction(cleanup_signals[i], &saved[i], NULL);
	sigprocmask(SIG_SETMASK, &held, NULL);
}
