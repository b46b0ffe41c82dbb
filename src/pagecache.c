/*
 * pagecache.c - a backing file's host page cache and Linux's on-demand
 * readahead (mm/readahead.c, as of 6.x, without large folios): an initial
 * window scaled from the request, ramped x4 then x2 up to the maximum on
 * sequential hits of the PG_readahead mark, "context" readahead when the
 * pages before a miss are cached, and small random reads read as they are.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "pagecache.h"

void ra_state_init(struct ra_state *ra, uint64_t ra_pages)
{
	memset(ra, 0, sizeof(*ra));
	ra->prev_index = UINT64_MAX;
	ra->ra_pages = ra_pages;
}

int pagecache_init(struct pagecache *pc, unsigned id, const char *ident,
		   uint64_t npages)
{
	memset(pc, 0, sizeof(*pc));
	pc->id = id;
	strncpy(pc->ident, ident, sizeof(pc->ident) - 1);
	pc->npages = npages;
	pc->flags = calloc(npages ? npages : 1, 1);
	pc->mapcount = calloc(npages ? npages : 1, sizeof(*pc->mapcount));
	pc->lru_gen = calloc(npages ? npages : 1, sizeof(*pc->lru_gen));
	return pc->flags && pc->mapcount && pc->lru_gen ? 0 : -1;
}

void pagecache_destroy(struct pagecache *pc)
{
	free(pc->flags);
	free(pc->mapcount);
	free(pc->lru_gen);
}

static uint64_t roundup_pow2(uint64_t n)
{
	uint64_t r = 1;

	while (r < n)
		r <<= 1;
	return r;
}

/* get_init_ra_size(): the first window of a sequential stream. */
static uint64_t init_ra_size(uint64_t req, uint64_t max)
{
	uint64_t n = roundup_pow2(req);

	if (n <= max / 32)
		return n * 4;
	if (n <= max / 4)
		return n * 2;
	return max;
}

