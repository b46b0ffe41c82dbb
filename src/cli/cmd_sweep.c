/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_sweep.c - "anonsim sweep": every combination of the parameter values
 * given, on all cores; or as job command lines for GNU parallel or a Slurm
 * job array (--emit-jobs), one combination each (--job), whose parts merge
 * (--merge) into the same file one process writes.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/cli_traces.h"
#include "cli/usage.h"
#include "cli/host_options.h"
#include "cli/output_file.h"
#include "cli/sweep.h"
#include "trace/trace.h"
#include "util/util.h"
#include "util/xalloc.h"

#define MAX_PASSED 64

static void sweep_usage(FILE *f)
{
	fputs("Usage: anonsim sweep [OPTIONS] TRACE...\n"
	      "       anonsim sweep --emit-jobs DIR [OPTIONS] TRACE...\n"
	      "       anonsim sweep --merge [-o FILE] [--json] PART...\n"
	      "\n"
	      "Replay every combination of the values given (each TRACE, and each\n"
	      "value of the lists below) and write one CSV row per combination: its\n"
	      "number and parameters, then the figures of \"anonsim replay --csv\n"
	      "--pages\".  Lists are comma-separated, e.g. -m 256M,512M,1G.\n"
	      TRACE_ARGS_HELP
	      "\n"
	      "Options taking lists:\n"
	      "  -s, --strategy LIST   strategies, or \"all\" (default: all)\n"
	      "  -m, --host-mem LIST   host memory sizes, or \"unlimited\" (default:\n"
	      "                        unlimited; host_mem_bytes 0 in the rows)\n"
	      "      --swap LIST       swap device size (default: 1G)\n"
	      "      --policy LIST     modern, 2.4 (default: modern)\n"
	      "      --readahead LIST  windows in KiB, or \"trace\": the window each\n"
	      "                        trace recorded (default: trace)\n"
	      "  -n, --instances LIST  copies of the trace (default: 1)\n"
	      "Options every combination shares: --variant, --overhead,\n"
	      "--overhead-anon, --report-order, --no-host-events, --stagger, --no-share,\n"
	      "--geometry, --check, --recount-every, as in \"anonsim replay\".\n"
	      "\n"
	      "Running:\n"
	      "  -j, --jobs N          replays at once (default: the online CPUs)\n"
	      "  -o, --output FILE     write to FILE (complete or not at all)\n"
	      "      --csv | --json    CSV (the default) or one JSON object (see anonsim(1))\n"
	      QUIET_PROGRESS_HELP
	      "      --emit-jobs DIR   run nothing: write DIR/jobs.txt, one command line\n"
	      "                        per combination writing DIR/part-K.csv, for GNU\n"
	      "                        parallel (parallel < DIR/jobs.txt, or with\n"
	      "                        --sshlogin across hosts), and DIR/sweep.sbatch,\n"
	      "                        a Slurm job array running the same lines (in\n"
	      "                        groups beyond 1000 combinations); the lines run\n"
	      "                        from any directory\n"
	      "      --replace         with --emit-jobs: remove from DIR the parts of\n"
	      "                        another sweep (else they are refused)\n"
	      "      --anonsim CMD     the anonsim the job lines run (default: this one)\n"
	      "      --job K           run combination K (from 0) alone: a part, the\n"
	      "                        sweep's identity line, then CSV with header\n"
	      "      --merge           join PART files (CSV of jobs) in combination order:\n"
	      "                        the file the sweep writes in one process; parts\n"
	      "                        of one sweep only, all of its combinations, every\n"
	      "                        figure a number; a PART of - is standard input\n"
	      "  -h, --help            this help\n"
	      "\n"
	      "A part that is not one of the sweep's, or whose figures do not parse, is\n"
	      "bad data (2).\n"
	      EXIT_STATUS_HELP, f);
}

enum {
	O_JOBS_DIR = HOST_O_END, O_JOB, O_MERGE, O_CSV, O_JSON, O_ANONSIM, O_REPLACE,
};

