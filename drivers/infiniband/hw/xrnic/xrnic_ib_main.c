// SPDX-License-Identifier: GPL-2.0
/*
 * xrnic_ib.ko: the XRNIC's RDMA function on Linux's own RDMA core, the
 * auxiliary driver of "xrnic.ib" devices, which xrnic.ko adds when its
 * rdma_core parameter is "linux" (xrnic_aux.c).  It registers an ib_core
 * device over the PCI function, its port's net_device named before
 * registration so that ib_core fills the GID table from its addresses, and
 * hands the device's events to ib_core's objects.  The device's verbs are
 * in xrnic_ib_verbs.c, xrnic_ib_queues.c and xrnic_ib_mr.c.
 */
#include <linux/module.h>

#include "xrnic_ib.h"

static void xrnic_ib_event(struct xrnic_ib *ib, enum ib_event_type type, u32 port)
{
	struct ib_event ev = {
		.device = &ib->ibdev,
		.event = type,
		.element.port_num = port,
	};

	ib_dispatch_event(&ev);
}

/* A completion event of a CQ that still exists goes to its owner. */
static void xrnic_ib_comp(struct xrnic_rdma *rdma, u32 cqn)
{
	struct xrnic_ib *ib = container_of(rdma, struct xrnic_ib, rdma);
	struct xrnic_ib_cq *cq;

	/* The lock keeps the CQ alive while its owner hears of the event. */
	xa_lock(&ib->cqs);
	cq = xa_load(&ib->cqs, cqn);
	if (cq && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	xa_unlock(&ib->cqs);
}

static void xrnic_ib_qp_event(struct xrnic_ib *ib, u32 qpn, enum ib_event_type type)
{
	struct xrnic_ib_qp *qp;
	struct ib_event ev = { .device = &ib->ibdev, .event = type };

	xa_lock(&ib->qps);
	qp = xa_load(&ib->qps, qpn);
	if (qp && qp->ibqp.event_handler) {
		ev.element.qp = &qp->ibqp;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	xa_unlock(&ib->qps);
}

static void xrnic_ib_async(struct xrnic_rdma *rdma, u16 event, u32 param)
{
	struct xrnic_ib *ib = container_of(rdma, struct xrnic_ib, rdma);
	struct ib_event ev = { .device = &ib->ibdev, .event = IB_EVENT_CQ_ERR };
	struct xrnic_ib_cq *cq;

	switch (event) {
	case XRNIC_EVENT_QP_FATAL:
		xrnic_ib_qp_event(ib, param, IB_EVENT_QP_FATAL);
		break;
	case XRNIC_EVENT_QP_ACCESS:
		xrnic_ib_qp_event(ib, param, IB_EVENT_QP_ACCESS_ERR);
		break;
	case XRNIC_EVENT_QP_LAST_WQE:
		xrnic_ib_qp_event(ib, param, IB_EVENT_QP_LAST_WQE_REACHED);
		break;
	case XRNIC_EVENT_CQ_ERR:
		xa_lock(&ib->cqs);
		cq = xa_load(&ib->cqs, param);
		if (cq && cq->ibcq.event_handler) {
			ev.element.cq = &cq->ibcq;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		xa_unlock(&ib->cqs);
		break;
	}
}

static void xrnic_ib_port(struct xrnic_rdma *rdma, u32 port, bool active)
{
	xrnic_ib_event(container_of(rdma, struct xrnic_ib, rdma),
		       active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR, port);
}

static void xrnic_ib_fatal(struct xrnic_rdma *rdma)
{
	xrnic_ib_event(container_of(rdma, struct xrnic_ib, rdma), IB_EVENT_DEVICE_FATAL, 1);
}

static const struct xrnic_rdma_events xrnic_ib_events = {
	.comp = xrnic_ib_comp,
	.async = xrnic_ib_async,
	.port = xrnic_ib_port,
	.fatal = xrnic_ib_fatal,
};

/*
 * Bind an "xrnic.ib" device: register "xrnicN" with ib_core.  Its parent is
 * the PCI function, so that libibverbs matches the XRNIC's provider by the
 * PCI ID, as it does on xrdma_core.
 */
static int xrnic_ib_probe(struct auxiliary_device *adev,
			  const struct auxiliary_device_id *id)
{
	struct xrnic_dev *xn = xrnic_from_adev(adev);
	struct xrnic_ib *ib;
	int ret;

	ib = ib_alloc_device(xrnic_ib, ibdev);
	if (!ib)
		return -ENOMEM;
	ib->xn = xn;
	xa_init(&ib->cqs);
	xa_init(&ib->qps);
	ib->rdma.events = &xrnic_ib_events;
	ib->ibdev.node_type = RDMA_NODE_IB_CA;
	ib->ibdev.phys_port_cnt = XRNIC_PORTS;
	ib->ibdev.num_comp_vectors = xn->num_comp_vectors;
	ib->ibdev.node_guid = cpu_to_be64(xn->node_guid);
	ib->ibdev.dev.parent = &xn->pdev->dev;
	snprintf(ib->ibdev.node_desc, sizeof(ib->ibdev.node_desc), "XRNIC %s",
		 pci_name(xn->pdev));
	ib_set_device_ops(&ib->ibdev, &xrnic_ib_ops);
	ret = ib_device_set_netdev(&ib->ibdev, xn->netdev, 1);
	if (ret)
		goto err_dealloc;
	xrnic_rdma_attach(xn, &ib->rdma);
	ret = ib_register_device(&ib->ibdev, "xrnic%d", &xn->pdev->dev);
	if (ret)
		goto err_detach;
	auxiliary_set_drvdata(adev, ib);
	dev_info(&xn->pdev->dev, "RDMA device %s on Linux's ib_core\n",
		 dev_name(&ib->ibdev.dev));
	return 0;

err_detach:
	xrnic_rdma_detach(xn);
err_dealloc:
	ib_dealloc_device(&ib->ibdev);
	return ret;
}

/*
 * Unregister (ib_core disassociates open contexts first and destroys their
 * objects), stop hearing events and free.  Pinned pages that a device which
 * stopped answering may still use stay pinned for ever, as the PCI
 * function's remove leaks what it gave such a device.
 */
static void xrnic_ib_remove(struct auxiliary_device *adev)
{
	struct xrnic_ib *ib = auxiliary_get_drvdata(adev);
	struct xrnic_dev *xn = ib->xn;
	size_t leaked;

	ib_unregister_device(&ib->ibdev);
	xrnic_rdma_detach(xn);
	leaked = xrnic_dma_abandon(xn, &xrnic_ib_umem_held);
	if (leaked)
		dev_err(&xn->pdev->dev,
			"device did not complete a reset: keeping %zu bytes of user memory it may still use pinned\n",
			leaked);
	xa_destroy(&ib->cqs);
	xa_destroy(&ib->qps);
	ib_dealloc_device(&ib->ibdev);
}

static const struct auxiliary_device_id xrnic_ib_ids[] = {
	{ .name = "xrnic.ib" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, xrnic_ib_ids);

static struct auxiliary_driver xrnic_ib_driver = {
	.name = "ib",
	.probe = xrnic_ib_probe,
	.remove = xrnic_ib_remove,
	.id_table = xrnic_ib_ids,
};
module_auxiliary_driver(xrnic_ib_driver);

MODULE_IMPORT_NS(XRNIC);
MODULE_DESCRIPTION("XRNIC RDMA function on Linux's ib_core");
MODULE_AUTHOR("The xrdma authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(XRDMA_VERSION);
