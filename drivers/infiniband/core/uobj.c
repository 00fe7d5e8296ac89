// SPDX-License-Identifier: GPL-2.0
/*
 * User objects: the per-file handle table (an xarray), typed lookup, and
 * destruction, one object at a time or all of a file in dependency order.
 * Callers hold the file's lock (see uverbs_main.c).
 */
#include <linux/slab.h>

#include "core_priv.h"

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

/*
 * Each kind's destruction.  @d->by_user: a command asked for it, refused
 * with -EBUSY while the user must destroy or detach something first; else
 * the file is closing and its objects go in dependency order, so nothing
 * refuses.  The caller holds the file's lock and has looked the object up.
 */
static int xr_destroy_pd(struct xr_ufile *ufile, struct xr_uobject *uobj,
			 struct xr_destroy *d)
{
	struct xr_pd *pd = container_of(uobj, struct xr_pd, uobj);

	if (d->by_user && atomic_read(&uobj->usecnt))
		return -EBUSY;
	xr_uobj_del(ufile, uobj);
	ufile->xdev->ops->dealloc_pd(ufile->xdev, pd);
	kfree(pd);
	return 0;
}

/* -EBUSY (the MR stays) while memory windows are bound to it, as the IB spec says. */
static int xr_destroy_mr(struct xr_ufile *ufile, struct xr_uobject *uobj,
			 struct xr_destroy *d)
{
	struct xr_mr *mr = container_of(uobj, struct xr_mr, uobj);
	struct xr_device *xdev = ufile->xdev;

	if (xdev->ops->dereg_mr(xdev, mr) == -EBUSY)
		return -EBUSY;
	xr_uobj_del(ufile, uobj);
	/* NULL: the driver took the pages, which the device may still use. */
	if (mr->umem)
		xr_umem_release(mr->umem);
	atomic_dec(&mr->pd->uobj.usecnt);
	kfree(mr);
	return 0;
}

static int xr_destroy_mw(struct xr_ufile *ufile, struct xr_uobject *uobj,
			 struct xr_destroy *d)
{
	struct xr_mw *mw = container_of(uobj, struct xr_mw, uobj);

	xr_uobj_del(ufile, uobj);
	ufile->xdev->ops->dealloc_mw(ufile->xdev, mw);
	atomic_dec(&mw->pd->uobj.usecnt);
	kfree(mw);
	return 0;
}

/* With its unread events. */
static int xr_destroy_cq(struct xr_ufile *ufile, struct xr_uobject *uobj,
			 struct xr_destroy *d)
{
	struct xr_cq *cq = container_of(uobj, struct xr_cq, uobj);

	if (d->by_user && atomic_read(&uobj->usecnt))
		return -EBUSY;
	d->comp_events = cq->comp_events;
	d->async_events = cq->async_events;
	xr_uobj_del(ufile, uobj);
	ufile->xdev->ops->destroy_cq(ufile->xdev, cq);
	if (cq->channel) {
		xr_event_flush(cq->channel, &cq->comp_events);
		xr_event_file_put(cq->channel);
	}
	if (ufile->async_file)
		xr_event_flush(ufile->async_file, &cq->async_events);
	kfree(cq);
	return 0;
}

/* With its unread events; as Linux, the user detaches first, close by itself. */
static int xr_destroy_qp(struct xr_ufile *ufile, struct xr_uobject *uobj,
			 struct xr_destroy *d)
{
	struct xr_qp *qp = container_of(uobj, struct xr_qp, uobj);

	if (d->by_user && !list_empty(&qp->mcast_list))
		return -EBUSY;
	d->async_events = qp->async_events;
	xr_uobj_del(ufile, uobj);
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
	return 0;
}

/* With its unread events. */
static int xr_destroy_srq(struct xr_ufile *ufile, struct xr_uobject *uobj,
			  struct xr_destroy *d)
{
	struct xr_srq *srq = container_of(uobj, struct xr_srq, uobj);

	if (d->by_user && atomic_read(&uobj->usecnt))
		return -EBUSY;
	d->async_events = srq->async_events;
	xr_uobj_del(ufile, uobj);
	ufile->xdev->ops->destroy_srq(ufile->xdev, srq);
	atomic_dec(&srq->pd->uobj.usecnt);
	if (ufile->async_file)
		xr_event_flush(ufile->async_file, &srq->async_events);
	kfree(srq);
	return 0;
}

/* Work requests already posted with it carry their own copy. */
static int xr_destroy_ah(struct xr_ufile *ufile, struct xr_uobject *uobj,
			 struct xr_destroy *d)
{
	struct xr_ah *ah = container_of(uobj, struct xr_ah, uobj);

	xr_uobj_del(ufile, uobj);
	atomic_dec(&ah->pd->uobj.usecnt);
	kfree(ah);
	return 0;
}

/* How each kind of object is destroyed (multicast attachments are not objects). */
static int (*const xr_destroyers[XR_OBJ_MAX])(struct xr_ufile *ufile,
					       struct xr_uobject *uobj,
					       struct xr_destroy *d) = {
	[XR_OBJ_QP] = xr_destroy_qp,
	[XR_OBJ_MW] = xr_destroy_mw,
	[XR_OBJ_AH] = xr_destroy_ah,
	[XR_OBJ_SRQ] = xr_destroy_srq,
	[XR_OBJ_MR] = xr_destroy_mr,
	[XR_OBJ_CQ] = xr_destroy_cq,
	[XR_OBJ_PD] = xr_destroy_pd,
};

/**
 * xr_uobj_destroy - destroy an object at its user's request, and free it
 * @ufile: its file, whose lock the caller holds
 * @handle: the handle user space gave
 * @type: the type the command names
 * @d: out: the events reported for it (@d->by_user is set here)
 *
 * Return: 0; -EINVAL for no such object; -EBUSY (and the object stays)
 * while other objects use it (a PD, CQ or SRQ), memory windows are bound
 * to it (an MR) or it is attached to multicast groups (a QP).
 */
int xr_uobj_destroy(struct xr_ufile *ufile, u32 handle, enum xr_obj_type type,
		    struct xr_destroy *d)
{
	struct xr_uobject *uobj;

	if (type >= XR_OBJ_MAX || !xr_destroyers[type])
		return -EINVAL;
	uobj = xr_uobj_lookup(ufile, handle, type);
	if (!uobj)
		return -EINVAL;
	*d = (struct xr_destroy){ .by_user = true };
	return xr_destroyers[type](ufile, uobj, d);
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
	struct xr_destroy d = {};
	struct xr_uobject *uobj;
	unsigned long index;
	u32 type;

	for (type = 0; type < XR_OBJ_MAX; type++)
		xa_for_each(&ufile->objects, index, uobj)
			if (uobj->type == type)
				WARN_ON_ONCE(xr_destroyers[type](ufile, uobj, &d));
}