static const struct option sweep_options[] = {
	HOST_LONG_OPTIONS,
	{ "instances", required_argument, NULL, 'n' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "csv", no_argument, NULL, O_CSV },
	{ "json", no_argument, NULL, O_JSON },
	{ "quiet", no_argument, NULL, 'q' },
	{ "emit-jobs", required_argument, NULL, O_JOBS_DIR },
	{ "anonsim", required_argument, NULL, O_ANONSIM },
	{ "job", required_argument, NULL, O_JOB },
	{ "merge", no_argument, NULL, O_MERGE },
	{ "replace", no_argument, NULL, O_REPLACE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The long name of option @c, for the job lines. */
static const char *long_name(int c)
{
	const struct option *o;

	for (o = sweep_options; o->name; o++)
		if (o->val == c)
			return o->name;
	return NULL;
}

static bool takes_arg(int c)
{
	const struct option *o;

	for (o = sweep_options; o->name; o++)
		if (o->val == c)
			return o->has_arg != no_argument;
	return false;
}

struct passed {
	const char *name, *arg;		/* arg NULL: a flag */
};

/* What the command line asks of a sweep, beside the grid itself. */
struct sweep_cli {
	struct sweep_grid *g;
	struct passed pass[MAX_PASSED];	/* grid and host options, for the job lines */
	unsigned npass;
	const char *out_path, *jobs_dir, *anonsim, *strategy_list;
	bool json, format_given, merge, quiet, replace;
	unsigned jobs, nstrategies;
	int64_t job;
	char part[128];			/* the sweep's identity line, for parts */
};

/*
 * A list option: each comma-separated item through the host option parser
 * (its checks and messages), into the grid; *@count values taken.
 */
static int parse_list(struct sweep_grid *g, int c, const char *list, unsigned *count)
{
	char buf[1024], *tok, *save;

	if (strlen(list) >= sizeof(buf))
		return bad_option_value(long_name(c), list, "a shorter list");
	snprintf(buf, sizeof(buf), "%s", list);
	*count = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct host_cli one = g->base;
		uint64_t v;
		int rc;

		if (*count == SWEEP_MAX_VALUES)
			return bad_option_value(long_name(c), list,
						"at most 64 values");
		if (c == 'n') {
			if (parse_uint(tok, 4096, &v) || !v)
				return bad_option_value("--instances", tok,
							"a number from 1 to 4096");
			g->copies[(*count)++] = (unsigned)v;
			continue;
		}
		if (c == 'm' && !strcmp(tok, "unlimited")) {
			g->mem[(*count)++] = 0;
			continue;
		}
		if (c == HOST_O_RA && !strcmp(tok, "trace")) {
			g->ra[(*count)++] = -1;
			continue;
		}
		rc = host_cli_option(&one, c, tok);
		if (rc)
			return rc;
		switch (c) {
		case 'm':
			g->mem[(*count)++] = one.o.host_mem;
			break;
		case HOST_O_SWAP:
			g->swap[(*count)++] = one.o.swap;
			break;
		case HOST_O_POLICY:
			g->policy[(*count)++] = one.o.policy;
			break;
		case HOST_O_RA:
			g->ra[(*count)++] = one.o.readahead_kb;
			break;
		case 's':
			(*count)++;	/* expanded by variant once all options are in */
			break;
		}
	}
	if (!*count)
		return bad_option_value(long_name(c), list, "a list of values");
	return 0;
}

/* A word for sh: single-quoted unless it needs nothing. */
static void shell_word(FILE *f, const char *w)
{
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=:,+") == strlen(w)) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w; w++) {
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	}
	fputc('\'', f);
}

/* Slurm's default MaxArraySize is 1001: an array task runs a group of lines beyond it. */
#define SLURM_TASKS_MAX 1000

/*
 * The parts in @dir that are not of this sweep (their first line is not
 * its identity line): removed with --replace, else refused.  0, or an
 * exit status.
 */
