/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * handoff.c - waiting for another thread (see handoff.h).
 */
#include <config.h>

#include <sched.h>

#include "util/handoff.h"
#include "util/util.h"

void handoff_init(struct handoff *w)
{
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
}

void handoff_destroy(struct handoff *w)
{
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}

void handoff_wait(struct handoff *w, int (*ready)(void *), void *arg, uint64_t spin_us)
{
	uint64_t until = monotonic_us() + spin_us;

	while (!ready(arg)) {
		if (!spin_us || monotonic_us() > until) {
			pthread_mutex_lock(&w->lock);
			while (!ready(arg))
				pthread_cond_wait(&w->cond, &w->lock);
			pthread_mutex_unlock(&w->lock);
			return;
		}
		sched_yield();	/* to a thread that waits for this CPU */
	}
}

void handoff_wake(struct handoff *w)
{
	pthread_mutex_lock(&w->lock);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}
