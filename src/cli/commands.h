/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * commands.h - the subcommands of anonsim, one file each (cmd_*.c), listed
 * once in the table in commands.c.
 */
#ifndef ANONSIM_COMMANDS_H
#define ANONSIM_COMMANDS_H

struct command {
	const char *name;
	const char *summary;	/* one line for "anonsim --help" */
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
};

extern const struct command commands[];

/* The one table of exit statuses (util.h), in every --help and anonsim(1). */
#define EXIT_STATUS_HELP \
	"Exit status: 0 ok; 1 usage error or impossible parameter; 2 bad input\n" \
	"data (the message names the file and place); 3 a simulator bug (names\n" \
	"the trace, the event index and its text); 4 a figure missed its target;\n" \
	"5 an output could not be written, or a system failure.\n"

const struct command *command_find(const char *name);

/*
 * The message for an option getopt_long refused (opterr is 0 and every
 * option string starts with ':'): @c is '?' for an unknown option, ':'
 * for one without its value.  Returns EXIT_USAGE.
 */
int usage_error(int c, char *const *argv, const char *cmd);

int cmd_selftest(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_fidelity(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_trace_gen(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_trace_import(int argc, char **argv);
int cmd_density(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_live(int argc, char **argv);	/* Linux only (HAVE_LIVE) */

#endif
