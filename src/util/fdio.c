/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fdio.c - whole reads and writes on a pipe or socket, whatever the
 * kernel splits them into.
 */
#include <config.h>

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/fdio.h"

enum fd_op { FD_READ, FD_WRITE, FD_SEND };

static int pipe_full(enum fd_op op, int fd, void *buf, size_t len)
{
	unsigned char *b = buf;

	while (len) {
		ssize_t n;

		errno = 0;
		n = op == FD_READ ? read(fd, b, len) :
		    op == FD_WRITE ? write(fd, b, len) : send(fd, b, len, MSG_NOSIGNAL);
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
	return pipe_full(FD_READ, fd, buf, len);
}

int fd_write_full(int fd, const void *buf, size_t len)
{
	return pipe_full(FD_WRITE, fd, (void *)buf, len);
}

int fd_send_full(int sock, const void *buf, size_t len)
{
	return pipe_full(FD_SEND, sock, (void *)buf, len);
}
