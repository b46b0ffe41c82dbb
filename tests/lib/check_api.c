/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_api.c - libanonsim through its public header alone: the figures of
 * tests/model/replay/density.trace (worked out in the comment at its top)
 * on a host of 64 pages with 2.4 reclaim, and every refusal with its
 * status and exact message.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <anonsim/anonsim.h>

#define PAGE 4096u

static anonsim_sim *sim;
static char trace[4096];

/* @rel under the source tree */
static const char *src_path(const char *rel)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/%s", top ? top : ".", rel);
	return path;
}

static void sim_setup(void)
{
	sim = anonsim_new();
	ck_assert_ptr_nonnull(sim);
	snprintf(trace, sizeof(trace), "%s", src_path("tests/model/replay/density.trace"));
}

static void sim_teardown(void)
{
	anonsim_free(sim);
}

/* density.trace on 64 pages, 2.4 reclaim */
static void sim_density_host(void)
{
	ck_assert_int_eq(anonsim_open_trace(sim, trace), ANONSIM_OK);
	ck_assert_int_eq(anonsim_set_host_mem(sim, 64 * PAGE), ANONSIM_OK);
	ck_assert_int_eq(anonsim_set_policy(sim, "2.4"), ANONSIM_OK);
}

static uint64_t figure(unsigned i, enum anonsim_figure f)
{
	uint64_t v = 0;

	ck_assert_msg(anonsim_result(sim, i, f, &v) == ANONSIM_OK, "run %u figure %d: %s",
		      i, (int)f, anonsim_error(sim));
	return v;
}

static const char *const labels[] = {
	"read-copy", "devanon/fixed", "devanon/posted", "punch", "free-hint", "odirect", "dax",
};

START_TEST(version_and_registry)
{
	ck_assert_str_eq(anonsim_version(), PACKAGE_VERSION);
	ck_assert_str_eq(anonsim_strategy_name(0), "read-copy");
	ck_assert_str_eq(anonsim_strategy_name(4), "odirect");
	ck_assert_str_eq(anonsim_strategy_name(5), "dax");
	ck_assert_ptr_null(anonsim_strategy_name(6));
	ck_assert_uint_eq(anonsim_result_count(sim), 0);
	ck_assert_str_eq(anonsim_error(sim), "");
	anonsim_free(NULL);
}
END_TEST

/* per instance: read-copy and free-hint 6 tmpfs pages, devanon and punch 2
 * (the 4 read are mapped over), odirect 6 and no cache, dax 2 (the 4 read
 * fill no guest page); 4 cache pages, but dax's fault on page 0 reads the
 * two PMD folios from page 0, the image's 16 pages */
START_TEST(replay_every_strategy)
{
	static const uint64_t tmpfs[] = { 6, 2, 2, 2, 6, 6, 2 }, cache[] = { 4, 4, 4, 4, 4, 0, 16 };
	unsigned i;

	sim_density_host();
	ck_assert_int_eq(anonsim_replay(sim, "all"), ANONSIM_OK);
	ck_assert_uint_eq(anonsim_result_count(sim), 7);
	for (i = 0; i < 7; i++) {
		ck_assert_str_eq(anonsim_result_label(sim, i), labels[i]);
		ck_assert_uint_eq(figure(i, ANONSIM_FINAL_TMPFS), tmpfs[i] * PAGE);
		ck_assert_uint_eq(figure(i, ANONSIM_FINAL_PAGE_CACHE), cache[i] * PAGE);
		ck_assert_uint_eq(figure(i, ANONSIM_FINAL_MAP_TABLES), 0);
		ck_assert_uint_eq(figure(i, ANONSIM_FINAL_TOTAL), (tmpfs[i] + cache[i]) * PAGE);
		ck_assert_uint_eq(figure(i, ANONSIM_PEAK_TOTAL), (tmpfs[i] + cache[i]) * PAGE);
		ck_assert_uint_eq(figure(i, ANONSIM_SWAP_OUTS), 0);
		ck_assert_uint_eq(figure(i, ANONSIM_INSTANCES), 1);
	}
	ck_assert_ptr_null(anonsim_result_label(sim, 7));
}
END_TEST

