/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * best_time - the best wall time of a command over N runs, in nanoseconds.
 *
 *	best_time [-m] N COMMAND [ARG...]
 *
 * Runs COMMAND N times with its standard output on /dev/null and prints
 * the shortest wall time; with -m, then the largest resident set of the
 * runs in KiB.  Timing from here rather than from the shell
 * leaves out the start of the processes a shell would run to read the
 * clock, which would otherwise weigh on short commands more than on long
 * ones.  Exits 1 if a run fails.
 */
#include <config.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long long best = -1;
	long n, i;
	char *end;
	int rss = argc > 1 && !strcmp(argv[1], "-m");

	argv += rss;
	argc -= rss;
	if (argc < 3 || (n = strtol(argv[1], &end, 10)) < 1 || *end) {
		fprintf(stderr, "usage: best_time [-m] N COMMAND [ARG...]\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		long long t0 = now_ns(), t;
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("best_time: fork");
			return 1;
		}
		if (!pid) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
				_exit(127);
			execvp(argv[2], argv + 2);
			perror(argv[2]);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "best_time: %s failed\n", argv[2]);
			return 1;
		}
		t = now_ns() - t0;
		if (best < 0 || t < best)
			best = t;
	}
	if (rss) {
		struct rusage ru;

		getrusage(RUSAGE_CHILDREN, &ru);
		printf("%lld %ld\n", best, ru.ru_maxrss);
	} else {
		printf("%lld\n", best);
	}
	return 0;
}
