/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * density.c - the density sweep.  In the default sequential mode a replay
 * of N copies is a prefix of a replay of more, so two replays of --max
 * copies, the limited one and the demand one side by side, give every
 * point as each instance ends, and stop at the sweep's end.
 * Otherwise (--stagger, --check) a queue of (N, run) tasks is handed out
 * in order of N to a pool of threads, each task one replay_run(); or
 * density_bisect() finds the density with O(log N) replays.  Every
 * host model is private to its replay and the kernel-API context is per
 * thread, so replays need no locking; the lock guards only the sweep.
 *
 * The demand replay of a prefix sweep runs in a child process, not a
 * thread: two replays in one address space slow each other down (each
 * one's page faults, and the frees of memory that flush the other CPU's
 * TLB, take the same process's locks), and the limited replay, the one
 * the sweep waits for, took a fifth longer beside a demand thread than
 * alone (0.26-0.28 s against 0.21-0.22 s, 106 instances of
 * debian-boot-64M at -m 3G; beside the same replay as a second process,
 * 0.22-0.23 s).  The child sends each point up a socket and reads down it
 * how far the limited replay has come, so that it never runs more than
 * two points ahead of it.
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/density.h"
#include "model/jobs.h"
#include "util/cleanup.h"
#include "util/fdio.h"
#include "util/progress.h"
#include "util/util.h"
#include "util/xalloc.h"

enum fit { FIT_UNKNOWN, FIT_YES, FIT_NO };

struct sweep {
	pthread_mutex_t lock;
	char *const *paths;
	unsigned npaths;
	const struct strategy *s;
	enum anon_variant v;
	const struct replay_opts *base;
	struct density_point *out;
	enum fit *fit;			/* by N - 1: the limited run's verdict */
	unsigned max_n;
	unsigned runs_per_n;		/* 2, or 1 when memory is unlimited anyway */
	unsigned limit;			/* no task is handed out for N > limit */
	unsigned next;			/* next task */
	unsigned char *done;		/* by N - 1: its replays done, for the progress line */
	struct progress prog;
	int rc;
	char *err;
	size_t errlen;
};

/* Task t is N = t / runs_per_n + 1; its run 0 is the limited one, run 1 the demand. */
static unsigned task_n(const struct sweep *w, unsigned t)
{
	return t / w->runs_per_n + 1;
}

/* Called with the lock held once the limited run of N is known. */
static void note_fit(struct sweep *w, unsigned n, bool fits)
{
	w->fit[n - 1] = fits ? FIT_YES : FIT_NO;
	if (fits)
		return;
	/* two consecutive N that do not fit end the sweep at the second */
	if (n >= 2 && w->fit[n - 2] == FIT_NO && n < w->limit)
		w->limit = n;
	if (n < w->max_n && w->fit[n] == FIT_NO && n + 1 < w->limit)
		w->limit = n + 1;
}

/*
 * Called with the lock held as the replay of @n ends.  Only points within
 * the limit count: a replay of a point beyond the limit found later (a
 * demand run ahead of the limited one, a task already handed out) is not
 * part of the sweep, so the count never passes the total.
 */
static void progress(struct sweep *w, unsigned n)
{
	char what[300];
	unsigned i, finished = 0;

	w->done[n - 1]++;
	if (!w->base->progress)
		return;
	for (i = 0; i < w->limit; i++)
		finished += w->done[i];
	snprintf(what, sizeof(what), "density %s%s, %s%s", w->s->name,
		 w->s->has_variants ? (w->v == ANON_POSTED ? "/posted" : "/fixed") : "",
		 progress_name(w->paths[0]), w->npaths > 1 ? " and more" : "");
	progress_show(&w->prog, what, finished, w->limit * w->runs_per_n,
		      "replays at most");
}

/* The pool's next(): task t, unless a replay failed or t lies past the limit. */
static bool next_task(void *ctx, uint64_t *task)
{
	struct sweep *w = ctx;

	if (w->rc || task_n(w, w->next) > w->limit)
		return false;
	*task = w->next++;
	return true;
}

/* The pool's run(): the limited or the demand replay of N, into its own slot. */
static int run_task(void *ctx, uint64_t t, char *err, size_t errlen)
{
	struct sweep *w = ctx;
	struct replay_opts o = *w->base;
	unsigned n = task_n(w, (unsigned)t);
	struct density_point *p = &w->out[n - 1];
	bool limited = t % w->runs_per_n == 0;

	o.copies = n;
	o.series = NULL;
	o.progress = false;
	if (!limited)
		o.host_mem = 0;
	return replay_run(w->paths, w->npaths, w->s, w->v, &o,
			  limited ? &p->limited : &p->demand, err, errlen);
}

/* The pool's done(): the first failure is kept; a fit may end the sweep. */
static void task_done(void *ctx, uint64_t t, int rc, const char *err)
{
	struct sweep *w = ctx;
	unsigned n = task_n(w, (unsigned)t);
	struct density_point *p = &w->out[n - 1];

	if (rc && !w->rc) {
		w->rc = rc;
		snprintf(w->err, w->errlen, "%s", err);
	}
	if (rc)
		return;
	p->n = n;
	if (w->runs_per_n == 1)	/* no limit: the one run is both */
		p->demand = p->limited;
	if (t % w->runs_per_n == 0)
		note_fit(w, n, density_fits(p));
	progress(w, n);
}

static const struct job_ops sweep_jobs = {
	.next = next_task, .run = run_task, .done = task_done,
};

/* One of the two replays of a prefix sweep. */
struct prefix_run {
	struct sweep *w;
	bool limited;
	int sock;			/* to the other process, or -1 */
	int rc;
	char err[512];
	/* in the demand replay's process: the limited replay as last heard of */
	struct demand_pace {
		unsigned limited_n, limit;
		unsigned done;		/* the limited replay has ended */
	} pace;
};

/* What the demand replay's process sends up: a point, or its end. */
struct demand_msg {
	unsigned end;
	int rc;
	struct replay_result res;
	char err[512];
};

/*
 * The demand replay's process: its socket, and the lock of its writes (a
 * thread that runs out of memory sends its end while another may be
 * sending a point).
 */
static int demand_sock = -1;
static pthread_mutex_t demand_write = PTHREAD_MUTEX_INITIALIZER;

/* Send @m up; false if the parent is gone. */
static bool demand_send(const struct demand_msg *m)
{
	bool ok;

	pthread_mutex_lock(&demand_write);
	ok = !fd_write_full(demand_sock, m, sizeof(*m));
	pthread_mutex_unlock(&demand_write);
	return ok;
}

/* Point @res of a prefix replay into the sweep, with the lock held. */
static void note_point(struct sweep *w, bool limited, const struct replay_result *res)
{
	unsigned n = res->instances;
	struct density_point *p = &w->out[n - 1];

	if (n > w->limit)
		return;
	p->n = n;
	if (limited)
		p->limited = *res;
	else
		p->demand = *res;
	if (w->runs_per_n == 1)	/* no limit: the one run is both */
		p->demand = p->limited;
	if (limited)
		note_fit(w, n, density_fits(p));
	progress(w, n);
}

/* The limited replay's progress down @sock (-1: none); a child gone is seen up the socket. */
static void send_pace(int sock, unsigned limited_n, unsigned limit, bool done)
{
	struct demand_pace pace = { limited_n, limit, done };

	if (sock >= 0)
		fd_send_full(sock, &pace, sizeof(pace));
}

/*
 * In the demand replay's process: the limited replay's news, all that has
 * come (@wait false) or at least one message (@wait true).  The socket's
 * end means the sweep is over.
 */
static void read_pace(struct prefix_run *pr, bool wait)
{
	struct demand_pace pace;

	for (;;) {
		struct pollfd p = { .fd = pr->sock, .events = POLLIN };

		if (!wait && poll(&p, 1, 0) <= 0)
			return;		/* nothing more has come */
		if (fd_read_full(pr->sock, &pace, sizeof(pace))) {
			pr->pace.done = 1;
			pr->pace.limit = 0;
			return;
		}
		pr->pace = pace;
		wait = false;
	}
}

/* The replay of @res->instances copies, as the prefix replay passes it. */
static bool prefix_point(void *arg, const struct replay_result *res)
{
	struct prefix_run *pr = arg;
	struct sweep *w = pr->w;
	unsigned n = res->instances, limit;

	if (!pr->limited && pr->sock >= 0) {	/* in the demand replay's process */
		struct demand_msg m = { .res = *res };

		if (!demand_send(&m))
			return false;
		/*
		 * The demand replay, the faster (it never reclaims), waits for
		 * the limited one, whose points decide where the sweep ends,
		 * rather than replay points past the end: on a busy machine
		 * they would take the CPU from the replay the sweep waits for.
		 */
		read_pace(pr, false);
		while (!pr->pace.done && n >= pr->pace.limited_n + 2 && n < pr->pace.limit)
			read_pace(pr, true);
		return n < pr->pace.limit;
	}
	pthread_mutex_lock(&w->lock);
	note_point(w, pr->limited, res);
	limit = w->limit;
	pthread_mutex_unlock(&w->lock);
	if (pr->limited)
		send_pace(pr->sock, n, limit, false);
	return n < limit;
}

static void *prefix_replay(void *arg)
{
	struct prefix_run *pr = arg;
	struct sweep *w = pr->w;
	struct replay_opts o = *w->base;
	struct replay_result r;

	o.copies = w->max_n;
	o.series = NULL;
	o.progress = false;
	if (!pr->limited)
		o.host_mem = 0;
	o.prefix = prefix_point;
	o.prefix_arg = pr;
	pr->rc = replay_run(w->paths, w->npaths, w->s, w->v, &o, &r, pr->err,
			    sizeof(pr->err));
	return NULL;
}

/* die_oom() in the demand replay's process: the parent reports it, in one line. */
static void demand_oom(const char *message)
{
	static struct demand_msg m = { .end = 1, .rc = EXIT_OUTPUT };

	snprintf(m.err, sizeof(m.err), "%s", message);
	demand_send(&m);
	_exit(EXIT_OUTPUT);
}

/* The demand replay's process: its points up @sock, then its end. */
static void __attribute__((noreturn)) demand_child(struct prefix_run *pr)
{
	static struct demand_msg m = { .end = 1 };

	cleanup_disown();	/* the parent's outputs are the parent's */
	demand_sock = pr->sock;
	xalloc_on_oom(demand_oom);
	pr->pace = (struct demand_pace){ 0, pr->w->max_n, 0 };
	prefix_replay(pr);
	m.rc = pr->rc;
	memcpy(m.err, pr->err, sizeof(m.err));
	demand_send(&m);
	_exit(0);
}

/* In the parent: the demand replay's points as they come up, until its end. */
static void *demand_collect(void *arg)
{
	struct prefix_run *pr = arg;
	struct sweep *w = pr->w;
	struct demand_msg *m = xmalloc(sizeof(*m), "the demand replay's point");

	pr->rc = -1;	/* no end heard yet */
	while (!fd_read_full(pr->sock, m, sizeof(*m))) {
		if (m->end) {
			pr->rc = m->rc;
			memcpy(pr->err, m->err, sizeof(pr->err));
			break;
		}
		pthread_mutex_lock(&w->lock);
		note_point(w, false, &m->res);
		pthread_mutex_unlock(&w->lock);
	}
	free(m);
	return NULL;
}

/*
 * Start the demand replay in a child process, its points collected by a
 * thread of this one.  False if it could not start (the caller replays it
 * after the limited one instead).
 */
static bool demand_start(struct prefix_run *pr, pid_t *pid, pthread_t *collector)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return false;
	fflush(stdout);
	fflush(stderr);
	*pid = fork();
	if (*pid == 0) {
		close(sv[0]);
		pr->sock = sv[1];
		demand_child(pr);
	}
	close(sv[1]);
	pr->sock = sv[0];
	if (*pid > 0 && !pthread_create(collector, NULL, demand_collect, pr))
		return true;
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(sv[0]);
	pr->sock = -1;
	return false;
}

