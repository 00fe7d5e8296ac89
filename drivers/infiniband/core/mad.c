// SPDX-License-Identifier: GPL-2.0
/*
 * Management datagrams (IBTA 13.4) on a port's GSI QP, as Linux's ib_mad
 * carries them for the connection manager.  A MAD leaves through the
 * driver's gsi_send op to a GID's QP 1 with the GSI Q_Key; one the driver
 * received (xr_gsi_recv()) is checked (size, base version) and handed by
 * management class to its consumer, in process context on a workqueue of
 * its own (a consumer may wait for a neighbour).  Consumers register an
 * agent per management class (xr_mad_register_agent(), as Linux's
 * ib_register_mad_agent()): IB CM (cm.c) takes the CM class; MADs of a
 * class without an agent are dropped.
 */
#include <linux/rwsem.h>
#include <linux/slab.h>

#include "core_priv.h"

#define XR_MGMT_BASE_VERSION	1

/**
 * struct xr_mad_work - a received MAD on its way to its consumer
 * @work: on xr_mad_wq
 * @xdev: the device (a reference)
 * @port: the port
 * @wc: where it came from
 * @mad: the MAD
 */
struct xr_mad_work {
	struct work_struct work;
	struct xr_device *xdev;
	u32 port;
	struct xr_gsi_wc wc;
	u8 mad[XR_MAD_SIZE];
};

static struct workqueue_struct *xr_mad_wq;

/*
 * The agent of each management class.  Written under xr_mad_agents_sem
 * held for write; a MAD is handed over under it held for read, so that an
 * agent that unregisters is called no more once that returns.
 */
static DECLARE_RWSEM(xr_mad_agents_sem);
static xr_mad_recv_t xr_mad_agents[256];

/**
 * xr_mad_register_agent - take the MADs of one management class
 * @mgmt_class: the class (XR_MGMT_CLASS_CM, ...)
 * @recv: called with each MAD of the class received, in process context
 *
 * Return: 0, or -EBUSY if the class has an agent.
 */
int xr_mad_register_agent(u8 mgmt_class, xr_mad_recv_t recv)
{
	int ret = 0;

	down_write(&xr_mad_agents_sem);
	if (xr_mad_agents[mgmt_class])
		ret = -EBUSY;
	else
		xr_mad_agents[mgmt_class] = recv;
	up_write(&xr_mad_agents_sem);
	return ret;
}

/**
 * xr_mad_unregister_agent - stop taking the MADs of a management class
 * @mgmt_class: the class given to xr_mad_register_agent()
 *
 * Waits for a MAD being handed to the agent.
 */
void xr_mad_unregister_agent(u8 mgmt_class)
{
	down_write(&xr_mad_agents_sem);
	xr_mad_agents[mgmt_class] = NULL;
	up_write(&xr_mad_agents_sem);
}

/**
 * xr_mad_send - send a MAD from a port's GSI QP
 * @xdev: the device
 * @port: the port
 * @ah: where to (a GSI QP: QP 1, the GSI Q_Key)
 * @mad: XR_MAD_SIZE bytes
 *
 * Return: 0 when it left, -EOPNOTSUPP for a device without a GSI QP, or the
 * driver's errno (-EAGAIN: its queue is full, -EIO: the device is dead).
 */
int xr_mad_send(struct xr_device *xdev, u32 port, const struct xr_gsi_ah *ah, const void *mad)
{
	if (!xdev->ops->gsi_send)
		return -EOPNOTSUPP;
	return xdev->ops->gsi_send(xdev, port, ah, mad, XR_MAD_SIZE);
}

/**
 * xr_mad_reply_ah - the address that answers a received MAD
 * @xdev: the device it came in on
 * @port: the port
 * @wc: where it came from
 * @ah: out: the sender's GSI QP, from the GID it was sent to
 *
 * Context: process context; may wait for the neighbour (xr_resolve_dmac()).
 *
 * Return: 0, -EINVAL when it was sent to no GID of the port, or the
 * resolution's errno.
 */
int xr_mad_reply_ah(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc,
		    struct xr_gsi_ah *ah)
{
	int idx = xr_find_gid(xdev, port, wc->dgid);

	if (idx < 0)
		return -EINVAL;
	*ah = (struct xr_gsi_ah){
		.sgid_index = idx, .hop_limit = 64, .remote_qpn = wc->src_qp,
		.remote_qkey = XR_GSI_QKEY,
	};
	memcpy(ah->dgid, wc->sgid, sizeof(ah->dgid));
	return xr_resolve_dmac(xdev, port, idx, ah->dgid, ah->dmac);
}

static void xr_mad_work_fn(struct work_struct *work)
{
	struct xr_mad_work *w = container_of(work, struct xr_mad_work, work);
	const struct xr_mad_hdr *hdr = (const struct xr_mad_hdr *)w->mad;

	down_read(&xr_mad_agents_sem);
	if (hdr->base_version == XR_MGMT_BASE_VERSION && xr_mad_agents[hdr->mgmt_class])
		xr_mad_agents[hdr->mgmt_class](w->xdev, w->port, &w->wc, w->mad);
	up_read(&xr_mad_agents_sem);
	xr_device_put(w->xdev);
	kfree(w);
}

/**
 * xr_gsi_recv - a driver hands over a MAD its port's GSI QP received
 * @xdev: the device
 * @port: the port
 * @wc: where it came from
 * @mad: the datagram after its GRH
 * @len: its length; a MAD is XR_MAD_SIZE bytes, more is ignored
 *
 * The MAD is copied.  Nothing is taken while the device is not registered.
 *
 * Context: any but hard interrupt.
 */
void xr_gsi_recv(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc, const void *mad,
		 size_t len)
{
	struct xr_mad_work *w;

	if (len < XR_MAD_SIZE || !refcount_inc_not_zero(&xdev->users))
		return;
	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w) {
		xr_device_put(xdev);
		return;
	}
	INIT_WORK(&w->work, xr_mad_work_fn);
	w->xdev = xdev;
	w->port = port;
	w->wc = *wc;
	memcpy(w->mad, mad, XR_MAD_SIZE);
	queue_work(xr_mad_wq, &w->work);
}
EXPORT_SYMBOL_GPL(xr_gsi_recv);

/**
 * xr_mad_init - start the MAD layer
 *
 * Return: 0 or -ENOMEM.
 */
int xr_mad_init(void)
{
	xr_mad_wq = alloc_workqueue("xrdma_mad", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return xr_mad_wq ? 0 : -ENOMEM;
}

/**
 * xr_mad_exit - stop it; every device is gone, and so every MAD work
 */
void xr_mad_exit(void)
{
	destroy_workqueue(xr_mad_wq);
}
