/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * core_check.c - the reference core checked against flat models.
 */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/core_check.h"
#include "model/fault.h"
#include "kernel/user/kapi_user.h"
#include "util/util.h"
#include "util/xalloc.h"

static unsigned long held_total(const struct kapi_ctx *ctx)
{
	unsigned long n = 0;
	int k;

	for (k = 0; k < KAPI_PAGE_NR_KINDS; k++)
		n += ctx->held[k];
	return n;
}

/* ---- boundaries ---------------------------------------------------------- */

int core_check_boundaries(const struct shmem_geom *g, char *err, size_t len)
{
	unsigned long epp = g->entries_per_page;
	unsigned long first_mid = SHMEM_NR_DIRECT + epp * epp / 2;
	/* index, table pages it needs in an empty table */
	const struct { unsigned long index, pages; } b[] = {
		{ 0, 0 }, { 15, 0 },
		{ 16, 2 },			/* indirect + leaf */
		{ first_mid - 1, 2 },		/* last leaf of the first half */
		{ first_mid, 3 },		/* indirect + middle + leaf */
		{ g->max_index - 1, 3 },
	};
	struct kapi_ctx ctx, *saved = kapi_current();
	struct shmem_table t;
	spinlock_t lock;
	unsigned long *e;
	size_t i;
	int ret = 0;

	kapi_ctx_init(&ctx, g);
	kapi_set_current(&ctx);
	spin_lock_init(&lock);
	for (i = 0; i < sizeof(b) / sizeof(b[0]) && !ret; i++) {
		shmem_table_init(&t, g, KAPI_PAGE_SWAP_TABLE);
		spin_lock(&lock);
		e = shmem_table_get(&t, b[i].index, &lock);
		if (IS_ERR_OR_NULL(e)) {
			ret = set_error(err, len, "index %lu: no entry", b[i].index);
		} else {
			*e = b[i].index + 1;
			if (t.nr_pages != b[i].pages ||
			    ctx.held[KAPI_PAGE_SWAP_TABLE] != b[i].pages)
				ret = set_error(err, len,
					    "index %lu: %lu table pages (held %lu), expected %lu",
					    b[i].index, t.nr_pages,
					    ctx.held[KAPI_PAGE_SWAP_TABLE], b[i].pages);
			else if (shmem_table_walk(&t, b[i].index, NULL) != e)
				ret = set_error(err, len, "index %lu: walk differs from get",
					    b[i].index);
		}
		if (!ret && shmem_table_truncate(&t, 0, NULL, NULL) != 1)
			ret = set_error(err, len, "index %lu: truncate cleared not 1",
				    b[i].index);
		spin_unlock(&lock);
		if (!ret && (t.nr_pages || held_total(&ctx)))
			ret = set_error(err, len, "index %lu: pages left after truncate",
				    b[i].index);
	}
	if (!ret) {
		shmem_table_init(&t, g, KAPI_PAGE_SWAP_TABLE);
		spin_lock(&lock);
		e = shmem_table_get(&t, g->max_index, &lock);
		spin_unlock(&lock);
		if (e != ERR_PTR(-EFBIG) || t.nr_pages || held_total(&ctx))
			ret = set_error(err, len, "max_index %lu: not -EFBIG with no pages",
				    g->max_index);
	}
	if (!ret && (ctx.bad_frees || ctx.lock_errors || ctx.warnings))
		ret = set_error(err, len, "kapi misuse: %lu bad frees, %lu lock errors, %lu warnings",
			    ctx.bad_frees, ctx.lock_errors, ctx.warnings);
	kapi_ctx_destroy(&ctx);
	kapi_set_current(saved);
	return ret;
}

/* ---- differential -------------------------------------------------------- */

#define WIN 256		/* indices per window */
#define NWIN 6
#define NSLOT (NWIN * WIN)
#define MAX_KEYS 64

/* The table pages a table should hold: keys as in page_keys(). */
struct keyset {
	unsigned long key[MAX_KEYS];
	unsigned int n;
};

