/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output_file.h - an output file written under a temporary name beside its
 * target and renamed into place only when complete, so that a failed or
 * interrupted run leaves nothing half-written behind.  A target that
 * exists and is not a regular file (a device, a FIFO) is written directly;
 * a symbolic link is followed, and the file it names replaced.
 */
#ifndef ANONSIM_OUTPUT_FILE_H
#define ANONSIM_OUTPUT_FILE_H

#include <stdio.h>

struct output_file {
	FILE *f;
	char *path, *tmp;	/* tmp: NULL when written directly */
};

/*
 * Refuse an output that is one of the @n @inputs (the same file, by any
 * name): 0, or -1 with a message.  Call it before the work starts.
 */
int output_not_input(const char *path, char *const *inputs, unsigned n);
/* 0, or -1 with a message naming the file on stderr. */
int output_open(struct output_file *o, const char *path);
/* Flush, close and rename into place: 0, or -1 with a message (nothing left). */
int output_commit(struct output_file *o);
/* Close and remove the temporary file. */
void output_abort(struct output_file *o);

#endif
