/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output_format.h - the one output convention of the commands that report
 * figures (replay, density, reproduce, fidelity, trace stat, sweep, live):
 * a table for
 * people on standard output, or --csv / --json for machines, to standard
 * output or to -o FILE (written whole or not at all, output_file.h).
 *
 * Machine outputs carry every figure at full precision: memory in MiB is
 * the exact decimal of pages / 256, seconds the exact decimal of the
 * microseconds.  "Never" (no swap-out happened, no density to give) is the
 * absent value: an empty CSV field, a JSON null; tables say "never".
 *
 * JSON is one object: the tool version, the command line, the inputs
 * (host parameters, strategies) and each trace's name and header, then
 * the command's results.  Keys name their unit: _pages, _mib, _bytes,
 * _kb, _s, _pct.  A key's type never follows its value, and every object
 * has all its keys (null where a figure may not exist): doc/schema holds
 * each command to that.
 */
#ifndef ANONSIM_OUTPUT_FORMAT_H
#define ANONSIM_OUTPUT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/output_file.h"
#include "model/replay.h"
#include "util/decimal.h"

enum out_format { OUT_TABLE, OUT_CSV, OUT_JSON };

/* getopt values of --csv and --json, below the host options' (256...). */
enum { OUT_O_CSV = 200, OUT_O_JSON };

#define OUT_SHORT_OPTIONS "o:"
#define OUT_LONG_OPTIONS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "csv", no_argument, NULL, OUT_O_CSV }, \
	{ "json", no_argument, NULL, OUT_O_JSON }

/* The lines of --help for the three options. */
#define OUT_OPTIONS_HELP \
	"  -o, --output FILE     write to FILE (complete or not at all) instead\n" \
	"                        of standard output\n" \
	"      --csv             CSV instead of the table\n" \
	"      --json            one JSON object instead of the table (see anonsim(1))\n"

struct out {
	enum out_format fmt;
	const char *path;		/* -o FILE, or NULL: standard output */
	struct output_file file;
	FILE *f;			/* where to write, once out_open() */
};

/* Remember the whole command line (main) for the JSON "command_line". */
void out_set_command_line(int argc, char **argv);

void out_init(struct out *o);

/*
 * Take option @c: 0 when taken, -1 when not one of -o,
 * --csv, --json, EXIT_USAGE after a message when it conflicts with one
 * given before (--csv with --json, -o twice).
 */
int out_option(struct out *o, int c, const char *arg);

/*
 * Open the output before the work starts; refuse an output that is one of
 * the @n @inputs.  0, or an exit status after a message.
 */
int out_open(struct out *o, char *const *inputs, unsigned n);

/* Put the output in place: 0, or EXIT_OUTPUT after a message. */
int out_close(struct out *o);

/* Drop a failed run's output (nothing is left behind). */
void out_abort(struct out *o);

/* Numbers at full precision: fmt_mib() and the others of util/decimal.h. */
#define OUT_NUM_MAX DECIMAL_MAX

/* ---- CSV ---- */

/* A field: quoted if it holds a comma, quote or line break; NULL is "". */
void csv_field(FILE *f, bool first, const char *v);

/* ---- JSON ---- */

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool more[JSON_MAX_DEPTH];	/* a member was written at this level */
	bool array[JSON_MAX_DEPTH];	/* the level is an array, not an object */
};

void json_start(struct json *j, FILE *f);	/* opens the top object */
void json_finish(struct json *j);		/* closes it, and a newline */
/* @key NULL inside an array. */
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j);			/* the innermost object or array */
void json_string(struct json *j, const char *key, const char *v);	/* NULL: null */
void json_uint(struct json *j, const char *key, uint64_t v);
void json_int(struct json *j, const char *key, int64_t v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* A number already formatted (fmt_*); NULL: null. */
void json_number(struct json *j, const char *key, const char *v);

/*
 * The head of every command's JSON: "anonsim_version", "command",
 * "command_line".  Then the command writes "inputs", "traces", "results".
 */
void json_head(struct json *j, const char *command);

/* The host model's inputs a command uses, for json_host_inputs(). */
enum {
	JI_HOST = 1 << 0,	/* host_mem_mib, swap_mib, policy */
	JI_READAHEAD = 1 << 1,	/* readahead_kb */
	JI_OVERHEAD = 1 << 2,	/* overhead_mib, overhead_anon_mib */
	JI_GEOMETRY = 1 << 3,	/* geometry */
	JI_SHARE = 1 << 4,	/* share */
	JI_STAGGER = 1 << 5,	/* stagger_s */
	JI_INSTANCES = 1 << 6,	/* instances */
	JI_CHECK = 1 << 7,	/* check */
	JI_REPORT = 1 << 8,	/* report_order */
	JI_HOST_EVENTS = 1 << 9,	/* host_events */
	JI_ALL = (1 << 10) - 1
};

/*
 * "inputs" for the host model: those of host memory, swap, policy,
 * readahead, overhead, geometry, sharing, stagger, instances and check
 * that @which names (JI_*: only what the command uses), then the strategy
 * labels of @labels[0 .. @nlabels - 1].  The object is left open for the
 * command's own inputs; close it with json_end().
 */
void json_host_inputs(struct json *j, const struct replay_opts *o,
		      const char *const *labels, unsigned nlabels, unsigned which);

/*
 * "traces": each of @paths with its header, read from the file.  0, or
 * EXIT_DATA after a message naming the file.
 */
int json_traces(struct json *j, char *const *paths, unsigned n);

/* The header of a trace as members of the open object. */
struct trace_header;
void json_trace_header(struct json *j, const struct trace_header *h);

#endif
