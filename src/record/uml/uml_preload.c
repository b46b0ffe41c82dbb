/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uml_preload.c - LD_PRELOAD library for the User-Mode Linux binary.
 *
 * Logs what matters to host memory: UML's mmap/munmap of its physical-memory
 * file, pread/pwrite (and preadv/pwritev) on the disk images named in
 * ANONSIM_REC_DEVS, with the buffer translated to a physical page, and
 * fallocate on those images (ubd turns the guest's discards and
 * write-zeroes into punch-hole and zero-range calls, which drop the ranges
 * from the host's page cache).
 *
 * UML calls these from its io thread and its signal handlers, so nothing here
 * may take a lock or use stdio: each record is formatted on the stack and
 * written with one write(2) to an O_APPEND log, and shared tables are
 * updated with atomics only.
 *
 * Environment:
 *   ANONSIM_REC_LOG   log file (appended)
 *   ANONSIM_REC_DEVS  NAME=PATH[,NAME=PATH...] device name of each image
 *                     file (for a copy-on-write device: both the layer and
 *                     its backing file, each with the device's name)
 *   ANONSIM_REC_SHM   directory of the physical-memory file (default /dev/shm)
 *
 * Log lines (times in CLOCK_MONOTONIC nanoseconds):
 *   T P PID FD INODE               fd FD is a deleted file in the shm directory
 *   T M PID ADDR LEN OFF INODE     mmap of such a file
 *   T U PID ADDR LEN               munmap overlapping one of those mappings
 *   T R PID DEV FILE OFF LEN PAGE  pread of device DEV (index); FILE = index
 *   T W PID DEV FILE OFF LEN PAGE  of the image path, OFF the file offset;
 *                                  PAGE is -1 outside the mapped file
 *   T A PID DEV FILE OFF LEN MODE  fallocate of device DEV that succeeded;
 *                                  MODE its FALLOC_FL_* flags, decimal
 * PID tells UML's kernel process from its user-process host processes
 * (forked from it, so they carry this library too). I/O records carry the
 * time the call started: a residency sample that saw its data came later.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD 1024
#define MAX_FILES 8
#define MAX_MAPS 512
#define PATH_MAX_REC 1024

/* fd classes; 0 = not yet looked at */
enum { FD_UNKNOWN = 0, FD_OTHER = 1, FD_PHYSMEM = 2, FD_IMAGE = 16 };

static int log_fd = -1;
static int fd_class[MAX_FD];
static char file_path[MAX_FILES][PATH_MAX_REC];
static int file_dev[MAX_FILES];
static int nfiles;
static char shm_dir[256] = "/dev/shm/";

static struct map { uintptr_t addr; size_t len; off_t off; } maps[MAX_MAPS];
static int nmaps;

static ssize_t (*real_pread64)(int, void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_preadv)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static int (*real_close)(int);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_fallocate64)(int, int, off_t, off_t);

static void resolve(void)
{
	if (real_pread64)
		return;
	real_pread64 = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	real_pwrite64 = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
	real_preadv = (ssize_t (*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "preadv");
	real_pwritev = (ssize_t (*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "pwritev");
	real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	real_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	real_fallocate = (int (*)(int, int, off_t, off_t))dlsym(RTLD_NEXT, "fallocate");
	real_fallocate64 = (int (*)(int, int, off_t, off_t))dlsym(RTLD_NEXT, "fallocate64");
	if (!real_fallocate64)
		real_fallocate64 = real_fallocate;
	if (!real_fallocate)
		real_fallocate = real_fallocate64;
}

/* ---- record formatting without stdio ------------------------------------ */

struct rec { char buf[256]; size_t n; };

static void put_str(struct rec *r, const char *s)
{
	while (*s && r->n < sizeof r->buf - 1)
		r->buf[r->n++] = *s++;
}

static void put_u64(struct rec *r, uint64_t v)
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

static void put_i64(struct rec *r, int64_t v)
{
	if (v < 0)
		put_str(r, " -1");	/* only -1 is ever logged: "no page" */
	else
		put_u64(r, (uint64_t)v);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "TIME KIND PID"; T is 0 for "now" */
static void rec_start_at(struct rec *r, const char *kind, uint64_t t)
{
	r->n = 0;
	put_u64(r, t ? t : now_ns());
	put_str(r, " ");
	put_str(r, kind);
	put_u64(r, (uint64_t)getpid());
}

static void rec_start(struct rec *r, const char *kind)
{
	rec_start_at(r, kind, 0);
}

static void rec_end(struct rec *r)
{
	int saved = errno;
	r->buf[r->n++] = '\n';
	if (log_fd >= 0) {
		/* O_APPEND: each record lands whole; a short write is dropped */
		ssize_t w = write(log_fd, r->buf + 1, r->n - 1);
		(void)w;
	}
	errno = saved;
}

/* ---- fd classification -------------------------------------------------- */

static int starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int classify(int fd)
{
	char link[32] = "/proc/self/fd/", target[PATH_MAX_REC];
	struct rec r;
	ssize_t n;
	int i, c;

	if (fd < 0 || fd >= MAX_FD)
		return FD_OTHER;
	c = __atomic_load_n(&fd_class[fd], __ATOMIC_ACQUIRE);
	if (c != FD_UNKNOWN)
		return c;

	/* "/proc/self/fd/" + decimal fd */
	{
		char d[12];
		int k = 0, m = fd;
		size_t L = strlen(link);
		do { d[k++] = (char)('0' + m % 10); m /= 10; } while (m);
		while (k)
			link[L++] = d[--k];
		link[L] = 0;
	}
	n = readlink(link, target, sizeof target - 1);
	c = FD_OTHER;
	if (n > 0) {
		target[n] = 0;
		for (i = 0; i < nfiles; i++)
			if (strcmp(target, file_path[i]) == 0)
				c = FD_IMAGE + i;
		if (c == FD_OTHER && starts_with(target, shm_dir) &&
		    n > 10 && strcmp(target + n - 10, " (deleted)") == 0)
			c = FD_PHYSMEM;
	}
	__atomic_store_n(&fd_class[fd], c, __ATOMIC_RELEASE);
	if (c == FD_PHYSMEM) {
		struct stat st;
		rec_start(&r, "P");
		put_u64(&r, (uint64_t)fd);
		put_u64(&r, fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0);
		rec_end(&r);
	}
	return c;
}

/* physical page of a buffer address, or -1 */
static int64_t phys_page(uintptr_t a)
{
	int i, n = __atomic_load_n(&nmaps, __ATOMIC_ACQUIRE);
	for (i = n - 1; i >= 0; i--) {
		struct map *m = &maps[i];
		size_t l = __atomic_load_n(&m->len, __ATOMIC_ACQUIRE);
		if (l && a >= m->addr && a < m->addr + l)
			return (int64_t)((a - m->addr + (uintptr_t)m->off) / 4096);
	}
	return -1;
}

static void log_io(const char *kind, uint64_t t, int c, const void *buf, size_t len, off_t off)
{
	struct rec r;
	int f = c - FD_IMAGE;
	rec_start_at(&r, kind, t);
	put_u64(&r, (uint64_t)file_dev[f]);
	put_u64(&r, (uint64_t)f);
	put_u64(&r, (uint64_t)off);
	put_u64(&r, (uint64_t)len);
	put_i64(&r, phys_page((uintptr_t)buf));
	rec_end(&r);
}

/* ---- set-up -------------------------------------------------------------- */

/*
 * This library's writable segment (its tables and their .bss) is locked
 * in memory: once UML forks its host processes, those pages are shared
 * and cold, and a host short of memory would swap them before anything
 * of UML's own (one page a UML, the first swap-out of a run in
 * density-real.sh), so the recorder would change what it measures.
 */
static int lock_own_segment(struct dl_phdr_info *info, size_t size, void *self)
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

__attribute__((constructor)) static void rec_init(void)
{
	const char *logp = getenv("ANONSIM_REC_LOG");
	const char *devs = getenv("ANONSIM_REC_DEVS");
	const char *shm = getenv("ANONSIM_REC_SHM");

	dl_iterate_phdr(lock_own_segment, &log_fd);
	resolve();
	if (shm && strlen(shm) + 2 < sizeof shm_dir) {
		strcpy(shm_dir, shm);
		if (shm_dir[strlen(shm_dir) - 1] != '/')
			strcat(shm_dir, "/");
	}
	if (logp)
		log_fd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	/* devices: "ubda=/path,ubda=/path2,ubdb=/path3"; names map to indexes
	 * in order of first appearance */
	if (devs) {
		char names[MAX_FILES][16];
		int ndev = 0;
		const char *p = devs;
		while (*p && nfiles < MAX_FILES) {
			const char *eq = strchr(p, '='), *end = strchr(p, ',');
			char rel[PATH_MAX_REC];
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
			if (!realpath(rel, file_path[nfiles]))
				strcpy(file_path[nfiles], rel);
			file_dev[nfiles++] = d;
			p = *end ? end + 1 : end;
		}
	}
}

/* ---- interposed calls ---------------------------------------------------- */

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r;
	int c;
	uint64_t t;
	resolve();
	t = now_ns();
	r = real_pread64(fd, buf, n, off);
	c = classify(fd);
	if (c >= FD_IMAGE && r > 0)
		log_io("R", t, c, buf, (size_t)r, off);
	return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return pread64(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t r;
	int c;
	uint64_t t;
	resolve();
	t = now_ns();
	r = real_pwrite64(fd, buf, n, off);
	c = classify(fd);
	if (c >= FD_IMAGE && r > 0)
		log_io("W", t, c, buf, (size_t)r, off);
	return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

static void log_iov(const char *kind, uint64_t t, int fd, const struct iovec *iov, int cnt, off_t off, ssize_t r)
{
	int c = classify(fd), i;
	if (c < FD_IMAGE || r <= 0)
		return;
	for (i = 0; i < cnt && r > 0; i++) {
		size_t l = iov[i].iov_len < (size_t)r ? iov[i].iov_len : (size_t)r;
		if (l)
			log_io(kind, t, c, iov[i].iov_base, l, off);
		off += (off_t)l;
		r -= (ssize_t)l;
	}
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t r;
	uint64_t t;
	resolve();
	t = now_ns();
	r = real_preadv(fd, iov, cnt, off);
	log_iov("R", t, fd, iov, cnt, off, r);
	return r;
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return preadv(fd, iov, cnt, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t r;
	uint64_t t;
	resolve();
	t = now_ns();
	r = real_pwritev(fd, iov, cnt, off);
	log_iov("W", t, fd, iov, cnt, off, r);
	return r;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return pwritev(fd, iov, cnt, off);
}

/* UML 6.1 calls fallocate64 (os_falloc_punch, os_falloc_zeroes): both
 * names are glibc's own symbols, each interposed */
static int do_fallocate(int (*real)(int, int, off_t, off_t), int fd, int mode, off_t off, off_t len)
{
	int r, c, saved;
	uint64_t t;
	t = now_ns();
	r = real(fd, mode, off, len);
	saved = errno;
	c = classify(fd);
	if (c >= FD_IMAGE && r == 0) {
		struct rec rc;
		int f = c - FD_IMAGE;
		rec_start_at(&rc, "A", t);
		put_u64(&rc, (uint64_t)file_dev[f]);
		put_u64(&rc, (uint64_t)f);
		put_u64(&rc, (uint64_t)off);
		put_u64(&rc, (uint64_t)len);
		put_u64(&rc, (uint64_t)(unsigned)mode);
		rec_end(&rc);
	}
	errno = saved;
	return r;
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	resolve();
	return do_fallocate(real_fallocate, fd, mode, off, len);
}

int fallocate64(int fd, int mode, off_t off, off_t len)
{
	resolve();
	return do_fallocate(real_fallocate64, fd, mode, off, len);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;
	resolve();
	p = real_mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS) &&
	    classify(fd) == FD_PHYSMEM) {
		struct rec r;
		/* only UML's kernel thread maps and unmaps: one writer. Reuse a
		 * slot freed by munmap; readers skip slots of length 0 */
		int i, n = __atomic_load_n(&nmaps, __ATOMIC_ACQUIRE);
		for (i = 0; i < n; i++)
			if (maps[i].len == 0)
				break;
		if (i < MAX_MAPS) {
			maps[i].addr = (uintptr_t)p;
			maps[i].off = off;
			__atomic_store_n(&maps[i].len, len, __ATOMIC_RELEASE);
			if (i == n)
				__atomic_store_n(&nmaps, n + 1, __ATOMIC_RELEASE);
		}
		struct stat st;
		rec_start(&r, "M");
		put_u64(&r, (uint64_t)(uintptr_t)p);
		put_u64(&r, (uint64_t)len);
		put_u64(&r, (uint64_t)off);
		put_u64(&r, fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0);
		rec_end(&r);
	}
	return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;
	int i, n, hit = 0;
	resolve();
	n = __atomic_load_n(&nmaps, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		size_t l = __atomic_load_n(&maps[i].len, __ATOMIC_ACQUIRE);
		if (l && a < maps[i].addr + l && maps[i].addr < a + len) {
			hit = 1;
			if (a <= maps[i].addr && maps[i].addr + l <= a + len)
				__atomic_store_n(&maps[i].len, 0, __ATOMIC_RELEASE);
		}
	}
	if (hit) {
		struct rec r;
		rec_start(&r, "U");
		put_u64(&r, (uint64_t)a);
		put_u64(&r, (uint64_t)len);
		rec_end(&r);
	}
	return real_munmap(addr, len);
}

int close(int fd)
{
	resolve();
	/* the number may come back for another file */
	if (fd >= 0 && fd < MAX_FD)
		__atomic_store_n(&fd_class[fd], FD_UNKNOWN, __ATOMIC_RELEASE);
	return real_close(fd);
}
