/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rec_host.c - host side of the anonsim recorder (Linux only).
 *
 *   anonsim-rec-host run LOG INTERVAL_MS TIMEOUT_S CONSOLE -- UML ARGS...
 *       Starts UML with standard input from /dev/null and its console on a
 *       pipe; every INTERVAL_MS samples the residency of UML's
 *       physical-memory file (mincore through /proc/PID/fd) and logs pages
 *       that became resident; timestamps each console line; copies the
 *       console to CONSOLE. Kills UML after TIMEOUT_S. At the end, with the
 *       file held open, logs its resident page count.
 *   anonsim-rec-host resident FILE    print the file's pages in the page
 *                                     cache (reads in flight included)
 *   anonsim-rec-host evict FILE       drop the file's pages from the cache
 *   anonsim-rec-host preads [--each] FILE
 *                                     pread(2) one page at each page number
 *                                     (a line "OFFSET LENGTH": those bytes)
 *                                     read from standard input, on one open
 *                                     file (one readahead state), in order;
 *                                     --each: after each read that changed
 *                                     it, "READS PAGES" of the file cached
 *   anonsim-rec-host damon pause|resume PID
 *                                     the host's DAMON contexts paused for
 *                                     the run of process PID (a script's
 *                                     shell), shared with other runs
 *
 * ANONSIM_REC_MEM (bytes of UML memory) tells the physical-memory file from
 * UML's smaller temporary files.  ANONSIM_REC_SHM names where the file is:
 * a deleted file whose path starts so (default /dev/shm/; QEMU's memfd
 * is "/memfd:memory-backend-memfd (deleted)"), or the file of that path.
 * With ANONSIM_REC_REFAULT set, a page that leaves the file (a VMM that
 * punches holes in it) and comes back is logged again.  ANONSIM_REC_MEMCG names a memory cgroup
 * (v1) without limit: UML runs in it, and every INTERVAL_MS the memory
 * it charges beyond page cache and tmpfs (memory.usage_in_bytes less
 * memory.stat's cache: anonymous and kernel memory of UML's host
 * processes, their page tables and kernel stacks among it) is logged when
 * it changes, with its anonymous part (memory.stat's rss).  With
 * ANONSIM_REC_MEMCG_SHARED set, the cgroup also holds UMLs started before
 * this one, frozen since: what it held when this UML started is taken
 * off (exact while those neither free nor swap what they hold).
 *
 * Log lines (CLOCK_MONOTONIC nanoseconds, as the preload library):
 *   T S                      UML started
 *   T I INODE                inode of the physical-memory file
 *   T N PAGE COUNT           file pages PAGE.. became resident
 *   T C TEXT                 one console line
 *   T F PAGES                resident pages of the file at the end
 *   T H PAGES ANON           UML's host processes hold PAGES beyond page
 *                            cache and tmpfs, ANON of them anonymous
 *                            (with ANONSIM_REC_MEMCG)
 *   T X STATUS               UML exited (or "T X timeout")
 *   T Z                      told UML was frozen (SIGUSR1): what was resident
 *                            and held then is logged before it; the recorder
 *                            then waits, sampling no more, until UML ends
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/cachestat.h"
#include "util/damon.h"

static const char *shm_dir = "/dev/shm/";

static volatile sig_atomic_t frozen_told;

static void on_frozen(int sig)
{
	(void)sig;
	frozen_told = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "anonsim-rec-host: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Resident pages of an open file, into vec (size pages); returns the count. */
static long residency(int fd, off_t size, unsigned char *vec)
{
	size_t len = (size_t)size, pages = (len + 4095) / 4096, i;
	long n = 0;
	void *p;
	if (len == 0)
		return 0;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	if (mincore(p, len, vec) != 0) {
		munmap(p, len);
		return -1;
	}
	munmap(p, len);
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

/* Pages of an open file in the page cache (util/cachestat.h); mincore's count without cachestat. */
static long cached_pages(int fd, off_t size, unsigned char *vec)
{
	int64_t n = cachestat_pages(fd, 0, 0);

	if (n >= 0)
		return (long)n;
	if (errno != ENOSYS)
		return -1;
	return residency(fd, size, vec);
}

static int cmd_resident(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char *vec;
	long n;
	if (fd < 0 || fstat(fd, &st) != 0)
		die(path);
	vec = malloc((size_t)st.st_size / 4096 + 1);
	if (!vec)
		die("malloc");
	n = cached_pages(fd, st.st_size, vec);
	free(vec);
	close(fd);
	if (n < 0)
		die("cachestat");
	printf("%ld\n", n);
	return 0;
}

static int cmd_evict(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	fdatasync(fd);
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		die("posix_fadvise");
	return 0;
}

/* The largest deleted file under shm_dir that PID holds open and that is
 * at least min_size bytes: UML's physical memory. UML creates one-page
 * temporary files there first (checks), so a smaller file is not it. */
static off_t min_size = 1 << 20;

static int find_physmem(pid_t pid)
{
	char dir[64], link[320], target[512];
	struct dirent *d;
	DIR *dp;
	int best = -1;
	off_t best_size = 0;

	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	dp = opendir(dir);
	if (!dp)
		return -1;
	while ((d = readdir(dp)) != NULL) {
		ssize_t n;
		struct stat st;
		if (d->d_name[0] == '.')
			continue;
		snprintf(link, sizeof link, "%s/%s", dir, d->d_name);
		n = readlink(link, target, sizeof target - 1);
		if (n <= 10)
			continue;
		target[n] = 0;
		/* a deleted file under shm_dir, or the file shm_dir names */
		if (strcmp(target, shm_dir) != 0 &&
		    (strncmp(target, shm_dir, strlen(shm_dir)) != 0 ||
		     strcmp(target + n - 10, " (deleted)") != 0))
			continue;
		if (stat(link, &st) == 0 && st.st_size >= min_size &&
		    st.st_size > best_size) {
			int fd = open(link, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				if (best >= 0)
					close(best);
				best = fd;
				best_size = st.st_size;
			}
		}
	}
	closedir(dp);
	return best;
}

static FILE *logfp;

static void log_console(const char *line, size_t n, uint64_t t)
{
	size_t i;
	fprintf(logfp, "%llu C ", (unsigned long long)t);
	for (i = 0; i < n; i++)
		if (line[i] != '\r')
			fputc(line[i] >= ' ' ? line[i] : ' ', logfp);
	fputc('\n', logfp);
}

static unsigned char *vec, *seen;
static int refault;	/* ANONSIM_REC_REFAULT: pages can leave the file */
static size_t vec_pages;

/* One residency sample: log the file's pages resident for the first time. */
static void sample(int physfd)
{
	struct stat st;
	size_t pages, i, run = 0;
	uint64_t ts;

	if (fstat(physfd, &st) != 0)
		return;
	pages = ((size_t)st.st_size + 4095) / 4096;
	if (pages > vec_pages) {
		vec = realloc(vec, pages);
		seen = realloc(seen, pages);
		if (!vec || !seen)
			die("realloc");
		memset(seen + vec_pages, 0, pages - vec_pages);
		vec_pages = pages;
	}
	if (residency(physfd, st.st_size, vec) < 0)
		return;
	ts = now_ns();
	for (i = 0; i <= pages; i++) {
		if (i < pages && (vec[i] & 1) && !seen[i]) {
			seen[i] = 1;
			run++;
			continue;
		}
		/* given back to the host (a punched hole): the next use is new */
		if (i < pages && refault && !(vec[i] & 1))
			seen[i] = 0;
		if (run) {
			fprintf(logfp, "%llu N %zu %zu\n", (unsigned long long)ts, i - run, run);
			run = 0;
		}
	}
}

/* A number from the first line of @path, or the value of @key in it; -1 if none. */
static long long memcg_value(const char *dir, const char *file, const char *key)
{
	char path[512], line[256];
	long long v = -1;
	size_t kl = key ? strlen(key) : 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!key || (!strncmp(line, key, kl) && line[kl] == ' ')) {
			v = atoll(line + kl);
			break;
		}
	fclose(f);
	return v;
}

/* What the memory cgroup holds beyond page cache and tmpfs, and the
 * anonymous part of it (memory.stat's rss), in pages; -1 if unreadable. */
static int memcg_host(const char *memcg, long long *pages, long long *anon)
{
	long long usage = memcg_value(memcg, "memory.usage_in_bytes", NULL);
	long long cache = memcg_value(memcg, "memory.stat", "cache");
	long long rss = memcg_value(memcg, "memory.stat", "rss");

	if (usage < 0 || cache < 0 || rss < 0)
		return -1;
	/* memory.stat lags the usage by its per-CPU batches: never below 0 */
	*pages = usage > cache ? (usage - cache) / 4096 : 0;
	*anon = rss / 4096;
	return 0;
}

/*
 * One sample of the memory cgroup: log UML's host memory, and the
 * anonymous part of it, if either changed.  @base: what the cgroup held
 * when UML started (ANONSIM_REC_MEMCG_SHARED), else zeros.
 */
static void sample_host(const char *memcg, const long long base[2], long long last[2])
{
	long long pages, anon;

	if (memcg_host(memcg, &pages, &anon))
		return;
	pages = pages > base[0] ? pages - base[0] : 0;
	anon = anon > base[1] ? anon - base[1] : 0;
	if (anon > pages)
		anon = pages;
	if (pages == last[0] && anon == last[1])
		return;
	last[0] = pages;
	last[1] = anon;
	fprintf(logfp, "%llu H %lld %lld\n", (unsigned long long)now_ns(), pages, anon);
}

static int cmd_run(int argc, char **argv)
{
	const char *logp = argv[0];
	long interval = atol(argv[1]), timeout_s = atol(argv[2]);
	FILE *con = fopen(argv[3], "w");
	char **uml = argv + 5;
	int pfd[2], physfd = -1, status = 0, exited = 0, eof = 0, freeze;
	pid_t pid;
	uint64_t start, deadline, next;
	char line[4096];
	size_t linen = 0;
	const char *memcg = getenv("ANONSIM_REC_MEMCG");
	const char *shared = getenv("ANONSIM_REC_MEMCG_SHARED");
	long long host_last[2] = { -1, -1 }, host_base[2] = { 0, 0 };

	if (argc < 6 || strcmp(argv[4], "--") != 0 || interval <= 0) {
		fprintf(stderr, "anonsim-rec-host run: bad arguments\n");
		return 2;
	}
	logfp = fopen(logp, "w");
	if (!logfp || !con)
		die("log");
	/* whole lines at once: a watcher of CONSOLE acts on a line (freezes
	 * UML at work-done) as the guest prints it */
	setvbuf(con, NULL, _IOLBF, 0);
	if (getenv("ANONSIM_REC_SHM"))
		shm_dir = getenv("ANONSIM_REC_SHM");
	refault = getenv("ANONSIM_REC_REFAULT") != NULL;
	if (getenv("ANONSIM_REC_MEM"))
		min_size = (off_t)atoll(getenv("ANONSIM_REC_MEM"));
	if (pipe2(pfd, O_CLOEXEC) != 0)
		die("pipe");
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_frozen;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGUSR1, &sa, NULL);
	}
	/* a cgroup shared with UMLs started (and frozen) before this one:
	 * this UML's is what it holds beyond what it held before */
	if (memcg && shared && *shared && memcg_host(memcg, &host_base[0], &host_base[1]))
		die(memcg);
	start = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (memcg) {
			char path[512];
			FILE *f;

			snprintf(path, sizeof path, "%s/cgroup.procs", memcg);
			f = fopen(path, "w");
			if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) {
				perror(path);
				_exit(126);
			}
		}
		dup2(nul, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		setpgid(0, 0);	/* one group: UML's helpers die with it */
		execvp(uml[0], uml);
		_exit(127);
	}
	close(pfd[1]);
	fprintf(logfp, "%llu S\n", (unsigned long long)start);
	deadline = start + (uint64_t)timeout_s * 1000000000u;
	next = start;

	for (;;) {
		struct pollfd pl = { .fd = eof ? -1 : pfd[0], .events = POLLIN };
		uint64_t t = now_ns();
		int wait_ms = t >= next ? 0 : (int)((next - t) / 1000000);

		if (poll(&pl, 1, wait_ms) > 0) {
			char buf[4096];
			ssize_t r = read(pfd[0], buf, sizeof buf);
			uint64_t tr = now_ns();
			if (r > 0) {
				fwrite(buf, 1, (size_t)r, con);
				for (ssize_t i = 0; i < r; i++) {
					if (buf[i] == '\n' || linen == sizeof line) {
						log_console(line, linen, tr);
						linen = 0;
					} else {
						line[linen++] = buf[i];
					}
				}
			} else {
				eof = 1;	/* every writer closed the console */
			}
		}
		if (!exited && waitpid(pid, &status, WNOHANG) == pid)
			exited = 1;
		t = now_ns();
		/* told UML is frozen: one last sample, of the state it froze in */
		freeze = frozen_told;
		if (t >= next || freeze) {
			struct stat st;
			next += (uint64_t)interval * 1000000u;
			if (next < t)
				next = t + (uint64_t)interval * 1000000u;
			if (physfd < 0 && !exited) {
				physfd = find_physmem(pid);
				if (physfd >= 0 && fstat(physfd, &st) == 0)
					fprintf(logfp, "%llu I %llu\n", (unsigned long long)now_ns(),
						(unsigned long long)st.st_ino);
			}
			if (physfd >= 0)
				sample(physfd);
			if (memcg && !exited)
				sample_host(memcg, host_base, host_last);
		}
		if (freeze) {
			/*
			 * then sample no more: wait for the frozen UML to be
			 * killed.  Not a SIGSTOP until SIGCONT: a told that
			 * comes late (its watcher slow on a loaded host) would
			 * stop the recorder after the SIGCONT was sent, for good
			 */
			frozen_told = 0;
			fprintf(logfp, "%llu Z\n", (unsigned long long)now_ns());
			fflush(logfp);
			while (!exited) {
				pid_t w = waitpid(pid, &status, 0);

				if (w == pid)
					exited = 1;
				else if (w < 0 && errno != EINTR)
					break;
			}
		}
		if (!exited && now_ns() > deadline) {
			fprintf(logfp, "%llu X timeout\n", (unsigned long long)now_ns());
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			exited = 2;
		}
		if (exited && (eof || pl.revents == 0))
			break;
		if (eof && !exited) {
			/* console closed but UML still alive: just wait */
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	if (linen)
		log_console(line, linen, now_ns());
	if (physfd >= 0) {
		struct stat st;
		sample(physfd);	/* what became resident after the last sample */
		if (fstat(physfd, &st) == 0)
			fprintf(logfp, "%llu F %ld\n", (unsigned long long)now_ns(),
				residency(physfd, st.st_size, vec));
	}
	if (exited == 1)
		fprintf(logfp, "%llu X %d\n", (unsigned long long)now_ns(),
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	/* UML's helpers (port-helper, io thread clones) share its group */
	kill(-pid, SIGKILL);
	fclose(con);
	if (fclose(logfp) != 0)
		die("log");
	return exited == 1 ? 0 : 3;
}

/*
 * @each: after each read that changed it, print "READS RESIDENT": the
 * staircase readahead builds, which the count at the end hides.
 */
static int cmd_preads(const char *path, int each)
{
	int fd = open(path, O_RDONLY);
	static char buf[1 << 20];
	char line[128];
	unsigned long long page, reads = 0;
	unsigned char *marks = NULL;
	long n, last = -1;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0)
		die(path);
	if (each && !(marks = malloc((size_t)st.st_size / 4096 + 1)))
		die("malloc");
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long off, len = 4096;
		int k = sscanf(line, "%llu %llu", &page, &len);

		if (k < 1)
			continue;
		off = k == 2 ? page : page * 4096;	/* OFFSET LENGTH */
		if (len > sizeof(buf))
			die("preads: a read longer than 1 MiB");
		/* one call, as the guest made it: its length is readahead's request */
		if (pread(fd, buf, (size_t)len, (off_t)off) < 0)
			die("pread");
		reads++;
		if (!each)
			continue;
		n = cached_pages(fd, st.st_size, marks);
		if (n < 0)
			die("cachestat");
		if (n != last)
			printf("%llu %ld\n", reads, n);
		last = n;
	}
	free(marks);
	close(fd);
	return 0;
}

