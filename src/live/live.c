/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live.c - one live run: the model replays the trace (replay_run), and
 * before it applies each event it has the instance process execute the
 * events so far (in batches), so that the kernel and the model stand at the
 * same event whenever they are compared: before each phase event, and at
 * the end.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "live/cgroup.h"
#include "util/damon.h"
#include "live/live.h"
#include "live/measure.h"
#include "live/proc.h"
#include "live/scratch.h"
#include "model/instance.h"
#include "strategy/registry.h"
#include "trace/trace.h"
#include "util/util.h"
#include "util/xalloc.h"

#define PG_SHIFT 12
#define MAX_INSTANCES 64
#define MAX_IMAGES (SCRATCH_MAX_FILES - 1)	/* one file is the swap file */
#define BATCH_MAX 256	/* events between looks at the swap-out counter */

struct image {
	struct live_image im;
	struct resident_view view;
	char ident[256];	/* backing identity; "" for a COW layer */
};

struct inst {
	bool started;
	int memfd;
	struct resident_view view;
	struct live_device dev[TRACE_MAX_DEVICES];
	struct live_proc proc;
};

struct run {
	const char *path;
	const struct live_strategy *s;
	const struct live_opts *o;
	struct live_result *res;
	struct trace_header hdr;
	bool pressure;			/* in a memory cgroup */
	struct image images[MAX_IMAGES];
	unsigned nr_images;
	struct inst inst[MAX_INSTANCES];
	unsigned batch_k;		/* the events given to no process yet */
	uint64_t batch_n, last_us;
	int64_t swap_outs0, swap0;	/* the host's counters before the run */
	int64_t first_real_us;		/* -1: no swap-out seen yet */
	unsigned pt_cap;		/* room in res->pt */
	int64_t pace0_us;		/* paced: the clock when host time 0 was; -1: not paced */
};

/* --- files --------------------------------------------------------------------- */

static struct image *new_image(struct run *r, const char *ident, uint64_t size,
			       char *err, size_t errlen)
{
	struct image *img = &r->images[r->nr_images];
	char path[PATH_MAX + 64];

	if (r->nr_images == MAX_IMAGES) {
		set_error(err, errlen, "more than %d disk files", MAX_IMAGES);
		return NULL;
	}
	memset(img, 0, sizeof(*img));
	img->im.dfd = -1;
	img->im.fd = scratch_file(size, path, sizeof(path), err, errlen);
	if (img->im.fd < 0)
		return NULL;
	r->nr_images++;
	snprintf(img->ident, sizeof(img->ident), "%s", ident);
	img->im.npages = (size + 4095) >> PG_SHIFT;
	if (r->s->direct) {
		img->im.dfd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (img->im.dfd < 0) {
			set_error(err, errlen, "%s: cannot open O_DIRECT: %s", path, strerror(errno));
			return NULL;
		}
	}
	/* start with none of it cached */
	if (fdatasync(img->im.fd) || posix_fadvise(img->im.fd, 0, 0, POSIX_FADV_DONTNEED)) {
		set_error(err, errlen, "%s: cannot drop its page cache: %s", path, strerror(errno));
		return NULL;
	}
	if (resident_view_open_cache(&img->view, img->im.fd, img->im.npages, err, errlen))
		return NULL;
	return img;
}

static const char *base_ident(const struct trace_device *td)
{
	return td->cow[0] ? td->cow : td->backing;
}

/* The images every instance shares: one per backing identity, as large as its largest device. */
static int make_images(struct run *r, char *err, size_t errlen)
{
	unsigned d, e;

	for (d = 0; d < r->hdr.nr_devices; d++) {
		const char *id = base_ident(&r->hdr.devices[d]);
		uint64_t size = 0;

		for (e = 0; e < r->nr_images; e++)
			if (!strcmp(r->images[e].ident, id))
				break;
		if (e < r->nr_images)
			continue;
		for (e = d; e < r->hdr.nr_devices; e++)
			if (!strcmp(base_ident(&r->hdr.devices[e]), id) &&
			    r->hdr.devices[e].size > size)
				size = r->hdr.devices[e].size;
		if (!new_image(r, id, size, err, errlen))
			return -1;
	}
	return 0;
}

