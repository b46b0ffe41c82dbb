/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest.h - one UML instance executed on the running kernel: its physical
 * memory is a memfd, its block devices are real files, and each trace event
 * becomes the system calls UML would make under a live strategy.
 */
#ifndef ANONSIM_LIVE_GUEST_H
#define ANONSIM_LIVE_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/*
 * How a live strategy differs from read-copy.  Each is what the model's
 * strategy of the same name does (src/strategy), in system calls.
 */
struct live_strategy {
	const char *name;
	bool direct;		/* images opened O_DIRECT: no host page cache */
	bool ubd_mmap;		/* aligned reads map image pages over memory, the
				 * memory file under them punched out */
	bool punch_free;	/* pages the guest frees are punched out */
	bool anon_dev;		/* memory is /dev/anon (LIVE_DEVANON): image pages
				 * mapped over memory free it by its map counts */
	const char *unavailable;	/* why it cannot run live, or NULL */
};

/* The /dev/anon driver's device (src/kernel/linux). */
#define LIVE_DEVANON "/dev/anon"

/* The live strategies, NULL-terminated, in the model's report order. */
extern const struct live_strategy *const live_strategies[];
const struct live_strategy *live_strategy_find(const char *name);
/* Why @s cannot run live on this machine now, or NULL if it can. */
const char *live_strategy_unavailable(const struct live_strategy *s);

/* A file standing for a backing identity: an image or a COW layer. */
struct live_image {
	int fd;			/* buffered */
	int dfd;		/* O_DIRECT, for strategies that ask for it */
	uint64_t npages;
};

struct live_device {
	struct live_image *image;	/* reads of blocks not in the COW layer */
	struct live_image *cow;		/* this instance's COW layer, or NULL */
	uint8_t *cow_written;		/* per device page */
};

struct live_guest {
	const struct live_strategy *s;
	const struct trace_header *hdr;
	int memfd;
	uint64_t npages;
	unsigned char *phys;		/* the memory file mapped whole; /dev/anon:
					 * page 0's own address in the window */
	uint8_t *state;			/* per page: PAGE_DATA, PAGE_FILE, PAGE_OWN */
	unsigned char *window;		/* UML's own mappings of its memory file */
	uint64_t window_size;		/* bytes reserved */
	uint64_t window_origin;		/* trace address at the window's middle */
	uint64_t phys_base;		/* /dev/anon: trace address of page 0 */
	struct live_device dev[TRACE_MAX_DEVICES];
	bool read_zeros;		/* a read leaves the sparse images' zeros */
	/* the devices' images as this instance opened them (dev[].image) */
	struct live_image own[TRACE_MAX_DEVICES];
	unsigned char *bounce;		/* page-aligned buffer for reads and writes */
	uint64_t bounce_len;
	/* a request event and its parts (trace version 2): its range read
	 * whole at the first part, into req_buf, which the parts copy from */
	bool req_open, req_read;
	struct trace_event req;
	unsigned char *req_buf;
	uint64_t req_len;
};

/*
 * Under /dev/anon (s->anon_dev) every mapping of the memory file counts,
 * so none is added to the trace's: memory is reached where the trace maps
 * it, at each page's own address (traces/FORMAT.md, Mappings) in the
 * window, and with pread/pwrite where it is not mapped.
 *
 * Set up @g over the memory file @memfd (sized to the trace's memory) and
 * the devices @dev (files opened by the caller).  Returns 0 or -1 (@err).
 */
int live_guest_init(struct live_guest *g, const struct live_strategy *s,
		    const struct trace_header *hdr, int memfd,
		    const struct live_device *dev, bool read_zeros, char *err, size_t errlen);

/* Execute one event; 0, or -1 with the failing call in @err. */
int live_guest_event(struct live_guest *g, const struct trace_event *ev,
		     char *err, size_t errlen);

void live_guest_destroy(struct live_guest *g);

#endif
