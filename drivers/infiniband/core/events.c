// SPDX-License-Identifier: GPL-2.0
/*
 * Event files: the async event file of a context and completion channels.
 * Both are anonymous files that return one event per read(), as Linux's
 * uverbs does (struct ib_uverbs_async_event_desc and struct
 * ib_uverbs_comp_event_desc), block unless O_NONBLOCK, and poll.
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
	xr_event_file_put(filp->private_data);
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
 * @is_async: an async event file (else a completion channel)
 * @evf: out: the event file, with a reference for the caller
 *
 * Return: the file (not yet installed in a descriptor) or an ERR_PTR.
 */
struct file *xr_event_file_create(bool is_async, struct xr_event_file **evf)
{
	struct xr_event_file_ref *r;
	struct file *filp;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&r->evf.lock);
	INIT_LIST_HEAD(&r->evf.events);
	init_waitqueue_head(&r->evf.wait);
	r->evf.is_async = is_async;
	kref_init(&r->ref);	/* the file's reference */

	filp = anon_inode_getfile("[infinibandevent]", &xr_event_fops,
				  &r->evf, O_RDONLY);
	if (IS_ERR(filp)) {
		kfree(r);
		return filp;
	}
	kref_get(&r->ref);	/* the caller's */
	*evf = &r->evf;
	return filp;
}

/**
 * xr_event_file_get_channel - look up a completion channel by descriptor
 * @fd: a descriptor of the calling process
 *
 * Return: the channel with a reference held, or NULL if @fd is not one.
 */
struct xr_event_file *xr_event_file_get_channel(int fd)
{
	struct xr_event_file *evf = NULL;
	struct file *filp;

	filp = fget(fd);
	if (!filp)
		return NULL;
	if (filp->f_op == &xr_event_fops) {
		evf = filp->private_data;
		if (evf->is_async)
			evf = NULL;
		else
			kref_get(&to_ref(evf)->ref);
	}
	fput(filp);
	return evf;
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
