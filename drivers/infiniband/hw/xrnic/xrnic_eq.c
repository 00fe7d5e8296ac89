// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupts and event queues: the admin MSI-X vector and the asynchronous
 * event notification queue (AENQ) that reports port changes and fatal
 * device errors; and the completion event queues of vectors 1 .. N-1.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>

#include "xrnic.h"

static void xrnic_aenq_handle(struct xrnic_dev *xn,
			      const struct xrnic_aenq_entry *e)
{
	u32 param = le32_to_cpu(e->param);

	switch (le16_to_cpu(e->event)) {
	case XRNIC_EVENT_PORT_ACTIVE:
	case XRNIC_EVENT_PORT_DOWN:
		if (param < 1 || param > XRNIC_PORTS) {
			dev_warn_ratelimited(&xn->pdev->dev,
					     "event for unknown port %u\n", param);
			break;
		}
		if (le16_to_cpu(e->event) == XRNIC_EVENT_PORT_ACTIVE)
			dev_info(&xn->pdev->dev, "port %u active\n", param);
		else
			dev_warn(&xn->pdev->dev, "port %u down\n", param);
		xrnic_port_changed(xn);
		xrnic_rdma_port(xn, param, le16_to_cpu(e->event) == XRNIC_EVENT_PORT_ACTIVE);
		xrnic_eth_link(xn, le16_to_cpu(e->event) ==
			       XRNIC_EVENT_PORT_ACTIVE);
		break;
	case XRNIC_EVENT_FATAL:
		dev_err(&xn->pdev->dev, "fatal device error, reason %u\n",
			param);
		xrnic_mark_dead(xn, "fatal error event");
		break;
	case XRNIC_EVENT_QP_FATAL:
	case XRNIC_EVENT_QP_ACCESS:
	case XRNIC_EVENT_QP_LAST_WQE:
	case XRNIC_EVENT_SRQ_LIMIT:
	case XRNIC_EVENT_CQ_ERR:
		xrnic_rdma_async(xn, le16_to_cpu(e->event), param);
		break;
	default:
		dev_warn_ratelimited(&xn->pdev->dev,
				     "unknown async event %u\n",
				     le16_to_cpu(e->event));
		break;
	}
}

static void xrnic_aenq_work(struct work_struct *work)
{
	struct xrnic_aenq *aenq = container_of(work, struct xrnic_aenq, work);
	struct xrnic_dev *xn = container_of(aenq, struct xrnic_dev, aenq);
	struct xrnic_aenq_entry *e, entry;
	u32 done = 0;

	/* At most one ring's worth per run: a broken device cannot keep us here. */
	while (done < XRNIC_AENQ_DEPTH) {
		e = xrnic_ring_next(aenq->ring, sizeof(*e),
				    offsetof(struct xrnic_aenq_entry, flags),
				    XRNIC_AENQ_DEPTH, aenq->cc);
		if (!e)
			break;
		entry = *e;
		aenq->cc++;
		done++;
		xrnic_aenq_handle(xn, &entry);
	}
	if (done)
		xrnic_wr(xn, XRNIC_REG_AENQ_CI, aenq->cc);
}

/**
 * xrnic_aenq_init - allocate the async event ring
 * @xn: the device
 *
 * Return: 0 or -ENOMEM.
 */
int xrnic_aenq_init(struct xrnic_dev *xn)
{
	struct xrnic_aenq *aenq = &xn->aenq;

	aenq->ring = dma_alloc_coherent(&xn->pdev->dev,
					XRNIC_AENQ_DEPTH * sizeof(*aenq->ring),
					&aenq->dma, GFP_KERNEL);
	if (!aenq->ring)
		return -ENOMEM;
	aenq->cc = 0;
	INIT_WORK(&aenq->work, xrnic_aenq_work);
	return 0;
}

/**
 * xrnic_aenq_stop - stop handling async events
 * @xn: the device, with its interrupt freed
 */
void xrnic_aenq_stop(struct xrnic_dev *xn)
{
	cancel_work_sync(&xn->aenq.work);
}

/**
 * xrnic_aenq_destroy - free the async event ring
 * @xn: the device, stopped, and reset if it could be (xrnic_dma.c)
 */
void xrnic_aenq_destroy(struct xrnic_dev *xn)
{
	struct xrnic_aenq *aenq = &xn->aenq;

	xrnic_dma_free(xn, aenq->ring, aenq->dma,
		       XRNIC_AENQ_DEPTH * sizeof(*aenq->ring), true);
}

/*
 * Vector 0: an admin completion or an async event (or both) is ready; or
 * Ethernet descriptors completed, if the Ethernet function shares it.
 */
static irqreturn_t xrnic_admin_irq(int irq, void *data)
{
	struct xrnic_dev *xn = data;

	complete(&xn->admin.done);
	schedule_work(&xn->aenq.work);
	xrnic_eth_admin_vector(xn);
	return IRQ_HANDLED;
}

/**
 * xrnic_admin_irq_request - install the admin interrupt handler
 * @xn: the device, with MSI-X vectors allocated
 *
 * Also drains events posted while the queue was polled.
 *
 * Return: 0 or a negative errno.
 */
