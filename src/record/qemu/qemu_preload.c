/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qemu_preload.c - LD_PRELOAD library for qemu-system-x86_64.
 *
 * Finds the guest's RAM file (a memory-backend-memfd or -file) when QEMU
 * maps it, and logs, with the RAM page each buffer lies in: the reads and
 * writes of the disk images named in ANONSIM_REC_DEVS by every aio
 * backend (aio=threads: pread64/preadv and their writes; aio=native:
 * io_submit; aio=io_uring: io_uring_submit), QEMU's fallocate calls on
 * the images, and the RAM it gives back to the host (free page
 * reporting, the balloon: fallocate(PUNCH_HOLE) on the RAM file,
 * madvise(MADV_REMOVE or MADV_DONTNEED) on its mapping).
 *
 * Asynchronous requests are logged when submitted, with the length asked
 * for: their completions are read from rings this library does not see.
 *
 * Environment:
 *   ANONSIM_REC_LOG   log file (appended)
 *   ANONSIM_REC_DEVS  NAME=PATH[,NAME=PATH...]: device name of each image
 *   ANONSIM_REC_RAM   what the RAM file's /proc/self/fd link starts with
 *                     ("/memfd:memory-backend-memfd", a directory with a
 *                     trailing slash, or the file's path)
 *   ANONSIM_REC_MEM   its size in bytes: a smaller file is not the RAM
 *
 * Log lines (CLOCK_MONOTONIC nanoseconds), as uml_preload.c writes them
 * (merge.awk reads both), and D:
 *   T M PID ADDR LEN OFF INODE     mmap of the RAM file
 *   T U PID ADDR LEN               munmap overlapping a mapping of it
 *   T R PID DEV FILE OFF LEN PAGE  read of device DEV (FILE: index of the
 *   T W PID DEV FILE OFF LEN PAGE  image path); PAGE -1 outside RAM
 *   T Q PID DEV FILE OFF LEN N     a read of N buffers, one request to the
 *                                  host: its N R lines (time T, FILE, OFF
 *                                  to OFF + LEN) follow it
 *   T A PID DEV FILE OFF LEN MODE  fallocate on an image
 *   T D PID PAGE COUNT HOW         RAM pages given back: HOW F (punched),
 *                                  R (MADV_REMOVE), N (MADV_DONTNEED,
 *                                  which frees nothing of a shared file)
 */
#define _GNU_SOURCE
#include "record/preload_log.h"
#include "record/preload_maps.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FD 4096
#define PAGE 4096u

/* what the library defines that no system header declares here */
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
int io_submit(void *ctx, long nr, struct iocb **ios);
int io_uring_submit(void *ring);
int io_uring_submit_and_wait(void *ring, unsigned wait_nr);

enum { FD_UNKNOWN = 0, FD_OTHER = 1, FD_RAM = 2, FD_IMAGE = 16 };

static int fd_class[MAX_FD];
static char ram_prefix[PL_PATH_MAX] = "/memfd:memory-backend-memfd";
static off_t ram_size;

static ssize_t (*real_pread64)(int, void *, size_t, off_t);
static ssize_t (*real_pread64_chk)(int, void *, size_t, off_t, size_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_preadv)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static int (*real_io_submit)(void *, long, struct iocb **);
static int (*real_uring_submit)(void *);
static int (*real_uring_submit_wait)(void *, unsigned);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static int (*real_madvise)(void *, size_t, int);
static int (*real_close)(int);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_fallocate64)(int, int, off_t, off_t);

#define NEXT(var, name) (*(void **)&(var) = dlsym(RTLD_NEXT, name))

static void resolve(void)
{
	if (real_pread64)
		return;
	NEXT(real_pread64_chk, "__pread64_chk");
	NEXT(real_pwrite64, "pwrite64");
	NEXT(real_preadv, "preadv64");
	NEXT(real_pwritev, "pwritev64");
	NEXT(real_io_submit, "io_submit");	/* libaio, when QEMU has it */
	NEXT(real_uring_submit, "io_uring_submit");
	NEXT(real_uring_submit_wait, "io_uring_submit_and_wait");
	NEXT(real_mmap, "mmap64");
	NEXT(real_munmap, "munmap");
	NEXT(real_madvise, "madvise");
	NEXT(real_close, "close");
	NEXT(real_fallocate, "fallocate");
	NEXT(real_fallocate64, "fallocate64");
	if (!real_fallocate64)
		real_fallocate64 = real_fallocate;
	if (!real_fallocate)
		real_fallocate = real_fallocate64;
	/* last: the test at the top sees a whole table */
	NEXT(real_pread64, "pread64");
}

