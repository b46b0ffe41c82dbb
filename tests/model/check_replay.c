/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_replay.c - replay of the hand-made traces in tests/model/replay/, each
 * expected value worked out in the comment at the top of its trace.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/chunked.h"
#include "model/instance.h"
#include "model/pagecache.h"
#include "model/replay.h"
#include "model/sparse.h"
#include "model/span_tree.h"
#include "strategy/registry.h"
#include "util/util.h"

static struct replay_opts opts;

static void opts_reset(void)
{
	opts = (struct replay_opts){
		.swap = 1ULL << 30, .policy = RECLAIM_MODERN, .readahead_kb = -1,
		.copies = 1, .stagger_us = -1, .share = true, .check = true,
		.recount_every = 1,	/* every page recounted after every event */
		.geom = &shmem_geom_x86_64,
	};
}

static struct replay_result run(const char *trace, const char *strategy,
				enum anon_variant v)
{
	static char path[4096];
	char *paths[1] = { path };
	const char *top = getenv("top_srcdir");
	struct replay_result r;
	char err[512];
	int rc;

	snprintf(path, sizeof(path), "%s/tests/model/replay/%s", top ? top : ".", trace);
	rc = replay_run(paths, 1, strategy_find(strategy), v, &opts, &r, err, sizeof(err));
	ck_assert_msg(rc == 0, "replay of %s failed: %s", trace, err);
	ck_assert_msg(!replay_failed(&r), "%s %s: %s", trace, r.label, r.find.first_other);
	return r;
}

#define ASSERT_MEM(r, tmpfs, cache, maptables)				\
	do {								\
		ck_assert_uint_eq((r).final[CAT_TMPFS], (tmpfs));	\
		ck_assert_uint_eq((r).final[CAT_CACHE], (cache));	\
		ck_assert_uint_eq((r).final[CAT_MAP_TABLE], (maptables)); \
	} while (0)

/* Swap at the end, pages swapped out and in, and nothing beyond memory. */
#define ASSERT_SWAP(r, final, outs, ins)				\
	do {								\
		ck_assert_uint_eq((r).swap_final, (final));		\
		ck_assert_uint_eq((r).swap_outs, (outs));		\
		ck_assert_uint_eq((r).swap_ins, (ins));			\
		ck_assert_uint_eq((r).oom_pages, 0);			\
	} while (0)

