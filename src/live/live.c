/*
 * live.c - one live run: the scratch images, the instance process, the
 * model beside it, and the comparison at each phase and at the end.
 *
 * The instance runs in a child process (so that a memory limit can later be
 * put on it alone).  It stops before each phase event and at the end of the
 * trace, and waits while the parent counts pages; the parent, reading the
 * same trace, has by then brought the model to the same event.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/live.h"
#include "live/measure.h"
#include "live/scratch.h"
#include "model/instance.h"
#include "strategy/registry.h"
#include "trace/trace.h"
#include "util/util.h"

#define PG_SHIFT 12

struct files {
	struct live_image images[2 * TRACE_MAX_DEVICES];
	char paths[2 * TRACE_MAX_DEVICES][4096];
	unsigned nr;
	struct live_device dev[TRACE_MAX_DEVICES];
	int memfd;
};

/* One comparison: before a phase event, or at the end. */
struct point {
	char name[TRACE_NAME_MAX];
	uint64_t time_us;
	int64_t tmpfs, tmpfs_blocks, cache, swap;
	uint64_t model_tmpfs, model_cache;
};

/* --- files --------------------------------------------------------------------- */

static struct live_image *new_image(struct files *f, uint64_t size, bool direct,
				    char *err, size_t errlen)
{
	struct live_image *im = &f->images[f->nr];
	char *path = f->paths[f->nr];

	im->fd = scratch_file(size, path, sizeof(f->paths[0]), err, errlen);
	im->dfd = -1;
	if (im->fd < 0)
		return NULL;
	f->nr++;
	im->npages = (size + 4095) >> PG_SHIFT;
	if (direct) {
		im->dfd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (im->dfd < 0) {
			set_error(err, errlen, "%s: cannot open O_DIRECT: %s", path, strerror(errno));
			return NULL;
		}
	}
	/* start with none of it cached */
	if (fdatasync(im->fd) || posix_fadvise(im->fd, 0, 0, POSIX_FADV_DONTNEED)) {
		set_error(err, errlen, "%s: cannot drop its page cache: %s", path, strerror(errno));
		return NULL;
	}
	return im;
}

/* An image per backing identity (shared by the devices naming it), a COW layer per device. */
static int make_files(struct files *f, const struct trace_header *h, bool direct,
		      char *err, size_t errlen)
{
	unsigned d, e;

	memset(f, 0, sizeof(*f));
	f->memfd = -1;
	for (d = 0; d < h->nr_devices; d++) {
		const struct trace_device *td = &h->devices[d];
		const char *base = td->cow[0] ? td->cow : td->backing;
		uint64_t size = 0;

		for (e = 0; e < d; e++) {
			const struct trace_device *te = &h->devices[e];

			if (!strcmp(base, te->cow[0] ? te->cow : te->backing))
				break;
		}
		if (e < d) {
			f->dev[d].image = f->dev[e].image;
		} else {
			for (e = d; e < h->nr_devices; e++) {
				const struct trace_device *te = &h->devices[e];

				if (!strcmp(base, te->cow[0] ? te->cow : te->backing) &&
				    te->size > size)
					size = te->size;
			}
			f->dev[d].image = new_image(f, size, direct, err, errlen);
			if (!f->dev[d].image)
				return -1;
		}
		if (td->cow[0]) {
			f->dev[d].cow = new_image(f, td->size, direct, err, errlen);
			f->dev[d].cow_written = calloc((td->size + 4095) >> PG_SHIFT, 1);
			if (!f->dev[d].cow)
				return -1;
			if (!f->dev[d].cow_written)
				return set_error(err, errlen, "out of memory");
		}
	}
	f->memfd = memfd_create("anonsim-live", MFD_CLOEXEC);
	if (f->memfd < 0)
		return set_error(err, errlen, "memfd_create: %s", strerror(errno));
	if (ftruncate(f->memfd, (off_t)h->memory))
		return set_error(err, errlen, "cannot size the memory file to %llu bytes: %s",
				 (unsigned long long)h->memory, strerror(errno));
	return 0;
}