/* The demand replay's end: its collector joined, its process reaped. */
static void demand_finish(struct prefix_run *pr, pid_t pid, pthread_t collector)
{
	int status = 0;

	pthread_join(collector, NULL);
	close(pr->sock);
	pr->sock = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pr->rc != -1)
		return;
	pr->rc = EXIT_DATA;
	if (WIFSIGNALED(status))
		snprintf(pr->err, sizeof(pr->err),
			 "the demand replay's process was killed by signal %d", WTERMSIG(status));
	else
		snprintf(pr->err, sizeof(pr->err),
			 "the demand replay's process ended with status %d before its end",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* The sweep from one limited and one demand replay, the demand one in a child if @jobs > 1. */
static void prefix_sweep(struct sweep *w, unsigned jobs)
{
	struct prefix_run run[2] = { { .w = w, .limited = true, .sock = -1 },
				     { .w = w, .sock = -1 } };
	bool two = w->runs_per_n == 2;
	pthread_t collector;
	pid_t pid = 0;
	bool child = two && jobs > 1 && demand_start(&run[1], &pid, &collector);
	unsigned i;

	run[0].sock = run[1].sock;
	prefix_replay(&run[0]);
	pthread_mutex_lock(&w->lock);
	if (run[0].rc)
		w->limit = 0;	/* no sweep to finish: the demand replay stops */
	pthread_mutex_unlock(&w->lock);
	if (child) {
		send_pace(run[1].sock, 0, w->limit, true);
		demand_finish(&run[1], pid, collector);
	} else if (two && !run[0].rc) {
		prefix_replay(&run[1]);
	}
	for (i = 0; i < 2 && !w->rc; i++)
		if (run[i].rc) {
			w->rc = run[i].rc;
			snprintf(w->err, w->errlen, "%s", run[i].err);
		}
}

int density_sweep(char *const *paths, unsigned npaths, const struct strategy *s,
		  enum anon_variant v, const struct replay_opts *base,
		  unsigned max_n, unsigned jobs, struct density_point *out,
		  unsigned *filled, unsigned *density, char *err, size_t errlen)
{
	struct sweep w = {
		.paths = paths, .npaths = npaths, .s = s, .v = v, .base = base,
		.out = out, .max_n = max_n, .runs_per_n = base->host_mem ? 2 : 1,
		.limit = max_n, .err = err, .errlen = errlen,
	};
	unsigned n;

	*filled = *density = 0;
	if (!max_n)
		return 0;
	/*
	 * out is not cleared: each point up to the sweep's end is written
	 * whole (its N, and both replays' results), and one that would
	 * clear --max points, 2 KB each, before the demand replay's process
	 * forks would have this one copy every page it then writes.
	 */
	w.fit = xcalloc(max_n, sizeof(*w.fit), "the sweep's results");
	w.done = xcalloc(max_n, sizeof(*w.done), "the sweep's progress");
	progress_start(&w.prog, base->progress);
	pthread_mutex_init(&w.lock, NULL);
	if (base->stagger_us < 0 && !base->check) {
		prefix_sweep(&w, jobs);
		jobs = 0;	/* no pool */
	}
	if (jobs > max_n * w.runs_per_n)
		jobs = max_n * w.runs_per_n;
	if (jobs)
		jobs_run(jobs, &sweep_jobs, &w);
	progress_end(&w.prog);
	pthread_mutex_destroy(&w.lock);
	free(w.fit);
	free(w.done);
	if (w.rc)
		return w.rc;
	/* every N up to the limit was handed out, hence computed */
	*filled = w.limit;
	for (n = 1; n <= w.limit; n++)
		if (density_fits(&out[n - 1]))
			*density = n;
	return 0;
}

/* One run of N copies (the limited one or the demand one) into out[n - 1]. */
struct point_run {
	struct sweep *w;
	unsigned n;
	bool limited;
	pthread_t tid;
	int rc;
	char err[512];
};

static void *point_replay(void *arg)
{
	struct point_run *pr = arg;
	struct sweep *w = pr->w;
	struct density_point *p = &w->out[pr->n - 1];
	struct replay_opts o = *w->base;

	o.copies = pr->n;
	o.series = NULL;
	o.progress = false;
	if (!pr->limited)
		o.host_mem = 0;
	pr->rc = replay_run(w->paths, w->npaths, w->s, w->v, &o,
			    pr->limited ? &p->limited : &p->demand, pr->err, sizeof(pr->err));
	return NULL;
}

/*
 * Whether N copies fit, replaying them (limited and demand side by side
 * when @jobs > 1) unless known; -1 when a replay failed (w->rc set).
 */
static int bisect_fits(struct sweep *w, unsigned n, unsigned jobs, unsigned *order,
		       unsigned *nr)
{
	struct point_run run[2] = { { .w = w, .n = n, .limited = true },
				    { .w = w, .n = n } };
	struct density_point *p = &w->out[n - 1];
	bool threaded;
	unsigned i;

	if (w->fit[n - 1] != FIT_UNKNOWN)
		return w->fit[n - 1] == FIT_YES;
	threaded = jobs > 1 && !pthread_create(&run[1].tid, NULL, point_replay, &run[1]);
	point_replay(&run[0]);
	if (threaded)
		pthread_join(run[1].tid, NULL);
	else
		point_replay(&run[1]);
	for (i = 0; i < 2; i++)
		if (run[i].rc) {
			w->rc = run[i].rc;
			snprintf(w->err, w->errlen, "%s", run[i].err);
			return -1;
		}
	p->n = n;
	w->fit[n - 1] = density_fits(p) ? FIT_YES : FIT_NO;
	order[(*nr)++] = n;
	if (w->base->progress)
		fprintf(stderr, "\rdensity %s%s: bisection, %u points replayed   ", w->s->name,
			w->s->has_variants ? (w->v == ANON_POSTED ? "/posted" : "/fixed") : "",
			*nr);
	return w->fit[n - 1] == FIT_YES;
}

/*
 * The search: N = 1, 2, 4, ... while they fit, then bisection between the
 * last that fits and the first that does not; from there on N by N under
 * the sweep's end rule (two consecutive N that do not fit), so the boundary
 * N + 1 and N + 2 are replayed too and a point that fits again past one
 * that does not is found as the full sweep finds it.
 */
static int bisect_search(struct sweep *w, unsigned jobs, unsigned *order, unsigned *nr)
{
	unsigned lo = 0, hi = w->max_n + 1, n = 1;
	int f, prev;

	while (n <= w->max_n) {
		if ((f = bisect_fits(w, n, jobs, order, nr)) < 0)
			return -1;
		if (!f) {
			hi = n;
			break;
		}
		lo = n;
		if (n == w->max_n)
			break;
		n = n * 2 < w->max_n ? n * 2 : w->max_n;
	}
	while (hi - lo > 1) {
		unsigned m = lo + (hi - lo) / 2;

		if ((f = bisect_fits(w, m, jobs, order, nr)) < 0)
			return -1;
		if (f)
			lo = m;
		else
			hi = m;
	}
	for (prev = 0, n = hi + 1; hi <= w->max_n && n <= w->max_n; n++, prev = f) {
		if ((f = bisect_fits(w, n, jobs, order, nr)) < 0)
			return -1;
		if (!f && !prev)
			break;
	}
	return 0;
}

int density_bisect(char *const *paths, unsigned npaths, const struct strategy *s,
		   enum anon_variant v, const struct replay_opts *base,
		   unsigned max_n, unsigned jobs, struct density_point *out,
		   unsigned *filled, unsigned *density, unsigned *order,
		   char *err, size_t errlen)
{
	struct sweep w = {
		.paths = paths, .npaths = npaths, .s = s, .v = v, .base = base,
		.out = out, .max_n = max_n, .runs_per_n = 2, .limit = max_n,
		.err = err, .errlen = errlen,
	};
	unsigned i, nr = 0;

	*filled = *density = 0;
	if (!base->host_mem) {	/* every N fits: nothing to search */
		int rc = density_sweep(paths, npaths, s, v, base, max_n, jobs, out,
				       filled, density, err, errlen);

		for (i = 0; !rc && i < *filled; i++)
			order[i] = i + 1;
		return rc;
	}
	if (!max_n)
		return 0;
	memset(out, 0, max_n * sizeof(*out));
	w.fit = xcalloc(max_n, sizeof(*w.fit), "the sweep's results");
	bisect_search(&w, jobs, order, &nr);
	if (base->progress)
		fputs("\r\033[K", stderr);
	free(w.fit);
	if (w.rc)
		return w.rc;
	/* the points replayed, in order of N, to the front */
	for (i = 0; i < max_n; i++)
		if (out[i].n && (*filled)++ != i)
			out[*filled - 1] = out[i];
	for (i = 0; i < *filled; i++)
		if (density_fits(&out[i]))
			*density = out[i].n;
	return 0;
}
