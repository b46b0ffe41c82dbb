/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fdio.h - whole reads and writes on a pipe or socket between two processes.
 */
#ifndef ANONSIM_FDIO_H
#define ANONSIM_FDIO_H

#include <stddef.h>

/* All @len bytes from @fd: 0, or -1 at an error or the end (errno 0 there). */
int fd_read_full(int fd, void *buf, size_t len);
/* All @len bytes to @fd: 0, or -1 at an error. */
int fd_write_full(int fd, const void *buf, size_t len);
/* As fd_write_full() on a socket whose peer may be gone: -1 (EPIPE), no SIGPIPE. */
int fd_send_full(int sock, const void *buf, size_t len);

#endif
