// SPDX-License-Identifier: GPL-2.0
/*
 * devanon_selftest.c - /dev/anon's map counts as a user of the device sees
 * them, in the shape of tools/testing/selftests (kselftest_harness.h of
 * the kernel tree; tests/guest/devanon.sh builds it against the tree of
 * make kernel and runs it in the guest).  Each test opens its own file
 * and reads the counts back with DEVANON_IOC_PAGES; when the file's last
 * mapping is gone, so are its pages.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>	/* the kernel tree's tools/testing/selftests */
#include "../../src/kernel/linux/devanon_uapi.h"

#define PG	4096ul

static int anon_open(void)
{
	return open("/dev/anon", O_RDWR);
}

/* The map count of page @index of @fd, -1 if it cannot be read. */
static long count_of(int fd, unsigned long index)
{
	struct devanon_pages req = { .index = index, .nr = 1 };
	uint32_t count;

	req.counts = (uintptr_t)&count;
	return ioctl(fd, DEVANON_IOC_PAGES, &req) ? -1 : (long)count;
}

/* Is page @index of @fd in the page cache? */
static int resident(int fd, unsigned long index)
{
	struct devanon_pages req = { .index = index, .nr = 1 };
	uint8_t res;

	req.resident = (uintptr_t)&res;
	return ioctl(fd, DEVANON_IOC_PAGES, &req) ? -1 : res;
}

static unsigned char *map(int fd, unsigned long pages, unsigned long pgoff)
{
	return mmap(NULL, pages * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    pgoff * PG);
}

/* munmap of one page inside a mapping splits it: counts stay one each. */
TEST(split)
{
	int fd = anon_open();
	unsigned char *m;

	ASSERT_LE(0, fd);
	m = map(fd, 4, 0);
	ASSERT_NE(MAP_FAILED, m);
	memset(m, 1, 4 * PG);
	ASSERT_EQ(0, mprotect(m + PG, PG, PROT_READ));
	ASSERT_EQ(0, munmap(m + 2 * PG, PG));
	EXPECT_EQ(1, count_of(fd, 0));
	EXPECT_EQ(1, count_of(fd, 1));
	EXPECT_EQ(0, count_of(fd, 2));
	EXPECT_EQ(0, resident(fd, 2));
	EXPECT_EQ(1, count_of(fd, 3));
	EXPECT_EQ(1, m[3 * PG]);
	close(fd);
}

/* fork copies the mapping: two counts; the child's exit drops one. */
TEST(fork_and_exit)
{
	int fd = anon_open(), status;
	unsigned char *m;
	pid_t pid;

	ASSERT_LE(0, fd);
	m = map(fd, 2, 0);
	ASSERT_NE(MAP_FAILED, m);
	m[0] = 7;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(count_of(fd, 0) == 2 && m[0] == 7 ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, count_of(fd, 0));
	EXPECT_EQ(1, resident(fd, 0));
	close(fd);
}

/* exec drops the counts of the mappings the old image held. */
TEST(exec_drops_counts)
{
	int fd = anon_open(), status;
	unsigned char *m;
	pid_t pid;

	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		m = map(fd, 1, 0);
		if (m == MAP_FAILED)
			_exit(1);
		m[0] = 1;
		execl("/bin/true", "true", (char *)NULL);
		_exit(2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, count_of(fd, 0));
	EXPECT_EQ(0, resident(fd, 0));
	close(fd);
}