struct model {
	const struct shmem_geom *g;
	unsigned long first[NWIN];	/* first index of each window, ascending */
	unsigned long swap[NSLOT], count[NSLOT];
	unsigned char resident[NSLOT];
	struct keyset swap_pages, map_pages;
	unsigned long swapped, next_entry;
	unsigned long swap_frees, swap_free_sum, freed_sum;
	struct anon_inode ai;
	struct kapi_ctx ctx;
	unsigned long long rng;
	/* or the operations' choices from given bytes (a fuzzer's), until they run out */
	const unsigned char *data;
	size_t size, pos;
	bool exhausted;
	/* allocation failures injected into swap outs and mmaps (NULL: none),
	 * and the operations that failed with -ENOMEM counted there */
	unsigned long *enomem;
};

static unsigned long long rnd(struct model *m)
{
	if (m->data) {
		unsigned long long v = 0;
		int i;

		if (m->size - m->pos < 4) {
			m->exhausted = true;
			m->pos = m->size;
			return 0;
		}
		for (i = 0; i < 4; i++)
			v |= (unsigned long long)m->data[m->pos++] << (8 * i);
		return v;
	}
	/* xorshift64* */
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 0x2545f4914f6cdd1dULL;
}

static unsigned long slot_index(const struct model *m, unsigned int s)
{
	return m->first[s / WIN] + s % WIN;
}

static int index_slot(const struct model *m, unsigned long idx)
{
	int w;

	for (w = 0; w < NWIN; w++)
		if (idx >= m->first[w] && idx < m->first[w] + WIN)
			return w * WIN + (int)(idx - m->first[w]);
	return -1;
}

static void keyset_add(struct keyset *ks, unsigned long key)
{
	unsigned int i;

	for (i = 0; i < ks->n; i++)
		if (ks->key[i] == key)
			return;
	if (ks->n < MAX_KEYS)
		ks->key[ks->n++] = key;
}

static bool keyset_has(const struct keyset *ks, unsigned long key)
{
	unsigned int i;

	for (i = 0; i < ks->n; i++)
		if (ks->key[i] == key)
			return true;
	return false;
}

/*
 * The table pages index @idx lacks, installed in the walk's order
 * (indirect, middle, leaf), one allocation each, while *@left allocations
 * succeed: false when one fails first.  The levels installed before a
 * failure stay, as in 2.4's shmem_swp_alloc: a failed walk leaves them.
 */
static bool keyset_fill(const struct model *m, struct keyset *ks,
			unsigned long idx, unsigned long *left)
{
	unsigned long epp = m->g->entries_per_page, leaf, key[3];
	unsigned int i, n = 0;

	if (idx < SHMEM_NR_DIRECT)
		return true;
	leaf = (idx - SHMEM_NR_DIRECT) / epp;
	key[n++] = 0;
	if (leaf >= epp / 2)
		key[n++] = 1 + 2 * ((leaf - epp / 2) / epp);
	key[n++] = 2 + 2 * leaf;
	for (i = 0; i < n; i++) {
		if (keyset_has(ks, key[i]))
			continue;
		if (!*left)
			return false;
		--*left;
		keyset_add(ks, key[i]);
	}
	return true;
}

/*
 * Inject a failure into the next operation's allocations, when the bytes
 * say so (one in four): the first, second or third allocation it makes
 * fails.  Returns how many succeed before it; ULONG_MAX: none fails.
 */
static unsigned long inject_failure(struct model *m)
{
	unsigned long long v;

	if (!m->enomem)
		return ULONG_MAX;
	v = rnd(m);
	if (v % 4)
		return ULONG_MAX;
	m->ctx.fail_nth = m->ctx.nr_allocs + 1 + (v >> 2) % 3;
	return (unsigned long)((v >> 2) % 3);
}

/* First index a page covers: it is freed by a truncate at or below it. */
static unsigned long key_base(const struct model *m, unsigned long key)
{
	unsigned long epp = m->g->entries_per_page;

	if (key == 0)
		return SHMEM_NR_DIRECT;
	if (key & 1)
		return SHMEM_NR_DIRECT + epp * epp / 2 + (key - 1) / 2 * epp * epp;
	return SHMEM_NR_DIRECT + (key - 2) / 2 * epp;
}

static void keyset_truncate(const struct model *m, struct keyset *ks,
			    unsigned long start)
{
	unsigned int i = 0;

	while (i < ks->n) {
		if (key_base(m, ks->key[i]) >= start)
			ks->key[i] = ks->key[--ks->n];
		else
			i++;
	}
}

