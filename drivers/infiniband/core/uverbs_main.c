// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/infiniband/uverbsN: the character device of each RDMA device, the
 * "infiniband_verbs" class, the files processes open, their mmaps, and
 * cutting files off from a device that went away or died.
 *
 * Locking: xr_uverbs_dev.lock protects the device pointer and the list of
 * files; xr_ufile.lock serialises the commands of one file and protects its
 * objects; xr_ufile.mmap_lock protects its mmap keys.  Lock order:
 * xr_uverbs_dev.lock, xr_ufile.lock, the mm's mmap lock, xr_ufile.mmap_lock.
 */
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/mm.h>
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

/* An mmap-able buffer of a driver, found by the key handed to user space. */
struct xr_mmap_entry {
	void *cpu_addr;
	size_t size;
};

static int xr_uverbs_open(struct inode *inode, struct file *filp)
{
	struct xr_uverbs_dev *udev =
		container_of(inode->i_cdev, struct xr_uverbs_dev, cdev);
	struct xr_ufile *ufile;
	int ret = 0;

	ufile = kzalloc(sizeof(*ufile), GFP_KERNEL);
	if (!ufile)
		return -ENOMEM;
	mutex_init(&ufile->lock);
	mutex_init(&ufile->mmap_lock);
	xa_init_flags(&ufile->objects, XA_FLAGS_ALLOC);
	xa_init_flags(&ufile->mmaps, XA_FLAGS_ALLOC1);
	xa_init_flags(&ufile->channels, XA_FLAGS_ALLOC);
	ufile->udev = udev;
	ufile->mapping = filp->f_mapping;

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
	list_add_tail(&ufile->list, &udev->files);
	get_device(&udev->dev);
	mutex_unlock(&udev->lock);

	filp->private_data = ufile;
	return nonseekable_open(inode, filp);
}

/* Caller holds ufile->lock.  Safe to call more than once. */
static void xr_ufile_disconnect(struct xr_ufile *ufile, bool fatal)
{
	struct xr_event_file *evf;
	unsigned long index;

	if (!ufile->xdev)
		return;
	xr_ufile_destroy_objects(ufile);
	if (ufile->has_context)
		atomic64_dec(&ufile->xdev->nr_contexts);
	/* User mappings of this device now fault instead. */
	unmap_mapping_range(ufile->mapping, 0, 0, 1);
	if (ufile->async_file) {
		if (fatal)
			xr_event_queue(ufile->async_file, 0,
				       XR_EVENT_DEVICE_FATAL, NULL);
		xr_event_file_kill(ufile->async_file);
	}
	xa_for_each(&ufile->channels, index, evf)
		xr_event_file_kill(evf);
	ufile->xdev = NULL;
}

static int xr_uverbs_release(struct inode *inode, struct file *filp)
{
	struct xr_ufile *ufile = filp->private_data;
	struct xr_uverbs_dev *udev = ufile->udev;
	struct xr_event_file *evf;
	unsigned long index;

	mutex_lock(&ufile->lock);
	xr_ufile_disconnect(ufile, false);
	mutex_unlock(&ufile->lock);

	mutex_lock(&udev->lock);
	list_del(&ufile->list);
	mutex_unlock(&udev->lock);

	xa_for_each(&ufile->channels, index, evf)
		xr_event_file_put(evf);
	xa_destroy(&ufile->channels);
	if (ufile->async_file)
		xr_event_file_put(ufile->async_file);
	WARN_ON(!xa_empty(&ufile->objects) || !xa_empty(&ufile->mmaps));
	xa_destroy(&ufile->objects);
	xa_destroy(&ufile->mmaps);
	put_pid(ufile->owner);
	mutex_destroy(&ufile->mmap_lock);
	mutex_destroy(&ufile->lock);
	kfree(ufile);
	put_device(&udev->dev);
	return 0;
}

static ssize_t xr_uverbs_write(struct file *filp, const char __user *buf,
			       size_t count, loff_t *pos)
{
	return xr_uverbs_dispatch(filp->private_data, buf, count);
}

/* The ioctl() ABI is not offered; libibverbs then uses write() commands. */
static long xr_uverbs_ioctl(struct file *filp, unsigned int cmd,
			    unsigned long arg)
{
	return -ENOTTY;
}

