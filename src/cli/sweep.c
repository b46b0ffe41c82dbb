/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sweep.c - the grid of a sweep, its replays on threads, its rows, and the
 * merge of rows that jobs wrote apart.
 *
 * A row is the combination's parameters followed by the row "anonsim
 * replay --csv --pages" prints for it, taken from report_csv itself, so the
 * two commands never disagree on a figure or its format.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/output_format.h"
#include "cli/report.h"
#include "cli/sweep.h"
#include "model/jobs.h"
#include "model/replay.h"
#include "util/progress.h"
#include "util/util.h"
#include "util/xalloc.h"

static const char *const param_header = "combo,trace,host_mem_bytes,swap_bytes,policy,readahead_kb,";

uint64_t sweep_size(const struct sweep_grid *g)
{
	return (uint64_t)g->ntraces * g->nmem * g->nswap * g->npolicy * g->nra *
	       g->ncopies * g->nruns;
}

/* report_csv's output for @r (n results): its header line, or its rows. */
static char *report_text(const struct replay_result *r, unsigned n, bool header)
{
	char *buf = NULL, *nl;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	report_csv(m, r, n, true);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	nl = strchr(buf, '\n');
	if (!nl) {
		free(buf);
		return NULL;
	}
	if (header) {
		nl[1] = '\0';
		return buf;
	}
	memmove(buf, nl + 1, strlen(nl + 1) + 1);
	return buf;
}

void sweep_csv_header(FILE *f)
{
	char *h = report_text(NULL, 0, true);

	fprintf(f, "%s%s", param_header, h ? h : "\n");
	free(h);
}

uint64_t sweep_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

#define PART_LINE "# anonsim sweep part: identity="

void sweep_part_line(char *buf, size_t len, uint64_t id, uint64_t total)
{
	snprintf(buf, len, PART_LINE "%016" PRIx64 " combinations=%" PRIu64 "\n", id, total);
}

int sweep_part_parse(const char *line, char id[SWEEP_ID_LEN], uint64_t *total)
{
	const char *p = line + strlen(PART_LINE);
	char *end;

	if (strncmp(line, PART_LINE, strlen(PART_LINE)) ||
	    strspn(p, "0123456789abcdef") != SWEEP_ID_LEN - 1 ||
	    strncmp(p + SWEEP_ID_LEN - 1, " combinations=", 14))
		return -1;
	memcpy(id, p, SWEEP_ID_LEN - 1);
	id[SWEEP_ID_LEN - 1] = '\0';
	p += SWEEP_ID_LEN - 1 + 14;
	if (*p < '1' || *p > '9')
		return -1;
	errno = 0;
	*total = strtoull(p, &end, 10);
	return errno || strcmp(end, "\n") ? -1 : 0;
}

char *sweep_row(const struct sweep_grid *g, uint64_t k, int *rc, char *err,
		size_t errlen)
{
	struct replay_opts o = g->base.o;
	const struct strategy_run *run;
	struct replay_result res;
	char *paths[1], *rep, *row = NULL;
	size_t len = 0;
	uint64_t r = k;
	FILE *m;

	run = &g->runs[r % g->nruns];
	r /= g->nruns;
	o.copies = g->copies[r % g->ncopies];
	r /= g->ncopies;
	o.readahead_kb = g->ra[r % g->nra];
	r /= g->nra;
	o.policy = g->policy[r % g->npolicy];
	r /= g->npolicy;
	o.swap = g->swap[r % g->nswap];
	r /= g->nswap;
	o.host_mem = g->mem[r % g->nmem];
	r /= g->nmem;
	paths[0] = g->traces[r];
	o.series = NULL;
	o.progress = false;

	*rc = replay_run(paths, 1, run->s, run->v, &o, &res, err, errlen);
	if (*rc)
		return NULL;
	if (replay_failed(&res)) {
		*rc = EXIT_INTERNAL;
		set_error(err, errlen, "combination %" PRIu64 " (%s, %s): simulator failure: %s",
			  k, paths[0], res.label, res.find.first_other);
		return NULL;
	}
	rep = report_text(&res, 1, false);
	m = open_memstream(&row, &len);
	if (!rep || !m)
		die_oom("a row of the sweep");
	fprintf(m, "%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%s,", k, paths[0], o.host_mem,
		o.swap, reclaim_policy_names[o.policy]);
	if (o.readahead_kb < 0)
		fputs("trace,", m);
	else
		fprintf(m, "%" PRId64 ",", o.readahead_kb);
	fputs(rep, m);
	free(rep);
	if (fclose(m))
		die_oom("a row of the sweep");
	return row;
}

