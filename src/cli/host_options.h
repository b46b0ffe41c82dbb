/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_options.h - the options of every command that runs the host model
 * (replay, density): strategy selection and host parameters, parsed once.
 *
 * A command puts HOST_LONG_OPTIONS into its getopt_long table, numbers its
 * own long options from HOST_O_END, starts its short options with
 * HOST_SHORT_OPTIONS and hands each option to host_cli_option() first.
 */
#ifndef ANONSIM_HOST_OPTIONS_H
#define ANONSIM_HOST_OPTIONS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "model/replay.h"
#include "strategy/registry.h"

enum {
	HOST_O_VARIANT = 256, HOST_O_SWAP, HOST_O_POLICY, HOST_O_RA,
	HOST_O_OVERHEAD, HOST_O_STAGGER, HOST_O_NOSHARE, HOST_O_GEOM,
	HOST_O_CHECK, HOST_O_RECOUNT, HOST_O_REPORT, HOST_O_NOHOST,
	HOST_O_OVERHEAD_ANON,
	HOST_O_END	/* first value free for a command's own options */
};

#define HOST_SHORT_OPTIONS "s:m:"

#define HOST_LONG_OPTIONS \
	{ "strategy", required_argument, NULL, 's' }, \
	{ "variant", required_argument, NULL, HOST_O_VARIANT }, \
	{ "host-mem", required_argument, NULL, 'm' }, \
	{ "swap", required_argument, NULL, HOST_O_SWAP }, \
	{ "policy", required_argument, NULL, HOST_O_POLICY }, \
	{ "readahead", required_argument, NULL, HOST_O_RA }, \
	{ "overhead", required_argument, NULL, HOST_O_OVERHEAD }, \
	{ "overhead-anon", required_argument, NULL, HOST_O_OVERHEAD_ANON }, \
	{ "stagger", required_argument, NULL, HOST_O_STAGGER }, \
	{ "no-share", no_argument, NULL, HOST_O_NOSHARE }, \
	{ "no-host-events", no_argument, NULL, HOST_O_NOHOST }, \
	{ "geometry", required_argument, NULL, HOST_O_GEOM }, \
	{ "check", no_argument, NULL, HOST_O_CHECK }, \
	{ "recount-every", required_argument, NULL, HOST_O_RECOUNT }, \
	{ "report-order", required_argument, NULL, HOST_O_REPORT }

struct host_cli {
	struct replay_opts o;	/* copies = 1, no series, no progress */
	const char *strategy;	/* a strategy name or "all" */
	const char *variant;	/* "posted", "fixed" or "both" */
};

#define HOST_CLI_MAX_RUNS 16

/* The defaults documented in the help text. */
void host_cli_init(struct host_cli *hc);

/*
 * Take option @c with argument @arg.  Returns 0 when taken, -1 when @c is
 * not a host option, EXIT_USAGE after a message "--opt 'value': ..." when
 * the value is bad.
 */
int host_cli_option(struct host_cli *hc, int c, const char *arg);

/* The strategy runs selected by --strategy and --variant; their count. */
unsigned host_cli_runs(const struct host_cli *hc, struct strategy_run *runs,
		       unsigned max);

/*
 * Help for the host options: the strategy and host lines, then @between
 * (a command's own lines, may be ""), then the instance lines.
 */
void host_options_usage(FILE *f, const char *between);

/* The "Strategies:" list of the help text. */
void host_options_strategies(FILE *f);

/* Whether -s @list names strategies, each once: 0, or EXIT_USAGE after
 * the message naming the one that is not a strategy or comes twice. */
int strategy_list_option(const char *list);

/* Print "anonsim CMD: OPT 'VAL': expected WANT"; returns EXIT_USAGE. */
int bad_option_value(const char *opt, const char *val, const char *want);

/* Seconds with up to six decimals, as microseconds; -1 if not a number. */
int64_t parse_seconds(const char *s);

#endif