static int foreign_parts(const struct sweep_cli *sc, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		msg("--emit-jobs %s: %s", dir, strerror(errno));
		return EXIT_USAGE;
	}
	while (!rc && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char path[4352], line[128] = "";
		FILE *f;

		if (strncmp(e->d_name, "part-", 5) || n < 9 || strcmp(e->d_name + n - 4, ".csv"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((f = fopen(path, "r"))) {
			if (!fgets(line, sizeof(line), f))
				line[0] = '\0';
			fclose(f);
		}
		if (!strcmp(line, sc->part))
			continue;
		if (!sc->replace) {
			msg("--emit-jobs %s: %s is a part of another sweep: remove it, or give --replace",
			    dir, e->d_name);
			rc = EXIT_USAGE;
		} else if (unlink(path)) {
			msg("--emit-jobs %s: cannot remove %s: %s", dir, e->d_name, strerror(errno));
			rc = EXIT_OUTPUT;
		}
	}
	closedir(d);
	return rc;
}

/* DIR/jobs.txt: a line per combination, each run from the directory of this run. */
static int write_job_lines(const struct sweep_cli *sc, const char *dir, const char *cwd,
			   const char *anonsim, char *const *traces, unsigned ntraces,
			   uint64_t total)
{
	char path[4096];
	struct output_file jobs;
	uint64_t k;
	unsigned i;

	snprintf(path, sizeof(path), "%s/jobs.txt", dir);
	if (output_open(&jobs, path))
		return EXIT_USAGE;
	for (k = 0; k < total; k++) {
		char part[4200];

		fputs("cd ", jobs.f);
		shell_word(jobs.f, cwd);
		fputs(" && ", jobs.f);
		shell_word(jobs.f, anonsim);
		fprintf(jobs.f, " sweep --job %" PRIu64, k);
		for (i = 0; i < sc->npass; i++) {
			fprintf(jobs.f, " --%s", sc->pass[i].name);
			if (sc->pass[i].arg) {
				fputc(' ', jobs.f);
				shell_word(jobs.f, sc->pass[i].arg);
			}
		}
		snprintf(part, sizeof(part), "%s/part-%06" PRIu64 ".csv", dir, k);
		fputs(" -o ", jobs.f);
		shell_word(jobs.f, part);
		fputs(" --", jobs.f);
		for (i = 0; i < ntraces; i++) {
			fputc(' ', jobs.f);
			shell_word(jobs.f, traces[i]);
		}
		fputc('\n', jobs.f);
	}
	return output_commit(&jobs) ? EXIT_OUTPUT : 0;
}

/* DIR/sweep.sbatch: a Slurm job array over the lines, in groups past 1000. */
static int write_sbatch(const char *dir, const char *absdir, uint64_t total)
{
	uint64_t per = (total + SLURM_TASKS_MAX - 1) / SLURM_TASKS_MAX;
	uint64_t tasks = (total + per - 1) / per;
	struct output_file batch;
	char path[4096];

	snprintf(path, sizeof(path), "%s/sweep.sbatch", dir);
	if (output_open(&batch, path))
		return EXIT_USAGE;
	fprintf(batch.f,
		"#!/bin/sh\n"
		"# A Slurm job array of the sweep: task K runs lines K * %" PRIu64 " + 1 to\n"
		"# (K + 1) * %" PRIu64 " of jobs.txt, from any directory.\n"
		"#   sbatch %s/sweep.sbatch\n"
		"# then: anonsim sweep --merge -o sweep.csv %s/part-*.csv\n"
		"#SBATCH --job-name=anonsim-sweep\n"
		"#SBATCH --array=0-%" PRIu64 "\n"
		"#SBATCH --ntasks=1\n"
		"first=$((SLURM_ARRAY_TASK_ID * %" PRIu64 " + 1))\n"
		"sed -n \"${first},$((first + %" PRIu64 " - 1))p\" ",
		per, per, absdir, absdir, tasks - 1, per, per);
	shell_word(batch.f, absdir);
	fputs("/jobs.txt | while IFS= read -r line; do\n"
	      "\tsh -c \"$line\" || exit 1\n"
	      "done\n", batch.f);
	return output_commit(&batch) ? EXIT_OUTPUT : 0;
}

/* --emit-jobs DIR: the job lines and the Slurm array, nothing run. */
static int emit_jobs(const struct sweep_cli *sc, const char *anonsim, char *const *traces,
		     unsigned ntraces, uint64_t total)
{
	const char *dir = sc->jobs_dir;
	char cwd[4096], absdir[4096];
	int rc;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		msg("--emit-jobs %s: %s", dir, strerror(errno));
		return EXIT_USAGE;
	}
	if (!getcwd(cwd, sizeof(cwd)) || !realpath(dir, absdir)) {
		msg("--emit-jobs %s: %s", dir, strerror(errno));
		return EXIT_OUTPUT;
	}
	if ((rc = foreign_parts(sc, dir)) ||
	    (rc = write_job_lines(sc, dir, cwd, anonsim, traces, ntraces, total)) ||
	    (rc = write_sbatch(dir, absdir, total)))
		return rc;
	fprintf(stderr, "sweep: %" PRIu64 " jobs in %s/jobs.txt; run them with\n"
		"  parallel < %s/jobs.txt     (or: sbatch %s/sweep.sbatch)\n"
		"then: anonsim sweep --merge -o sweep.csv %s/part-*.csv\n",
		total, dir, dir, dir, dir);
	return EXIT_OK;
}

