/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * strace_line.h - the lines strace writes, taken apart: the prefix (a
 * process id column or "[pid N]", a time stamp in one of strace's forms)
 * and what follows it (a system call, whole or in two halves, a signal,
 * an exit, a message of strace's own), and a call's arguments and result.
 * No state here: the importer (import.c) joins halves and adds times up.
 */
#ifndef ANONSIM_TRACE_STRACE_LINE_H
#define ANONSIM_TRACE_STRACE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Linux's largest pid_max: a bigger leading number is a time (-ttt in seconds). */
#define STRACE_PID_MAX 4194304

enum strace_clock {
	SC_NONE,		/* no time stamp */
	SC_DAY,			/* -t, -tt: HH:MM:SS[.fraction], the time of day */
	SC_EPOCH,		/* -ttt: seconds since 1970[.fraction] */
	SC_DELTA,		/* -r: seconds since the line before */
};

enum strace_body {
	SB_CALL,		/* name(args) = result */
	SB_UNFINISHED,		/* name(args <unfinished ...> (or <detached ...>) */
	SB_RESUMED,		/* <... name resumed>rest */
	SB_SIGNAL,		/* --- SIGCHLD {...} ---, --- stopped by SIGSTOP --- */
	SB_EXIT,		/* +++ exited with 0 +++, +++ killed by SIGKILL +++ */
	SB_MESSAGE,		/* strace's own: "strace: ...", "[ Process PID=... ]" */
	SB_CUT,			/* one of the above without its end */
};

struct strace_line {
	long pid;		/* 0: no process id on the line */
	enum strace_clock clock;
	uint64_t t_us;		/* in the unit of its clock */
	enum strace_body body;
	bool detached;		/* SB_UNFINISHED: strace let go of the process */
	char name[64];		/* the call's, for the call kinds ("" for others) */
	char *text;		/* SB_CALL, SB_UNFINISHED, SB_CUT: from the name on;
				 * SB_RESUMED: what follows "resumed>" */
};

/*
 * Take line @s (without its newline) apart; @s is modified and @l->text
 * points into it.  0, or -1 with what is wrong in @why.
 */
int strace_line_parse(char *s, struct strace_line *l, char *why, size_t len);

/*
 * What a call's text "name(args...", whole or joined from two halves, is:
 * SB_CALL, SB_UNFINISHED (the mark cut off the text, @detached set for
 * <detached ...>) or SB_CUT.
 */
enum strace_body strace_call_kind(char *text, bool *detached);

#define STRACE_MAX_ARGS 8

/* A whole call, split: its arguments, each a -y/-yy decoration apart. */
struct strace_call {
	char *args[STRACE_MAX_ARGS];
	const char *file[STRACE_MAX_ARGS];	/* "<...>" after a descriptor, or NULL */
	int nargs;				/* more than STRACE_MAX_ARGS: -1 */
	char *result;				/* what follows "= " */
};

/* Split the text of a call strace_call_kind found whole; modifies @text. */
void strace_call_split(char *text, struct strace_call *c);

/* A number as strace prints one (decimal, 0x hexadecimal, NULL); 0 or -1. */
int strace_number(const char *s, uint64_t *v);

/* A call's result: 0 and its value, 1 for a failure ("-1 EINTR (...)",
 * "? ERESTARTSYS", "?"), -1 for anything else. */
int strace_result(const char *s, uint64_t *v);

#endif