static void close_files(struct files *f, const struct trace_header *h)
{
	unsigned i;

	for (i = 0; i < f->nr; i++) {
		close(f->images[i].fd);
		if (f->images[i].dfd >= 0)
			close(f->images[i].dfd);
	}
	for (i = 0; h && i < h->nr_devices; i++)
		free(f->dev[i].cow_written);
	if (f->memfd >= 0)
		close(f->memfd);
	f->nr = 0;
}

/* --- the instance process -------------------------------------------------------- */

static int wait_byte(int fd, char *c)
{
	ssize_t n;

	do
		n = read(fd, c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

static void send_byte(int fd, char c)
{
	ssize_t n;

	do
		n = write(fd, &c, 1);
	while (n < 0 && errno == EINTR);
}

/* Stop: tell the parent (@c: 'p' phase, 'e' end) and wait for its go. */
static void stop_here(int up, int down, char c)
{
	char go;

	send_byte(up, c);
	if (wait_byte(down, &go))
		_exit(EXIT_DATA);
}

static void __attribute__((noreturn))
instance_main(const char *path, const struct live_strategy *s, struct files *f,
	      int up, int down)
{
	char err[1024];
	struct trace_reader *r;
	const struct trace_event *ev;
	struct live_guest g;
	uint64_t i = 0;
	int rc;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	r = trace_open(path, err, sizeof(err));
	if (!r) {
		msg("live: %s", err);
		_exit(EXIT_DATA);
	}
	if (live_guest_init(&g, s, trace_header(r), f->memfd, f->dev, err, sizeof(err))) {
		msg("live: %s: %s", path, err);
		_exit(EXIT_DATA);
	}
	while ((rc = trace_next(r, &ev)) > 0) {
		if (ev->kind == EV_PHASE)
			stop_here(up, down, 'p');
		if (live_guest_event(&g, ev, err, sizeof(err))) {
			msg("live: %s: event %llu (%s at %llu us): %s", path,
			    (unsigned long long)i, trace_kind_names[ev->kind],
			    (unsigned long long)ev->time_us, err);
			_exit(EXIT_DATA);
		}
		i++;
	}
	if (rc < 0) {
		msg("live: %s", trace_error(r));
		_exit(EXIT_DATA);
	}
	stop_here(up, down, 'e');
	live_guest_destroy(&g);
	trace_close(r);
	_exit(EXIT_OK);
}

/* --- the model beside it ------------------------------------------------------- */

struct model {
	struct host h;
	struct instance in;
	bool started;
};

static int model_start(struct model *m, const struct live_strategy *s,
		       const struct trace_header *hdr, int64_t ra_kb,
		       char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (host_init(&m->h, 0, 0, RECLAIM_MODERN))
		return set_error(err, errlen, "out of memory for the model");
	m->h.geom = &shmem_geom_x86_64;
	m->h.ra_pages = (uint64_t)ra_kb / 4;
	m->h.owners = calloc(1, sizeof(*m->h.owners));
	m->h.nr_owners = 1;
	if (!m->h.owners) {
		host_destroy(&m->h);
		return set_error(err, errlen, "out of memory for the model");
	}
	if (instance_init(&m->in, 0, &m->h, strategy_find(s->name), ANON_FIXED, hdr,
			  true, false, err, errlen)) {
		host_destroy(&m->h);
		return -1;
	}
	m->started = true;
	return 0;
}

static void model_stop(struct model *m)
{
	if (!m->started)
		return;
	instance_teardown(&m->in);
	host_destroy(&m->h);
	m->started = false;
}

/* --- measuring ----------------------------------------------------------------- */

struct views {
	struct resident_view mem;
	struct resident_view images[2 * TRACE_MAX_DEVICES];
	unsigned nr;
};

static int open_views(struct views *v, const struct files *f, uint64_t npages,
		      char *err, size_t errlen)
{
	unsigned i;

	memset(v, 0, sizeof(*v));
	if (resident_view_open(&v->mem, f->memfd, npages, err, errlen))
		return -1;
	for (i = 0; i < f->nr; i++, v->nr++)
		if (resident_view_open(&v->images[i], f->images[i].fd, f->images[i].npages,
				       err, errlen))
			return -1;
	return 0;
}

static void close_views(struct views *v)
{
	unsigned i;

	resident_view_close(&v->mem);
	for (i = 0; i < v->nr; i++)
		resident_view_close(&v->images[i]);
	v->nr = 0;
}

static int measure(struct point *pt, const struct views *v, const struct files *f,
		   const struct model *m, char *err, size_t errlen)
{
	unsigned i;

	pt->tmpfs = resident_pages(&v->mem);
	pt->tmpfs_blocks = allocated_pages(f->memfd);
	pt->cache = 0;
	for (i = 0; i < v->nr; i++) {
		int64_t n = resident_pages(&v->images[i]);

		if (n < 0) {
			pt->cache = -1;
			break;
		}
		pt->cache += n;
	}
	if (pt->tmpfs < 0 || pt->tmpfs_blocks < 0 || pt->cache < 0)
		return set_error(err, errlen, "counting resident pages failed: %s",
				 strerror(errno));
	pt->swap = swap_used_pages();
	pt->model_tmpfs = m->in.resident;
	pt->model_cache = m->h.pages[CAT_CACHE];
	return 0;
}

static double diff_pct(double real, double model)
{
	return real ? 100.0 * (model - real) / real : (model ? INFINITY : 0);
}

static bool within(const struct point *pt, double tol)
{
	return pt->tmpfs == (int64_t)pt->model_tmpfs &&
	       fabs(diff_pct((double)pt->cache, (double)pt->model_cache)) <= tol;
}

static void print_point(FILE *out, const struct live_opts *o, const char *path,
			const struct live_strategy *s, const struct point *pt)
{
	if (o->csv) {
		fprintf(out, "%s,%s,%s,%.6f,%lld,%lld,%llu,%lld,%llu,%lld\n", path, s->name,
			pt->name, pt->time_us / 1e6, (long long)pt->tmpfs,
			(long long)pt->tmpfs_blocks, (unsigned long long)pt->model_tmpfs,
			(long long)pt->cache, (unsigned long long)pt->model_cache,
			(long long)pt->swap);
		return;
	}
	fprintf(out, "  %-16s %9.3f %9lld %9llu %9lld %9llu %+7.2f%%%s\n", pt->name,
		pt->time_us / 1e6, (long long)pt->tmpfs, (unsigned long long)pt->model_tmpfs,
		(long long)pt->cache, (unsigned long long)pt->model_cache,
		diff_pct((double)pt->cache, (double)pt->model_cache),
		within(pt, o->cache_tolerance) ? "" : "  beyond tolerance");
}

/* --- the run ------------------------------------------------------------------- */

/* Take the instance's next stop (@want) and compare there. */
static int compare_at(struct point *pt, char want, int up, const struct views *v,
		      const struct files *f, const struct model *m,
		      char *err, size_t errlen)
{
	char c;

	if (wait_byte(up, &c) || c != want)
		return -1;	/* the instance ended early: reap says why */
	return measure(pt, v, f, m, err, errlen);
}

static int reap(pid_t pid, char *err, size_t errlen)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return set_error(err, errlen, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		return set_error(err, errlen, "the live instance died of signal %d",
				 WTERMSIG(status));
	return set_error(err, errlen, "the live instance failed (exit status %d)",
			 WEXITSTATUS(status));
}

int live_run(const char *path, const struct live_strategy *s,
	     const struct live_opts *o, FILE *out, bool *beyond,
	     char *err, size_t errlen)
{
	struct trace_header hdr;
	struct trace_reader *r;
	const struct trace_event *ev;
	struct files f;
	struct views v;
	struct model m;
	char fstype[32];
	int up[2] = { -1, -1 }, down[2] = { -1, -1 };
	pid_t pid = -1;
	int64_t ra_kb;
	int rc = EXIT_DATA, n;

	*beyond = false;
	err[0] = '\0';
	memset(&v, 0, sizeof(v));
	memset(&m, 0, sizeof(m));
	r = trace_open(path, err, errlen);
	if (!r)
		return EXIT_DATA;
	hdr = *trace_header(r);
	trace_close(r);
	r = NULL;
	if (scratch_open(o->dir, fstype, sizeof(fstype), err, errlen))
		return EXIT_USAGE;
	if (make_files(&f, &hdr, s->direct, err, errlen))
		goto out;
	ra_kb = f.nr ? readahead_kb_of(f.images[0].fd) : 0;
	if (ra_kb < 0) {
		set_error(err, errlen, "%s: cannot tell the readahead window of its device",
			  o->dir);
		goto out;
	}
	if (open_views(&v, &f, hdr.memory >> PG_SHIFT, err, errlen) ||
	    pipe(up) || pipe(down)) {
		if (!err[0])
			set_error(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	fflush(out);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		set_error(err, errlen, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		instance_main(path, s, &f, up[1], down[0]);
	}
	scratch_watch_child(pid);
	close(up[1]);
	close(down[0]);
	up[1] = down[0] = -1;

	r = trace_open(path, err, errlen);
	if (!r || model_start(&m, s, &hdr, ra_kb, err, errlen))
		goto out;
	if (!o->csv)
		fprintf(out, "%s: %s, images on %s (%s), readahead %lld KiB\n"
			"  %-16s %9s %9s %9s %9s %9s %8s\n", path, s->name, fstype, o->dir,
			(long long)ra_kb, "point", "trace s", "tmpfs", "model", "cache",
			"model", "diff");
	else if (o->header)
		fputs("trace,strategy,point,time_s,tmpfs_pages,tmpfs_blocks_pages,"
		      "model_tmpfs_pages,cache_pages,model_cache_pages,swap_used_pages\n", out);
	while ((n = trace_next(r, &ev)) > 0) {
		if (ev->kind == EV_PHASE) {
			struct point pt = { .time_us = ev->time_us };

			snprintf(pt.name, sizeof(pt.name), "%s", ev->name);
			if (compare_at(&pt, 'p', up[0], &v, &f, &m, err, errlen))
				goto fail;
			print_point(out, o, path, s, &pt);
			*beyond |= !within(&pt, o->cache_tolerance);
			send_byte(down[1], 'c');
		}
		m.h.now_us = ev->time_us;
		instance_event(&m.in, ev);
	}
	if (n < 0) {
		set_error(err, errlen, "%s", trace_error(r));
		goto out;
	}
	{
		struct point pt = { .name = "end", .time_us = m.h.now_us };

		if (compare_at(&pt, 'e', up[0], &v, &f, &m, err, errlen))
			goto fail;
		print_point(out, o, path, s, &pt);
		*beyond |= !within(&pt, o->cache_tolerance);
		send_byte(down[1], 'c');
	}
	rc = reap(pid, err, errlen) ? EXIT_DATA : EXIT_OK;
	pid = -1;
	goto out;
fail:
	if (!err[0]) {
		/* the instance stopped where it should not: its status says why */
		close(down[1]);
		down[1] = -1;
		reap(pid, err, errlen);
		pid = -1;
	}
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (r)
		trace_close(r);
	model_stop(&m);
	close_views(&v);
	close_files(&f, &hdr);
	if (up[0] >= 0)
		close(up[0]);
	if (up[1] >= 0)
		close(up[1]);
	if (down[0] >= 0)
		close(down[0]);
	if (down[1] >= 0)
		close(down[1]);
	scratch_close();
	return rc;
}
