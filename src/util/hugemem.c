/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugemem.c - memory backed by huge pages (see hugemem.h).
 */
#include <config.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/hugemem.h"
#include "util/xalloc.h"

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

void *huge_map(size_t len)
{
	size_t span = len + HUGE_BYTES, lead;
	unsigned char *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Keep the aligned part; give back what lies before and after it. */
	lead = (HUGE_BYTES - (uintptr_t)p % HUGE_BYTES) % HUGE_BYTES;
	if (lead)
		munmap(p, lead);
	munmap(p + lead + len, span - lead - len);
	p += lead;
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

void huge_unmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

#if defined(__SANITIZE_ADDRESS__)
#define HUGEMEM_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HUGEMEM_PLAIN 1
#endif
#endif

#ifdef HUGEMEM_PLAIN
void *huge_zalloc(size_t size, const char *what)
{
	return xcalloc(1, size, what);
}

void huge_free(void *p, size_t size)
{
	free(p);
}
#else
/*
 * Blocks are cut in turn from regions of REGION_BYTES, reserved whole
 * and touched only as they are handed out; each size keeps a list of
 * the blocks freed, linked through their first word.  A size beyond the
 * NR_SIZES the lists are kept for comes from calloc().
 */
#define REGION_BYTES (16 * HUGE_BYTES)
#define NR_SIZES 16
#define ALIGN 64

struct free_block {
	struct free_block *next;
};

static struct {
	pthread_mutex_t lock;
	unsigned char *next, *end;	/* the region blocks are cut from */
	size_t size[NR_SIZES];		/* 0: unused */
	struct free_block *freed[NR_SIZES];
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void pool_lock(void)
{
	pthread_mutex_lock(&pool.lock);
}

static void pool_unlock(void)
{
	pthread_mutex_unlock(&pool.lock);
}

/* A child forked while another thread held the lock would wait forever. */
static void pool_init(void)
{
	pthread_atfork(pool_lock, pool_unlock, pool_unlock);
}

/* What a block of @size takes: whole cache lines, one at least (a free one holds a link). */
static size_t block_size(size_t size)
{
	return size ? (size + ALIGN - 1) / ALIGN * ALIGN : ALIGN;
}

/* The list of blocks of @size; -1 if every list is for another size. */
static int size_index(size_t size, int add)
{
	int i;

	for (i = 0; i < NR_SIZES && pool.size[i]; i++)
		if (pool.size[i] == size)
			return i;
	if (i == NR_SIZES || !add)
		return -1;
	pool.size[i] = size;
	return i;
}

void *huge_zalloc(size_t size, const char *what)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct free_block *b;
	void *p = NULL;
	int i;

	size = block_size(size);
	if (size > HUGE_BYTES)
		return xcalloc(1, size, what);
	pthread_once(&once, pool_init);
	pool_lock();
	i = size_index(size, 1);
	if (i >= 0 && (b = pool.freed[i])) {
		pool.freed[i] = b->next;
		pool_unlock();
		return memset(b, 0, size);
	}
	if (i >= 0 && (size_t)(pool.end - pool.next) < size) {
		pool.next = huge_map(REGION_BYTES);
		pool.end = pool.next ? pool.next + REGION_BYTES : NULL;
	}
	if (i >= 0 && pool.next) {
		p = pool.next;	/* never used: still zero */
		pool.next += size;
	}
	pool_unlock();
	return p ? p : xcalloc(1, size, what);
}

void huge_free(void *p, size_t size)
{
	struct free_block *b = p;
	int i;

	if (!p)
		return;
	size = block_size(size);
	pool_lock();
	i = size <= HUGE_BYTES ? size_index(size, 0) : -1;
	if (i >= 0) {
		b->next = pool.freed[i];
		pool.freed[i] = b;
	}
	pool_unlock();
	if (i < 0)
		free(p);
}
#endif