int xrnic_admin_irq_request(struct xrnic_dev *xn)
{
	int ret;

	snprintf(xn->irq_name, sizeof(xn->irq_name), "xrnic-admin@%s",
		 pci_name(xn->pdev));
	ret = request_irq(pci_irq_vector(xn->pdev, XRNIC_VEC_ADMIN),
			  xrnic_admin_irq, 0, xn->irq_name, xn);
	if (ret)
		return ret;
	schedule_work(&xn->aenq.work);
	return 0;
}

/**
 * xrnic_admin_irq_free - remove the admin interrupt handler
 * @xn: the device
 */
void xrnic_admin_irq_free(struct xrnic_dev *xn)
{
	free_irq(pci_irq_vector(xn->pdev, XRNIC_VEC_ADMIN), xn);
}

#define XRNIC_CEQ_BYTES	(XRNIC_CEQ_DEPTH * sizeof(struct xrnic_eqe) + \
			 sizeof(struct xrnic_eq_db))

static struct xrnic_eq_db *xrnic_ceq_db(struct xrnic_ceq *eq)
{
	return (struct xrnic_eq_db *)(eq->ring + XRNIC_CEQ_DEPTH);
}

/*
 * A threaded handler: completion events go to the RDMA function, whose CQ
 * table lock keeps a CQ alive while it is told, and destroy_cq takes that
 * lock from process context.
 */
static irqreturn_t xrnic_ceq_irq(int irq, void *data)
{
	struct xrnic_ceq *eq = data;
	struct xrnic_dev *xn = eq->xn;
	struct xrnic_eqe *e;
	u32 done, cqn;

	for (done = 0; done < XRNIC_CEQ_DEPTH; done++) {
		e = xrnic_ring_next(eq->ring, sizeof(*e),
				    offsetof(struct xrnic_eqe, flags),
				    XRNIC_CEQ_DEPTH, eq->cc);
		if (!e)
			break;
		cqn = le32_to_cpu(READ_ONCE(e->cqn));
		eq->cc++;
		xrnic_rdma_comp(xn, cqn);
	}
	WRITE_ONCE(xrnic_ceq_db(eq)->ci, cpu_to_le32(eq->cc));
	return IRQ_HANDLED;
}

static void xrnic_ceq_free(struct xrnic_dev *xn, struct xrnic_ceq *eq)
{
	free_irq(pci_irq_vector(xn->pdev, eq->vector), eq);
	xrnic_cmd_destroy_eq(xn, eq->vector);
	/* Held instead if the device stopped answering (xrnic_dma.c). */
	xrnic_dma_free(xn, eq->ring, eq->dma, XRNIC_CEQ_BYTES, true);
	eq->ring = NULL;
}

/**
 * xrnic_ceqs_init - give every completion vector its event queue
 * @xn: the device, with the admin queue in interrupt mode
 *
 * The completion vectors are 1 .. N-1 but the Ethernet vector.
 *
 * Return: 0 or a negative errno; nothing is left behind on failure.
 */
int xrnic_ceqs_init(struct xrnic_dev *xn)
{
	struct xrnic_cmd_eq create = {};
	struct xrnic_ceq *eq;
	int v, ret;

	for (v = 1; v < xn->num_vectors; v++) {
		if (v == xn->eth_vector)
			continue;
		eq = &xn->ceqs[v];
		eq->xn = xn;
		eq->vector = v;
		eq->cc = 0;
		eq->ring = dma_alloc_coherent(&xn->pdev->dev, XRNIC_CEQ_BYTES,
					      &eq->dma, GFP_KERNEL);
		if (!eq->ring) {
			ret = -ENOMEM;
			goto err_free;
		}
		snprintf(eq->irq_name, sizeof(eq->irq_name), "xrnic-comp%d@%s",
			 v - 1, pci_name(xn->pdev));
		ret = request_threaded_irq(pci_irq_vector(xn->pdev, v), NULL,
					   xrnic_ceq_irq, IRQF_ONESHOT,
					   eq->irq_name, eq);
		if (ret)
			goto err_free_ring;
		create.ring_addr = cpu_to_le64(eq->dma);
		create.depth = cpu_to_le32(XRNIC_CEQ_DEPTH);
		create.vector = cpu_to_le16(v);
		create.db_addr = cpu_to_le64(eq->dma + XRNIC_CEQ_DEPTH *
					     sizeof(struct xrnic_eqe));
		ret = xrnic_cmd_create_eq(xn, &create);
		if (ret)
			goto err_free_irq;
	}
	return 0;

err_free_irq:
	free_irq(pci_irq_vector(xn->pdev, v), eq);
err_free_ring:
	dma_free_coherent(&xn->pdev->dev, XRNIC_CEQ_BYTES, eq->ring, eq->dma);
	eq->ring = NULL;
err_free:
	while (--v >= 1)
		if (xn->ceqs[v].ring)
			xrnic_ceq_free(xn, &xn->ceqs[v]);
	return ret;
}

/**
 * xrnic_ceqs_destroy - remove the completion event queues
 * @xn: the device, with no CQ left
 */
void xrnic_ceqs_destroy(struct xrnic_dev *xn)
{
	int v;

	for (v = xn->num_vectors - 1; v >= 1; v--)
		if (xn->ceqs[v].ring)
			xrnic_ceq_free(xn, &xn->ceqs[v]);
}
