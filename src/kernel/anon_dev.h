/* SPDX-License-Identifier: GPL-2.0 */
/*
 * anon_dev.h - an open /dev/anon file: the tmpfs file it creates at its
 * first mmap and keeps in file->private_data, and the file references
 * (f_count) that mmap, munmap and close take and drop, posted and fixed.
 *
 * The tmpfs files themselves come from the caller (shmem_file_setup() and
 * the last fput() in the kernel).
 */
#ifndef ANONSIM_ANON_DEV_H
#define ANONSIM_ANON_DEV_H

#include "anon.h"

struct anon_dev_ops {
	/* shmem_file_setup("dev/anon", @size pages): may sleep; NULL: -ENOMEM */
	struct anon_inode *(*setup)(void *priv, unsigned long size);
	/* the last reference to @ai is gone */
	void (*release)(void *priv, struct anon_inode *ai);
};

struct anon_dev {
	spinlock_t lock;		/* fixed: private_data */
	enum anon_variant variant;
	long refs;			/* f_count (atomic in the kernel) */
	struct anon_inode *shm;		/* private_data: NULL before the first mmap */
	long shm_refs;			/* f_count of that tmpfs file */
	const struct anon_dev_ops *ops;
	void *priv;
	unsigned long defects[ANON_NR_DEFECTS];
};

/* open(): the file descriptor's reference. */
void anon_dev_open(struct anon_dev *dev, enum anon_variant variant,
		   const struct anon_dev_ops *ops, void *priv);

/*
 * do_mmap_pgoff() of [pgoff, pgoff + nr) with the patch's ->mmap: returns
 * the tmpfs file the new vma maps (one reference taken for it), or NULL
 * with *@err set.
 */
struct anon_inode *anon_dev_mmap(struct anon_dev *dev, unsigned long pgoff,
				 unsigned long nr, int *err);

/* The fput() of a vma's tmpfs file when the vma goes. */
void anon_dev_vma_put(struct anon_dev *dev, struct anon_inode *ai);

/* close() of the last descriptor: release(), which drops private_data. */
void anon_dev_close(struct anon_dev *dev);

#endif /* ANONSIM_ANON_DEV_H */
