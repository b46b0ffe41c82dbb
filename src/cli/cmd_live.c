/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_live.c - "anonsim live": run traces on the running kernel, real beside
 * the model (Linux only: built when configure finds memfd and fallocate).
 */
#include <config.h>

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/cli_traces.h"
#include "cli/usage.h"
#include "cli/host_options.h"
#include "cli/output_format.h"
#include "live/live.h"
#include "strategy/registry.h"
#include "util/util.h"
#include "util/xalloc.h"

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
	      TRACE_ARGS_HELP
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
	      "      --overhead SIZE   the model's fixed memory per instance, and\n"
	      "      --overhead-anon SIZE  its anonymous memory, which the host can swap\n"
	      "                        (default: under -m, what an instance process\n"
	      "                        holds in its cgroup before its first event,\n"
	      "                        its rss the anonymous part; else 0 and 0)\n"
	      "      --probe           under -m, only measure those two (no event runs):\n"
	      "                        the figures \"anonsim replay\" takes to stand\n"
	      "                        beside a live run\n"
	      "      --cache-tolerance PCT  allowed page-cache difference (default: 2);\n"
	      "                        tmpfs pages must be equal (without -m)\n"
	      "      --fast            under -m, run events as fast as they go instead\n"
	      "                        of at their time on the host's clock (quicker,\n"
	      "                        but the kernel then reclaims with statistics\n"
	      "                        older than the pressure: not what UML meets)\n"
	      "      --read-zeros      leave the zeros a read of the sparse disk files\n"
	      "                        copies (default: each page a read fills gets\n"
	      "                        data, as from a real disk: Linux 6.12 and later\n"
	      "                        swap a page of zeros without I/O)\n"
	      "The host's DAMON contexts are paused for every run (see anonsim(1)).\n"
	      OUT_OPTIONS_HELP
	      QUIET_NAMES_HELP
	      "  -h, --help            this help\n"
	      "\n"
	      "Strategies:\n", f);
	for (s = live_strategies; *s; s++)
		fprintf(f, "  %-10s %s\n", (*s)->name,
			live_strategy_unavailable(*s) ? live_strategy_unavailable(*s) : "runs live");
	fputs("\nThe table and CSV rows of a run are written as it ends, the JSON once\n"
	      "every run has ended.  Under -m the figures are reported, not judged:\n"
	      "the kernel's reclaim is what is being measured.  A difference beyond\n"
	      "its tolerance is a missed target (4); a system call that fails, which\n"
	      "the message names, a system failure (5).\n"
	      EXIT_STATUS_HELP, f);
}

/*
 * Parse "-s LIST" into @runs, read as every command reads it (the
 * registry's strategy_runs; "all": those that run here); the number
 * taken, or -1 after a message.
 */
static int parse_strategies(const char *list, const struct live_strategy **runs)
{
	const struct live_strategy *const *s;
	struct strategy_run named[HOST_CLI_MAX_RUNS];
	unsigned i, nnamed;
	int n = 0;

	if (!strcmp(list, "all")) {
		for (s = live_strategies; *s; s++)
			if (!live_strategy_unavailable(*s))
				runs[n++] = *s;
		return n;
	}
	if (strategy_list_option(list))
		return -1;
	/* one run each: the variant is the model's, not live's */
	nnamed = strategy_runs(list, "fixed", named, HOST_CLI_MAX_RUNS);
	for (i = 0; i < nnamed; i++) {
		const struct live_strategy *ls = live_strategy_find(named[i].s->name);

		if (!ls || live_strategy_unavailable(ls)) {
			msg("--strategy '%s' cannot run live: it %s", named[i].s->name,
			    ls ? live_strategy_unavailable(ls) : "has no live form");
			return -1;
		}
		if (n == LIVE_MAX_RUNS) {
			msg("--strategy: at most %d strategies", LIVE_MAX_RUNS);
			return -1;
		}
		runs[n++] = ls;
	}
	return n;
}

/* ---- the report: a table per run, CSV rows, or one JSON object ---- */

