/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_live.c - "anonsim live": run traces on the running kernel, real beside
 * the model (Linux only: built when configure finds memfd and fallocate).
 */
#include <config.h>

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/host_options.h"
#include "live/live.h"
#include "util/util.h"

#define LIVE_MAX_RUNS 8

static void live_usage(FILE *f)
{
	const struct live_strategy *const *s;

	fputs("Usage: anonsim live [OPTIONS] TRACE...\n"
	      "\n"
	      "Execute each TRACE on this machine's kernel as UML would under a\n"
	      "strategy: physical memory is a memfd (devanon: /dev/anon, where its\n"
	      "driver is loaded), each disk a sparse file of the traced size in a\n"
	      "scratch directory (removed afterwards, also on SIGINT, SIGTERM, SIGHUP\n"
	      "and SIGPIPE).  Before each phase and at the end, print the tmpfs pages\n"
	      "of the memory file (mincore; /dev/anon: as its driver reports them)\n"
	      "and the page cache of the disk files (mincore) beside the model's\n"
	      "prediction for the same trace at the readahead window of the scratch\n"
	      "directory's device.\n"
	      "\n"
	      "Options:\n"
	      "  -s, --strategy LIST   strategies, comma-separated, or \"all\" (default:\n"
	      "                        all that run live)\n"
	      "  -d, --dir DIR         where to make the scratch directory; not a tmpfs\n"
	      "                        (default: $TMPDIR, else /var/tmp)\n"
	      "  -n, --instances N     run N instances of each trace (default: 1), one\n"
	      "                        after another or --stagger SECS apart, as\n"
	      "                        \"anonsim replay\" does\n"
	      "      --stagger SECS    start instances SECS of trace time apart\n"
	      "  -m, --host-mem SIZE   run the instances in a memory cgroup of SIZE\n"
	      "                        (needs root and cgroup v1), with a swap file\n"
	      "      --swap SIZE       of SIZE (default: 1G; 0: none), made in the\n"
	      "                        scratch directory and removed afterwards; the\n"
	      "                        model runs with the same host memory and swap\n"
	      "      --policy P        the model's reclaim: modern or 2.4 (default: modern)\n"
	      "      --overhead SIZE   the model's fixed memory per instance (default:\n"
	      "                        under -m, what an instance process holds in\n"
	      "                        its cgroup before its first event; else 0)\n"
	      "      --cache-tolerance PCT  allowed page-cache difference (default: 2);\n"
	      "                        tmpfs pages must be equal (without -m)\n"
	      "      --csv             CSV rows instead of the table\n"
	      "  -h, --help            this help\n"
	      "\n"
	      "Strategies:\n", f);
	for (s = live_strategies; *s; s++)
		fprintf(f, "  %-10s %s\n", (*s)->name,
			live_strategy_unavailable(*s) ? live_strategy_unavailable(*s) : "runs live");
	fputs("\nUnder -m the figures are reported, not judged: the kernel's reclaim is\n"
	      "what is being measured.  A difference beyond its tolerance is a missed\n"
	      "target (4); a system call that fails, which the message names, a\n"
	      "system failure (5).\n"
	      EXIT_STATUS_HELP, f);
}

/* Parse "-s LIST" into @runs; the number taken, or -1 after a message. */
static int parse_strategies(const char *list, const struct live_strategy **runs)
{
	const struct live_strategy *const *s;
	char buf[256], *tok, *save;
	int n = 0;

	if (!strcmp(list, "all")) {
		for (s = live_strategies; *s; s++)
			if (!live_strategy_unavailable(*s))
				runs[n++] = *s;
		return n;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct live_strategy *ls = live_strategy_find(tok);

		if (!ls) {
			msg("--strategy '%s': expected strategies named in --help, or all", tok);
			return -1;
		}
		if (live_strategy_unavailable(ls)) {
			msg("--strategy '%s' cannot run live: it %s", tok,
			    live_strategy_unavailable(ls));
			return -1;
		}
		if (n == LIVE_MAX_RUNS) {
			msg("--strategy: at most %d strategies", LIVE_MAX_RUNS);
			return -1;
		}
		runs[n++] = ls;
	}
	if (!n)
		msg("--strategy '%s': no strategy named", list);
	return n ? n : -1;
}

