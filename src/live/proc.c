/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proc.c - a live instance in a process of its own.
 *
 * Commands are 64-bit event counts on a pipe (0: exit); the process
 * answers each with one byte once the events are done.  It reports its own
 * failures on stderr, naming the trace, event and system call, and exits 2:
 * the parent sees the pipe close and reaps it.
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/proc.h"
#include "util/cleanup.h"
#include "util/fdio.h"
#include "util/util.h"
#include "util/xalloc.h"

static void __attribute__((noreturn))
proc_main(const char *path, const struct live_strategy *s, int memfd,
	  const struct live_device *dev, bool read_zeros, int in, int out)
{
	char err[1024], ok = 'd';
	struct trace_reader *r;
	const struct trace_event *ev;
	struct live_guest g;
	uint64_t n, i = 0;
	int rc;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* out of memory here ends this process alone: the parent's files,
	 * processes and cgroup are the parent's to remove, when it reaps it */
	cleanup_disown();
	xalloc_trace(path);
	if (fd_read_full(in, &n, sizeof(n)))	/* the go, once in its cgroup */
		_exit(EXIT_DATA);
	r = trace_open(path, err, sizeof(err));
	if (!r) {
		msg("%s", err);
		_exit(EXIT_DATA);
	}
	if (live_guest_init(&g, s, trace_header(r), memfd, dev, read_zeros, err, sizeof(err))) {
		msg("%s: %s", path, err);
		_exit(EXIT_DATA);
	}
	if (fd_write_full(out, &ok, 1))
		_exit(EXIT_DATA);
	while (!fd_read_full(in, &n, sizeof(n)) && n) {
		for (; n; n--, i++) {
			rc = trace_next(r, &ev);
			if (rc <= 0) {
				msg("%s: %s", path, rc < 0 ? trace_error(r) :
				    "the trace ended before the events the model replayed");
				_exit(EXIT_DATA);
			}
			if (live_guest_event(&g, ev, err, sizeof(err))) {
				msg("%s: event %llu (%s at %llu us): %s", path,
				    (unsigned long long)i, trace_kind_names[ev->kind],
				    (unsigned long long)ev->time_us, err);
				_exit(EXIT_DATA);
			}
		}
		if (fd_write_full(out, &ok, 1))
			_exit(EXIT_DATA);
	}
	live_guest_destroy(&g);
	trace_close(r);
	_exit(EXIT_OK);
}

static int reap(struct live_proc *p, char *err, size_t errlen)
{
	int status;

	if (p->to >= 0)
		close(p->to);
	if (p->from >= 0)
		close(p->from);
	p->to = p->from = -1;
	if (p->pid <= 0)
		return 0;
	while (waitpid(p->pid, &status, 0) < 0)
		if (errno != EINTR) {
			p->pid = 0;
			return set_error(err, errlen, "waitpid: %s", strerror(errno));
		}
	p->pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		return set_error(err, errlen, "a live instance died of signal %d%s",
				 WTERMSIG(status), WTERMSIG(status) == SIGKILL ?
				 " (killed: out of memory in its cgroup?)" : "");
	return set_error(err, errlen, "a live instance failed (exit status %d)",
			 WEXITSTATUS(status));
}

int live_proc_start(struct live_proc *p, const char *path,
		    const struct live_strategy *s, int memfd,
		    const struct live_device *dev, bool read_zeros,
		    int (*before_go)(pid_t pid, char *err, size_t errlen),
		    char *err, size_t errlen)
{
	int down[2], up[2];
	uint64_t go = 1;
	char c;

	p->pid = 0;
	p->to = p->from = -1;
	if (pipe(down))
		return set_error(err, errlen, "pipe: %s", strerror(errno));
	if (pipe(up)) {
		close(down[0]);
		close(down[1]);
		return set_error(err, errlen, "pipe: %s", strerror(errno));
	}
	fflush(stdout);
	fflush(stderr);
	p->pid = fork();
	if (p->pid < 0) {
		p->pid = 0;
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		return set_error(err, errlen, "fork: %s", strerror(errno));
	}
	if (p->pid == 0) {
		close(down[1]);
		close(up[0]);
		proc_main(path, s, memfd, dev, read_zeros, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	p->to = down[1];
	p->from = up[0];
	if (before_go && before_go(p->pid, err, errlen)) {
		live_proc_kill(p);
		return -1;
	}
	if (fd_write_full(p->to, &go, sizeof(go)) || fd_read_full(p->from, &c, 1))
		return reap(p, err, errlen) ? -1 : set_error(err, errlen, "a live instance stopped");
	return 0;
}

int live_proc_run(struct live_proc *p, uint64_t n, char *err, size_t errlen)
{
	char c;

	if (!n)
		return 0;
	if (fd_write_full(p->to, &n, sizeof(n)) || fd_read_full(p->from, &c, 1))
		return reap(p, err, errlen) ? -1 : set_error(err, errlen, "a live instance stopped");
	return 0;
}

int live_proc_stop(struct live_proc *p, char *err, size_t errlen)
{
	uint64_t zero = 0;

	if (p->pid <= 0)
		return 0;
	fd_write_full(p->to, &zero, sizeof(zero));
	return reap(p, err, errlen);
}

void live_proc_kill(struct live_proc *p)
{
	if (p->pid > 0)
		kill(p->pid, SIGKILL);
	reap(p, NULL, 0);
}
