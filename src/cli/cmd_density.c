/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_density.c - anonsim density: how many instances of a trace fit on a
 * host before it swaps, per strategy.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/host_options.h"
#include "cli/cli_traces.h"
#include "cli/output_format.h"
#include "cli/report.h"
#include "model/density.h"
#include "util/util.h"
#include "util/xalloc.h"

#define MAX_N_LIMIT 4096

static void density_usage(FILE *f)
{
	fputs("Usage: anonsim density [OPTIONS] TRACE...\n"
	      "\n"
	      "Boot 1, 2, ... N instances of the traces (one after another, unless\n"
	      "--stagger) on a host of the given memory, under each strategy.  For\n"
	      "each N, report the host memory the instances demand by category (with\n"
	      "unlimited memory) and the swap they use on the host given; per strategy,\n"
	      "the density: the largest N that runs without a single swap-out.  A\n"
	      "sweep stops after two consecutive N that swap.  With --stagger or\n"
	      "--check, where N instances are no prefix of more, the density is found\n"
	      "by bisection from O(log N) replays, and the table lists the points\n"
	      "replayed (--every-n: replay every N instead).  A TRACE of - is\n"
	      "standard input.\n"
	      "\n"
	      "Options:\n", f);
	host_options_usage(f, "");
	fputs("      --max N           try up to N instances (default: 32)\n"
	      "      --every-n         with --stagger or --check: replay every N, no bisection\n"
	      "  -j, --jobs N          replays run in parallel (default: online CPUs)\n"
	      OUT_OPTIONS_HELP
	      "  -q, --quiet           no progress line\n"
	      "  -h, --help            this help\n"
	      "\n", f);
	host_options_strategies(f);
	fputs("\n" EXIT_STATUS_HELP, f);
}

enum { O_MAX = HOST_O_END, O_EVERY };

