/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * input.c - a trace's bytes, read ahead.  A thread reads the data
 * (plain data as it is, gzip data inflated member by member) into a
 * ring of chunks while the decoder works on the chunk before: reading or
 * inflating and decoding then take the time of the slower of the two, not
 * of both.
 *
 * The caller reads the first, small chunk itself (and, where no thread
 * can be had, all the others into the same buffer).  The thread starts
 * at open when the file is larger than that, on another CPU than the
 * caller's, and faults its ring in while the caller reads on in small
 * chunks; then the caller hands it the stream.  Otherwise it starts only
 * if the data outgrows the first chunk, so that a trace that fits (a
 * test, a fuzzer's input) costs neither a thread nor the ring.
 *
 * Each chunk keeps room before its data, so that the unread tail of the
 * previous chunk (a record or line cut in two) can be put in front of it
 * and the decoder always sees its bytes in one piece.
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/internal.h"
#include "util/handoff.h"
#include "util/hugemem.h"
#include "util/util.h"
#include "util/xalloc.h"

#define NR_CHUNKS 6		/* one decoded, the others read ahead */
/* Wake a sleeping reader only when this many chunks are free: fewer wake-ups. */
#define WAKE_FREE 3

#define ZBUF_BYTES (64 * 1024)	/* compressed data read at a time */

struct trace_input {
	int fd;
	int gzip;			/* inflate the data, member after member */
	z_stream zs;
	unsigned char *zbuf;
	uint64_t zoff;			/* file offset of zs.next_in */
	uint64_t off;			/* plain data: bytes read */
	uint64_t member;		/* file offset where the current member starts */
	int member_done, raw_eof;
	struct input_chunk first;	/* read by the caller */
	unsigned char *first_mem;
	int first_taken;
	atomic_uint ring_ready;		/* the thread has faulted its ring in */
	atomic_uint may_read;		/* the caller has handed over the stream */
	int threaded;			/* the reader thread runs (or ran) */
	int no_thread;			/* none: turned off, or not to be had */
	pthread_t thread;
	struct handoff filled, emptied;	/* the caller's wait; the thread's */
	/* ring chunks, from the start: filled, handed out, given back */
	atomic_uint produced, released;
	unsigned taken;			/* the caller's alone */
	atomic_uint stop;
	struct input_chunk ring[NR_CHUNKS];
	unsigned char *mem;
};

/*
 * The ring lives in one block of a huge page (util/hugemem.h): on a
 * virtual machine the first touch of every 4 KiB page and TLB misses on
 * them cost more than decoding what the page holds.  Anonymous memory
 * starts zeroed, so the decoder's loads past the data read defined bytes.
 */
#define CHUNK_BYTES	(INPUT_HEAD + INPUT_CHUNK + TRACE_BUF_SLACK)
_Static_assert(NR_CHUNKS * CHUNK_BYTES <= RING_BYTES, "the ring fits its block");
_Static_assert(RING_BYTES % HUGE_BYTES == 0, "the ring is whole huge pages");

unsigned char *ring_alloc(void)
{
	return huge_map(RING_BYTES);
}

void ring_free(unsigned char *p)
{
	huge_unmap(p, RING_BYTES);
}

/* Read more compressed data when all of it is used: -1 on a read error. */
static int zfill(struct trace_input *in)
{
	ssize_t n;

	if (in->zs.avail_in || in->raw_eof)
		return 0;
	do
		n = read(in->fd, in->zbuf, ZBUF_BYTES);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	in->raw_eof = n == 0;
	in->zs.next_in = in->zbuf;
	in->zs.avail_in = (uInt)n;
	return 0;
}

/*
 * Whether another gzip member follows the one just ended: 1, 0 at the
 * end of the file, -1 if something else follows (trailing data, or a
 * member whose header is damaged).
 */
static int next_member(struct trace_input *in)
{
	if (zfill(in))
		return -2;
	if (!in->zs.avail_in)
		return 0;
	if (in->zs.next_in[0] != 0x1f)
		return -1;
	if (in->zs.avail_in == 1) {	/* its second byte in the next read */
		in->zbuf[0] = 0x1f;
		in->zs.next_in = in->zbuf;
		in->zs.avail_in = 0;
		do {
			ssize_t n = read(in->fd, in->zbuf + 1, ZBUF_BYTES - 1);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -2;
			in->raw_eof = n == 0;
			in->zs.avail_in = 1 + (uInt)n;
			break;
		} while (1);
		if (in->zs.avail_in == 1)
			return -1;
	}
	return in->zs.next_in[1] == 0x8b ? 1 : -1;
}

/*
 * Inflate up to @want bytes into @out: the number (0 at the clean end), or
 * -1 with @c's error set.  Members are read to the end of the file; what
 * follows the last one, and every break, is named by its byte offset in
 * the file (as gzip -t finds it).
 */
static long inflate_some(struct trace_input *in, unsigned char *out, size_t want,
			 struct input_chunk *c)
{
	z_stream *zs = &in->zs;

	zs->next_out = out;
	zs->avail_out = (uInt)want;
	while (zs->avail_out == want) {
		uInt before;
		int rc;

		if (in->member_done) {
			rc = next_member(in);
			if (rc == 0)
				return 0;
			if (rc == -2)
				goto read_error;
			if (rc < 0) {
				c->errnum = Z_DATA_ERROR;
				snprintf(c->why, sizeof(c->why),
					 "data after the last gzip member, at byte %llu of the file",
					 (unsigned long long)in->zoff);
				return -1;
			}
			inflateReset(zs);
			in->member_done = 0;
			in->member = in->zoff;
		}
		if (zfill(in))
			goto read_error;
		if (!zs->avail_in && in->raw_eof) {
			c->errnum = Z_BUF_ERROR;
			snprintf(c->why, sizeof(c->why),
				 "unexpected end of file at byte %llu, in the gzip member from byte %llu",
				 (unsigned long long)in->zoff, (unsigned long long)in->member);
			return -1;
		}
		before = zs->avail_in;
		rc = inflate(zs, Z_NO_FLUSH);
		in->zoff += before - zs->avail_in;
		if (rc == Z_STREAM_END)
			in->member_done = 1;
		else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			c->errnum = rc == Z_MEM_ERROR ? Z_MEM_ERROR : Z_DATA_ERROR;
			snprintf(c->why, sizeof(c->why),
				 "%s, at byte %llu of the file, in the gzip member from byte %llu",
				 zs->msg ? zs->msg : "bad data", (unsigned long long)in->zoff,
				 (unsigned long long)in->member);
			return -1;
		}
	}
	return (long)(want - zs->avail_out);
read_error:
	c->errnum = Z_ERRNO;
	c->sys_errno = errno;
	snprintf(c->why, sizeof(c->why), "%s", strerror(errno));
	return -1;
}

