/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.c - one row description drives all three output formats, so they
 * always carry the same figures.
 */
#include <config.h>

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "cli/output_format.h"
#include "cli/report.h"


enum unit { U_MEM, U_COUNT, U_SECONDS };	/* U_MEM: pages, shown as MiB or pages */

struct row {
	const char *group;	/* table section, "" to continue the last */
	const char *name;	/* CSV/JSON key */
	const char *label;	/* table label */
	enum unit unit;
	double (*get)(const struct replay_result *r);
};

/* A row's figure: pages (U_MEM) or a count; the unit decides how it prints. */
#define FIELD(fn, expr) \
	static double fn(const struct replay_result *r) { return (double)(expr); }

FIELD(f_tmpfs, r->final[CAT_TMPFS])
FIELD(f_cache, r->final[CAT_CACHE])
FIELD(f_swapt, r->final[CAT_SWAP_TABLE])
FIELD(f_mapt, r->final[CAT_MAP_TABLE])
FIELD(f_over, r->final[CAT_OVERHEAD])
FIELD(f_total, r->final_total)
FIELD(f_swap, r->swap_final)
FIELD(p_tmpfs, r->peak[CAT_TMPFS])
FIELD(p_cache, r->peak[CAT_CACHE])
FIELD(p_swapt, r->peak[CAT_SWAP_TABLE])
FIELD(p_mapt, r->peak[CAT_MAP_TABLE])
FIELD(p_total, r->peak_total)
FIELD(p_swap, r->swap_peak)
FIELD(rd_guest, r->reads.demand)
FIELD(rd_ra, r->reads.readahead)
FIELD(rd_refault, r->reads.refaults)
FIELD(c_read, r->calls.read)
FIELD(c_write, r->calls.write)
FIELD(c_mmap, r->calls.mmap)
FIELD(c_munmap, r->calls.munmap)
FIELD(c_punch, r->calls.punch)
FIELD(s_outs, r->swap_outs)
FIELD(s_ins, r->swap_ins)
FIELD(s_oom, r->oom_pages)
FIELD(x_fwm, r->find.freed_while_mapped)
FIELD(x_under, r->find.count_underflow)
FIELD(x_strand, r->find.swap_stranded)
FIELD(x_tables, r->find.tables_leaked)
FIELD(x_fail, r->find.other)

static double s_first(const struct replay_result *r)
{
	return (double)r->first_swap_out_us;	/* microseconds; < 0: never */
}

