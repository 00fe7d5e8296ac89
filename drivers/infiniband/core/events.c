// SPDX-License-Identifier: GPL-2.0
/*
 * Event files: the async event file of a context and completion channels.
 * Both are anonymous files that return one event per read(), as Linux's
 * uverbs does (struct ib_uverbs_async_event_desc and struct
 * ib_uverbs_comp_event_desc), block unless O_NONBLOCK, and poll.
 *
 * An event file lives while its file is open or anything else holds a
 * reference: its context (async file), the CQs attached to it (channel).
 * A channel belongs to the uverbs file it was created on, which alone may
 * attach CQs to it, and which kills it when it is cut off from the device;
 * the channel holds a reference on that uverbs file while it is open.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"

struct xr_event_file_ref {
	struct xr_event_file evf;
	struct kref ref;
};

/* Event files alive, for the leak checks of debugfs "event_files". */
static atomic64_t xr_event_files_alive = ATOMIC64_INIT(0);

/* One queued event; @counter counts events of its object that were read. */
struct xr_event {
	struct list_head list;
	u64 element;
	u32 event_type;
	u32 *counter;
};

static struct xr_event_file_ref *to_ref(struct xr_event_file *evf)
{
	return container_of(evf, struct xr_event_file_ref, evf);
}

static void xr_event_file_free(struct kref *ref)
{
	struct xr_event_file_ref *r = container_of(ref, typeof(*r), ref);
	struct xr_event *e, *tmp;

	list_for_each_entry_safe(e, tmp, &r->evf.events, list)
		kfree(e);
	kfree(r);
	atomic64_dec(&xr_event_files_alive);
}

/**
 * xr_event_files_live - how many event files exist
 *
 * Return: async event files and completion channels not yet freed.
 */
u64 xr_event_files_live(void)
{
	return atomic64_read(&xr_event_files_alive);
}

/**
 * xr_event_file_put - drop a reference to an event file
 * @evf: the event file
 */
void xr_event_file_put(struct xr_event_file *evf)
{
	kref_put(&to_ref(evf)->ref, xr_event_file_free);
}

static ssize_t xr_event_read(struct file *filp, char __user *buf,
			     size_t count, loff_t *pos)
{
	struct xr_event_file *evf = filp->private_data;
	struct ib_uverbs_async_event_desc async = {};
	struct ib_uverbs_comp_event_desc comp = {};
	size_t size = evf->is_async ? sizeof(async) : sizeof(comp);
	struct xr_event *e;
	int ret;

	if (count < size)
		return -EINVAL;

	spin_lock_irq(&evf->lock);
	while (list_empty(&evf->events)) {
		if (evf->dead) {
			spin_unlock_irq(&evf->lock);
			return -EIO;
		}
		spin_unlock_irq(&evf->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(evf->wait,
					       !list_empty(&evf->events) ||
					       READ_ONCE(evf->dead));
		if (ret)
			return ret;
		spin_lock_irq(&evf->lock);
	}
	e = list_first_entry(&evf->events, struct xr_event, list);
	list_del(&e->list);
	if (e->counter)
		(*e->counter)++;
	spin_unlock_irq(&evf->lock);

	if (evf->is_async) {
		async.element = e->element;
		async.event_type = e->event_type;
		ret = copy_to_user(buf, &async, size) ? -EFAULT : size;
	} else {
		comp.cq_handle = e->element;
		ret = copy_to_user(buf, &comp, size) ? -EFAULT : size;
	}
	kfree(e);
	return ret;
}

static __poll_t xr_event_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct xr_event_file *evf = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &evf->wait, wait);
	spin_lock_irq(&evf->lock);
	if (!list_empty(&evf->events))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (evf->dead)
		mask = EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	spin_unlock_irq(&evf->lock);
	return mask;
}