/* The rows, as CSV (after @part, a part's identity line, when given) or JSON. */
static int write_rows(const char *out_path, bool json, char *const *rows, uint64_t n,
		      char *const *traces, unsigned ntraces, const char *part)
{
	struct output_file of;
	FILE *f = stdout;
	uint64_t i;

	if (out_path) {
		if (output_open(&of, out_path))
			return EXIT_USAGE;
		f = of.f;
	}
	if (json) {
		sweep_json(f, rows, n, traces, ntraces);
	} else {
		if (part)
			fputs(part, f);
		sweep_csv_header(f);
		for (i = 0; i < n; i++)
			fputs(rows[i], f);
	}
	if (out_path)
		return output_commit(&of) ? EXIT_OUTPUT : EXIT_OK;
	if (fflush(stdout) || ferror(stdout)) {
		msg("writing the results failed");
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}

static const char *this_anonsim(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0)
		return "anonsim";
	buf[n] = '\0';
	return buf;
}


/* An option that is not a grid or host option; 0, or an exit status (-1: help shown). */
static int sweep_own_option(struct sweep_cli *sc, int c, char **argv)
{
	uint64_t v;

	switch (c) {
	case 'j':
		if (parse_uint(optarg, 64, &v) || !v)
			return bad_option_value("--jobs", optarg, "a number from 1 to 64");
		sc->jobs = (unsigned)v;
		return 0;
	case 'o':
		if (!*optarg)
			return bad_option_value("--output", optarg,
						"a file name, or - for standard output");
		sc->out_path = optarg;
		return 0;
	case O_CSV:
	case O_JSON:
		if (sc->format_given && sc->json != (c == O_JSON)) {
			msg("--csv and --json exclude each other");
			return EXIT_USAGE;
		}
		sc->format_given = true;
		sc->json = c == O_JSON;
		return 0;
	case 'q':
		sc->quiet = true;
		return 0;
	case O_JOBS_DIR:
		sc->jobs_dir = optarg;
		return 0;
	case O_ANONSIM:
		sc->anonsim = optarg;
		return 0;
	case O_JOB:
		if (parse_uint(optarg, INT64_MAX, &v))
			return bad_option_value("--job", optarg, "a combination number from 0");
		sc->job = (int64_t)v;
		return 0;
	case O_MERGE:
		sc->merge = true;
		return 0;
	case O_REPLACE:
		sc->replace = true;
		return 0;
	case 'h':
		sweep_usage(stdout);
		return -1;
	default:
		return usage_error(c, argv, "sweep");
	}
}

