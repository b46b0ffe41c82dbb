// SPDX-License-Identifier: GPL-2.0
/*
 * anon_dev.c - the /dev/anon file around its tmpfs file: creation at the
 * first mmap and the references the mmap path moves, posted and fixed.
 *
 * 2.4.23 mm/mmap.c: do_mmap_pgoff() sets vma->vm_file to the file and takes
 * a reference before calling ->mmap; on an error from ->mmap it clears
 * vma->vm_file and drops its reference to that file (not to whatever
 * vm_file became).  The patch's ->mmap drops the /dev/anon file and takes
 * the tmpfs file before it counts the pages, which may fail.
 */
#include "anon_dev.h"

void anon_dev_open(struct anon_dev *dev, enum anon_variant variant,
		   const struct anon_dev_ops *ops, void *priv)
{
	int i;

	spin_lock_init(&dev->lock);
	dev->variant = variant;
	dev->refs = 1;
	dev->shm = NULL;
	dev->ops = ops;
	dev->priv = priv;
	for (i = 0; i < ANON_NR_DEFECTS; i++)
		dev->defects[i] = 0;
}

void anon_dev_vma_put(struct anon_dev *dev, struct anon_inode *ai)
{
	if (--ai->file_refs == 0)
		dev->ops->release(dev->priv, ai);
}

/* fput() of the /dev/anon file: the last one runs its ->release. */
static void dev_put(struct anon_dev *dev)
{
	if (--dev->refs == 0 && dev->shm)
		anon_dev_vma_put(dev, dev->shm);
}

static struct anon_inode *posted_mmap(struct anon_dev *dev,
				      unsigned long pgoff, unsigned long nr,
				      int *err)
{
	struct anon_inode *new;

	dev->refs++;			/* do_mmap_pgoff()'s get_file() */
	if (!dev->shm) {
		new = dev->ops->setup(dev->priv, nr);
		if (!new) {
			dev_put(dev);
			*err = -ENOMEM;
			return NULL;
		}
		/* another first mmap got here while setup slept */
		if (dev->shm)
			dev->defects[ANON_DEFECT_PRIVATE_DATA_RACE]++;
		new->file_refs = 1;
		dev->shm = new;
	}
	/* vma->vm_file becomes the tmpfs file */
	dev_put(dev);
	dev->shm->file_refs++;
	new = dev->shm;
	*err = anon_mmap(new, pgoff, nr);
	if (*err) {
		/* do_mmap_pgoff() drops the /dev/anon file once more */
		dev->defects[ANON_DEFECT_DOUBLE_FPUT]++;
		dev_put(dev);
		return NULL;
	}
	return new;
}

static struct anon_inode *fixed_mmap(struct anon_dev *dev,
				     unsigned long pgoff, unsigned long nr,
				     int *err)
{
	struct anon_inode *shm, *new = NULL;

	dev->refs++;
	spin_lock(&dev->lock);
	shm = dev->shm;
	spin_unlock(&dev->lock);
	if (!shm) {
		/* set up without the lock (it sleeps); the first one in wins */
		new = dev->ops->setup(dev->priv, pgoff + nr);
		spin_lock(&dev->lock);
		if (new && !dev->shm) {
			new->file_refs = 1;
			dev->shm = new;
			new = NULL;
		}
		shm = dev->shm;
		spin_unlock(&dev->lock);
		if (new)
			dev->ops->release(dev->priv, new);
	}
	*err = shm ? anon_mmap(shm, pgoff, nr) : -ENOMEM;
	/* vm_file becomes the tmpfs file only once nothing can fail */
	if (!*err)
		shm->file_refs++;
	dev_put(dev);
	return *err ? NULL : shm;
}

struct anon_inode *anon_dev_mmap(struct anon_dev *dev, unsigned long pgoff,
				 unsigned long nr, int *err)
{
	if (dev->variant == ANON_POSTED)
		return posted_mmap(dev, pgoff, nr, err);
	return fixed_mmap(dev, pgoff, nr, err);
}

void anon_dev_close(struct anon_dev *dev)
{
	dev_put(dev);
}