/* --probe: what the probe measured, as the options that charge it */
static void put_probe(FILE *f, const struct live_result *res)
{
	fprintf(f, "%s: %s, memory cgroup of %.1f MiB: an instance holds %.0f KiB and"
		" %.0f KiB anonymous before its first event (--overhead %.0fK"
		" --overhead-anon %.0fK)\n", res->path, res->s->name,
		res->host_mem / 1048576.0, res->overhead / 1024.0,
		res->overhead_anon / 1024.0, res->overhead / 1024.0,
		res->overhead_anon / 1024.0);
}

static void put_table(FILE *f, const struct live_result *res, const char *dir)
{
	unsigned i;

	fprintf(f, "%s: %s, %u instance%s, disk files on %s (%s), readahead %" PRId64 " KiB",
		res->path, res->s->name, res->instances, res->instances > 1 ? "s" : "",
		res->fstype, dir, res->readahead_kb);
	if (res->pressure)
		fprintf(f, ", memory cgroup of %.1f MiB, swap %.1f MiB, overhead %.0f KiB"
			" and %.0f KiB anonymous per instance, %s", res->host_mem / 1048576.0,
			res->swap / 1048576.0, res->overhead / 1024.0,
			res->overhead_anon / 1024.0,
			res->paced ? "at the trace's pace" : "fast");
	fprintf(f, ", DAMON %s", res->damon);
	if (res->paced)
		fprintf(f, ", events up to %.3f s late", res->late_us / 1e6);
	fprintf(f, "\n  %-18s %8s %8s %8s %8s %8s %7s %7s %7s %7s\n", "point", "trace s",
		"tmpfs", "model", "cache", "model", "swap", "model", "swapouts", "model");
	for (i = 0; i < res->npt; i++) {
		const struct live_point *pt = &res->pt[i];

		fprintf(f, "  %-18s %8.3f %8" PRId64 " %8" PRIu64 " %8" PRId64 " %8" PRIu64
			" %7" PRId64 " %7" PRIu64 " %7" PRId64 " %7" PRIu64 "%s\n", pt->name,
			pt->time_us / 1e6, pt->tmpfs, pt->m_tmpfs, pt->cache, pt->m_cache,
			pt->swap, pt->m_swap, pt->swap_outs, pt->m_swap_outs,
			pt->apart ? "  beyond tolerance" : "");
	}
	if (!res->pressure)
		return;
	fputs("  first swap-out: ", f);
	if (res->first_us < 0)
		fputs("real never", f);
	else
		fprintf(f, "real by %.3f s", res->first_us / 1e6);
	if (res->m_first_us < 0)
		fputs(", model never\n", f);
	else
		fprintf(f, ", model %.3f s\n", res->m_first_us / 1e6);
}

static void put_csv_header(FILE *f)
{
	fputs("trace,strategy,instances,point,time_s,tmpfs_pages,tmpfs_blocks_pages,"
	      "model_tmpfs_pages,cache_pages,model_cache_pages,swap_pages,"
	      "model_swap_pages,swap_out_pages,model_swap_out_pages,cgroup_pages,"
	      "first_swap_out_s,model_first_swap_out_s,within_tolerance\n", f);
}

/* One row per point; "never" and what is not judged are empty fields. */
static void put_csv(FILE *f, const struct live_result *res)
{
	char b[OUT_NUM_MAX];
	unsigned i;

	for (i = 0; i < res->npt; i++) {
		const struct live_point *pt = &res->pt[i];

		csv_field(f, true, res->path);
		csv_field(f, false, res->s->name);
		fprintf(f, ",%u", res->instances);
		csv_field(f, false, pt->name);
		csv_field(f, false, fmt_useconds(b, pt->time_us));
		fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRId64 ",%" PRIu64
			",%" PRId64 ",%" PRIu64 ",%" PRId64 ",%" PRIu64 ",",
			pt->tmpfs, pt->blocks, pt->m_tmpfs, pt->cache, pt->m_cache,
			pt->swap, pt->m_swap, pt->swap_outs, pt->m_swap_outs);
		if (pt->cgroup >= 0)
			fprintf(f, "%" PRId64, pt->cgroup);
		csv_field(f, false, fmt_seconds(b, pt->first_us));
		csv_field(f, false, fmt_seconds(b, pt->m_first_us));
		csv_field(f, false, res->pressure ? NULL : pt->apart ? "no" : "yes");
		fputc('\n', f);
	}
}

