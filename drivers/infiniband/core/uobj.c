// SPDX-License-Identifier: GPL-2.0
/*
 * User objects: the per-file handle table (an xarray), typed lookup, the
 * per-user share of each device's objects, and destruction, one object at
 * a time or all of a file in dependency order.
 * Callers hold the file's lock (see uverbs_main.c).
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

/**
 * xr_uobj_lookup - find an object of a file by handle and type
 * @ufile: the file, whose lock the caller holds
 * @handle: the handle user space gave
 * @type: the type it must have
 *
 * Return: the object (its struct xr_uobject), or NULL.
 */
void *xr_uobj_lookup(struct xr_ufile *ufile, u32 handle, enum xr_obj_type type)
{
	struct xr_uobject *uobj = xa_load(&ufile->objects, handle);

	return uobj && uobj->type == type ? uobj : NULL;
}

/**
 * xr_uobj_add - give a new object a handle in its file and track it
 * @ufile: the file, whose lock the caller holds
 * @uobj: the object, fully set up
 * @type: its type
 * @res_id: the device's number for it (see xr_restrack_add())
 *
 * Return: 0, -EAGAIN when the file's user holds its share of the device's
 * objects of this type, or another negative errno.
 */
int xr_uobj_add(struct xr_ufile *ufile, struct xr_uobject *uobj,
		enum xr_obj_type type, u32 res_id)
{
	int ret;

	uobj->ufile = ufile;
	uobj->type = type;
	ret = xr_user_charge(ufile, type);
	if (ret)
		return ret;
	ret = xa_alloc(&ufile->objects, &uobj->handle, uobj, xa_limit_32b,
		       GFP_KERNEL);
	if (ret)
		goto err_uncharge;
	ret = xr_restrack_add(ufile->xdev, uobj, res_id);
	if (ret)
		goto err_erase;
	atomic64_inc(&ufile->xdev->res_count[type]);
	return 0;

err_erase:
	xa_erase(&ufile->objects, uobj->handle);
err_uncharge:
	xr_user_uncharge(ufile, type);
	return ret;
}

/**
 * xr_uobj_del - take an object's handle away and stop tracking it
 * @ufile: the file, whose lock the caller holds
 * @uobj: the object
 */
void xr_uobj_del(struct xr_ufile *ufile, struct xr_uobject *uobj)
{
	xr_restrack_del(ufile->xdev, uobj);
	xa_erase(&ufile->objects, uobj->handle);
	xr_user_uncharge(ufile, uobj->type);
	atomic64_dec(&ufile->xdev->res_count[uobj->type]);
}

/**
 * xr_destroy_pd - destroy a protection domain and free it
 * @ufile: its file, whose lock the caller holds
 * @pd: the object; nothing may use it any more
 */
void xr_destroy_pd(struct xr_ufile *ufile, struct xr_pd *pd)
{
	xr_uobj_del(ufile, &pd->uobj);
	ufile->xdev->ops->dealloc_pd(ufile->xdev, pd);
	kfree(pd);
}

/**
 * xr_destroy_mr - destroy a memory region, unpinning its memory and free it
 * @ufile: its file, whose lock the caller holds
 * @mr: the object; nothing may use it any more
 *
 * Return: 0, or -EBUSY (and the MR stays) while memory windows are bound
 * to it.
 */
int xr_destroy_mr(struct xr_ufile *ufile, struct xr_mr *mr)
{
	struct xr_device *xdev = ufile->xdev;

	if (xdev->ops->dereg_mr(xdev, mr) == -EBUSY)
		return -EBUSY;
	xr_uobj_del(ufile, &mr->uobj);
	/* NULL: the driver took the pages, which the device may still use. */
	if (mr->umem)
		xr_umem_release(mr->umem);
	atomic_dec(&mr->pd->uobj.usecnt);
	kfree(mr);
	return 0;
}

/**
 * xr_destroy_mw - destroy a memory window, unbinding it, and free it
 * @ufile: its file, whose lock the caller holds
 * @mw: the object
 */
void xr_destroy_mw(struct xr_ufile *ufile, struct xr_mw *mw)
{
	xr_uobj_del(ufile, &mw->uobj);
	ufile->xdev->ops->dealloc_mw(ufile->xdev, mw);
	atomic_dec(&mw->pd->uobj.usecnt);
	kfree(mw);
}