/* mremap moves the counted pages and their data; growing is refused. */
TEST(mremap_move)
{
	int fd = anon_open();
	unsigned char *m, *to, *r;

	ASSERT_LE(0, fd);
	m = map(fd, 2, 0);
	ASSERT_NE(MAP_FAILED, m);
	m[PG] = 9;
	to = mmap(NULL, 4 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, to);
	r = mremap(m, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	ASSERT_EQ(to, r);
	EXPECT_EQ(9, r[PG]);
	EXPECT_EQ(1, count_of(fd, 1));
	EXPECT_EQ(MAP_FAILED, mremap(r, 2 * PG, 4 * PG, 0));
	EXPECT_EQ(0, munmap(r, 2 * PG));
	EXPECT_EQ(0, count_of(fd, 1));
	EXPECT_EQ(0, resident(fd, 1));
	close(fd);
}

/* A private mapping's write copies: the file's page stays, then goes. */
TEST(map_private)
{
	int fd = anon_open();
	unsigned char *s, *p;

	ASSERT_LE(0, fd);
	s = map(fd, 1, 0);
	ASSERT_NE(MAP_FAILED, s);
	s[0] = 3;
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(2, count_of(fd, 0));
	p[0] = 4;
	EXPECT_EQ(3, s[0]);
	EXPECT_EQ(0, munmap(s, PG));
	EXPECT_EQ(1, resident(fd, 0));
	EXPECT_EQ(0, munmap(p, PG));
	EXPECT_EQ(0, count_of(fd, 0));
	EXPECT_EQ(0, resident(fd, 0));
	close(fd);
}

/* lseek then write lands at the position set. */
TEST(lseek_then_write)
{
	int fd = anon_open();
	unsigned char *m;

	ASSERT_LE(0, fd);
	m = map(fd, 2, 0);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ((off_t)PG + 5, lseek(fd, PG + 5, SEEK_SET));
	ASSERT_EQ(2, write(fd, "ok", 2));
	EXPECT_EQ('o', m[PG + 5]);
	EXPECT_EQ('k', m[PG + 6]);
	close(fd);
}

/* The longest mapping (16 GiB) maps; one page more is EFBIG. */
TEST(huge)
{
	int fd = anon_open();
	unsigned char *m;

	ASSERT_LE(0, fd);
	m = mmap(NULL, (16ul << 30) + PG, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EFBIG, errno);
	m = mmap(NULL, 16ul << 30, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	m[(16ul << 30) - PG] = 1;
	EXPECT_EQ(1, count_of(fd, (16ul << 30) / PG - 1));
	EXPECT_EQ(0, munmap(m, 16ul << 30));
	EXPECT_EQ(0, resident(fd, (16ul << 30) / PG - 1));
	close(fd);
}

/* 1000 one-page mappings of one file, every other page shared twice. */
TEST(many_mappings)
{
	unsigned char *m[1000], *twice[500];
	int fd = anon_open(), i;

	ASSERT_LE(0, fd);
	for (i = 0; i < 1000; i++) {
		m[i] = map(fd, 1, i);
		ASSERT_NE(MAP_FAILED, m[i]);
		m[i][0] = 1;
	}
	for (i = 0; i < 500; i++) {
		twice[i] = map(fd, 1, 2 * i);
		ASSERT_NE(MAP_FAILED, twice[i]);
	}
	EXPECT_EQ(2, count_of(fd, 998));
	EXPECT_EQ(1, count_of(fd, 999));
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, munmap(m[i], PG));
	EXPECT_EQ(1, resident(fd, 998));
	EXPECT_EQ(0, resident(fd, 999));
	for (i = 0; i < 500; i++)
		ASSERT_EQ(0, munmap(twice[i], PG));
	EXPECT_EQ(0, resident(fd, 998));
	close(fd);
}

/*
 * Four processes map, write and unmap the same pages of one descriptor,
 * 100 times each, from its first mmap on.  One CPU, no preemption: they
 * interleave where one sleeps.  In the end no page is mapped or left.
 */
TEST(racing_on_one_descriptor)
{
	int fd = anon_open(), i, status, ok = 0;
	pid_t pid[4];

	ASSERT_LE(0, fd);
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			unsigned char *m;
			int round;

			for (round = 0; round < 100; round++) {
				m = map(fd, 16, 0);
				if (m == MAP_FAILED)
					_exit(1);
				m[i * PG] = 1;
				if (munmap(m, 16 * PG))
					_exit(2);
			}
			_exit(0);
		}
	}
	for (i = 0; i < 4; i++)
		if (waitpid(pid[i], &status, 0) == pid[i] && WIFEXITED(status) &&
		    !WEXITSTATUS(status))
			ok++;
	EXPECT_EQ(4, ok);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(0, count_of(fd, i));
		EXPECT_EQ(0, resident(fd, i));
	}
	close(fd);
}

TEST_HARNESS_MAIN
