/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bounds.c - the guest's scenario for what /dev/anon bounds: the file
 * position, the longest mapping, and the memory cgroup its table pages are
 * charged to (see scenarios.h).  Failures go through fail(); figures are
 * printed as "guest: bounds: ..." lines.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scenarios.h"

#define PG		4096ul
#define MAX_MAP		(16ul << 30)	/* DEVANON_MAX_MAP_BYTES */
#define MAX_INDEX	67239952ul	/* x86_64's SHMEM_MAX_INDEX */
/* table pages of a mapping at offset 0: leaves, middle pages, indirect */
#define TABLES_32G	(16384 + 32 + 1)
#define TABLES_1G	(512 + 1 + 1)
/*
 * memory.current moves by charge batches of 64 pages (256 KiB, charged
 * ahead), with slab objects besides: a charge is seen within a batch below
 * it and two above.
 */
#define BATCH		(256l << 10)
#define CG		"/sys/fs/cgroup/"
#define CG_TEST		CG "devanon/"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A key of a flat-keyed file such as memory.stat; -1 if none. */
static long read_key(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char name[64];
	long v, found = -1;

	while (f && fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strcmp(name, key))
			found = v;
	if (f)
		fclose(f);
	return found;
}

/* lseek moves the position that write then uses (UML writes its stub so). */
static void lseek_case(void)
{
	int fd = open("/dev/anon", O_RDWR);
	unsigned char *m;

	CHECK(fd >= 0);
	m = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (fd < 0 || m == MAP_FAILED)
		return;
	CHECK(lseek(fd, 2 * PG + 8, SEEK_SET) == (off_t)(2 * PG + 8));
	CHECK(write(fd, "stub", 4) == 4);
	CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(2 * PG + 12));
	CHECK(!memcmp(m + 2 * PG + 8, "stub", 4));
	CHECK(m[8] == 0);
	CHECK(lseek(fd, 0, SEEK_END) == (off_t)(MAX_INDEX * PG));
	errno = 0;
	CHECK(lseek(fd, -1, SEEK_SET) == -1 && errno == EINVAL);
	CHECK(munmap(m, 4 * PG) == 0);
	close(fd);
}

/*
 * Two longest mappings side by side, of file offsets 0 and 16 GiB (16417
 * table pages, 8 Mi counts), their first and last pages touched, unmapped
 * by one munmap: two closes of 2 s each in a row on this kernel, no
 * preemption between them, with the soft-lockup detector at 2 s (without
 * a chance for the scheduler between table pages it reports one).  One
 * page more than the longest is refused before anything is allocated.
 */
static void longest_case(void)
{
	long tables0 = read_long(SYSFS "map_table_pages");
	long reclaimed0 = read_long(SYSFS "reclaimed");
	unsigned char *m, *a, *b;
	double t0, t1, t2;
	int fd = open("/dev/anon", O_RDWR);

	CHECK(fd >= 0);
	CHECK(read_long("/proc/sys/kernel/watchdog_thresh") == 1);
	errno = 0;
	m = mmap(NULL, MAX_MAP + PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m == MAP_FAILED && errno == EFBIG);
	CHECK(read_long(SYSFS "map_table_pages") == tables0);
	m = mmap(NULL, 2 * MAX_MAP, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(m != MAP_FAILED);
	if (fd < 0 || m == MAP_FAILED)
		return;
	t0 = now();
	a = mmap(m, MAX_MAP, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	b = mmap(m + MAX_MAP, MAX_MAP, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, MAX_MAP);
	t1 = now();
	CHECK(a == m && b == m + MAX_MAP);
	CHECK(read_long(SYSFS "map_table_pages") == tables0 + TABLES_32G);
	if (a == m && b == m + MAX_MAP) {
		a[0] = 1;
		b[MAX_MAP - PG] = 2;
	}
	t2 = now();
	CHECK(munmap(m, 2 * MAX_MAP) == 0);
	printf("guest: bounds: 2 x 16 GiB mapped in %.2f s (%ld table pages), unmapped in %.2f s\n",
	       t1 - t0, read_long(SYSFS "map_table_pages") - tables0, now() - t2);
	CHECK(read_long(SYSFS "reclaimed") - reclaimed0 == 2);
	close(fd);
	CHECK(read_long(SYSFS "map_table_pages") == tables0);
}

/*
 * In a memory cgroup of its own: 1 GiB mapped charges its 514 table pages;
 * with the limit 8 MiB above what is charged, 16 GiB more (32 MiB of table
 * pages) fails with ENOMEM, kills no one and gives back the table pages it
 * built; after close nothing stays charged.
 */
static void cgroup_child(void)
{
	long base, mapped, table_bytes = TABLES_1G * (long)PG;
	char limit[32];
	unsigned char *m, *big;
	int fd;

	if (write_str(CG_TEST "cgroup.procs", "0")) {
		fail("cannot join %s: %s", CG_TEST, strerror(errno));
		return;
	}
	fd = open("/dev/anon", O_RDWR);
	CHECK(fd >= 0);
	base = read_long(CG_TEST "memory.current");
	m = mmap(NULL, 1ul << 30, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	mapped = read_long(CG_TEST "memory.current") - base;
	printf("guest: bounds: 1 GiB mapped in a cgroup: %ld table pages, memory.current +%ld kB\n",
	       read_long(SYSFS "map_table_pages"), mapped >> 10);
	CHECK(read_long(SYSFS "map_table_pages") == TABLES_1G);
	CHECK(mapped >= table_bytes - BATCH && mapped <= table_bytes + 2 * BATCH);

	snprintf(limit, sizeof(limit), "%ld", read_long(CG_TEST "memory.current") + (8l << 20));
	CHECK(write_str(CG_TEST "memory.max", limit) == 0);
	errno = 0;
	big = mmap(NULL, MAX_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 1ul << 30);
	printf("guest: bounds: 16 GiB more past the cgroup's limit: %s\n",
	       big == MAP_FAILED ? strerror(errno) : "mapped");
	CHECK(big == MAP_FAILED && errno == ENOMEM);
	CHECK(read_key(CG_TEST "memory.events", "oom_kill") == 0);
	/* what the refused mapping built went again: leaf 511 is counted */
	CHECK(read_long(SYSFS "map_table_pages") == TABLES_1G);
	if (m != MAP_FAILED)
		CHECK(munmap(m, 1ul << 30) == 0);
	close(fd);
	CHECK(read_long(SYSFS "map_table_pages") == 0);
	CHECK(read_long(CG_TEST "memory.current") <= base + 2 * BATCH);
}

static void cgroup_case(void)
{
	if (mount("cgroup2", CG, "cgroup2", 0, NULL) && errno != EBUSY) {
		fail("mount cgroup2 on %s: %s", CG, strerror(errno));
		return;
	}
	CHECK(write_str(CG "cgroup.subtree_control", "+memory") == 0);
	CHECK(mkdir(CG_TEST, 0755) == 0);
	run_in_child(cgroup_child, "the cgroup's process");
	CHECK(rmdir(CG_TEST) == 0);
	umount(CG);
}

void bounds_scenario(void)
{
	CHECK(read_long(SYSFS "files") == 0);
	lseek_case();
	longest_case();
	cgroup_case();
	CHECK(read_long(SYSFS "files") == 0);
}