static int xr_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct xr_ufile *ufile = filp->private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	struct xr_mmap_entry *entry;
	unsigned long off;
	int ret = 0;

	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (!READ_ONCE(ufile->xdev))
		return -EIO;
	/*
	 * Not ufile->lock: commands hold it while they pin user memory, which
	 * takes the mmap lock that our caller holds.
	 */
	mutex_lock(&ufile->mmap_lock);
	entry = xa_load(&ufile->mmaps, vma->vm_pgoff);
	if (!entry || size != PAGE_ALIGN(entry->size)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY;
	vma->vm_flags &= ~VM_MAYEXEC;
	/* The page references taken here keep the memory while it is mapped. */
	for (off = 0; off < size && !ret; off += PAGE_SIZE)
		ret = vm_insert_page(vma, vma->vm_start + off,
				     virt_to_page(entry->cpu_addr + off));
out_unlock:
	mutex_unlock(&ufile->mmap_lock);
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

/**
 * xr_mmap_insert - let user space map a driver buffer of this context
 * @ufile: the context, whose lock the caller holds (inside a command)
 * @cpu_addr: page-aligned kernel address of whole pages that the driver
 *	allocated with alloc_pages_exact(); user mappings hold page references,
 *	so the driver may free them while they are still mapped
 * @size: bytes
 * @key: out: the mmap offset to give user space
 *
 * Return: 0 or -ENOMEM.
 */
int xr_mmap_insert(struct xr_ufile *ufile, void *cpu_addr, size_t size,
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
	entry->size = size;
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
EXPORT_SYMBOL_GPL(xr_mmap_insert);

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

static void xr_uverbs_dev_release(struct device *dev)
{
	struct xr_uverbs_dev *udev = to_udev(dev);

	mutex_destroy(&udev->lock);
	kfree(udev);
}

/**
 * xr_uverbs_add - create /dev/infiniband/uverbsN for a device
 * @xdev: a device being registered
 *
 * Return: 0 or a negative errno.
 */
int xr_uverbs_add(struct xr_device *xdev)
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
	xdev->uverbs = udev;
	return 0;

err_free_devnum:
	ida_free(&xr_uverbs_ida, udev->devnum);
err_put:
	put_device(&udev->dev);
	return ret;
}

static void xr_uverbs_disconnect_all(struct xr_uverbs_dev *udev, bool fatal)
{
	struct xr_ufile *ufile;

	mutex_lock(&udev->lock);
	list_for_each_entry(ufile, &udev->files, list) {
		mutex_lock(&ufile->lock);
		xr_ufile_disconnect(ufile, fatal);
		mutex_unlock(&ufile->lock);
	}
	mutex_unlock(&udev->lock);
}

/**
 * xr_uverbs_disassociate_all - cut every open context off a dead device
 * @xdev: the device
 *
 * Each context gets XR_EVENT_DEVICE_FATAL; its objects are destroyed, its
 * mappings zapped, and its later commands fail with -EIO.
 */
void xr_uverbs_disassociate_all(struct xr_device *xdev)
{
	struct xr_uverbs_dev *udev = READ_ONCE(xdev->uverbs);

	if (udev)	/* none before registration completes */
		xr_uverbs_disconnect_all(udev, true);
}

/**
 * xr_uverbs_async_event - queue an event on every context's async file
 * @xdev: the device, registered
 * @element: the port number or object handle the event is about
 * @event_type: IB event type
 */
void xr_uverbs_async_event(struct xr_device *xdev, u64 element,
			   u32 event_type)
{
	struct xr_uverbs_dev *udev = READ_ONCE(xdev->uverbs);
	struct xr_ufile *ufile;

	if (!udev)	/* none before registration completes */
		return;
	mutex_lock(&udev->lock);
	list_for_each_entry(ufile, &udev->files, list) {
		mutex_lock(&ufile->lock);
		if (ufile->xdev && ufile->async_file)
			xr_event_queue(ufile->async_file, element, event_type,
				       NULL);
		mutex_unlock(&ufile->lock);
	}
	mutex_unlock(&udev->lock);
}

/**
 * xr_uverbs_remove - remove the character device of a device
 * @xdev: a device being unregistered
 *
 * Open files stay open but lose the device (as after a fatal error); the
 * structure lives until the last of them is closed.
 */
void xr_uverbs_remove(struct xr_device *xdev)
{
	struct xr_uverbs_dev *udev = xdev->uverbs;

	cdev_device_del(&udev->cdev, &udev->dev);
	/* No open() gets the device from now on ... */
	mutex_lock(&udev->lock);
	udev->xdev = NULL;
	mutex_unlock(&udev->lock);
	/* ... and the files that have it lose it. */
	xr_uverbs_disconnect_all(udev, true);
	ida_free(&xr_uverbs_ida, udev->devnum);
	xdev->uverbs = NULL;
	put_device(&udev->dev);
}

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
	struct xr_uverbs_dev *udev = xdev->uverbs;

	if (!udev)
		return -ENODEV;
	*devt = udev->dev.devt;
	strscpy(name, dev_name(&udev->dev), len);
	return 0;
}

/**
 * xr_res_for_each - visit the live user objects of one type on a device
 * @xdev: the device
 * @type: enum xr_obj_type
 * @fn: called for each object with its file's lock held; a nonzero return
 *	stops the walk
 * @arg: passed to @fn
 *
 * Return: 0 or what @fn returned.
 */
int xr_res_for_each(struct xr_device *xdev, enum xr_obj_type type,
		    int (*fn)(struct xr_uobject *uobj, struct xr_ufile *ufile,
			      void *arg),
		    void *arg)
{
	struct xr_uverbs_dev *udev = xdev->uverbs;
	struct xr_uobject *uobj;
	struct xr_ufile *ufile;
	unsigned long index;
	int ret = 0;

	if (!udev)
		return 0;
	mutex_lock(&udev->lock);
	list_for_each_entry(ufile, &udev->files, list) {
		mutex_lock(&ufile->lock);
		xa_for_each(&ufile->objects, index, uobj) {
			if (uobj->type != type)
				continue;
			ret = fn(uobj, ufile, arg);
			if (ret)
				break;
		}
		mutex_unlock(&ufile->lock);
		if (ret)
			break;
	}
	mutex_unlock(&udev->lock);
	return ret;
}

/**
 * xr_uverbs_init - register the uverbs class and character device numbers
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
	return 0;

err_unregister_region:
	unregister_chrdev_region(xr_uverbs_base, XR_UVERBS_MAX_DEVICES);
	return ret;
}

/**
 * xr_uverbs_exit - undo xr_uverbs_init()
 */
void xr_uverbs_exit(void)
{
	class_unregister(&xr_uverbs_class);
	unregister_chrdev_region(xr_uverbs_base, XR_UVERBS_MAX_DEVICES);
	ida_destroy(&xr_uverbs_ida);
}
