// SPDX-License-Identifier: GPL-2.0
/*
 * The XRNIC's RDMA function on xrdma_core: the core's device over the PCI
 * function (its identity, its ops in xrnic_verbs.c, its GSI QP in
 * xrnic_gsi.c), and the device's events handed to the core's objects.  The
 * PCI function (xrnic_main.c and the files it uses) names no xrdma_core
 * symbol: it tells this function of events through struct
 * xrnic_rdma_events.
 */
#include <linux/etherdevice.h>

#include "xrnic.h"

/* A completion event: the GSI QP's CQ, or a user CQ that still exists. */
static void xrnic_xr_comp(struct xrnic_dev *xn, u32 cqn)
{
	struct xrnic_xr *xr = xn->xr;
	struct xr_cq *cq;

	if (xrnic_gsi_event(xn, cqn))
		return;
	/* The lock keeps the CQ alive while its owner hears of the event. */
	xa_lock(&xr->cqs);
	cq = xa_load(&xr->cqs, cqn);
	if (cq)
		xr_cq_comp_event(cq);
	xa_unlock(&xr->cqs);
}

/* Tell a QP's owner; an event for a QP that is gone is dropped. */
static void xrnic_xr_qp_event(struct xrnic_xr *xr, u32 qpn, enum xr_obj_event event)
{
	struct xr_qp *qp;

	xa_lock(&xr->qps);
	qp = xa_load(&xr->qps, qpn);
	if (qp)
		xr_qp_async_event(qp, event);
	xa_unlock(&xr->qps);
}

static void xrnic_xr_async(struct xrnic_dev *xn, u16 event, u32 param)
{
	struct xrnic_xr *xr = xn->xr;
	struct xr_srq *srq;
	struct xr_cq *cq;

	switch (event) {
	case XRNIC_EVENT_QP_FATAL:
		xrnic_xr_qp_event(xr, param, XR_EVENT_QP_FATAL);
		break;
	case XRNIC_EVENT_QP_ACCESS:
		xrnic_xr_qp_event(xr, param, XR_EVENT_QP_ACCESS_ERR);
		break;
	case XRNIC_EVENT_QP_LAST_WQE:
		xrnic_xr_qp_event(xr, param, XR_EVENT_QP_LAST_WQE_REACHED);
		break;
	case XRNIC_EVENT_SRQ_LIMIT:
		xa_lock(&xr->srqs);
		srq = xa_load(&xr->srqs, param);
		if (srq)
			xr_srq_async_event(srq, XR_EVENT_SRQ_LIMIT_REACHED);
		xa_unlock(&xr->srqs);
		break;
	case XRNIC_EVENT_CQ_ERR:
		xa_lock(&xr->cqs);
		cq = xa_load(&xr->cqs, param);
		if (cq)
			xr_cq_async_event(cq, XR_EVENT_CQ_ERR);
		xa_unlock(&xr->cqs);
		break;
	}
}

static void xrnic_xr_port(struct xrnic_dev *xn, u32 port, bool active)
{
	xr_port_event(&xn->xr->xdev, port, active);
}

static void xrnic_xr_fatal(struct xrnic_dev *xn)
{
	xr_device_fatal(&xn->xr->xdev);
}

/* The port's GIDs follow the net_device's addresses. */
static void xrnic_xr_netdev(struct xrnic_dev *xn, struct net_device *netdev)
{
	xr_set_netdev(&xn->xr->xdev, 1, netdev);
}

static const struct xrnic_rdma_events xrnic_xr_events = {
	.comp = xrnic_xr_comp,
	.async = xrnic_xr_async,
	.port = xrnic_xr_port,
	.fatal = xrnic_xr_fatal,
	.netdev = xrnic_xr_netdev,
};

/**
 * xrnic_xr_add - give the PCI function its RDMA device on xrdma_core
 * @xn: the PCI function, its admin queue and event queues running
 *
 * Creates the GSI QP and registers "xrnicN".  From here on the device's
 * events reach the core; the state stays until xrnic_xr_free(), even if
 * this fails, since an event may be using it.
 *
 * Return: 0 or a negative errno.
 */
int xrnic_xr_add(struct xrnic_dev *xn)
{
	struct xr_device *xdev;
	struct xrnic_xr *xr;
	int ret;

	xdev = xr_alloc_device(sizeof(*xr));
	if (!xdev)
		return -ENOMEM;
	xr = to_xr(xdev);
	xr->xn = xn;
	xa_init(&xr->cqs);
	xa_init(&xr->qps);
	xa_init(&xr->srqs);
	xdev->ops = &xrnic_dev_ops;
	xdev->phys_port_cnt = XRNIC_PORTS;
	xdev->dma_device = &xn->pdev->dev;
	xdev->num_comp_vectors = xn->num_comp_vectors;
	xdev->node_guid = xn->node_guid;
	xdev->sys_image_guid = xn->node_guid;
	strscpy(xdev->fw_ver, xn->fw_ver, sizeof(xdev->fw_ver));
	snprintf(xdev->node_desc, sizeof(xdev->node_desc), "XRNIC %s", pci_name(xn->pdev));
	ether_addr_copy(xdev->mac, xn->mac);
	WRITE_ONCE(xn->xr, xr);
	/* Events find the state above from now on. */
	WRITE_ONCE(xn->rdma, &xrnic_xr_events);

	ret = xrnic_gsi_init(xn);
	if (ret)
		return ret;
	ret = xr_register_device(xdev, "xrnic%d", &xn->pdev->dev);
	if (ret) {
		xrnic_gsi_destroy(xn);
		return ret;
	}
	dev_info(&xn->pdev->dev, "RDMA device %s on xrdma_core\n", xr_name(xdev));
	return 0;
}

/**
 * xrnic_xr_remove - unregister the RDMA device
 * @xn: the PCI function, after a successful xrnic_xr_add()
 *
 * Destroys every user object (a command may time out meanwhile), then the
 * GSI QP.  Events still find the state, which nothing uses any more.
 */
void xrnic_xr_remove(struct xrnic_dev *xn)
{
	xr_unregister_device(&xn->xr->xdev);
	xrnic_gsi_destroy(xn);
}

/**
 * xrnic_xr_free - free the RDMA function's state
 * @xn: the PCI function, whose events have stopped
 */
void xrnic_xr_free(struct xrnic_dev *xn)
{
	struct xrnic_xr *xr = xn->xr;

	if (!xr)
		return;
	WRITE_ONCE(xn->rdma, NULL);
	WRITE_ONCE(xn->xr, NULL);
	xa_destroy(&xr->cqs);
	xa_destroy(&xr->qps);
	xa_destroy(&xr->srqs);
	xr_dealloc_device(&xr->xdev);
}
