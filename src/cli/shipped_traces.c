/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/datadir.h"
#include "cli/shipped_traces.h"
#include "util/xalloc.h"

/* Where the shipped traces are, under the data directory, in the order
 * they are looked up and listed: the recorded ones, then the generated
 * calibration corpus.  A trace of a new kind gets a folder here. */
static const char *const trace_dirs[] = { "traces", "traces/calibration", NULL };

size_t shipped_trace_stem(const char *name)
{
	size_t n = strlen(name), s = strlen(SHIPPED_TRACE_SUFFIX);

	if (n > s && !strcmp(name + n - s, SHIPPED_TRACE_SUFFIX))
		return n - s;
	return n;
}

const char *shipped_trace_path(const char *name, char *buf, size_t len)
{
	size_t stem = shipped_trace_stem(name);
	const char *const *dir;
	struct stat st;

	if (!stem || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return NULL;
	for (dir = trace_dirs; *dir; dir++) {
		char rel[4096];

		snprintf(rel, sizeof(rel), "%s/%.*s%s", *dir, (int)stem, name,
			 SHIPPED_TRACE_SUFFIX);
		if ((size_t)snprintf(buf, len, "%s", data_path(rel)) < len &&
		    !stat(buf, &st) && S_ISREG(st.st_mode))
			return buf;
	}
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The trace files of folder @dir (a path), sorted, into *@names; how many,
 * or -1 with errno when it cannot be read. */
static int dir_traces(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0, cap = 0;

	*names = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t stem = shipped_trace_stem(e->d_name);

		if (e->d_name[0] == '.' || stem == strlen(e->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			*names = xrealloc(*names, cap * sizeof(**names), "the shipped traces' names");
		}
		(*names)[n++] = xstrdup(e->d_name, "the shipped traces' names");
	}
	closedir(d);
	qsort(*names, n, sizeof(**names), by_name);
	return (int)n;
}

int shipped_traces_each(int (*fn)(void *arg, const char *name, const char *file),
			void *arg)
{
	const char *const *dir;
	int rc = 0;

	for (dir = trace_dirs; *dir; dir++) {
		char path[4096], file[4096], name[4096], **names;
		int n, i;

		snprintf(path, sizeof(path), "%s", data_path(*dir));
		n = dir_traces(path, &names);
		if (n < 0) {
			/* traces/ itself must be there; the other folders may not */
			if (dir == trace_dirs)
				return -1;
			continue;
		}
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "%.*s", (int)shipped_trace_stem(names[i]), names[i]);
			if (!rc && (size_t)snprintf(file, sizeof(file), "%s/%s", path, names[i]) <
				   sizeof(file))
				rc = fn(arg, name, file);
			free(names[i]);
		}
		free(names);
		if (rc)
			return rc;
	}
	return 0;
}
