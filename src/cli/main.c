/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main.c - anonsim: how much host memory does a virtual machine's disk cache
 * cost, and what do map-count reclaim (/dev/anon) and hole punching save?
 *
 * src/cli/ is the part of anonsim that users meet: this entry point, the
 * command registry (commands.h), one file per command (cmd_*.c), the
 * options the host commands share (host_options.h), reports and output
 * files.  It may use every other part; no other part includes its headers.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/output_format.h"
#include "util/names.h"
#include "util/util.h"
#include "util/xalloc.h"

static void usage(FILE *out)
{
	const struct command *c;

	fprintf(out,
		"Usage: anonsim COMMAND [OPTIONS] [ARGS]\n"
		"       anonsim --help | --version\n"
		"\n"
		"Simulate the host memory cost of User-Mode Linux disk caching under\n"
		"read-copy, /dev/anon map-count reclaim and hole punching.\n"
		"\n"
		"Commands:\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out,
		"\n"
		"Run \"anonsim COMMAND --help\" for a command's options.\n"
		EXIT_STATUS_HELP
		"See anonsim(1).\n");
}

/* What a command printed must have reached its destination (a full disk,
 * /dev/full, a closed pipe): else the run failed, whatever it found. */
static int close_stdout(int rc)
{
	int bad = fflush(stdout) != 0 || ferror(stdout);
	int saved = errno;

	if (fclose(stdout) && !bad) {
		bad = 1;
		saved = errno;
	}
	if (!bad)
		return rc;
	msg("standard output: write failed: %s", saved ? strerror(saved) : "I/O error");
	return rc == EXIT_OK || rc == EXIT_TARGET ? EXIT_OUTPUT : rc;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return close_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("anonsim %s\n", PACKAGE_VERSION);
		return close_stdout(EXIT_OK);
	}
	c = command_find(argv[1]);
	if (!c) {
		char names[NAMES_LIST_MAX];

		msg("unknown command '%s': expected %s (see anonsim --help)", argv[1],
		    command_names(names, sizeof(names)));
		return EXIT_USAGE;
	}
	out_set_command_line(argc, argv);
	opterr = 0;	/* refused options: usage_error(), one style */
	msg_set_command(c->name);
	return close_stdout(c->run(argc - 1, argv + 1));
}
