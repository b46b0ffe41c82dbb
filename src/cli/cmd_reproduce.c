/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_reproduce.c - "anonsim reproduce": the 2004 RFC's figures (a Debian
 * boot took ~28M of host memory with read-copy and ~21M with ubd-mmap +
 * /dev/anon; 16 vs 20 UMLs booted before the host swapped) from a profile
 * and stated host assumptions, then the same comparison on every recorded
 * trace.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/datadir.h"
#include "cli/output_file.h"
#include "cli/output_format.h"
#include "cli/report.h"
#include "model/density.h"
#include "model/replay.h"
#include "strategy/registry.h"
#include "trace/gen.h"
#include "util/keyval.h"
#include "util/names.h"
#include "util/cleanup.h"
#include "util/util.h"
#include "util/xalloc.h"

#define MAX_TRACES 32

/* The config read without -c, in the data directory (cli/datadir.h). */
#define DEFAULT_CONFIG "traces/reproduce.conf"

/* The strategies compared, with what the RFC published for each. */
static const char *const compared[] = { "read-copy", "devanon", "punch" };
#define NCOMPARED 3

struct repro_config {
	char path[4096];
	char profile[4096];
	struct replay_opts host;	/* host assumptions */
	unsigned max_instances;
	double published_mib[NCOMPARED];
	unsigned published_density[NCOMPARED];
	double tolerance_mib;
	char traces[MAX_TRACES][4096];
	unsigned nr_traces;
};

static void repro_usage(FILE *f)
{
	fputs("Usage: anonsim reproduce [OPTIONS]\n"
	      "\n"
	      "Reproduce the 2004 /dev/anon result: synthesize the boot trace the\n"
	      "config's profile describes, replay it under read-copy, devanon and\n"
	      "punch on the config's host, and print footprints and densities beside\n"
	      "the published figures.  Then run the same comparison on each recorded\n"
	      "trace the config lists.\n"
	      "\n"
	      "Options:\n"
	      "  -c, --config FILE   host assumptions and published figures\n"
	      "                      (default: " PKGDATADIR "/" DEFAULT_CONFIG ",\n"
	      "                      or $ANONSIM_DATADIR/" DEFAULT_CONFIG "); - is\n"
	      "                      standard input, the files it names relative\n"
	      "                      to the working directory\n"
	      "  -d, --data DIR      also write there footprint.csv (plots/footprint.gp)\n"
	      "                      and density.csv, the sweeps of the 2004 boot\n"
	      "                      (plots/density.gp)\n"
	      "      --published-only  leave out the recorded traces\n"
	      "  -j, --jobs N        parallel replays for the density sweeps\n"
	      "                      (default: online CPUs)\n"
	      "  -q, --quiet         no progress line\n"
	      "  -o, --output FILE   write to FILE (complete or not at all) instead\n"
	      "                      of standard output\n"
	      "      --csv           CSV, one row per trace and strategy\n"
	      "      --json          one JSON object (see anonsim(1))\n"
	      "  -h, --help          this help\n"
	      "\n"
	      "Footprint: host memory after the boot with memory unlimited (tmpfs, page\n"
	      "cache, table pages), without the per-instance overhead.  Density: the\n"
	      "most instances booted one after another before the first swap-out.\n"
	      "\n"
	      "A figure outside its tolerance is a missed target (4).\n"
	      EXIT_STATUS_HELP, f);
}

/* What a config may leave out, before it is read. */
static void config_defaults(struct repro_config *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->host = (struct replay_opts){ .swap = 1ULL << 30, .policy = RECLAIM_24,
		.readahead_kb = -1, .copies = 1, .stagger_us = -1, .share = true,
		.geom = &shmem_geom_i386, .series_step_us = 100000 };
	c->max_instances = 32;
	c->tolerance_mib = 1.0;
}

/* The profile, resolved against the config's directory.  0, or -1 with @err. */
static int config_profile(const struct kv_file *f, const char *path, struct repro_config *c,
			  char *err, size_t errlen)
{
	const struct kv_entry *e = kv_get(f, "profile");

	if (!e) {
		snprintf(err, errlen, "%s: missing setting 'profile'", path);
		return -1;
	}
	kv_path(f, e->value, c->profile, sizeof(c->profile));
	return 0;
}

