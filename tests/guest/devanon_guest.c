/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * devanon_guest.c - the init of a UML guest that tests /dev/anon for real.
 *
 * Booted with the host's tree as a read-only hostfs root (tests/guest/devanon.sh),
 * it mounts /proc, /sys and /dev, and the ext2 disk ubdb on the directory
 * named by guest_scratch= (anonsim live wants a disk filesystem), runs the
 * scenario below on /dev/anon, then the script named by guest_then= (anonsim
 * live in the guest), and powers the guest off.  Each step prints one line (guest/report.h) that the host
 * compares with the model replaying tests/guest/steps.trace, and checks what
 * the kernel says: Shmem in /proc/meminfo and the driver's counters in
 * /sys/class/misc/anon/.  The last line is "guest: result pass" or
 * "guest: result fail N".
 *
 * The scenario (32 pages of /dev/anon; ubda is a 4-page image whose page k
 * holds bytes 0xa0 + k):
 *   mapped, touched      mmap all 32 pages, write each
 *   file-over            ubda mapped MAP_FIXED over pages 4-7
 *   restored             /dev/anon mapped back over page 5, touched
 *   unmapped             munmap of 8-11
 *   forked ...           a child unmaps 16-19, the parent 12-15, the child exits
 *   moved, shrunk        mremap moves 20-23 away, then shrinks it to 2 pages
 *                        (growing fails: the driver's vmas do not expand)
 *   protected, split     mprotect of page 29, munmap of page 26 alone
 *   exited               the process exits (the file stays open in init)
 *
 * Then, with the swap device named by guest_swap= on, a second file: 8
 * pages touched, paged out to swap (MADV_PAGEOUT), unmapped: their swap
 * entries must be freed by the map counts (no trace has swap-outs one can
 * ask for, so this part is checked in the guest alone).
 *
 * Then the bounds (bounds.c): lseek, the longest mapping mapped and
 * unmapped under the soft-lockup detector, a longer one refused, and the
 * table pages charged to a memory cgroup; mmaps under injected
 * allocation failures (faults.c); processes racing on one descriptor
 * (races.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/kernel/linux/devanon_uapi.h"
#include "report.h"
#include "scenarios.h"

#define NPAGES	32u
#define PG	4096ul

/* Kept across fork in a shared page: what the previous step showed. */
struct shared {
	int failures;
	long shmem_base_kb;		/* Shmem before /dev/anon was used */
	long reclaimed;			/* the driver's counter at the last step */
	uint8_t resident[NPAGES];
};

static struct shared *sh;
static int anon_fd = -1;

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("guest: FAIL ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
	sh->failures++;
}

void run_in_child(void (*fn)(void), const char *what)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("%s ended with status %#x", what, status);
}

long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f || fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, s, strlen(s));
		close(fd);
	}
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* A line of /proc/meminfo in kB, e.g. meminfo_kb("Shmem:"); -1 if none. */
static long meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t n = strlen(key);
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && sscanf(line + n, "%ld kB", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static long shmem_kb(void)
{
	return meminfo_kb("Shmem:");
}

static long swap_used_kb(void)
{
	return meminfo_kb("SwapTotal:") - meminfo_kb("SwapFree:");
}

/* Print the step's line and hold the kernel's own figures to it. */
static void report(const char *name)
{
	struct devanon_pages req;
	uint8_t resident[NPAGES];
	uint32_t counts[NPAGES];
	long reclaimed, nres = 0, gone = 0;
	unsigned i;

	req.index = 0;
	req.nr = NPAGES;
	req.counts = (uintptr_t)counts;
	req.resident = (uintptr_t)resident;
	if (ioctl(anon_fd, DEVANON_IOC_PAGES, &req)) {
		fail("%s: DEVANON_IOC_PAGES: %s", name, strerror(errno));
		return;
	}
	step_report(stdout, name, resident, counts, NPAGES,
		    (unsigned long)read_long(SYSFS "map_table_pages"));
	for (i = 0; i < NPAGES; i++) {
		nres += resident[i];
		gone += sh->resident[i] && !resident[i];
	}
	if (read_long(SYSFS "resident") != nres)
		fail("%s: %s holds %ld, the pages %ld", name, SYSFS "resident",
		     read_long(SYSFS "resident"), nres);
	if (shmem_kb() - sh->shmem_base_kb != nres * (long)(PG / 1024))
		fail("%s: Shmem grew by %ld kB, not %ld kB for %ld pages", name,
		     shmem_kb() - sh->shmem_base_kb, nres * (long)(PG / 1024), nres);
	reclaimed = read_long(SYSFS "reclaimed");
	if (reclaimed - sh->reclaimed != gone)
		fail("%s: %ld pages reclaimed, %ld resident ones went", name,
		     reclaimed - sh->reclaimed, gone);
	sh->reclaimed = reclaimed;
	memcpy(sh->resident, resident, sizeof(resident));
}


/* The child of the fork step: unmaps 16-19 when told, exits when told. */
static void child(unsigned char *mem, int cmd, int ack)
{
	char c;

	while (read(cmd, &c, 1) == 1) {
		if (c == 'u')
			CHECK(munmap(mem + 16 * PG, 4 * PG) == 0);
		if (c == 'x')
			_exit(sh->failures ? 1 : 0);
		if (write(ack, &c, 1) != 1)
			_exit(1);
	}
	_exit(1);
}

static void tell(int cmd, int ack, char c)
{
	CHECK(write(cmd, &c, 1) == 1);
	if (c != 'x')
		CHECK(read(ack, &c, 1) == 1);
}

static void scenario(void)
{
	unsigned char *p, *q, *r;
	int ubd, cmd[2], ack[2], status;
	unsigned i;
	pid_t pid;

	p = mmap(NULL, NPAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, anon_fd, 0);
	if (p == MAP_FAILED) {
		fail("mmap of /dev/anon: %s", strerror(errno));
		return;
	}
	report("mapped");
	for (i = 0; i < NPAGES; i++)
		p[i * PG] = (unsigned char)(i + 1);
	report("touched");

	ubd = open("/dev/ubda", O_RDONLY);
	CHECK(ubd >= 0);
	q = mmap(p + 4 * PG, 4 * PG, PROT_READ, MAP_SHARED | MAP_FIXED, ubd, 0);
	CHECK(q == p + 4 * PG);
	for (i = 0; q != MAP_FAILED && i < 4; i++)
		CHECK(q[i * PG] == 0xa0 + i);
	report("file-over");

	q = mmap(p + 5 * PG, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, anon_fd, 5 * PG);
	CHECK(q == p + 5 * PG);
	CHECK(p[5 * PG] == 0);	/* its old page was freed: a new one */
	p[5 * PG] = 6;
	report("restored");

	CHECK(munmap(p + 8 * PG, 4 * PG) == 0);
	report("unmapped");

	CHECK(pipe(cmd) == 0 && pipe(ack) == 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		child(p, cmd[0], ack[1]);
	}
	CHECK(pid > 0);
	close(cmd[0]);
	close(ack[1]);
	report("forked");
	tell(cmd[1], ack[0], 'u');
	report("child-unmapped");
	CHECK(munmap(p + 12 * PG, 4 * PG) == 0);
	report("parent-unmapped");
	tell(cmd[1], ack[0], 'x');
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	report("child-exited");

	/* moved: 20-23 to a reserved place, their data with them */
	q = mmap(NULL, 8 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(q != MAP_FAILED);
	r = mremap(p + 20 * PG, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, q);
	CHECK(r == q);
	for (i = 0; r == q && i < 4; i++)
		CHECK(q[i * PG] == 21 + i);
	/* growing would gain pages no hook counts: refused */
	errno = 0;
	CHECK(mremap(q, 4 * PG, 6 * PG, 0) == MAP_FAILED && errno == EFAULT);
	errno = 0;
	CHECK(mremap(q, 4 * PG, 6 * PG, MREMAP_MAYMOVE) == MAP_FAILED && errno == EFAULT);
	report("moved");
	CHECK(mremap(q, 4 * PG, 2 * PG, 0) == q);
	report("shrunk");

	CHECK(mprotect(p + 29 * PG, PG, PROT_READ) == 0);
	CHECK(p[29 * PG] == 30);
	report("protected");
	CHECK(munmap(p + 26 * PG, PG) == 0);
	CHECK(p[25 * PG] == 26 && p[27 * PG] == 28);
	report("split");
}

/* Pages of /dev/anon file @fd in the page cache among its first @nr. */
static long resident_of(int fd, unsigned nr)
{
	struct devanon_pages req;
	uint8_t resident[NPAGES];
	long n = 0;
	unsigned i;

	req.index = 0;
	req.nr = nr;
	req.counts = 0;
	req.resident = (uintptr_t)resident;
	if (ioctl(fd, DEVANON_IOC_PAGES, &req))
		return -1;
	for (i = 0; i < nr; i++)
		n += resident[i];
	return n;
}

/*
 * 8 pages paged out to swap, then unmapped: their swap entries go.  Swap in
 * use (SwapFree) moves by batches of the per-CPU slot caches, so what is
 * freed is checked by swapoff with the file still open: it would bring an
 * entry left behind back into the file's page cache.
 */
static void swap_scenario(const char *dev)
{
	const unsigned nr = 8;
	long used0, used, reclaimed0, reclaimed;
	unsigned char *m;
	unsigned i;
	int fd;

	if (swapon(dev, 0)) {
		fail("swapon %s: %s", dev, strerror(errno));
		return;
	}
	fd = open("/dev/anon", O_RDWR);
	CHECK(fd >= 0);
	m = mmap(NULL, nr * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (fd < 0 || m == MAP_FAILED)
		goto out;
	for (i = 0; i < nr; i++)
		m[i * PG] = (unsigned char)(0x50 + i);
	used0 = swap_used_kb();
	CHECK(resident_of(fd, nr) == nr);
	CHECK(madvise(m, nr * PG, MADV_PAGEOUT) == 0);
	used = swap_used_kb() - used0;
	printf("guest: swap: %u pages touched, paged out: %ld resident, %ld kB of swap in use\n",
	       nr, resident_of(fd, nr), used);
	CHECK(resident_of(fd, nr) == 0);
	CHECK(used >= (long)(nr * PG / 1024));
	/* back in from swap, the data with it; out again */
	for (i = 0; i < nr; i++)
		CHECK(m[i * PG] == 0x50 + i);
	CHECK(madvise(m, nr * PG, MADV_PAGEOUT) == 0);
	CHECK(resident_of(fd, nr) == 0);
	reclaimed0 = read_long(SYSFS "reclaimed");
	CHECK(munmap(m, nr * PG) == 0);
	reclaimed = read_long(SYSFS "reclaimed") - reclaimed0;
	CHECK(swapoff(dev) == 0);
	printf("guest: swap: unmapped: %ld reclaimed; after swapoff %ld resident\n",
	       reclaimed, resident_of(fd, nr));
	CHECK(reclaimed == nr);
	CHECK(resident_of(fd, nr) == 0);
	CHECK(shmem_kb() == sh->shmem_base_kb);
	close(fd);
	return;
out:
	if (fd >= 0)
		close(fd);
	CHECK(swapoff(dev) == 0);
}

static void mount_or_fail(const char *src, const char *dir, const char *type,
			  const char *opts)
{
	if (mount(src, dir, type, 0, opts) && errno != EBUSY)
		fail("mount %s on %s: %s", type, dir, strerror(errno));
}

/* Run /bin/sh SCRIPT; its output goes to the console as it comes. */
static void run_script(const char *script)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", script, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fail("%s did not pass", script);
}

int main(void)
{
	const char *scratch = getenv("guest_scratch");
	const char *then = getenv("guest_then");
	const char *swapdev = getenv("guest_swap");
	int status, failures;
	pid_t pid;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		puts("guest: result fail 1 (no shared page)");
		reboot(RB_POWER_OFF);
		return 1;
	}
	memset(sh, 0, sizeof(*sh));
	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_or_fail("proc", "/proc", "proc", NULL);
	mount_or_fail("sysfs", "/sys", "sysfs", NULL);
	mount_or_fail("devtmpfs", "/dev", "devtmpfs", NULL);
	if (scratch)
		mount_or_fail("/dev/ubdb", scratch, "ext2", NULL);
	printf("guest: up, kernel %s\n", "with /dev/anon");

	sh->shmem_base_kb = shmem_kb();
	sh->reclaimed = read_long(SYSFS "reclaimed");
	anon_fd = open("/dev/anon", O_RDWR);
	if (anon_fd < 0) {
		fail("open /dev/anon: %s", strerror(errno));
	} else {
		CHECK(read_long(SYSFS "files") == 0);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			scenario();
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			fail("the scenario process did not exit");
		report("exited");
		CHECK(read_long(SYSFS "files") == 1);
		close(anon_fd);
		/* the last reference: the tmpfs file and its table pages go */
		CHECK(read_long(SYSFS "files") == 0);
		CHECK(read_long(SYSFS "map_table_pages") == 0);
		CHECK(shmem_kb() == sh->shmem_base_kb);
	}
	if (swapdev)
		swap_scenario(swapdev);
	bounds_scenario();
	faults_scenario();
	races_scenario();
	if (then)
		run_script(then);
	failures = sh->failures;
	if (failures)
		printf("guest: result fail %d\n", failures);
	else
		puts("guest: result pass");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
