/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_traces.h"
#include "cli/shipped_traces.h"
#include "trace/trace.h"
#include "util/util.h"
#include "util/xalloc.h"

/* Is @a the file @b describes? */
static bool same_file(const char *a, const struct stat *b)
{
	struct stat st;

	return !stat(a, &st) && st.st_dev == b->st_dev && st.st_ino == b->st_ino;
}

int cli_trace_arg(char **path, bool quiet)
{
	const char *name = *path, *slash = strrchr(name, '/'), *base, *shipped;
	char file[4096];
	struct stat st;

	if (!strcmp(name, "-"))
		return 0;
	base = slash ? slash + 1 : name;
	shipped = shipped_trace_path(base, file, sizeof(file));
	if (!stat(name, &st)) {
		if (!slash && shipped && !quiet && !same_file(shipped, &st))
			msg("%s: reading the file in the working directory, not the shipped trace %s",
			    name, shipped);
		return 0;
	}
	if (errno != ENOENT || (slash && !shipped))
		return 0;	/* trace_open says what is wrong with it */
	if (slash) {	/* the README's traces/NAME.trace.gz, away from the source tree */
		msg("%s: No such file or directory (a shipped trace is named without its "
		    "folder: %.*s)", name, (int)shipped_trace_stem(base), base);
		return EXIT_DATA;
	}
	if (!shipped) {
		msg("%s: No such file or directory, nor a shipped trace "
		    "(anonsim trace list names them)", name);
		return EXIT_DATA;
	}
	if (!quiet)
		msg("%s: reading the shipped trace %s", name, shipped);
	*path = xstrdup(shipped, "a trace's name");
	return 0;
}

int cli_traces_ready(char **paths, unsigned n, bool quiet)
{
	char err[512];
	unsigned i;
	int rc;

	for (i = 0; i < n; i++) {
		if ((rc = cli_trace_arg(&paths[i], quiet)))
			return rc;
		if (!strcmp(paths[i], "-") && !trace_stdin_path(err, sizeof(err))) {
			msg("%s", err);
			return EXIT_DATA;
		}
	}
	return 0;
}

int cli_stdin_once(char *const *args, unsigned n)
{
	unsigned i, seen = 0;

	for (i = 0; i < n; i++)
		if (!strcmp(args[i], "-") && seen++) {
			msg("- given twice: standard input is read once");
			return EXIT_USAGE;
		}
	return 0;
}