static const struct row rows[] = {
	{ "final MiB", "final_tmpfs_mib", "tmpfs", U_MEM, f_tmpfs },
	{ "", "final_cache_mib", "page cache", U_MEM, f_cache },
	{ "", "final_swap_table_mib", "swap tables", U_MEM, f_swapt },
	{ "", "final_map_table_mib", "map-count tables", U_MEM, f_mapt },
	{ "", "final_overhead_mib", "overhead", U_MEM, f_over },
	{ "", "final_total_mib", "total", U_MEM, f_total },
	{ "", "final_swap_mib", "swap used", U_MEM, f_swap },
	{ "peak MiB", "peak_tmpfs_mib", "tmpfs", U_MEM, p_tmpfs },
	{ "", "peak_cache_mib", "page cache", U_MEM, p_cache },
	{ "", "peak_swap_table_mib", "swap tables", U_MEM, p_swapt },
	{ "", "peak_map_table_mib", "map-count tables", U_MEM, p_mapt },
	{ "", "peak_total_mib", "total", U_MEM, p_total },
	{ "", "peak_swap_mib", "swap used", U_MEM, p_swap },
	{ "disk reads (pages)", "read_guest_pages", "guest reads", U_COUNT, rd_guest },
	{ "", "read_readahead_pages", "readahead", U_COUNT, rd_ra },
	{ "", "read_refault_pages", "refaults", U_COUNT, rd_refault },
	{ "host calls", "calls_read", "read", U_COUNT, c_read },
	{ "", "calls_write", "write", U_COUNT, c_write },
	{ "", "calls_mmap", "mmap", U_COUNT, c_mmap },
	{ "", "calls_munmap", "munmap", U_COUNT, c_munmap },
	{ "", "calls_punch", "punch", U_COUNT, c_punch },
	{ "swap", "swap_out_pages", "swap-outs", U_COUNT, s_outs },
	{ "", "swap_in_pages", "swap-ins", U_COUNT, s_ins },
	{ "", "first_swap_out_s", "first swap-out (s)", U_SECONDS, s_first },
	{ "", "oom_pages", "unreclaimable (pages)", U_COUNT, s_oom },
	{ "findings", "freed_while_mapped", "freed while mapped", U_COUNT, x_fwm },
	{ "", "count_underflow", "count underflows", U_COUNT, x_under },
	{ "", "swap_stranded", "swap entries stranded", U_COUNT, x_strand },
	{ "", "tables_leaked", "table pages leaked", U_COUNT, x_tables },
	{ "", "failures", "simulator failures", U_COUNT, x_fail },
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* A figure in the table, for people: MiB to 2 decimals, seconds to 3. */
static void put_value(FILE *f, const struct row *w, double v, int width,
		      bool pages)
{
	if (w->unit == U_SECONDS && v < 0)
		fprintf(f, "%*s", width, "never");
	else if (w->unit == U_COUNT || (w->unit == U_MEM && pages))
		fprintf(f, "%*.0f", width, v);
	else if (w->unit == U_MEM)
		fprintf(f, "%*.2f", width, pages_mib((uint64_t)v));
	else
		fprintf(f, "%*.3f", width, v / 1e6);
}

/* A figure for machines, at full precision; NULL: never. */
static const char *machine_value(char buf[OUT_NUM_MAX], const struct row *w, double v,
				 bool pages)
{
	if (w->unit == U_SECONDS)
		return fmt_seconds(buf, (int64_t)v);
	if (w->unit == U_MEM && !pages)
		return fmt_mib(buf, (uint64_t)v);
	snprintf(buf, OUT_NUM_MAX, "%" PRIu64, (uint64_t)v);
	return buf;
}

/* A row's name or label in the unit chosen: "MiB" becomes "pages". */
static const char *unit_text(const char *text, bool pages, char *buf, size_t len)
{
	const char *m = strstr(text, "mib");

	if (!pages)
		return text;
	if (!m)
		m = strstr(text, "MiB");
	if (!m)
		return text;
	snprintf(buf, len, "%.*s%s%s", (int)(m - text), text,
		 "pages", m + 3);
	return buf;
}

void report_table(FILE *f, const struct replay_result *r, unsigned n, bool pages)
{
	char buf[64];
	unsigned i, k;
	int d;

	fprintf(f, "%-20s %-22s", "", "");
	for (i = 0; i < n; i++)
		fprintf(f, " %15s", r[i].label);
	fputc('\n', f);
	for (k = 0; k < NROWS; k++) {
		fprintf(f, "%-20s %-22s", unit_text(rows[k].group, pages, buf, sizeof(buf)),
			rows[k].label);
		for (i = 0; i < n; i++) {
			fputc(' ', f);
			put_value(f, &rows[k], rows[k].get(&r[i]), 15, pages);
		}
		fputc('\n', f);
	}
	/* defect paths the posted code took, where any did */
	for (d = 0; d < ANON_NR_DEFECTS; d++) {
		unsigned long any = 0;

		for (i = 0; i < n; i++)
			any |= r[i].defects[d];
		if (!any)
			continue;
		fprintf(f, "%-20s %-22s", "posted defect paths", anon_defect_names[d]);
		for (i = 0; i < n; i++)
			fprintf(f, " %15lu", r[i].defects[d]);
		fputc('\n', f);
	}
	for (i = 0; i < n; i++)
		if (r[i].find.other)
			fprintf(f, "%s: simulator failure: %s; at %s\n", r[i].label,
				r[i].find.first_other, r[i].fail_at);
}

void report_csv(FILE *f, const struct replay_result *r, unsigned n, bool pages)
{
	char buf[64], num[OUT_NUM_MAX];
	unsigned i, k;

	fputs("strategy,instances,events,trace_s", f);
	for (k = 0; k < NROWS; k++)
		fprintf(f, ",%s", unit_text(rows[k].name, pages, buf, sizeof(buf)));
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s,%u,%" PRIu64 ",%s", r[i].label, r[i].instances,
			r[i].events, fmt_useconds(num, r[i].end_us));
		for (k = 0; k < NROWS; k++)
			csv_field(f, false, machine_value(num, &rows[k], rows[k].get(&r[i]), pages));
		fputc('\n', f);
	}
}

