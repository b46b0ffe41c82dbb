/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * faults.c - /dev/anon's mmap with page allocations failing at random
 * (fail_page_alloc, for this process alone): every mmap maps or fails
 * with ENOMEM; a failed one leaves the table pages as they were (what it
 * built is freed again) and no count; after close nothing is left.  Then
 * shmem's ->mmap failing after the counts were taken (fail_devanon_mmap):
 * the mmap fails with its error and leaves what an mmap and munmap of the
 * same range leave.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include "../../src/kernel/linux/devanon_uapi.h"
#include "scenarios.h"

#define PG		4096ul
#define MAP		(8ul << 20)	/* 2048 pages: 4 or 5 table pages */
#define TRIES		50
#define FAIL_DIR	"/sys/kernel/debug/fail_page_alloc/"
#define FAIL_MMAP_DIR	"/sys/kernel/debug/fail_devanon_mmap/"
#define RANGE_PAGES	16

/* The map count of page @index of @fd; -1 if it cannot be read. */
static long count_of(int fd, unsigned long index)
{
	struct devanon_pages req;
	uint32_t count;

	req.index = index;
	req.nr = 1;
	req.counts = (uintptr_t)&count;
	req.resident = 0;
	return ioctl(fd, DEVANON_IOC_PAGES, &req) ? -1 : (long)count;
}

/* Disjoint mappings kept until the end: no table page is shared empty. */
static void faulty_child(void)
{
	int fd = open("/dev/anon", O_RDWR), self = open("/proc/self/make-it-fail", O_WRONLY);
	unsigned char *m[TRIES];
	long before, mapped = 0, refused = 0, other = 0;
	int i, err;

	CHECK(fd >= 0 && self >= 0);
	if (fd < 0 || self < 0)
		return;
	for (i = 0; i < TRIES; i++) {
		before = read_long(SYSFS "map_table_pages");
		CHECK(write(self, "1", 1) == 1);
		m[i] = mmap(NULL, MAP, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    (off_t)(i * MAP));
		err = errno;
		CHECK(write(self, "0", 1) == 1);
		if (m[i] != MAP_FAILED) {
			mapped++;
			CHECK(count_of(fd, i * MAP / PG) == 1);
			continue;
		}
		if (err == ENOMEM)
			refused++;
		else
			other++;
		CHECK(read_long(SYSFS "map_table_pages") == before);
		CHECK(count_of(fd, i * MAP / PG) <= 0);
	}
	printf("guest: faults: %d mmaps with page allocations failing: %ld mapped, %ld ENOMEM, %ld other\n",
	       TRIES, mapped, refused, other);
	CHECK(mapped > 0 && refused > 0 && other == 0);
	for (i = 0; i < TRIES; i++)
		if (m[i] != MAP_FAILED)
			CHECK(munmap(m[i], MAP) == 0);
	close(self);
	close(fd);
	CHECK(read_long(SYSFS "map_table_pages") == 0);
}

/*
 * Set the fault-injection attributes under @dir (a debugfs directory of
 * the kernel's fault-inject framework): fail with @probability percent,
 * @times times at most (-1: no end), for tasks that ask (@task_filter
 * "Y") or all ("N"), quietly.
 */
static void fault_attr_set(const char *dir, const char *task_filter,
			   const char *probability, const char *times)
{
	static const char *const names[] = {
		"task-filter", "probability", "interval", "times", "verbose"
	};
	const char *values[] = { task_filter, probability, "1", times, "0" };
	char path[128];
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, names[i]);
		if (write_str(path, values[i]))
			fail("cannot write %s to %s", values[i], path);
	}
}

/* How many of the @n pages from @index have a map count; -1 on error. */
static long counted_pages(int fd, unsigned long index, unsigned long n)
{
	long c, counted = 0;
	unsigned long i;

	for (i = 0; i < n; i++) {
		c = count_of(fd, index + i);
		if (c < 0)
			return -1;
		counted += c > 0;
	}
	return counted;
}

/*
 * shmem's ->mmap fails once, after the counts of the range were taken:
 * mmap gives its error (EPERM, a seal's), the counts are dropped, and the
 * table pages are those a successful mmap and munmap of the range leave;
 * the next mmap of the range maps and counts it.
 */
static void shmem_mmap_failure(void)
{
	off_t off = 3 * MAP;	/* a table page of its own */
	long counted_failed, tables_failed, tables_unmapped;
	int fd = open("/dev/anon", O_RDWR);
	unsigned char *m;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	fault_attr_set(FAIL_MMAP_DIR, "N", "100", "1");
	m = mmap(NULL, RANGE_PAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (m != MAP_FAILED || errno != EPERM)
		fail("mmap with shmem's ->mmap failing: %s, want EPERM",
		     m == MAP_FAILED ? strerror(errno) : "mapped");
	CHECK(read_long(FAIL_MMAP_DIR "times") == 0);
	counted_failed = counted_pages(fd, off / PG, RANGE_PAGES);
	CHECK(counted_failed == 0);
	CHECK(read_long(SYSFS "resident") == 0);
	tables_failed = read_long(SYSFS "map_table_pages");

	m = mmap(NULL, RANGE_PAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	CHECK(m != MAP_FAILED);
	if (m != MAP_FAILED) {
		CHECK(counted_pages(fd, off / PG, RANGE_PAGES) == RANGE_PAGES);
		m[0] = 1;
		CHECK(munmap(m, RANGE_PAGES * PG) == 0);
	}
	tables_unmapped = read_long(SYSFS "map_table_pages");
	printf("guest: faults: shmem's mmap failing: %ld of %d pages counted, %ld table pages (%ld after mmap and munmap)\n",
	       counted_failed, RANGE_PAGES, tables_failed, tables_unmapped);
	CHECK(tables_failed == tables_unmapped);
	CHECK(counted_pages(fd, off / PG, RANGE_PAGES) == 0);
	CHECK(read_long(SYSFS "resident") == 0);
	close(fd);
	CHECK(read_long(SYSFS "files") == 0);
	CHECK(read_long(SYSFS "map_table_pages") == 0);
}

void faults_scenario(void)
{
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) && errno != EBUSY) {
		fail("mount debugfs: %s", strerror(errno));
		return;
	}
	/*
	 * 5 % of the allocations of a task that asks, single pages (the
	 * default is order 1 and up) and sleeping ones too
	 */
	CHECK(write_str(FAIL_DIR "min-order", "0") == 0);
	CHECK(write_str(FAIL_DIR "ignore-gfp-wait", "N") == 0);
	fault_attr_set(FAIL_DIR, "Y", "5", "-1");
	run_in_child(faulty_child, "the process with failing allocations");
	CHECK(write_str(FAIL_DIR "probability", "0") == 0);
	CHECK(write_str(FAIL_DIR "min-order", "1") == 0);
	CHECK(read_long(SYSFS "files") == 0);
	shmem_mmap_failure();
	umount("/sys/kernel/debug");
}