/* Does any page of leaf @leaf hold a map count? */
static bool leaf_counted(const struct model *m, unsigned long leaf)
{
	unsigned long epp = m->g->entries_per_page, idx;
	unsigned int s;

	for (s = 0; s < NSLOT; s++) {
		idx = slot_index(m, s);
		if (m->count[s] && idx >= SHMEM_NR_DIRECT &&
		    (idx - SHMEM_NR_DIRECT) / epp == leaf)
			return true;
	}
	return false;
}

/*
 * shmem_table_trim() of a failed mmap over [@start, @end): its leaves that
 * hold no count go, then middle pages left with no leaf, then the indirect
 * page left with nothing.
 */
static void keyset_trim(const struct model *m, struct keyset *ks,
			unsigned long start, unsigned long end)
{
	unsigned long epp = m->g->entries_per_page, first, leaf, last, mid;
	unsigned int i;
	bool used;

	if (!keyset_has(ks, 0) || end <= SHMEM_NR_DIRECT)
		return;
	first = start > SHMEM_NR_DIRECT ? (start - SHMEM_NR_DIRECT) / epp : 0;
	last = (end - 1 - SHMEM_NR_DIRECT) / epp;
	for (leaf = first; leaf <= last; leaf++) {
		if (leaf_counted(m, leaf))
			continue;
		for (i = 0; i < ks->n; i++)
			if (ks->key[i] == 2 + 2 * leaf)
				ks->key[i] = ks->key[--ks->n];
	}
	/* the middle pages above those leaves only (truncation keeps others) */
	for (i = 0; i < ks->n; i++) {
		if (!(ks->key[i] & 1))
			continue;
		mid = (ks->key[i] - 1) / 2;
		if (last < epp / 2 || mid < (first < epp / 2 ? 0 : (first - epp / 2) / epp) ||
		    mid > (last - epp / 2) / epp)
			continue;
		used = false;
		for (leaf = epp / 2 + mid * epp; leaf < epp / 2 + (mid + 1) * epp; leaf++)
			used = used || keyset_has(ks, 2 + 2 * leaf);
		if (!used)
			ks->key[i--] = ks->key[--ks->n];
	}
	if (ks->n == 1)		/* the indirect page, pointing to nothing */
		ks->n = 0;
}

/* A resident page is cached and mapped here: no other mm, no page locks. */
static bool model_resident(void *priv, unsigned long idx)
{
	struct model *m = priv;
	int s = index_slot(m, idx);

	return s >= 0 && m->resident[s];
}

static enum shmem_pte model_pte(void *priv, unsigned long idx)
{
	return model_resident(priv, idx) ? SHMEM_PTE_CACHE : SHMEM_PTE_NONE;
}

static void model_unlock_page(void *priv, unsigned long idx)
{
}

static bool model_page_locked(void *priv, unsigned long idx)
{
	return false;
}

static bool model_remove_page(void *priv, unsigned long idx)
{
	struct model *m = priv;
	int s = index_slot(m, idx);
	bool was;

	if (s < 0)
		return false;
	was = m->resident[s];
	m->resident[s] = 0;
	return was;
}

static void model_swap_free(void *arg, swp_entry_t entry)
{
	struct model *m = arg;

	m->freed_sum += entry.val;
}

static const struct shmem_page_ops model_pops = {
	.pte = model_pte,
	.lock_page = model_resident,
	.unlock_page = model_unlock_page,
	.page_locked = model_page_locked,
	.remove_page = model_remove_page,
};

/* The model's expectation for freeing a swap entry. */
static void model_free_entry(struct model *m, unsigned int s)
{
	m->swap_frees++;
	m->swap_free_sum += m->swap[s];
	m->swap[s] = 0;
	m->swapped--;
}

static int check_slot(struct model *m, unsigned int s, char *err, size_t len)
{
	unsigned long idx = slot_index(m, s);
	swp_entry_t e = shmem_swap_lookup(&m->ai.shm, idx);
	unsigned long c = anon_map_count(&m->ai, idx);

	if (e.val != m->swap[s])
		return set_error(err, len, "index %lu: swap entry %lu, model %lu",
			     idx, e.val, m->swap[s]);
	if (c != m->count[s])
		return set_error(err, len, "index %lu: map count %lu, model %lu",
			     idx, c, m->count[s]);
	return 0;
}

