/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * core_check.h - self-checks of the kernel reference core against flat
 * models, shared by "anonsim selftest" and the Check suites.
 *
 * Each check runs in a kapi_ctx of its own (the caller's current context is
 * restored) and returns 0, or -1 with a description of the first failure.
 */
#ifndef ANONSIM_CORE_CHECK_H
#define ANONSIM_CORE_CHECK_H

#include <stddef.h>

#include "kernel/anon.h"

/* Every boundary index: the table pages it needs, -EFBIG at max_index. */
int core_check_boundaries(const struct shmem_geom *geom, char *err, size_t len);

/*
 * @nops random swap-entry and map-count operations (swap out/in, lookup,
 * mmap, munmap, touch, punch, truncate) on a fixed-variant /dev/anon file,
 * against a flat array over windows around every boundary of the table;
 * table pages and kapi accounting compared with the model's page set.
 *
 * @enomem non-NULL: one swap out or mmap in four has its first, second or
 * third table-page allocation fail; it must return -ENOMEM and leave every
 * entry and count as before, the table holding the levels it installed
 * before the failure (2.4's shmem_swp_alloc leaves them too), and no page
 * leaked.  *@enomem counts the operations that failed so.
 */
int core_check_differential(const struct shmem_geom *geom, unsigned long seed,
			    unsigned long nops, unsigned long *enomem,
			    char *err, size_t len);

/*
 * The same differential run with every choice (operation, index, length)
 * taken from @data, four bytes a time, until it runs out: for a fuzzer,
 * whose coverage feedback then steers the operations.
 */
int core_check_differential_data(const struct shmem_geom *geom,
				 const unsigned char *data, size_t size,
				 unsigned long *enomem, char *err, size_t len);

/* mmap/munmap/reclaim of a few resident pages; teardown frees everything. */
int core_check_anon(const struct shmem_geom *geom, enum anon_variant variant,
		    char *err, size_t len);

#endif