static void json_point(struct json *j, const struct live_result *res,
		       const struct live_point *pt)
{
	char b[OUT_NUM_MAX];

	json_object(j, NULL);
	json_string(j, "point", pt->name);
	json_number(j, "time_s", fmt_useconds(b, pt->time_us));
	json_int(j, "tmpfs_pages", pt->tmpfs);
	json_int(j, "tmpfs_blocks_pages", pt->blocks);
	json_uint(j, "model_tmpfs_pages", pt->m_tmpfs);
	json_int(j, "cache_pages", pt->cache);
	json_uint(j, "model_cache_pages", pt->m_cache);
	json_int(j, "swap_pages", pt->swap);
	json_uint(j, "model_swap_pages", pt->m_swap);
	json_int(j, "swap_out_pages", pt->swap_outs);
	json_uint(j, "model_swap_out_pages", pt->m_swap_outs);
	if (pt->cgroup >= 0)
		json_int(j, "cgroup_pages", pt->cgroup);
	else
		json_null(j, "cgroup_pages");
	json_number(j, "first_swap_out_s", fmt_seconds(b, pt->first_us));
	json_number(j, "model_first_swap_out_s", fmt_seconds(b, pt->m_first_us));
	if (res->pressure)
		json_null(j, "within_tolerance");	/* reported, not judged */
	else
		json_bool(j, "within_tolerance", !pt->apart);
	json_end(j);
}

static void json_run(struct json *j, const struct live_result *res)
{
	char b[OUT_NUM_MAX];
	unsigned i;

	json_object(j, NULL);
	json_string(j, "trace", res->path);
	json_string(j, "strategy", res->s->name);
	json_uint(j, "instances", res->instances);
	json_string(j, "filesystem", res->fstype);
	json_int(j, "readahead_kb", res->readahead_kb);
	json_number(j, "overhead_mib", fmt_bytes_mib(b, res->overhead));
	json_number(j, "overhead_anon_mib", fmt_bytes_mib(b, res->overhead_anon));
	if (res->damon)
		json_string(j, "damon", res->damon);
	else
		json_null(j, "damon");
	if (res->paced)
		json_number(j, "late_max_s", fmt_seconds(b, res->late_us));
	else
		json_null(j, "late_max_s");
	json_number(j, "first_swap_out_s", fmt_seconds(b, res->first_us));
	json_number(j, "model_first_swap_out_s", fmt_seconds(b, res->m_first_us));
	if (res->pressure)
		json_null(j, "within_tolerance");
	else
		json_bool(j, "within_tolerance", !res->beyond);
	json_array(j, "points");
	for (i = 0; i < res->npt; i++)
		json_point(j, res, &res->pt[i]);
	json_end(j);
	json_end(j);
}

static int put_json(FILE *f, const struct live_opts *o, const struct live_result *res,
		    unsigned nres, const struct live_strategy *const *runs, unsigned nruns,
		    char *const *traces, unsigned ntraces)
{
	char b[OUT_NUM_MAX];
	const char *labels[LIVE_MAX_RUNS];
	struct replay_opts mo = o->model;
	struct json j;
	unsigned i;
	int rc;

	for (i = 0; i < nruns; i++)
		labels[i] = runs[i]->name;
	if (!mo.host_mem)
		mo.swap = 0;	/* no cgroup, no swap file */
	json_start(&j, f);
	json_head(&j, "live");
	json_host_inputs(&j, &mo, labels, nruns, JI_HOST | JI_STAGGER | JI_INSTANCES |
			 (o->overhead_given || !mo.host_mem ? JI_OVERHEAD : 0));
	if (!o->overhead_given && mo.host_mem) {
		/* measured by a probe: in each result */
		json_null(&j, "overhead_mib");
		json_null(&j, "overhead_anon_mib");
	}
	json_string(&j, "dir", o->dir);
	json_number(&j, "cache_tolerance_pct", fmt_double(b, o->cache_tolerance));
	json_bool(&j, "paced", mo.host_mem && !o->fast);
	json_bool(&j, "read_zeros", o->read_zeros);
	json_end(&j);
	if ((rc = json_traces(&j, traces, ntraces)))
		return rc;
	json_array(&j, "results");
	for (i = 0; i < nres; i++)
		json_run(&j, &res[i]);
	json_end(&j);
	json_finish(&j);
	return 0;
}