static const struct option density_options[] = {
	HOST_LONG_OPTIONS,
	OUT_LONG_OPTIONS,
	{ "max", required_argument, NULL, O_MAX },
	{ "every-n", no_argument, NULL, O_EVERY },
	{ "jobs", required_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct sweep_result {
	char label[32];
	struct density_point *pt;
	unsigned filled, density;
	unsigned *order;		/* bisection: N in the order replayed; else NULL */
};

static void put_table(FILE *f, const struct sweep_result *sr,
		      const struct replay_opts *o, unsigned max_n)
{
	unsigned i;
	int c;

	fprintf(f, "%s: host memory ", sr->label);
	if (o->host_mem)
		fprintf(f, "%.2f MiB", o->host_mem / 1048576.0);
	else
		fputs("unlimited", f);
	fprintf(f, ", swap %.2f MiB, reclaim %s, %s image\n", o->swap / 1048576.0,
		o->policy == RECLAIM_24 ? "2.4" : "modern",
		o->share ? "shared" : "private");
	fprintf(f, "%5s", "N");
	for (c = 0; c < CAT_NR; c++)
		fprintf(f, " %10s", mem_cat_names[c]);
	fprintf(f, " %10s %10s %10s %10s\n", "total", "peak", "swap used", "swap-outs");
	for (i = 0; i < sr->filled; i++) {
		const struct density_point *p = &sr->pt[i];

		fprintf(f, "%5u", p->n);
		for (c = 0; c < CAT_NR; c++)
			fprintf(f, " %10.2f", pages_mib(p->demand.final[c]));
		fprintf(f, " %10.2f %10.2f %10.2f %10llu\n", pages_mib(p->demand.final_total),
			pages_mib(p->demand.peak_total), pages_mib(p->limited.swap_peak),
			(unsigned long long)p->limited.swap_outs);
	}
	if (sr->order) {
		fputs("replayed (bisection, in this order): N =", f);
		for (i = 0; i < sr->filled; i++)
			fprintf(f, " %u", sr->order[i]);
		fputc('\n', f);
	}
	if (!o->host_mem)
		fprintf(f, "density: no host memory limit (see --host-mem)\n\n");
	else if (sr->density == max_n)
		fprintf(f, "density: at least %u instances (all tried fit; see --max)\n\n",
			sr->density);
	else
		fprintf(f, "density: %u instance%s before the host swaps\n\n",
			sr->density, sr->density == 1 ? "" : "s");
}

static bool sweep_failed(const struct sweep_result *sr)
{
	unsigned i;

	for (i = 0; i < sr->filled; i++)
		if (replay_failed(&sr->pt[i].demand) || replay_failed(&sr->pt[i].limited)) {
			const struct replay_result *r = replay_failed(&sr->pt[i].demand) ?
				&sr->pt[i].demand : &sr->pt[i].limited;

			msg("%s, %u instances: simulator failure: %s; at %s", sr->label,
			    sr->pt[i].n, r->find.first_other, r->fail_at);
			return true;
		}
	return false;
}

int cmd_density(int argc, char **argv)
{
	struct host_cli hc;
	struct strategy_run runs[HOST_CLI_MAX_RUNS];
	struct sweep_result sr[HOST_CLI_MAX_RUNS];
	struct out out;
	const char *labels[HOST_CLI_MAX_RUNS];
	unsigned max_n = 32, jobs = online_cpus(), nruns = 0, r, ntraces;
	bool quiet = false, failed = false, every = false, bisect;
	uint64_t v;
	int c, rc = EXIT_OK;

	host_cli_init(&hc);
	out_init(&out);
	optind = 1;
	while ((c = getopt_long(argc, argv, ":" HOST_SHORT_OPTIONS OUT_SHORT_OPTIONS "j:qh",
				density_options, NULL)) != -1) {
		int hrc = host_cli_option(&hc, c, optarg);

		if (hrc < 0)
			hrc = out_option(&out, c, optarg);

		if (hrc >= 0) {
			if (hrc)
				return hrc;
			continue;
		}
		switch (c) {
		case O_MAX:
			if (parse_uint(optarg, MAX_N_LIMIT, &v) || !v)
				return bad_option_value("--max", optarg,
							"a number from 1 to 4096");
			max_n = (unsigned)v;
			break;
		case 'j':
			if (parse_uint(optarg, 1024, &v) || !v)
				return bad_option_value("--jobs", optarg,
							"a number from 1 to 1024");
			jobs = (unsigned)v;
			break;
		case O_EVERY:
			every = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			density_usage(stdout);
			return EXIT_OK;
		default:
			return usage_error(c, argv, "density");
		}
	}
	if (optind >= argc) {
		msg("no trace given (see anonsim density --help)");
		return EXIT_USAGE;
	}
	ntraces = (unsigned)(argc - optind);
	if ((rc = cli_traces_ready(argv + optind, ntraces)))
		return rc;
	hc.o.progress = !quiet && isatty(STDERR_FILENO);
	/* the output is ready before the sweep, not found wanting after it */
	if ((rc = out_open(&out, argv + optind, ntraces)))
		return rc;

	nruns = host_cli_runs(&hc, runs, HOST_CLI_MAX_RUNS);
	bisect = !every && hc.o.host_mem && (hc.o.stagger_us >= 0 || hc.o.check);
	memset(sr, 0, sizeof(sr));
	for (r = 0; r < nruns; r++) {
		char err[512];

		sr[r].pt = xcalloc(max_n, sizeof(*sr[r].pt), "the points of the sweep");
		if (bisect) {
			sr[r].order = xcalloc(max_n, sizeof(*sr[r].order),
					      "the order of the bisection");
			rc = density_bisect(argv + optind, (unsigned)(argc - optind), runs[r].s,
					    runs[r].v, &hc.o, max_n, jobs, sr[r].pt,
					    &sr[r].filled, &sr[r].density, sr[r].order,
					    err, sizeof(err));
		} else {
			rc = density_sweep(argv + optind, (unsigned)(argc - optind), runs[r].s,
					   runs[r].v, &hc.o, max_n, jobs, sr[r].pt,
					   &sr[r].filled, &sr[r].density, err, sizeof(err));
		}
		if (rc) {
			msg("%s", err);
			goto done;
		}
		snprintf(sr[r].label, sizeof(sr[r].label), "%s",
			 sr[r].filled ? sr[r].pt[0].demand.label : runs[r].s->name);
		failed |= sweep_failed(&sr[r]);
	}

	if (out.fmt == OUT_CSV) {
		density_csv_header(out.f);
		for (r = 0; r < nruns; r++)
			density_csv(out.f, sr[r].label, sr[r].pt, sr[r].filled, sr[r].density,
				    hc.o.host_mem);
	} else if (out.fmt == OUT_JSON) {
		struct json j;

		for (r = 0; r < nruns; r++)
			labels[r] = sr[r].label;
		json_start(&j, out.f);
		json_head(&j, "density");
		json_host_inputs(&j, &hc.o, labels, nruns, JI_ALL & ~JI_INSTANCES);
		json_uint(&j, "max_instances", max_n);
		json_end(&j);
		if ((rc = json_traces(&j, argv + optind, ntraces)))
			goto done;
		json_array(&j, "results");
		for (r = 0; r < nruns; r++)
			density_json(&j, sr[r].label, sr[r].pt, sr[r].filled, sr[r].density,
				     hc.o.host_mem);
		json_end(&j);
		json_finish(&j);
	} else {
		for (r = 0; r < nruns; r++)
			put_table(out.f, &sr[r], &hc.o, max_n);
	}
	if ((rc = out_close(&out)))
		goto freed;
	rc = failed ? EXIT_INTERNAL : EXIT_OK;
	goto freed;
done:
	out_abort(&out);
freed:
	for (r = 0; r < nruns; r++) {
		free(sr[r].pt);
		free(sr[r].order);
	}
	return rc;
}
