/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import.h - traces from logs made by other tools.  Today: strace output of
 * a UML run, with the buffers of pread64 and pwrite64 as addresses
 * (-e raw=pread64,pwrite64): UML's main process, which maps the memory
 * file, and its io threads, which read and write the disks
 * (src/record/uml/anonsim-strace-record attaches to them).  Every form
 * strace writes its lines in is read: any -t/-tt/-ttt/-r time stamp or
 * none, a process id column or [pid N], -y/-yy files, calls split over
 * two lines, signals and exits.
 */
#ifndef ANONSIM_TRACE_IMPORT_H
#define ANONSIM_TRACE_IMPORT_H

#include <stdbool.h>
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
	int memory_fd;			/* the memory file's fd; -1: found in the log */
	int64_t readahead_kb;		/* -1: not recorded */
	struct strace_device_opt dev[TRACE_MAX_DEVICES];
	unsigned nr_dev;
};

/* What an import made, and what its user should hear of. */
struct strace_import_result {
	uint64_t events;
	uint64_t left_out;		/* calls on UML's memory and disks that are no event */
	uint64_t reads;			/* read events */
	uint64_t probes;		/* of them, UML's probes of a header, rounded out */
	uint64_t preads;		/* pread64 calls that read something, anywhere */
	bool mapped;			/* the log maps the memory file */
	unsigned cut_line;		/* the last line, cut off in its middle; 0: none */
	char cut_name[64];		/* its call, "" if it is none */
};

/* UML's physical memory starts here on x86_64 (its link address). */
#define UML_PHYS_BASE_X86_64 0x60000000ULL

/*
 * Read the strace log @log (plain or gzip) and write the trace @out (its
 * name gives the encoding).  Returns 0, EXIT_DATA with a message naming
 * the log and line in @err (nothing written), EXIT_USAGE when an option
 * must say what the log cannot (the memory file), EXIT_OUTPUT when @out
 * cannot be written.  The calls that could not become events are counted
 * in the trace's notes.
 */
int strace_import(const char *log, const struct strace_import_opts *o,
		  const char *out, struct strace_import_result *res,
		  char *err, size_t errlen);

#endif