/* ---- descriptors and RAM pages ------------------------------------------ */

static int classify(int fd)
{
	char target[PL_PATH_MAX];
	int c;
	long n;

	if (fd < 0 || fd >= MAX_FD)
		return FD_OTHER;
	c = __atomic_load_n(&fd_class[fd], __ATOMIC_ACQUIRE);
	if (c != FD_UNKNOWN)
		return c;
	c = FD_OTHER;
	n = pl_fd_target(fd, target, sizeof target);
	if (n > 0) {
		int i = pl_image_index(target);
		struct stat st;

		if (i >= 0)
			c = FD_IMAGE + i;
		else if (strncmp(target, ram_prefix, strlen(ram_prefix)) == 0 &&
			 fstat(fd, &st) == 0 && st.st_size >= ram_size)
			c = FD_RAM;
	}
	__atomic_store_n(&fd_class[fd], c, __ATOMIC_RELEASE);
	return c;
}

/*
 * A read of several buffers is one request to the host's readahead: a Q
 * line says so before the buffers' R lines, which pl_log_iov writes for
 * the buffers the first @done bytes reach.
 */
static void log_request(uint64_t t, int f, const struct iovec *iov, int cnt,
			off_t off, size_t done)
{
	struct rec r;
	size_t left = done;
	int i, n = 0;

	for (i = 0; i < cnt && left > 0; i++) {
		size_t l = iov[i].iov_len < left ? iov[i].iov_len : left;
		n += l > 0;
		left -= l;
	}
	if (n < 2)
		return;
	pl_rec_start_at(&r, "Q", t);
	pl_put_u64(&r, (uint64_t)pl_file_dev[f]);
	pl_put_u64(&r, (uint64_t)f);
	pl_put_u64(&r, (uint64_t)off);
	pl_put_u64(&r, (uint64_t)done);
	pl_put_u64(&r, (uint64_t)n);
	pl_rec_end(&r);
}

/* a transfer of @done bytes on @fd, if an image's: one line an iovec */
static void log_iov(const char *kind, uint64_t t, int fd, const struct iovec *iov, int cnt,
		    off_t off, size_t done)
{
	int c = classify(fd);
	if (c < FD_IMAGE)
		return;
	if (kind[0] == 'R')
		log_request(t, c - FD_IMAGE, iov, cnt, off, done);
	pl_log_iov(kind, t, c - FD_IMAGE, iov, cnt, off, done);
}

/* one buffer: pread, pwrite and the like */
static void log_buf(const char *kind, uint64_t t, int fd, const void *buf, ssize_t done, off_t off)
{
	struct iovec v = { (void *)(uintptr_t)buf, done > 0 ? (size_t)done : 0 };
	log_iov(kind, t, fd, &v, 1, off, v.iov_len);
}

/* whole pages from RAM page @first, @count of them, given back by @how */
static void log_discard(uint64_t t, uint64_t first, uint64_t count, const char *how)
{
	struct rec r;
	if (!count)
		return;
	pl_rec_start_at(&r, "D", t);
	pl_put_u64(&r, first);
	pl_put_u64(&r, count);
	pl_put_str(&r, " ");
	pl_put_str(&r, how);
	pl_rec_end(&r);
}

__attribute__((constructor)) static void rec_init(void)
{
	const char *ram = getenv("ANONSIM_REC_RAM");
	const char *mem = getenv("ANONSIM_REC_MEM");

	pl_lock_own_data(&fd_class);
	resolve();
	if (ram && strlen(ram) < sizeof ram_prefix)
		strcpy(ram_prefix, ram);
	if (mem)
		ram_size = (off_t)atoll(mem);
	pl_open_log(getenv("ANONSIM_REC_LOG"));
	pl_parse_devs(getenv("ANONSIM_REC_DEVS"));
}

