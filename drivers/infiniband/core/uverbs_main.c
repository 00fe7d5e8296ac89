// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/infiniband/uverbsN: the character device of each RDMA device, the
 * "infiniband_verbs" class, the files processes open, their mmaps, and
 * cutting files off from a device that went away or died.
 *
 * Locking: xr_uverbs_dev.lock protects the device pointer, the list of
 * files and their async event files; it is never held while waiting for a
 * file's lock.  xr_ufile.lock serialises the commands of one file and
 * protects its objects; only that file's commands, its release and its
 * disassociation from a dead or removed device take it.  xr_ufile.mmap_lock
 * protects its mmap keys and VMAs.  Lock order: xr_ufile.lock, the mm's
 * mmap lock, xr_ufile.mmap_lock; xr_uverbs_dev.lock, then an event file's
 * locks.
 */
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"

#define XR_UVERBS_MAX_DEVICES	32

static dev_t xr_uverbs_base;
static DEFINE_IDA(xr_uverbs_ida);

static char *xr_uverbs_devnode(struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

static CLASS_ATTR_STRING(abi_version, 0444,
			 __stringify(IB_USER_VERBS_ABI_VERSION));

static struct attribute *xr_uverbs_class_attrs[] = {
	&class_attr_abi_version.attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(xr_uverbs_class);

static struct class xr_uverbs_class = {
	.name = "infiniband_verbs",
	.devnode = xr_uverbs_devnode,
	.class_groups = xr_uverbs_class_groups,
};

static struct xr_uverbs_dev *to_udev(struct device *dev)
{
	return container_of(dev, struct xr_uverbs_dev, dev);
}

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct xr_uverbs_dev *udev = to_udev(dev);
	ssize_t ret = -ENODEV;

	mutex_lock(&udev->lock);
	if (udev->xdev)
		ret = sysfs_emit(buf, "%s\n", xr_name(udev->xdev));
	mutex_unlock(&udev->lock);
	return ret;
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct xr_uverbs_dev *udev = to_udev(dev);
	ssize_t ret = -ENODEV;

	mutex_lock(&udev->lock);
	if (udev->xdev)
		ret = sysfs_emit(buf, "%u\n", udev->xdev->ops->uverbs_abi_ver);
	mutex_unlock(&udev->lock);
	return ret;
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *xr_uverbs_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(xr_uverbs_dev);

/*
 * An mmap-able buffer of a driver, found by the key handed to user space:
 * kernel pages (@cpu_addr), or device memory (@io_addr, mapped uncached).
 */
struct xr_mmap_entry {
	void *cpu_addr;
	phys_addr_t io_addr;
	size_t size;
	bool read_only;
};

/*
 * A VMA that maps buffers of a file (vm_private_data), on the file's list
 * so that cutting the file off its device zaps exactly its own mappings:
 * the inode's address space is shared by every open of uverbsN.
 */
struct xr_umap {
	struct list_head list;
	struct vm_area_struct *vma;
};

static int xr_uverbs_open(struct inode *inode, struct file *filp)
{
	struct xr_uverbs_dev *udev =
		container_of(inode->i_cdev, struct xr_uverbs_dev, cdev);
	struct xr_ufile *ufile;
	int ret = 0;

	ufile = kzalloc(sizeof(*ufile), GFP_KERNEL_ACCOUNT);
	if (!ufile)
		return -ENOMEM;
	kref_init(&ufile->ref);
	mutex_init(&ufile->lock);
	mutex_init(&ufile->mmap_lock);
	xa_init_flags(&ufile->objects, XA_FLAGS_ALLOC);
	xa_init_flags(&ufile->mmaps, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&ufile->umaps);
	spin_lock_init(&ufile->channels_lock);
	INIT_LIST_HEAD(&ufile->channels);
	ufile->udev = udev;

	mutex_lock(&udev->lock);
	if (!udev->xdev)
		ret = -ENODEV;
	else if (udev->xdev->dead)
		ret = -EIO;
	if (ret) {
		mutex_unlock(&udev->lock);
		kfree(ufile);
		return ret;
	}
	ufile->xdev = udev->xdev;
	ufile->max_mr_size = udev->xdev->attr.max_mr_size;
	ufile->uid = filp->f_cred->uid;
	list_add_tail(&ufile->list, &udev->files);
	get_device(&udev->dev);
	mutex_unlock(&udev->lock);

	filp->private_data = ufile;
	return nonseekable_open(inode, filp);
}

/*
 * Tell the context that no more events come (after DEVICE_FATAL if
 * @fatal).  Caller holds @ufile->udev->lock or @ufile->lock, either of
 * which keeps @ufile->async_file from changing.
 */
static void xr_ufile_kill_events(struct xr_ufile *ufile, bool fatal)
{
	if (ufile->async_file) {
		if (fatal)
			xr_event_queue(ufile->async_file, 0,
				       XR_EVENT_DEVICE_FATAL, NULL);
		xr_event_file_kill(ufile->async_file);
	}
	xr_event_kill_channels(ufile);
}

/*
 * Zap every VMA of this file, one mm at a time (the VMAs' mmap lock comes
 * before mmap_lock), as in Linux's uverbs_user_mmap_disassociate().  New
 * ones are refused already (ufile->dead).  Caller holds ufile->lock.
 */
static void xr_ufile_zap_mappings(struct xr_ufile *ufile)
{
	struct xr_umap *umap, *next;
	struct vm_area_struct *vma;
	struct mm_struct *mm;

	for (;;) {
		mm = NULL;
		mutex_lock(&ufile->mmap_lock);
		while (!list_empty(&ufile->umaps)) {
			umap = list_first_entry(&ufile->umaps, struct xr_umap,
						list);
			if (mmget_not_zero(umap->vma->vm_mm)) {
				mm = umap->vma->vm_mm;
				break;
			}
			/* The mm is exiting: its VMAs are going anyway. */
			list_del_init(&umap->list);
		}
		mutex_unlock(&ufile->mmap_lock);
		if (!mm)
			return;

		mmap_read_lock(mm);
		mutex_lock(&ufile->mmap_lock);
		list_for_each_entry_safe(umap, next, &ufile->umaps, list) {
			vma = umap->vma;
			if (vma->vm_mm != mm)
				continue;
			list_del_init(&umap->list);
			zap_page_range(vma, vma->vm_start,
				       vma->vm_end - vma->vm_start);
		}
		mutex_unlock(&ufile->mmap_lock);
		mmap_read_unlock(mm);
		mmput(mm);
	}
}

/*
 * Withdraw the entries of the context itself (its device memory and
 * pages, from alloc_ucontext): every object, which withdrew its own, is
 * gone.
 */
static void xr_ufile_remove_mmaps(struct xr_ufile *ufile)
{
	struct xr_mmap_entry *entry;
	unsigned long index;

	mutex_lock(&ufile->mmap_lock);
	xa_for_each(&ufile->mmaps, index, entry) {
		xa_erase(&ufile->mmaps, index);
		kfree(entry);
	}
	mutex_unlock(&ufile->mmap_lock);
}

/* Caller holds ufile->lock.  Safe to call more than once. */
static void xr_ufile_disconnect(struct xr_ufile *ufile)
{
	if (!ufile->xdev)
		return;
	xr_ufile_destroy_objects(ufile);
	xr_ufile_remove_mmaps(ufile);
	if (ufile->has_context)
		atomic64_dec(&ufile->xdev->nr_contexts);
	/* This file's mappings of the device now fault instead. */
	xr_ufile_zap_mappings(ufile);
	xr_ufile_kill_events(ufile, false);
	ufile->xdev = NULL;
}

static int xr_uverbs_release(struct inode *inode, struct file *filp)
{
	struct xr_ufile *ufile = filp->private_data;
	struct xr_uverbs_dev *udev = ufile->udev;

	/*
	 * No VMA maps this file any more (each holds a reference on it), so
	 * nobody's mappings are touched here.
	 */
	mutex_lock(&ufile->lock);
	xr_ufile_disconnect(ufile);
	mutex_unlock(&ufile->lock);

	mutex_lock(&udev->lock);
	list_del(&ufile->list);
	mutex_unlock(&udev->lock);
	/* Delivery no longer finds it; channels may keep @ufile a while. */
	if (ufile->async_file) {
		xr_event_file_put(ufile->async_file);
		ufile->async_file = NULL;
	}
	xr_ufile_put(ufile);
	return 0;
}

static ssize_t xr_uverbs_write(struct file *filp, const char __user *buf,
			       size_t count, loff_t *pos)
{
	/*
	 * Commands carry pointers into the caller's memory, where answers are
	 * written and pages pinned: only the credentials that opened the file
	 * may use it, as Linux's ib_safe_file_access() requires.  Otherwise an
	 * unprivileged opener could hand the file to a privileged program
	 * (as its stdout, say) and have the kernel write into its memory.
	 */
	if (filp->f_cred != current_cred()) {
		pr_err_once("xrdma_core: process %d (%s) wrote to a uverbs file opened with other credentials; refused (EACCES)\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}
	return xr_uverbs_dispatch(filp->private_data, buf, count);
}

/* The ioctl() ABI is not offered; libibverbs then uses write() commands. */
static long xr_uverbs_ioctl(struct file *filp, unsigned int cmd,
			    unsigned long arg)
{
	return -ENOTTY;
}

/* A VMA of ours was split or moved: track the new one too. */
static void xr_vma_open(struct vm_area_struct *vma)
{
	struct xr_ufile *ufile = vma->vm_file->private_data;
	struct xr_umap *umap;

	if (!vma->vm_private_data)
		return;
	umap = kzalloc(sizeof(*umap), GFP_KERNEL);
	mutex_lock(&ufile->mmap_lock);
	if (umap && !READ_ONCE(ufile->dead)) {
		umap->vma = vma;
		list_add(&umap->list, &ufile->umaps);
		vma->vm_private_data = umap;
		mutex_unlock(&ufile->mmap_lock);
		return;
	}
	mutex_unlock(&ufile->mmap_lock);
	kfree(umap);
	/* A VMA that cannot be zapped later must not map the device now. */
	vma->vm_private_data = NULL;
	zap_page_range(vma, vma->vm_start, vma->vm_end - vma->vm_start);
}

static void xr_vma_close(struct vm_area_struct *vma)
{
	struct xr_ufile *ufile = vma->vm_file->private_data;
	struct xr_umap *umap = vma->vm_private_data;

	if (!umap)
		return;
	/* The VMA holds the file, so @ufile is alive. */
	mutex_lock(&ufile->mmap_lock);
	list_del(&umap->list);
	mutex_unlock(&ufile->mmap_lock);
	kfree(umap);
}

static const struct vm_operations_struct xr_vm_ops = {
	.open = xr_vma_open,
	.close = xr_vma_close,
};

static int xr_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct xr_ufile *ufile = filp->private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	struct xr_mmap_entry *entry;
	struct xr_umap *umap;
	unsigned long off;
	int ret = 0;

	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	umap = kzalloc(sizeof(*umap), GFP_KERNEL);
	if (!umap)
		return -ENOMEM;
	/*
	 * Not ufile->lock: commands hold it while they touch user memory,
	 * which takes the mmap lock that our caller holds.
	 */
	mutex_lock(&ufile->mmap_lock);
	if (READ_ONCE(ufile->dead)) {
		ret = -EIO;
		goto out_unlock;
	}
	entry = xa_load(&ufile->mmaps, vma->vm_pgoff);
	if (!entry || size != PAGE_ALIGN(entry->size)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (entry->read_only) {
		if (vma->vm_flags & VM_WRITE) {
			ret = -EPERM;
			goto out_unlock;
		}
		vma->vm_flags &= ~VM_MAYWRITE;
	}
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY;
	vma->vm_flags &= ~VM_MAYEXEC;
	if (entry->io_addr) {
		ret = io_remap_pfn_range(vma, vma->vm_start,
					 entry->io_addr >> PAGE_SHIFT, size,
					 pgprot_noncached(vma->vm_page_prot));
		goto out_mapped;
	}
	/* The page references taken here keep the memory while it is mapped. */
	for (off = 0; off < size && !ret; off += PAGE_SIZE)
		ret = vm_insert_page(vma, vma->vm_start + off,
				     virt_to_page(entry->cpu_addr + off));
out_mapped:
	if (ret)
		goto out_unlock;
	umap->vma = vma;
	list_add(&umap->list, &ufile->umaps);
	vma->vm_private_data = umap;
	vma->vm_ops = &xr_vm_ops;
	umap = NULL;
out_unlock:
	mutex_unlock(&ufile->mmap_lock);
	kfree(umap);
	return ret;
}

static const struct file_operations xr_uverbs_fops = {
	.owner = THIS_MODULE,
	.open = xr_uverbs_open,
	.release = xr_uverbs_release,
	.write = xr_uverbs_write,
	.mmap = xr_uverbs_mmap,
	.unlocked_ioctl = xr_uverbs_ioctl,
	.compat_ioctl = xr_uverbs_ioctl,
	.llseek = no_llseek,
};

/* A new mmap key for kernel pages (@cpu_addr) or device memory (@io_addr). */
static int xr_mmap_add(struct xr_ufile *ufile, void *cpu_addr,
		       phys_addr_t io_addr, size_t size, bool read_only,
		       u64 *key)
{
	struct xr_mmap_entry *entry;
	u32 index;
	int ret;

	lockdep_assert_held(&ufile->lock);
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->cpu_addr = cpu_addr;
	entry->io_addr = io_addr;
	entry->size = size;
	entry->read_only = read_only;
	mutex_lock(&ufile->mmap_lock);
	ret = xa_alloc(&ufile->mmaps, &index, entry,
		       XA_LIMIT(1, (U32_MAX >> PAGE_SHIFT)), GFP_KERNEL);
	mutex_unlock(&ufile->mmap_lock);
	if (ret) {
		kfree(entry);
		return ret;
	}
	*key = (u64)index << PAGE_SHIFT;
	return 0;
}

/**
 * xr_mmap_insert - let user space map a driver buffer of this context
 * @ufile: the context, whose lock the caller holds (inside a command)
 * @cpu_addr: page-aligned kernel address of whole pages that the driver
 *	allocated with alloc_pages_exact(); user mappings hold page references,
 *	so the driver may free them while they are still mapped
 * @size: bytes
 * @read_only: refuse a writable mapping, as xr_mmap_insert_io()
 * @key: out: the mmap offset to give user space
 *
 * Return: 0 or -ENOMEM.
 */
int xr_mmap_insert(struct xr_ufile *ufile, void *cpu_addr, size_t size,
		   bool read_only, u64 *key)
{
	return xr_mmap_add(ufile, cpu_addr, 0, size, read_only, key);
}
EXPORT_SYMBOL_GPL(xr_mmap_insert);

/**
 * xr_mmap_insert_io - let user space map device memory, uncached
 * @ufile: the context, whose lock the caller holds (in alloc_ucontext)
 * @io_addr: page-aligned bus address of the device memory
 * @size: bytes, whole pages that belong to the device alone
 * @read_only: refuse a writable mapping (mmap() fails with EPERM, and
 *	mprotect() cannot add write access later)
 * @key: out: the mmap offset to give user space
 *
 * The entry lives as long as the context: the core withdraws it when the
 * file is closed or cut off its device, and zaps the mappings then.
 *
 * Return: 0, -EINVAL for an unaligned range, or -ENOMEM.
 */
int xr_mmap_insert_io(struct xr_ufile *ufile, phys_addr_t io_addr,
		      size_t size, bool read_only, u64 *key)
{
	if (WARN_ON(!io_addr || !PAGE_ALIGNED(io_addr) || !PAGE_ALIGNED(size)))
		return -EINVAL;
	return xr_mmap_add(ufile, NULL, io_addr, size, read_only, key);
}
EXPORT_SYMBOL_GPL(xr_mmap_insert_io);

/**
 * xr_mmap_remove - withdraw a buffer from xr_mmap_insert()
 * @ufile: the context, whose lock the caller holds
 * @key: the key
 *
 * Later mmap() calls fail; existing mappings keep their pages.
 */
void xr_mmap_remove(struct xr_ufile *ufile, u64 key)
{
	lockdep_assert_held(&ufile->lock);
	/* Waits for an mmap() in progress, whose pages are then referenced. */
	mutex_lock(&ufile->mmap_lock);
	kfree(xa_erase(&ufile->mmaps, key >> PAGE_SHIFT));
	mutex_unlock(&ufile->mmap_lock);
}
EXPORT_SYMBOL_GPL(xr_mmap_remove);

/**
 * xr_copy_to_udata - write the driver's part of a command's answer
 * @udata: from the command
 * @src: the answer
 * @len: its size; user space may have room for less (older library)
 *
 * Return: 0 or -EFAULT.
 */
int xr_copy_to_udata(struct xr_udata *udata, const void *src, size_t len)
{
	if (copy_to_user(udata->outbuf, src, min(len, udata->outlen)))
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL_GPL(xr_copy_to_udata);

/**
 * xr_copy_from_udata - read the driver's part of a command
 * @dst: where it goes
 * @udata: from the command
 * @len: its size: a request with less is refused
 *
 * Return: 0, -EINVAL if the request is too short, or -EFAULT.
 */
int xr_copy_from_udata(void *dst, struct xr_udata *udata, size_t len)
{
	if (udata->inlen < len)
		return -EINVAL;
	if (copy_from_user(dst, udata->inbuf, len))
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL_GPL(xr_copy_from_udata);

static void xr_uverbs_dev_release(struct device *dev)
{
	struct xr_uverbs_dev *udev = to_udev(dev);

	mutex_destroy(&udev->lock);
	kfree(udev);
}

/*
 * Protects xr_device.uverbs for readers that hold no clients_lock: the
 * character device's description (RDMA netlink) while the device goes.
 */
static DEFINE_MUTEX(xr_uverbs_devs_lock);

/* Create /dev/infiniband/uverbsN for a device being registered. */
static int xr_uverbs_add(struct xr_device *xdev)
{
	struct xr_uverbs_dev *udev;
	int ret;

	udev = kzalloc(sizeof(*udev), GFP_KERNEL);
	if (!udev)
		return -ENOMEM;
	mutex_init(&udev->lock);
	INIT_LIST_HEAD(&udev->files);
	udev->xdev = xdev;
	device_initialize(&udev->dev);
	udev->dev.class = &xr_uverbs_class;
	udev->dev.parent = xdev->dev.parent;
	udev->dev.groups = xr_uverbs_dev_groups;
	udev->dev.release = xr_uverbs_dev_release;

	ret = ida_alloc_max(&xr_uverbs_ida, XR_UVERBS_MAX_DEVICES - 1,
			    GFP_KERNEL);
	if (ret < 0)
		goto err_put;
	udev->devnum = ret;
	udev->dev.devt = MKDEV(MAJOR(xr_uverbs_base), udev->devnum);
	ret = dev_set_name(&udev->dev, "uverbs%d", udev->devnum);
	if (ret)
		goto err_free_devnum;
	cdev_init(&udev->cdev, &xr_uverbs_fops);
	udev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&udev->cdev, &udev->dev);
	if (ret)
		goto err_free_devnum;
	mutex_lock(&xr_uverbs_devs_lock);
	xdev->uverbs = udev;
	mutex_unlock(&xr_uverbs_devs_lock);
	return 0;

err_free_devnum:
	ida_free(&xr_uverbs_ida, udev->devnum);
err_put:
	put_device(&udev->dev);
	return ret;
}

/*
 * Cut every file off the device.  First every context learns it and its
 * new commands fail (this needs no file's lock, so a command stuck in a
 * page fault delays nobody else's notice); then each file in turn loses its
 * objects and mappings, which waits for its command in progress, without
 * holding the device's file list meanwhile.
 */
static void xr_uverbs_disconnect_all(struct xr_uverbs_dev *udev, bool fatal)
{
	struct xr_ufile *ufile, *next;

	mutex_lock(&udev->lock);
	list_for_each_entry(ufile, &udev->files, list) {
		WRITE_ONCE(ufile->dead, true);
		xr_ufile_kill_events(ufile, fatal);
	}
	mutex_unlock(&udev->lock);

	for (;;) {
		next = NULL;
		mutex_lock(&udev->lock);
		list_for_each_entry(ufile, &udev->files, list) {
			if (ufile->disassociating)
				continue;
			ufile->disassociating = true;
			kref_get(&ufile->ref);
			next = ufile;
			break;
		}
		mutex_unlock(&udev->lock);
		if (!next)
			return;
		mutex_lock(&next->lock);
		xr_ufile_disconnect(next);
		mutex_unlock(&next->lock);
		xr_ufile_put(next);
	}
}

/*
 * A port went up or down: every context gets the event on its async file.
 * The device died: every context gets XR_EVENT_DEVICE_FATAL, its objects
 * are destroyed, its mappings zapped, and its later commands fail with
 * -EIO.  Called between xr_uverbs_add() and xr_uverbs_remove() only.
 */
static void xr_uverbs_event(struct xr_device *xdev, u32 port, u32 event_type)
{
	struct xr_uverbs_dev *udev = xdev->uverbs;
	struct xr_ufile *ufile;

	if (event_type == XR_EVENT_DEVICE_FATAL) {
		xr_uverbs_disconnect_all(udev, true);
		return;
	}
	/* No file's lock: a command in progress must not delay events. */
	mutex_lock(&udev->lock);
	list_for_each_entry(ufile, &udev->files, list)
		if (ufile->async_file)
			xr_event_queue(ufile->async_file, port, event_type, NULL);
	mutex_unlock(&udev->lock);
}

/*
 * Remove the character device of a device being unregistered.  Open files
 * stay open but lose the device (as after a fatal error); the structure
 * lives until the last of them is closed.
 */
static void xr_uverbs_remove(struct xr_device *xdev)
{
	struct xr_uverbs_dev *udev = xdev->uverbs;

	if (!udev)	/* its add failed */
		return;
	cdev_device_del(&udev->cdev, &udev->dev);
	/* No open() gets the device from now on ... */
	mutex_lock(&udev->lock);
	udev->xdev = NULL;
	mutex_unlock(&udev->lock);
	/* ... and the files that have it lose it. */
	xr_uverbs_disconnect_all(udev, true);
	ida_free(&xr_uverbs_ida, udev->devnum);
	mutex_lock(&xr_uverbs_devs_lock);
	xdev->uverbs = NULL;
	mutex_unlock(&xr_uverbs_devs_lock);
	put_device(&udev->dev);
}

static struct xr_client xr_uverbs_client = {
	.name = "uverbs",
	.add = xr_uverbs_add,
	.remove = xr_uverbs_remove,
	.event = xr_uverbs_event,
};

/**
 * xr_uverbs_chardev - describe a device's uverbs character device
 * @xdev: a registered device
 * @devt: out: its device number
 * @name: out: its name, "uverbsN"
 * @len: room in @name
 *
 * Return: 0, or -ENODEV if the device has none.
 */
int xr_uverbs_chardev(struct xr_device *xdev, dev_t *devt, char *name,
		      size_t len)
{
	struct xr_uverbs_dev *udev;
	int ret = -ENODEV;

	mutex_lock(&xr_uverbs_devs_lock);
	udev = xdev->uverbs;
	if (udev) {
		*devt = udev->dev.devt;
		strscpy(name, dev_name(&udev->dev), len);
		ret = 0;
	}
	mutex_unlock(&xr_uverbs_devs_lock);
	return ret;
}

/**
 * xr_uverbs_init - register the uverbs class, character device numbers and client
 *
 * Return: 0 or a negative errno.
 */
int xr_uverbs_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&xr_uverbs_base, 0, XR_UVERBS_MAX_DEVICES,
				  "infiniband_verbs");
	if (ret)
		return ret;
	ret = class_register(&xr_uverbs_class);
	if (ret)
		goto err_unregister_region;
	ret = xr_register_client(&xr_uverbs_client);
	if (ret)
		goto err_unregister_class;
	return 0;

err_unregister_class:
	class_unregister(&xr_uverbs_class);
err_unregister_region:
	unregister_chrdev_region(xr_uverbs_base, XR_UVERBS_MAX_DEVICES);
	return ret;
}

/**
 * xr_uverbs_exit - undo xr_uverbs_init()
 */
void xr_uverbs_exit(void)
{
	xr_unregister_client(&xr_uverbs_client);
	class_unregister(&xr_uverbs_class);
	unregister_chrdev_region(xr_uverbs_base, XR_UVERBS_MAX_DEVICES);
	ida_destroy(&xr_uverbs_ida);
}