int cmd_live(int argc, char **argv)
{
	enum { O_TOL = HOST_O_END, O_CSV };
	static const struct option opts[] = {
		{ "strategy", required_argument, NULL, 's' },
		{ "instances", required_argument, NULL, 'n' },
		{ "stagger", required_argument, NULL, HOST_O_STAGGER },
		{ "host-mem", required_argument, NULL, 'm' },
		{ "swap", required_argument, NULL, HOST_O_SWAP },
		{ "policy", required_argument, NULL, HOST_O_POLICY },
		{ "overhead", required_argument, NULL, HOST_O_OVERHEAD },
		{ "dir", required_argument, NULL, 'd' },
		{ "cache-tolerance", required_argument, NULL, O_TOL },
		{ "csv", no_argument, NULL, O_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const struct live_strategy *runs[LIVE_MAX_RUNS];
	struct live_opts o = { .cache_tolerance = 2.0, .header = true };
	struct host_cli hc;
	const char *tmpdir = getenv("TMPDIR");
	bool missed = false;
	int nruns = -2, opt, i, k;

	o.dir = tmpdir && *tmpdir ? tmpdir : "/var/tmp";
	host_cli_init(&hc);
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":s:d:n:m:h", opts, NULL)) != -1) {
		char *end;
		uint64_t v;

		switch (opt) {
		case 'm':
		case HOST_O_SWAP:
		case HOST_O_POLICY:
		case HOST_O_OVERHEAD:
		case HOST_O_STAGGER: {
			int rc = host_cli_option(&hc, opt, optarg);

			if (rc)
				return rc;
			o.overhead_given |= opt == HOST_O_OVERHEAD;
			break;
		}
		case 'n':
			if (parse_uint(optarg, 64, &v) || !v)
				return bad_option_value("--instances", optarg,
							"a number from 1 to 64");
			hc.o.copies = (unsigned)v;
			break;
		case 's':
			nruns = parse_strategies(optarg, runs);
			if (nruns < 0)
				return EXIT_USAGE;
			break;
		case 'd':
			o.dir = optarg;
			break;
		case O_TOL:
			o.cache_tolerance = strtod(optarg, &end);
			if (end == optarg || *end || !(o.cache_tolerance >= 0) ||
			    isinf(o.cache_tolerance)) {
				msg("--cache-tolerance '%s': expected a percentage", optarg);
				return EXIT_USAGE;
			}
			break;
		case O_CSV:
			o.csv = true;
			break;
		case 'h':
			live_usage(stdout);
			return EXIT_OK;
		default:
			return usage_error(opt, argv, "live");
		}
	}
	if (optind >= argc) {
		msg("no trace given (see anonsim live --help)");
		return EXIT_USAGE;
	}
	if (nruns == -2)
		nruns = parse_strategies("all", runs);
	o.model = hc.o;
	if (!o.model.copies)
		o.model.copies = 1;
	/* one process, no read-ahead threads: instances are forked as they start */
	setenv("ANONSIM_READAHEAD", "0", 1);
	for (i = optind; i < argc; i++)
		for (k = 0; k < nruns; k++) {
			char err[1024];
			bool beyond;
			int rc = live_run(argv[i], runs[k], &o, stdout, &beyond, err, sizeof(err));

			if (rc) {
				msg("%s", err);
				return rc;
			}
			o.header = false;
			missed |= beyond;
		}
	if (fflush(stdout) || ferror(stdout)) {
		msg("writing the results failed");
		return EXIT_OUTPUT;
	}
	return missed ? EXIT_TARGET : EXIT_OK;
}
