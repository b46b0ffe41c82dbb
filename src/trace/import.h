/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import.h - traces from logs made by other tools.  Today: strace output of
 * a UML run (its main process and its io thread, attached with -p), with
 * the buffers of pread64 and pwrite64 as addresses (-e raw=pread64,pwrite64),
 * times from -tt or -ttt.
 */
#ifndef ANONSIM_TRACE_IMPORT_H
#define ANONSIM_TRACE_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/* What strace cannot see, given by the user. */
struct strace_device_opt {
	int fd;
	uint64_t size;			/* bytes; 0: the farthest byte reached, to 1 MiB */
	char backing[256];		/* "" : "strace-fdN" */
};

struct strace_import_opts {
	uint64_t memory;		/* bytes of UML physical memory (mem=) */
	uint64_t phys_base;		/* host address of physical page 0 */
	int memory_fd;			/* the memory file's fd; -1: the one fd of shared mappings */
	int64_t readahead_kb;		/* -1: not recorded */
	struct strace_device_opt dev[TRACE_MAX_DEVICES];
	unsigned nr_dev;
};

/* UML's physical memory starts here on x86_64 (its link address). */
#define UML_PHYS_BASE_X86_64 0x60000000ULL

/*
 * Read the strace log @log (plain or gzip) and write the trace @out (its
 * name gives the encoding).  Returns 0, or EXIT_DATA / EXIT_USAGE with a
 * message naming the log and line in @err.  *@skipped counts the calls
 * that could not become events (also stated in the trace's notes).
 */
int strace_import(const char *log, const struct strace_import_opts *o,
		  const char *out, uint64_t *events, uint64_t *skipped,
		  char *err, size_t errlen);

#endif