static struct image *image_of(struct run *r, const char *ident)
{
	unsigned i;

	for (i = 0; i < r->nr_images; i++)
		if (!strcmp(r->images[i].ident, ident))
			return &r->images[i];
	return NULL;
}

/* --- instances ----------------------------------------------------------------- */

/*
 * The physical-memory file of an instance: a memfd of the trace's memory,
 * or under /dev/anon an open /dev/anon file (its tmpfs file covers every
 * mapping).  Returns the descriptor, or -1 (@err).
 */
static int open_memory(struct run *r, const char *name, char *err, size_t errlen)
{
	int fd;

	if (r->s->anon_dev) {
		fd = open(LIVE_DEVANON, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			set_error(err, errlen, "%s: %s", LIVE_DEVANON, strerror(errno));
		return fd;
	}
	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return set_error(err, errlen, "memfd_create: %s", strerror(errno));
	if (ftruncate(fd, (off_t)r->hdr.memory)) {
		set_error(err, errlen, "cannot size a memory file to %llu bytes: %s",
			  (unsigned long long)r->hdr.memory, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int start_instance(struct run *r, unsigned k, char *err, size_t errlen)
{
	struct inst *in = &r->inst[k];
	unsigned d;

	in->memfd = open_memory(r, "anonsim-live", err, errlen);
	if (in->memfd < 0)
		return -1;
	in->started = true;
	for (d = 0; d < r->hdr.nr_devices; d++) {
		const struct trace_device *td = &r->hdr.devices[d];
		struct image *cow;

		in->dev[d].image = &image_of(r, base_ident(td))->im;
		if (!td->cow[0])
			continue;
		cow = new_image(r, "", td->size, err, errlen);
		if (!cow)
			return -1;
		in->dev[d].cow = &cow->im;
		in->dev[d].cow_written = xcalloc((td->size + 4095) >> PG_SHIFT, 1,
						 "a copy-on-write layer's map");
	}
	if ((r->s->anon_dev ?
	     resident_view_open_anon(&in->view, in->memfd, r->hdr.memory >> PG_SHIFT, err, errlen) :
	     resident_view_open(&in->view, in->memfd, r->hdr.memory >> PG_SHIFT, err, errlen)) ||
	    live_proc_start(&in->proc, r->path, r->s, in->memfd, in->dev, r->o->read_zeros,
			    r->pressure ? cgroup_add : NULL, err, errlen))
		return -1;
	scratch_watch_child(in->proc.pid);
	return 0;
}

/* Hand the events gathered so far to their process and wait for it. */
static int flush(struct run *r, char *err, size_t errlen)
{
	if (!r->batch_n)
		return 0;
	if (live_proc_run(&r->inst[r->batch_k].proc, r->batch_n, err, errlen))
		return -1;
	r->batch_n = 0;
	/* the cgroup's own swap, not the host's pswpout: other work may swap */
	if (r->pressure && r->first_real_us < 0 && cgroup_swap_pages() > 0)
		r->first_real_us = (int64_t)r->last_us;
	return 0;
}

#define STATS_FLUSH_US 2100000

/*
 * What an instance costs in its cgroup before its first event: its
 * process's anonymous pages (heap, stack, buffers), which reclaim swaps
 * like any other (the first pages a pressured run writes are these: the
 * cgroup's rss falls from 85 pages an instance to a few), and the rest
 * (page tables, kernel memory, the charge batch), which stays.
 */
static int probe_overhead(struct run *r, uint64_t *fixed, uint64_t *anon,
			  char *err, size_t errlen)
{
	struct live_device dev[TRACE_MAX_DEVICES];
	struct live_proc p;
	int64_t pages, anon_pages;
	unsigned d;
	int memfd = open_memory(r, "anonsim-live-probe", err, errlen);

	if (memfd < 0)
		return -1;
	memset(dev, 0, sizeof(dev));
	for (d = 0; d < r->hdr.nr_devices; d++)
		dev[d].image = &image_of(r, base_ident(&r->hdr.devices[d]))->im;
	if (live_proc_start(&p, r->path, r->s, memfd, dev, r->o->read_zeros, cgroup_add,
			    err, errlen)) {
		close(memfd);
		return -1;
	}
	/*
	 * memory.stat flushes the per-CPU statistics only past a threshold of
	 * updates (64 pages a CPU): a probe's few dozen pages wait for the
	 * periodic flush, every 2 s (flush_memcg_stats_dwork())
	 */
	usleep(STATS_FLUSH_US);
	pages = cgroup_pages();
	anon_pages = cgroup_anon_pages();
	live_proc_stop(&p, err, errlen);
	close(memfd);
	if (pages < 0 || anon_pages < 0)
		return set_error(err, errlen, "cannot read the memory cgroup's usage and memory.stat");
	if (anon_pages > pages)
		anon_pages = pages;	/* read apart: no more than the whole */
	*fixed = (uint64_t)(pages - anon_pages) * 4096;
	*anon = (uint64_t)anon_pages * 4096;
	return 0;
}

/* --- measuring ----------------------------------------------------------------- */

static int measure(struct run *r, struct live_point *pt, char *err, size_t errlen)
{
	unsigned i;
	int64_t n, swap;

	pt->tmpfs = pt->blocks = pt->cache = 0;
	for (i = 0; i < MAX_INSTANCES; i++) {
		if (!r->inst[i].started)
			continue;
		n = resident_pages(&r->inst[i].view);
		if (n < 0)
			return set_error(err, errlen, "mincore: %s", strerror(errno));
		pt->tmpfs += n;
		/* /dev/anon has no blocks of its own: its resident pages (no swap) */
		pt->blocks += r->s->anon_dev ? n : allocated_pages(r->inst[i].memfd);
	}
	for (i = 0; i < r->nr_images; i++) {
		n = resident_pages(&r->images[i].view);
		if (n < 0)
			return set_error(err, errlen, "mincore: %s", strerror(errno));
		pt->cache += n;
	}
	swap = r->pressure ? cgroup_swap_pages() : swap_used_pages() - r->swap0;
	pt->swap = swap < 0 ? 0 : swap;
	pt->swap_outs = host_swap_outs() - r->swap_outs0;
	pt->cgroup = r->pressure ? cgroup_pages() : -1;
	return 0;
}

static bool within(const struct live_point *pt, double tol)
{
	return pt->tmpfs == (int64_t)pt->m_tmpfs &&
	       fabs(diff_pct((double)pt->m_cache, (double)pt->cache)) <= tol;
}

/* Keep a point in the result; without a memory limit, real and model must agree. */
static void add_point(struct run *r, struct live_point *pt)
{
	struct live_result *res = r->res;

	pt->apart = !r->pressure && !within(pt, r->o->cache_tolerance);
	if (res->npt == r->pt_cap) {
		unsigned cap = r->pt_cap ? 2 * r->pt_cap : 64;

		res->pt = xrealloc(res->pt, cap * sizeof(*res->pt), "the points measured");
		r->pt_cap = cap;
	}
	res->pt[res->npt++] = *pt;
	res->beyond |= pt->apart;
}

/*
 * Paced (under pressure, unless --fast): wait until host time @now_us comes
 * on the clock, the events before it done.  Reclaim depends on the clock:
 * its heuristics read the memory cgroup's statistics, which the kernel
 * flushes every 2 s (mem_cgroup_flush_stats_ratelimited()), and swap is
 * written at the disk's pace.  A replay many times faster than the trace
 * reclaims with statistics from before the pressure began and measures a
 * host no UML runs on.
 */
static int pace(struct run *r, uint64_t now_us, char *err, size_t errlen)
{
	int64_t wait;

	if (r->pace0_us < 0)
		return 0;
	wait = r->pace0_us + (int64_t)now_us - (int64_t)monotonic_us();
	if (wait <= 0) {
		/* behind the clock: the machine is too busy to keep the pace */
		if (-wait > r->res->late_us)
			r->res->late_us = -wait;
		return 0;
	}
	if (flush(r, err, errlen))
		return -1;
	wait = r->pace0_us + (int64_t)now_us - (int64_t)monotonic_us();
	if (wait > 0) {
		struct timespec ts = { wait / 1000000, (wait % 1000000) * 1000 };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	return 0;
}

/* The model's hook: before event @ev of instance @k is applied. */
static int observe(void *arg, unsigned k, const struct trace_event *ev,
		   const struct host *h, char *err, size_t errlen)
{
	struct run *r = arg;

	if (pace(r, h->now_us, err, errlen))
		return EXIT_OUTPUT;

	if (!r->inst[k].started && (flush(r, err, errlen) || start_instance(r, k, err, errlen)))
		return EXIT_OUTPUT;
	if (r->batch_n && (r->batch_k != k || r->batch_n == BATCH_MAX || ev->kind == EV_PHASE) &&
	    flush(r, err, errlen))
		return EXIT_OUTPUT;
	if (ev->kind == EV_PHASE) {
		struct live_point pt = { .time_us = h->now_us };

		if (r->o->model.copies > 1)
			snprintf(pt.name, sizeof(pt.name), "%u:%s", k + 1, ev->name);
		else
			snprintf(pt.name, sizeof(pt.name), "%s", ev->name);
		if (measure(r, &pt, err, errlen))
			return EXIT_OUTPUT;
		pt.m_tmpfs = h->pages[CAT_TMPFS];
		pt.m_cache = h->pages[CAT_CACHE];
		pt.m_swap = h->swap_used;
		pt.m_swap_outs = h->swap_outs;
		pt.first_us = r->first_real_us;
		pt.m_first_us = h->first_swap_out_us;
		add_point(r, &pt);
	}
	r->batch_k = k;
	r->batch_n++;
	r->last_us = h->now_us;
	return 0;
}

/* --- the run ------------------------------------------------------------------- */

static void close_all(struct run *r)
{
	unsigned i, d;

	for (i = 0; i < MAX_INSTANCES; i++) {
		struct inst *in = &r->inst[i];

		if (!in->started)
			continue;
		live_proc_kill(&in->proc);
		resident_view_close(&in->view);
		close(in->memfd);
		for (d = 0; d < TRACE_MAX_DEVICES; d++)
			free(in->dev[d].cow_written);
		in->started = false;
	}
	scratch_forget_children();
	for (i = 0; i < r->nr_images; i++) {
		resident_view_close(&r->images[i].view);
		close(r->images[i].im.fd);
		if (r->images[i].im.dfd >= 0)
			close(r->images[i].im.dfd);
	}
	r->nr_images = 0;
	cgroup_close();		/* no process is left in it */
	swapfile_close();
	scratch_close();
}

int live_run(const char *path, const struct live_strategy *s,
	     const struct live_opts *o, struct live_result *res,
	     char *err, size_t errlen)
{
	static struct run r;
	struct replay_opts mo = o->model;
	struct replay_result rr;
	struct trace_reader *tr;
	char *paths[1] = { (char *)path }, why[256];
	int rc = EXIT_OUTPUT;	/* the system failed us, unless said otherwise */
	unsigned i;

	err[0] = '\0';
	memset(res, 0, sizeof(*res));
	res->path = path;
	res->s = s;
	res->instances = mo.copies;
	res->first_us = res->m_first_us = -1;
	memset(&r, 0, sizeof(r));
	r.path = path;
	r.s = s;
	r.o = o;
	r.res = res;
	r.first_real_us = -1;
	r.pressure = res->pressure = o->model.host_mem != 0;
	xalloc_trace(path);
	if (mo.copies > MAX_INSTANCES) {
		set_error(err, errlen, "at most %d instances live", MAX_INSTANCES);
		return EXIT_USAGE;
	}
	tr = trace_open(path, err, errlen);
	if (!tr)
		return EXIT_DATA;
	r.hdr = *trace_header(tr);
	trace_close(tr);
	if (instance_header_supported(&r.hdr, why, sizeof(why))) {	/* before any image */
		set_error(err, errlen, "%s: %s", path, why);
		return EXIT_DATA;
	}
	if (scratch_open(o->dir, res->fstype, sizeof(res->fstype), err, errlen))
		return EXIT_USAGE;
	/* registered first: the pause holds signals, and then a signal's
	 * undo finds it registered */
	scratch_undo_at_exit(damon_resume_last);
	res->damon = damon_state_name(damon_pause(damon_host_paths(), getpid()));
	if (r.pressure && (cgroup_open(o->model.host_mem, err, errlen) ||
			   (o->model.swap && swapfile_open(o->model.swap, err, errlen)))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (make_images(&r, err, errlen))
		goto out;
	res->readahead_kb = r.nr_images ? readahead_kb_of(r.images[0].im.fd) : 0;
	if (res->readahead_kb < 0) {
		set_error(err, errlen, "%s: cannot tell the readahead window of its device", o->dir);
		goto out;
	}
	if (r.pressure && !o->overhead_given &&
	    probe_overhead(&r, &mo.overhead, &mo.overhead_anon, err, errlen))
		goto out;
	if (!r.pressure)
		mo.swap = 0;
	res->overhead = mo.overhead;
	res->overhead_anon = mo.overhead_anon;
	res->host_mem = mo.host_mem;
	res->swap = mo.swap;
	if (o->probe_only) {
		rc = EXIT_OK;
		goto out;
	}
	mo.readahead_kb = res->readahead_kb;
	mo.share = true;
	mo.no_host_events = true;	/* no UML runs here, nor its host processes */
	mo.series = NULL;
	mo.progress = false;
	mo.observe = observe;
	mo.observe_arg = &r;
	r.swap_outs0 = host_swap_outs();
	r.swap0 = swap_used_pages();
	res->paced = r.pressure && !o->fast;
	r.pace0_us = res->paced ? (int64_t)monotonic_us() : -1;

	rc = replay_run(paths, 1, strategy_find(s->name), ANON_FIXED, &mo, &rr, err, errlen);
	if (rc)
		goto out;
	rc = EXIT_OUTPUT;
	if (flush(&r, err, errlen))
		goto out;
	{
		struct live_point pt = { .name = "end", .time_us = rr.end_us };

		if (measure(&r, &pt, err, errlen))
			goto out;
		pt.m_tmpfs = rr.final[CAT_TMPFS];
		pt.m_cache = rr.final[CAT_CACHE];
		pt.m_swap = rr.swap_final;
		pt.m_swap_outs = rr.swap_outs;
		pt.first_us = r.first_real_us;
		pt.m_first_us = rr.first_swap_out_us;
		add_point(&r, &pt);
	}
	for (i = 0; i < MAX_INSTANCES; i++)
		if (r.inst[i].started && live_proc_stop(&r.inst[i].proc, err, errlen))
			goto out;
	res->first_us = r.first_real_us;
	res->m_first_us = rr.first_swap_out_us;
	rc = EXIT_OK;
out:
	close_all(&r);
	return rc;
}

void live_result_free(struct live_result *res)
{
	free(res->pt);
	res->pt = NULL;
	res->npt = 0;
}
