/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output_file.h - an output file written under a temporary name beside its
 * target and renamed into place only when complete, so that a failed run
 * leaves nothing half-written behind.
 */
#ifndef ANONSIM_OUTPUT_FILE_H
#define ANONSIM_OUTPUT_FILE_H

#include <stdio.h>

struct output_file {
	FILE *f;
	char *path, *tmp;
};

/* 0, or -1 with a message naming the file on stderr. */
int output_open(struct output_file *o, const char *path);
/* Flush, close and rename into place: 0, or -1 with a message (nothing left). */
int output_commit(struct output_file *o);
/* Close and remove the temporary file. */
void output_abort(struct output_file *o);

#endif
