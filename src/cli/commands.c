/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <stddef.h>
#include <string.h>

#include "cli/commands.h"
#include "util/names.h"
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

char *command_names(char *buf, size_t len)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];
	size_t i;

	for (i = 0; commands[i].name; i++)
		names[i] = commands[i].name;
	names[i] = NULL;
	return names_or(names, buf, len);
}