/**
 * xr_destroy_cq - destroy a completion queue and its unread events and free it
 * @ufile: its file, whose lock the caller holds
 * @cq: the object; nothing may use it any more
 */
void xr_destroy_cq(struct xr_ufile *ufile, struct xr_cq *cq)
{
	xr_uobj_del(ufile, &cq->uobj);
	ufile->xdev->ops->destroy_cq(ufile->xdev, cq);
	if (cq->channel) {
		xr_event_flush(cq->channel, &cq->comp_events);
		xr_event_file_put(cq->channel);
	}
	if (ufile->async_file)
		xr_event_flush(ufile->async_file, &cq->async_events);
	kfree(cq);
}

/**
 * xr_destroy_qp - destroy a queue pair and its unread events and free it
 * @ufile: its file, whose lock the caller holds
 * @qp: the object; nothing may use it any more
 */
void xr_destroy_qp(struct xr_ufile *ufile, struct xr_qp *qp)
{
	xr_uobj_del(ufile, &qp->uobj);
	xr_mcast_detach_all(ufile->xdev, qp);
	ufile->xdev->ops->destroy_qp(ufile->xdev, qp);
	atomic_dec(&qp->pd->uobj.usecnt);
	atomic_dec(&qp->send_cq->uobj.usecnt);
	atomic_dec(&qp->recv_cq->uobj.usecnt);
	if (qp->srq)
		atomic_dec(&qp->srq->uobj.usecnt);
	if (ufile->async_file)
		xr_event_flush(ufile->async_file, &qp->async_events);
	kfree(qp);
}

/**
 * xr_destroy_srq - destroy a shared receive queue and its unread events and free it
 * @ufile: its file, whose lock the caller holds
 * @srq: the object; no QP may use it any more
 */
void xr_destroy_srq(struct xr_ufile *ufile, struct xr_srq *srq)
{
	xr_uobj_del(ufile, &srq->uobj);
	ufile->xdev->ops->destroy_srq(ufile->xdev, srq);
	atomic_dec(&srq->pd->uobj.usecnt);
	if (ufile->async_file)
		xr_event_flush(ufile->async_file, &srq->async_events);
	kfree(srq);
}

/**
 * xr_destroy_ah - destroy an address handle and free it
 * @ufile: its file, whose lock the caller holds
 * @ah: the object; work requests already posted with it carry their own copy
 */
void xr_destroy_ah(struct xr_ufile *ufile, struct xr_ah *ah)
{
	xr_uobj_del(ufile, &ah->uobj);
	atomic_dec(&ah->pd->uobj.usecnt);
	kfree(ah);
}

/**
 * xr_ufile_destroy_objects - destroy every object of a file
 * @ufile: the file, whose lock the caller holds
 *
 * Objects go in dependency order (QPs, MWs, AHs, SRQs, MRs, CQs, PDs), so
 * every destroy succeeds (no window is left bound to an MR); a dead device
 * still releases what the driver holds.
 */
void xr_ufile_destroy_objects(struct xr_ufile *ufile)
{
	struct xr_uobject *uobj;
	unsigned long index;
	u32 type;

	for (type = 0; type < XR_OBJ_MAX; type++) {
		xa_for_each(&ufile->objects, index, uobj) {
			if (uobj->type != type)
				continue;
			switch (type) {
			case XR_OBJ_QP:
				xr_destroy_qp(ufile, container_of(uobj, struct xr_qp, uobj));
				break;
			case XR_OBJ_MW:
				xr_destroy_mw(ufile, container_of(uobj, struct xr_mw, uobj));
				break;
			case XR_OBJ_AH:
				xr_destroy_ah(ufile, container_of(uobj, struct xr_ah, uobj));
				break;
			case XR_OBJ_SRQ:
				xr_destroy_srq(ufile, container_of(uobj, struct xr_srq, uobj));
				break;
			case XR_OBJ_MR: {
				struct xr_mr *mr = container_of(uobj, struct xr_mr, uobj);

				/* Windows went first: nothing can hold the MR. */
				WARN_ON_ONCE(xr_destroy_mr(ufile, mr));
				break;
			}
			case XR_OBJ_CQ:
				xr_destroy_cq(ufile, container_of(uobj, struct xr_cq, uobj));
				break;
			case XR_OBJ_PD:
				xr_destroy_pd(ufile, container_of(uobj, struct xr_pd, uobj));
				break;
			}
		}
	}
}
