/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fault.h - faults injected into the model's own state, so that the tests
 * see replay --check and the kernel self-checks report a broken simulator
 * as they should (the file, the event, the page and what broke; exit 3).
 *
 * Built only into the test programs (ANONSIM_FAULT_INJECT defined,
 * tests/model/fault.c among their sources); in anonsim itself the hooks compile to nothing.
 * The test names one fault in the environment:
 *
 *   ANONSIM_FAULT=KIND:EVENT:PAGE
 *
 * applied to instance 0 just before it applies event EVENT (0-based) of
 * its trace; the core-* kinds to the file of the kernel self-check's
 * differential run once its teardown has emptied it (EVENT is 0 there,
 * and every count and entry should be 0).  KIND, and what then disagrees:
 *
 *   tmpfs-count  the instance counts one more resident tmpfs page
 *   host-total   the host counts one more tmpfs page
 *   cache-page   page PAGE of the first page cache loses its resident
 *                flag, its count unchanged
 *   swap-entry   the kernel code forgets page PAGE's swap entry
 *   map-count    the kernel code counts one more mapping of page PAGE
 *   shadow       --check's count of page PAGE's mappings drops to 0
 *   alloc        the next table-page allocation fails
 *   core-map     core_check: index PAGE mapped once more
 *   core-swap    core_check: index PAGE swapped out to entry 999999
 */
#ifndef ANONSIM_MODEL_FAULT_H
#define ANONSIM_MODEL_FAULT_H

#include <stdint.h>

struct host;
struct instance;
struct anon_inode;

#ifdef ANONSIM_FAULT_INJECT
/* Before instance @in applies event @index of its trace. */
void fault_event(struct host *h, struct instance *in, uint64_t index);
/* In core_check's differential run, on the file emptied at its end. */
void fault_core(struct anon_inode *ai);
#else
static inline void fault_event(struct host *h, struct instance *in, uint64_t index)
{
	(void)h;
	(void)in;
	(void)index;
}

static inline void fault_core(struct anon_inode *ai)
{
	(void)ai;
}
#endif

#endif
