/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.h - replay results as a table for people, CSV or JSON for machines.
 */
#ifndef ANONSIM_REPORT_H
#define ANONSIM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/replay.h"

/* Memory in MiB, or in 4 KiB pages when @pages. */
void report_table(FILE *f, const struct replay_result *r, unsigned n, bool pages);
void report_csv(FILE *f, const struct replay_result *r, unsigned n, bool pages);
void report_json(FILE *f, const struct replay_result *r, unsigned n, bool pages);

#endif
