/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.h - replay results as a table for people, CSV or JSON for machines.
 */
#ifndef ANONSIM_REPORT_H
#define ANONSIM_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json;

#include "model/density.h"
#include "model/replay.h"

/* Memory in MiB, or in 4 KiB pages when @pages. */
void report_table(FILE *f, const struct replay_result *r, unsigned n, bool pages);
void report_csv(FILE *f, const struct replay_result *r, unsigned n, bool pages);
/* "results": one object per strategy, in the command's JSON (output_format.h). */
void report_json_results(struct json *j, const struct replay_result *r, unsigned n,
			 bool pages);

/*
 * A density sweep as CSV for plots/density.gp: one row per N.
 * first_swap_out_s and density are empty when there is none to give.
 */
void density_csv_header(FILE *f);
void density_csv(FILE *f, const char *label, const struct density_point *pt,
		 unsigned filled, unsigned density, uint64_t host_mem);
/* The same figures as one JSON object of the open array: "strategy",
 * "density" (null when memory is unlimited) and "points". */
void density_json(struct json *j, const char *label, const struct density_point *pt,
		  unsigned filled, unsigned density, uint64_t host_mem);

#endif
