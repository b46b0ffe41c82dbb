/*
 * trace_input.c - a trace's bytes, read ahead.  A thread pulls the data
 * through zlib (plain data passes through, gzip data is inflated) into a
 * ring of chunks while the decoder works on the chunk before: reading or
 * inflating and decoding then take the time of the slower of the two, not
 * of both.
 *
 * Each chunk keeps room before its data, so that the unread tail of the
 * previous chunk (a record or line cut in two) can be put in front of it
 * and the decoder always sees its bytes in one piece.
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

#define NR_CHUNKS 3		/* one decoded, two read ahead */

struct trace_input {
	gzFile gz;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	unsigned produced, taken, released;	/* chunks, counted from the start */
	int stop;
	struct input_chunk ring[NR_CHUNKS];
	unsigned char *mem[NR_CHUNKS];
};

/* gzerror's message without the name of the file zlib puts first. */
static const char *gz_why(gzFile gz, int *errnum)
{
	const char *why = gzerror(gz, errnum), *colon = strrchr(why, ':');

	return colon && colon[1] == ' ' ? colon + 2 : why;
}

/* Fill @c from the stream: a whole chunk unless the data ends or breaks. */
static void fill_chunk(struct trace_input *in, struct input_chunk *c)
{
	c->len = 0;
	c->end = 0;
	c->errnum = Z_OK;
	while (c->len < INPUT_CHUNK) {
		int n = gzread(in->gz, c->data + c->len, (unsigned)(INPUT_CHUNK - c->len));
		const char *why;

		if (n > 0) {
			c->len += (size_t)n;
			continue;
		}
		c->end = 1;
		c->sys_errno = errno;
		why = gz_why(in->gz, &c->errnum);
		if (n == 0 && c->errnum == Z_OK)
			return;		/* the clean end */
		if (c->errnum == Z_OK)	/* -1 without a reason: say so */
			c->errnum = Z_STREAM_ERROR;
		snprintf(c->why, sizeof(c->why), "%s", why);
		return;
	}
}

static void *read_ahead(void *arg)
{
	struct trace_input *in = arg;
	struct input_chunk *c;

	for (;;) {
		pthread_mutex_lock(&in->lock);
		while (!in->stop && in->produced - in->released == NR_CHUNKS)
			pthread_cond_wait(&in->emptied, &in->lock);
		if (in->stop) {
			pthread_mutex_unlock(&in->lock);
			return NULL;
		}
		c = &in->ring[in->produced % NR_CHUNKS];
		pthread_mutex_unlock(&in->lock);

		fill_chunk(in, c);

		pthread_mutex_lock(&in->lock);
		in->produced++;
		pthread_cond_signal(&in->filled);
		pthread_mutex_unlock(&in->lock);
		if (c->end)
			return NULL;
	}
}

struct trace_input *input_open(gzFile gz)
{
	struct trace_input *in = calloc(1, sizeof(*in));
	unsigned i;

	if (!in)
		return NULL;
	in->gz = gz;
	/* Zeroed memory: the decoder's loads may reach past the data. */
	for (i = 0; i < NR_CHUNKS; i++) {
		in->mem[i] = calloc(1, INPUT_HEAD + INPUT_CHUNK + TRACE_BUF_SLACK);
		if (!in->mem[i])
			goto fail;
		in->ring[i].data = in->mem[i] + INPUT_HEAD;
	}
	pthread_mutex_init(&in->lock, NULL);
	pthread_cond_init(&in->filled, NULL);
	pthread_cond_init(&in->emptied, NULL);
	if (pthread_create(&in->thread, NULL, read_ahead, in)) {
		pthread_cond_destroy(&in->emptied);
		pthread_cond_destroy(&in->filled);
		pthread_mutex_destroy(&in->lock);
		goto fail;
	}
	return in;

fail:
	for (i = 0; i < NR_CHUNKS; i++)
		free(in->mem[i]);
	free(in);
	return NULL;
}

const struct input_chunk *input_next(struct trace_input *in, const unsigned char *carry,
				     size_t carry_len)
{
	struct input_chunk *c;

	pthread_mutex_lock(&in->lock);
	while (in->produced == in->taken)
		pthread_cond_wait(&in->filled, &in->lock);
	pthread_mutex_unlock(&in->lock);

	c = &in->ring[in->taken % NR_CHUNKS];
	/* The carry lies in the chunk still held: copy before giving it back. */
	if (carry_len)
		memcpy(c->data - carry_len, carry, carry_len);
	in->taken++;

	pthread_mutex_lock(&in->lock);
	in->released = in->taken - 1;
	pthread_cond_signal(&in->emptied);
	pthread_mutex_unlock(&in->lock);
	return c;
}

void input_close(struct trace_input *in)
{
	unsigned i;

	if (!in)
		return;
	pthread_mutex_lock(&in->lock);
	in->stop = 1;
	pthread_cond_signal(&in->emptied);
	pthread_mutex_unlock(&in->lock);
	pthread_join(in->thread, NULL);	/* it ends after at most one chunk */
	pthread_cond_destroy(&in->emptied);
	pthread_cond_destroy(&in->filled);
	pthread_mutex_destroy(&in->lock);
	gzclose_r(in->gz);
	for (i = 0; i < NR_CHUNKS; i++)
		free(in->mem[i]);
	free(in);
}
