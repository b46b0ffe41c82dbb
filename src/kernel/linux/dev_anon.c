// SPDX-License-Identifier: GPL-2.0
/*
 * dev_anon.c - /dev/anon for Linux 6.1: tmpfs memory whose pages are freed
 * one by one when their last mapping goes.
 *
 * The map counts and the decision to free a page are the reference code of
 * src/kernel (anon.c, shmem_table.c, shmem_inode.c), compiled unchanged, in
 * its fixed variant.  This file is the glue: the tmpfs file underneath, the
 * vm_operations that take and drop the counts, the page-cache operations the
 * reclaim decision calls, and what user space may read back.
 *
 * Where 6.1 differs from the 2.4.23 design (the RFC's f_op->munmap):
 *
 *  - 6.1 has no f_op->munmap.  Counts are taken by ->mmap and by
 *    vm_ops->open (fork's copy, mremap's move, mremap's duplicate) and
 *    dropped by vm_ops->close, which munmap, exit and exec all call once
 *    the page tables of the range are gone.
 *  - vm_ops->open also runs on the new half of a split vma (munmap or
 *    mprotect of part of a mapping).  The split vma still covers the new
 *    one then, and each page stays mapped once, so open takes no count
 *    when another vma of the mm covers the new one.
 *  - vm_ops->open cannot fail.  It never needs memory: the range it counts
 *    was counted before (table pages go only at the last reference), so
 *    anon_vma_dup() cannot meet -ENOMEM; a failure would be a bug (WARN).
 *  - A mapping that grows in place (mremap) would gain pages with no hook
 *    to count them, so the vmas are VM_DONTEXPAND: growing mremap fails
 *    with EFAULT (MREMAP_DONTUNMAP with EINVAL), shrinking and moving work.
 *  - The tmpfs file is sized to the whole table (SHMEM_MAX_INDEX pages)
 *    at creation, so every mapping lies within i_size without taking the
 *    inode lock under mmap_lock.  mmap past SHMEM_MAX_INDEX fails, EFBIG.
 *  - A page's data and its swap entry live in the mapping's xarray, not in
 *    a 2.4 swap table: the reclaim decision is the reference code's, the
 *    freeing is shmem_truncate_range() of that one page, which drops it
 *    from the page cache or frees its swap entry and keeps shmem's
 *    accounting (Shmem in /proc/meminfo) right.  The reference code's own
 *    swap table stays empty.
 *  - Counts and frees of one file are serialised by a mutex (the page lock
 *    and the truncation sleep); the tables' spin lock is the reference
 *    code's own.
 *  - Built in only: the reference code calls swap_free(), which 6.1 does
 *    not export to modules (the reference swap table stays empty here, so
 *    it is never called).
 *  - Bounded and accounted: the map counts of a mapping are built at mmap,
 *    a table page (512 counts) per 2 MiB, charged to the caller's memory
 *    cgroup (__GFP_ACCOUNT; past its limit mmap fails with ENOMEM, the
 *    table pages it built freed again).  A mapping may be at most
 *    DEVANON_MAX_MAP_BYTES long (EFBIG beyond, before anything is
 *    allocated).  The counts are walked a table page at a time, with a
 *    chance for the scheduler between table pages.
 *  - shmem's ->mmap fails only on a seal, which this file never has, so
 *    its failure is injected to test the path that drops the counts
 *    again: fail_devanon_mmap in debugfs (fault injection's attributes,
 *    CONFIG_FAULT_INJECTION_DEBUG_FS).
 *  - Transparent huge pages: UML has none.  Where shmem makes a large folio
 *    of this file (shmem_enabled), freeing one page of it only splits the
 *    folio or, if that fails, zeroes the page; the reclaimed counter counts
 *    only pages that are gone from the file afterwards.
 *
 * read() and write() reach the tmpfs file as they would a tmpfs file: UML
 * writes a page of its memory file with write() (the syscall stub page, at
 * boot), which then holds data with no mapping and a count of 0, until a
 * mapping of it comes and goes.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "anon.h"
#include "devanon_uapi.h"

/*
 * The longest mapping: 16 GiB.  Its map counts take 8209 table pages
 * (32 MiB: 0.2 % of what it maps), built when it is mapped; a UML's memory
 * file is its mem= plus a gap of about 1 GiB, so UMLs of up to 15 GiB map
 * it whole.  One mapping's walk is then 4 Mi counts, 8192 table pages.
 */
