/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * races.c - processes racing on one /dev/anon descriptor: its first mmaps
 * (the tmpfs file made once, under the file's lock), then mmaps and
 * munmaps of the same pages.  UML runs one CPU without preemption, so the
 * processes interleave only where one sleeps (an allocation, a mutex, a
 * page lock): these are the windows this covers, not those of a second
 * CPU inside a spin-locked walk.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenarios.h"

#define PG		4096ul
#define RACERS		8
#define ROUNDS		200
#define NPG		64ul

/* Racer @n: maps the 64 pages, writes its mark, unmaps, ROUNDS times. */
static void racer(int fd, int go, int n)
{
	unsigned char *m;
	char c;
	int i;

	if (read(go, &c, 1) != 1)
		_exit(1);
	for (i = 0; i < ROUNDS; i++) {
		m = mmap(NULL, NPG * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			_exit(2);
		m[(unsigned long)n * PG] = (unsigned char)(n + 1);
		if (i % 16 == 0)
			sched_yield();
		if (munmap(m, NPG * PG))
			_exit(3);
	}
	_exit(0);
}

void races_scenario(void)
{
	long reclaimed0 = read_long(SYSFS "reclaimed");
	int fd = open("/dev/anon", O_RDWR), go[2], status, i, ok = 0;
	unsigned char *m;
	pid_t pid[RACERS];

	CHECK(fd >= 0 && pipe(go) == 0);
	if (fd < 0)
		return;
	/* all mapped at once: the pages stay while it holds them */
	fflush(stdout);
	for (i = 0; i < RACERS; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			racer(fd, go[0], i);
	}
	CHECK(write(go[1], "xxxxxxxx", RACERS) == RACERS);
	for (i = 0; i < RACERS; i++)
		if (pid[i] > 0 && waitpid(pid[i], &status, 0) == pid[i] &&
		    WIFEXITED(status) && !WEXITSTATUS(status))
			ok++;
	CHECK(ok == RACERS);
	/* one tmpfs file for the descriptor, whoever mapped first */
	CHECK(read_long(SYSFS "files") == 1);
	m = mmap(NULL, NPG * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	/* each racer's last write went when its last mapping did */
	for (i = 0; m != MAP_FAILED && i < RACERS; i++)
		CHECK(m[(unsigned long)i * PG] == 0);
	if (m != MAP_FAILED)
		CHECK(munmap(m, NPG * PG) == 0);
	printf("guest: races: %d processes, %d mmap/munmap rounds each on one descriptor: %ld pages reclaimed\n",
	       RACERS, ROUNDS, read_long(SYSFS "reclaimed") - reclaimed0);
	CHECK(read_long(SYSFS "reclaimed") - reclaimed0 >= RACERS);
	close(go[0]);
	close(go[1]);
	close(fd);
	CHECK(read_long(SYSFS "files") == 0);
	CHECK(read_long(SYSFS "map_table_pages") == 0);
}
