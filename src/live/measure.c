/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * measure.c - counting what the kernel holds for a live run.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kernel/linux/devanon_uapi.h"
#include "live/measure.h"
#include "util/cachestat.h"
#include "util/util.h"
#include "util/xalloc.h"

#define PG_SIZE 4096u

int resident_view_open(struct resident_view *v, int fd, uint64_t npages,
		       char *err, size_t errlen)
{
	memset(v, 0, sizeof(*v));
	v->npages = npages;
	if (!npages)
		return 0;
	/* a shared read-only view never faults a page in: mincore only looks */
	v->map = mmap(NULL, npages * PG_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (v->map == MAP_FAILED) {
		v->map = NULL;
		return set_error(err, errlen, "cannot map %llu pages to count them: %s",
				 (unsigned long long)npages, strerror(errno));
	}
	v->vec = xmalloc(npages, "a residency vector");
	return 0;
}

int resident_view_open_cache(struct resident_view *v, int fd, uint64_t npages,
			     char *err, size_t errlen)
{
	if (resident_view_open(v, fd, npages, err, errlen))
		return -1;
	v->cache = true;
	v->fd = fd;
	return 0;
}

int resident_view_open_anon(struct resident_view *v, int fd, uint64_t npages,
			    char *err, size_t errlen)
{
	memset(v, 0, sizeof(*v));
	v->npages = npages;
	v->anon = true;
	v->fd = fd;
	v->vec = xmalloc(npages, "a residency vector");
	return 0;
}

static int64_t anon_resident(const struct resident_view *v)
{
	struct devanon_pages req;
	uint64_t i, done;
	int64_t n = 0;

	for (done = 0; done < v->npages; done += req.nr) {
		req.index = done;
		req.nr = v->npages - done < DEVANON_PAGES_MAX ? v->npages - done :
								DEVANON_PAGES_MAX;
		req.counts = 0;
		req.resident = (uintptr_t)(v->vec + done);
		if (ioctl(v->fd, DEVANON_IOC_PAGES, &req))
			return -1;
	}
	for (i = 0; i < v->npages; i++)
		n += v->vec[i];
	return n;
}

int64_t resident_pages(const struct resident_view *v)
{
	uint64_t i;
	int64_t n = 0;

	if (!v->npages)
		return 0;
	if (v->anon)
		return anon_resident(v);
	if (v->cache) {
		int64_t cached = cachestat_pages(v->fd, 0, v->npages * PG_SIZE);

		if (cached >= 0 || errno != ENOSYS)
			return cached;
	}
	if (mincore(v->map, v->npages * PG_SIZE, v->vec))
		return -1;
	for (i = 0; i < v->npages; i++)
		n += v->vec[i] & 1;
	return n;
}

void resident_view_close(struct resident_view *v)
{
	if (v->map)
		munmap(v->map, v->npages * PG_SIZE);
	free(v->vec);
	memset(v, 0, sizeof(*v));
}

int64_t allocated_pages(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	return (int64_t)st.st_blocks * 512 / PG_SIZE;
}

int64_t swap_used_pages(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long long total = -1, free_kb = -1, v;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SwapTotal: %lld kB", &v) == 1)
			total = v;
		else if (sscanf(line, "SwapFree: %lld kB", &v) == 1)
			free_kb = v;
	}
	fclose(f);
	return total < 0 || free_kb < 0 ? -1 : (total - free_kb) / 4;
}

int64_t read_number_file(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v;
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%lld", &v) == 1;
	fclose(f);
	return ok && v >= 0 ? v : -1;
}

int64_t readahead_kb_of(int fd)
{
	struct stat st;
	char path[128];
	int64_t kb;

	if (fstat(fd, &st))
		return -1;
	/* the backing device the page cache reads ahead for */
	snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	kb = read_number_file(path);
	if (kb >= 0)
		return kb;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	kb = read_number_file(path);
	if (kb >= 0)
		return kb;
	/* a partition: the queue is its disk's */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	return read_number_file(path);
}