/* --- on threads ----------------------------------------------------------------- */

struct pool {
	const struct sweep_grid *g;
	uint64_t first, n, next, done;
	char **rows;
	struct progress prog;
	int rc;			/* of the failed combination with the smallest index */
	uint64_t failed_at;
	char err[1024];
};

/* The job pool's next(): combinations in order, none after a failure. */
static bool next_combo(void *ctx, uint64_t *task)
{
	struct pool *p = ctx;

	if (p->next >= p->n || p->rc)
		return false;
	*task = p->next++;
	return true;
}

/* The job pool's run(): combination first + i into rows[i]. */
static int run_combo(void *ctx, uint64_t i, char *err, size_t errlen)
{
	struct pool *p = ctx;
	int rc = 0;

	p->rows[i] = sweep_row(p->g, p->first + i, &rc, err, errlen);
	return p->rows[i] ? 0 : rc;
}

/* The job pool's done(): the failure of the smallest index is kept. */
static void combo_done(void *ctx, uint64_t i, int rc, const char *err)
{
	struct pool *p = ctx;

	if (rc && (!p->rc || i < p->failed_at)) {
		p->rc = rc;
		p->failed_at = i;
		snprintf(p->err, sizeof(p->err), "%s", err);
	}
	p->done++;
	progress_show(&p->prog, "sweep", p->done, p->n, "replays");
}

static const struct job_ops combo_jobs = {
	.next = next_combo, .run = run_combo, .done = combo_done,
};

int sweep_run(const struct sweep_grid *g, uint64_t first, uint64_t n, unsigned jobs,
	      bool progress, char **rows, char *err, size_t errlen)
{
	struct pool p = { .g = g, .first = first, .n = n, .rows = rows };

	progress_start(&p.prog, progress);
	if (jobs > 64)
		jobs = 64;
	if (jobs > n)
		jobs = (unsigned)n;
	jobs_run(jobs ? jobs : 1, &combo_jobs, &p);
	progress_end(&p.prog);
	if (p.rc)
		snprintf(err, errlen, "%s", p.err);
	return p.rc;
}

/* --- JSON ---------------------------------------------------------------------- */

/* Columns of a row that hold words, not figures. */
static bool word_column(const char *name, size_t len)
{
	static const char *const words[] = { "trace", "policy", "readahead_kb", "strategy" };
	unsigned i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == len && !strncmp(words[i], name, len))
			return true;
	return false;
}

/*
 * A field's JSON type follows its column, never its value: words are
 * strings (policy "2.4" too), figures numbers, an empty field (never) null;
 * readahead_kb is a figure whose word "trace" (each trace's own window) is
 * null, as in the inputs of the other commands.
 */
static void json_field(struct json *j, const char *key, const char *v, size_t len)
{
	char buf[256];
	bool readahead = !strcmp(key, "readahead_kb");

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	if (!len || (readahead && !strcmp(buf, "trace")))
		json_null(j, key);
	else if (!readahead && word_column(key, strlen(key)))
		json_string(j, key, buf);
	else
		json_number(j, key, buf);
}

