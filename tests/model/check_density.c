/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_density.c - density sweeps of tests/model/replay/density.trace, each
 * value worked out in the comment at the top of that trace.
 */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "model/density.h"
#include "strategy/registry.h"
#include "util/util.h"

#define HOST_PAGES 64
#define MAX_N 32

static struct replay_opts opts;
static struct density_point pt[MAX_N];
static unsigned filled, density;

static void opts_reset(void)
{
	opts = (struct replay_opts){
		.host_mem = HOST_PAGES * 4096, .swap = 1ULL << 30,
		.policy = RECLAIM_24, .readahead_kb = -1, .copies = 1,
		.stagger_us = -1, .share = true, .check = true,
		.geom = &shmem_geom_x86_64,
	};
}

static void sweep(const char *strategy, unsigned jobs)
{
	static char path[4096];
	char *paths[1] = { path };
	const char *top = getenv("top_srcdir");
	char err[512];
	unsigned i;
	int rc;

	snprintf(path, sizeof(path), "%s/tests/model/replay/density.trace", top ? top : ".");
	rc = density_sweep(paths, 1, strategy_find(strategy), ANON_FIXED, &opts,
			   MAX_N, jobs, pt, &filled, &density, err, sizeof(err));
	ck_assert_msg(rc == 0, "density sweep failed: %s", err);
	for (i = 0; i < filled; i++) {
		ck_assert_uint_eq(pt[i].n, i + 1);
		ck_assert_msg(!replay_failed(&pt[i].demand) && !replay_failed(&pt[i].limited),
			      "%s N=%u: simulator failure", strategy, i + 1);
	}
}

/* demand of N instances: tmpfs and cache pages per instance, plus shared cache */
static void assert_demand(unsigned tmpfs_per, unsigned cache_per, unsigned cache_shared)
{
	unsigned i;

	for (i = 0; i < filled; i++) {
		unsigned n = i + 1, total = (tmpfs_per + cache_per) * n + cache_shared;

		ck_assert_uint_eq(pt[i].demand.final[CAT_TMPFS], tmpfs_per * n);
		ck_assert_uint_eq(pt[i].demand.final[CAT_CACHE], cache_per * n + cache_shared);
		ck_assert_uint_eq(pt[i].demand.final[CAT_SWAP_TABLE], 0);
		ck_assert_uint_eq(pt[i].demand.final[CAT_MAP_TABLE], 0);
		ck_assert_uint_eq(pt[i].demand.final[CAT_OVERHEAD], 0);
		ck_assert_uint_eq(pt[i].demand.final_total, total);
		ck_assert_uint_eq(pt[i].demand.peak_total, total);
		ck_assert_uint_eq(pt[i].demand.swap_outs, 0);
		ck_assert_uint_eq(pt[i].demand.instances, n);
	}
}

/* shared image: every page too many is swapped out */
static void assert_swap_outs_shared(unsigned per, unsigned shared)
{
	unsigned i;

	for (i = 0; i < filled; i++) {
		unsigned need = per * (i + 1) + shared;
		unsigned over = need > HOST_PAGES ? need - HOST_PAGES : 0;

		ck_assert_uint_eq(pt[i].limited.swap_outs, over);
		ck_assert_uint_eq(pt[i].limited.swap_peak, over);
		ck_assert_int_eq(pt[i].limited.first_swap_out_us < 0, over == 0);
	}
}

START_TEST(shared_read_copy)
{
	sweep("read-copy", 1);
	assert_demand(6, 0, 4);
	assert_swap_outs_shared(6, 4);
	ck_assert_uint_eq(density, 10);		/* (64 - 4) / 6 */
	ck_assert_uint_eq(filled, 12);
	ck_assert_uint_eq(pt[10].limited.swap_outs, 6);	/* 70 - 64 */
}
END_TEST

START_TEST(shared_devanon)
{
	sweep("devanon", 1);
	assert_demand(2, 0, 4);
	assert_swap_outs_shared(2, 4);
	ck_assert_uint_eq(density, 30);		/* (64 - 4) / 2 */
	ck_assert_uint_eq(filled, 32);
	ck_assert_uint_eq(pt[31].limited.swap_outs, 4);	/* 68 - 64 */
}
END_TEST

