/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_traces.h - the trace arguments of a command, made ready before any
 * work starts: a "-" (standard input) is read once now, before threads
 * open it (trace_stdin_path in trace/trace.h).
 */
#ifndef ANONSIM_CLI_TRACES_H
#define ANONSIM_CLI_TRACES_H

/* 0, or EXIT_DATA after a message. */
int cli_traces_ready(char *const *paths, unsigned n);

#endif