START_TEST(basic_per_strategy)
{
	struct replay_result r;

	r = run("basic.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 5, 3, 0);
	ck_assert_uint_eq(r.calls.read, 1);
	ck_assert_uint_eq(r.calls.mmap + r.calls.munmap + r.calls.punch, 0);

	r = run("basic.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 2, 3, 2);
	ck_assert_uint_eq(r.calls.munmap, 1);
	ck_assert_uint_eq(r.calls.mmap, 2);
	ck_assert_uint_eq(r.find.tables_leaked, 0);

	r = run("basic.trace", "punch", ANON_FIXED);
	ASSERT_MEM(r, 2, 3, 0);
	ck_assert_uint_eq(r.calls.mmap, 2);
	ck_assert_uint_eq(r.calls.punch, 1);

	r = run("basic.trace", "free-hint", ANON_FIXED);
	ASSERT_MEM(r, 4, 3, 0);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 5);
	ck_assert_uint_eq(r.calls.punch, 1);

	r = run("basic.trace", "odirect", ANON_FIXED);
	ASSERT_MEM(r, 5, 0, 0);
	ck_assert_uint_eq(r.reads.demand, 3);
}
END_TEST

START_TEST(shared_backing)
{
	struct replay_result r;

	opts.copies = 2;
	r = run("shared.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 2, 1, 0);
	ck_assert_uint_eq(r.final_total, 3);
	r = run("shared.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 0, 1, 0);
	opts.share = false;
	r = run("shared.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 2, 2, 0);
	ck_assert_uint_eq(r.final_total, 4);
	r = run("shared.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 0, 2, 0);
}
END_TEST

/*
 * Three copies of basic.trace 15 us apart: instance k's events fall at
 * 15k + 0, 10, 20, 30, so all three run at once from 30 us on and the
 * merge interleaves them.  Each instance holds what one alone does (read-
 * copy: 5 tmpfs pages; devanon: 2, and 2 map-table pages of its own file);
 * the one shared image's 3 pages are in the page cache once.  The last
 * event is instance 2's at 30 + 30 us.  The trace is opened once for all
 * three (the reader of its header), and so it is when they run 40 us
 * apart, each alone, or one after another: it is decoded once.
 */
START_TEST(staggered_instances)
{
	struct replay_result r;

	opts.copies = 3;
	opts.stagger_us = 15;
	r = run("basic.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 3 * 5, 3, 0);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 3 * 5);
	ck_assert_uint_eq(r.calls.read, 3);
	ck_assert_uint_eq(r.events, 3 * 4);
	ck_assert_uint_eq(r.end_us, 2 * 15 + 30);
	ck_assert_uint_eq(r.instances, 3);
	ck_assert_uint_eq(r.readers, 1);
	r = run("basic.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 3 * 2, 3, 3 * 2);
	ck_assert_uint_eq(r.calls.mmap, 3 * 2);
	ck_assert_uint_eq(r.calls.munmap, 3);
	ck_assert_uint_eq(r.end_us, 2 * 15 + 30);
	ck_assert_uint_eq(r.readers, 1);
	opts.stagger_us = 40;
	r = run("basic.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 3 * 2, 3, 3 * 2);
	ck_assert_uint_eq(r.end_us, 2 * 40 + 30);
	ck_assert_uint_eq(r.readers, 1);
	opts.stagger_us = -1;
	r = run("basic.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 3 * 2, 3, 3 * 2);
	ck_assert_uint_eq(r.end_us, 3 * 30);
	ck_assert_uint_eq(r.readers, 1);
}
END_TEST

/* shared-bigger.trace: the shared image at another size is refused. */
START_TEST(shared_backing_other_size)
{
	static char a[4096], b[4096];
	char *paths[2] = { a, b }, err[512];
	const char *top = getenv("top_srcdir");
	struct replay_result r;

	snprintf(a, sizeof(a), "%s/tests/model/replay/shared.trace", top ? top : ".");
	snprintf(b, sizeof(b), "%s/tests/model/replay/shared-bigger.trace", top ? top : ".");
	ck_assert_int_eq(replay_run(paths, 2, strategy_find("read-copy"), ANON_FIXED,
				    &opts, &r, err, sizeof(err)), EXIT_DATA);
	ck_assert_str_eq(err + strlen(b), ": device ubda: backing 'shared-image' is shared with a smaller device");
	ck_assert_int_eq(strncmp(err, b, strlen(b)), 0);
	/* without sharing, each has a page cache of its own */
	opts.share = false;
	ck_assert_int_eq(replay_run(paths, 2, strategy_find("read-copy"), ANON_FIXED,
				    &opts, &r, err, sizeof(err)), 0);
	ASSERT_MEM(r, 2, 2, 0);
}
END_TEST

/* oom.trace: out of swap, the host overcommits; the comment has the sums. */
START_TEST(host_out_of_memory)
{
	struct replay_result r;
	enum reclaim_policy pol[2] = { RECLAIM_MODERN, RECLAIM_24 };
	/* modern keeps the page it wrote out in the swap cache */
	uint64_t tmpfs[2] = { 5, 4 }, oom[2] = { 3, 2 };
	int i;

	opts.host_mem = 2 * 4096;
	opts.swap = 4096;
	for (i = 0; i < 2; i++) {
		opts.policy = pol[i];
		r = run("oom.trace", "read-copy", ANON_FIXED);
		ASSERT_MEM(r, tmpfs[i], 0, 0);
		ck_assert_uint_eq(r.swap_final, 1);
		ck_assert_uint_eq(r.swap_outs, 1);
		ck_assert_uint_eq(r.oom_pages, oom[i]);
	}
}
END_TEST

START_TEST(read_over_swapped_page)
{
	struct replay_result r;

	opts.host_mem = 4 * 4096;
	opts.swap = 8 * 4096;
	opts.policy = RECLAIM_24;
	r = run("swapread.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 3, 1, 0);
	ck_assert_uint_eq(r.swap_final, 2);
	ck_assert_uint_eq(r.swap_outs, 3);
	ck_assert_uint_eq(r.swap_ins, 1);
	ck_assert_int_eq(r.first_swap_out_us, 20);

	r = run("swapread.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 3, 1, 0);
	ck_assert_uint_eq(r.swap_final, 1);
	ck_assert_uint_eq(r.swap_outs, 2);
	ck_assert_uint_eq(r.swap_ins, 0);
	ck_assert_uint_eq(r.find.swap_stranded, 0);

	r = run("swapread.trace", "punch", ANON_FIXED);
	ASSERT_MEM(r, 3, 1, 0);
	ck_assert_uint_eq(r.swap_final, 1);
}
END_TEST

/*
 * A ubd read over a page that is on swap, before UML maps its memory (not
 * in tests/model/replay/, whose traces also run live, where the memory
 * file is mapped from the start): the page was never mapped, so the read
 * frees nothing, as swapread.trace's does once memory is mapped, and its
 * swap entry is no stranded one: data in the memory file that no mapping
 * ever covered, as write() leaves it.  Host 4 pages, swap 8, policy 2.4,
 * readahead off, memory 16 pages (direct entries only).
 *
 * t=10  pages 0-3 touched: tmpfs 4 = host memory.
 * t=20  page 4 touched: 5 > 4, the oldest tmpfs page (0) goes to swap.
 * t=30  read of device page 5 into page 0 (swapped), no mmap before it:
 *       the cache page makes 5 > 4: tmpfs page 1 is swapped.  Nothing of
 *       the memory file is mapped, so nothing is released and page 0 keeps
 *       its entry.  final: tmpfs 3 (2, 3, 4), cache 1, swap 2 (pages 0, 1);
 *       swap-outs 2, swap-ins 0, no stranded entry.
 */
static const char swapread_early[] =
	"anonsim-trace 1\npage-size 4096\nmemory 65536\n"
	"device ubda size=65536 backing=swap-image\nreadahead-kb 0\nevents\n"
	"10 touch 0 4\n20 touch 4 1\n30 read ubda 20480 4096 0\n";

/* Write @text to a new file named from @name under $TMPDIR, its path in @path. */
static void temp_trace(char *path, size_t len, const char *name, const char *text)
{
	const char *dir = getenv("TMPDIR");
	size_t n = strlen(text);
	int fd;

	snprintf(path, len, "%s/anonsim-%s.XXXXXX", dir ? dir : "/tmp", name);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
}

START_TEST(read_over_swapped_page_before_mmap)
{
	const char *names[] = { "devanon", "punch" };
	char path[4096];
	struct replay_result r;
	char err[512], *paths[1] = { path };
	unsigned i;

	temp_trace(path, sizeof(path), "swapread-early", swapread_early);
	opts.host_mem = 4 * 4096;
	opts.swap = 8 * 4096;
	opts.policy = RECLAIM_24;
	for (i = 0; i < 2; i++) {
		int rc = replay_run(paths, 1, strategy_find(names[i]), ANON_FIXED,
				    &opts, &r, err, sizeof(err));

		ck_assert_msg(rc == 0, "%s: %s", names[i], err);
		ck_assert_msg(!replay_failed(&r), "%s: %s", r.label, r.find.first_other);
		ASSERT_MEM(r, 3, 1, 0);
		ck_assert_uint_eq(r.swap_final, 2);
		ck_assert_uint_eq(r.swap_outs, 2);
		ck_assert_uint_eq(r.swap_ins, 0);
		ck_assert_uint_eq(r.find.swap_stranded, 0);
	}
	unlink(path);
}
END_TEST

/* posted: munmap reclaims only pages present in the page tables */
START_TEST(posted_pte_only_strands_swap)
{
	struct replay_result r;

	opts.host_mem = 4 * 4096;
	opts.swap = 8 * 4096;
	opts.policy = RECLAIM_24;
	r = run("swapread.trace", "devanon", ANON_POSTED);
	ASSERT_MEM(r, 3, 1, 0);
	ck_assert_uint_eq(r.swap_final, 2);
	ck_assert_uint_eq(r.find.swap_stranded, 1);
	ck_assert_uint_gt(r.defects[ANON_DEFECT_PTE_ONLY_RECLAIM], 0);
}
END_TEST

START_TEST(policy_24_swaps_first)
{
	struct replay_result r;

	opts.host_mem = 12 * 4096;
	opts.policy = RECLAIM_24;
	r = run("policy.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 11, 1, 0);
	ck_assert_uint_eq(r.swap_final, 4);
	ck_assert_uint_eq(r.swap_outs, 4);
	ck_assert_int_eq(r.first_swap_out_us, 30);
}
END_TEST

/* tests/model/replay/policy.trace works the figures out */
START_TEST(policy_modern_reclaims_in_clusters)
{
	struct replay_result r;

	opts.host_mem = 12 * 4096;
	opts.policy = RECLAIM_MODERN;
	r = run("policy.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 6, 0, 0);
	ck_assert_uint_eq(r.final[CAT_SWAP_TABLE], 2);
	ck_assert_uint_eq(r.swap_final, 13);
	ck_assert_uint_eq(r.swap_outs, 13);
	ck_assert_int_eq(r.first_swap_out_us, 50);
}
END_TEST

/*
 * @trace as read-copy under the modern policy, in @pages of host memory
 * and no swap: reclaim takes page cache alone.
 */
static struct replay_result run_modern_no_swap(const char *trace, uint64_t pages)
{
	opts.host_mem = pages * 4096;
	opts.swap = 0;
	opts.policy = RECLAIM_MODERN;
	return run(trace, "read-copy", ANON_FIXED);
}

/* tests/model/replay/active.trace: a page read twice is active, kept over newer ones */
START_TEST(policy_modern_keeps_active_cache)
{
	struct replay_result r;

	r = run_modern_no_swap("active.trace", 9);
	ASSERT_MEM(r, 8, 1, 0);
	ck_assert_uint_eq(r.reads.refaults, 0);
	ck_assert_uint_eq(r.oom_pages, 0);

	opts.policy = RECLAIM_24;
	r = run("active.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 8, 1, 0);
	ck_assert_uint_eq(r.reads.refaults, 1);
}
END_TEST

/* tests/model/replay/read-folios.trace: a read marks every folio it meets */
START_TEST(policy_modern_read_marks_each_folio)
{
	struct replay_result r;

	r = run_modern_no_swap("read-folios.trace", 10);
	ASSERT_MEM(r, 8, 2, 0);
	ck_assert_uint_eq(r.reads.refaults, 0);
	ck_assert_uint_eq(r.oom_pages, 0);
}
END_TEST

/* tests/model/replay/refault.trace: a refault within the workingset comes back active */
START_TEST(policy_modern_activates_recent_refaults)
{
	struct replay_result r;

	r = run_modern_no_swap("refault.trace", 9);
	ASSERT_MEM(r, 7, 2, 0);
	ck_assert_uint_eq(r.reads.refaults, 2);
	ck_assert_uint_eq(r.oom_pages, 0);
}
END_TEST

/* tests/model/replay/nofs.trace: readahead's reclaim cannot swap; the read's own can */
START_TEST(policy_modern_readahead_reclaim_cannot_swap)
{
	struct replay_result r;

	opts.host_mem = 6 * 4096;
	opts.swap = 1 << 20;
	opts.policy = RECLAIM_MODERN;
	r = run("nofs.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 1, 1, 0);
	ck_assert_uint_eq(r.reads.readahead, 0);
	ASSERT_SWAP(r, 5, 6, 1);
}
END_TEST

/*
 * The reclaim log's lines of a run of @trace in @pages of host memory
 * and @swap bytes of swap (modern), each compared with @want (the
 * columns after the strategy's label).
 */
static struct replay_result run_logged_swap(const char *trace, uint64_t pages, uint64_t swap,
					    const char *const *want, size_t nr_want)
{
	struct replay_result r;
	char line[256];
	size_t i = 0;
	FILE *log = tmpfile();

	ck_assert_ptr_nonnull(log);
	opts.host_mem = pages * 4096;
	opts.swap = swap;
	opts.policy = RECLAIM_MODERN;
	opts.reclaim_log = log;
	r = run(trace, "read-copy", ANON_FIXED);
	rewind(log);
	while (fgets(line, sizeof(line), log)) {
		const char *cols = strchr(line, ',');

		line[strcspn(line, "\n")] = '\0';
		ck_assert_ptr_nonnull(cols);
		ck_assert_uint_lt(i, nr_want);
		ck_assert_str_eq(cols + 1, want[i]);
		i++;
	}
	ck_assert_uint_eq(i, nr_want);
	fclose(log);
	opts.reclaim_log = NULL;
	return r;
}

/* run_logged_swap() with 1 MiB of swap */
static struct replay_result run_logged(const char *trace, uint64_t pages,
				       const char *const *want, size_t nr_want)
{
	return run_logged_swap(trace, pages, 1 << 20, want, nr_want);
}

/*
 * tests/model/replay/anon-active.trace: a tmpfs page used on two looks of
 * reclaim is activated, one swapped in soon after it left comes back
 * active, and a reclaim whose first walk frees nothing walks again, where
 * it waits for the writes the first began
 */
START_TEST(policy_modern_activates_anon)
{
	static const char *const reclaims[] = {
		"0.000030,full,1,0,2,5,0,0,2,0,5,0,0,0",
		"0.000050,full,1,0,4,13,6,4,0,0,3,0,0,1",
		"0.000070,full,1,0,4,10,3,4,0,0,3,0,0,2",
	};
	struct replay_result r;

	r = run_logged("anon-active.trace", 6, reclaims, sizeof(reclaims) / sizeof(reclaims[0]));
	ASSERT_MEM(r, 3, 0, 0);
	ASSERT_SWAP(r, 8, 9, 1);
}
END_TEST

/*
 * tests/model/replay/force-deactivate.trace: a reclaim whose two walks
 * free nothing, the active file list left alone on old statistics, walks
 * a third time deactivating
 */
START_TEST(policy_modern_force_deactivate)
{
	static const char *const reclaims[] = {
		"0.000020,full,1,1,34,0,0,0,34,0,15,16,0,0",
		"0.000040,full,1,0,10,0,0,0,10,16,49,6,0,0",
	};
	struct replay_result r;

	r = run_logged_swap("force-deactivate.trace", 64, 0, reclaims,
			    sizeof(reclaims) / sizeof(reclaims[0]));
	ASSERT_MEM(r, 49, 6, 0);
	ck_assert_uint_eq(r.oom_pages, 0);
}
END_TEST

/* tests/model/replay/ra-locked.trace: reclaim cannot take a readahead's own folios */
START_TEST(policy_modern_readahead_keeps_its_own_folios)
{
	static const char locked[] = "0.000010,nofs,1,0,0,0,0,0,0,0,0,3,0,0\n";
	struct replay_result r;
	char line[256];
	FILE *log = tmpfile();
	int i;

	ck_assert_ptr_nonnull(log);
	opts.host_mem = 3 * 4096;
	opts.swap = 1 << 20;
	opts.policy = RECLAIM_MODERN;
	opts.reclaim_log = log;
	r = run("ra-locked.trace", "read-copy", ANON_FIXED);
	opts.reclaim_log = NULL;
	rewind(log);
	for (i = 0; i < 4; i++) {	/* p3's four reclaims: p0-p2 locked, kept */
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), log));
		ck_assert_str_eq(strchr(line, ',') + 1, locked);
	}
	fclose(log);
	ck_assert_uint_eq(r.reads.readahead, 3);
	ck_assert_uint_eq(r.reads.refaults, 0);
}
END_TEST

/*
 * tests/model/replay/writeback.trace: a swap write ends 1 ms after it
 * began; writeback-queue.trace: and no sooner than 3.46 us after the one
 * before it.  The two differ in their last reclaim alone.
 */
static const char *const writeback_reclaims[] = {
	"0.000020,full,1,0,4,5,0,0,4,0,5,0,0,0",
	"0.000030,nofs,1,0,1,7,0,0,1,0,7,0,0,0",
	"0.000030,nofs,1,0,1,7,0,0,1,0,7,0,0,0",
	"0.000030,nofs,1,0,1,7,0,0,1,0,7,0,0,0",
	"0.002030,full,1,0,1,8,3,0,1,0,8,0,0,0",
	"0.002031,full,1,0,2,9,6,2,0,0,7,0,0,0",
};
#define NR_WRITEBACK_RECLAIMS (sizeof(writeback_reclaims) / sizeof(writeback_reclaims[0]))

static const struct {
	const char *trace, *last;
	uint64_t tmpfs, swap;
} writebacks[] = {
	{ "writeback.trace", "0.003031,full,1,0,7,9,0,7,0,0,2,0,0,0", 2, 9 },
	{ "writeback-queue.trace", "0.003015,full,1,0,5,9,2,5,0,0,4,0,0,0", 4, 11 },
};

START_TEST(policy_modern_swap_writes_end_later)
{
	const char *want[NR_WRITEBACK_RECLAIMS + 1];
	struct replay_result r;

	memcpy(want, writeback_reclaims, sizeof(writeback_reclaims));
	want[NR_WRITEBACK_RECLAIMS] = writebacks[_i].last;
	r = run_logged(writebacks[_i].trace, 8, want, NR_WRITEBACK_RECLAIMS + 1);
	ASSERT_MEM(r, writebacks[_i].tmpfs, 0, 0);
	ASSERT_SWAP(r, writebacks[_i].swap, writebacks[_i].swap, 0);
	ck_assert_int_eq(r.first_swap_out_us, 2030);
}
END_TEST

/*
 * A reclaim's loop over the lists, worked out in each trace's comment:
 * overreclaim.trace, once enough is reclaimed and one kind stopped, the
 * next round ends the loop (Linux 6.0); priority-count.trace, enough is
 * what one priority has reclaimed, not the reclaim so far;
 * active-target.trace, the active file list's target counts while the
 * list may not be deactivated.
 */
static const struct {
	const char *trace, *reclaim[2];
	uint64_t pages, tmpfs, cache;
} lruvec_loops[] = {
	{ "overreclaim.trace", { "0.000030,full,1,1,45,66,0,0,45,165,401,120,135,0" },
	  700, 401, 255 },
	{ "priority-count.trace", { "0.000030,full,1,1,39,61,0,0,39,151,351,112,99,0" },
	  600, 351, 211 },
	{ "active-target.trace", { "0.000020,full,1,1,43,382,0,0,43,0,69938,20,0,0",
				   "0.000060,full,1,7,58,138,0,0,58,0,58781,4962,6200,0" },
	  70000, 58781, 11162 },
};

START_TEST(policy_modern_lruvec_loop)
{
	struct replay_result r;

	r = run_logged(lruvec_loops[_i].trace, lruvec_loops[_i].pages, lruvec_loops[_i].reclaim,
		       lruvec_loops[_i].reclaim[1] ? 2 : 1);
	ASSERT_MEM(r, lruvec_loops[_i].tmpfs, lruvec_loops[_i].cache, 0);
	ASSERT_SWAP(r, 0, 0, 0);
}
END_TEST

START_TEST(no_memory_limit_never_swaps)
{
	struct replay_result r = run("policy.trace", "read-copy", ANON_FIXED);

	ASSERT_MEM(r, 15, 4, 0);
	ck_assert_uint_eq(r.swap_outs, 0);
	ck_assert_int_eq(r.first_swap_out_us, -1);
}
END_TEST

/* tests/model/replay/discard.trace: discarded pages give their tmpfs back in every strategy */
START_TEST(discard_gives_tmpfs_back)
{
	static const char *const copying[] = { "read-copy", "free-hint", "odirect" };
	struct replay_result r;
	unsigned i;

	for (i = 0; i < 3; i++) {
		r = run("discard.trace", copying[i], ANON_FIXED);
		ASSERT_MEM(r, 6, i == 2 ? 0 : 2, 0);
		ck_assert_uint_eq(r.peak[CAT_TMPFS], 10);
		ck_assert_uint_eq(r.calls.punch, 2);
		ck_assert_uint_eq(r.calls.mmap + r.calls.munmap, 0);
	}
	r = run("discard.trace", "punch", ANON_FIXED);
	ASSERT_MEM(r, 6, 2, 0);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 8);
	ck_assert_uint_eq(r.calls.punch, 3);
	ck_assert_uint_eq(r.calls.mmap, 3);
	r = run("discard.trace", "devanon", ANON_FIXED);
	ck_assert_uint_eq(r.final[CAT_TMPFS], 6);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 8);
	ck_assert_uint_eq(r.final[CAT_CACHE], 2);
	ck_assert_uint_eq(r.calls.punch, 0);
	ck_assert_uint_eq(r.calls.munmap, 3);
	ck_assert_uint_eq(r.calls.mmap, 5);
}
END_TEST

/* tests/model/replay/dax-fault.trace: a DAX guest's faults read PMD folios, then ahead */
START_TEST(dax_faults_read_pmd_folios)
{
	struct replay_result r = run("dax-fault.trace", "dax", ANON_FIXED);

	ASSERT_MEM(r, 0, 4096, 0);
	ck_assert_uint_eq(r.reads.demand, 1);
	ck_assert_uint_eq(r.reads.readahead, 4095);
	ck_assert_uint_eq(r.calls.read, 0);
}
END_TEST

/* tests/model/replay/prev-miss.trace: the history walk a node behind, as the kernel's */
START_TEST(prev_miss_walk_behind_a_node)
{
	struct replay_result r = run("prev-miss.trace", "read-copy", ANON_FIXED);

	ck_assert_uint_eq(r.final[CAT_CACHE], 736);
	ck_assert_uint_eq(r.calls.read, 5);
}
END_TEST

/*
 * tests/model/replay/discard.trace under dax: reads fill no guest page,
 * the image's pages are shared.  The read of pages 0-1 is the guest's
 * loads through the window: page 0 faults and reads the two PMD folios
 * from page 0, cut to the image's 16 pages (two folios of 8); no read call.
 */
START_TEST(dax_reads_fill_no_guest_page)
{
	struct replay_result r = run("discard.trace", "dax", ANON_FIXED);

	ASSERT_MEM(r, 6, 16, 0);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 8);
	ck_assert_uint_eq(r.calls.punch, 2);
	ck_assert_uint_eq(r.calls.read, 0);
	ck_assert_uint_eq(r.reads.demand, 1);
	ck_assert_uint_eq(r.reads.readahead, 15);
	ck_assert_uint_eq(r.calls.mmap + r.calls.munmap, 0);
	/* two guests: a copy of the image's pages between them, guest pages each */
	opts.copies = 2;
	opts.stagger_us = 0;
	r = run("discard.trace", "dax", ANON_FIXED);
	ASSERT_MEM(r, 12, 16, 0);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 16);
	/* the aliases of QEMU's cache modes are the strategies they name */
	ck_assert_ptr_eq(strategy_find("writeback"), &strategy_read_copy);
	ck_assert_ptr_eq(strategy_find("unsafe"), &strategy_read_copy);
	ck_assert_ptr_eq(strategy_find("none"), &strategy_odirect);
	ck_assert_ptr_eq(strategy_find("directsync"), &strategy_odirect);
}
END_TEST

/* tests/model/replay/report.trace: free page reporting of blocks of 512 pages */
START_TEST(free_page_reporting)
{
	struct replay_result r;

	opts.report = true;
	opts.report_order = 9;
	r = run("report.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 520, 1, 0);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 1537);
	ck_assert_uint_eq(r.calls.punch, 3);
	r = run("report.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 520, 1, 65);	/* 32768 pages mapped: 64 leaves + the indirect */
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 1536);
	ck_assert_uint_eq(r.calls.munmap, 4);
	ck_assert_uint_eq(r.calls.mmap, 5);
	ck_assert_uint_eq(r.calls.punch, 0);
	r = run("report.trace", "dax", ANON_FIXED);
	ASSERT_MEM(r, 520, 16, 0);	/* the fault reads the 16-page image whole */
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 1536);
	ck_assert_uint_eq(r.calls.punch, 2);
	r = run("report.trace", "free-hint", ANON_FIXED);
	ASSERT_MEM(r, 1, 1, 0);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 1537);
	ck_assert_uint_eq(r.calls.punch, 5);
	/* without reporting, nothing is given back */
	opts.report = false;
	r = run("report.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 1545, 1, 0);
	ck_assert_uint_eq(r.calls.punch, 0);
}
END_TEST

/* tests/model/replay/host.trace: host events charged, and released, as overhead */
START_TEST(host_events_charge_overhead)
{
	struct replay_result r;

	opts.host_mem = 8 * 4096;
	opts.swap = 8 * 4096;
	opts.policy = RECLAIM_24;
	r = run("host.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 4, 0, 0);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 1);
	ck_assert_uint_eq(r.final[CAT_SWAP_TABLE], 0);
	ck_assert_uint_eq(r.final_total, 5);
	ck_assert_uint_eq(r.peak_total, 8);
	ck_assert_uint_eq(r.swap_final, 2);
	ck_assert_uint_eq(r.swap_outs, 2);
	ck_assert_int_eq(r.first_swap_out_us, 30);

	opts_reset();
	r = run("host.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 6, 0, 0);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 1);
	ck_assert_uint_eq(r.peak[CAT_OVERHEAD], 6);
	ck_assert_uint_eq(r.final_total, 7);
	ck_assert_uint_eq(r.peak_total, 10);
	ck_assert_uint_eq(r.swap_outs, 0);

	opts.overhead = 4096;
	r = run("host.trace", "read-copy", ANON_FIXED);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 2);
	ck_assert_uint_eq(r.final_total, 8);
	ck_assert_uint_eq(r.peak_total, 11);
}
END_TEST

/* host.trace again, its host events left out (--no-host-events), as live runs it */
START_TEST(host_events_left_out)
{
	struct replay_result r;

	opts.host_mem = 8 * 4096;
	opts.swap = 8 * 4096;
	opts.policy = RECLAIM_24;
	opts.no_host_events = true;
	r = run("host.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 6, 0, 0);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 0);
	ck_assert_uint_eq(r.peak[CAT_OVERHEAD], 0);
	ck_assert_uint_eq(r.final_total, 6);
	ck_assert_uint_eq(r.peak_total, 6);
	ck_assert_uint_eq(r.swap_outs, 0);
	ck_assert_int_eq(r.first_swap_out_us, -1);
	ck_assert_uint_eq(r.events, 6);

	/* the fixed overhead stays: 6 + 2 pages fill the 8 and no more */
	opts.overhead = 2 * 4096;
	r = run("host.trace", "read-copy", ANON_FIXED);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 2);
	ck_assert_uint_eq(r.final_total, 8);
	ck_assert_uint_eq(r.swap_outs, 0);
}
END_TEST

/* tests/model/replay/host-anon.trace: host processes' anonymous pages are swapped */
START_TEST(host_anon_pages_swap)
{
	struct replay_result r;

	opts.host_mem = 8 * 4096;
	opts.swap = 8 * 4096;
	opts.policy = RECLAIM_24;
	r = run("host-anon.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 4, 0, 0);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 4);
	ck_assert_uint_eq(r.final[CAT_SWAP_TABLE], 0);
	ck_assert_uint_eq(r.final_total, 8);
	ck_assert_uint_eq(r.peak_total, 8);
	ck_assert_uint_eq(r.swap_final, 3);
	ck_assert_uint_eq(r.swap_outs, 4);
	ck_assert_uint_eq(r.swap_ins, 0);
	ck_assert_int_eq(r.first_swap_out_us, 30);

	opts_reset();
	r = run("host-anon.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 6, 0, 0);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 5);
	ck_assert_uint_eq(r.final_total, 11);
	ck_assert_uint_eq(r.peak_total, 11);
	ck_assert_uint_eq(r.swap_outs, 0);
}
END_TEST

/* tests/model/replay/own-anon.trace: the instance's own anonymous pages go first */
START_TEST(own_anon_pages_swap_first)
{
	struct replay_result r;

	opts.host_mem = 6 * 4096;
	opts.swap = 8 * 4096;
	opts.policy = RECLAIM_24;
	opts.overhead_anon = 2 * 4096;
	r = run("own-anon.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 6, 0, 0);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 0);
	ck_assert_uint_eq(r.peak[CAT_OVERHEAD], 2);
	ck_assert_uint_eq(r.final_total, 6);
	ck_assert_uint_eq(r.peak_total, 6);
	ck_assert_uint_eq(r.swap_final, 2);
	ck_assert_uint_eq(r.swap_outs, 2);
	ck_assert_int_eq(r.first_swap_out_us, 20);

	/* the same memory as fixed overhead stays: tmpfs pages 0 and 1 go */
	opts.overhead_anon = 0;
	opts.overhead = 2 * 4096;
	r = run("own-anon.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 4, 0, 0);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 2);
	ck_assert_uint_eq(r.swap_final, 2);
	ck_assert_int_eq(r.first_swap_out_us, 20);

	opts.overhead = 0;
	r = run("own-anon.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 6, 0, 0);
	ck_assert_uint_eq(r.swap_outs, 0);
	ck_assert_int_eq(r.first_swap_out_us, -1);
}
END_TEST

/*
 * nofs.trace with the instance's 2 anonymous pages a0, a1 beside its 6
 * tmpfs pages t0-t5 in 8: readahead's reclaim, which may not write tmpfs,
 * writes them (they need no filesystem, as in the kernel, where the first
 * pages a pressured live run writes are its processes' own).  The list,
 * oldest first, is a0 a1 t0-t5, all young from their faults:
 * - readahead's four reclaims (page_cache_ra_order()'s folio, then its
 *   page-by-page fallback, each charge reclaiming twice), each of two
 *   walks, the second because the first freed nothing:
 *   1. at priority 0 the 8 go round once (young), the 9th look writes a0;
 *      again: a1 written, t0-t5 kept (tmpfs), t0 met again: 17 scanned;
 *   2, 3, 4. the six kept, 8 scanned a walk, 16 each; nothing freed:
 *      nothing read ahead;
 * - p0's own reclaim writes the six (t5 first: the four kept them in
 *   turn), then, the list empty, waits for a write to end, twice: a0
 *   freed, then t4, which the swap cache's removal moved to its front
 *   (host.c, swapcache_remove()): 2 reclaimed, 5 tmpfs pages charged.
 * 8 swap-outs, the first at t=30, where without a0, a1 readahead's
 * reclaims write none.
 */
START_TEST(policy_modern_readahead_reclaim_swaps_own_anon)
{
	static const char *const reclaims[] = {
		"0.000030,nofs,1,0,0,17,2,0,0,0,6,0,0,0",
		"0.000030,nofs,1,0,0,16,0,0,0,0,6,0,0,0",
		"0.000030,nofs,1,0,0,16,0,0,0,0,6,0,0,0",
		"0.000030,nofs,1,0,0,16,0,0,0,0,6,0,0,0",
		"0.000030,full,1,0,2,8,6,2,0,0,5,0,0,0",
	};
	struct replay_result r;

	opts.overhead_anon = 2 * 4096;
	r = run_logged("nofs.trace", 8, reclaims, sizeof(reclaims) / sizeof(reclaims[0]));
	ck_assert_uint_eq(r.swap_outs, 8);
	ck_assert_int_eq(r.first_swap_out_us, 30);
	ck_assert_uint_eq(r.reads.readahead, 0);
}
END_TEST

/* tests/model/replay/host-anon-many.trace: none lost while the list compacts */
START_TEST(host_anon_pages_many)
{
	struct replay_result r;

	opts.host_mem = 6000 * 4096;
	opts.swap = 8000 * 4096;
	opts.policy = RECLAIM_24;
	r = run("host-anon-many.trace", "read-copy", ANON_FIXED);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 3000);
	ck_assert_uint_eq(r.final_total, 3000);
	ck_assert_uint_eq(r.peak_total, 6000);
	ck_assert_uint_eq(r.swap_final, 1000);
	ck_assert_uint_eq(r.swap_outs, 1000);
	ck_assert_int_eq(r.first_swap_out_us, 20);

	opts_reset();
	r = run("host-anon-many.trace", "read-copy", ANON_FIXED);
	ck_assert_uint_eq(r.final[CAT_OVERHEAD], 4000);
	ck_assert_uint_eq(r.peak_total, 7000);
	ck_assert_uint_eq(r.swap_outs, 0);
}
END_TEST

/* posted: a mapping copied by fork takes no count */
START_TEST(posted_dup_frees_mapped_page)
{
	struct replay_result r;

	r = run("dup.trace", "devanon", ANON_FIXED);
	ASSERT_MEM(r, 0, 0, 0);
	ck_assert_uint_eq(r.peak[CAT_TMPFS], 1);
	ck_assert_uint_eq(r.find.freed_while_mapped, 0);
	ck_assert_uint_eq(r.find.count_underflow, 0);

	r = run("dup.trace", "devanon", ANON_POSTED);
	ck_assert_uint_eq(r.find.freed_while_mapped, 1);
	ck_assert_uint_eq(r.find.count_underflow, 16);
	ck_assert_uint_gt(r.defects[ANON_DEFECT_DUP_UNCOUNTED], 0);
	ck_assert_uint_gt(r.defects[ANON_DEFECT_COUNT_UNDERFLOW], 0);
}
END_TEST

/* posted: map-count table pages outlive the file */
START_TEST(posted_map_tables_leak)
{
	struct replay_result r;

	r = run("basic.trace", "devanon", ANON_POSTED);
	ck_assert_uint_eq(r.find.tables_leaked, 2);
	r = run("basic.trace", "devanon", ANON_FIXED);
	ck_assert_uint_eq(r.find.tables_leaked, 0);
}
END_TEST

/*
 * posted: munmap walks and decrements the map counts without the lock.
 * basic.trace under devanon: ubd-mmap unmaps pages 100-102 (3 decrements);
 * teardown unmaps the trace's mapping of all 256 pages except 100 and 102,
 * still file-mapped (101 was mapped back when the guest freed it): 254.
 * 3 + 254 = 257 unlocked decrements.
 */
START_TEST(posted_unlocked_decrement)
{
	struct replay_result r;

	r = run("basic.trace", "devanon", ANON_POSTED);
	ck_assert_uint_eq(r.defects[ANON_DEFECT_UNLOCKED_DECREMENT], 257);
	r = run("basic.trace", "devanon", ANON_FIXED);
	ck_assert_uint_eq(r.defects[ANON_DEFECT_UNLOCKED_DECREMENT], 0);
}
END_TEST

START_TEST(readahead_window)
{
	struct replay_result r = run("readahead.trace", "read-copy", ANON_FIXED);

	ASSERT_MEM(r, 7, 18, 0);
	ck_assert_uint_eq(r.reads.demand, 3);
	ck_assert_uint_eq(r.reads.readahead, 15);

	opts.readahead_kb = 0;	/* off: only what the guest asks for */
	r = run("readahead.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 7, 7, 0);
	ck_assert_uint_eq(r.reads.demand, 7);
	ck_assert_uint_eq(r.reads.readahead, 0);
}
END_TEST

/*
 * tests/model/replay/request.trace: a request of 32 parts is one read of
 * the page cache in every strategy; request-parts.trace, its reads alone,
 * ramps the readahead up past what the host read.
 */
START_TEST(request_is_one_read)
{
	static const char *const names[] = { "read-copy", "odirect", "punch", "devanon" };
	struct replay_result r;
	unsigned i;

	for (i = 0; i < 4; i++) {
		bool copies = i < 2, cached = i != 1;

		r = run("request.trace", names[i], ANON_FIXED);
		ASSERT_MEM(r, copies ? 32 : 0, cached ? 32 : 0, i == 3 ? 2 : 0);
		ck_assert_uint_eq(r.reads.demand, 32);
		ck_assert_uint_eq(r.reads.readahead, 0);
		ck_assert_uint_eq(r.calls.read, 1);
		ck_assert_uint_eq(r.calls.mmap, i == 2 || i == 3 ? 32 : 0);
	}
	/* dax: the load of page 256 faults, the two PMD folios from page 0 */
	r = run("request.trace", "dax", ANON_FIXED);
	ASSERT_MEM(r, 0, 1024, 0);
	ck_assert_uint_eq(r.reads.demand, 1);
	ck_assert_uint_eq(r.reads.readahead, 1023);
	ck_assert_uint_eq(r.calls.read, 0);
	r = run("request-parts.trace", "read-copy", ANON_FIXED);
	ASSERT_MEM(r, 32, 48, 0);
	ck_assert_uint_eq(r.reads.demand, 2);
	ck_assert_uint_eq(r.reads.readahead, 46);
	ck_assert_uint_eq(r.calls.read, 32);
	r = run("request-parts.trace", "odirect", ANON_FIXED);
	ASSERT_MEM(r, 32, 0, 0);
	ck_assert_uint_eq(r.reads.demand, 32);
	ck_assert_uint_eq(r.calls.read, 32);
}
END_TEST

/* The values of the spans span_tree_overlaps found, in the order found. */
static unsigned hit_values(const struct span_tree *t, unsigned *v)
{
	unsigned i;

	for (i = 0; i < t->nr_hits; i++)
		v[i] = t->n[t->hits[i]].value;
	return t->nr_hits;
}

/* Spans by address: what a range overlaps, in address order; nodes reused. */
START_TEST(span_tree_overlaps_in_address_order)
{
	struct span_tree t;
	unsigned v[8];
	uint32_t node30;

	span_tree_init(&t);
	span_tree_insert(&t, 10, 20, 0);
	node30 = span_tree_insert(&t, 30, 40, 1);
	span_tree_insert(&t, 50, 60, 2);
	span_tree_insert(&t, 20, 30, 3);
	span_tree_overlaps(&t, 25, 55);
	ck_assert_uint_eq(hit_values(&t, v), 3);
	ck_assert_uint_eq(v[0], 3);
	ck_assert_uint_eq(v[1], 1);
	ck_assert_uint_eq(v[2], 2);
	span_tree_overlaps(&t, 40, 50);		/* the gap between two spans */
	ck_assert_uint_eq(t.nr_hits, 0);
	span_tree_overlaps(&t, 0, 11);
	ck_assert_uint_eq(hit_values(&t, v), 1);
	ck_assert_uint_eq(v[0], 0);
	span_tree_overlaps(&t, 60, 100);	/* ends are exclusive */
	ck_assert_uint_eq(t.nr_hits, 0);
	span_tree_overlaps(&t, 35, 35);		/* an empty range */
	ck_assert_uint_eq(t.nr_hits, 0);
	span_tree_remove(&t, 30);
	span_tree_overlaps(&t, 25, 55);
	ck_assert_uint_eq(hit_values(&t, v), 2);
	ck_assert_uint_eq(v[0], 3);
	ck_assert_uint_eq(v[1], 2);
	ck_assert_uint_eq(span_tree_insert(&t, 42, 44, 4), node30);
	span_tree_overlaps(&t, 41, 43);
	ck_assert_uint_eq(hit_values(&t, v), 1);
	ck_assert_uint_eq(v[0], 4);
	span_tree_destroy(&t);
}
END_TEST

/* A thousand spans put in out of order, half taken out again. */
START_TEST(span_tree_many_spans)
{
	struct span_tree t;
	unsigned i, k;

	span_tree_init(&t);
	for (i = 0; i < 1000; i++) {
		k = (i * 389) % 1000;	/* 389 is prime to 1000: every k once */
		span_tree_insert(&t, k * 10, k * 10 + 5, k);
	}
	span_tree_overlaps(&t, 0, 10000);
	ck_assert_uint_eq(t.nr_hits, 1000);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(t.n[t.hits[i]].value, i);
	for (k = 0; k < 1000; k += 2)
		span_tree_remove(&t, k * 10);
	span_tree_overlaps(&t, 0, 10000);
	ck_assert_uint_eq(t.nr_hits, 500);
	for (k = 0; k < 1000; k++) {
		span_tree_overlaps(&t, k * 10 + 4, k * 10 + 6);
		ck_assert_uint_eq(t.nr_hits, k % 2);
		span_tree_overlaps(&t, k * 10 + 5, k * 10 + 10);
		ck_assert_uint_eq(t.nr_hits, 0);
	}
	span_tree_destroy(&t);
}
END_TEST

/* chunked.h: chunks of 4096 elements, allocated on the first write */
START_TEST(chunked_walks_skip_unwritten_chunks)
{
	struct chunked a;
	uint64_t n = 3 * CHUNK_LEN + 5;

	chunked_init(&a, n, sizeof(uint32_t));
	ck_assert_uint_eq(a.nr_chunks, 4);
	ck_assert_ptr_null(chunked_peek(&a, 5, sizeof(uint32_t)));
	ck_assert_uint_eq(chunked_next(&a, 0), n);
	*(uint32_t *)chunked_at(&a, 5, sizeof(uint32_t)) = 11;
	*(uint32_t *)chunked_at(&a, 2 * CHUNK_LEN + 7, sizeof(uint32_t)) = 22;
	ck_assert_uint_eq(a.used, 2);
	ck_assert_uint_eq(*(const uint32_t *)chunked_peek(&a, 5, sizeof(uint32_t)), 11);
	ck_assert_uint_eq(*(const uint32_t *)chunked_peek(&a, 6, sizeof(uint32_t)), 0);
	ck_assert_ptr_null(chunked_peek(&a, CHUNK_LEN, sizeof(uint32_t)));
	ck_assert_uint_eq(chunked_next(&a, 0), 0);
	ck_assert_uint_eq(chunked_next(&a, 6), 6);		/* inside a written chunk */
	ck_assert_uint_eq(chunked_next(&a, CHUNK_LEN), 2 * CHUNK_LEN);
	ck_assert_uint_eq(chunked_next(&a, 2 * CHUNK_LEN + 8), 2 * CHUNK_LEN + 8);
	ck_assert_uint_eq(chunked_next(&a, 3 * CHUNK_LEN), n);
	chunked_destroy(&a);
}
END_TEST

/*
 * sparse.h over a 1 TiB disk (2^28 pages, 2^22 leaves): nodes of 64 leaves
 * under a directory of 65536 pointers; three leaves in three nodes
 */
START_TEST(sparse_nodes_by_the_64_leaves)
{
	struct sparse a;
	uint64_t last = ((uint64_t)1 << 22) - 1;
	uint32_t *l5;

	sparse_init(&a, last + 1, 64 * sizeof(uint32_t));
	ck_assert(!a.flat);
	ck_assert_uint_eq(sparse_bytes(&a), 65536 * 8);
	ck_assert_uint_eq(sparse_next(&a, 0), last + 1);
	l5 = sparse_leaf(&a, 5);
	ck_assert_uint_eq(l5[63], 0);		/* zeroed */
	l5[63] = 9;
	sparse_leaf(&a, 70);			/* node 1 */
	sparse_leaf(&a, last);			/* the last node */
	ck_assert_ptr_eq(sparse_leaf(&a, 5), l5);	/* written once, kept */
	ck_assert_uint_eq(((const uint32_t *)sparse_peek(&a, 5))[63], 9);
	ck_assert_ptr_null(sparse_peek(&a, 4));
	ck_assert_ptr_null(sparse_peek(&a, 64));	/* node 1, another leaf */
	ck_assert_ptr_null(sparse_peek(&a, 4096));	/* no node */
	ck_assert_uint_eq(a.nodes, 3);
	ck_assert_uint_eq(a.leaves, 3);
	/* directory, 3 nodes of 64 pointers, 3 leaves of 256 bytes */
	ck_assert_uint_eq(sparse_bytes(&a), 65536 * 8 + 3 * 512 + 3 * 256);
	ck_assert_uint_eq(sparse_next(&a, 0), 5);
	ck_assert_uint_eq(sparse_next(&a, 5), 5);
	ck_assert_uint_eq(sparse_next(&a, 6), 70);
	ck_assert_uint_eq(sparse_next(&a, 71), last);	/* 65534 nodes skipped */
	ck_assert_uint_eq(sparse_next(&a, last + 1), last + 1);
	sparse_destroy(&a);
}
END_TEST

/* sparse.h of SPARSE_FLAT_MAX leaves or fewer: the directory holds the leaves */
START_TEST(sparse_flat_up_to_16_gib)
{
	struct sparse a;

	sparse_init(&a, SPARSE_FLAT_MAX + 1, 8);
	ck_assert(!a.flat);
	ck_assert_uint_eq(sparse_bytes(&a), 1025 * 8);	/* 1025 nodes' pointers */
	sparse_destroy(&a);
	sparse_init(&a, SPARSE_FLAT_MAX, 8);		/* 16 GiB of pages */
	ck_assert(a.flat);
	ck_assert_uint_eq(sparse_bytes(&a), 65536 * 8);
	sparse_destroy(&a);
	sparse_init(&a, 100, 384);
	ck_assert(a.flat);
	*(char *)sparse_leaf(&a, 0) = 1;
	*(char *)sparse_leaf(&a, 99) = 2;
	ck_assert_uint_eq(*(const char *)sparse_peek(&a, 99), 2);
	ck_assert_ptr_null(sparse_peek(&a, 98));
	ck_assert_uint_eq(a.nodes, 0);
	ck_assert_uint_eq(a.leaves, 2);
	ck_assert_uint_eq(sparse_bytes(&a), 100 * 8 + 2 * 384);
	ck_assert_uint_eq(sparse_next(&a, 0), 0);
	ck_assert_uint_eq(sparse_next(&a, 1), 99);
	ck_assert_uint_eq(sparse_next(&a, 100), 100);
	sparse_destroy(&a);
}
END_TEST

/*
 * A guest page's state is one byte every replay keeps; its LRU stamp
 * (4 bytes) only a host that reclaims writes, and the file page ubd-mmap
 * maps over it (8) only ubd-mmap.  Memory 16 MiB: 4096 pages, one chunk
 * of each array (model/chunked.h); pages 0-3 touched, a read of 2 pages
 * into pages 8-9, each array's chunks counted at the phase after them.
 */
static const char state_apart[] =
	"anonsim-trace 1\npage-size 4096\nmemory 16777216\n"
	"device ubda size=1048576 backing=state-image\nreadahead-kb 0\nevents\n"
	"10 mmap 0x40000000 16777216 0\n20 touch 0 4\n30 read ubda 0 8192 8\n"
	"40 phase probe\n";

static uint64_t chunks_seen[3];

static int count_chunks(void *arg, unsigned k, const struct trace_event *ev,
			const struct host *h, char *err, size_t errlen)
{
	const struct instance *in = h->owners[k].priv;

	(void)arg;
	(void)err;
	(void)errlen;
	if (ev->kind == EV_PHASE) {
		chunks_seen[0] = in->pages.used;
		chunks_seen[1] = in->lru_gens.used;
		chunks_seen[2] = in->file_pages.used;
	}
	return 0;
}

static const struct {
	const char *strategy;
	uint64_t host_mem;		/* 0: unlimited */
	uint64_t state, lru_gens, file_pages;	/* chunks */
	uint64_t tmpfs;			/* pages at the end */
} states_apart[] = {
	/* read-copy: 4 touched and 2 read into, 6 tmpfs pages */
	{ "read-copy", 0, 1, 0, 0, 6 },
	{ "read-copy", 64 << 20, 1, 1, 0, 6 },	/* a limit: the pages are on the LRU */
	/* ubd-mmap: pages 8-9 map the image's, the 4 touched stay tmpfs */
	{ "devanon", 0, 1, 0, 1, 4 },
	{ "punch", 64 << 20, 1, 1, 1, 4 },
};

START_TEST(page_state_apart)
{
	char path[4096], err[512], *paths[1] = { path };
	struct replay_result r;
	int rc;

	temp_trace(path, sizeof(path), "state-apart", state_apart);
	opts_reset();
	opts.host_mem = states_apart[_i].host_mem;
	opts.observe = count_chunks;
	memset(chunks_seen, 0xff, sizeof(chunks_seen));
	rc = replay_run(paths, 1, strategy_find(states_apart[_i].strategy), ANON_FIXED,
			&opts, &r, err, sizeof(err));
	unlink(path);
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_msg(!replay_failed(&r), "%s: %s", r.label, r.find.first_other);
	ck_assert_uint_eq(r.final[CAT_TMPFS], states_apart[_i].tmpfs);
	ck_assert_uint_eq(chunks_seen[0], states_apart[_i].state);
	ck_assert_uint_eq(chunks_seen[1], states_apart[_i].lru_gens);
	ck_assert_uint_eq(chunks_seen[2], states_apart[_i].file_pages);
}
END_TEST

/*
 * The page cache of a 1 TiB disk: one page read costs its leaf of 64
 * pages, flags and LRU stamps together (384 bytes), and one node
 */
START_TEST(pagecache_costs_by_the_64_pages)
{
	static struct pagecache pc;
	uint64_t npages = (uint64_t)1 << 28;

	pagecache_init(&pc, 0, "disk", npages);
	ck_assert_uint_eq(sizeof(struct pc_leaf), 384);
	ck_assert_uint_eq(pc_next(&pc, 0), npages);
	*pc_flagsp(&pc, 1000) = PC_RESIDENT | 2 << PC_ORDER_SHIFT;
	*pc_lru_genp(&pc, 1000) = 7;
	*pc_lru_genp(&pc, 1001) = 8;		/* the same leaf: pages 960-1023 */
	ck_assert_uint_eq(pc.pages.leaves, 1);
	ck_assert_uint_eq(pc.pages.nodes, 1);
	ck_assert_uint_eq(sparse_bytes(&pc.pages), 65536 * 8 + 512 + 384);
	ck_assert_uint_eq(pc.mapcount.leaves, 0);
	ck_assert_uint_eq(pc_flags(&pc, 1000), PC_RESIDENT | 2 << PC_ORDER_SHIFT);
	ck_assert_uint_eq(pc_flags(&pc, 1001), 0);
	ck_assert_uint_eq(pc_flags(&pc, 1024), 0);
	ck_assert_uint_eq(pc_folio_head(&pc, 1000), 1000);
	ck_assert_uint_eq(pc_folio_pages(&pc, 1000), 4);
	ck_assert_uint_eq(*pc_lru_genp(&pc, 1000), 7);
	ck_assert_uint_eq(pc_mapcount(&pc, 1000), 0);
	ck_assert_uint_eq(pc_next(&pc, 0), 960);
	ck_assert_uint_eq(pc_next(&pc, 1001), 1001);
	ck_assert_uint_eq(pc_next(&pc, 1024), npages);
	ck_assert_uint_eq(pc_next(&pc, npages), npages);
	pagecache_destroy(&pc);
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("hand-made traces");

	/* sweeps replay many instances: slow under sanitizers on a busy machine */
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, opts_reset, NULL);
	tcase_add_test(tc, basic_per_strategy);
	tcase_add_test(tc, shared_backing);
	tcase_add_test(tc, staggered_instances);
	tcase_add_test(tc, shared_backing_other_size);
	tcase_add_test(tc, host_out_of_memory);
	tcase_add_test(tc, read_over_swapped_page);
	tcase_add_test(tc, read_over_swapped_page_before_mmap);
	tcase_add_test(tc, posted_pte_only_strands_swap);
	tcase_add_test(tc, policy_24_swaps_first);
	tcase_add_test(tc, policy_modern_reclaims_in_clusters);
	tcase_add_test(tc, policy_modern_keeps_active_cache);
	tcase_add_test(tc, policy_modern_read_marks_each_folio);
	tcase_add_test(tc, policy_modern_activates_recent_refaults);
	tcase_add_test(tc, policy_modern_readahead_reclaim_cannot_swap);
	tcase_add_test(tc, policy_modern_readahead_reclaim_swaps_own_anon);
	tcase_add_test(tc, policy_modern_readahead_keeps_its_own_folios);
	tcase_add_loop_test(tc, policy_modern_swap_writes_end_later, 0,
			    (int)(sizeof(writebacks) / sizeof(writebacks[0])));
	tcase_add_loop_test(tc, policy_modern_lruvec_loop, 0,
			    (int)(sizeof(lruvec_loops) / sizeof(lruvec_loops[0])));
	tcase_add_test(tc, policy_modern_activates_anon);
	tcase_add_test(tc, policy_modern_force_deactivate);
	tcase_add_test(tc, no_memory_limit_never_swaps);
	tcase_add_test(tc, posted_dup_frees_mapped_page);
	tcase_add_test(tc, posted_map_tables_leak);
	tcase_add_test(tc, posted_unlocked_decrement);
	tcase_add_test(tc, readahead_window);
	tcase_add_test(tc, request_is_one_read);
	tcase_add_test(tc, discard_gives_tmpfs_back);
	tcase_add_test(tc, dax_reads_fill_no_guest_page);
	tcase_add_test(tc, dax_faults_read_pmd_folios);
	tcase_add_test(tc, prev_miss_walk_behind_a_node);
	tcase_add_test(tc, free_page_reporting);
	tcase_add_test(tc, host_events_charge_overhead);
	tcase_add_test(tc, host_events_left_out);
	tcase_add_test(tc, host_anon_pages_swap);
	tcase_add_test(tc, host_anon_pages_many);
	tcase_add_test(tc, own_anon_pages_swap_first);
	suite_add_tcase(s, tc);
	tc = tcase_create("span tree");
	tcase_add_test(tc, span_tree_overlaps_in_address_order);
	tcase_add_test(tc, span_tree_many_spans);
	suite_add_tcase(s, tc);
	tc = tcase_create("per-page arrays");
	tcase_add_test(tc, chunked_walks_skip_unwritten_chunks);
	tcase_add_test(tc, sparse_nodes_by_the_64_leaves);
	tcase_add_test(tc, sparse_flat_up_to_16_gib);
	tcase_add_test(tc, pagecache_costs_by_the_64_pages);
	tcase_add_loop_test(tc, page_state_apart, 0,
			    (int)(sizeof(states_apart) / sizeof(states_apart[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(replay_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