/* host-mem (required), swap and overhead.  0, or -1 with @err. */
static int config_sizes(const struct kv_file *f, const char *path, struct repro_config *c,
			char *err, size_t errlen)
{
	unsigned long long v;

	if (kv_size(f, "host-mem", &v, err, errlen) < 0)
		return -1;
	if (!kv_get(f, "host-mem") || v < 4096) {
		snprintf(err, errlen, "%s: 'host-mem' must be set (a size such as 576M)", path);
		return -1;
	}
	c->host.host_mem = v;
	if (kv_size(f, "swap", &v, err, errlen) == 0) {
		if (v > REPLAY_SWAP_MAX) {
			snprintf(err, errlen, "%s:%u: swap: at most 1T", path,
				 kv_get(f, "swap")->line);
			return -1;
		}
		c->host.swap = v;
	} else if (kv_get(f, "swap")) {
		return -1;
	}
	if (kv_size(f, "overhead", &v, err, errlen) == 0)
		c->host.overhead = v;
	else if (kv_get(f, "overhead"))
		return -1;
	return 0;
}

/* policy, share and geometry, each one word of its table.  0, or -1 with @err. */
static int config_words(const struct kv_file *f, const char *path, struct repro_config *c,
			char *err, size_t errlen)
{
	static const char *const yes_no[] = { "yes", "no", NULL };
	const struct kv_entry *e;
	char want[NAMES_LIST_MAX];

	if ((e = kv_get(f, "policy")) && reclaim_policy_find(e->value, &c->host.policy)) {
		snprintf(err, errlen, "%s:%u: policy '%s': expected %s", path, e->line, e->value,
			 names_or(reclaim_policy_names, want, sizeof(want)));
		return -1;
	}
	if ((e = kv_get(f, "share"))) {
		if (names_find(yes_no, e->value) < 0) {
			snprintf(err, errlen, "%s:%u: share '%s': expected %s", path, e->line,
				 e->value, names_or(yes_no, want, sizeof(want)));
			return -1;
		}
		c->host.share = !strcmp(e->value, "yes");
	}
	if ((e = kv_get(f, "geometry"))) {
		if (!shmem_geom_find(e->value)) {
			snprintf(err, errlen, "%s:%u: geometry '%s': expected %s", path, e->line,
				 e->value, shmem_geom_names(want, sizeof(want)));
			return -1;
		}
		c->host.geom = shmem_geom_find(e->value);
	}
	return 0;
}

/* max-instances and tolerance-mib.  0, or -1 with @err. */
static int config_limits(const struct kv_file *f, const char *path, struct repro_config *c,
			 char *err, size_t errlen)
{
	const struct kv_entry *e;

	if ((e = kv_get(f, "max-instances"))) {
		uint64_t n;

		if (parse_uint(e->value, 1024, &n) || !n) {
			snprintf(err, errlen, "%s:%u: max-instances '%s': expected 1 to 1024",
				 path, e->line, e->value);
			return -1;
		}
		c->max_instances = (unsigned)n;
	}
	if ((e = kv_get(f, "tolerance-mib")) &&
	    parse_real(e->value, 1e6, &c->tolerance_mib)) {
		snprintf(err, errlen, "%s:%u: tolerance-mib '%s': expected MiB from 0 to 1000000",
			 path, e->line, e->value);
		return -1;
	}
	return 0;
}

/*
 * A line "published STRATEGY MIB UMLS", each strategy once: MiB above 0
 * and up to 1 TiB, UMLs from 1 to 1024, nothing after them.  @seen: the
 * line of each strategy's (0: none yet).  0, or -1 with @err.
 */
