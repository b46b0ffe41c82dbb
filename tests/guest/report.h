/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.h - one line per step of the /dev/anon guest test, printed alike
 * by the guest for the real driver and by tests/guest/model_steps for the
 * model, so that the two can be compared as text:
 *
 *   step NAME resident RANGES counts RUNS tables N
 *
 * RANGES: the resident pages as "0-3,5,8-31" ("-" for none); RUNS: the map
 * count of every page, as VALUExLENGTH runs ("1x32", "2x4,0x1"); N: the
 * map-count table pages held.
 */
#ifndef ANONSIM_GUEST_REPORT_H
#define ANONSIM_GUEST_REPORT_H

#include <stdint.h>
#include <stdio.h>

#define STEP_MAX_PAGES 4096u

static inline void step_report(FILE *f, const char *name, const uint8_t *resident,
			       const uint32_t *counts, unsigned n, unsigned long tables)
{
	unsigned i, j;
	const char *sep = "";

	fprintf(f, "step %s resident ", name);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !resident[i] == !resident[j]; j++)
			;
		if (!resident[i])
			continue;
		if (j - i == 1)
			fprintf(f, "%s%u", sep, i);
		else
			fprintf(f, "%s%u-%u", sep, i, j - 1);
		sep = ",";
	}
	if (!*sep)
		fputc('-', f);
	fputs(" counts ", f);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && counts[j] == counts[i]; j++)
			;
		fprintf(f, "%s%ux%u", i ? "," : "", (unsigned)counts[i], j - i);
	}
	fprintf(f, " tables %lu\n", tables);
	fflush(f);
}

#endif