/* ---- aio=threads: the preadv/pwritev family ------------------------------ */

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	uint64_t t;
	ssize_t r;
	resolve();
	t = pl_now_ns();
	r = real_pread64(fd, buf, n, off);
	log_buf("R", t, fd, buf, r, off);
	return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return pread64(fd, buf, n, off);
}

/* the fortified pread QEMU calls where it knows the buffer's size */
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	uint64_t t;
	ssize_t r;
	resolve();
	t = pl_now_ns();
	r = real_pread64_chk(fd, buf, n, off, buflen);
	log_buf("R", t, fd, buf, r, off);
	return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	uint64_t t;
	ssize_t r;
	resolve();
	t = pl_now_ns();
	r = real_pwrite64(fd, buf, n, off);
	log_buf("W", t, fd, buf, r, off);
	return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t r;
	uint64_t t;
	resolve();
	t = pl_now_ns();
	r = real_preadv(fd, iov, cnt, off);
	if (r > 0)
		log_iov("R", t, fd, iov, cnt, off, (size_t)r);
	return r;
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return preadv64(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t r;
	uint64_t t;
	resolve();
	t = pl_now_ns();
	r = real_pwritev(fd, iov, cnt, off);
	if (r > 0)
		log_iov("W", t, fd, iov, cnt, off, (size_t)r);
	return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return pwritev64(fd, iov, cnt, off);
}

/* ---- aio=native: libaio's io_submit ------------------------------------- */

static void log_iocb(uint64_t t, const struct iocb *cb)
{
	const char *kind = NULL;
	int c = classify((int)cb->aio_fildes);

	if (c < FD_IMAGE)
		return;
	switch (cb->aio_lio_opcode) {
	case IOCB_CMD_PREAD:
	case IOCB_CMD_PREADV:
		kind = "R";
		break;
	case IOCB_CMD_PWRITE:
	case IOCB_CMD_PWRITEV:
		kind = "W";
		break;
	default:
		return;	/* fsync, poll: no data */
	}
	if (cb->aio_lio_opcode == IOCB_CMD_PREADV || cb->aio_lio_opcode == IOCB_CMD_PWRITEV) {
		const struct iovec *iov = (const struct iovec *)(uintptr_t)cb->aio_buf;
		size_t all = 0;
		int i, n = (int)cb->aio_nbytes;
		for (i = 0; i < n; i++)
			all += iov[i].iov_len;
		log_iov(kind, t, (int)cb->aio_fildes, iov, n, (off_t)cb->aio_offset, all);
	} else {
		log_buf(kind, t, (int)cb->aio_fildes, (const void *)(uintptr_t)cb->aio_buf,
			(ssize_t)cb->aio_nbytes, (off_t)cb->aio_offset);
	}
}

/* io_context_t is an opaque pointer; the iocb is the kernel's own layout */
int io_submit(void *ctx, long nr, struct iocb **ios)
{
	uint64_t t;
	int r;
	long i;
	resolve();
	if (!real_io_submit) {
		errno = ENOSYS;
		return -ENOSYS;
	}
	t = pl_now_ns();
	r = real_io_submit(ctx, nr, ios);
	for (i = 0; i < r; i++)	/* only those the kernel took */
		log_iocb(t, ios[i]);
	return r;
}

/* ---- aio=io_uring: liburing's io_uring_submit ----------------------------- */

/*
 * The start of liburing 2's struct io_uring (its first member, the
 * submission queue): the same in every release since 0.1.  Entries
 * sqe_head .. sqe_tail - 1 are the ones io_uring_get_sqe handed out
 * since the last submit.
 */
struct uring_sq_head {
	unsigned *khead, *ktail, *kring_mask, *kring_entries, *kflags, *kdropped, *array;
	struct io_uring_sqe *sqes;
	unsigned sqe_head, sqe_tail;
};

