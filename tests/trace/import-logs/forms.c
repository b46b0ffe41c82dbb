// SPDX-License-Identifier: GPL-2.0-only
/*
 * forms.c - what strace sees of a UML boot, in small: the program that
 * make-forms.sh runs under strace in each of strace's forms to make the
 * forms-*.strace logs of tests/trace/import.sh.
 *
 * A memory file of 32 pages in /dev/shm of which 16 are physical memory,
 * mapped from page 1 at its own address (UML's kernel image lies at page
 * 0's); a disk (argv[1], at least 40 KiB) read and written from there;
 * the header probe UML makes, a read past the disk's end, a failing read,
 * a read into the process's own memory, a vector read; page 5 mapped a
 * second time elsewhere and read into there; a mapping past memory, one
 * of anonymous memory, a failing one of a socket; a signal; an io thread
 * made with clone(CLONE_VM) that reads pages 8-15 and writes one sector
 * while the main process maps and unmaps pages elsewhere, and is killed
 * at the end.  With FORMS_IO_PID set (root, in a PID namespace of its
 * own) the io thread gets that process id.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define BASE 0x60000000UL
#define ELSEWHERE 0x64800000UL
#define PG 4096
#define MEM_PAGES 16

static int disk;
static int go[2];
static char stack[1 << 16];

static void *at(unsigned long addr)
{
	return (void *)addr;
}

static int io_thread(void *arg)
{
	char c;
	int i;

	(void)arg;
	if (read(go[0], &c, 1) != 1)
		return 1;
	for (i = 0; i < 8; i++)
		if (pread64(disk, at(BASE + (8 + i) * PG), PG, (off_t)(i + 1) * PG) != PG)
			return 1;
	if (pwrite64(disk, at(BASE + 8 * PG), 512, 8 * PG) != 512)
		return 1;
	return read(go[0], &c, 1) == 1 ? 0 : 1;	/* until it is killed */
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void set_next_pid(void)
{
	const char *want = getenv("FORMS_IO_PID");
	FILE *f;

	if (!want)
		return;
	f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	if (!f || fprintf(f, "%ld\n", atol(want) - 1) < 0 || fclose(f)) {
		perror("forms: ns_last_pid");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char local[PG];
	struct iovec iov = { local, PG };
	int mem, sock[2], i;
	pid_t io;
	void *p;

	if (argc != 2) {
		fprintf(stderr, "usage: forms DISK\n");
		return 1;
	}
	disk = open(argv[1], O_RDWR);
	mem = open("/dev/shm", O_TMPFILE | O_RDWR, 0600);
	if (disk < 0 || mem < 0 || ftruncate(mem, 2 * MEM_PAGES * PG) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sock) || pipe(go)) {
		perror("forms");
		return 1;
	}
	if (mmap(at(BASE + PG), (MEM_PAGES - 1) * PG, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, mem, PG) == MAP_FAILED)
		return 1;
	pread64(disk, at(BASE + 2 * PG), 4136, 0);		/* the header probe */
	pread64(disk, at(BASE + 3 * PG), PG, 1 << 20);		/* past the end: 0 */
	pread64(disk, at(BASE + 3 * PG), PG, -PG);		/* EINVAL */
	pread64(disk, local, PG, 0);				/* outside memory */
	preadv(disk, &iov, 1, 0);
	p = mmap(at(ELSEWHERE), PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mem, 5 * PG);
	pread64(disk, p, PG, 9 * PG);				/* into page 5 */
	munmap(p, PG);
	p = mmap(NULL, PG, PROT_READ, MAP_SHARED, mem, MEM_PAGES * PG);	/* past memory */
	munmap(p, PG);
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(p, PG);
	mmap(NULL, PG, PROT_READ, MAP_SHARED, sock[0], 0);	/* ENODEV */
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);

	set_next_pid();
	io = clone(io_thread, stack + sizeof(stack), CLONE_VM | CLONE_FILES | SIGCHLD, NULL);
	if (io < 0 || write(go[1], "g", 1) != 1)
		return 1;
	/* while the io thread reads, the kernel maps pages elsewhere */
	for (i = 0; i < 8; i++) {
		p = mmap(at(ELSEWHERE + (1 + i) * PG), PG, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, mem, (off_t)(1 + i) * PG);
		munmap(p, PG);
	}
	usleep(200000);
	kill(io, SIGKILL);
	waitpid(io, NULL, 0);
	return 0;
}