START_TEST(shared_punch_and_odirect)
{
	sweep("punch", 1);
	assert_demand(2, 0, 4);
	ck_assert_uint_eq(density, 30);
	sweep("odirect", 1);
	assert_demand(6, 0, 0);
	assert_swap_outs_shared(6, 0);
	ck_assert_uint_eq(density, 10);		/* 64 / 6 */
	ck_assert_uint_eq(filled, 12);
}
END_TEST

/* swap-outs of N = 1 .. filled */
static void assert_swap_outs(const unsigned *want)
{
	unsigned i;

	for (i = 0; i < filled; i++)
		ck_assert_msg(pt[i].limited.swap_outs == want[i],
			      "N=%u: %llu swap-outs, expected %u", i + 1,
			      (unsigned long long)pt[i].limited.swap_outs, want[i]);
}

START_TEST(private_images)
{
	static const unsigned rc_outs[8] = { 0, 0, 0, 0, 0, 0, 2, 8 };
	static const unsigned da_outs[13] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4 };

	opts.share = false;
	sweep("read-copy", 1);
	assert_demand(6, 4, 0);
	ck_assert_uint_eq(density, 6);
	ck_assert_uint_eq(filled, 8);
	assert_swap_outs(rc_outs);

	sweep("devanon", 1);
	assert_demand(2, 4, 0);
	ck_assert_uint_eq(density, 11);		/* not 64 / 6 = 10 */
	ck_assert_uint_eq(filled, 13);
	assert_swap_outs(da_outs);
}
END_TEST

/* no host memory: every N fits and the limited run is the demand run */
START_TEST(unlimited_memory)
{
	unsigned i;

	opts.host_mem = 0;
	sweep("read-copy", 1);
	ck_assert_uint_eq(filled, MAX_N);
	ck_assert_uint_eq(density, MAX_N);
	for (i = 0; i < filled; i++) {
		ck_assert_uint_eq(pt[i].limited.final_total, 6 * (i + 1) + 4);
		ck_assert_uint_eq(pt[i].demand.final_total, 6 * (i + 1) + 4);
	}
}
END_TEST

/* threads hand out N in order and end the sweep where one thread would */
START_TEST(jobs_do_not_change_the_result)
{
	static struct density_point serial[MAX_N];
	static const char *const names[] = { "read-copy", "devanon" };
	unsigned k, i, f1, d1;

	opts.share = false;
	for (k = 0; k < 2; k++) {
		sweep(names[k], 1);
		memcpy(serial, pt, sizeof(pt));
		f1 = filled;
		d1 = density;
		sweep(names[k], 4);
		/* the demand replay's process is reaped: no child is left */
		errno = 0;
		ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
		ck_assert_int_eq(errno, ECHILD);
		ck_assert_uint_eq(filled, f1);
		ck_assert_uint_eq(density, d1);
		for (i = 0; i < filled; i++) {
			ck_assert_uint_eq(pt[i].demand.final_total, serial[i].demand.final_total);
			ck_assert_uint_eq(pt[i].limited.swap_outs, serial[i].limited.swap_outs);
			ck_assert_uint_eq(pt[i].limited.final_total, serial[i].limited.final_total);
			ck_assert_int_eq(pt[i].limited.first_swap_out_us,
					 serial[i].limited.first_swap_out_us);
		}
	}
}
END_TEST

/* Every sweep of @path (--check off and on, one thread and two) fails
 * with exit 2 and the message "@path@suffix". */
static void sweep_fails_with(char *path, const char *suffix)
{
	char *paths[1] = { path }, err[512];
	unsigned jobs;
	int check;

	for (check = 0; check < 2; check++)
		for (jobs = 1; jobs <= 2; jobs++) {
			opts.check = check;
			err[0] = '\0';
			ck_assert_int_eq(density_sweep(paths, 1, strategy_find("read-copy"),
						       ANON_FIXED, &opts, MAX_N, jobs, pt,
						       &filled, &density, err, sizeof(err)),
					 EXIT_DATA);
			ck_assert_int_eq(strncmp(err, path, strlen(path)), 0);
			ck_assert_str_eq(err + strlen(path), suffix);
		}
}