static int check_all(struct model *m, char *err, size_t len)
{
	unsigned int s;
	int k;

	for (s = 0; s < NSLOT; s++)
		if (check_slot(m, s, err, len))
			return -1;
	if (m->ai.shm.swap.nr_pages != m->swap_pages.n ||
	    m->ctx.held[KAPI_PAGE_SWAP_TABLE] != m->swap_pages.n)
		return set_error(err, len, "swap table: %lu pages (held %lu), model %u",
			     m->ai.shm.swap.nr_pages,
			     m->ctx.held[KAPI_PAGE_SWAP_TABLE], m->swap_pages.n);
	if (m->ai.maps.nr_pages != m->map_pages.n ||
	    m->ctx.held[KAPI_PAGE_MAP_TABLE] != m->map_pages.n)
		return set_error(err, len, "map table: %lu pages (held %lu), model %u",
			     m->ai.maps.nr_pages,
			     m->ctx.held[KAPI_PAGE_MAP_TABLE], m->map_pages.n);
	if (m->ai.shm.swapped != m->swapped)
		return set_error(err, len, "swapped %lu, model %lu",
			     m->ai.shm.swapped, m->swapped);
	if (m->ctx.swap_frees != m->swap_frees || m->freed_sum != m->swap_free_sum)
		return set_error(err, len, "swap frees %lu (sum %lu), model %lu (sum %lu)",
			     m->ctx.swap_frees, m->freed_sum, m->swap_frees,
			     m->swap_free_sum);
	for (k = 0; k < KAPI_PAGE_NR_KINDS; k++)
		if (m->ctx.allocs[k] - m->ctx.frees[k] != m->ctx.held[k])
			return set_error(err, len, "kind %d: %lu pages allocated, %lu freed, %lu held",
				     k, m->ctx.allocs[k], m->ctx.frees[k], m->ctx.held[k]);
	if (m->ctx.warnings || m->ctx.bad_frees || m->ctx.lock_errors ||
	    m->ctx.unlocked_walks)
		return set_error(err, len, "kapi misuse: %lu warnings, %lu bad frees, %lu lock errors, %lu unlocked walks",
			     m->ctx.warnings, m->ctx.bad_frees, m->ctx.lock_errors,
			     m->ctx.unlocked_walks);
	return 0;
}

/* A range [s, s + *nr) inside one window. */
static unsigned int pick_range(struct model *m, unsigned int *nr)
{
	unsigned int s = (unsigned int)(rnd(m) % NSLOT);
	unsigned int room = WIN - s % WIN;

	*nr = 1 + (unsigned int)(rnd(m) % 8);
	if (*nr > room)
		*nr = room;
	return s;
}

