/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * strace_log.h - an strace log read into the calls a UML trace is made of
 * (pread64, pwrite64, mmap, munmap), with a count of every other line.
 * Lines of several processes interleave and a call can be split over two
 * lines (<unfinished ...> / <... resumed>): the halves are joined per
 * process, and the calls sorted by the time each began.
 */
#ifndef ANONSIM_TRACE_STRACE_LOG_H
#define ANONSIM_TRACE_STRACE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/strace_line.h"

enum log_call_kind { LC_READ, LC_WRITE, LC_MMAP, LC_MUNMAP };

struct log_call {
	uint64_t t_us;		/* since the first call began */
	unsigned line;		/* where it began */
	enum log_call_kind kind;
	bool shared;		/* mmap: MAP_SHARED */
	int fd;			/* -1: none (munmap, anonymous mmap) */
	const char *file;	/* fd's -y decoration (one string per file), or NULL */
	uint64_t addr;		/* the buffer; mmap: where it mapped (its result) */
	uint64_t len;		/* transferred (the result), mapped or unmapped */
	uint64_t off;		/* in the file */
};

struct strace_log {
	struct log_call *calls;
	size_t n, cap;
	char **files;
	size_t nfiles;
	enum strace_clock clock;	/* of its time stamps */
	/* the four calls, left out */
	uint64_t vector;	/* preadv, pwritev and their 2: no buffer addresses */
	uint64_t failed;	/* an error, or no result ("= ?") */
	uint64_t cut;		/* unfinished when the log or their process ended */
	uint64_t before;	/* resumed, begun before the log */
	uint64_t empty;		/* transferred nothing */
	/* lines of nothing the trace holds */
	uint64_t other;		/* calls of other system calls */
	uint64_t signals, exits, messages;
	uint64_t preads;	/* pread64 calls that read something */
	unsigned cut_line;	/* the last line, cut off in its middle; 0: none */
	char cut_name[64];	/* its call's name, "" if it is none */
};

/*
 * Read @path (plain or gzip) into @log.  0, or EXIT_DATA with a message
 * "PATH:LINE: what" in @err.  strace_log_free frees it either way.
 */
int strace_log_read(const char *path, struct strace_log *log, char *err, size_t errlen);
void strace_log_free(struct strace_log *log);

#endif