enum { O_TOL = HOST_O_END, O_FAST, O_READ_ZEROS, O_PROBE };

/* What the command line asks of a live run. */
struct live_cli {
	const struct live_strategy *runs[LIVE_MAX_RUNS];
	int nruns;			/* -2: no -s given */
	bool quiet;
	struct live_opts o;
	struct host_cli hc;
	struct out out;
};

/* An option not of the output's; 0, or an exit status (-1: help shown). */
static int live_option(struct live_cli *cli, int opt, char **argv)
{
	char *end;
	uint64_t v;
	int rc;

	switch (opt) {
	case 'm':
	case HOST_O_SWAP:
	case HOST_O_POLICY:
	case HOST_O_OVERHEAD:
	case HOST_O_OVERHEAD_ANON:
	case HOST_O_STAGGER:
		if ((rc = host_cli_option(&cli->hc, opt, optarg)))
			return rc;
		cli->o.overhead_given |= opt == HOST_O_OVERHEAD || opt == HOST_O_OVERHEAD_ANON;
		return 0;
	case 'n':
		if (parse_uint(optarg, 64, &v) || !v)
			return bad_option_value("--instances", optarg, "a number from 1 to 64");
		cli->hc.o.copies = (unsigned)v;
		return 0;
	case 's':
		cli->nruns = parse_strategies(optarg, cli->runs);
		if (cli->nruns < 0)
			return EXIT_USAGE;
		return 0;
	case 'd':
		cli->o.dir = optarg;
		return 0;
	case O_TOL:
		cli->o.cache_tolerance = strtod(optarg, &end);
		if (end == optarg || *end || !(cli->o.cache_tolerance >= 0) ||
		    isinf(cli->o.cache_tolerance)) {
			msg("--cache-tolerance '%s': expected a percentage", optarg);
			return EXIT_USAGE;
		}
		return 0;
	case O_READ_ZEROS:
		cli->o.read_zeros = true;
		return 0;
	case O_FAST:
		cli->o.fast = true;
		return 0;
	case O_PROBE:
		cli->o.probe_only = true;
		return 0;
	case 'q':
		cli->quiet = true;
		return 0;
	case 'h':
		live_usage(stdout);
		return -1;
	default:
		return usage_error(opt, argv, "live");
	}
}

/* The options into @cli.  0, or an exit status (-1: help shown). */
static int live_parse(struct live_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "strategy", required_argument, NULL, 's' },
		{ "instances", required_argument, NULL, 'n' },
		{ "stagger", required_argument, NULL, HOST_O_STAGGER },
		{ "host-mem", required_argument, NULL, 'm' },
		{ "swap", required_argument, NULL, HOST_O_SWAP },
		{ "policy", required_argument, NULL, HOST_O_POLICY },
		{ "overhead", required_argument, NULL, HOST_O_OVERHEAD },
		{ "overhead-anon", required_argument, NULL, HOST_O_OVERHEAD_ANON },
		{ "dir", required_argument, NULL, 'd' },
		{ "cache-tolerance", required_argument, NULL, O_TOL },
		{ "fast", no_argument, NULL, O_FAST },
		{ "probe", no_argument, NULL, O_PROBE },
		{ "read-zeros", no_argument, NULL, O_READ_ZEROS },
		{ "quiet", no_argument, NULL, 'q' },
		OUT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":s:d:n:m:qh" OUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if ((rc = out_option(&cli->out, opt, optarg)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		if ((rc = live_option(cli, opt, argv)))
			return rc;
	}
	if (optind >= argc) {
		msg("no trace given (see anonsim live --help)");
		return EXIT_USAGE;
	}
	if (cli->o.probe_only && (!cli->hc.o.host_mem || cli->o.overhead_given)) {
		msg("--probe measures the overhead in a memory cgroup: it takes -m, and not "
		    "--overhead or --overhead-anon");
		return EXIT_USAGE;
	}
	if (cli->o.probe_only && cli->out.fmt == OUT_CSV) {
		msg("--probe writes a line or --json: its figures have no CSV columns");
		return EXIT_USAGE;
	}
	return 0;
}