static int xr_event_release(struct inode *inode, struct file *filp)
{
	struct xr_event_file *evf = filp->private_data;
	struct xr_ufile *ufile = evf->ufile;

	if (ufile) {
		spin_lock(&ufile->channels_lock);
		list_del(&evf->ufile_list);
		spin_unlock(&ufile->channels_lock);
		xr_ufile_put(ufile);
	}
	xr_event_file_put(evf);
	return 0;
}

static const struct file_operations xr_event_fops = {
	.owner = THIS_MODULE,
	.read = xr_event_read,
	.poll = xr_event_poll,
	.release = xr_event_release,
	.llseek = no_llseek,
};

/**
 * xr_event_file_create - make a new event file
 * @channel_of: for a completion channel, the uverbs file it belongs to
 *	(whose lock the caller holds); NULL for an async event file
 * @evf: out: the event file, with a reference for the caller
 *
 * Return: the file (not yet installed in a descriptor) or an ERR_PTR.
 */
struct file *xr_event_file_create(struct xr_ufile *channel_of,
				  struct xr_event_file **evf)
{
	struct xr_event_file_ref *r;
	struct file *filp;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	atomic64_inc(&xr_event_files_alive);
	spin_lock_init(&r->evf.lock);
	INIT_LIST_HEAD(&r->evf.events);
	init_waitqueue_head(&r->evf.wait);
	INIT_LIST_HEAD(&r->evf.ufile_list);
	r->evf.is_async = !channel_of;
	kref_init(&r->ref);	/* the file's reference */

	filp = anon_inode_getfile("[infinibandevent]", &xr_event_fops,
				  &r->evf, O_RDONLY);
	if (IS_ERR(filp)) {
		xr_event_file_put(&r->evf);
		return filp;
	}
	if (channel_of) {
		kref_get(&channel_of->ref);
		r->evf.ufile = channel_of;
		spin_lock(&channel_of->channels_lock);
		list_add_tail(&r->evf.ufile_list, &channel_of->channels);
		spin_unlock(&channel_of->channels_lock);
	}
	kref_get(&r->ref);	/* the caller's */
	*evf = &r->evf;
	return filp;
}

/**
 * xr_event_file_get_channel - look up a completion channel by descriptor
 * @fd: a descriptor of the calling process
 * @ufile: the uverbs file that wants to use it
 *
 * Return: the channel with a reference held, or ERR_PTR(-EBADF) if @fd is
 * not a completion channel of @ufile (as Linux answers).
 */
struct xr_event_file *xr_event_file_get_channel(int fd,
						struct xr_ufile *ufile)
{
	struct xr_event_file *evf = ERR_PTR(-EBADF);
	struct file *filp;

	filp = fget(fd);
	if (!filp)
		return evf;
	if (filp->f_op == &xr_event_fops) {
		struct xr_event_file *e = filp->private_data;

		if (e->ufile == ufile) {
			kref_get(&to_ref(e)->ref);
			evf = e;
		}
	}
	fput(filp);
	return evf;
}

/**
 * xr_event_kill_channels - kill every open completion channel of a file
 * @ufile: the uverbs file, being cut off from its device
 */
void xr_event_kill_channels(struct xr_ufile *ufile)
{
	struct xr_event_file *evf;

	spin_lock(&ufile->channels_lock);
	list_for_each_entry(evf, &ufile->channels, ufile_list)
		xr_event_file_kill(evf);
	spin_unlock(&ufile->channels_lock);
}

/**
 * xr_event_queue - queue an event and wake readers
 * @evf: the event file
 * @element: user handle of the object (or port number)
 * @event_type: IB event type (async files)
 * @counter: incremented when the event is read; flushed by
 *	xr_event_flush() before its object goes away
 *
 * Context: any; events are dropped when out of memory or after the file
 * died.
 */
void xr_event_queue(struct xr_event_file *evf, u64 element, u32 event_type,
		    u32 *counter)
{
	struct xr_event *e;
	unsigned long flags;

	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		return;
	e->element = element;
	e->event_type = event_type;
	e->counter = counter;
	spin_lock_irqsave(&evf->lock, flags);
	if (evf->dead) {
		spin_unlock_irqrestore(&evf->lock, flags);
		kfree(e);
		return;
	}
	list_add_tail(&e->list, &evf->events);
	spin_unlock_irqrestore(&evf->lock, flags);
	wake_up_interruptible(&evf->wait);
}

