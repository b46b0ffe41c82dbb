/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_trace_gen.c - "anonsim trace gen PROFILE OUT": a synthetic boot trace.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "trace/gen.h"
#include "trace/trace.h"
#include "util/names.h"
#include "util/util.h"

static void gen_usage(FILE *f)
{
	fputs("Usage: anonsim trace gen [OPTIONS] PROFILE OUT\n"
	      "\n"
	      "Synthesize a boot trace from PROFILE: so much read from ubd, touched\n"
	      "otherwise and freed, in the order and at the times of the events of a\n"
	      "real recorded trace (the profile's 'ordering').  OUT's name chooses the\n"
	      "encoding (.trace, .atr, optionally .gz); it appears only when complete.\n"
	      "A PROFILE of - is standard input (its ordering relative to the working\n"
	      "directory).\n"
	      "\n"
	      "Profile settings, one a line ('#' starts a comment):\n"
	      "  ordering FILE     recorded trace giving order and timing (relative to\n"
	      "                    the profile's directory)\n"
	      "  memory SIZE       physical memory of the synthetic UML, e.g. 64M\n"
	      "  read SIZE         distinct device data read through ubd\n"
	      "  touch SIZE        pages the guest writes other than by reads\n"
	      "  free SIZE         pages the guest frees (default 0)\n"
	      "  readahead-kb N    host readahead window (default: the ordering's)\n"
	      "  backing ID        backing identity of the device (default: the ordering's)\n"
	      "  note TEXT         a note for the header; may repeat\n"
	      "\n"
	      "Options:\n"
	      QUIET_NOTHING_HELP
	      "  -h, --help            this help\n"
	      "\n"
	      EXIT_STATUS_HELP, f);
}

int cmd_trace_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct gen_profile p;
	struct gen_stats st;
	char err[1024];
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		if (c == 'q')
			continue;
		if (c != 'h')
			return usage_error(c, argv, "trace gen");
		gen_usage(stdout);
		return EXIT_OK;
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc != 3) {
		msg("expected PROFILE OUT (see anonsim trace gen --help)");
		return EXIT_USAGE;
	}
	{
		int binary, gz;

		if (trace_path_encoding(argv[2], &binary, &gz)) {
			char why[NAMES_LIST_MAX + 32];

			msg("%s: %s", argv[2], trace_suffix_error("name", why, sizeof(why)));
			return EXIT_USAGE;
		}
	}
	rc = profile_load(argv[1], &p, err, sizeof(err));
	if (!rc)
		rc = trace_generate(&p, argv[2], &st, err, sizeof(err));
	if (rc) {
		msg("%s", err);
		return rc;
	}
	printf("%s: %llu events, %llu pages read, %llu touched, %llu freed, %llu physical pages used\n",
	       argv[2], (unsigned long long)st.events, (unsigned long long)st.read_pages,
	       (unsigned long long)st.touch_pages, (unsigned long long)st.free_pages,
	       (unsigned long long)st.phys_pages);
	return EXIT_OK;
}
