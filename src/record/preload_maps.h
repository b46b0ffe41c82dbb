/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * preload_maps.h - the preload libraries' table of the VMM's mappings of
 * its memory file: added by one thread (the one that maps), read by any
 * (an I/O thread translating a buffer) without a lock; and the log
 * lines of transfers, with the page of the file each buffer lies in.
 */
#ifndef ANONSIM_RECORD_PRELOAD_MAPS_H
#define ANONSIM_RECORD_PRELOAD_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pl_map { uintptr_t addr; size_t len; off_t off; };

/* a mapping of @len bytes of the file at @off to @addr (dropped when the
 * table is full) */
void pl_map_add(uintptr_t addr, size_t len, off_t off);
/* forget the mappings [addr, addr + len) covers whole; whether it
 * overlapped any */
int pl_map_remove(uintptr_t addr, size_t len);
/* the mapping holding address @a, newest first, or NULL */
const struct pl_map *pl_map_find(uintptr_t a);
/* pl_map_add and its line "T M PID ADDR LEN OFF INODE" (@fd the file) */
void pl_map_logged(uintptr_t addr, size_t len, off_t off, int fd);
/* pl_map_remove and, when it overlapped, "T U PID ADDR LEN" */
void pl_unmap_logged(uintptr_t addr, size_t len);
/* file page (offset / 4096) of address @a, or -1 */
int64_t pl_map_page(uintptr_t a);

struct iovec;
/* "T KIND PID DEV FILE OFF LEN PAGE": a transfer of image file @f (an
 * index of pl_file_path) at @off from or to @buf, started at @t */
void pl_log_io(const char *kind, uint64_t t, int f, const void *buf, size_t len, off_t off);
/* one such line an iovec, for the first @done bytes */
void pl_log_iov(const char *kind, uint64_t t, int f, const struct iovec *iov, int cnt,
		off_t off, size_t done);

#endif
