// SPDX-License-Identifier: GPL-2.0
/*
 * The per-user share of each device's objects (module parameter
 * user_share): what one UID may hold of each kind, counted per device in
 * xr_device.user_usage under xr_device.user_lock.
 */
#include <linux/capability.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "core_priv.h"

static unsigned int user_share = 50;
module_param(user_share, uint, 0644);
MODULE_PARM_DESC(user_share,
		 "Percent of each kind of a device's objects (PDs, MRs, MWs, CQs, QPs, AHs, SRQs; multicast attachments of max_mcast_grp) that one user (UID) may hold; CAP_SYS_RESOURCE is exempt (default 50, 100 or more: no limit)");

/**
 * struct xr_user_usage - the objects one user holds on a device
 * @n: per enum xr_obj_type
 */
struct xr_user_usage {
	u32 n[XR_OBJ_MAX];
};

static u32 xr_device_max(const struct xr_device *xdev, enum xr_obj_type type)
{
	switch (type) {
	case XR_OBJ_QP:
		return xdev->attr.max_qp;
	case XR_OBJ_MR:
		return xdev->attr.max_mr;
	case XR_OBJ_CQ:
		return xdev->attr.max_cq;
	case XR_OBJ_AH:
		return xdev->attr.max_ah;
	case XR_OBJ_SRQ:
		return xdev->attr.max_srq;
	case XR_OBJ_MW:
		return xdev->attr.max_mw;
	case XR_OBJ_MCAST:
		/* The groups are what is scarce: a user attaches to half of them. */
		return xdev->attr.max_mcast_grp;
	default:
		return xdev->attr.max_pd;
	}
}

/**
 * xr_user_charge - count a new object against its file's user
 * @ufile: the file
 * @type: the object's type
 *
 * Return: 0, or -EAGAIN (as Linux's RDMA cgroup answers) once the user holds
 * its share of the device's objects of the type, so that one user cannot
 * take them all; -ENOMEM.  xr_user_uncharge() gives it back.
 */
int xr_user_charge(struct xr_ufile *ufile, enum xr_obj_type type)
{
	struct xr_device *xdev = ufile->xdev;
	unsigned long uid = __kuid_val(ufile->uid);
	u64 limit = (u64)xr_device_max(xdev, type) * READ_ONCE(user_share) / 100;
	struct xr_user_usage *u;
	int ret = 0;

	mutex_lock(&xdev->user_lock);
	u = xa_load(&xdev->user_usage, uid);
	if (!u) {
		u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
		if (!u) {
			ret = -ENOMEM;
			goto out_unlock;
		}
		ret = xa_err(xa_store(&xdev->user_usage, uid, u, GFP_KERNEL));
		if (ret) {
			kfree(u);
			goto out_unlock;
		}
	}
	if (READ_ONCE(user_share) < 100 && u->n[type] >= max_t(u64, limit, 1) &&
	    !capable(CAP_SYS_RESOURCE))
		ret = -EAGAIN;
	else
		u->n[type]++;
out_unlock:
	mutex_unlock(&xdev->user_lock);
	return ret;
}

/**
 * xr_user_uncharge - give back what xr_user_charge() counted
 * @ufile: the file
 * @type: the object's type
 */
void xr_user_uncharge(struct xr_ufile *ufile, enum xr_obj_type type)
{
	struct xr_device *xdev = ufile->xdev;
	unsigned long uid = __kuid_val(ufile->uid);
	struct xr_user_usage *u;
	int t;

	mutex_lock(&xdev->user_lock);
	u = xa_load(&xdev->user_usage, uid);
	if (!WARN_ON(!u || !u->n[type]))
		u->n[type]--;
	for (t = 0; u && t < XR_OBJ_MAX && !u->n[t]; t++)
		;
	if (u && t == XR_OBJ_MAX) {
		xa_erase(&xdev->user_usage, uid);
		kfree(u);
	}
	mutex_unlock(&xdev->user_lock);
}
