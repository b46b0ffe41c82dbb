/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fdio.c - whole reads and writes on a pipe, whatever the kernel splits
 * them into.
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include "util/fdio.h"

static int pipe_full(bool out, int fd, void *buf, size_t len)
{
	unsigned char *b = buf;

	while (len) {
		ssize_t n;

		errno = 0;
		n = out ? write(fd, b, len) : read(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

int fd_read_full(int fd, void *buf, size_t len)
{
	return pipe_full(false, fd, buf, len);
}

int fd_write_full(int fd, const void *buf, size_t len)
{
	return pipe_full(true, fd, (void *)buf, len);
}