static void log_sqe(uint64_t t, const struct io_uring_sqe *sqe)
{
	const char *kind = NULL;
	int c;

	if (sqe->flags & IOSQE_FIXED_FILE)
		return;	/* an index into registered files: QEMU 7.2 registers none */
	switch (sqe->opcode) {
	case IORING_OP_READV:
	case IORING_OP_READ:
	case IORING_OP_READ_FIXED:
		kind = "R";
		break;
	case IORING_OP_WRITEV:
	case IORING_OP_WRITE:
	case IORING_OP_WRITE_FIXED:
		kind = "W";
		break;
	default:
		return;
	}
	c = classify(sqe->fd);
	if (c < FD_IMAGE)
		return;
	if (sqe->opcode == IORING_OP_READV || sqe->opcode == IORING_OP_WRITEV) {
		const struct iovec *iov = (const struct iovec *)(uintptr_t)sqe->addr;
		size_t all = 0;
		unsigned i;
		for (i = 0; i < sqe->len; i++)
			all += iov[i].iov_len;
		log_iov(kind, t, sqe->fd, iov, (int)sqe->len, (off_t)sqe->off, all);
	} else {
		log_buf(kind, t, sqe->fd, (const void *)(uintptr_t)sqe->addr, (ssize_t)sqe->len,
			(off_t)sqe->off);
	}
}

static void log_ring(void *ring)
{
	const struct uring_sq_head *sq = ring;
	uint64_t t = pl_now_ns();
	unsigned i;

	if (!sq->sqes || !sq->kring_mask || !sq->kring_entries ||
	    sq->sqe_tail - sq->sqe_head > *sq->kring_entries)
		return;
	for (i = sq->sqe_head; i != sq->sqe_tail; i++)
		log_sqe(t, &sq->sqes[i & *sq->kring_mask]);
}

int io_uring_submit(void *ring)
{
	resolve();
	log_ring(ring);
	return real_uring_submit(ring);
}

int io_uring_submit_and_wait(void *ring, unsigned wait_nr)
{
	resolve();
	log_ring(ring);
	return real_uring_submit_wait(ring, wait_nr);
}

/* ---- fallocate: images and RAM --------------------------------------------- */

static int do_fallocate(int (*real)(int, int, off_t, off_t), int fd, int mode, off_t off, off_t len)
{
	uint64_t t = pl_now_ns();
	int r = real(fd, mode, off, len), saved = errno, c;

	if (r != 0)
		return r;
	c = classify(fd);
	if (c >= FD_IMAGE)
		pl_log_fallocate(t, c - FD_IMAGE, off, len, mode);
	else if (c == FD_RAM && (mode & FALLOC_FL_PUNCH_HOLE)) {
		uint64_t first = ((uint64_t)off + PAGE - 1) / PAGE;
		uint64_t end = ((uint64_t)off + (uint64_t)len) / PAGE;
		if (end > first)
			log_discard(t, first, end - first, "F");
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

int madvise(void *addr, size_t len, int advice)
{
	uintptr_t a = (uintptr_t)addr, end = a + len;
	uint64_t t;
	int r, saved;
	const struct pl_map *m;

	resolve();
	t = pl_now_ns();
	r = real_madvise(addr, len, advice);
	saved = errno;
	if (r == 0 && (advice == MADV_DONTNEED || advice == MADV_REMOVE) &&
	    (m = pl_map_find(a)) != NULL) {
		/* the whole pages of the range inside the one mapping */
		uintptr_t lo = (a - m->addr + PAGE - 1) / PAGE * PAGE;
		uintptr_t hi = (end < m->addr + m->len ? end : m->addr + m->len) - m->addr;
		hi = hi / PAGE * PAGE;
		if (hi > lo)
			log_discard(t, (lo + (uintptr_t)m->off) / PAGE, (hi - lo) / PAGE,
				    advice == MADV_REMOVE ? "R" : "N");
	}
	errno = saved;
	return r;
}

/* ---- the RAM mapping --------------------------------------------------------- */

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;
	resolve();
	p = real_mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS) && classify(fd) == FD_RAM) {
		pl_map_logged((uintptr_t)p, len, off, fd);
	}
	return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap64(addr, len, prot, flags, fd, off);
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