/*
 * The host's DAMON contexts paused for the run of the script whose shell
 * is @pid (hostlib.sh), shared with other runs (util/damon.h): "pause"
 * prints none, paused or running; "resume" switches them on again when
 * no run is left.
 */
static int cmd_damon(const char *verb, const char *pid_arg)
{
	char *end;
	long pid = strtol(pid_arg, &end, 10);

	if (*end || pid <= 0) {
		fprintf(stderr, "anonsim-rec-host damon: %s is not a process id\n", pid_arg);
		return 2;
	}
	if (strcmp(verb, "pause") == 0) {
		puts(damon_state_name(damon_pause(damon_host_paths(), (pid_t)pid)));
		return 0;
	}
	if (strcmp(verb, "resume") == 0) {
		damon_resume(damon_host_paths(), (pid_t)pid);
		return 0;
	}
	fprintf(stderr, "anonsim-rec-host damon: pause or resume, not %s\n", verb);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "damon") == 0)
		return cmd_damon(argv[2], argv[3]);
	if (argc >= 3 && strcmp(argv[1], "resident") == 0)
		return cmd_resident(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "evict") == 0)
		return cmd_evict(argv[2]);
	if (argc >= 4 && strcmp(argv[1], "preads") == 0 && strcmp(argv[2], "--each") == 0)
		return cmd_preads(argv[3], 1);
	if (argc >= 3 && strcmp(argv[1], "preads") == 0)
		return cmd_preads(argv[2], 0);
	if (argc >= 8 && strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	fprintf(stderr,
		"usage: anonsim-rec-host run LOG INTERVAL_MS TIMEOUT_S CONSOLE -- UML ARGS...\n"
		"       anonsim-rec-host resident FILE\n"
		"       anonsim-rec-host evict FILE\n"
		"       anonsim-rec-host preads [--each] FILE < PAGES\n"
		"       anonsim-rec-host damon pause|resume PID\n");
	return 2;
}