#define DEVANON_MAX_MAP_BYTES	SZ_16G

/* The tmpfs file of an open /dev/anon file and its map counts. */
struct devanon_inode {
	struct anon_inode ai;
	struct file *shm;		/* private_data points back here */
	struct kref ref;		/* the /dev/anon file's and each vma's */
	struct mutex lock;		/* counts taken, dropped, pages freed */
	struct folio *locked;		/* held between lock_page and unlock_page */
	bool remove;			/* the reference code decided to free it */
	struct list_head node;		/* on devanon_inodes */
};

/* An open /dev/anon file: its tmpfs file, made by the first mmap. */
struct devanon_file {
	struct mutex lock;		/* the fixed private_data */
	struct devanon_inode *di;
};

static const struct shmem_geom *devanon_geom;
static atomic_long_t devanon_reclaimed = ATOMIC_LONG_INIT(0);
static DEFINE_MUTEX(devanon_inodes_lock);
static LIST_HEAD(devanon_inodes);

/*
 * shmem's own vm_operations with open and close added (see devanon_mmap).
 * Not const: shmem does not export its table, so it is copied from the
 * first vma shmem's ->mmap sets up, at run time.
 */
static struct vm_operations_struct devanon_vm_ops;
static DEFINE_MUTEX(devanon_vm_ops_lock);
static bool devanon_vm_ops_ready;

/* --- the page cache, as the reference code's shmem_page_ops ---------------- */

static enum shmem_pte devanon_pte(void *priv, unsigned long index)
{
	return SHMEM_PTE_NONE;	/* the posted variant's question only */
}

/* The page, or its swap entry, exists: lock the page if it is cached. */
static bool devanon_lock_page(void *priv, unsigned long index)
{
	struct devanon_inode *di = priv;
	struct address_space *mapping = di->shm->f_mapping;
	struct folio *folio = filemap_lock_folio(mapping, index);

	di->remove = false;
	di->locked = folio;
	if (folio)
		return true;
	return xa_is_value(xa_load(&mapping->i_pages, index));
}

/* Called after the decision, with no spin lock held: the free happens here. */
static void devanon_unlock_page(void *priv, unsigned long index)
{
	struct devanon_inode *di = priv;
	loff_t start = (loff_t)index << PAGE_SHIFT;

	if (di->locked) {
		folio_unlock(di->locked);
		folio_put(di->locked);
		di->locked = NULL;
	}
	if (di->remove) {
		di->remove = false;
		shmem_truncate_range(file_inode(di->shm), start,
				     start + PAGE_SIZE - 1);
		/* a page of a large folio that did not split stays, zeroed */
		if (!xa_load(&di->shm->f_mapping->i_pages, index))
			atomic_long_inc(&devanon_reclaimed);
	}
}

static bool devanon_page_locked(void *priv, unsigned long index)
{
	return false;	/* the posted variant's question only */
}

/* Under the tables' spin lock, the page locked: decide, free it unlocked. */
static bool devanon_remove_page(void *priv, unsigned long index)
{
	struct devanon_inode *di = priv;

	di->remove = true;
	return true;
}

static const struct shmem_page_ops devanon_pops = {
	.pte = devanon_pte,
	.lock_page = devanon_lock_page,
	.unlock_page = devanon_unlock_page,
	.page_locked = devanon_page_locked,
	.remove_page = devanon_remove_page,
};

/* --- the tmpfs file -------------------------------------------------------- */

static struct devanon_inode *devanon_inode_new(void)
{
	struct devanon_inode *di = kzalloc(sizeof(*di), GFP_KERNEL);
	loff_t size = (loff_t)devanon_geom->max_index << PAGE_SHIFT;

	if (!di)
		return ERR_PTR(-ENOMEM);
	di->shm = shmem_file_setup("dev/anon", size, VM_NORESERVE);
	if (IS_ERR(di->shm)) {
		long err = PTR_ERR(di->shm);

		kfree(di);
		return ERR_PTR(err);
	}
	di->shm->private_data = di;
	anon_inode_init(&di->ai, devanon_geom, ANON_FIXED, &devanon_pops, di);
	kref_init(&di->ref);
	mutex_init(&di->lock);
	mutex_lock(&devanon_inodes_lock);
	list_add(&di->node, &devanon_inodes);
	mutex_unlock(&devanon_inodes_lock);
	return di;
}

