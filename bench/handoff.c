/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * handoff - what it costs to hand a trace's events from one CPU to another.
 *
 *	handoff [EVENTS]
 *
 * A replay could decode its trace on a second thread and take the events
 * ready-made; whether that pays depends on what moving them between CPUs
 * costs against decoding them where they are used.  This program writes
 * EVENTS events (default 5500000, replay.sh's trace) into a ring of 8
 * slots of 1024 and reads them back, three ways, best of 5 each, in
 * milliseconds:
 *
 *   decoded, one thread:   struct trace_event written and read on one CPU
 *   decoded, two threads:  written on one CPU, read on another
 *   encoded, two threads:  records of 25 bytes (the binary encoding's mean
 *                          on replay.sh's trace), written and read likewise
 *
 * The writer fills the fields a decoder fills, the reader loads the ones
 * replay reads.  Both sides spin while they wait, so the figures are the
 * transfer's best case.  Needs two CPUs; with one it says so and exits 0.
 */
#include <config.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/trace.h"

#define SLOTS 8
#define SLOT_EVENTS 1024
#define RECORD_BYTES 25
#define RUNS 5

static struct trace_event decoded[SLOTS][SLOT_EVENTS];
static unsigned char encoded[SLOTS][SLOT_EVENTS * RECORD_BYTES];
static atomic_uint filled, taken;
static long events = 5500000;
static int cpus[2];

#ifdef __linux__
static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Slot @s's events from @first, as a decoder writes them. */
static void write_slot(unsigned s, long first, int enc)
{
	long i;

	for (i = 0; i < SLOT_EVENTS; i++) {
		uint64_t v = (uint64_t)(first + i);

		if (enc) {
			unsigned char *p = &encoded[s][i * RECORD_BYTES];

			p[0] = (unsigned char)(v & 7);
			memcpy(p + 1, &v, 8);
			memcpy(p + 9, &v, 8);
			memcpy(p + 17, &v, 8);
		} else {
			struct trace_event *e = &decoded[s][i];

			e->time_us = v;
			e->kind = (enum trace_kind)(v & 7);
			e->dev = 0;
			e->page = v * 3;
			e->count = 1;
			e->offset = v;
			e->length = 4096;
			e->addr = 0;
			e->name[0] = '\0';
		}
	}
}

/* Slot @s's events, as replay reads them: a sum, so none is left out. */
static uint64_t read_slot(unsigned s, int enc)
{
	uint64_t sum = 0, a, b;
	long i;

	for (i = 0; i < SLOT_EVENTS; i++) {
		if (enc) {
			const unsigned char *p = &encoded[s][i * RECORD_BYTES];

			memcpy(&a, p + 1, 8);
			memcpy(&b, p + 9, 8);
			sum += p[0] + a + b;
		} else {
			const struct trace_event *e = &decoded[s][i];

			sum += e->time_us + e->page + e->count + e->offset + e->length + e->kind;
		}
	}
	return sum;
}

static void *writer(void *arg)
{
	int enc = *(const int *)arg;
	unsigned s = 0;
	long i;

	pin(cpus[1]);
	for (i = 0; i < events; i += SLOT_EVENTS, s++) {
		while (atomic_load_explicit(&filled, memory_order_relaxed) -
		       atomic_load_explicit(&taken, memory_order_acquire) >= SLOTS)
			;
		write_slot(s % SLOTS, i, enc);
		atomic_store_explicit(&filled, s + 1, memory_order_release);
	}
	return NULL;
}

/* One pass: milliseconds; *@sum what was read. */
static double pass(int threads, int enc, uint64_t *sum)
{
	pthread_t t;
	unsigned s = 0;
	double t0;
	long i;

	*sum = 0;
	atomic_store(&filled, 0);
	atomic_store(&taken, 0);
	pin(cpus[0]);
	t0 = now_ms();
	if (threads > 1 && pthread_create(&t, NULL, writer, &enc)) {
		fprintf(stderr, "handoff: cannot start a thread\n");
		exit(1);
	}
	for (i = 0; i < events; i += SLOT_EVENTS, s++) {
		if (threads > 1)
			while (atomic_load_explicit(&filled, memory_order_acquire) == s)
				;
		else
			write_slot(s % SLOTS, i, enc);
		*sum += read_slot(s % SLOTS, enc);
		atomic_store_explicit(&taken, s + 1, memory_order_release);
	}
	if (threads > 1)
		pthread_join(t, NULL);
	return now_ms() - t0;
}

static void measure(const char *what, int threads, int enc)
{
	double best = 0;
	uint64_t sum;
	int r;

	for (r = 0; r < RUNS; r++) {
		double ms = pass(threads, enc, &sum);

		if (!r || ms < best)
			best = ms;
	}
	printf("  %-24s %8.1f ms  %5.1f ns an event\n", what, best, best * 1e6 / (double)events);
}

int main(int argc, char **argv)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (argc > 2 || (argc == 2 && (events = atol(argv[1])) <= 0)) {
		fprintf(stderr, "usage: handoff [EVENTS]\n");
		return 1;
	}
	events = (events + SLOT_EVENTS - 1) / SLOT_EVENTS * SLOT_EVENTS;
	if (sched_getaffinity(0, sizeof(set), &set))
		CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	if (n < 2) {
		printf("handoff: one CPU here, nothing to hand off\n");
		return 0;
	}
	printf("%ld events handed from CPU %d to CPU %d (struct trace_event: %zu bytes):\n",
	       events, cpus[1], cpus[0], sizeof(struct trace_event));
	measure("decoded, one thread", 1, 0);
	measure("decoded, two threads", 2, 0);
	measure("encoded, two threads", 2, 1);
	return 0;
}
#else
int main(void)
{
	printf("handoff: pins threads to CPUs, which it does on Linux only\n");
	return 0;
}
#endif
