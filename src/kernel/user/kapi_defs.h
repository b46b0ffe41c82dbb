/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kapi_defs.h - src/kernel/kapi.h outside the kernel: the kernel's types,
 * constants and calls that the reference code uses, under their kernel
 * names, for the freestanding build and for the simulator (whose
 * implementation is kapi_user.c).  kapi.h includes it where __KERNEL__ is
 * not defined, after its page kinds; nothing else does.  No libc: the freestanding build
 * (tests/kernel/freestanding.sh) compiles it with -nostdinc.
 */
#ifndef ANONSIM_KAPI_DEFS_H
#define ANONSIM_KAPI_DEFS_H

/*
 * The kernel's own types under their kernel names, typedef'd as the kernel
 * does (include/linux/types.h, swap.h, spinlock_types.h).  __bitwise is
 * sparse's; nothing here.
 */
#define __bitwise

#ifndef __bool_true_false_are_defined	/* <stdbool.h> came first */
typedef _Bool bool;
#define true	1
#define false	0
#endif
#ifndef NULL
#define NULL	((void *)0)
#endif

typedef unsigned int __bitwise gfp_t;
#define GFP_KERNEL	0x0cc0u
#define __GFP_RETRY_MAYFAIL	0x4000u
#define __GFP_ACCOUNT	0x400000u
#define GFP_KERNEL_ACCOUNT	(GFP_KERNEL | __GFP_ACCOUNT)

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define BITS_PER_LONG	(8 * (int)sizeof(long))

#define ENOMEM		12
#define EINVAL		22
#define EFBIG		27

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE((unsigned long)ptr);
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

typedef struct {
	unsigned long val;
} swp_entry_t;

/*
 * A spin lock that remembers whether it is held, so that lockdep_assert_held
 * can report (not abort on) a walk done without it: the posted RFC code does
 * exactly that, and the simulator counts it as a finding.
 */
typedef struct {
	int held;
} spinlock_t;

void spin_lock_init(spinlock_t *lock);
/* a walk without the lock is counted (out of line); with it, nothing to do */
void kapi_lock_not_held(spinlock_t *lock);

static inline void lockdep_assert_held(spinlock_t *lock)
{
	if (unlikely(!lock->held))
		kapi_lock_not_held(lock);
}

/*
 * The current context's racers (kapi_user.h), NULL with no context: a
 * lock or unlock with none armed and nothing amiss is inline, the rest
 * (a racer to run, a misuse to count, no context) out of line.
 */
extern _Thread_local void (*const *kapi_lock_racer)(void *);
extern _Thread_local void (*const *kapi_unlock_racer)(void *);
void kapi_spin_lock_slow(spinlock_t *lock);
void kapi_spin_unlock_slow(spinlock_t *lock);

static inline void spin_lock(spinlock_t *lock)
{
	void (*const *racer)(void *) = kapi_lock_racer;

	if (likely(racer && !*racer && !lock->held))
		lock->held = 1;
	else
		kapi_spin_lock_slow(lock);
}

static inline void spin_unlock(spinlock_t *lock)
{
	void (*const *racer)(void *) = kapi_unlock_racer;

	if (likely(racer && !*racer && lock->held))
		lock->held = 0;
	else
		kapi_spin_unlock_slow(lock);
}

/*
 * Let the scheduler run if it wants the CPU, dropping @lock meanwhile;
 * nonzero if the lock was dropped.  Userspace counts the calls and keeps
 * the lock: no one else is waiting for it there.
 */
int cond_resched_lock(spinlock_t *lock);

/*
 * Table pages.  The userspace implementation hands out buffers of exactly
 * the modelled geometry's entries as native words, and counts them by kind.
 */
unsigned long kapi_get_zeroed_page(gfp_t gfp, enum kapi_page_kind kind);
void kapi_free_page(unsigned long addr, enum kapi_page_kind kind);

/* Give a swap slot back to the swap device (the host model's, in userspace). */
void swap_free(swp_entry_t entry);

/* Report a broken invariant without stopping: counted by the userspace side. */
void kapi_warn(const char *what);
#define WARN_ON_ONCE(cond) ({ bool __c = !!(cond); if (unlikely(__c)) kapi_warn(#cond); __c; })

#endif /* ANONSIM_KAPI_DEFS_H */
