/* SPDX-License-Identifier: GPL-2.0-only */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>

#include "model/jobs.h"

struct pool {
	pthread_mutex_t lock;
	const struct job_ops *ops;
	void *ctx;
};

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		char err[1024] = "";
		uint64_t task;
		bool more;
		int rc;

		pthread_mutex_lock(&p->lock);
		more = p->ops->next(p->ctx, &task);
		pthread_mutex_unlock(&p->lock);
		if (!more)
			return NULL;

		rc = p->ops->run(p->ctx, task, err, sizeof(err));

		pthread_mutex_lock(&p->lock);
		p->ops->done(p->ctx, task, rc, err);
		pthread_mutex_unlock(&p->lock);
	}
}

void jobs_run(unsigned threads, const struct job_ops *ops, void *ctx)
{
	struct pool p = { .ops = ops, .ctx = ctx };
	pthread_t *tid = NULL;
	unsigned t, started = 0;

	pthread_mutex_init(&p.lock, NULL);
	if (threads > 1)
		tid = calloc(threads - 1, sizeof(*tid));
	for (t = 1; tid && t < threads; t++)
		if (!pthread_create(&tid[started], NULL, worker, &p))
			started++;
	worker(&p);	/* the calling thread works too */
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	free(tid);
	pthread_mutex_destroy(&p.lock);
}