static void devanon_inode_release(struct kref *ref)
{
	struct devanon_inode *di = container_of(ref, struct devanon_inode, ref);

	mutex_lock(&devanon_inodes_lock);
	list_del(&di->node);
	mutex_unlock(&devanon_inodes_lock);
	anon_truncate(&di->ai, 0);	/* every table page back */
	di->shm->private_data = NULL;
	fput(di->shm);
	kfree(di);
}

static void devanon_inode_put(struct devanon_inode *di)
{
	kref_put(&di->ref, devanon_inode_release);
}

/* --- vm_operations --------------------------------------------------------- */

static struct devanon_inode *vma_inode(struct vm_area_struct *vma)
{
	return vma->vm_file->private_data;
}

static void devanon_vm_open(struct vm_area_struct *vma)
{
	struct devanon_inode *di = vma_inode(vma);
	struct vm_area_struct *other;
	int err;

	kref_get(&di->ref);
	/*
	 * 6.1 calls ->open on a vma not yet in its mm: __split_vma() before
	 * it shrinks the vma split, which still covers the new one; fork on
	 * the child's copy, whose range is empty in the child's mm; mremap's
	 * copy_vma() on a range it emptied first (vmas with ->close never
	 * merge).  So a vma of the mm already over the range is the one being
	 * split: the pages are mapped once still.  The order is core mm's,
	 * not an interface: what the split case relies on is checked here.
	 */
	mmap_assert_write_locked(vma->vm_mm);
	other = find_vma_intersection(vma->vm_mm, vma->vm_start, vma->vm_end);
	if (other && other != vma) {
		WARN_ON_ONCE(other->vm_file != vma->vm_file ||
			     other->vm_start > vma->vm_start ||
			     other->vm_end < vma->vm_end ||
			     other->vm_pgoff + ((vma->vm_start - other->vm_start) >>
						PAGE_SHIFT) != vma->vm_pgoff);
		return;
	}
	/* fork's copy, mremap's move or duplicate */
	mutex_lock(&di->lock);
	err = anon_vma_dup(&di->ai, vma->vm_pgoff, vma_pages(vma));
	mutex_unlock(&di->lock);
	WARN_ON_ONCE(err);
}

/*
 * Drops the counts of the vma's range.  __split_vma() failing after ->open
 * empties the new vma (vm_start = vm_end) before its ->close: no count.
 */
static void devanon_vm_close(struct vm_area_struct *vma)
{
	struct devanon_inode *di = vma_inode(vma);

	mutex_lock(&di->lock);
	anon_vma_close(&di->ai, vma->vm_pgoff, vma_pages(vma));
	mutex_unlock(&di->lock);
	devanon_inode_put(di);
}

/* shmem's vm_operations, learnt from its ->mmap, with open and close */
static int devanon_learn_vm_ops(const struct vm_operations_struct *shmem_ops)
{
	mutex_lock(&devanon_vm_ops_lock);
	if (!devanon_vm_ops_ready) {
		devanon_vm_ops = *shmem_ops;
		devanon_vm_ops.open = devanon_vm_open;
		devanon_vm_ops.close = devanon_vm_close;
		devanon_vm_ops_ready = true;
	}
	mutex_unlock(&devanon_vm_ops_lock);
	if (shmem_ops->open || shmem_ops->close || !shmem_ops->fault ||
	    shmem_ops->fault != devanon_vm_ops.fault)
		return -ENODEV;	/* not the shmem this glue was written for */
	return 0;
}

/* --- the /dev/anon file ---------------------------------------------------- */

static int devanon_open(struct inode *inode, struct file *file)
{
	struct devanon_file *df = kzalloc(sizeof(*df), GFP_KERNEL);

	if (!df)
		return -ENOMEM;
	mutex_init(&df->lock);
	file->private_data = df;
	return 0;
}

