/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stdin.c - a trace named "-" is standard input.  A replay opens its
 * traces once per strategy and per thread, so standard input is read once,
 * into a scratch file under $TMPDIR that every open of "-" reads; the file
 * goes when the process ends, by exit or by signal (util/cleanup.h).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"
#include "util/cleanup.h"

static char spool[4096];

static void remove_spool(void)
{
	if (spool[0]) {
		unlink(spool);
		cleanup_forget(spool);
	}
}

const char *trace_stdin_path(char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	char buf[65536];
	ssize_t n;
	int fd;

	if (spool[0])
		return spool;
	if (isatty(STDIN_FILENO)) {
		snprintf(err, errlen, "standard input: a terminal, not a trace");
		return NULL;
	}
	snprintf(spool, sizeof(spool), "%s/anonsim-stdin.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(spool);
	if (fd < 0) {
		snprintf(err, errlen, "standard input: cannot create a scratch file in %s: %s",
			 dir && *dir ? dir : "/tmp", strerror(errno));
		spool[0] = '\0';
		return NULL;
	}
	if (cleanup_add(spool) || atexit(remove_spool)) {
		snprintf(err, errlen, "standard input: out of memory");
		goto fail;
	}
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "standard input: read error: %s", strerror(errno));
			goto fail;
		}
		if (write(fd, buf, (size_t)n) != n) {
			snprintf(err, errlen, "standard input: cannot keep it in %s: %s", spool,
				 errno ? strerror(errno) : "short write");
			goto fail;
		}
	}
	if (close(fd)) {
		fd = -1;
		snprintf(err, errlen, "standard input: cannot keep it in %s: %s", spool,
			 strerror(errno));
		goto fail;
	}
	return spool;
fail:
	if (fd >= 0)
		close(fd);
	unlink(spool);
	cleanup_forget(spool);
	spool[0] = '\0';
	return NULL;
}