/* Up to @want bytes of the data (inflated if it is gzip), as inflate_some. */
static long read_some(struct trace_input *in, unsigned char *out, size_t want,
		      struct input_chunk *c)
{
	ssize_t n;

	if (in->gzip)
		return inflate_some(in, out, want, c);
	do
		n = read(in->fd, out, want);
	while (n < 0 && errno == EINTR);
	if (n >= 0) {
		in->off += (uint64_t)n;
		return (long)n;
	}
	c->errnum = Z_ERRNO;
	c->sys_errno = errno;
	snprintf(c->why, sizeof(c->why), "%s", strerror(errno));
	return -1;
}

/* Fill @c from the stream with @want bytes, unless the data ends or breaks. */
static void fill_chunk(struct trace_input *in, struct input_chunk *c, size_t want)
{
	c->len = 0;
	c->end = 0;
	c->errnum = Z_OK;
	c->file_start = in->gzip ? in->zoff : in->off;
	while (c->len < want) {
		long n = read_some(in, c->data + c->len, want - c->len, c);

		if (n > 0) {
			c->len += (size_t)n;
			continue;
		}
		c->end = 1;
		break;		/* the clean end (n == 0), or the error set */
	}
	c->file_end = in->gzip ? in->zoff : in->off;
}

/*
 * Start the thread on another CPU than the caller's, and let it go where
 * the scheduler likes once it runs: on a virtual machine, a thread
 * started beside its parent waited up to 4 ms to be moved (measured).
 */