/*
 * A trace that cannot be opened: the sweep's first failing replay gives
 * its status and message, by one replay after another (prefix sweep:
 * --check off), on one thread or two, and from the pool (--check on).
 */
START_TEST(missing_trace_fails_the_sweep)
{
	char path[] = "no-such-dir/missing.trace";

	sweep_fails_with(path, ": No such file or directory");
}
END_TEST

/*
 * Bad data in the trace's fourth event (time-backwards.trace, line 9):
 * every replay of the sweep meets it in its first instance, read from the
 * trace decoded once for all copies; the sweep fails with the reader's
 * message, whether the demand replay runs beside the limited one or after.
 */
START_TEST(bad_data_fails_the_sweep)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/trace/traces/corrupt/time-backwards.trace",
		 top ? top : ".");
	sweep_fails_with(path, ":9: time 19 goes backwards (previous event at 20)");
}
END_TEST

START_TEST(prefix_sweep_gives_every_point)
{
	static struct density_point per_n[MAX_N];
	static const char *const names[] = { "read-copy", "devanon", "punch" };
	unsigned k, i, j, c, f1, d1;

	for (k = 0; k < 3; k++) {
		opts.check = true;
		sweep(names[k], 1);
		memcpy(per_n, pt, sizeof(pt));
		f1 = filled;
		d1 = density;
		ck_assert_uint_gt(f1, d1);	/* the sweep ended on its rule, not at MAX_N */
		opts.check = false;
		for (j = 1; j <= 2; j++) {
			sweep(names[k], j);
			ck_assert_uint_eq(filled, f1);
			ck_assert_uint_eq(density, d1);
			for (i = 0; i < filled; i++) {
				const struct replay_result *a = &pt[i].demand, *b = &per_n[i].demand;
				const struct replay_result *la = &pt[i].limited, *lb = &per_n[i].limited;

				for (c = 0; c < CAT_NR; c++) {
					ck_assert_uint_eq(a->final[c], b->final[c]);
					ck_assert_uint_eq(la->final[c], lb->final[c]);
				}
				ck_assert_uint_eq(a->peak_total, b->peak_total);
				ck_assert_uint_eq(a->events, b->events);
				ck_assert_uint_eq(a->instances, b->instances);
				ck_assert_uint_eq(la->swap_outs, lb->swap_outs);
				ck_assert_uint_eq(la->swap_peak, lb->swap_peak);
				ck_assert_uint_eq(la->calls.read, lb->calls.read);
				ck_assert_int_eq(la->first_swap_out_us, lb->first_swap_out_us);
				ck_assert_uint_eq(la->end_us, lb->end_us);
			}
		}
	}
}
END_TEST

/*
 * Bisection (--stagger, --check): the density of the sweep of every N
 * from a few replays, each point equal to the full sweep's of that N.
 */
static unsigned order[MAX_N];

static void bisect(const char *strategy, unsigned jobs)
{
	static char path[4096];
	char *paths[1] = { path };
	const char *top = getenv("top_srcdir");
	char err[512];
	int rc;

	snprintf(path, sizeof(path), "%s/tests/model/replay/density.trace", top ? top : ".");
	rc = density_bisect(paths, 1, strategy_find(strategy), ANON_FIXED, &opts,
			    MAX_N, jobs, pt, &filled, &density, order, err, sizeof(err));
	ck_assert_msg(rc == 0, "bisection failed: %s", err);
}

