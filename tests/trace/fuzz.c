/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tests/trace/fuzz.c - libFuzzer target: the trace reader on arbitrary bytes,
 * plain or gzip, either encoding.  It must refuse or accept, never crash,
 * hang or read out of bounds; what it accepts must format as text.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024], line[TRACE_EVENT_TEXT_MAX];
	struct trace_reader *r;
	const struct trace_event *ev;
	FILE *f = tmpfile();
	int fd;

	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fflush(f);
	fd = dup(fileno(f));
	fclose(f);
	if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	r = trace_open_fd(fd, "fuzz", err, sizeof(err));
	if (!r) {
		if (strncmp(err, "fuzz", 4))	/* every message names the file */
			abort();
		return 0;
	}
	while (trace_next(r, &ev) > 0)
		if (trace_format_event(trace_header(r), ev, line, sizeof(line)) >= sizeof(line))
			abort();
	trace_close(r);
	return 0;
}