static int config_published(const struct kv_entry *x, const char *path, struct repro_config *c,
			    unsigned seen[NCOMPARED], char *err, size_t errlen)
{
	char name[64], mib_text[64], umls_text[64], extra[2];
	double mib;
	uint64_t umls;
	unsigned k;

	if (sscanf(x->value, "%63s %63s %63s %1s", name, mib_text, umls_text, extra) != 3) {
		snprintf(err, errlen, "%s:%u: published: expected STRATEGY MIB UMLS",
			 path, x->line);
		return -1;
	}
	for (k = 0; k < NCOMPARED && strcmp(compared[k], name); k++)
		;
	if (k == NCOMPARED) {
		snprintf(err, errlen, "%s:%u: published: '%s' is not one of read-copy, devanon, punch",
			 path, x->line, name);
		return -1;
	}
	if (seen[k]) {
		snprintf(err, errlen, "%s:%u: published %s is set twice (first on line %u)",
			 path, x->line, name, seen[k]);
		return -1;
	}
	if (parse_real(mib_text, 1024 * 1024, &mib) || mib <= 0) {
		snprintf(err, errlen, "%s:%u: published %s: MiB '%s': expected a number above 0, up to 1048576",
			 path, x->line, name, mib_text);
		return -1;
	}
	if (parse_uint(umls_text, 1024, &umls) || !umls) {
		snprintf(err, errlen, "%s:%u: published %s: UMLs '%s': expected 1 to 1024",
			 path, x->line, name, umls_text);
		return -1;
	}
	seen[k] = x->line;
	c->published_mib[k] = mib;
	c->published_density[k] = (unsigned)umls;
	return 0;
}

/* A line "trace FILE", resolved against the config's directory.  0, or -1 with @err. */
static int config_trace(const struct kv_file *f, const struct kv_entry *x, const char *path,
			struct repro_config *c, char *err, size_t errlen)
{
	if (c->nr_traces == MAX_TRACES) {
		snprintf(err, errlen, "%s:%u: more than %d traces", path, x->line, MAX_TRACES);
		return -1;
	}
	kv_path(f, x->value, c->traces[c->nr_traces++], sizeof(c->traces[0]));
	return 0;
}

/*
 * The lines that may repeat, published and trace, in file order; every
 * compared strategy must have its published line.  0, or -1 with @err.
 */
static int config_lists(const struct kv_file *f, const char *path, struct repro_config *c,
			char *err, size_t errlen)
{
	unsigned i, k, seen[NCOMPARED] = { 0 };

	for (i = 0; i < f->n; i++) {
		const struct kv_entry *x = &f->v[i];

		if (!strcmp(x->key, "published")) {
			if (config_published(x, path, c, seen, err, errlen))
				return -1;
		} else if (!strcmp(x->key, "trace")) {
			if (config_trace(f, x, path, c, err, errlen))
				return -1;
		}
	}
	for (k = 0; k < NCOMPARED; k++)
		if (!seen[k]) {
			snprintf(err, errlen, "%s: missing setting 'published %s MIB UMLS'",
				 path, compared[k]);
			return -1;
		}
	return 0;
}

static int load_config(const char *path, struct repro_config *c, char *err, size_t errlen)
{
	static const char *const known[] = { "profile", "host-mem", "swap", "overhead",
		"policy", "share", "geometry", "max-instances", "published", "tolerance-mib",
		"trace", NULL };
	static const char *const multi[] = { "published", "trace", NULL };
	struct kv_file f;
	int rc = 0;

	config_defaults(c, path);
	if (kv_load(&f, path, known, multi, err, errlen))
		return EXIT_DATA;
	path = input_name(path);	/* in messages */
	if (config_profile(&f, path, c, err, errlen) || config_sizes(&f, path, c, err, errlen) ||
	    config_words(&f, path, c, err, errlen) || config_limits(&f, path, c, err, errlen) ||
	    config_lists(&f, path, c, err, errlen))
		rc = EXIT_DATA;
	kv_free(&f);
	return rc;
}

/* Footprint (pages, overhead excluded) of one instance of @trace, memory
 * unlimited; @split, if given, gets its tmpfs and page cache parts. */
static int footprint(const char *trace, const char *strategy, const struct replay_opts *host,
		     int64_t readahead_kb, uint64_t *pages, uint64_t split[2], char *err,
		     size_t errlen)
{
	struct replay_opts o = *host;
	struct replay_result r;
	char *paths[1] = { (char *)trace };
	int rc;

	o.host_mem = 0;
	o.copies = 1;
	o.readahead_kb = readahead_kb;
	rc = replay_run(paths, 1, strategy_find(strategy), ANON_FIXED, &o, &r, err, errlen);
	if (!rc)
		*pages = r.final_total - r.final[CAT_OVERHEAD];
	if (!rc && split) {
		split[0] = r.final[CAT_TMPFS];
		split[1] = r.final[CAT_CACHE];
	}
	return rc;
}

