/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_chunked.c - per-page arrays (src/model/chunked.c) and the huge
 * page blocks their chunks come from (src/util/hugemem.c): every chunk
 * reads zero when first handed out, also when it is a freed one used
 * again; chunks of one size never overlap, and sizes do not share.
 */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/chunked.h"
#include "util/hugemem.h"

/* Fails through ck_abort_msg: the loops below test many values. */
#define EXPECT(cond) do { if (!(cond)) ck_abort_msg("expected %s", #cond); } while (0)

static int all_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

START_TEST(chunks_zero_and_apart)
{
	struct chunked a;
	uint64_t i, k;

	/* 5 chunks of 12-byte elements, the last one partly used */
	chunked_init(&a, 4 * CHUNK_LEN + 10, 12);
	ck_assert_uint_eq(a.nr_chunks, 5);
	ck_assert_ptr_null(chunked_peek(&a, 3 * CHUNK_LEN, 12));
	for (i = 0; i < a.n; i += 7) {
		unsigned char *e = chunked_at(&a, i, 12);

		EXPECT(all_zero(e, 12));
		memset(e, (int)(i / CHUNK_LEN) + 1, 12);
	}
	ck_assert_uint_eq(a.used, 5);
	/* each element still holds its own chunk's byte: no chunk overlaps another */
	for (i = 0; i < a.n; i += 7)
		EXPECT(*(const unsigned char *)chunked_peek(&a, i, 12) == (unsigned char)(i / CHUNK_LEN + 1));
	for (k = 0; k < 5; k++)
		EXPECT((uintptr_t)a.chunk[k] % 64 == 0);
	chunked_destroy(&a);
	ck_assert_ptr_null(a.chunk);

	/* the freed chunks come back, zeroed */
	chunked_init(&a, 4 * CHUNK_LEN + 10, 12);
	for (k = 0; k < 5; k++)
		EXPECT(all_zero(chunked_at(&a, k * CHUNK_LEN, 12), CHUNK_LEN * 12));
	chunked_destroy(&a);
}
END_TEST

START_TEST(sizes_apart)
{
	unsigned char *b[3], *c[3];
	int i;

	/* freed blocks of one size are not handed out for another */
	for (i = 0; i < 3; i++) {
		b[i] = huge_zalloc(4096, "a test block");
		memset(b[i], 0xa5, 4096);
	}
	for (i = 0; i < 3; i++)
		huge_free(b[i], 4096);
	for (i = 0; i < 3; i++) {
		c[i] = huge_zalloc(8192, "a test block");
		EXPECT(all_zero(c[i], 8192));
		memset(c[i], 0x5a, 8192);
	}
	for (i = 0; i < 3; i++) {
		b[i] = huge_zalloc(4096, "a test block");
		EXPECT(all_zero(b[i], 4096));
	}
	for (i = 0; i < 3; i++) {
		EXPECT(c[i][0] == 0x5a && c[i][8191] == 0x5a);
		huge_free(b[i], 4096);
		huge_free(c[i], 8192);
	}
}
END_TEST

START_TEST(beyond_the_lists)
{
	/* more sizes than the pool keeps lists for, and one past a huge page */
	unsigned char *p[40];
	size_t size;
	int i;

	for (i = 0; i < 40; i++) {
		size = (size_t)(i + 1) * 640;
		p[i] = huge_zalloc(size, "a test block");
		EXPECT(all_zero(p[i], size));
		memset(p[i], i + 1, size);
	}
	for (i = 0; i < 40; i++) {
		size = (size_t)(i + 1) * 640;
		EXPECT(p[i][0] == i + 1 && p[i][size - 1] == i + 1);
		huge_free(p[i], size);
	}
	/* blocks of no size are still apart, each able to hold a free link */
	p[0] = huge_zalloc(0, "a test block");
	p[1] = huge_zalloc(0, "a test block");
	EXPECT(p[0] != p[1]);
	huge_free(p[0], 0);
	huge_free(p[1], 0);
	p[0] = huge_zalloc(HUGE_BYTES + 1, "a test block");
	EXPECT(p[0][HUGE_BYTES] == 0);
	huge_free(p[0], HUGE_BYTES + 1);
}
END_TEST

START_TEST(after_fork)
{
	unsigned char *p = huge_zalloc(4096, "a test block");
	int status = -1;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		unsigned char *q = huge_zalloc(4096, "a test block");

		_exit(q && q != p && all_zero(q, 4096) ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	huge_free(p, 4096);
}
END_TEST

START_TEST(huge_map_aligned)
{
	unsigned char *p = huge_map(2 * HUGE_BYTES);

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq((uintptr_t)p % HUGE_BYTES, 0);
	EXPECT(all_zero(p, 2 * HUGE_BYTES));
	p[2 * HUGE_BYTES - 1] = 1;
	huge_unmap(p, 2 * HUGE_BYTES);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chunked");
	TCase *tc = tcase_create("chunks");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, chunks_zero_and_apart);
	tcase_add_test(tc, sizes_apart);
	tcase_add_test(tc, beyond_the_lists);
	tcase_add_test(tc, after_fork);
	tcase_add_test(tc, huge_map_aligned);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
