/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scenarios.h - what the guest's scenarios share (devanon_guest.c), and
 * the scenarios of their own files.
 */
#ifndef ANONSIM_GUEST_SCENARIOS_H
#define ANONSIM_GUEST_SCENARIOS_H

#include <errno.h>
#include <string.h>

#define SYSFS	"/sys/class/misc/anon/"

/* Count a failure and print it: "guest: FAIL ...". */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The number a file starts with; -1 if none. */
long read_long(const char *path);
/* Write @s to the file @path (sysfs, procfs, debugfs): 0, or -1. */
int write_str(const char *path, const char *s);
/* Run @fn in a child process and wait for it; a failure if it does not
 * exit 0 (@what names it in the message). */
void run_in_child(void (*fn)(void), const char *what);

#define CHECK(cond) do { if (!(cond)) fail("line %d: %s (%s)", __LINE__, #cond, strerror(errno)); } while (0)

/*
 * bounds.c: lseek then write; two of the longest mappings (16 GiB) mapped, touched
 * and unmapped together with the soft-lockup detector at its tightest
 * threshold; one page longer refused (EFBIG) with nothing allocated; table
 * pages charged to a memory cgroup, a mapping past its limit refused
 * (ENOMEM) with what it built freed, nothing left charged after close.
 */
void bounds_scenario(void);

/*
 * faults.c: mmaps of a process whose page allocations fail at random
 * (fail_page_alloc): each fails with ENOMEM or maps, a failed one leaves
 * no count and no table page behind, and closing leaves nothing; then
 * shmem's ->mmap failing after the counts were taken (fail_devanon_mmap).
 */
void faults_scenario(void);

/*
 * races.c: 8 processes map and unmap the same pages of one descriptor 200
 * times each; one tmpfs file, every page freed at the end, nothing left.
 */
void races_scenario(void);

#endif