static int diff_step(struct model *m, char *err, size_t len)
{
	unsigned int s, nr, i, r = (unsigned int)(rnd(m) % 100);
	unsigned long idx, got, want, left;
	swp_entry_t e;
	bool ok;
	int rc;

	s = pick_range(m, &nr);
	idx = slot_index(m, s);
	if (r < 20) {				/* swap out */
		if (m->swap[s])
			r = 20;			/* already out: swap in */
		else {
			left = inject_failure(m);
			e.val = m->next_entry + 1;
			rc = shmem_swap_out(&m->ai.shm, idx, e);
			m->ctx.fail_nth = 0;
			ok = keyset_fill(m, &m->swap_pages, idx, &left);
			if (rc != (ok ? 0 : -ENOMEM))
				return set_error(err, len, "swap out %lu: %d, model %d",
					     idx, rc, ok ? 0 : -ENOMEM);
			if (!ok) {	/* nothing changed but the levels installed */
				++*m->enomem;
				return check_all(m, err, len);
			}
			m->next_entry++;
			m->swap[s] = e.val;
			m->swapped++;
			m->resident[s] = 0;
			return check_slot(m, s, err, len);
		}
	}
	if (r < 35) {				/* swap in */
		e = shmem_swap_in(&m->ai.shm, idx);
		if (e.val != m->swap[s])
			return set_error(err, len, "swap in %lu: %lu, model %lu",
				     idx, e.val, m->swap[s]);
		if (m->swap[s]) {
			m->swap[s] = 0;
			m->swapped--;
			m->resident[s] = 1;
		}
		return check_slot(m, s, err, len);
	}
	if (r < 50)				/* lookup */
		return check_slot(m, s, err, len);
	if (r < 70) {				/* mmap */
		left = inject_failure(m);
		rc = anon_mmap(&m->ai, idx, nr);
		m->ctx.fail_nth = 0;
		for (i = 0, ok = true; i < nr && ok; i++)
			ok = keyset_fill(m, &m->map_pages, idx + i, &left);
		if (rc != (ok ? 0 : -ENOMEM))
			return set_error(err, len, "mmap %lu+%u: %d, model %d",
				     idx, nr, rc, ok ? 0 : -ENOMEM);
		if (!ok) {	/* the counts rolled back, the levels left empty freed */
			keyset_trim(m, &m->map_pages, idx, idx + i);
			++*m->enomem;
			return check_all(m, err, len);
		}
		for (i = 0; i < nr; i++)
			m->count[s + i]++;
		return check_slot(m, s, err, len);
	}
	if (r < 85) {				/* munmap of mapped pages only */
		for (i = 0; i < nr && m->count[s + i]; i++)
			;
		nr = i;
		want = 0;
		for (i = 0; i < nr; i++) {
			bool freed = m->resident[s + i] || m->swap[s + i];

			if (--m->count[s + i])
				continue;
			/* resident[] is the page cache: the code clears it */
			if (m->swap[s + i])
				model_free_entry(m, s + i);
			want += freed;
		}
		got = anon_munmap(&m->ai, idx, nr);
		if (got != want)
			return set_error(err, len, "munmap %lu+%u reclaimed %lu, model %lu",
				     idx, nr, got, want);
		for (i = 0; i < nr; i++) {
			if (!m->count[s + i] && m->resident[s + i])
				return set_error(err, len, "munmap %lu+%u left page %lu",
					     idx, nr, idx + i);
			if (check_slot(m, s + i, err, len))
				return -1;
		}
		return 0;
	}
	if (r < 95) {				/* touch */
		if (!m->swap[s])
			m->resident[s] = 1;
		return 0;
	}
	if (r < 99) {				/* punch */
		want = 0;
		for (i = 0; i < nr; i++) {
			want += m->resident[s + i];
			if (m->swap[s + i]) {
				model_free_entry(m, s + i);
				want++;
			}
		}
		got = shmem_punch(&m->ai.shm, idx, nr);
		if (got != want)
			return set_error(err, len, "punch %lu+%u released %lu, model %lu",
				     idx, nr, got, want);
		for (i = 0; i < nr; i++)
			if (m->resident[s + i])
				return set_error(err, len, "punch %lu+%u left page %lu",
					     idx, nr, idx + i);
		return check_slot(m, s, err, len);
	}
	/* truncate: one in twenty to 0, else at a random slot's index */
	if (rnd(m) % 20 == 0)
		idx = 0;
	anon_truncate(&m->ai, idx);
	for (i = 0; i < NSLOT; i++) {
		if (slot_index(m, i) < idx)
			continue;
		if (m->swap[i])
			model_free_entry(m, i);
		m->count[i] = 0;
	}
	keyset_truncate(m, &m->swap_pages, idx);
	keyset_truncate(m, &m->map_pages, idx);
	return check_all(m, err, len);
}

/*
 * The differential run: operations until @nops are done or the given bytes
 * run out, the whole table checked every @check_every, then teardown.
 */
static int differential(struct model *m, const struct shmem_geom *g,
			unsigned long nops, unsigned long check_every,
			char *err, size_t len)
{
	struct kapi_ctx *saved = kapi_current();
	unsigned long epp = g->entries_per_page;
	unsigned long first_mid = SHMEM_NR_DIRECT + epp * epp / 2;
	unsigned long op;
	int ret = 0;

	m->g = g;
	/* windows straddling each boundary of the table, in ascending order */
	m->first[0] = 0;					/* direct, leaf 0 */
	m->first[1] = SHMEM_NR_DIRECT + epp - WIN / 2;		/* leaf 0 | leaf 1 */
	m->first[2] = first_mid - WIN / 2;			/* first half | middle 0 */
	m->first[3] = first_mid + epp * epp - WIN / 2;		/* middle 0 | middle 1 */
	m->first[4] = first_mid + 3 * epp * epp + 5 * epp + 7;	/* inside middle 3 */
	m->first[5] = g->max_index - WIN;			/* the last indices */
	kapi_ctx_init(&m->ctx, g);
	m->ctx.swap_free = model_swap_free;
	m->ctx.swap_arg = m;
	kapi_set_current(&m->ctx);
	anon_inode_init(&m->ai, g, ANON_FIXED, &model_pops, m);

	for (op = 0; op < nops && !ret && !m->exhausted; op++) {
		ret = diff_step(m, err, len);
		if (!ret && op % check_every == check_every - 1)
			ret = check_all(m, err, len);
	}
	if (ret) {
		size_t n = strlen(err);

		snprintf(err + n, len - n, " (operation %lu)", op - 1);
	} else {
		/* teardown: every table page back, every entry freed */
		for (op = 0; op < NSLOT; op++) {
			if (m->swap[op])
				model_free_entry(m, op);
			m->count[op] = 0;
		}
		m->swap_pages.n = m->map_pages.n = 0;
		anon_truncate(&m->ai, 0);
		fault_core(&m->ai);
		/* every table page freed: held 0, as the model's empty sets */
		ret = check_all(m, err, len);
	}
	kapi_ctx_destroy(&m->ctx);
	kapi_set_current(saved);
	return ret;
}