/* a list runs its strategies in its order; a name twice is refused */
START_TEST(replay_strategy_list)
{
	sim_density_host();
	ck_assert_int_eq(anonsim_replay(sim, "odirect,punch"), ANONSIM_OK);
	ck_assert_uint_eq(anonsim_result_count(sim), 2);
	ck_assert_str_eq(anonsim_result_label(sim, 0), "odirect");
	ck_assert_uint_eq(figure(0, ANONSIM_FINAL_TOTAL), 6 * PAGE);
	ck_assert_str_eq(anonsim_result_label(sim, 1), "punch");
	ck_assert_uint_eq(figure(1, ANONSIM_FINAL_TOTAL), 6 * PAGE);
	ck_assert_int_eq(anonsim_replay(sim, "punch,all"), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_replay: 'punch,all': punch named twice");
	ck_assert_int_eq(anonsim_replay(sim, "punch,swap"), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_replay: 'swap': expected one of "
			 "read-copy, devanon, punch, free-hint, odirect, dax, writeback, writethrough, unsafe, none, directsync, or all");
}
END_TEST

/* 10 read-copy instances: 6 * 10 + 4 = 64 pages, the whole host */
START_TEST(replay_instances)
{
	sim_density_host();
	ck_assert_int_eq(anonsim_set_instances(sim, 10), ANONSIM_OK);
	ck_assert_int_eq(anonsim_replay(sim, "read-copy"), ANONSIM_OK);
	ck_assert_uint_eq(anonsim_result_count(sim), 1);
	ck_assert_uint_eq(figure(0, ANONSIM_FINAL_TOTAL), 64 * PAGE);
	ck_assert_uint_eq(figure(0, ANONSIM_SWAP_OUTS), 0);
	ck_assert_uint_eq(figure(0, ANONSIM_INSTANCES), 10);
	/* one more swaps: 70 pages demanded, the 6 too many swapped out */
	ck_assert_int_eq(anonsim_set_instances(sim, 11), ANONSIM_OK);
	ck_assert_int_eq(anonsim_replay(sim, "read-copy"), ANONSIM_OK);
	ck_assert_uint_eq(figure(0, ANONSIM_SWAP_OUTS), 6);
	ck_assert_uint_eq(figure(0, ANONSIM_FINAL_SWAP_USED), 6 * PAGE);
}
END_TEST

/* shared image: read-copy (64-4)/6 = 10, devanon and dax (64-4)/2 = 30,
 * odirect 64/6 = 10; the figures those many leave fill the host to 64
 * pages (10 odirect instances: 60).  dax: the 12 image pages its fault
 * read beyond the 4 every instance uses are the oldest, dropped clean
 * from N = 25 (2N + 16 > 64) to N = 30 */
START_TEST(density_every_strategy)
{
	static const uint64_t density[] = { 10, 30, 30, 30, 10, 10, 30 };
	static const uint64_t total[] = { 64, 64, 64, 64, 64, 60, 64 };
	unsigned i;

	sim_density_host();
	ck_assert_int_eq(anonsim_density(sim, "all", 32), ANONSIM_OK);
	ck_assert_uint_eq(anonsim_result_count(sim), 7);
	for (i = 0; i < 7; i++) {
		ck_assert_str_eq(anonsim_result_label(sim, i), labels[i]);
		ck_assert_uint_eq(figure(i, ANONSIM_DENSITY), density[i]);
		ck_assert_uint_eq(figure(i, ANONSIM_INSTANCES), density[i]);
		ck_assert_uint_eq(figure(i, ANONSIM_FINAL_TOTAL), total[i] * PAGE);
	}
	/* a replay after it has no density */
	ck_assert_int_eq(anonsim_replay(sim, "punch"), ANONSIM_OK);
	ck_assert_uint_eq(anonsim_result_count(sim), 1);
	{
		uint64_t v;

		ck_assert_int_eq(anonsim_result(sim, 0, ANONSIM_DENSITY, &v), ANONSIM_EINVAL);
		ck_assert_str_eq(anonsim_error(sim), "anonsim_result: run 0 has no figure 15 "
				 "(ANONSIM_DENSITY: after anonsim_density only)");
	}
}
END_TEST

START_TEST(bad_settings)
{
	ck_assert_int_eq(anonsim_set_host_mem(sim, 4095), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_set_host_mem: 4095 bytes: "
			 "expected 0 (unlimited) or at least 4096");
	ck_assert_int_eq(anonsim_set_host_mem(sim, 0), ANONSIM_OK);
	ck_assert_str_eq(anonsim_error(sim), "");
	ck_assert_int_eq(anonsim_set_swap(sim, (1ULL << 40) + 1), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_set_swap: 1099511627777 bytes: "
			 "expected at most 1099511627776 (1 TiB)");
	ck_assert_int_eq(anonsim_set_swap(sim, 1ULL << 40), ANONSIM_OK);
	ck_assert_int_eq(anonsim_set_policy(sim, "2.6"), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_set_policy: '2.6': expected modern or 2.4");
	ck_assert_int_eq(anonsim_set_instances(sim, 0), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim),
			 "anonsim_set_instances: 0: expected a number from 1 to 4096");
	ck_assert_int_eq(anonsim_set_instances(sim, 4097), ANONSIM_EINVAL);
	ck_assert_int_eq(anonsim_set_instances(sim, 4096), ANONSIM_OK);
}
END_TEST

START_TEST(runs_out_of_order)
{
	uint64_t v;

	ck_assert_int_eq(anonsim_replay(sim, "all"), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_replay: no trace opened (anonsim_open_trace)");
	ck_assert_int_eq(anonsim_result(sim, 0, ANONSIM_FINAL_TOTAL, &v), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_result: no run 0 (0 runs)");
	ck_assert_int_eq(anonsim_open_trace(sim, trace), ANONSIM_OK);
	ck_assert_int_eq(anonsim_replay(sim, "devanon-2"), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_replay: 'devanon-2': expected one of "
			 "read-copy, devanon, punch, free-hint, odirect, dax, writeback, writethrough, unsafe, none, directsync, or all");
	ck_assert_int_eq(anonsim_density(sim, "all", 32), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_density: the host memory is unlimited "
			 "(anonsim_set_host_mem)");
	ck_assert_int_eq(anonsim_set_host_mem(sim, 64 * PAGE), ANONSIM_OK);
	ck_assert_int_eq(anonsim_density(sim, "all", 4097), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_density: 4097: expected a number from 1 to 4096");
	ck_assert_int_eq(anonsim_replay(sim, "odirect"), ANONSIM_OK);
	ck_assert_int_eq(anonsim_result(sim, 1, ANONSIM_FINAL_TOTAL, &v), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_result: no run 1 (1 run)");
	ck_assert_int_eq(anonsim_result(sim, 0, (enum anonsim_figure)99, &v), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim), "anonsim_result: run 0 has no figure 99");
	ck_assert_int_eq(anonsim_result(sim, 0, (enum anonsim_figure)-1, &v), ANONSIM_EINVAL);
}
END_TEST

START_TEST(bad_traces)
{
	char want[4200];
	const char *path;

	ck_assert_int_eq(anonsim_open_trace(sim, "-"), ANONSIM_EINVAL);
	ck_assert_str_eq(anonsim_error(sim),
			 "anonsim_open_trace: '-': expected the name of a trace file");
	ck_assert_int_eq(anonsim_open_trace(sim, ""), ANONSIM_EINVAL);
	path = src_path("tests/lib/no-such.trace");
	ck_assert_int_eq(anonsim_open_trace(sim, path), ANONSIM_EDATA);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	ck_assert_str_eq(anonsim_error(sim), want);
	/* a bad header: refused when opened, with the line */
	path = src_path("tests/trace/traces/corrupt/missing-device.trace");
	ck_assert_int_eq(anonsim_open_trace(sim, path), ANONSIM_EDATA);
	snprintf(want, sizeof(want), "%s:4: missing required header field 'device'", path);
	ck_assert_str_eq(anonsim_error(sim), want);
	/* a bad event: refused by the replay, with the line; no results */
	path = src_path("tests/trace/traces/corrupt/bad-number.trace");
	ck_assert_int_eq(anonsim_open_trace(sim, path), ANONSIM_OK);
	ck_assert_int_eq(anonsim_replay(sim, "all"), ANONSIM_EDATA);
	snprintf(want, sizeof(want), "%s:8: touch: PAGE '7x' is not a number", path);
	ck_assert_str_eq(anonsim_error(sim), want);
	ck_assert_uint_eq(anonsim_result_count(sim), 0);
}
END_TEST

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("anonsim.h");

	/* density sweeps: slow under sanitizers on a busy machine */
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, sim_setup, sim_teardown);
	tcase_add_test(tc, version_and_registry);
	tcase_add_test(tc, replay_every_strategy);
	tcase_add_test(tc, replay_strategy_list);
	tcase_add_test(tc, replay_instances);
	tcase_add_test(tc, density_every_strategy);
	tcase_add_test(tc, bad_settings);
	tcase_add_test(tc, runs_out_of_order);
	tcase_add_test(tc, bad_traces);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(api_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
