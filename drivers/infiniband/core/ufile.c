// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime of a uverbs file's structure: the open file holds one
 * reference, and so does each completion channel created through it.
 */
#include <linux/slab.h>

#include "core_priv.h"

static void xr_ufile_release(struct kref *ref)
{
	struct xr_ufile *ufile = container_of(ref, struct xr_ufile, ref);
	struct xr_uverbs_dev *udev = ufile->udev;

	WARN_ON(!xa_empty(&ufile->objects) || !xa_empty(&ufile->mmaps) ||
		!list_empty(&ufile->umaps) || !list_empty(&ufile->channels));
	/* Closing the file let go of it (xr_uverbs_release()). */
	WARN_ON(ufile->async_file);
	xa_destroy(&ufile->objects);
	xa_destroy(&ufile->mmaps);
	put_pid(ufile->owner);
	mutex_destroy(&ufile->mmap_lock);
	mutex_destroy(&ufile->lock);
	kfree(ufile);
	put_device(&udev->dev);
}

/**
 * xr_ufile_put - drop a reference to a uverbs file's structure
 * @ufile: the file
 */
void xr_ufile_put(struct xr_ufile *ufile)
{
	kref_put(&ufile->ref, xr_ufile_release);
}
