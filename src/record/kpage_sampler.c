/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kpage_sampler.c - runs inside the recorded guest (built with gcc -static).
 *
 * Reads /proc/kpageflags every INTERVAL milliseconds and prints, on its
 * standard output (the guest console, which the host recorder timestamps):
 *
 *   @anonsim K FIRST_PFN END_PFN INTERVAL_MS   once: the pfns with memory
 *   @anonsim F PFN COUNT     pages that went from used to free (in the
 *                            first sample: the pages free then)
 *   @anonsim A PFN COUNT     pages that went from free to used again
 *
 * A page is free when its flags are empty or it heads a buddy block; every
 * other page with memory behind it is used. Pages the kernel allocates
 * without setting any flag (vmalloc, stacks) therefore look free: a free
 * after such a use is missed, and none is invented.
 *
 * Usage: kpage-sampler [INTERVAL_MS]   (default 100; stops on SIGTERM)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KPF_BUDDY 10
#define KPF_NOPAGE 20
#define CHUNK 8192	/* pfns per read */

static char out[8192];
static size_t outn;

static void flush(void)
{
	size_t off = 0;
	while (off < outn) {
		ssize_t w = write(1, out + off, outn - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	outn = 0;
}

static void emit(char kind, uint64_t pfn, uint64_t n)
{
	if (outn + 64 > sizeof out)
		flush();
	outn += (size_t)snprintf(out + outn, sizeof out - outn,
		"@anonsim %c %llu %llu\n", kind, (unsigned long long)pfn,
		(unsigned long long)n);
}

static int page_state(uint64_t f)
{
	if (f & (1ull << KPF_NOPAGE))
		return -1;
	return (f == 0 || (f & (1ull << KPF_BUDDY))) ? 0 : 1;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100;
	int fd = open("/proc/kpageflags", O_RDONLY);
	uint64_t buf[CHUNK], first = UINT64_MAX, end = 0, pfn, i;
	signed char *state;
	struct timespec ts;

	if (fd < 0) {
		perror("kpage-sampler: /proc/kpageflags");
		return 1;
	}
	/* find the pfns that have memory behind them */
	for (pfn = 0;; pfn += CHUNK) {
		ssize_t r = pread(fd, buf, sizeof buf, (off_t)(pfn * 8));
		if (r <= 0)
			break;
		for (i = 0; i < (uint64_t)r / 8; i++)
			if (page_state(buf[i]) >= 0) {
				if (first == UINT64_MAX)
					first = pfn + i;
				end = pfn + i + 1;
			}
	}
	if (first == UINT64_MAX) {
		fprintf(stderr, "kpage-sampler: no pages in /proc/kpageflags\n");
		return 1;
	}
	state = calloc(end - first, 1);
	if (!state)
		return 1;
	outn = (size_t)snprintf(out, sizeof out, "@anonsim K %llu %llu %ld\n",
		(unsigned long long)first, (unsigned long long)end, ms);
	flush();

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	for (int round = 0;; round++) {
		/* runs of equal transitions are printed as one line */
		char run = 0;
		uint64_t run_start = 0, run_len = 0;
		for (pfn = first; pfn < end; pfn += CHUNK) {
			uint64_t want = end - pfn < CHUNK ? end - pfn : CHUNK;
			ssize_t r = pread(fd, buf, want * 8, (off_t)(pfn * 8));
			if (r <= 0)
				break;
			for (i = 0; i < (uint64_t)r / 8; i++) {
				uint64_t p = pfn + i;
				int s = page_state(buf[i]);
				char t = 0;
				/* the first round: the pages free already (the
				 * kernel's boot-time memory, the initramfs), whose
				 * frees came before the sampler */
				if (round == 0 && s == 0)
					t = 'F';
				if (s < 0)
					s = 0;
				if (round > 0 && s != state[p - first])
					t = s ? 'A' : 'F';
				state[p - first] = (signed char)s;
				if (t && t == run && p == run_start + run_len) {
					run_len++;
					continue;
				}
				if (run)
					emit(run, run_start, run_len);
				run = t;
				run_start = p;
				run_len = 1;
			}
		}
		if (run)
			emit(run, run_start, run_len);
		flush();
		nanosleep(&ts, NULL);
	}
}
