/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gen.h - synthesize a boot trace from a small profile: how much the
 * guest reads from ubd, touches otherwise and frees, with the order and
 * timing of events taken from a real recorded trace.
 *
 * Profile settings (one a line, '#' comments):
 *   ordering FILE      the recorded trace whose events give order and time
 *                      (relative to the profile's directory)
 *   memory SIZE        physical memory of the synthetic UML
 *   read SIZE          distinct device data read through ubd
 *   touch SIZE         pages written by the guest other than by reads
 *   free SIZE          pages the guest frees (default 0)
 *   readahead-kb N     host readahead window to record (default: ordering's)
 *   backing ID         backing identity of the device (default: ordering's)
 *   note TEXT          carried into the trace header; may repeat
 */
#ifndef ANONSIM_TRACEGEN_H
#define ANONSIM_TRACEGEN_H

#include <stddef.h>
#include <stdint.h>

struct gen_profile {
	char path[4096];
	char ordering[4096];
	uint64_t memory;
	uint64_t read_pages, touch_pages, free_pages;
	int64_t readahead_kb;		/* -1: keep the ordering's */
	char backing[256];		/* "": keep the ordering's */
	char notes[2048];
};

struct gen_stats {
	uint64_t events, read_pages, touch_pages, free_pages, phys_pages;
};

int profile_load(const char *path, struct gen_profile *p, char *err, size_t errlen);

/*
 * Write the synthetic trace to @out (encoding by its name).  0, or EXIT_DATA
 * / EXIT_USAGE with the message in @err; nothing is left at @out on error.
 */
int trace_generate(const struct gen_profile *p, const char *out,
		   struct gen_stats *st, char *err, size_t errlen);

#endif
