/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * preload_log.h - what the recorders' LD_PRELOAD libraries share: log
 * records formatted on the stack and written with one write(2) (no stdio,
 * no locks: the VMMs call the interposed functions from any thread and
 * from signal handlers), the image list of ANONSIM_REC_DEVS, the target
 * of a descriptor, and the library's own data locked in memory.
 */
#ifndef ANONSIM_RECORD_PRELOAD_LOG_H
#define ANONSIM_RECORD_PRELOAD_LOG_H

#include <stddef.h>
#include <stdint.h>

#define PL_MAX_FILES 8
#define PL_PATH_MAX 1024

struct rec { char buf[256]; size_t n; };

/* the O_APPEND log, -1 until pl_open_log */
extern int pl_log_fd;
/* the images of ANONSIM_REC_DEVS: real path and device index of each */
extern char pl_file_path[PL_MAX_FILES][PL_PATH_MAX];
extern int pl_file_dev[PL_MAX_FILES];
extern int pl_nfiles;

uint64_t pl_now_ns(void);
void pl_put_str(struct rec *r, const char *s);
void pl_put_u64(struct rec *r, uint64_t v);
void pl_put_i64(struct rec *r, int64_t v);	/* only -1 among negatives */
/* "TIME KIND PID"; t 0 means now */
void pl_rec_start_at(struct rec *r, const char *kind, uint64_t t);
void pl_rec_end(struct rec *r);

/* "T A PID DEV FILE OFF LEN MODE": fallocate of image file @f */
void pl_log_fallocate(uint64_t t, int f, int64_t off, int64_t len, int mode);

/* ANONSIM_REC_LOG and ANONSIM_REC_DEVS ("NAME=PATH[,NAME=PATH...]",
 * names numbered in order of first appearance) */
void pl_open_log(const char *path);
void pl_parse_devs(const char *devs);
/* the image index of a path, or -1 */
int pl_image_index(const char *target);
/* readlink of /proc/self/fd/FD into target; its length, or -1 */
long pl_fd_target(int fd, char *target, size_t size);
/* lock this library's writable segment (tables and .bss) in memory */
void pl_lock_own_data(void *self);

#endif