/* The options: lists into the grid, the rest into @sc.  0, or an exit status (-1: help). */
static int sweep_parse(struct sweep_cli *sc, int argc, char **argv)
{
	struct sweep_grid *g = sc->g;
	unsigned *count;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":" HOST_SHORT_OPTIONS "n:j:o:qh",
				sweep_options, NULL)) != -1) {
		count = NULL;
		switch (c) {
		case 's':
			sc->strategy_list = optarg;
			count = &sc->nstrategies;
			break;
		case 'm':
			count = &g->nmem;
			break;
		case HOST_O_SWAP:
			count = &g->nswap;
			break;
		case HOST_O_POLICY:
			count = &g->npolicy;
			break;
		case HOST_O_RA:
			count = &g->nra;
			break;
		case 'n':
			count = &g->ncopies;
			break;
		}
		if (count) {
			if ((rc = parse_list(g, c, optarg, count)))
				return rc;
		} else if ((rc = host_cli_option(&g->base, c, optarg)) > 0) {
			return rc;
		} else if (rc < 0) {
			rc = sweep_own_option(sc, c, argv);
			if (rc)
				return rc;
			continue;
		}
		/* a grid or host option: the job lines repeat it */
		if (sc->npass == MAX_PASSED) {
			msg("more than %d options", MAX_PASSED);
			return EXIT_USAGE;
		}
		sc->pass[sc->npass++] = (struct passed){ long_name(c), takes_arg(c) ? optarg : NULL };
	}
	if (optind >= argc) {
		msg("no %s given (see anonsim sweep --help)", sc->merge ? "part" : "trace");
		return EXIT_USAGE;
	}
	if ((sc->merge + (sc->jobs_dir != NULL) + (sc->job >= 0)) > 1) {
		msg("--merge, --emit-jobs and --job exclude one another");
		return EXIT_USAGE;
	}
	if (sc->out_path &&
	    output_not_input(sc->out_path, argv + optind, (unsigned)(argc - optind)))
		return EXIT_USAGE;
	return 0;
}