static int devanon_release(struct inode *inode, struct file *file)
{
	struct devanon_file *df = file->private_data;

	if (df->di)
		devanon_inode_put(df->di);
	kfree(df);
	return 0;
}

/* The tmpfs file of @df, made by the first mmap under the lock. */
static struct devanon_inode *devanon_file_inode(struct devanon_file *df)
{
	struct devanon_inode *di;

	mutex_lock(&df->lock);
	if (!df->di) {
		di = devanon_inode_new();
		if (IS_ERR(di)) {
			mutex_unlock(&df->lock);
			return di;
		}
		df->di = di;
	}
	di = df->di;
	mutex_unlock(&df->lock);
	return di;
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static DECLARE_FAULT_ATTR(devanon_fail_mmap);
static struct dentry *devanon_fault_dir;

/* shmem's ->mmap failing as a seal would make it, when fault injection says */
static int devanon_inject_mmap_failure(void)
{
	return should_fail(&devanon_fail_mmap, 1) ? -EPERM : 0;
}

static void __init devanon_fault_attr_init(void)
{
	/* like any debugfs file, its failure leaves the driver working */
	devanon_fault_dir = fault_create_debugfs_attr("fail_devanon_mmap", NULL,
						      &devanon_fail_mmap);
}

static void devanon_fault_attr_exit(void)
{
	debugfs_remove_recursive(devanon_fault_dir);
}
#else
static inline int devanon_inject_mmap_failure(void)
{
	return 0;
}

static inline void devanon_fault_attr_init(void)
{
}

static inline void devanon_fault_attr_exit(void)
{
}
#endif

static int devanon_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long nr = vma_pages(vma);
	struct devanon_inode *di;
	int err;

	if (nr > DEVANON_MAX_MAP_BYTES >> PAGE_SHIFT)
		return -EFBIG;
	di = devanon_file_inode(file->private_data);
	if (IS_ERR(di))
		return PTR_ERR(di);
	mutex_lock(&di->lock);
	err = anon_mmap(&di->ai, vma->vm_pgoff, nr);
	mutex_unlock(&di->lock);
	if (err)
		return err;
	/* shmem sets its vm_ops (and checks seals) on the vma */
	err = call_mmap(di->shm, vma);
	if (!err)
		err = devanon_inject_mmap_failure();
	if (!err)
		err = devanon_learn_vm_ops(vma->vm_ops);
	if (err) {
		/* nothing of the range can be faulted yet: just drop the counts */
		mutex_lock(&di->lock);
		anon_munmap(&di->ai, vma->vm_pgoff, nr);
		mutex_unlock(&di->lock);
		return err;
	}
	/* nothing fails from here on: the vma maps the tmpfs file */
	kref_get(&di->ref);
	vma_set_file(vma, di->shm);
	vma->vm_flags |= VM_DONTEXPAND;
	vma->vm_ops = &devanon_vm_ops;
	return 0;
}

static ssize_t devanon_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct devanon_inode *di = devanon_file_inode(iocb->ki_filp->private_data);

	if (IS_ERR(di))
		return PTR_ERR(di);
	return vfs_iter_read(di->shm, to, &iocb->ki_pos, 0);
}

static ssize_t devanon_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct devanon_inode *di = devanon_file_inode(iocb->ki_filp->private_data);

	if (IS_ERR(di))
		return PTR_ERR(di);
	return vfs_iter_write(di->shm, from, &iocb->ki_pos, 0);
}

/* The file position is the tmpfs file's offset, as read and write take it. */
static loff_t devanon_llseek(struct file *file, loff_t offset, int whence)
{
	return fixed_size_llseek(file, offset, whence,
				 (loff_t)devanon_geom->max_index << PAGE_SHIFT);
}

