/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest.c - trace events as UML's system calls, on the running kernel.
 *
 * The memory file is mapped whole once (the physical-memory view through
 * which the guest's reads and touches land); UML's own mappings of it, the
 * trace's mmap, munmap and mapdup events, are made as recorded inside a
 * reserved window of address space, relative to the first one.  Each page
 * remembers whether its tmpfs page holds data and whether an image page is
 * mapped over it, so that a write from a page the guest never filled reads
 * zeros, as it would, instead of allocating a tmpfs page the model would
 * not have.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live/guest.h"
#include "util/util.h"
#include "util/xalloc.h"

#define PG_SIZE 4096u
#define PG_SHIFT 12
/*
 * UML's mappings lie within 512 GiB of the first; where the address space
 * is smaller (a 64-bit UML guest has 512 GiB in all) the window is the
 * largest power of two down to 4 GiB that can be reserved.
 */
#define WINDOW_SIZE (1ULL << 40)
#define WINDOW_MIN (1ULL << 32)

/*
 * Under /dev/anon also PAGE_OWN: the memory file is mapped at the page's
 * own address; PAGE_FILE_AT: the image page over it still is.
 */
enum { PAGE_DATA = 1, PAGE_FILE = 2, PAGE_OWN = 4, PAGE_FILE_AT = 8 };

static const struct live_strategy live_read_copy = { .name = "read-copy" };
static const struct live_strategy live_devanon = {
	.name = "devanon", .ubd_mmap = true, .anon_dev = true,
};
static const struct live_strategy live_punch = { .name = "punch", .ubd_mmap = true };
static const struct live_strategy live_free_hint = { .name = "free-hint", .punch_free = true };
static const struct live_strategy live_odirect = { .name = "odirect", .direct = true };

const struct live_strategy *const live_strategies[] = {
	&live_read_copy, &live_devanon, &live_punch, &live_free_hint, &live_odirect, NULL
};

const struct live_strategy *live_strategy_find(const char *name)
{
	const struct live_strategy *const *s;

	for (s = live_strategies; *s; s++)
		if (!strcmp((*s)->name, name))
			return *s;
	return NULL;
}

const char *live_strategy_unavailable(const struct live_strategy *s)
{
	if (s->anon_dev && access(LIVE_DEVANON, R_OK | W_OK))
		return "needs the /dev/anon driver (src/kernel/linux), which no stock kernel has";
	return s->unavailable;
}

static int sys_error(char *err, size_t errlen, const char *call, uint64_t a, uint64_t b)
{
	return set_error(err, errlen, "%s(%llu, %llu) failed: %s", call,
			 (unsigned long long)a, (unsigned long long)b, strerror(errno));
}

/*
 * Each instance opens its disk images itself, as each UML does: a file
 * description of its own, with its own readahead state (struct file's
 * f_ra).  The descriptors it inherits share one description, and so one
 * readahead state, with every other instance: the instances' reads would
 * then break each other's sequential windows, which no two UMLs do.
 */
static int open_own(struct live_guest *g, unsigned d, char *err, size_t errlen)
{
	const struct live_image *im = g->dev[d].image;
	struct live_image *own = &g->own[d];
	char path[64];

	*own = *im;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", im->fd);
	own->fd = open(path, O_RDWR | O_CLOEXEC);
	if (own->fd < 0)
		return set_error(err, errlen, "cannot open the disk image again (%s): %s",
				 path, strerror(errno));
	g->dev[d].image = own;
	return 0;
}

int live_guest_init(struct live_guest *g, const struct live_strategy *s,
		    const struct trace_header *hdr, int memfd,
		    const struct live_device *dev, bool read_zeros, char *err, size_t errlen)
{
	unsigned d;

	memset(g, 0, sizeof(*g));
	g->s = s;
	g->hdr = hdr;
	g->memfd = memfd;
	g->read_zeros = read_zeros;
	g->npages = hdr->memory >> PG_SHIFT;
	memcpy(g->dev, dev, sizeof(g->dev));
	for (d = 0; d < TRACE_MAX_DEVICES; d++) {
		g->own[d].fd = -1;
		if (g->dev[d].image && open_own(g, d, err, errlen))
			return -1;
	}
	if (hdr->page_size != PG_SIZE || sysconf(_SC_PAGESIZE) != PG_SIZE)
		return set_error(err, errlen,
				 "live replay needs 4096-byte pages in the trace and on this host");
	g->state = xcalloc(g->npages, 1, "the live guest's page states");
	if (s->anon_dev)
		return 0;	/* memory is where the trace maps it */
	g->phys = mmap(NULL, g->npages << PG_SHIFT, PROT_READ | PROT_WRITE, MAP_SHARED,
		       memfd, 0);
	if (g->phys == MAP_FAILED) {
		g->phys = NULL;
		return sys_error(err, errlen, "mmap of the memory file", g->npages, 0);
	}
	return 0;
}

void live_guest_destroy(struct live_guest *g)
{
	unsigned d;

	for (d = 0; d < TRACE_MAX_DEVICES; d++)
		if (g->dev[d].image == &g->own[d] && g->own[d].fd >= 0)
			close(g->own[d].fd);
	if (g->phys && !g->s->anon_dev)
		munmap(g->phys, g->npages << PG_SHIFT);
	if (g->window)
		munmap(g->window, g->window_size);
	free(g->state);
	free(g->bounce);
	free(g->req_buf);
	memset(g, 0, sizeof(*g));
}

/* --- I/O ------------------------------------------------------------------- */

/* A page-aligned buffer *@buf of *@have bytes, at least @len now. */
static void grow(unsigned char **buf, uint64_t *have, uint64_t len)
{
	uint64_t want = (len + PG_SIZE - 1) & ~(uint64_t)(PG_SIZE - 1);

	if (want <= *have)
		return;
	free(*buf);
	*buf = aligned_alloc(PG_SIZE, want);
	if (!*buf)
		die_oom("the live guest's I/O buffer");
	*have = want;
}

static int grow_bounce(struct live_guest *g, uint64_t len, char *err, size_t errlen)
{
	grow(&g->bounce, &g->bounce_len, len);
	return 0;
}

/* pread/pwrite of the whole range, whatever the kernel splits it into */
static int io_full(bool write, int fd, unsigned char *buf, uint64_t len, uint64_t off,
		   char *err, size_t errlen)
{
	while (len) {
		ssize_t n = write ? pwrite(fd, buf, len, (off_t)off) :
				    pread(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return sys_error(err, errlen, write ? "pwrite" : "pread", off, len);
		}
		buf += n;
		len -= (uint64_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* The file device page @dpage of @d reads from now: its COW layer or image. */
static struct live_image *source(struct live_device *d, uint64_t dpage)
{
	return d->cow && d->cow_written[dpage] ? d->cow : d->image;
}

static int image_fd(const struct live_guest *g, const struct live_image *im)
{
	return g->s->direct ? im->dfd : im->fd;
}

/* Read the event's range into @buf, run by run of pages with one source. */
static int dev_read_range(struct live_guest *g, const struct trace_event *ev,
			  unsigned char *buf, char *err, size_t errlen)
{
	struct live_device *d = &g->dev[ev->dev];
	uint64_t end = ev->offset + ev->length;
	uint64_t i = ev->offset >> PG_SHIFT, last = (end - 1) >> PG_SHIFT;

	while (i <= last) {
		struct live_image *src = source(d, i);
		uint64_t j = i + 1, lo, hi;

		while (j <= last && source(d, j) == src)
			j++;
		lo = i << PG_SHIFT > ev->offset ? i << PG_SHIFT : ev->offset;
		hi = j << PG_SHIFT < end ? j << PG_SHIFT : end;
		if (io_full(false, image_fd(g, src), buf + (lo - ev->offset), hi - lo, lo,
			    err, errlen))
			return -1;
		i = j;
	}
	return 0;
}

/*
 * A part of a request copies its bytes from the request's range, read
 * whole at the first part: one read, as the host saw it.
 */
static int dev_read(struct live_guest *g, const struct trace_event *ev,
		    unsigned char *buf, char *err, size_t errlen)
{
	if (!g->req_open)
		return dev_read_range(g, ev, buf, err, errlen);
	if (!g->req_read) {
		grow(&g->req_buf, &g->req_len, g->req.length);
		if (dev_read_range(g, &g->req, g->req_buf, err, errlen))
			return -1;
		g->req_read = true;
	}
	memcpy(buf, g->req_buf + (ev->offset - g->req.offset), ev->length);
	return 0;
}

/* --- the memory file ----------------------------------------------------------- */

/* Map the memory file back over page P, where an image page was mapped. */
static int restore(struct live_guest *g, uint64_t p, char *err, size_t errlen)
{
	if (!(g->state[p] & PAGE_FILE))
		return 0;
	if (mmap(g->phys + (p << PG_SHIFT), PG_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, g->memfd, (off_t)(p << PG_SHIFT)) == MAP_FAILED)
		return sys_error(err, errlen, "mmap of the memory file back at page", p, 1);
	/* PAGE_OWN under /dev/anon alone: elsewhere a page the guest freed
	 * after a read holds nothing, and a write from it reads zeros */
	g->state[p] = (uint8_t)((g->state[p] & ~(PAGE_FILE | PAGE_FILE_AT)) |
				(g->s->anon_dev ? PAGE_OWN : 0));
	return 0;
}

static int punch(struct live_guest *g, uint64_t p, uint64_t nr, char *err, size_t errlen)
{
	uint64_t i;

	if (fallocate(g->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)(p << PG_SHIFT), (off_t)(nr << PG_SHIFT)))
		return sys_error(err, errlen, "fallocate(PUNCH_HOLE) at page", p, nr);
	for (i = p; i < p + nr; i++)
		g->state[i] &= (uint8_t)~PAGE_DATA;
	return 0;
}

/*
 * /dev/anon frees a page when nobody maps it: map something else over the
 * pages' own address, then the memory file back, empty.
 */
static int remap_own(struct live_guest *g, uint64_t p, uint64_t nr, char *err, size_t errlen)
{
	unsigned char *at = g->phys + (p << PG_SHIFT);
	uint64_t i;

	if (mmap(at, nr << PG_SHIFT, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED)
		return sys_error(err, errlen, "mmap over the own address of page", p, nr);
	if (mmap(at, nr << PG_SHIFT, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, g->memfd,
		 (off_t)(p << PG_SHIFT)) == MAP_FAILED)
		return sys_error(err, errlen, "mmap of the memory file back at page", p, nr);
	for (i = p; i < p + nr; i++)
		g->state[i] = (uint8_t)((g->state[i] & ~PAGE_DATA) | PAGE_OWN);
	return 0;
}

/* --- events -------------------------------------------------------------------- */

/*
 * The images are sparse: a read returns zeros where a real disk returns
 * data, and a tmpfs page of zeros is swapped without I/O and freed at once
 * (Linux 6.12's swap zeromap), which a guest's copy of its disk is not.
 * So each page a read fills gets a byte that is not zero, unless
 * --read-zeros.
 */
static void mark_data(const struct live_guest *g, unsigned char *buf, uint64_t len)
{
	uint64_t off;

	if (g->read_zeros)
		return;
	for (off = 0; off < len; off += PG_SIZE)
		buf[off] |= 0x80;
}

static int copy_read(struct live_guest *g, const struct trace_event *ev,
		     char *err, size_t errlen)
{
	uint64_t np = (ev->length + PG_SIZE - 1) >> PG_SHIFT, p;

	for (p = ev->page; p < ev->page + np; p++)
		if (restore(g, p, err, errlen))
			return -1;
	if (g->s->anon_dev) {
		/* through the file, as a copy through the mapping would fill it */
		if (grow_bounce(g, ev->length, err, errlen) ||
		    dev_read(g, ev, g->bounce, err, errlen))
			return -1;
		mark_data(g, g->bounce, ev->length);
		if (io_full(true, g->memfd, g->bounce, ev->length, ev->page << PG_SHIFT,
			    err, errlen))
			return -1;
	} else if (dev_read(g, ev, g->phys + (ev->page << PG_SHIFT), err, errlen)) {
		return -1;
	} else {
		mark_data(g, g->phys + (ev->page << PG_SHIFT), ev->length);
	}
	for (p = ev->page; p < ev->page + np; p++)
		g->state[p] |= PAGE_DATA;
	return 0;
}

/*
 * ubd-mmap: the data comes into the page cache (as the model's read does),
 * the memory file under pages not yet file-mapped is punched out, and the
 * image pages are mapped over physical memory.
 */
static int mmap_read(struct live_guest *g, const struct trace_event *ev,
		     char *err, size_t errlen)
{
	struct live_device *d = &g->dev[ev->dev];
	uint64_t np = ev->length >> PG_SHIFT, dpage = ev->offset >> PG_SHIFT;
	uint64_t i, run = 0;

	if (grow_bounce(g, ev->length, err, errlen) || dev_read(g, ev, g->bounce, err, errlen))
		return -1;
	if (!g->phys)
		return set_error(err, errlen, "a read mapped over page %llu before UML mapped its memory",
				 (unsigned long long)ev->page);
	/* /dev/anon: the image mapping's MAP_FIXED drops the counts itself */
	for (i = 0; i <= np && !g->s->anon_dev; i++) {
		if (i < np && !(g->state[ev->page + i] & PAGE_FILE)) {
			run++;
			continue;
		}
		if (run && punch(g, ev->page + i - run, run, err, errlen))
			return -1;
		run = 0;
	}
	for (i = 0; i < np; ) {
		struct live_image *src = source(d, dpage + i);
		uint64_t j = i + 1;

		while (j < np && source(d, dpage + j) == src)
			j++;
		if (mmap(g->phys + ((ev->page + i) << PG_SHIFT), (j - i) << PG_SHIFT, PROT_READ,
			 MAP_SHARED | MAP_FIXED | MAP_POPULATE, src->fd,
			 (off_t)((dpage + i) << PG_SHIFT)) == MAP_FAILED)
			return sys_error(err, errlen, "mmap of image pages over page",
					 ev->page + i, j - i);
		for (; i < j; i++)
			g->state[ev->page + i] = PAGE_FILE | PAGE_FILE_AT;
	}
	return 0;
}

static int do_write(struct live_guest *g, const struct trace_event *ev,
		    char *err, size_t errlen)
{
	struct live_device *d = &g->dev[ev->dev];
	uint64_t np = (ev->length + PG_SIZE - 1) >> PG_SHIFT, i = 0;
	unsigned char *src = g->phys ? g->phys + (ev->page << PG_SHIFT) : NULL;
	struct live_image *to = d->cow ? d->cow : d->image;

	if (g->s->anon_dev) {
		/* image pages from their mapping, memory through the file */
		if (grow_bounce(g, np << PG_SHIFT, err, errlen))
			return -1;
		for (i = 0; i < np; i++) {
			unsigned char *b = g->bounce + (i << PG_SHIFT);

			if (g->state[ev->page + i] & PAGE_FILE_AT)
				memcpy(b, src + (i << PG_SHIFT), PG_SIZE);
			else if (io_full(false, g->memfd, b, PG_SIZE,
					 (ev->page + i) << PG_SHIFT, err, errlen))
				return -1;
		}
		src = g->bounce;
		i = np;
	}
	for (; i < np && g->state[ev->page + i]; i++)
		;
	if (i < np) {
		/* a page the guest never filled reads as zeros, allocating nothing */
		if (grow_bounce(g, np << PG_SHIFT, err, errlen))
			return -1;
		for (i = 0; i < np; i++) {
			unsigned char *b = g->bounce + (i << PG_SHIFT);

			if (g->state[ev->page + i])
				memcpy(b, src + (i << PG_SHIFT), PG_SIZE);
			else
				memset(b, 0, PG_SIZE);
		}
		src = g->bounce;
	}
	if (io_full(true, image_fd(g, to), src, ev->length, ev->offset, err, errlen))
		return -1;
	if (d->cow)
		for (i = ev->offset >> PG_SHIFT; i <= (ev->offset + ev->length - 1) >> PG_SHIFT; i++)
			d->cow_written[i] = 1;
	return 0;
}

static int touch(struct live_guest *g, uint64_t p, uint64_t nr, char *err, size_t errlen)
{
	uint64_t i;

	for (i = p; i < p + nr; i++) {
		if (restore(g, i, err, errlen))
			return -1;
		/* the guest writes the page: tmpfs allocates it, or swaps it in */
		if (g->s->anon_dev) {
			unsigned char one = 1;

			if (io_full(true, g->memfd, &one, 1, i << PG_SHIFT, err, errlen))
				return -1;
		} else {
			*(volatile unsigned char *)(g->phys + (i << PG_SHIFT)) = 1;
		}
		g->state[i] |= PAGE_DATA;
	}
	return 0;
}

static int guest_free(struct live_guest *g, uint64_t p, uint64_t nr, char *err, size_t errlen)
{
	uint64_t i;

	if (g->s->punch_free)
		return punch(g, p, nr, err, errlen);
	if (g->s->ubd_mmap)
		for (i = p; i < p + nr; i++)
			if (restore(g, i, err, errlen))
				return -1;
	return 0;
}

/* Where trace address @addr of a @len-byte mapping lies in the window. */
static unsigned char *window_at(struct live_guest *g, uint64_t addr, uint64_t len,
				char *err, size_t errlen)
{
	uint64_t half, rel, size;

	if (!g->window) {
		for (size = WINDOW_SIZE; size >= WINDOW_MIN; size /= 2) {
			g->window = mmap(NULL, size, PROT_NONE,
					 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (g->window != MAP_FAILED)
				break;
		}
		if (g->window == MAP_FAILED) {
			g->window = NULL;
			sys_error(err, errlen, "reserving address space for UML's mappings",
				  WINDOW_MIN, 0);
			return NULL;
		}
		g->window_size = size;
		g->window_origin = addr;
	}
	half = g->window_size / 2;
	if (addr < g->window_origin && g->window_origin - addr > half)
		rel = g->window_size;
	else
		rel = addr >= g->window_origin ? half + (addr - g->window_origin) :
						 half - (g->window_origin - addr);
	if (rel >= g->window_size || len > g->window_size - rel) {
		set_error(err, errlen,
			  "mapping at 0x%llx lies more than %llu GiB from the first (0x%llx)",
			  (unsigned long long)addr, (unsigned long long)(half >> 30),
			  (unsigned long long)g->window_origin);
		return NULL;
	}
	return g->window + rel;
}

/*
 * /dev/anon: which pages a mapping or unmapping at trace address @addr
 * covers at their own address: they lose it, or (@own) have it now.
 */
static void own_pages(struct live_guest *g, uint64_t addr, uint64_t len, bool own)
{
	uint64_t base = g->phys_base, end = base + (g->npages << PG_SHIFT);
	uint64_t lo = addr > base ? addr : base;
	uint64_t hi = addr + len < end ? addr + len : end;
	uint64_t p;

	if (!g->phys || lo >= hi)
		return;
	for (p = (lo - base) >> PG_SHIFT; p < (hi - base) >> PG_SHIFT; p++)
		g->state[p] = own ? (uint8_t)((g->state[p] & ~(PAGE_FILE | PAGE_FILE_AT)) | PAGE_OWN) :
				    (uint8_t)(g->state[p] & ~(PAGE_OWN | PAGE_FILE_AT));
}

static int map_memory(struct live_guest *g, const struct trace_event *ev,
		      char *err, size_t errlen)
{
	unsigned char *at = window_at(g, ev->addr, ev->length, err, errlen);

	if (!at)
		return -1;
	if (g->s->anon_dev && !g->phys && ev->kind == EV_MMAP) {
		/* UML's first mmap says where its physical memory lies */
		g->phys_base = ev->addr - ev->offset;
		g->phys = window_at(g, g->phys_base, g->npages << PG_SHIFT, err, errlen);
		if (!g->phys)
			return -1;
	}
	if (ev->offset > (uint64_t)INT64_MAX - ev->length)
		return set_error(err, errlen, "mapping offset %llu is beyond what mmap takes",
				 (unsigned long long)ev->offset);
	if (mmap(at, ev->length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 g->memfd, (off_t)ev->offset) == MAP_FAILED)
		return sys_error(err, errlen, "mmap of the memory file at offset", ev->offset,
				 ev->length);
	if (g->s->anon_dev) {
		own_pages(g, ev->addr, ev->length, false);
		if (g->phys && ev->addr - ev->offset == g->phys_base)
			own_pages(g, ev->addr, ev->length, true);
	}
	return 0;
}

static int unmap_memory(struct live_guest *g, const struct trace_event *ev,
			char *err, size_t errlen)
{
	unsigned char *at;

	if (!g->window)
		return 0;	/* nothing mapped yet */
	at = window_at(g, ev->addr, ev->length, err, errlen);
	if (!at)
		return -1;
	/* keep the window reserved: inaccessible again, not given back */
	if (mmap(at, ev->length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED)
		return sys_error(err, errlen, "munmap at", ev->addr, ev->length);
	if (g->s->anon_dev)
		own_pages(g, ev->addr, ev->length, false);
	return 0;
}

int live_guest_event(struct live_guest *g, const struct trace_event *ev,
		     char *err, size_t errlen)
{
	if (g->req_open && !trace_request_part(&g->req, ev))
		g->req_open = false;	/* the first event that is no part ends it */
	switch (ev->kind) {
	case EV_REQUEST:
		g->req = *ev;
		g->req_open = true;
		g->req_read = false;
		return 0;
	case EV_READ:
		if (g->s->ubd_mmap && !(ev->offset % PG_SIZE) && !(ev->length % PG_SIZE))
			return mmap_read(g, ev, err, errlen);
		return copy_read(g, ev, err, errlen);
	case EV_WRITE:
		return do_write(g, ev, err, errlen);
	case EV_TOUCH:
		return touch(g, ev->page, ev->count, err, errlen);
	case EV_FREE:
		return guest_free(g, ev->page, ev->count, err, errlen);
	case EV_DISCARD:	/* freed by the guest, then given back: as the model does */
		if (guest_free(g, ev->page, ev->count, err, errlen))
			return -1;
		if (g->s->punch_free)
			return 0;
		if (g->s->anon_dev && g->phys)
			return remap_own(g, ev->page, ev->count, err, errlen);
		return punch(g, ev->page, ev->count, err, errlen);
	case EV_MMAP:
	case EV_MAPDUP:
		return map_memory(g, ev, err, errlen);
	case EV_MUNMAP:
		return unmap_memory(g, ev, err, errlen);
	case EV_PHASE:
	case EV_FOOTPRINT:
	case EV_HOST:		/* UML's own host processes: not replayed */
	case EV_NR_KINDS:
		break;
	}
	return 0;
}