/* get_next_ra_size(): ramp up x4 while small, then x2, up to max. */
static uint64_t next_ra_size(uint64_t cur, uint64_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

static void cache_insert(struct host *h, struct pagecache *pc, uint64_t i,
			 bool mark, uint64_t *counter, struct read_stats *st)
{
	if (pc->flags[i] & PC_EVICTED)
		st->refaults++;
	else
		(*counter)++;
	pc->flags[i] = PC_RESIDENT | (mark ? PC_RA_MARK : 0);
	pc->resident++;
	host_lru_add(h, pc->mapcount[i] ? LRU_MAPPED : LRU_CACHE, pc->id,
		     (uint32_t)i, &pc->lru_gen[i]);
	host_charge(h, CAT_CACHE, 1);
}

/*
 * do_page_cache_ra(): read [start, start + nr) clipped to the file, skipping
 * cached pages, and mark the page @async before the end as PG_readahead.
 * Pages in [req_lo, req_hi) were asked for; the rest are readahead.
 */
static void do_ra(struct host *h, struct pagecache *pc, uint64_t start,
		  uint64_t nr, uint64_t async, uint64_t req_lo, uint64_t req_hi,
		  struct read_stats *st)
{
	uint64_t i, end, mark;

	if (start >= pc->npages)
		return;
	end = nr > pc->npages - start ? pc->npages : start + nr;
	mark = async && async <= nr ? start + nr - async : UINT64_MAX;
	for (i = start; i < end; i++) {
		if (pc->flags[i] & PC_RESIDENT)
			continue;
		cache_insert(h, pc, i, i == mark,
			     i >= req_lo && i < req_hi ? &st->demand : &st->readahead, st);
	}
}

/* Cached pages just before @index: a sequential stream leaves them behind. */
static uint64_t history_pages(const struct pagecache *pc, uint64_t index,
			      uint64_t max)
{
	uint64_t n = 0;

	while (n < max && n < index && (pc->flags[index - 1 - n] & PC_RESIDENT))
		n++;
	return n;
}

/* ondemand_readahead(): @hit_mark is true when called for a marked page. */
static void ondemand(struct host *h, struct pagecache *pc, struct ra_state *ra,
		     uint64_t index, uint64_t req, bool hit_mark,
		     struct read_stats *st)
{
	uint64_t max = ra->ra_pages, expected, add;

	if (!index)
		goto initial;
	expected = ra->start + ra->size - ra->async_size;
	if (index == expected || index == ra->start + ra->size) {
		ra->start += ra->size;
		ra->size = next_ra_size(ra->size, max);
		ra->async_size = ra->size;
		goto readit;
	}
	if (hit_mark) {
		/* a mark without matching state (interleaved streams) */
		uint64_t start = index + 1;

		while (start < pc->npages && start - index <= max &&
		       (pc->flags[start] & PC_RESIDENT))
			start++;
		if (start - index > max)
			return;
		ra->start = start;
		ra->size = next_ra_size(start - index + req, max);
		ra->async_size = ra->size;
		goto readit;
	}
	if (req > max)
		goto initial;
	if (ra->prev_index != UINT64_MAX &&
	    (index == ra->prev_index || index == ra->prev_index + 1))
		goto initial;
	{
		/* try_context_readahead() */
		uint64_t size = history_pages(pc, index, max);

		if (size > req) {
			if (size >= index)
				size *= 2;
			ra->start = index;
			ra->size = size + req < max ? size + req : max;
			ra->async_size = 1;
			goto readit;
		}
	}
	/* a small random read: read as is, leave the state alone */
	do_ra(h, pc, index, req, 0, index, index + req, st);
	return;

initial:
	ra->start = index;
	ra->size = init_ra_size(req, max);
	ra->async_size = ra->size > req ? ra->size - req : ra->size;
readit:
	/* would this read hit its own mark? merge the next window now */
	if (index == ra->start && ra->size == ra->async_size) {
		add = next_ra_size(ra->size, max);
		if (ra->size + add <= max) {
			ra->async_size = add;
			ra->size += add;
		} else {
			ra->size = max;
			ra->async_size = max >> 1;
		}
	}
	do_ra(h, pc, ra->start, ra->size, ra->async_size, index, index + req, st);
}

void pagecache_read(struct host *h, struct pagecache *pc, struct ra_state *ra,
		    uint64_t index, uint64_t nr, struct read_stats *st)
{
	uint64_t i, last = index + nr;

	for (i = index; i < last && i < pc->npages; i++) {
		uint8_t f = pc->flags[i];

		if (!(f & PC_RESIDENT)) {
			if (ra->ra_pages)
				ondemand(h, pc, ra, i, last - i, false, st);
			if (!(pc->flags[i] & PC_RESIDENT))	/* readahead off */
				cache_insert(h, pc, i, false, &st->demand, st);
		} else {
			if (f & PC_RA_MARK) {
				pc->flags[i] &= (uint8_t)~PC_RA_MARK;
				if (ra->ra_pages)
					ondemand(h, pc, ra, i, last - i, true, st);
			}
			/* accessed: move to the young end */
			host_lru_add(h, pc->mapcount[i] ? LRU_MAPPED : LRU_CACHE,
				     pc->id, (uint32_t)i, &pc->lru_gen[i]);
		}
		ra->prev_index = i;
	}
}

void pagecache_write(struct host *h, struct pagecache *pc, uint64_t index,
		     uint64_t nr)
{
	uint64_t i;

	for (i = index; i < index + nr && i < pc->npages; i++) {
		if (pc->flags[i] & PC_RESIDENT) {
			host_lru_add(h, pc->mapcount[i] ? LRU_MAPPED : LRU_CACHE,
				     pc->id, (uint32_t)i, &pc->lru_gen[i]);
			continue;
		}
		pc->flags[i] = PC_RESIDENT;
		pc->resident++;
		host_lru_add(h, pc->mapcount[i] ? LRU_MAPPED : LRU_CACHE, pc->id,
			     (uint32_t)i, &pc->lru_gen[i]);
		host_charge(h, CAT_CACHE, 1);
	}
}

void pagecache_evict(struct host *h, struct pagecache *pc, uint64_t index)
{
	pc->flags[index] = PC_EVICTED;
	pc->resident--;
	pc->lru_gen[index] = 0;
	if (pc->mapcount[index])
		h->evicted_mapped++;
	else
		h->evicted_cache++;
	host_release(h, CAT_CACHE, 1);
}
