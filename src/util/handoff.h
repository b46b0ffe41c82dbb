/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * handoff.h - one thread waits for what another hands it: a ring's next
 * slot filled, or one freed.  The waiter spins a while, yielding the CPU,
 * before it sleeps: on a virtual machine waking a sleeping thread took
 * some hundreds of microseconds (measured), while a slot is used in some
 * tens.  The side that changes the state stores it first, then wakes.
 */
#ifndef ANONSIM_HANDOFF_H
#define ANONSIM_HANDOFF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct handoff {
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

void handoff_init(struct handoff *w);
void handoff_destroy(struct handoff *w);

/* Wait until @ready(@arg), spinning up to @spin_us first (0: sleep at once). */
void handoff_wait(struct handoff *w, int (*ready)(void *), void *arg, uint64_t spin_us);

/* Wake a thread that waits on @w, after the change it waits for. */
void handoff_wake(struct handoff *w);

/* What one thread stores, the other loads: all it wrote before is seen. */
static inline unsigned handoff_load(atomic_uint *v)
{
	return atomic_load_explicit(v, memory_order_acquire);
}

static inline void handoff_store(atomic_uint *v, unsigned x)
{
	atomic_store_explicit(v, x, memory_order_release);
}

#endif