START_TEST(bisection_order)
{
	/* shared read-copy fits up to 10 (test shared_read_copy) */
	static const unsigned want[8] = { 1, 2, 4, 8, 16, 12, 10, 11 };
	static const unsigned rows[8] = { 1, 2, 4, 8, 10, 11, 12, 16 };
	unsigned i;

	bisect("read-copy", 1);
	ck_assert_uint_eq(density, 10);
	ck_assert_uint_eq(filled, 8);
	for (i = 0; i < 8; i++) {
		ck_assert_uint_eq(order[i], want[i]);
		ck_assert_uint_eq(pt[i].n, rows[i]);
		ck_assert_uint_eq(pt[i].demand.final_total, 6 * rows[i] + 4);
		ck_assert_uint_eq(pt[i].limited.swap_outs,
				  6 * rows[i] + 4 > HOST_PAGES ? 6 * rows[i] + 4 - HOST_PAGES : 0);
	}
	/* everything fits: one point per power of two, then the last */
	opts.host_mem = 1 << 20;
	bisect("read-copy", 2);
	ck_assert_uint_eq(density, MAX_N);
	ck_assert_uint_eq(filled, 6);
	ck_assert_uint_eq(order[5], 32);
	/* nothing fits: N = 1 and 2, as the sweep of every N */
	opts.host_mem = 4 * 4096;
	bisect("read-copy", 1);
	ck_assert_uint_eq(density, 0);
	ck_assert_uint_eq(filled, 2);
	ck_assert_uint_eq(order[0], 1);
	ck_assert_uint_eq(order[1], 2);
}
END_TEST

START_TEST(bisection_equals_every_n)
{
	static struct density_point every[MAX_N];
	static const char *const names[] = { "read-copy", "devanon", "punch", "odirect" };
	unsigned k, m, i, c, f1, d1;

	for (m = 0; m < 4; m++)
		for (k = 0; k < 4; k++) {
			opts_reset();
			opts.share = m % 2;
			if (m >= 2) {	/* staggered, 30 ms apart, with no --check */
				opts.check = false;
				opts.stagger_us = 30000;
			}
			sweep(names[k], 2);
			memcpy(every, pt, sizeof(pt));
			f1 = filled;
			d1 = density;
			bisect(names[k], 1 + k % 2);
			ck_assert_msg(density == d1, "%s, mode %u: density %u, every N: %u",
				      names[k], m, density, d1);
			ck_assert_uint_le(filled, 2 * 6 + 2);	/* log2(32) + 1 twice, and 2 */
			for (i = 0; i < filled; i++) {
				const struct density_point *a = &pt[i], *b = &every[pt[i].n - 1];

				if (pt[i].n > f1)	/* past where the sweep ended */
					continue;
				for (c = 0; c < CAT_NR; c++) {
					ck_assert_uint_eq(a->demand.final[c], b->demand.final[c]);
					ck_assert_uint_eq(a->limited.final[c], b->limited.final[c]);
				}
				ck_assert_uint_eq(a->demand.peak_total, b->demand.peak_total);
				ck_assert_uint_eq(a->limited.swap_outs, b->limited.swap_outs);
				ck_assert_uint_eq(a->limited.swap_peak, b->limited.swap_peak);
				ck_assert_int_eq(a->limited.first_swap_out_us,
						 b->limited.first_swap_out_us);
				ck_assert_uint_eq(a->limited.end_us, b->limited.end_us);
			}
			/* the boundary and the N past it were replayed */
			for (i = 0; i < filled && pt[i].n != d1 + 1; i++)
				;
			ck_assert_msg(d1 == MAX_N || i < filled, "%s: N = %u not replayed",
				      names[k], d1 + 1);
		}
}
END_TEST

static Suite *density_suite(void)
{
	Suite *s = suite_create("density");
	TCase *tc = tcase_create("density.trace");

	/* sweeps replay many instances: slow under sanitizers on a busy machine */
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, opts_reset, NULL);
	tcase_add_test(tc, shared_read_copy);
	tcase_add_test(tc, shared_devanon);
	tcase_add_test(tc, shared_punch_and_odirect);
	tcase_add_test(tc, private_images);
	tcase_add_test(tc, unlimited_memory);
	tcase_add_test(tc, jobs_do_not_change_the_result);
	tcase_add_test(tc, prefix_sweep_gives_every_point);
	tcase_add_test(tc, bisection_order);
	tcase_add_test(tc, bisection_equals_every_n);
	tcase_add_test(tc, missing_trace_fails_the_sweep);
	tcase_add_test(tc, bad_data_fails_the_sweep);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(density_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
