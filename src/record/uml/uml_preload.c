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
 * written with one write(2) to an O_APPEND log (preload_log.c), and shared
 * tables are updated with atomics only (preload_maps.c).
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
#include "record/preload_log.h"
#include "record/preload_maps.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FD 1024

/* fd classes; 0 = not yet looked at */
enum { FD_UNKNOWN = 0, FD_OTHER = 1, FD_PHYSMEM = 2, FD_IMAGE = 16 };

static int fd_class[MAX_FD];
static char shm_dir[256] = "/dev/shm/";

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

/* ---- fd classification -------------------------------------------------- */

static int starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int classify(int fd)
{
	char target[PL_PATH_MAX];
	struct rec r;
	long n;
	int c;

	if (fd < 0 || fd >= MAX_FD)
		return FD_OTHER;
	c = __atomic_load_n(&fd_class[fd], __ATOMIC_ACQUIRE);
	if (c != FD_UNKNOWN)
		return c;
	n = pl_fd_target(fd, target, sizeof target);
	c = FD_OTHER;
	if (n > 0) {
		int i = pl_image_index(target);
		if (i >= 0)
			c = FD_IMAGE + i;
		else if (starts_with(target, shm_dir) &&
			 n > 10 && strcmp(target + n - 10, " (deleted)") == 0)
			c = FD_PHYSMEM;
	}
	__atomic_store_n(&fd_class[fd], c, __ATOMIC_RELEASE);
	if (c == FD_PHYSMEM) {
		struct stat st;
		pl_rec_start_at(&r, "P", 0);
		pl_put_u64(&r, (uint64_t)fd);
		pl_put_u64(&r, fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0);
		pl_rec_end(&r);
	}
	return c;
}

/* ---- set-up -------------------------------------------------------------- */

__attribute__((constructor)) static void rec_init(void)
{
	const char *shm = getenv("ANONSIM_REC_SHM");

	pl_lock_own_data(&fd_class);
	resolve();
	if (shm && strlen(shm) + 2 < sizeof shm_dir) {
		strcpy(shm_dir, shm);
		if (shm_dir[strlen(shm_dir) - 1] != '/')
			strcat(shm_dir, "/");
	}
	pl_open_log(getenv("ANONSIM_REC_LOG"));
	/* devices: "ubda=/path,ubda=/path2,ubdb=/path3"; names map to indexes
	 * in order of first appearance */
	pl_parse_devs(getenv("ANONSIM_REC_DEVS"));
}

/* ---- interposed calls ---------------------------------------------------- */

static void log_iov(const char *kind, uint64_t t, int fd, const struct iovec *iov, int cnt, off_t off, ssize_t r)
{
	int c = classify(fd);
	if (c >= FD_IMAGE && r > 0)
		pl_log_iov(kind, t, c - FD_IMAGE, iov, cnt, off, (size_t)r);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	struct iovec v = { buf, n };
	ssize_t r;
	uint64_t t;
	resolve();
	t = pl_now_ns();
	r = real_pread64(fd, buf, n, off);
	log_iov("R", t, fd, &v, 1, off, r);
	return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return pread64(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	struct iovec v = { (void *)(uintptr_t)buf, n };
	ssize_t r;
	uint64_t t;
	resolve();
	t = pl_now_ns();
	r = real_pwrite64(fd, buf, n, off);
	log_iov("W", t, fd, &v, 1, off, r);
	return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t r;
	uint64_t t;
	resolve();
	t = pl_now_ns();
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
	t = pl_now_ns();
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
	t = pl_now_ns();
	r = real(fd, mode, off, len);
	saved = errno;
	c = classify(fd);
	if (c >= FD_IMAGE && r == 0)
		pl_log_fallocate(t, c - FD_IMAGE, off, len, mode);
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
		/* only UML's kernel thread maps and unmaps: one writer */
		pl_map_logged((uintptr_t)p, len, off, fd);
	}
	return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	resolve();
	pl_unmap_logged((uintptr_t)addr, len);
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
