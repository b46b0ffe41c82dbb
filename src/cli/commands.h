/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * commands.h - the subcommands of anonsim, one file each (cmd_*.c), listed
 * once in the table in commands.c.
 */
#ifndef ANONSIM_COMMANDS_H
#define ANONSIM_COMMANDS_H

#include <stddef.h>

struct command {
	const char *name;
	const char *summary;	/* one line for "anonsim --help" */
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
};

extern const struct command commands[];

const struct command *command_find(const char *name);

/* The commands' names, "selftest, trace, ... or live", in @buf (cut to @len). */
char *command_names(char *buf, size_t len);

int cmd_selftest(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_fidelity(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_trace_gen(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_trace_import(int argc, char **argv);
int cmd_trace_list(int argc, char **argv);
int cmd_density(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_live(int argc, char **argv);	/* Linux only (HAVE_LIVE) */

#endif