int core_check_differential(const struct shmem_geom *g, unsigned long seed,
			    unsigned long nops, unsigned long *enomem,
			    char *err, size_t len)
{
	struct model *m = xcalloc(1, sizeof(*m), "the self-check's model");
	int ret;

	m->rng = seed * 2 + 1;
	m->enomem = enomem;
	ret = differential(m, g, nops, 4999, err, len);
	free(m);
	return ret;
}

int core_check_differential_data(const struct shmem_geom *g,
				 const unsigned char *data, size_t size,
				 unsigned long *enomem, char *err, size_t len)
{
	struct model *m = xcalloc(1, sizeof(*m), "the self-check's model");
	int ret;

	m->data = data;
	m->size = size;
	m->enomem = enomem;
	ret = differential(m, g, ULONG_MAX, 16, err, len);
	free(m);
	return ret;
}

int core_check_anon(const struct shmem_geom *g, enum anon_variant variant,
		    char *err, size_t len)
{
	struct kapi_ctx *saved = kapi_current();
	struct model *m = xcalloc(1, sizeof(*m), "the self-check's model");
	/* counts after mmap(0, 4) and mmap(2, 4) */
	static const unsigned long counts[6] = { 1, 1, 2, 2, 1, 1 };
	unsigned long got, i;
	int ret = 0;

	m->g = g;
	m->first[0] = 0;
	kapi_ctx_init(&m->ctx, g);
	kapi_set_current(&m->ctx);
	anon_inode_init(&m->ai, g, variant, &model_pops, m);
	for (i = 0; i < 6; i++)
		m->resident[i] = 1;
	if (anon_mmap(&m->ai, 0, 4) || anon_mmap(&m->ai, 2, 4))
		ret = set_error(err, len, "mmap failed");
	for (i = 0; i < 6 && !ret; i++)
		if (anon_map_count(&m->ai, i) != counts[i])
			ret = set_error(err, len, "page %lu: count %lu, expected %lu",
				    i, anon_map_count(&m->ai, i), counts[i]);
	/* pages 0 and 1 drop to zero, 2 and 3 to one */
	if (!ret && (got = anon_munmap(&m->ai, 0, 4)) != 2)
		ret = set_error(err, len, "first munmap reclaimed %lu, expected 2", got);
	/* now 2..5 all drop to zero */
	if (!ret && (got = anon_munmap(&m->ai, 2, 4)) != 4)
		ret = set_error(err, len, "second munmap reclaimed %lu, expected 4", got);
	for (i = 0; i < 6 && !ret; i++)
		if (m->resident[i] || anon_map_count(&m->ai, i))
			ret = set_error(err, len, "page %lu not reclaimed", i);
	anon_truncate(&m->ai, 0);
	if (!ret && (held_total(&m->ctx) || m->ai.reclaimed != 6))
		ret = set_error(err, len, "%lu pages held, %lu reclaimed (expected 0, 6)",
			    held_total(&m->ctx), m->ai.reclaimed);
	if (!ret && (m->ctx.bad_frees || m->ctx.warnings || m->ctx.lock_errors))
		ret = set_error(err, len, "kapi misuse");
	kapi_ctx_destroy(&m->ctx);
	kapi_set_current(saved);
	free(m);
	return ret;
}
