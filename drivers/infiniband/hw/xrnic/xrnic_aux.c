// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA function as an auxiliary device, the shape mlx5_core, ice and
 * bnxt_en give theirs: once the device runs and its Ethernet function is
 * registered, the PCI function adds "xrnic.rdma.<id>" to the auxiliary
 * bus, or "xrnic.ib.<id>" when the rdma_core parameter is "linux", and it
 * deletes it before anything else at remove.  The driver that binds the
 * device (xrnic_xrdma.ko on xrdma_core, xrnic_ib.ko on Linux's ib_core;
 * udev loads it by the device's modalias) attaches to hear the device's
 * events; detaching waits until no handler runs (SRCU, since the
 * handlers sleep).  The device core binds and unbinds a device under its
 * lock, so at most one driver is attached at a time.
 */
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "xrnic.h"

static DEFINE_IDA(xrnic_aux_ida);

static char *rdma_core = "xrdma";
module_param(rdma_core, charp, 0444);
MODULE_PARM_DESC(rdma_core,
		 "the RDMA core the RDMA function is for: xrdma (xrdma_core, the default) or linux (Linux's ib_core)");

/* The auxiliary device's name for rdma_core, or NULL for an unknown one. */
static const char *xrnic_aux_name(void)
{
	if (!strcmp(rdma_core, "xrdma"))
		return "rdma";
	if (!strcmp(rdma_core, "linux"))
		return "ib";
	return NULL;
}

/**
 * xrnic_aux_check - refuse an unknown rdma_core parameter
 *
 * Return: 0 or -EINVAL.
 */
int xrnic_aux_check(void)
{
	if (xrnic_aux_name())
		return 0;
	pr_err("xrnic: rdma_core=%s: not xrdma or linux\n", rdma_core);
	return -EINVAL;
}

static void xrnic_aux_release(struct device *dev)
{
	struct xrnic_adev *xa = container_of(dev, struct xrnic_adev, adev.dev);

	ida_free(&xrnic_aux_ida, xa->adev.id);
	kfree(xa);
}

/**
 * xrnic_aux_add - add the RDMA function's auxiliary device
 * @xn: the PCI function, running, with its net_device registered
 *
 * Return: 0 or a negative errno.
 */
int xrnic_aux_add(struct xrnic_dev *xn)
{
	struct xrnic_adev *xa;
	int ret;

	xa = kzalloc(sizeof(*xa), GFP_KERNEL);
	if (!xa)
		return -ENOMEM;
	ret = ida_alloc(&xrnic_aux_ida, GFP_KERNEL);
	if (ret < 0) {
		kfree(xa);
		return ret;
	}
	xa->xn = xn;
	xa->adev.name = xrnic_aux_name();
	xa->adev.id = ret;
	xa->adev.dev.parent = &xn->pdev->dev;
	xa->adev.dev.release = xrnic_aux_release;
	ret = auxiliary_device_init(&xa->adev);
	if (ret) {
		ida_free(&xrnic_aux_ida, xa->adev.id);
		kfree(xa);
		return ret;
	}
	/* From here on, its release frees it. */
	ret = auxiliary_device_add(&xa->adev);
	if (ret) {
		auxiliary_device_uninit(&xa->adev);
		return ret;
	}
	xn->adev = xa;
	return 0;
}

/**
 * xrnic_aux_delete - delete the RDMA function's auxiliary device
 * @xn: the PCI function
 *
 * Its driver is unbound first (it detaches): no event reaches an RDMA
 * function afterwards.
 */
void xrnic_aux_delete(struct xrnic_dev *xn)
{
	struct xrnic_adev *xa = xn->adev;

	if (!xa)
		return;
	auxiliary_device_delete(&xa->adev);
	auxiliary_device_uninit(&xa->adev);
	xn->adev = NULL;
}

/**
 * xrnic_rdma_attach - make the device's events reach an RDMA function
 * @xn: the PCI function of the auxiliary device being bound
 * @rdma: in the binding driver's state, @rdma->events set
 *
 * Events before this call were dropped, as an RDMA device drops events
 * before it is registered.
 */
void xrnic_rdma_attach(struct xrnic_dev *xn, struct xrnic_rdma *rdma)
{
	rcu_assign_pointer(xn->rdma, rdma);
}
EXPORT_SYMBOL_NS_GPL(xrnic_rdma_attach, XRNIC);

/**
 * xrnic_rdma_detach - stop telling the RDMA function of events
 * @xn: the PCI function of the auxiliary device being unbound
 *
 * Returns once no event handler runs; the caller may then free its state.
 */
void xrnic_rdma_detach(struct xrnic_dev *xn)
{
	RCU_INIT_POINTER(xn->rdma, NULL);
	synchronize_srcu(&xn->rdma_srcu);
}
EXPORT_SYMBOL_NS_GPL(xrnic_rdma_detach, XRNIC);

/**
 * xrnic_rdma_comp - tell the RDMA function of a completion event
 * @xn: the device
 * @cqn: the CQ it names
 */
void xrnic_rdma_comp(struct xrnic_dev *xn, u32 cqn)
{
	struct xrnic_rdma *rdma;
	int idx;

	idx = srcu_read_lock(&xn->rdma_srcu);
	rdma = srcu_dereference(xn->rdma, &xn->rdma_srcu);
	if (rdma)
		rdma->events->comp(rdma, cqn);
	srcu_read_unlock(&xn->rdma_srcu, idx);
}

/**
 * xrnic_rdma_async - tell the RDMA function of an object's asynchronous event
 * @xn: the device
 * @event: XRNIC_EVENT_*
 * @param: the CQ, QP or SRQ it names
 */
void xrnic_rdma_async(struct xrnic_dev *xn, u16 event, u32 param)
{
	struct xrnic_rdma *rdma;
	int idx;

	idx = srcu_read_lock(&xn->rdma_srcu);
	rdma = srcu_dereference(xn->rdma, &xn->rdma_srcu);
	if (rdma)
		rdma->events->async(rdma, event, param);
	srcu_read_unlock(&xn->rdma_srcu, idx);
}

/**
 * xrnic_rdma_port - tell the RDMA function that a port went up or down
 * @xn: the device
 * @port: the port, 1 .. XRNIC_PORTS
 * @active: up
 */
void xrnic_rdma_port(struct xrnic_dev *xn, u32 port, bool active)
{
	struct xrnic_rdma *rdma;
	int idx;

	idx = srcu_read_lock(&xn->rdma_srcu);
	rdma = srcu_dereference(xn->rdma, &xn->rdma_srcu);
	if (rdma)
		rdma->events->port(rdma, port, active);
	srcu_read_unlock(&xn->rdma_srcu, idx);
}

/**
 * xrnic_rdma_fatal - tell the RDMA function that the device died
 * @xn: the device, reset since (or leaking what it was given)
 */
void xrnic_rdma_fatal(struct xrnic_dev *xn)
{
	struct xrnic_rdma *rdma;
	int idx;

	idx = srcu_read_lock(&xn->rdma_srcu);
	rdma = srcu_dereference(xn->rdma, &xn->rdma_srcu);
	if (rdma)
		rdma->events->fatal(rdma);
	srcu_read_unlock(&xn->rdma_srcu, idx);
}
