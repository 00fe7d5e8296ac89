// SPDX-License-Identifier: GPL-2.0
/*
 * Resource tracking: every user object of a device, by type, in an xarray
 * of the device, as Linux's restrack keeps them.  RDMA netlink walks these
 * under the xarray's own lock, so that reporting never waits for a command
 * in progress (commands hold their file's lock, maybe while faulting in
 * user memory) and never needs the files' locks at all.
 *
 * An object is added once it is fully set up and removed before it is
 * destroyed; the removal takes the xarray lock, so a walker holding it
 * never sees a freed object.  PDs, CQs and QPs are tracked under the
 * device's number for them; MRs under a cyclic id of their own, because
 * their device index is part of their keys, which unprivileged users must
 * not learn, and AHs too, which the device does not number.
 */
#include "core_priv.h"

/**
 * xr_restrack_init - set up the resource tracking of a new device
 * @xdev: the device
 */
void xr_restrack_init(struct xr_device *xdev)
{
	int type;

	for (type = 0; type < XR_OBJ_MAX; type++)
		xa_init_flags(&xdev->res[type], XA_FLAGS_ALLOC);
}

/**
 * xr_restrack_destroy - tear down the resource tracking of a device
 * @xdev: the device, with no user object left
 */
void xr_restrack_destroy(struct xr_device *xdev)
{
	int type;

	for (type = 0; type < XR_OBJ_MAX; type++) {
		WARN_ON(!xa_empty(&xdev->res[type]));
		xa_destroy(&xdev->res[type]);
	}
}

/**
 * xr_restrack_add - make an object visible to resource reporting
 * @xdev: its device
 * @uobj: the object, with its type set
 * @id: the device's number for it (ignored for an MR, MW or AH, which gets an id)
 *
 * Return: 0, -EBUSY if the device reused a number still tracked (a device
 * bug) or no MR id is free, or -ENOMEM.
 */
int xr_restrack_add(struct xr_device *xdev, struct xr_uobject *uobj, u32 id)
{
	struct xarray *xa = &xdev->res[uobj->type];
	int ret;

	if (uobj->type != XR_OBJ_MR && uobj->type != XR_OBJ_AH && uobj->type != XR_OBJ_MW) {
		uobj->res_id = id;
		return xa_insert(xa, id, uobj, GFP_KERNEL);
	}
	/* 1 means the ids wrapped around, which is fine. */
	ret = xa_alloc_cyclic(xa, &uobj->res_id, uobj, xa_limit_32b,
			      &xdev->res_next_id, GFP_KERNEL);
	return ret < 0 ? ret : 0;
}

/**
 * xr_restrack_del - hide an object from resource reporting
 * @xdev: its device
 * @uobj: the object; once this returns, no walker looks at it
 */
void xr_restrack_del(struct xr_device *xdev, struct xr_uobject *uobj)
{
	xa_erase(&xdev->res[uobj->type], uobj->res_id);
}
