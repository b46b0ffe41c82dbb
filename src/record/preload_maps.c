/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * preload_maps.c - the table of preload_maps.h.  Only the VMM's mapping
 * thread writes (UML's kernel thread, QEMU's main thread while it sets
 * up); readers skip slots of length 0, and a slot's length is stored
 * last, with release order.
 */
#include "record/preload_maps.h"
#include "record/preload_log.h"

#include <sys/stat.h>
#include <sys/uio.h>

#define MAX_MAPS 512

static struct pl_map maps[MAX_MAPS];
static int nmaps;

void pl_map_add(uintptr_t addr, size_t len, off_t off)
{
	/* reuse a slot freed by pl_map_remove */
	int i, n = __atomic_load_n(&nmaps, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (maps[i].len == 0)
			break;
	if (i == MAX_MAPS)
		return;
	maps[i].addr = addr;
	maps[i].off = off;
	__atomic_store_n(&maps[i].len, len, __ATOMIC_RELEASE);
	if (i == n)
		__atomic_store_n(&nmaps, n + 1, __ATOMIC_RELEASE);
}

int pl_map_remove(uintptr_t a, size_t len)
{
	int i, n = __atomic_load_n(&nmaps, __ATOMIC_ACQUIRE), hit = 0;
	for (i = 0; i < n; i++) {
		size_t l = __atomic_load_n(&maps[i].len, __ATOMIC_ACQUIRE);
		if (l && a < maps[i].addr + l && maps[i].addr < a + len) {
			hit = 1;
			if (a <= maps[i].addr && maps[i].addr + l <= a + len)
				__atomic_store_n(&maps[i].len, 0, __ATOMIC_RELEASE);
		}
	}
	return hit;
}

void pl_map_logged(uintptr_t addr, size_t len, off_t off, int fd)
{
	struct rec r;
	struct stat st;
	pl_map_add(addr, len, off);
	pl_rec_start_at(&r, "M", 0);
	pl_put_u64(&r, (uint64_t)addr);
	pl_put_u64(&r, (uint64_t)len);
	pl_put_u64(&r, (uint64_t)off);
	pl_put_u64(&r, fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0);
	pl_rec_end(&r);
}

void pl_unmap_logged(uintptr_t addr, size_t len)
{
	struct rec r;
	if (!pl_map_remove(addr, len))
		return;
	pl_rec_start_at(&r, "U", 0);
	pl_put_u64(&r, (uint64_t)addr);
	pl_put_u64(&r, (uint64_t)len);
	pl_rec_end(&r);
}

const struct pl_map *pl_map_find(uintptr_t a)
{
	int i, n = __atomic_load_n(&nmaps, __ATOMIC_ACQUIRE);
	for (i = n - 1; i >= 0; i--) {
		const struct pl_map *m = &maps[i];
		size_t l = __atomic_load_n(&m->len, __ATOMIC_ACQUIRE);
		if (l && a >= m->addr && a < m->addr + l)
			return m;
	}
	return NULL;
}

int64_t pl_map_page(uintptr_t a)
{
	const struct pl_map *m = pl_map_find(a);
	return m ? (int64_t)((a - m->addr + (uintptr_t)m->off) / 4096) : -1;
}

void pl_log_io(const char *kind, uint64_t t, int f, const void *buf, size_t len, off_t off)
{
	struct rec r;
	pl_rec_start_at(&r, kind, t);
	pl_put_u64(&r, (uint64_t)pl_file_dev[f]);
	pl_put_u64(&r, (uint64_t)f);
	pl_put_u64(&r, (uint64_t)off);
	pl_put_u64(&r, (uint64_t)len);
	pl_put_i64(&r, pl_map_page((uintptr_t)buf));
	pl_rec_end(&r);
}

void pl_log_iov(const char *kind, uint64_t t, int f, const struct iovec *iov, int cnt,
		off_t off, size_t done)
{
	int i;
	for (i = 0; i < cnt && done > 0; i++) {
		size_t l = iov[i].iov_len < done ? iov[i].iov_len : done;
		if (l)
			pl_log_io(kind, t, f, iov[i].iov_base, l, off);
		off += (off_t)l;
		done -= l;
	}
}
