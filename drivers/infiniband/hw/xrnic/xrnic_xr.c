// SPDX-License-Identifier: GPL-2.0
/*
 * xrnic_xrdma.ko: the XRNIC's RDMA function on xrdma_core, the auxiliary
 * driver of "xrnic.rdma" devices (xrnic_aux.c).  It registers the core's
 * device over the PCI function (its identity, its ops in xrnic_verbs.c,
 * its GSI QP in xrnic_gsi.c) and hands the device's events to the core's
 * objects.  xrnic.ko names no xrdma_core symbol: it tells this driver of
 * events through struct xrnic_rdma_events.
 */
#include <linux/etherdevice.h>
#include <linux/module.h>

#include "xrnic_xr.h"

/* A completion event: the GSI QP's CQ, or a user CQ that still exists. */
static void xrnic_xr_comp(struct xrnic_rdma *rdma, u32 cqn)
{
	struct xrnic_xr *xr = container_of(rdma, struct xrnic_xr, rdma);
	struct xr_cq *cq;

	if (xrnic_gsi_event(xr, cqn))
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

static void xrnic_xr_async(struct xrnic_rdma *rdma, u16 event, u32 param)
{
	struct xrnic_xr *xr = container_of(rdma, struct xrnic_xr, rdma);
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

static void xrnic_xr_port(struct xrnic_rdma *rdma, u32 port, bool active)
{
	xr_port_event(&container_of(rdma, struct xrnic_xr, rdma)->xdev, port, active);
}

static void xrnic_xr_fatal(struct xrnic_rdma *rdma)
{
	xr_device_fatal(&container_of(rdma, struct xrnic_xr, rdma)->xdev);
}

static const struct xrnic_rdma_events xrnic_xr_events = {
	.comp = xrnic_xr_comp,
	.async = xrnic_xr_async,
	.port = xrnic_xr_port,
	.fatal = xrnic_xr_fatal,
};

/*
 * Bind an "xrnic.rdma" device: register "xrnicN" with its GSI QP, the
 * port's GIDs following the Ethernet function's addresses.  The device's
 * events reach this function from before registration (they find an empty
 * table) until the remove below has unregistered it.
 */
static int xrnic_xr_probe(struct auxiliary_device *adev,
			  const struct auxiliary_device_id *id)
{
	struct xrnic_dev *xn = xrnic_from_adev(adev);
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
	xr->rdma.events = &xrnic_xr_events;
	xdev->ops = &xrnic_dev_ops;
	xdev->phys_port_cnt = XRNIC_PORTS;
	xdev->dma_device = &xn->pdev->dev;
	xdev->num_comp_vectors = xn->num_comp_vectors;
	xdev->node_guid = xn->node_guid;
	xdev->sys_image_guid = xn->node_guid;
	strscpy(xdev->fw_ver, xn->fw_ver, sizeof(xdev->fw_ver));
	snprintf(xdev->node_desc, sizeof(xdev->node_desc), "XRNIC %s", pci_name(xn->pdev));
	ether_addr_copy(xdev->mac, xn->mac);
	xrnic_rdma_attach(xn, &xr->rdma);

	ret = xrnic_gsi_init(xr);
	if (ret)
		goto err_detach;
	ret = xr_register_device(xdev, "xrnic%d", &xn->pdev->dev);
	if (ret)
		goto err_gsi_destroy;
	xr_set_netdev(xdev, 1, xn->netdev);
	auxiliary_set_drvdata(adev, xr);
	dev_info(&xn->pdev->dev, "RDMA device %s on xrdma_core\n", xr_name(xdev));
	return 0;

err_gsi_destroy:
	xrnic_gsi_destroy(xr);
err_detach:
	xrnic_rdma_detach(xn);
	xr_dealloc_device(xdev);
	return ret;
}

/*
 * Unregister the device (its users' objects are destroyed; a command may
 * time out meanwhile), destroy the GSI QP, stop hearing events and free.
 * Pinned pages that a device which stopped answering may still use stay
 * pinned for ever, as the PCI function's remove leaks what it gave such a
 * device: nothing held refers to this module afterwards.
 */
static void xrnic_xr_remove(struct auxiliary_device *adev)
{
	struct xrnic_xr *xr = auxiliary_get_drvdata(adev);
	struct xrnic_dev *xn = xr->xn;
	size_t leaked;

	xr_set_netdev(&xr->xdev, 1, NULL);
	xr_unregister_device(&xr->xdev);
	xrnic_gsi_destroy(xr);
	xrnic_rdma_detach(xn);
	leaked = xrnic_dma_abandon(xn, &xrnic_umem_held);
	if (leaked)
		dev_err(&xn->pdev->dev,
			"device did not complete a reset: keeping %zu bytes of user memory it may still use pinned\n",
			leaked);
	xa_destroy(&xr->cqs);
	xa_destroy(&xr->qps);
	xa_destroy(&xr->srqs);
	xr_dealloc_device(&xr->xdev);
}

static const struct auxiliary_device_id xrnic_xr_ids[] = {
	{ .name = "xrnic.rdma" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, xrnic_xr_ids);

static struct auxiliary_driver xrnic_xr_driver = {
	.name = "xrdma",
	.probe = xrnic_xr_probe,
	.remove = xrnic_xr_remove,
	.id_table = xrnic_xr_ids,
};
module_auxiliary_driver(xrnic_xr_driver);

MODULE_IMPORT_NS(XRNIC);
MODULE_DESCRIPTION("XRNIC RDMA function on xrdma_core");
MODULE_AUTHOR("The xrdma authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(XRDMA_VERSION);
