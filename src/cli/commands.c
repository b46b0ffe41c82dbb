/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <getopt.h>
#include <stddef.h>
#include <string.h>

#include "cli/commands.h"
#include "util/util.h"

/* The one registry of subcommands: "anonsim --help" lists them in this order. */
const struct command commands[] = {
	{ "selftest", "check the block-table and map-count code on this machine", cmd_selftest },
	{ "trace", "check, describe, convert and print traces", cmd_trace },
	{ "replay", "replay traces through the host model, per strategy", cmd_replay },
	{ "density", "how many instances fit on a host before it swaps, per strategy", cmd_density },
	{ "sweep", "replay every combination of traces and parameters, here or as jobs", cmd_sweep },
	{ "reproduce", "reproduce the published 2004 figures and compare real traces", cmd_reproduce },
	{ "fidelity", "compare the model with the footprint recorded in real traces", cmd_fidelity },
#ifdef HAVE_LIVE
	{ "live", "run traces on this kernel, real beside the model (Linux)", cmd_live },
#endif
	{ NULL, NULL, NULL }
};

const struct command *command_find(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int usage_error(int c, char *const *argv, const char *cmd)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (c == ':')
		msg("option '%s' needs a value (see anonsim %s --help)", arg, cmd);
	else if (optopt && optopt < 128 && !(arg[0] == '-' && arg[1] == '-'))
		msg("unknown option '-%c' (see anonsim %s --help)", optopt, cmd);
	else
		msg("unknown option '%s' (see anonsim %s --help)", arg, cmd);
	return EXIT_USAGE;
}
