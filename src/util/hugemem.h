/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugemem.h - memory Linux backs with huge pages, for state touched at
 * random across many megabytes.
 *
 * On a virtual machine the first touch of each 4 KiB page costs about
 * 10 us (measured), and with thousands of instances at once the state a
 * replay reaches into spans a gigabyte, beyond what the TLB maps in
 * 4 KiB pages.  Blocks aligned to 2 MiB and madvised MADV_HUGEPAGE are
 * faulted in and mapped 2 MiB at a time where the kernel allows it
 * (transparent_hugepage "madvise" or "always"); elsewhere they are
 * plain anonymous memory.
 */
#ifndef ANONSIM_HUGEMEM_H
#define ANONSIM_HUGEMEM_H

#include <stddef.h>

#define HUGE_BYTES ((size_t)2 << 20)

/* @len bytes (a multiple of HUGE_BYTES) aligned to HUGE_BYTES, zeroed; NULL if none. */
void *huge_map(size_t len);
void huge_unmap(void *p, size_t len);

/*
 * A zeroed block of @size bytes, carved from huge blocks (a block over
 * HUGE_BYTES, or of a size beyond the few the pool keeps lists for, is
 * calloc()'s); die_oom(@what) when out of memory.  Freed blocks are kept for
 * the next of their size, never given back: a replay's peak is what it
 * keeps.  Thread-safe, and across fork().  Built with AddressSanitizer
 * they are calloc()'s, so that it sees them.
 */
void *huge_zalloc(size_t size, const char *what);
void huge_free(void *p, size_t size);

#endif
