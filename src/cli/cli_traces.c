/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <string.h>

#include "cli/cli_traces.h"
#include "trace/trace.h"
#include "util/util.h"

int cli_traces_ready(char *const *paths, unsigned n)
{
	char err[512];
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(paths[i], "-") && !trace_stdin_path(err, sizeof(err))) {
			msg("%s", err);
			return EXIT_DATA;
		}
	return 0;
}
