/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output_file.c - outputs that appear whole or not at all.
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output_file.h"
#include "util/cleanup.h"
#include "util/util.h"

int output_not_input(const char *path, char *const *inputs, unsigned n)
{
	struct stat out, in;
	unsigned i;

	if (stat(path, &out))
		return 0;	/* not there yet: no input can be it */
	for (i = 0; i < n; i++)
		if (!stat(inputs[i], &in) && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
			msg("%s: the output is also the input %s: refused", path, inputs[i]);
			return -1;
		}
	return 0;
}

static void output_free(struct output_file *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	o->f = NULL;
}

/* A device, a FIFO: written where it is, as renaming over it would replace it. */
static int open_direct(struct output_file *o)
{
	o->f = fopen(o->path, "w");
	if (!o->f) {
		msg("%s: cannot write: %s", o->path, strerror(errno));
		output_free(o);
		return -1;
	}
	return 0;
}

int output_open(struct output_file *o, const char *path)
{
	struct stat st;
	char *real = NULL;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!lstat(path, &st) && S_ISLNK(st.st_mode))
		real = realpath(path, NULL);	/* replace the file the link names */
	o->path = real ? real : strdup(path);
	if (!o->path) {
		msg("%s: out of memory", path);
		goto fail;
	}
	if (!stat(o->path, &st) && !S_ISREG(st.st_mode))
		return open_direct(o);
	fd = cleanup_temp_beside(o->path, &o->tmp);
	if (fd < 0) {
		msg("%s: cannot create: %s", path, strerror(errno));
		goto fail;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		msg("%s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		cleanup_forget(o->tmp);
		goto fail;
	}
	return 0;
fail:
	output_free(o);
	return -1;
}

int output_commit(struct output_file *o)
{
	int err = ferror(o->f) || fflush(o->f);
	int saved = errno;

	if (fclose(o->f) && !err) {
		err = 1;
		saved = errno;
	}
	if (err) {
		msg("%s: write failed: %s", o->path, saved ? strerror(saved) : "I/O error");
		if (o->tmp)
			unlink(o->tmp);
	} else if (o->tmp && rename(o->tmp, o->path)) {
		msg("%s: cannot rename into place: %s", o->path, strerror(errno));
		unlink(o->tmp);
		err = 1;
	}
	if (o->tmp)
		cleanup_forget(o->tmp);
	output_free(o);
	return err ? -1 : 0;
}

void output_abort(struct output_file *o)
{
	fclose(o->f);
	if (o->tmp) {
		unlink(o->tmp);
		cleanup_forget(o->tmp);
	}
	output_free(o);
}
