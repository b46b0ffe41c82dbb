/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usage.h - what every command's usage says alike: the table of exit
 * statuses and the message for a refused option.
 */
#ifndef ANONSIM_USAGE_H
#define ANONSIM_USAGE_H

/* The one table of exit statuses (util.h), in every --help and anonsim(1). */
#define EXIT_STATUS_HELP \
	"Exit status: 0 ok; 1 usage error or impossible parameter; 2 bad input\n" \
	"data (the message names the file and place); 3 a simulator bug (names\n" \
	"the trace, the event index and its text); 4 a figure missed its target;\n" \
	"5 an output could not be written, or a system failure.\n"

/*
 * The -q line of every --help: what it leaves out of standard error, by
 * what the command says there; never an error.
 */
#define QUIET_PROGRESS_HELP \
	"  -q, --quiet           no progress line, nor which file a trace name read\n"
#define QUIET_NAMES_HELP \
	"  -q, --quiet           no line on which file a trace name read\n"
#define QUIET_NOTHING_HELP \
	"  -q, --quiet           taken as by every command: nothing to leave out\n" \
	"                        (errors and warnings stay)\n"

/*
 * The message for an option getopt_long refused (opterr is 0 and every
 * option string starts with ':'): @c is '?' for an unknown option, ':'
 * for one without its value.  Returns EXIT_USAGE.
 */
int usage_error(int c, char *const *argv, const char *cmd);

#endif
