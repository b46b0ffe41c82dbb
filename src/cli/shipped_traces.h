/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shipped_traces.h - the traces anonsim ships: the *.trace.gz files of
 * traces/ and its folders under the data directory (datadir.h), each
 * known by its file name without .trace.gz, such as "debian-boot-64M".
 */
#ifndef ANONSIM_SHIPPED_TRACES_H
#define ANONSIM_SHIPPED_TRACES_H

#include <stddef.h>

#define SHIPPED_TRACE_SUFFIX ".trace.gz"

/* The length of @name without SHIPPED_TRACE_SUFFIX, when it ends in it. */
size_t shipped_trace_stem(const char *name);

/*
 * The file of the shipped trace @name ("NAME" or "NAME.trace.gz", no '/'),
 * written into @buf; NULL when no shipped trace has that name.
 */
const char *shipped_trace_path(const char *name, char *buf, size_t len);

/*
 * @fn(@arg, name, file) for every shipped trace, folder by folder, each
 * folder's by name, until @fn returns non-zero, which is returned.  -1,
 * with errno set, when the data directory's traces/ cannot be read.
 */
int shipped_traces_each(int (*fn)(void *arg, const char *name, const char *file),
			void *arg);

#endif
