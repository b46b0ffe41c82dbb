/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output_file.h"
#include "util/util.h"

int output_open(struct output_file *o, const char *path)
{
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	o->tmp = malloc(strlen(path) + 16);
	if (!o->path || !o->tmp) {
		msg("%s: out of memory", path);
		goto fail;
	}
	sprintf(o->tmp, "%s.tmpXXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		msg("%s: cannot create: %s", path, strerror(errno));
		goto fail;
	}
	{
		/* mkstemp makes it private; give it the mode a plain create would */
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		msg("%s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		goto fail;
	}
	return 0;
fail:
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return -1;
}

int output_commit(struct output_file *o)
{
	int err = ferror(o->f);

	if (fclose(o->f) || err) {
		msg("%s: write failed: %s", o->path, strerror(errno));
		unlink(o->tmp);
	} else if (rename(o->tmp, o->path)) {
		msg("%s: cannot rename into place: %s", o->path, strerror(errno));
		unlink(o->tmp);
		err = 1;
	}
	free(o->path);
	free(o->tmp);
	o->f = NULL;
	return err ? -1 : 0;
}

void output_abort(struct output_file *o)
{
	fclose(o->f);
	unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	o->f = NULL;
}