void sweep_json(FILE *f, char *const *rows, uint64_t n, char *const *traces,
		unsigned ntraces)
{
	char *hdr = NULL, *keys[128];
	size_t len = 0;
	unsigned nkeys = 0, k;
	uint64_t i;
	FILE *m = open_memstream(&hdr, &len);
	char *save, *tok;
	struct json j;

	if (m) {
		sweep_csv_header(m);
		fclose(m);
	}
	if (hdr) {
		hdr[strcspn(hdr, "\n")] = '\0';
		for (tok = strtok_r(hdr, ",", &save); tok && nkeys < 128;
		     tok = strtok_r(NULL, ",", &save))
			keys[nkeys++] = tok;
	}
	json_start(&j, f);
	json_head(&j, "sweep");
	/* the inputs of each combination are in its row; the traces were
	 * read whole by the replays, so their headers read again */
	json_traces(&j, traces, ntraces);	/* a failure has its message */
	json_array(&j, "results");
	for (i = 0; i < n; i++) {
		const char *p = rows[i];

		json_object(&j, NULL);
		for (k = 0; k < nkeys && *p && *p != '\n'; k++) {
			size_t flen = strcspn(p, ",\n");

			json_field(&j, keys[k], p, flen);
			p += flen;
			if (*p == ',')
				p++;
		}
		json_end(&j);
	}
	json_end(&j);
	json_finish(&j);
	free(hdr);
}

/* --- merging parts --------------------------------------------------------------- */

struct keyed {
	uint64_t combo;
	char *row;
	const char *file;
	unsigned line;
};

static int by_combo(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return x->combo < y->combo ? -1 : x->combo > y->combo;
}

/*
 * Line 1 of @path, its identity: the first part's (@first) sets the
 * sweep's, every other must be the same.  0, or -1 with @err.
 */
static int part_identity(const char *path, const char *line, const char *first_path,
			 char id[SWEEP_ID_LEN], uint64_t *total, bool first, char *err,
			 size_t errlen)
{
	char its[SWEEP_ID_LEN];
	uint64_t n;

	if (sweep_part_parse(line, its, &n))
		return set_error(err, errlen,
				 "%s:1: not a part of a sweep (no identity line: parts are written by anonsim sweep --job)",
				 path);
	if (first) {
		memcpy(id, its, SWEEP_ID_LEN);
		*total = n;
		return 0;
	}
	if (strcmp(its, id) || n != *total)
		return set_error(err, errlen,
				 "%s:1: a part of another sweep (identity %s, %" PRIu64
				 " combinations; %s has %s, %" PRIu64 ")",
				 path, its, n, first_path, id, *total);
	return 0;
}

/*
 * A row's fields against the header @hdr: as many, and every figure empty
 * (never) or a number, whole.  0, or -1 with @err naming the column.
 */
static int row_figures_bad(const char *row, const char *hdr, const char *path, unsigned ln,
			   char *err, size_t errlen)
{
	const char *r = row, *h = hdr;

	for (;;) {
		size_t rl = strcspn(r, ",\n"), hl = strcspn(h, ",\n");
		char field[64];
		double v;

		snprintf(field, sizeof(field), "%.*s", (int)rl, r);
		if (rl && !word_column(h, hl) &&
		    (rl >= sizeof(field) || parse_real(field, 1e300, &v)))
			return set_error(err, errlen, "%s:%u: %.*s '%.*s' is not a number",
					 path, ln, (int)hl, h, (int)(rl < 40 ? rl : 40), r);
		if ((r[rl] == ',') != (h[hl] == ','))
			return set_error(err, errlen, "%s:%u: %s fields than the header",
					 path, ln, r[rl] == ',' ? "more" : "fewer");
		if (r[rl] != ',')
			return 0;
		r += rl + 1;
		h += hl + 1;
	}
}

/* What a merge holds while it reads the parts. */
struct merge {
	char *const *paths;
	char *hdr;			/* the CSV header every part has */
	char id[SWEEP_ID_LEN];		/* the first part's identity */
	uint64_t total;			/* and its number of combinations */
	struct keyed *v;		/* the rows read, with their places */
	uint64_t nv, vcap;
	char *err;
	size_t errlen;
};

