/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ubd_mmap.h - what the ubd-mmap strategies (devanon, punch) share: a
 * page-aligned ubd read maps the image pages over physical memory instead of
 * copying them, and a guest reusing or freeing such a page gets its memory
 * file mapped back.  They differ only in how the tmpfs page under the new
 * mapping is let go: map-count reclaim or a punched hole.
 */
#ifndef ANONSIM_UBD_MMAP_H
#define ANONSIM_UBD_MMAP_H

#include "model/instance.h"

/* Let go of the memory-file pages [p, p + nr) that a file mapping replaces. */
typedef void (*ubd_release_fn)(struct instance *in, uint64_t p, uint64_t nr);

void ubd_mmap_read(struct instance *in, const struct trace_event *ev,
		   ubd_release_fn release);
/* Map the memory file back over P if a file page is mapped there. */
void ubd_mmap_restore(struct instance *in, uint64_t p);
void ubd_mmap_touch(struct instance *in, uint64_t p, uint64_t nr);
void ubd_mmap_free(struct instance *in, uint64_t p, uint64_t nr);

#endif
