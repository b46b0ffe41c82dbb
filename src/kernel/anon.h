/* SPDX-License-Identifier: GPL-2.0 */
/*
 * anon.h - /dev/anon: tmpfs plus a per-page map count kept in a block table
 * parallel to the swap entries.  When munmap drops a page's count to zero the
 * page and its swap entry are freed, so a file can lose pages in its middle.
 *
 * Two variants of the same code, chosen per file at run time:
 *
 *   ANON_POSTED  the RFC patch as posted (2.4.23, January 2004), defects and
 *                all; each defect is listed in enum anon_defect;
 *   ANON_FIXED   the corrected semantics.
 */
#ifndef ANONSIM_ANON_H
#define ANONSIM_ANON_H

#include "shmem_inode.h"

enum anon_variant {
	ANON_POSTED,
	ANON_FIXED,
};

/*
 * The posted patch's defects.  The posted variant counts each time it takes
 * a defective path (ANON_FIXED never does), so that a caller seeing an
 * invariant break can say which defect caused it.
 */
enum anon_defect {
	/* fork() copies and mremap() moves a mapping without ->mmap: no count taken */
	ANON_DEFECT_DUP_UNCOUNTED,
	/* munmap reclaims only pages present in this mm's page tables */
	ANON_DEFECT_PTE_ONLY_RECLAIM,
	/* truncate and release never free the map-count table pages */
	ANON_DEFECT_MAP_TABLE_LEAK,
	/* a leftover spare page is freed but not cleared before the next index */
	ANON_DEFECT_STALE_SPARE,
	/* munmap walks and decrements the map counts without the lock */
	ANON_DEFECT_UNLOCKED_DECREMENT,
	/* a count already at zero is decremented and wraps to ULONG_MAX */
	ANON_DEFECT_COUNT_UNDERFLOW,
	/* mmap failing with -ENOMEM keeps the counts it already took */
	ANON_DEFECT_ENOMEM_NO_ROLLBACK,
	/*
	 * shmem_free_swp(entry, 1) meets 2.4.23's (dir, edir): the literal 1
	 * is the end pointer and nothing is freed; where the unmapped page
	 * still has a swap entry, the entry and its swap slot stay.
	 */
	ANON_DEFECT_SWAP_NOT_FREED,
	/*
	 * mmap/munmap at an index >= SHMEM_MAX_INDEX (a large mmap offset):
	 * the patch's shmem_block() has no -EFBIG check and walks past the end
	 * of the indirect page.  Modelled as a refusal, the counts already
	 * taken kept.
	 */
	ANON_DEFECT_INDEX_UNCHECKED,
	/*
	 * MAP_PRIVATE after copy-on-write: the pte maps the private copy, which
	 * munmap takes for the file's page and removes from the page cache
	 * (it is in none: an oops in 2.4.23, or, in the swap cache, the
	 * copy is removed from there).  Modelled as a page left alone: the
	 * file's page or swap entry stays.
	 */
	ANON_DEFECT_PRIVATE_COW,
	/*
	 * exit_mmap() (process exit, exec) calls vm_ops->close and never the
	 * patch's f_op->munmap: the exiting process's counts stay, and pages
	 * of a file shared with other processes are never freed.
	 */
	ANON_DEFECT_EXIT_UNCOUNTED,
	/*
	 * The tmpfs file is sized by the first mapping
	 * (shmem_file_setup("dev/anon", size)): a later mapping at a larger
	 * offset, or a first one with an offset, reaches past i_size, where a
	 * fault raises SIGBUS.
	 */
	ANON_DEFECT_SIZE_FIRST_MAP,
	/*
	 * 2.4's LockPage() is a bare set_bit that does not wait: munmap
	 * removes a page another path holds locked, and its UnlockPage()
	 * releases that path's lock.
	 */
	ANON_DEFECT_LOCKPAGE_NO_WAIT,
	/*
	 * An mmap that fails after ->mmap swapped vma->vm_file: the patch
	 * dropped the /dev/anon file and took the tmpfs file, then
	 * do_mmap_pgoff() drops the /dev/anon file again (a double fput) and
	 * the tmpfs file's reference is never dropped (the file leaks).
	 */
	ANON_DEFECT_DOUBLE_FPUT,
	/*
	 * file->private_data is tested and set without a lock: two first
	 * mmaps racing on one file each set up a tmpfs file; one is leaked
	 * and the mappings do not share their pages.
	 */
	ANON_DEFECT_PRIVATE_DATA_RACE,
	ANON_NR_DEFECTS
};

extern const char *const anon_defect_names[ANON_NR_DEFECTS];

struct anon_inode {
	struct shmem_inode shm;
	struct shmem_table maps;	/* map counts, parallel to shm.swap */
	enum anon_variant variant;
	unsigned long reclaimed;	/* pages freed by a count reaching zero */
	unsigned long size;		/* i_size in pages: faults beyond it fail */
	long file_refs;			/* f_count of the tmpfs file (anon_dev.h) */
	unsigned long defects[ANON_NR_DEFECTS];
};

void anon_inode_init(struct anon_inode *ai, const struct shmem_geom *geom,
		     enum anon_variant variant,
		     const struct shmem_page_ops *pops, void *priv);

/* ->mmap of [pgoff, pgoff + nr): one more mapping of each page. */
int anon_mmap(struct anon_inode *ai, unsigned long pgoff, unsigned long nr);

/* ->open of a vma copied by fork or moved by mremap. */
int anon_vma_dup(struct anon_inode *ai, unsigned long pgoff, unsigned long nr);

/*
 * ->munmap of [pgoff, pgoff + nr): one mapping fewer; a page whose count
 * reaches zero is removed from the page cache and its swap entry freed.
 * Returns the number of pages reclaimed.
 */
unsigned long anon_munmap(struct anon_inode *ai, unsigned long pgoff,
			  unsigned long nr);

/*
 * ->close of a vma torn down by exit_mmap() (process exit, exec): in the
 * fixed code one mapping fewer, as munmap.  Returns the pages reclaimed.
 */
unsigned long anon_vma_close(struct anon_inode *ai, unsigned long pgoff,
			     unsigned long nr);

/*
 * Can page @index be faulted in?  shmem_getpage() refuses an index at or
 * beyond i_size (2.4.23: -EINVAL, SIGBUS for a fault).
 */
bool anon_index_in_size(struct anon_inode *ai, unsigned long index);

/* Current map count of @index (0 where no table page exists). */
unsigned long anon_map_count(struct anon_inode *ai, unsigned long index);

/* Truncate to @start pages (0: release of the last reference). */
void anon_truncate(struct anon_inode *ai, unsigned long start);

#endif /* ANONSIM_ANON_H */
