/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sweep.h - "anonsim sweep": a grid of replays, one per combination of the
 * parameter values given (traces, strategies, host memory, swap, policy,
 * readahead, instances), run on all cores or handed out as jobs, and its
 * rows: one CSV (or JSON) with a column per parameter.
 *
 * Combination K is the same replay wherever it runs, and its row the same
 * bytes, so parts written by separate jobs merge into exactly the file one
 * process writes.
 */
#ifndef ANONSIM_SWEEP_H
#define ANONSIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/host_options.h"

#define SWEEP_MAX_VALUES 64

struct sweep_grid {
	struct host_cli base;		/* the options every combination shares */
	char **traces;
	unsigned ntraces;
	struct strategy_run runs[HOST_CLI_MAX_RUNS];
	unsigned nruns;
	uint64_t mem[SWEEP_MAX_VALUES], swap[SWEEP_MAX_VALUES];
	unsigned nmem, nswap;
	enum reclaim_policy policy[SWEEP_MAX_VALUES];
	unsigned npolicy;
	int64_t ra[SWEEP_MAX_VALUES];	/* KiB; -1: each trace's recorded window */
	unsigned nra;
	unsigned copies[SWEEP_MAX_VALUES];
	unsigned ncopies;
};

/* Combinations in the grid; strategies vary fastest, traces slowest. */
uint64_t sweep_size(const struct sweep_grid *g);

/*
 * Replay combination @k and return its CSV row (malloc'd, ending in a
 * newline), or NULL with a message in @err and the exit status in *@rc.
 */
char *sweep_row(const struct sweep_grid *g, uint64_t k, int *rc, char *err,
		size_t errlen);

/* The CSV header line every sweep and part starts with. */
void sweep_csv_header(FILE *f);

/*
 * A part (what --job writes) starts with the identity of its sweep, a line
 * "# anonsim sweep part: identity=ID combinations=N": ID hashes anonsim's
 * version, the grid and host options as given and each trace's header and
 * size; --merge joins only parts of one sweep, and all N of its rows.
 */
#define SWEEP_ID_LEN 17		/* 16 hex digits and the NUL */
void sweep_part_line(char *buf, size_t len, uint64_t id, uint64_t total);
/* Parse such a line: 0, or -1 when @line is not one. */
int sweep_part_parse(const char *line, char id[SWEEP_ID_LEN], uint64_t *total);
/* FNV-1a, 64 bits, of @n bytes at @p, continuing from @h (start: SWEEP_HASH_START). */
#define SWEEP_HASH_START 0xcbf29ce484222325ULL
uint64_t sweep_hash(uint64_t h, const void *p, size_t n);

/*
 * Replay combinations [first, first + n) on @jobs threads into rows[]
 * (rows[i] for combination first + i).  Returns 0, or the exit status of
 * the first combination that failed, with its message in @err.
 */
int sweep_run(const struct sweep_grid *g, uint64_t first, uint64_t n, unsigned jobs,
	      bool progress, char **rows, char *err, size_t errlen);

/*
 * The rows as the one JSON object of every command (output_format.h):
 * "results" holds one object per row, keys from the CSV header, an empty
 * field (never) null; "traces" names @traces (none after --merge).
 */
void sweep_json(FILE *f, char *const *rows, uint64_t n, char *const *traces,
		unsigned ntraces);

/*
 * Read the parts @paths (CSV written by sweep jobs) into *@rows, ordered by
 * combination, each combination once.  Returns 0, or EXIT_DATA with a
 * message naming the file and line.
 */
int sweep_merge(char *const *paths, unsigned n, char ***rows, uint64_t *nrows,
		char *err, size_t errlen);

#endif