/**
 * xr_event_flush - drop the unread events of one object
 * @evf: the event file
 * @counter: the object's counter given to xr_event_queue()
 */
void xr_event_flush(struct xr_event_file *evf, u32 *counter)
{
	struct xr_event *e, *tmp;

	spin_lock_irq(&evf->lock);
	list_for_each_entry_safe(e, tmp, &evf->events, list) {
		if (e->counter != counter)
			continue;
		list_del(&e->list);
		kfree(e);
	}
	spin_unlock_irq(&evf->lock);
}

/**
 * xr_event_file_kill - no more events will come; wake every reader
 * @evf: the event file
 *
 * Events already queued can still be read; then read() fails with -EIO.
 */
void xr_event_file_kill(struct xr_event_file *evf)
{
	spin_lock_irq(&evf->lock);
	evf->dead = true;
	spin_unlock_irq(&evf->lock);
	wake_up_interruptible(&evf->wait);
}

/**
 * xr_cq_comp_event - a driver reports a completion event on a CQ
 * @cq: the CQ, which the caller keeps alive (it holds its own lookup lock,
 *	which the CQ's destroy op takes before the CQ goes away)
 *
 * Queues the event on the CQ's completion channel, if it has one.
 *
 * Context: any.
 */
void xr_cq_comp_event(struct xr_cq *cq)
{
	if (cq->channel)
		xr_event_queue(cq->channel, cq->uobj.user_handle, 0,
			       &cq->comp_events);
}
EXPORT_SYMBOL_GPL(xr_cq_comp_event);

/*
 * An object's owner has an async event file while the object exists: it is
 * set up before the context's first object and put after its last.
 */
static void xr_obj_async_event(struct xr_uobject *uobj, u32 event,
			       u32 *counter)
{
	if (uobj->ufile->async_file)
		xr_event_queue(uobj->ufile->async_file, uobj->user_handle,
			       event, counter);
}

/**
 * xr_cq_async_event - a driver reports an error of a CQ (overrun)
 * @cq: the CQ, kept alive by the caller as for xr_cq_comp_event()
 * @event: XR_EVENT_CQ_ERR
 *
 * The CQ's context reads it from its async event file.
 *
 * Context: any.
 */
void xr_cq_async_event(struct xr_cq *cq, enum xr_obj_event event)
{
	xr_obj_async_event(&cq->uobj, event, &cq->async_events);
}
EXPORT_SYMBOL_GPL(xr_cq_async_event);

/**
 * xr_qp_async_event - a driver reports an error of a QP
 * @qp: the QP, kept alive by the caller (its lookup lock, which the QP's
 *	destroy op takes before the QP goes away)
 * @event: XR_EVENT_QP_FATAL, XR_EVENT_QP_REQ_ERR or XR_EVENT_QP_ACCESS_ERR
 *
 * The QP's context reads it from its async event file.
 *
 * Context: any.
 */
void xr_qp_async_event(struct xr_qp *qp, enum xr_obj_event event)
{
	xr_obj_async_event(&qp->uobj, event, &qp->async_events);
}
EXPORT_SYMBOL_GPL(xr_qp_async_event);

/**
 * xr_srq_async_event - a driver reports an event of an SRQ (its limit)
 * @srq: the SRQ, kept alive by the caller (its lookup lock, which the
 *	SRQ's destroy op takes before the SRQ goes away)
 * @event: XR_EVENT_SRQ_LIMIT_REACHED
 *
 * The SRQ's context reads it from its async event file.
 *
 * Context: any.
 */
void xr_srq_async_event(struct xr_srq *srq, enum xr_obj_event event)
{
	xr_obj_async_event(&srq->uobj, event, &srq->async_events);
}
EXPORT_SYMBOL_GPL(xr_srq_async_event);
