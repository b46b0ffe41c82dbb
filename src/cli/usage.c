/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <getopt.h>

#include "cli/usage.h"
#include "util/util.h"

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