#if defined(HAVE_PTHREAD_ATTR_SETAFFINITY_NP) && defined(HAVE_SCHED_GETCPU)
static void cpu_elsewhere(pthread_attr_t *attr)
{
	cpu_set_t set;
	int here = sched_getcpu(), cpu;

	if (here < 0 || sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (cpu != here && CPU_ISSET(cpu, &set))
			break;
	if (cpu == CPU_SETSIZE)
		return;		/* one CPU: nowhere else to go */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

/* Back to the CPUs the process may use (the thread inherited them). */
void cpu_unpin(void)
{
	cpu_set_t set;

	if (!sched_getaffinity(getpid(), sizeof(set), &set))
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}
#else
static void cpu_elsewhere(pthread_attr_t *attr)
{
}

void cpu_unpin(void)
{
}
#endif

int thread_start_elsewhere(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc;

	pthread_attr_init(&attr);
	cpu_elsewhere(&attr);
	rc = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc;
}

/*
 * The caller's waits spin a while before they sleep (util/handoff.h).
 * The thread's wait for a free chunk does not spin (@spin_us 0): it is
 * woken only once WAKE_FREE chunks are free, with the chunks still filled
 * to decode meanwhile, so the time a wake-up takes is hidden; spinning
 * there cost the replay a third more CPU time when the replay is the
 * slower side (measured: 0.27-0.32 s against 0.20 s on 5.5 M events).
 */
#define SPIN_US 300

/* The thread's waits: for the stream, for a free chunk; or to stop. */
static int stream_handed_over(void *arg)
{
	struct trace_input *in = arg;

	return handoff_load(&in->may_read) || handoff_load(&in->stop);
}

static int chunk_free(void *arg)
{
	struct trace_input *in = arg;

	return handoff_load(&in->produced) - handoff_load(&in->released) < NR_CHUNKS ||
	       handoff_load(&in->stop);
}

/* The caller's wait: for a filled chunk. */
static int chunk_filled(void *arg)
{
	struct trace_input *in = arg;

	return handoff_load(&in->produced) != in->taken;
}

static void *read_ahead(void *arg)
{
	struct trace_input *in = arg;
	struct input_chunk *c;
	size_t off;

	/* Fault the ring in; started early, while the caller still reads. */
	for (off = 0; off < RING_BYTES; off += 4096)
		in->mem[off] = 0;
	cpu_unpin();
	handoff_store(&in->ring_ready, 1);
	handoff_wait(&in->emptied, stream_handed_over, in, SPIN_US);

	for (;;) {
		handoff_wait(&in->emptied, chunk_free, in, 0);
		if (handoff_load(&in->stop))
			return NULL;
		c = &in->ring[handoff_load(&in->produced) % NR_CHUNKS];
		fill_chunk(in, c, INPUT_CHUNK);
		handoff_store(&in->produced, handoff_load(&in->produced) + 1);
		handoff_wake(&in->filled);
		if (c->end)
			return NULL;
	}
}

static int start_thread(struct trace_input *in);

struct trace_input *input_open(int fd, int gzip, int early)
{
	struct trace_input *in = xcalloc(1, sizeof(*in), "a trace's input");
	const char *off;

	in->fd = fd;
	in->gzip = gzip;
	if (gzip) {
		in->zbuf = xmalloc(ZBUF_BYTES, "a trace's gzip buffer");
		if (inflateInit2(&in->zs, 15 + 16) != Z_OK)	/* Z_MEM_ERROR */
			die_oom("a trace's gzip stream");
	}
	/*
	 * Zeroed: the decoder's loads may reach past the data.  The room
	 * before it serves only if there is no thread and this buffer is
	 * read into again; its pages are touched only then.
	 */
	in->first_mem = xcalloc(1, INPUT_HEAD + INPUT_FIRST_CHUNK + TRACE_BUF_SLACK,
				"a trace's first chunk");
	in->first.data = in->first_mem + INPUT_HEAD;
	off = getenv("ANONSIM_READAHEAD");
	in->no_thread = off && !strcmp(off, "0");	/* see anonsim(1) */
	if (early && !in->no_thread)
		start_thread(in);	/* if it fails, it is tried again later */
	return in;
}

/* Past the first chunk: the ring and the thread that fills it. */
static int start_thread(struct trace_input *in)
{
	unsigned i;
	int rc;

	in->mem = ring_alloc();
	if (!in->mem)
		return -1;
	for (i = 0; i < NR_CHUNKS; i++)
		in->ring[i].data = in->mem + i * CHUNK_BYTES + INPUT_HEAD;
	handoff_init(&in->filled);
	handoff_init(&in->emptied);
	rc = thread_start_elsewhere(&in->thread, read_ahead, in);
	if (rc) {
		handoff_destroy(&in->emptied);
		handoff_destroy(&in->filled);
		ring_free(in->mem);
		in->mem = NULL;
		return -1;
	}
	in->threaded = 1;
	return 0;
}

/* The first chunk, read here. */
static const struct input_chunk *take_first(struct trace_input *in)
{
	fill_chunk(in, &in->first, INPUT_FIRST_CHUNK);
	in->first_taken = 1;
	return &in->first;
}

/* Read on here, into the first buffer, the carry in front. */
static const struct input_chunk *read_here(struct trace_input *in,
					   const unsigned char *carry, size_t carry_len)
{
	struct input_chunk *c = &in->first;

	memmove(c->data - carry_len, carry, carry_len);	/* it may lie in c */
	fill_chunk(in, c, INPUT_FIRST_CHUNK);
	return c;
}

/*
 * Hand the stream to the thread once its ring is in: until then (a huge
 * page to clear, from some hundred microseconds to some milliseconds on a
 * virtual machine) the caller reads on itself rather than wait.  Whether
 * it was handed over.
 */
static int hand_over(struct trace_input *in)
{
	if (!handoff_load(&in->ring_ready))
		return 0;
	handoff_store(&in->may_read, 1);
	handoff_wake(&in->emptied);
	return 1;
}

const struct input_chunk *input_next(struct trace_input *in, const unsigned char *carry,
				     size_t carry_len)
{
	struct input_chunk *c;

	if (!in->first_taken)
		return take_first(in);	/* nothing held, nothing to carry */
	if (!in->threaded && (in->no_thread || start_thread(in))) {
		in->no_thread = 1;
		return read_here(in, carry, carry_len);
	}
	if (!handoff_load(&in->may_read) && !hand_over(in))
		return read_here(in, carry, carry_len);

	handoff_wait(&in->filled, chunk_filled, in, SPIN_US);
	c = &in->ring[in->taken % NR_CHUNKS];
	/* The carry lies in the chunk still held: copy before giving it back. */
	if (carry_len)
		memcpy(c->data - carry_len, carry, carry_len);
	in->taken++;
	handoff_store(&in->released, in->taken - 1);
	if (NR_CHUNKS - (handoff_load(&in->produced) - (in->taken - 1)) >= WAKE_FREE)
		handoff_wake(&in->emptied);
	return c;
}

void input_close(struct trace_input *in)
{
	if (!in)
		return;
	if (in->threaded) {
		handoff_store(&in->stop, 1);
		handoff_wake(&in->emptied);
		pthread_join(in->thread, NULL);	/* it ends after at most one chunk */
		handoff_destroy(&in->emptied);
		handoff_destroy(&in->filled);
		ring_free(in->mem);
	}
	if (in->gzip)
		inflateEnd(&in->zs);
	free(in->zbuf);
	close(in->fd);
	free(in->first_mem);
	free(in);
}
