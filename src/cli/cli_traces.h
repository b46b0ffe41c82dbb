/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_traces.h - the trace arguments of a command, made ready before any
 * work starts.  Every command that reads traces names them this one way:
 *
 *  - an argument that names an existing file is that file (a file in the
 *    working directory wins over a shipped trace of the same name);
 *  - else a bare name (no '/') of a shipped trace, with or without
 *    .trace.gz, is the installed one (shipped_traces.h), and a line on
 *    standard error says which file that is;
 *  - else nothing has that name: EXIT_DATA, as for any missing file, with
 *    a message saying how to see the shipped traces' names.
 *
 * A "-" is standard input, read once now, before threads open it
 * (trace_stdin_path in trace/trace.h).
 */
#ifndef ANONSIM_CLI_TRACES_H
#define ANONSIM_CLI_TRACES_H

#include <stdbool.h>

/* What a command's --help says of its TRACE arguments. */
#define TRACE_ARGS_HELP \
	"A TRACE is a file, or the name of a trace that comes with anonsim, such\n" \
	"as debian-boot-64M (anonsim trace list; a file of that name in the\n" \
	"working directory comes first); - is standard input.\n"

/* *@path resolved in place (to a string of its own); @quiet: no line on
 * which file a name found.  0, or EXIT_DATA after a message. */
int cli_trace_arg(char **path, bool quiet);

/* Every one of @paths resolved, and standard input read if one is "-".
 * 0, or EXIT_DATA after a message. */
int cli_traces_ready(char **paths, unsigned n, bool quiet);

/* Whether "-" comes at most once among @args, inputs that read standard
 * input as it comes (not a trace's scratch copy): 0, or EXIT_USAGE after
 * a message. */
int cli_stdin_once(char *const *args, unsigned n);

#endif