void report_json_results(struct json *j, const struct replay_result *r, unsigned n,
			 bool pages)
{
	char buf[64], num[OUT_NUM_MAX];
	unsigned i, k;
	int d;

	json_array(j, "results");
	for (i = 0; i < n; i++) {
		json_object(j, NULL);
		json_string(j, "strategy", r[i].label);
		json_uint(j, "instances", r[i].instances);
		json_uint(j, "events", r[i].events);
		json_number(j, "trace_s", fmt_useconds(num, r[i].end_us));
		for (k = 0; k < NROWS; k++)
			json_number(j, unit_text(rows[k].name, pages, buf, sizeof(buf)),
				    machine_value(num, &rows[k], rows[k].get(&r[i]), pages));
		json_object(j, "defects");
		for (d = 0; d < ANON_NR_DEFECTS; d++)
			json_uint(j, anon_defect_names[d], r[i].defects[d]);
		json_end(j);
		/* there for every result, so that no key comes and goes */
		json_string(j, "failure", r[i].find.other ? r[i].find.first_other : NULL);
		json_string(j, "failure_at", r[i].find.other ? r[i].fail_at : NULL);
		json_end(j);
	}
	json_end(j);
}

/* ---- density sweeps ---- */

static const char *const density_cols[] = {
	"tmpfs_mib", "cache_mib", "swap_table_mib", "map_table_mib", "overhead_mib",
};

void density_csv_header(FILE *f)
{
	unsigned c;

	fputs("strategy,instances", f);
	for (c = 0; c < CAT_NR; c++)
		fprintf(f, ",%s", density_cols[c]);
	fputs(",total_mib,peak_total_mib,swap_used_mib,swap_out_pages,"
	      "first_swap_out_s,host_mem_mib,density\n", f);
}

void density_csv(FILE *f, const char *label, const struct density_point *pt,
		 unsigned filled, unsigned density, uint64_t host_mem)
{
	char b[OUT_NUM_MAX];
	unsigned i;
	int c;

	for (i = 0; i < filled; i++) {
		const struct density_point *p = &pt[i];

		csv_field(f, true, label);
		fprintf(f, ",%u", p->n);
		for (c = 0; c < CAT_NR; c++)
			csv_field(f, false, fmt_mib(b, p->demand.final[c]));
		csv_field(f, false, fmt_mib(b, p->demand.final_total));
		csv_field(f, false, fmt_mib(b, p->demand.peak_total));
		csv_field(f, false, fmt_mib(b, p->limited.swap_peak));
		fprintf(f, ",%" PRIu64, p->limited.swap_outs);
		csv_field(f, false, fmt_seconds(b, p->limited.first_swap_out_us));
		csv_field(f, false, fmt_bytes_mib(b, host_mem));
		fputc(',', f);
		if (host_mem)
			fprintf(f, "%u", density);
		fputc('\n', f);
	}
}

void density_json(struct json *j, const char *label, const struct density_point *pt,
		  unsigned filled, unsigned density, uint64_t host_mem)
{
	char b[OUT_NUM_MAX];
	unsigned i;
	int c;

	json_object(j, NULL);
	json_string(j, "strategy", label);
	if (host_mem)
		json_uint(j, "density", density);
	else
		json_null(j, "density");
	json_uint(j, "tried", filled);
	json_array(j, "points");
	for (i = 0; i < filled; i++) {
		const struct density_point *p = &pt[i];

		json_object(j, NULL);
		json_uint(j, "instances", p->n);
		for (c = 0; c < CAT_NR; c++)
			json_number(j, density_cols[c], fmt_mib(b, p->demand.final[c]));
		json_number(j, "total_mib", fmt_mib(b, p->demand.final_total));
		json_number(j, "peak_total_mib", fmt_mib(b, p->demand.peak_total));
		json_number(j, "swap_used_mib", fmt_mib(b, p->limited.swap_peak));
		json_uint(j, "swap_out_pages", p->limited.swap_outs);
		json_number(j, "first_swap_out_s", fmt_seconds(b, p->limited.first_swap_out_us));
		json_bool(j, "fits", density_fits(p));
		json_end(j);
	}
	json_end(j);
	json_end(j);
}