static long devanon_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct devanon_file *df = file->private_data;
	struct devanon_pages req;
	struct devanon_inode *di;
	u32 __user *counts;
	u8 __user *resident;
	struct folio *folio;
	unsigned long i;
	u32 count;
	u8 res;

	if (cmd != DEVANON_IOC_PAGES)
		return -ENOTTY;
	if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
		return -EFAULT;
	if (!req.nr || req.nr > DEVANON_PAGES_MAX ||
	    req.index > devanon_geom->max_index - req.nr)
		return -EINVAL;
	counts = u64_to_user_ptr(req.counts);
	resident = u64_to_user_ptr(req.resident);
	mutex_lock(&df->lock);
	di = df->di;
	if (di)
		kref_get(&di->ref);
	mutex_unlock(&df->lock);
	for (i = 0; i < req.nr; i++) {
		count = 0;
		res = 0;
		if (di) {
			count = anon_map_count(&di->ai, req.index + i);
			folio = filemap_get_folio(di->shm->f_mapping,
						  req.index + i);
			if (folio) {
				res = 1;
				folio_put(folio);
			}
		}
		if ((counts && put_user(count, counts + i)) ||
		    (resident && put_user(res, resident + i))) {
			if (di)
				devanon_inode_put(di);
			return -EFAULT;
		}
	}
	if (di)
		devanon_inode_put(di);
	return 0;
}

static const struct file_operations devanon_fops = {
	.owner = THIS_MODULE,
	.open = devanon_open,
	.release = devanon_release,
	.mmap = devanon_mmap,
	.read_iter = devanon_read_iter,
	.write_iter = devanon_write_iter,
	.unlocked_ioctl = devanon_ioctl,
	.llseek = devanon_llseek,
};

/* --- counters: /sys/class/misc/anon/ --------------------------------------- */

/* tmpfs files alive (one per /dev/anon file mapped at least once) */
static ssize_t files_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct devanon_inode *di;
	unsigned long n = 0;

	mutex_lock(&devanon_inodes_lock);
	list_for_each_entry(di, &devanon_inodes, node)
		n++;
	mutex_unlock(&devanon_inodes_lock);
	return sysfs_emit(buf, "%lu\n", n);
}

/* data pages of those files in the page cache */
static ssize_t resident_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct devanon_inode *di;
	unsigned long n = 0;

	mutex_lock(&devanon_inodes_lock);
	list_for_each_entry(di, &devanon_inodes, node)
		n += READ_ONCE(di->shm->f_mapping->nrpages);
	mutex_unlock(&devanon_inodes_lock);
	return sysfs_emit(buf, "%lu\n", n);
}

/* map-count table pages held */
static ssize_t map_table_pages_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct devanon_inode *di;
	unsigned long n = 0;

	mutex_lock(&devanon_inodes_lock);
	list_for_each_entry(di, &devanon_inodes, node) {
		spin_lock(&di->ai.shm.lock);
		n += di->ai.maps.nr_pages;
		spin_unlock(&di->ai.shm.lock);
	}
	mutex_unlock(&devanon_inodes_lock);
	return sysfs_emit(buf, "%lu\n", n);
}

/*
 * pages (or swap entries) freed because their map count reached zero, and
 * gone from the file since
 */
static ssize_t reclaimed_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&devanon_reclaimed));
}

static DEVICE_ATTR_RO(files);
static DEVICE_ATTR_RO(resident);
static DEVICE_ATTR_RO(map_table_pages);
static DEVICE_ATTR_RO(reclaimed);

static struct attribute *devanon_attrs[] = {
	&dev_attr_files.attr,
	&dev_attr_resident.attr,
	&dev_attr_map_table_pages.attr,
	&dev_attr_reclaimed.attr,
	NULL,
};
ATTRIBUTE_GROUPS(devanon);

static struct miscdevice devanon_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "anon",
	.fops = &devanon_fops,
	.groups = devanon_groups,
	.mode = 0666,
};

static int __init devanon_init(void)
{
	/* the reference geometry whose table pages are this machine's pages */
	devanon_geom = BITS_PER_LONG == 64 ? &shmem_geom_x86_64 :
					     &shmem_geom_i386;
	if (devanon_geom->entries_per_page != PAGE_SIZE / sizeof(long)) {
		pr_err("devanon: no table geometry for %lu-byte pages\n",
		       PAGE_SIZE);
		return -EINVAL;
	}
	devanon_fault_attr_init();
	return misc_register(&devanon_misc);
}

static void __exit devanon_exit(void)
{
	misc_deregister(&devanon_misc);
	devanon_fault_attr_exit();
}

module_init(devanon_init);
module_exit(devanon_exit);
MODULE_DESCRIPTION("/dev/anon: tmpfs pages freed when their last mapping goes");
MODULE_LICENSE("GPL");