/* What the options left out: every strategy that runs live, one instance. */
static void live_complete(struct live_cli *cli)
{
	if (cli->nruns == -2)
		cli->nruns = parse_strategies("all", cli->runs);
	cli->o.model = cli->hc.o;
	if (!cli->o.model.copies)
		cli->o.model.copies = 1;
}

/*
 * Each trace under each strategy into @res, the table or CSV rows of a run
 * written as it ends.  0, or an exit status; *@nres counts the failed run too.
 */
static int live_run_all(struct live_cli *cli, char *const *traces, unsigned ntraces,
			struct live_result *res, unsigned *nres, bool *missed)
{
	unsigned i, k;
	int rc;

	if (cli->out.fmt == OUT_CSV)
		put_csv_header(cli->out.f);
	for (i = 0; i < ntraces; i++)
		for (k = 0; k < (unsigned)cli->nruns; k++) {
			char err[1024];
			struct live_result *r = &res[(*nres)++];

			rc = live_run(traces[i], cli->runs[k], &cli->o, r, err, sizeof(err));
			if (rc) {
				msg("%s", err);
				return rc;
			}
			*missed |= r->beyond;
			/* a person sees each run as it ends; JSON is one object */
			if (cli->out.fmt == OUT_TABLE && cli->o.probe_only)
				put_probe(cli->out.f, r);
			else if (cli->out.fmt == OUT_TABLE)
				put_table(cli->out.f, r, cli->o.dir);
			else if (cli->out.fmt == OUT_CSV)
				put_csv(cli->out.f, r);
			fflush(cli->out.f);
		}
	return 0;
}

/* The JSON once every run has ended, the output put in place; the exit status. */
static int live_finish(struct live_cli *cli, const struct live_result *res, unsigned nres,
		       char *const *traces, unsigned ntraces, bool missed)
{
	int rc;

	if (cli->out.fmt == OUT_JSON &&
	    (rc = put_json(cli->out.f, &cli->o, res, nres, cli->runs, (unsigned)cli->nruns,
			   traces, ntraces))) {
		out_abort(&cli->out);
		return rc;
	}
	if ((rc = out_close(&cli->out)))
		return rc;
	return missed ? EXIT_TARGET : EXIT_OK;
}

int cmd_live(int argc, char **argv)
{
	struct live_cli cli = { .nruns = -2, .o = { .cache_tolerance = 2.0 } };
	const char *tmpdir = getenv("TMPDIR");
	struct live_result *res;
	char **traces;
	unsigned ntraces, nres = 0, i;
	bool missed = false;
	int rc;

	cli.o.dir = tmpdir && *tmpdir ? tmpdir : "/var/tmp";
	host_cli_init(&cli.hc);
	out_init(&cli.out);
	rc = live_parse(&cli, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	live_complete(&cli);
	traces = argv + optind;
	ntraces = (unsigned)(argc - optind);
	if ((rc = cli_traces_ready(traces, ntraces, cli.quiet)))
		return rc;
	if ((rc = out_open(&cli.out, traces, ntraces)))
		return rc;
	/* one process, no read-ahead threads: instances are forked as they start */
	setenv("ANONSIM_READAHEAD", "0", 1);
	res = xcalloc((size_t)ntraces * (unsigned)cli.nruns, sizeof(*res),
		      "the live runs' results");
	rc = live_run_all(&cli, traces, ntraces, res, &nres, &missed);
	if (rc)
		out_abort(&cli.out);
	else
		rc = live_finish(&cli, res, nres, traces, ntraces, missed);
	for (i = 0; i < nres; i++)
		live_result_free(&res[i]);
	free(res);
	return rc;
}