/* A row of a part (line @ln of @path), checked and kept.  0, or -1 with the error. */
static int take_row(struct merge *mg, const char *path, unsigned ln, const char *line,
		    size_t len)
{
	char *end;
	uint64_t combo = strtoull(line, &end, 10);

	if (end == line || *end != ',' || line[len - 1] != '\n')
		return set_error(mg->err, mg->errlen, "%s:%u: not a sweep row", path, ln);
	if (combo >= mg->total)
		return set_error(mg->err, mg->errlen,
				 "%s:%u: combination %" PRIu64 ", past the sweep's %" PRIu64,
				 path, ln, combo, mg->total);
	if (row_figures_bad(line, mg->hdr, path, ln, mg->err, mg->errlen))
		return -1;
	if (mg->nv == mg->vcap) {
		mg->vcap = mg->vcap ? mg->vcap * 2 : 64;
		mg->v = xrealloc(mg->v, mg->vcap * sizeof(*mg->v), "the rows of the sweep's parts");
	}
	mg->v[mg->nv++] = (struct keyed){ combo, xstrdup(line, "a row of the sweep"), path, ln };
	return 0;
}

/* Part @f: its identity, its header, its rows.  0, or -1 with the error. */
static int read_part(struct merge *mg, unsigned f)
{
	const char *path = input_name(mg->paths[f]);
	FILE *in = strcmp(mg->paths[f], "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0;
	unsigned ln = 0;
	ssize_t got;
	int rc = 0;

	if (!in)
		return set_error(mg->err, mg->errlen, "%s: %s", path, strerror(errno));
	while (!rc && (got = getline(&line, &cap, in)) > 0) {
		ln++;
		if (ln == 1)
			rc = part_identity(path, line, input_name(mg->paths[0]), mg->id, &mg->total, f == 0,
					   mg->err, mg->errlen);
		else if (ln == 2 && strcmp(line, mg->hdr))
			rc = set_error(mg->err, mg->errlen,
				       "%s:2: not a part of a sweep (its header differs)", path);
		else if (ln > 2)
			rc = take_row(mg, path, ln, line, (size_t)got);
	}
	if (!rc && (ferror(in) || ln < 2))
		rc = set_error(mg->err, mg->errlen, "%s: %s", path,
			       ferror(in) ? "read error" : "empty: not a part of a sweep");
	if (in != stdin)
		fclose(in);
	free(line);
	return rc;
}

/* Every combination of the sweep once, in order.  0, or -1 with the error. */
static int check_cover(struct merge *mg)
{
	const struct keyed *v = mg->v;
	uint64_t i;

	qsort(mg->v, mg->nv, sizeof(*mg->v), by_combo);
	for (i = 0; i < mg->total; i++) {
		if (i < mg->nv && v[i].combo == i)
			continue;
		if (i < mg->nv && v[i].combo < i)
			return set_error(mg->err, mg->errlen, "%s:%u: combination %" PRIu64
					 " again (also in %s:%u)", v[i].file, v[i].line,
					 v[i].combo, v[i - 1].file, v[i - 1].line);
		return set_error(mg->err, mg->errlen, "combination %" PRIu64
				 " is in no part given", i);
	}
	return 0;
}

int sweep_merge(char *const *paths, unsigned n, char ***rows, uint64_t *nrows,
		char *err, size_t errlen)
{
	struct merge mg = { .paths = paths, .err = err, .errlen = errlen };
	size_t hlen = 0;
	FILE *m = open_memstream(&mg.hdr, &hlen);
	int rc = EXIT_DATA;
	uint64_t i;
	unsigned f;

	*rows = NULL;
	*nrows = 0;
	if (!m)
		die_oom("the sweep's header");
	sweep_csv_header(m);
	fclose(m);
	for (f = 0; f < n; f++)
		if (read_part(&mg, f))
			goto out;
	if (check_cover(&mg))
		goto out;
	*rows = xmalloc(mg.nv * sizeof(**rows), "the rows of the sweep");
	for (i = 0; i < mg.nv; i++) {
		(*rows)[i] = mg.v[i].row;
		mg.v[i].row = NULL;
	}
	*nrows = mg.nv;
	rc = 0;
out:
	for (i = 0; i < mg.nv; i++)
		free(mg.v[i].row);
	free(mg.v);
	free(mg.hdr);
	return rc;
}