/* --merge: the parts' rows, in combination order, as one output. */
static int sweep_merge_parts(const struct sweep_cli *sc, char *const *parts, unsigned nparts)
{
	char **rows, err[1024];
	uint64_t n, i;
	int rc;

	rc = sweep_merge(parts, nparts, &rows, &n, err, sizeof(err));
	if (rc) {
		msg("%s", err);
		return rc;
	}
	rc = write_rows(sc->out_path, sc->json, rows, n, NULL, 0, NULL);
	for (i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
	return rc;
}

/* The grid's runs and the defaults of the lists not given, and its traces. */
static int sweep_complete_grid(struct sweep_cli *sc, char **traces, unsigned ntraces)
{
	struct sweep_grid *g = sc->g;
	unsigned i;

	if (sc->strategy_list)
		g->base.strategy = sc->strategy_list;
	g->nruns = host_cli_runs(&g->base, g->runs, HOST_CLI_MAX_RUNS);
	if (!g->nmem)
		g->mem[g->nmem++] = 0;
	if (!g->nswap)
		g->swap[g->nswap++] = g->base.o.swap;
	if (!g->npolicy)
		g->policy[g->npolicy++] = g->base.o.policy;
	if (!g->nra)
		g->ra[g->nra++] = -1;
	if (!g->ncopies)
		g->copies[g->ncopies++] = 1;
	g->traces = traces;
	g->ntraces = ntraces;
	for (i = 0; i < g->ntraces; i++)
		if (strpbrk(g->traces[i], ",\"\n")) {
			msg("%s: a trace name with a comma, quote or newline cannot go in a CSV row",
			    g->traces[i]);
			return EXIT_USAGE;
		}
	return 0;
}

/* The combinations, all of them here or the one of --job, into one output. */
static int sweep_run_grid(const struct sweep_cli *sc, uint64_t total)
{
	const struct sweep_grid *g = sc->g;
	char **rows, err[1024];
	uint64_t i;
	int rc;

	if (sc->job >= 0 && (uint64_t)sc->job >= total) {
		msg("--job %" PRId64 ": the grid has combinations 0 to %" PRIu64,
		    sc->job, total - 1);
		return EXIT_USAGE;
	}
	rows = xcalloc(total, sizeof(*rows), "the rows of the sweep");
	if (sc->job >= 0)
		rc = sweep_run(g, (uint64_t)sc->job, 1, 1, false, rows, err, sizeof(err));
	else
		rc = sweep_run(g, 0, total, sc->jobs, !sc->quiet && isatty(STDERR_FILENO), rows,
			       err, sizeof(err));
	if (rc)
		msg("%s", err);
	else
		rc = write_rows(sc->out_path, sc->json, rows, sc->job >= 0 ? 1 : total,
				g->traces, g->ntraces, sc->job >= 0 ? sc->part : NULL);
	for (i = 0; i < total; i++)
		free(rows[i]);
	free(rows);
	return rc;
}

/*
 * The sweep's identity line: anonsim's version, the grid and host options
 * as given, each trace's header and size, and the number of combinations.
 */
static void sweep_identify(struct sweep_cli *sc, char *const *traces, unsigned ntraces,
			   uint64_t total)
{
	uint64_t h = sweep_hash(SWEEP_HASH_START, PACKAGE_VERSION, sizeof(PACKAGE_VERSION));
	char err[512];
	unsigned i;

	for (i = 0; i < sc->npass; i++) {
		h = sweep_hash(h, sc->pass[i].name, strlen(sc->pass[i].name) + 1);
		if (sc->pass[i].arg)
			h = sweep_hash(h, sc->pass[i].arg, strlen(sc->pass[i].arg) + 1);
	}
	for (i = 0; i < ntraces; i++) {
		struct trace_reader *r = trace_open(traces[i], err, sizeof(err));
		char text[TRACE_HEADER_TEXT_MAX];
		struct stat st;
		uint64_t size = stat(traces[i], &st) ? 0 : (uint64_t)st.st_size;

		if (r) {	/* one that does not open fails the run, not this */
			size_t n = trace_format_header(trace_header(r), text, sizeof(text));

			h = sweep_hash(h, text, n);
			trace_close(r);
		}
		h = sweep_hash(h, &size, sizeof(size));
	}
	sweep_part_line(sc->part, sizeof(sc->part), h, total);
}

int cmd_sweep(int argc, char **argv)
{
	static struct sweep_grid g;
	struct sweep_cli sc = { .g = &g, .jobs = online_cpus(), .job = -1 };
	char exe[4096];
	uint64_t total;
	int rc;

	memset(&g, 0, sizeof(g));
	host_cli_init(&g.base);
	rc = sweep_parse(&sc, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (sc.merge)
		return cli_stdin_once(argv + optind, (unsigned)(argc - optind)) ? EXIT_USAGE :
			sweep_merge_parts(&sc, argv + optind, (unsigned)(argc - optind));
	if ((rc = cli_traces_ready(argv + optind, (unsigned)(argc - optind), sc.quiet)))
		return rc;
	rc = sweep_complete_grid(&sc, argv + optind, (unsigned)(argc - optind));
	if (rc)
		return rc;
	total = sweep_size(&g);
	if (!total) {
		msg("no combination to run");
		return EXIT_USAGE;
	}
	sweep_identify(&sc, g.traces, g.ntraces, total);
	if (sc.jobs_dir)
		return emit_jobs(&sc, sc.anonsim ? sc.anonsim : this_anonsim(exe, sizeof(exe)),
				 g.traces, g.ntraces, total);
	return sweep_run_grid(&sc, total);
}
