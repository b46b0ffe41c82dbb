/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup.c - a memory cgroup and a swap file for a live run under pressure.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "live/cgroup.h"
#include "live/measure.h"
#include "live/scratch.h"
#include "util/util.h"

#define MEMCG_ROOT "/sys/fs/cgroup/memory"
#define PG_SIZE 4096u

static char group[PATH_MAX];
static char swap_path[PATH_MAX];

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (close(fd))
		ok = 0;
	return ok ? 0 : -1;
}

static int64_t read_number(const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", group, name);
	return read_number_file(path);
}

int cgroup_open(uint64_t limit, char *err, size_t errlen)
{
	char text[32];

	if (access(MEMCG_ROOT "/memory.limit_in_bytes", F_OK))
		return set_error(err, errlen,
				 "--host-mem needs the cgroup v1 memory controller at " MEMCG_ROOT);
	snprintf(group, sizeof(group), MEMCG_ROOT "/anonsim-live.%ld", (long)getpid());
	if (mkdir(group, 0755)) {
		set_error(err, errlen, "%s: %s%s", group, strerror(errno),
			  errno == EACCES || errno == EPERM ?
			  " (--host-mem needs root: a memory cgroup and a swap file)" : "");
		group[0] = '\0';
		return -1;
	}
	scratch_remove_dir_last(group);
	snprintf(text, sizeof(text), "%llu", (unsigned long long)limit);
	if (write_file(group, "memory.limit_in_bytes", text))
		return set_error(err, errlen, "%s: cannot set memory.limit_in_bytes to %s: %s",
				 group, text, strerror(errno));
	return 0;
}

int cgroup_add(pid_t pid, char *err, size_t errlen)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", (long)pid);
	if (write_file(group, "cgroup.procs", text))
		return set_error(err, errlen, "%s: cannot add process %s: %s", group, text,
				 strerror(errno));
	return 0;
}

int64_t cgroup_pages(void)
{
	int64_t b = read_number("memory.usage_in_bytes");

	return b < 0 ? -1 : b / PG_SIZE;
}

/*
 * Swap is memory+swap less memory, two counters read one after the other:
 * memory read on both sides of memory+swap, until it held still between
 * (else a page charged or freed between the reads passes for swap, and a
 * run that never swapped would have swapped when it was busiest).
 */
int64_t cgroup_swap_pages(void)
{
	int64_t all = 0, mem = 0, mem2 = 0;
	int tries;

	for (tries = 0; tries < 16; tries++) {
		mem = read_number("memory.usage_in_bytes");
		all = read_number("memory.memsw.usage_in_bytes");
		mem2 = read_number("memory.usage_in_bytes");
		if (all < 0 || mem < 0 || mem2 < 0)
			return -1;
		if (mem == mem2)
			break;
	}
	if (mem2 > mem)
		mem = mem2;	/* still moving: no more swap than surely is */
	return all > mem ? (all - mem) / PG_SIZE : 0;
}

void cgroup_close(void)
{
	if (!group[0])
		return;
	write_file(group, "memory.limit_in_bytes", "-1");
	write_file(group, "memory.force_empty", "0");
	rmdir(group);
	group[0] = '\0';
}

/* The swap header mkswap writes (version 1): the last page, the magic. */
static int write_swap_header(int fd, uint64_t pages)
{
	unsigned char page[PG_SIZE];
	uint32_t version = 1, last = (uint32_t)(pages - 1);

	memset(page, 0, sizeof(page));
	memcpy(page + 1024, &version, 4);
	memcpy(page + 1028, &last, 4);
	memcpy(page + PG_SIZE - 10, "SWAPSPACE2", 10);
	return pwrite(fd, page, sizeof(page), 0) == (ssize_t)sizeof(page) ? 0 : -1;
}

/*
 * The host's swap is one pool: pages of any memory cgroup go to any swap
 * file, and a swapoff brings every page of its file back, charging it to
 * its cgroup (an OOM kill where that is full).  So one run at a time has
 * a swap file: this lock, the recorders' scripts' too (hostlib.sh), is
 * held from before the file is made until it is switched off; the
 * process's end lets it go.
 */
static int swap_lock_fd = -1;

static int swap_lock(char *err, size_t errlen)
{
	const char *path = access("/run/lock", W_OK) == 0 ? "/run/lock/anonsim-swap" :
			   "/tmp/anonsim-swap.lock";

	swap_lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (swap_lock_fd < 0)
		return set_error(err, errlen, "%s: %s", path, strerror(errno));
	if (flock(swap_lock_fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	fprintf(stderr, "anonsim live: waiting for another run's swap file to go (%s)\n", path);
	while (flock(swap_lock_fd, LOCK_EX))
		if (errno != EINTR) {
			set_error(err, errlen, "%s: %s", path, strerror(errno));
			close(swap_lock_fd);
			swap_lock_fd = -1;
			return -1;
		}
	return 0;
}

int swapfile_open(uint64_t size, char *err, size_t errlen)
{
	static unsigned char zeros[1 << 20];
	uint64_t pages = size / PG_SIZE, done;
	int fd;

	if (pages < 10 || pages > UINT32_MAX)
		return set_error(err, errlen, "--swap: a swap file of 40K to 16T");
	if (swap_lock_fd < 0 && swap_lock(err, errlen))
		return -1;
	fd = scratch_file(0, swap_path, sizeof(swap_path), err, errlen);
	if (fd < 0)
		return -1;
	/* written out, not sparse: swapon refuses holes */
	for (done = 0; done < pages * PG_SIZE; ) {
		uint64_t n = pages * PG_SIZE - done < sizeof(zeros) ?
			     pages * PG_SIZE - done : sizeof(zeros);

		if (write(fd, zeros, n) != (ssize_t)n) {
			set_error(err, errlen, "%s: writing the swap file: %s", swap_path,
				  strerror(errno));
			close(fd);
			return -1;
		}
		done += n;
	}
	if (fchmod(fd, 0600) || write_swap_header(fd, pages) || fsync(fd)) {
		set_error(err, errlen, "%s: %s", swap_path, strerror(errno));
		close(fd);
		return -1;
	}
	/*
	 * Its page cache dropped: swap writes go to the disk's blocks, not
	 * through it, and the machine's lists (/proc/vmstat, which
	 * bench/reclaim_trace.sh --lists reads) would carry it all the run
	 */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (swapon(swap_path, 0)) {
		set_error(err, errlen, "swapon %s: %s", swap_path, strerror(errno));
		swap_path[0] = '\0';
		return -1;
	}
	scratch_swapoff_at_exit(swap_path);
	return 0;
}

void swapfile_close(void)
{
	if (swap_path[0] && swapoff(swap_path) == 0)
		scratch_swapoff_at_exit(NULL);
	swap_path[0] = '\0';
	if (swap_lock_fd >= 0)
		close(swap_lock_fd);
	swap_lock_fd = -1;
}

/* The value of @key in a "key value" file such as /proc/vmstat; -1 if absent. */
static int64_t key_value(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[128];
	size_t n = strlen(key);
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ' ' && sscanf(line + n, "%lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

int64_t host_swap_outs(void)
{
	return key_value("/proc/vmstat", "pswpout");
}

/* memory.stat counts anonymous memory as rss, and its huge pages apart */
int64_t cgroup_anon_pages(void)
{
	char path[PATH_MAX + 64];
	int64_t rss, huge;

	snprintf(path, sizeof(path), "%s/memory.stat", group);
	rss = key_value(path, "rss");
	huge = key_value(path, "rss_huge");
	if (rss < 0 || huge < 0)
		return -1;
	return (rss + huge) / PG_SIZE;
}