/* The density of @trace under @strategy; the sweep goes to @csv if given. */
static int density_of(const char *trace, const char *strategy, const struct repro_config *c,
		      unsigned jobs, unsigned *n, FILE *csv, char *err, size_t errlen)
{
	struct density_point *pts = xcalloc(c->max_instances, sizeof(*pts),
					    "the points of the sweep");
	char *paths[1] = { (char *)trace };
	unsigned filled;
	int rc;

	rc = density_sweep(paths, 1, strategy_find(strategy), ANON_FIXED, &c->host,
			   c->max_instances, jobs, pts, &filled, n, err, errlen);
	if (!rc && csv)
		density_csv(csv, strategy, pts, filled, *n, c->host.host_mem);
	free(pts);
	return rc;
}

/* One trace's figures under each compared strategy; memory in pages. */
struct row {
	char name[256];
	bool published;			/* the synthesized 2004 boot */
	struct trace_header hdr;
	uint64_t pages[NCOMPARED];
	unsigned dens[NCOMPARED];
	uint64_t pages_no_ra[NCOMPARED];
	uint64_t split[NCOMPARED][2];	/* tmpfs, page cache */
	bool ok[NCOMPARED];		/* published: within tolerance */
};

static int measure(const char *trace, const struct repro_config *c, unsigned jobs,
		   bool no_ra, struct row *row, FILE *density_csv_out, char *err, size_t errlen)
{
	struct trace_reader *r = trace_open(trace, err, errlen);
	unsigned k;
	int rc;

	if (!r)
		return EXIT_DATA;
	row->hdr = *trace_header(r);
	trace_close(r);
	for (k = 0; k < NCOMPARED; k++) {
		if ((rc = footprint(trace, compared[k], &c->host, c->host.readahead_kb,
				    &row->pages[k], row->split[k], err, errlen)))
			return rc;
		if (no_ra && (rc = footprint(trace, compared[k], &c->host, 0,
					     &row->pages_no_ra[k], NULL, err, errlen)))
			return rc;
		if ((rc = density_of(trace, compared[k], c, jobs, &row->dens[k], density_csv_out,
				     err, errlen)))
			return rc;
	}
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void put_inputs(struct json *j, const struct repro_config *c)
{
	char b[OUT_NUM_MAX];
	unsigned k;

	json_object(j, "inputs");
	json_string(j, "config", c->path);
	json_string(j, "profile", c->profile);
	json_number(j, "host_mem_mib", fmt_bytes_mib(b, c->host.host_mem));
	json_number(j, "swap_mib", fmt_bytes_mib(b, c->host.swap));
	json_string(j, "policy", reclaim_policy_names[c->host.policy]);
	json_null(j, "readahead_kb");	/* each trace's own window */
	json_number(j, "overhead_mib", fmt_bytes_mib(b, c->host.overhead));
	json_string(j, "geometry", c->host.geom->name);
	json_bool(j, "share", c->host.share);
	json_uint(j, "max_instances", c->max_instances);
	json_number(j, "tolerance_mib", fmt_double(b, c->tolerance_mib));
	json_array(j, "strategies");
	for (k = 0; k < NCOMPARED; k++)
		json_string(j, NULL, compared[k]);
	json_end(j);
	json_end(j);
}

static void put_json(FILE *f, const struct repro_config *c, const struct row *rows,
		     unsigned n, bool missed)
{
	char b[OUT_NUM_MAX];
	struct json j;
	unsigned t, k;

	json_start(&j, f);
	json_head(&j, "reproduce");
	put_inputs(&j, c);
	json_array(&j, "traces");
	for (t = 0; t < n; t++) {
		json_object(&j, NULL);
		json_string(&j, "name", rows[t].name);
		json_object(&j, "header");
		json_trace_header(&j, &rows[t].hdr);
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_array(&j, "results");
	for (t = 0; t < n; t++) {
		const struct row *w = &rows[t];

		json_object(&j, NULL);
		json_string(&j, "trace", w->name);
		json_bool(&j, "published", w->published);
		json_array(&j, "strategies");
		for (k = 0; k < NCOMPARED; k++) {
			json_object(&j, NULL);
			json_string(&j, "strategy", compared[k]);
			json_number(&j, "footprint_mib", fmt_mib(b, w->pages[k]));
			json_number(&j, "tmpfs_mib", fmt_mib(b, w->split[k][0]));
			json_number(&j, "cache_mib", fmt_mib(b, w->split[k][1]));
			if (w->published)
				json_null(&j, "no_readahead_mib");
			else
				json_number(&j, "no_readahead_mib", fmt_mib(b, w->pages_no_ra[k]));
			json_uint(&j, "density", w->dens[k]);
			if (w->published) {
				json_number(&j, "published_mib", fmt_double(b, c->published_mib[k]));
				json_uint(&j, "published_density", c->published_density[k]);
				json_bool(&j, "within_tolerance", w->ok[k]);
			} else {	/* the keys are there for every trace */
				json_null(&j, "published_mib");
				json_null(&j, "published_density");
				json_null(&j, "within_tolerance");
			}
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_bool(&j, "missed", missed);
	json_finish(&j);
}

static void put_csv(FILE *f, const struct repro_config *c, const struct row *rows,
		    unsigned n)
{
	char b[OUT_NUM_MAX];
	unsigned t, k;

	fputs("trace,strategy,footprint_mib,tmpfs_mib,cache_mib,no_readahead_mib,density,"
	      "published_mib,published_density,within_tolerance\n", f);
	for (t = 0; t < n; t++)
		for (k = 0; k < NCOMPARED; k++) {
			const struct row *w = &rows[t];

			csv_field(f, true, w->name);
			csv_field(f, false, compared[k]);
			csv_field(f, false, fmt_mib(b, w->pages[k]));
			csv_field(f, false, fmt_mib(b, w->split[k][0]));
			csv_field(f, false, fmt_mib(b, w->split[k][1]));
			csv_field(f, false, w->published ? NULL : fmt_mib(b, w->pages_no_ra[k]));
			fprintf(f, ",%u", w->dens[k]);
			if (w->published) {
				csv_field(f, false, fmt_double(b, c->published_mib[k]));
				fprintf(f, ",%u,%s\n", c->published_density[k],
					w->ok[k] ? "yes" : "no");
			}
			else
				fputs(",,,\n", f);
		}
}

static void put_table(FILE *f, const struct repro_config *c, const struct row *rows,
		      unsigned n)
{
	const struct row *row = &rows[0];
	unsigned t, k;

	fprintf(f, "Reproduction of the 2004 /dev/anon result\n"
		"  profile %s, config %s\n"
		"  host: %.0f MiB, swap %.0f MiB, %s reclaim, %.1f MiB overhead per UML, %s image\n\n",
		c->profile, c->path, c->host.host_mem / 1048576.0, c->host.swap / 1048576.0,
		reclaim_policy_names[c->host.policy], c->host.overhead / 1048576.0,
		c->host.share ? "shared" : "private");
	fprintf(f, "%-10s %14s %10s %8s %10s %6s\n", "strategy", "footprint MiB", "published",
		"UMLs", "published", "");
	for (k = 0; k < NCOMPARED; k++)
		fprintf(f, "%-10s %14.1f %10.0f %8u %10u %6s\n", compared[k],
			pages_mib(row->pages[k]), c->published_mib[k], row->dens[k],
			c->published_density[k], row->ok[k] ? "ok" : "MISS");
	fprintf(f, "saving: %.0f%% of host memory (published 25%%), density gain %+.0f%% (published +25%%)\n",
		100.0 * (1 - (double)row->pages[1] / (double)row->pages[0]),
		100.0 * ((double)row->dens[1] / row->dens[0] - 1));

	for (t = 1; t < n; t++) {
		row = &rows[t];
		fprintf(f, "\n%s (recorded)\n", row->name);
		fprintf(f, "%-10s %14s %8s %18s\n", "strategy", "footprint MiB", "UMLs",
			"no readahead MiB");
		for (k = 0; k < NCOMPARED; k++)
			fprintf(f, "%-10s %14.1f %8u %18.1f\n", compared[k],
				pages_mib(row->pages[k]), row->dens[k],
				pages_mib(row->pages_no_ra[k]));
		fprintf(f, "devanon saves %.0f%% (%.1f MiB), density %+.0f%%; without readahead it "
			"would save %.0f%% (%.1f MiB)\n",
			100.0 * (1 - (double)row->pages[1] / (double)row->pages[0]),
			pages_mib(row->pages[0]) - pages_mib(row->pages[1]),
			100.0 * ((double)row->dens[1] / row->dens[0] - 1),
			100.0 * (1 - (double)row->pages_no_ra[1] / (double)row->pages_no_ra[0]),
			pages_mib(row->pages_no_ra[0]) - pages_mib(row->pages_no_ra[1]));
	}
}

/* The data files of -d: open both, or neither. */
static int open_data(const char *data, struct output_file *fp, struct output_file *dens)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/footprint.csv", data);
	if (output_open(fp, path))
		return EXIT_OUTPUT;
	snprintf(path, sizeof(path), "%s/density.csv", data);
	if (output_open(dens, path)) {
		output_abort(fp);
		return EXIT_OUTPUT;
	}
	fputs("trace,strategy,tmpfs_mib,cache_mib,total_mib,published_mib\n", fp->f);
	density_csv_header(dens->f);
	return 0;
}

static void footprint_rows(FILE *f, const struct repro_config *c, const struct row *w)
{
	char b[OUT_NUM_MAX];
	unsigned k;

	for (k = 0; k < NCOMPARED; k++) {
		csv_field(f, true, w->name);
		csv_field(f, false, compared[k]);
		csv_field(f, false, fmt_mib(b, w->split[k][0]));
		csv_field(f, false, fmt_mib(b, w->split[k][1]));
		csv_field(f, false, fmt_mib(b, w->pages[k]));
		csv_field(f, false, w->published ? fmt_double(b, c->published_mib[k]) : NULL);
		fputc('\n', f);
	}
}

/* What the command line asks of a reproduction, and the outputs it opens. */
struct repro_cli {
	const char *config, *data;	/* -c FILE (NULL: the default), -d DIR */
	unsigned jobs;
	bool published_only, quiet;
	struct out out;
	struct output_file fp, dens;	/* the data files of -d, once open */
};

/* An option not of the output's; 0, or an exit status (-1: help shown). */
static int repro_option(struct repro_cli *cli, int opt, char **argv)
{
	uint64_t v;

	switch (opt) {
	case 'c':
		cli->config = optarg;
		return 0;
	case 'd':
		cli->data = optarg;
		return 0;
	case 'j':
		if (parse_uint(optarg, 256, &v) || !v) {
			msg("--jobs '%s': expected 1 to 256", optarg);
			return EXIT_USAGE;
		}
		cli->jobs = (unsigned)v;
		return 0;
	case 'p':
		cli->published_only = true;
		return 0;
	case 'q':
		cli->quiet = true;
		return 0;
	case 'h':
		repro_usage(stdout);
		return -1;
	default:
		return usage_error(opt, argv, "reproduce");
	}
}

/* The options into @cli.  0, or an exit status (-1: help shown). */
static int repro_parse(struct repro_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "data", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "published-only", no_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		OUT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":c:d:j:qh" OUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if ((rc = out_option(&cli->out, opt, optarg)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		if ((rc = repro_option(cli, opt, argv)))
			return rc;
	}
	if (optind != argc) {
		msg("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
}

/* The config (-c, else the default one if it is there) and its profile.  0, or an exit status. */
static int repro_load(const char *config, struct repro_config *c, struct gen_profile *prof)
{
	char err[1024];
	int rc;

	if (!config) {
		config = data_path(DEFAULT_CONFIG);
		if (access(config, R_OK)) {
			msg("no config at %s (%s): name one with -c FILE, "
			    "such as -c " DEFAULT_CONFIG " in the source tree",
			    config, strerror(errno));
			return EXIT_DATA;
		}
	}
	if ((rc = load_config(config, c, err, sizeof(err))) ||
	    (rc = profile_load(c->profile, prof, err, sizeof(err)))) {
		msg("%s", err);
		return rc;
	}
	return 0;
}

/* The report, then the data files of -d; nothing stays open on failure. */
static int repro_open(struct repro_cli *cli, struct repro_config *c)
{
	char *inputs[2] = { c->path, c->profile };
	int rc;

	if ((rc = out_open(&cli->out, inputs, 2)))
		return rc;
	if (cli->data && (rc = open_data(cli->data, &cli->fp, &cli->dens))) {
		out_abort(&cli->out);
		return rc;
	}
	return 0;
}

/* The synthesized 2004 boot measured into @row; the trace is removed again. */
static int measure_published(const struct repro_cli *cli, const struct repro_config *c,
			     const struct gen_profile *prof, struct row *row)
{
	char err[1024], synth[4096];
	int rc;

	/* the synthetic trace lives only for this run */
	snprintf(synth, sizeof(synth), "%s/anonsim-repro-%ld.atr",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
	if (cleanup_add(synth)) {
		msg("out of memory");
		return EXIT_OUTPUT;
	}
	if ((rc = trace_generate(prof, synth, NULL, err, sizeof(err))) == 0)
		rc = measure(synth, c, cli->jobs, false, row, cli->data ? cli->dens.f : NULL, err,
			     sizeof(err));
	unlink(synth);
	cleanup_forget(synth);
	if (rc) {
		msg("%s", err);
		return rc;
	}
	snprintf(row->name, sizeof(row->name), "woody-2004");
	row->published = true;
	return 0;
}

/* Each figure of the 2004 boot against the published one; true if one missed. */
static bool judge_published(const struct repro_config *c, struct row *row)
{
	bool missed = false;
	unsigned k;

	for (k = 0; k < NCOMPARED; k++) {
		double mib = pages_mib(row->pages[k]);

		row->ok[k] = mib >= c->published_mib[k] - c->tolerance_mib &&
			     mib <= c->published_mib[k] + c->tolerance_mib &&
			     row->dens[k] == c->published_density[k];
		missed |= !row->ok[k];
	}
	return missed;
}

/* The config's recorded traces into @rows[1...] (none with --published-only). */
static int measure_recorded(const struct repro_cli *cli, const struct repro_config *c,
			    struct row *rows, unsigned *nrows)
{
	char err[1024];
	unsigned t;
	int rc;

	for (t = 0; !cli->published_only && t < c->nr_traces; t++) {
		struct row *w = &rows[1 + t];

		if ((rc = measure(c->traces[t], c, cli->jobs, true, w, NULL, err, sizeof(err)))) {
			msg("%s", err);
			return rc;
		}
		snprintf(w->name, sizeof(w->name), "%s", base_name(c->traces[t]));
	}
	*nrows = 1 + t;
	return 0;
}

/* The footprint rows of -d, then the report in its format. */
static void repro_write(struct repro_cli *cli, const struct repro_config *c,
			const struct row *rows, unsigned nrows, bool missed)
{
	unsigned t;

	if (cli->data)
		for (t = 0; t < nrows; t++)
			footprint_rows(cli->fp.f, c, &rows[t]);
	if (cli->out.fmt == OUT_JSON)
		put_json(cli->out.f, c, rows, nrows, missed);
	else if (cli->out.fmt == OUT_CSV)
		put_csv(cli->out.f, c, rows, nrows);
	else
		put_table(cli->out.f, c, rows, nrows);
}

/* Put the report and the data files in place; the exit status of the run. */
static int repro_close(struct repro_cli *cli, bool missed)
{
	int rc = out_close(&cli->out);

	if (cli->data && (output_commit(&cli->fp) | output_commit(&cli->dens)))
		return EXIT_OUTPUT;
	if (rc)
		return rc;
	return missed ? EXIT_TARGET : EXIT_OK;
}

/* Drop the outputs of a failed run. */
static void repro_abort(struct repro_cli *cli)
{
	if (cli->data) {
		output_abort(&cli->fp);
		output_abort(&cli->dens);
	}
	out_abort(&cli->out);
}

int cmd_reproduce(int argc, char **argv)
{
	struct repro_cli cli = { .jobs = online_cpus() };
	static struct repro_config c;
	struct gen_profile prof;
	struct row *rows;
	unsigned nrows = 1;
	bool missed;
	int rc;

	out_init(&cli.out);
	rc = repro_parse(&cli, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if ((rc = repro_load(cli.config, &c, &prof)))
		return rc;
	rows = xcalloc(1 + c.nr_traces, sizeof(*rows), "the table's rows");
	c.host.progress = !cli.quiet && isatty(STDERR_FILENO);
	if ((rc = repro_open(&cli, &c))) {
		free(rows);
		return rc;
	}
	if ((rc = measure_published(&cli, &c, &prof, &rows[0])))
		goto fail;
	missed = judge_published(&c, &rows[0]);
	if ((rc = measure_recorded(&cli, &c, rows, &nrows)))
		goto fail;
	repro_write(&cli, &c, rows, nrows, missed);
	free(rows);
	return repro_close(&cli, missed);
fail:
	repro_abort(&cli);
	free(rows);
	return rc;
}
