/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * preload_log.c - log records and set-up shared by the preload libraries
 * (see preload_log.h): nothing here takes a lock or uses stdio.
 */
#define _GNU_SOURCE
#include "record/preload_log.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int pl_log_fd = -1;
char pl_file_path[PL_MAX_FILES][PL_PATH_MAX];
int pl_file_dev[PL_MAX_FILES];
int pl_nfiles;

uint64_t pl_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pl_put_str(struct rec *r, const char *s)
{
	while (*s && r->n < sizeof r->buf - 1)
		r->buf[r->n++] = *s++;
}

void pl_put_u64(struct rec *r, uint64_t v)
{
	char tmp[24];
	int i = 0;
	do {
		tmp[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (r->n < sizeof r->buf - 1)
		r->buf[r->n++] = ' ';
	while (i > 0 && r->n < sizeof r->buf - 1)
		r->buf[r->n++] = tmp[--i];
}

void pl_put_i64(struct rec *r, int64_t v)
{
	if (v < 0)
		pl_put_str(r, " -1");	/* only -1 is ever logged: "no page" */
	else
		pl_put_u64(r, (uint64_t)v);
}

void pl_rec_start_at(struct rec *r, const char *kind, uint64_t t)
{
	r->n = 0;
	pl_put_u64(r, t ? t : pl_now_ns());
	pl_put_str(r, " ");
	pl_put_str(r, kind);
	pl_put_u64(r, (uint64_t)getpid());
}

void pl_rec_end(struct rec *r)
{
	int saved = errno;
	r->buf[r->n++] = '\n';
	if (pl_log_fd >= 0) {
		/* O_APPEND: each record lands whole; a short write is dropped.
		 * The leading blank of the first number is left out. */
		ssize_t w = write(pl_log_fd, r->buf + 1, r->n - 1);
		(void)w;
	}
	errno = saved;
}

void pl_log_fallocate(uint64_t t, int f, int64_t off, int64_t len, int mode)
{
	struct rec r;
	pl_rec_start_at(&r, "A", t);
	pl_put_u64(&r, (uint64_t)pl_file_dev[f]);
	pl_put_u64(&r, (uint64_t)f);
	pl_put_u64(&r, (uint64_t)off);
	pl_put_u64(&r, (uint64_t)len);
	pl_put_u64(&r, (uint64_t)(unsigned)mode);
	pl_rec_end(&r);
}

void pl_open_log(const char *path)
{
	if (path)
		pl_log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

void pl_parse_devs(const char *p)
{
	char names[PL_MAX_FILES][16];
	int ndev = 0;

	while (p && *p && pl_nfiles < PL_MAX_FILES) {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		char rel[PL_PATH_MAX];
		size_t nl, pl;
		int d;
		if (!end)
			end = p + strlen(p);
		if (!eq || eq > end)
			break;
		nl = (size_t)(eq - p);
		pl = (size_t)(end - eq - 1);
		if (nl >= 16 || pl >= sizeof rel)
			break;
		for (d = 0; d < ndev; d++)
			if (strlen(names[d]) == nl && strncmp(names[d], p, nl) == 0)
				break;
		if (d == ndev) {
			memcpy(names[ndev], p, nl);
			names[ndev++][nl] = 0;
		}
		memcpy(rel, eq + 1, pl);
		rel[pl] = 0;
		if (!realpath(rel, pl_file_path[pl_nfiles]))
			strcpy(pl_file_path[pl_nfiles], rel);
		pl_file_dev[pl_nfiles++] = d;
		p = *end ? end + 1 : end;
	}
}

int pl_image_index(const char *target)
{
	int i;
	for (i = 0; i < pl_nfiles; i++)
		if (strcmp(target, pl_file_path[i]) == 0)
			return i;
	return -1;
}

long pl_fd_target(int fd, char *target, size_t size)
{
	char link[32] = "/proc/self/fd/", d[12];
	size_t L = strlen(link);
	int k = 0, m = fd;
	ssize_t n;

	do { d[k++] = (char)('0' + m % 10); m /= 10; } while (m);
	while (k)
		link[L++] = d[--k];
	link[L] = 0;
	n = readlink(link, target, size - 1);
	if (n < 0)
		return -1;
	target[n] = 0;
	return (long)n;
}

/*
 * Locked because a VMM that forks (UML's host processes) shares these
 * pages cold, and a host short of memory would swap them before anything
 * of the VMM's own: the recorder would change what it measures.
 */
static int lock_segment(struct dl_phdr_info *info, size_t size, void *self)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), addr = (uintptr_t)self;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || addr < start || addr >= end)
			continue;
		start &= ~(page - 1);
		end = (end + page - 1) & ~(page - 1);
		mlock((void *)start, end - start);	/* best effort: RLIMIT_MEMLOCK */
		return 1;
	}
	return 0;
}

void pl_lock_own_data(void *self)
{
	dl_iterate_phdr(lock_segment, self);
}
