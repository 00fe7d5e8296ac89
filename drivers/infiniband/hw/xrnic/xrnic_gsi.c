// SPDX-License-Identifier: GPL-2.0
/*
 * The port's GSI QP (QP 1), which the driver owns for the core's
 * management datagrams (the connection manager's MADs): a PD, one MR over
 * its buffers, one CQ on the first completion vector and the QP, all in
 * one coherent allocation.  The core sends a MAD with xrnic_gsi_send()
 * (the gsi_send op); received MADs go to xr_gsi_recv() from a work item
 * that the CQ's completion events schedule.  The MADs are copied: the
 * core never sees the buffers.
 *
 * Locking: xrnic_gsi.lock protects the send queue (its producer index and
 * slots); the CQ and the receive queue belong to the work item alone.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <net/ipv6.h>

#include "xrnic_xr.h"

/*
 * Receive buffers are many (the CM of a busy port, or a flood of REQs, must
 * not find them all taken while the work item waits to run: Linux's MAD
 * layer posts 512); sends are few, a MAD at a time from the CM's timers.
 */
#define XRNIC_GSI_SQ_DEPTH	16
#define XRNIC_GSI_RQ_DEPTH	128
#define XRNIC_GSI_CQ_DEPTH	256	/* a power of two, at least both queues */
#define XRNIC_GSI_RBUF		512	/* a receive buffer: the GRH, then a MAD */
#define XRNIC_GSI_SBUF		256	/* a send buffer: a MAD */

/*
 * Where each part lives in the allocation, in pages: the rings, the
 * doorbell records, the MR's page list (one chunk), then the buffers,
 * which the MR covers.
 */
#define XRNIC_GSI_AFTER(at, bytes)	((at) + DIV_ROUND_UP(bytes, PAGE_SIZE))
#define XRNIC_GSI_SQ		0
#define XRNIC_GSI_RQ		XRNIC_GSI_AFTER(XRNIC_GSI_SQ, XRNIC_GSI_SQ_DEPTH * XRNIC_SQE_SIZE)
#define XRNIC_GSI_CQ		XRNIC_GSI_AFTER(XRNIC_GSI_RQ, XRNIC_GSI_RQ_DEPTH * XRNIC_RQE_SIZE)
#define XRNIC_GSI_QP_DB		XRNIC_GSI_AFTER(XRNIC_GSI_CQ, XRNIC_GSI_CQ_DEPTH * XRNIC_CQE_SIZE)
#define XRNIC_GSI_CQ_DB		(XRNIC_GSI_QP_DB + 1)
#define XRNIC_GSI_PBL		(XRNIC_GSI_CQ_DB + 1)
#define XRNIC_GSI_BUFS		(XRNIC_GSI_PBL + 1)
#define XRNIC_GSI_BUF_PAGES	(XRNIC_GSI_AFTER(0, XRNIC_GSI_RQ_DEPTH * XRNIC_GSI_RBUF + \
						 XRNIC_GSI_SQ_DEPTH * XRNIC_GSI_SBUF))
#define XRNIC_GSI_SIZE		((XRNIC_GSI_BUFS + XRNIC_GSI_BUF_PAGES) * PAGE_SIZE)
/* Byte offsets of the buffers. */
#define XRNIC_GSI_RBUF_AT(slot)	(XRNIC_GSI_BUFS * PAGE_SIZE + (slot) * XRNIC_GSI_RBUF)
#define XRNIC_GSI_SBUF_AT(slot)	(XRNIC_GSI_RBUF_AT(XRNIC_GSI_RQ_DEPTH) + (slot) * XRNIC_GSI_SBUF)

static_assert(!(XRNIC_GSI_SQ_DEPTH & (XRNIC_GSI_SQ_DEPTH - 1)) &&
	      !(XRNIC_GSI_RQ_DEPTH & (XRNIC_GSI_RQ_DEPTH - 1)));
static_assert(XRNIC_GSI_SQ_DEPTH + XRNIC_GSI_RQ_DEPTH <= XRNIC_GSI_CQ_DEPTH);
static_assert(XRNIC_GSI_BUF_PAGES <= XRNIC_PBL_CHUNK_ENTRIES);
static_assert(PAGE_SIZE == XRNIC_PBL_CHUNK_SIZE);
static_assert(XRNIC_GRH_LEN + XR_MAD_SIZE <= XRNIC_GSI_RBUF);
static_assert(XR_MAD_SIZE <= XRNIC_GSI_SBUF);

static void *xrnic_gsi_at(struct xrnic_gsi *g, size_t off)
{
	return (u8 *)g->mem + off;
}

static u64 xrnic_gsi_dma(struct xrnic_gsi *g, size_t off)
{
	return g->dma + off;
}

static struct xrnic_qp_db *xrnic_gsi_qp_db(struct xrnic_gsi *g)
{
	return xrnic_gsi_at(g, XRNIC_GSI_QP_DB * PAGE_SIZE);
}

static struct xrnic_cq_db *xrnic_gsi_cq_db(struct xrnic_gsi *g)
{
	return xrnic_gsi_at(g, XRNIC_GSI_CQ_DB * PAGE_SIZE);
}

/* Wake the device for new work requests (it may be polling already). */
static void xrnic_gsi_ring(struct xrnic_dev *xn)
{
	xrnic_doorbell(xn, xn->num_vectors > 1);
}

/* Post receive buffer @slot again. */
static void xrnic_gsi_post_recv(struct xrnic_gsi *g, u32 slot)
{
	struct xrnic_rqe *r = xrnic_gsi_at(g, XRNIC_GSI_RQ * PAGE_SIZE +
					   (g->rq_pi & (XRNIC_GSI_RQ_DEPTH - 1)) * XRNIC_RQE_SIZE);

	memset(r, 0, sizeof(*r));
	r->wr_id = cpu_to_le64(slot);
	r->num_sge = 1;
	r->sge[0].addr = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_RBUF_AT(slot)));
	r->sge[0].length = cpu_to_le32(XRNIC_GSI_RBUF);
	r->sge[0].lkey = cpu_to_le32(g->lkey);
	g->rq_pi++;
	/* The WQE before the index that publishes it. */
	dma_wmb();
	WRITE_ONCE(xrnic_gsi_qp_db(g)->rq_pi, cpu_to_le32(g->rq_pi));
}

/* The sender and receiver GIDs of a datagram, from the GRH it landed after. */
static void xrnic_gsi_grh(const u8 *grh, bool ipv4, struct xr_gsi_wc *wc)
{
	if (ipv4) {
		ipv6_addr_set_v4mapped(*(const __be32 *)(grh + 32), (struct in6_addr *)wc->sgid);
		ipv6_addr_set_v4mapped(*(const __be32 *)(grh + 36), (struct in6_addr *)wc->dgid);
	} else {
		memcpy(wc->sgid, grh + 8, 16);
		memcpy(wc->dgid, grh + 24, 16);
	}
}

static void xrnic_gsi_recv_done(struct xrnic_xr *xr, const struct xrnic_cqe *c)
{
	struct xrnic_gsi *g = &xr->gsi;
	u32 slot = le64_to_cpu(c->wr_id) & (XRNIC_GSI_RQ_DEPTH - 1);
	u8 *buf = xrnic_gsi_at(g, XRNIC_GSI_RBUF_AT(slot));
	u32 len = le32_to_cpu(c->byte_len);
	struct xr_gsi_wc wc = { .src_qp = le32_to_cpu(c->src_qp) };

	if (c->status == XRNIC_WC_SUCCESS && (c->flags & XRNIC_CQE_GRH) &&
	    len >= XRNIC_GRH_LEN && len <= XRNIC_GSI_RBUF) {
		xrnic_gsi_grh(buf, c->flags & XRNIC_CQE_GRH_IPV4, &wc);
		xr_gsi_recv(&xr->xdev, 1, &wc, buf + XRNIC_GRH_LEN, len - XRNIC_GRH_LEN);
	}
	xrnic_gsi_post_recv(g, slot);
}

/* Drain the CQ, then arm it and look once more (an entry may have slipped in). */
static void xrnic_gsi_work(struct work_struct *work)
{
	struct xrnic_xr *xr = container_of(work, struct xrnic_xr, gsi.work);
	struct xrnic_gsi *g = &xr->gsi;
	void *cq = xrnic_gsi_at(g, XRNIC_GSI_CQ * PAGE_SIZE);
	struct xrnic_cqe *e, c;
	bool posted = false;
	int round;

	if (!READ_ONCE(g->ready))
		return;
	for (round = 0; round < 2; round++) {
		while ((e = xrnic_ring_next(cq, XRNIC_CQE_SIZE, offsetof(struct xrnic_cqe, flags),
					    XRNIC_GSI_CQ_DEPTH, g->cq_ci))) {
			c = *e;
			g->cq_ci++;
			/* Sends complete in order; their slots free themselves. */
			if (c.flags & XRNIC_CQE_RECV) {
				xrnic_gsi_recv_done(xr, &c);
				posted = true;
			}
		}
		WRITE_ONCE(xrnic_gsi_cq_db(g)->ci, cpu_to_le32(g->cq_ci));
		if (round)
			break;
		WRITE_ONCE(xrnic_gsi_cq_db(g)->arm, cpu_to_le32(++g->arm_seq << 2 | 1));
		mb();	/* the arm before the second look; the device's side is alike */
	}
	if (posted)
		xrnic_gsi_ring(xr->xn);
}

/**
 * xrnic_gsi_event - a completion event of the GSI QP's CQ
 * @xr: the RDMA function
 * @cqn: the CQ the event names
 *
 * Return: true if @cqn is the GSI QP's (its work is scheduled).
 */
bool xrnic_gsi_event(struct xrnic_xr *xr, u32 cqn)
{
	if (!READ_ONCE(xr->gsi.ready) || cqn != xr->gsi.cqn)
		return false;
	schedule_work(&xr->gsi.work);
	return true;
}

/**
 * xrnic_gsi_send - the gsi_send op: one MAD from the GSI QP, at once
 * @xdev: the device
 * @port: its port (1)
 * @ah: where to
 * @mad: the MAD
 * @len: its length, up to 256 bytes
 *
 * Return: 0, -EAGAIN when the send queue is full, -EIO when the device is
 * dead or has no GSI QP, -EINVAL.
 */
int xrnic_gsi_send(struct xr_device *xdev, u32 port, const struct xr_gsi_ah *ah,
		   const void *mad, size_t len)
{
	struct xrnic_xr *xr = to_xr(xdev);
	struct xrnic_dev *xn = xr->xn;
	struct xrnic_gsi *g = &xr->gsi;
	struct xrnic_sqe *w;
	u32 slot, ci;
	int ret = 0;

	if (!READ_ONCE(g->ready) || xrnic_is_dead(xn))
		return -EIO;
	if (port != 1 || len > XRNIC_GSI_SBUF)
		return -EINVAL;
	spin_lock(&g->lock);
	ci = le32_to_cpu(READ_ONCE(xrnic_gsi_qp_db(g)->sq_ci));
	if (g->sq_pi - ci >= XRNIC_GSI_SQ_DEPTH) {
		ret = -EAGAIN;
		goto out;
	}
	slot = g->sq_pi & (XRNIC_GSI_SQ_DEPTH - 1);
	memcpy(xrnic_gsi_at(g, XRNIC_GSI_SBUF_AT(slot)), mad, len);
	w = xrnic_gsi_at(g, XRNIC_GSI_SQ * PAGE_SIZE + slot * XRNIC_SQE_SIZE);
	memset(w, 0, sizeof(*w));
	w->wr_id = cpu_to_le64(slot);
	w->opcode = XRNIC_WR_SEND;
	w->flags = XRNIC_SQE_SIGNALED;
	w->num_sge = 1;
	w->dest_qpn = cpu_to_le32(ah->remote_qpn);
	w->qkey = cpu_to_le32(ah->remote_qkey);
	memcpy(w->ud.av.dgid, ah->dgid, sizeof(w->ud.av.dgid));
	ether_addr_copy(w->ud.av.dmac, ah->dmac);
	w->ud.av.sgid_index = ah->sgid_index;
	w->ud.av.hop_limit = ah->hop_limit;
	w->ud.av.traffic_class = ah->traffic_class;
	w->ud.av.flow_label = cpu_to_le32(ah->flow_label & 0xfffff);
	w->ud.sge[0].addr = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_SBUF_AT(slot)));
	w->ud.sge[0].length = cpu_to_le32(len);
	w->ud.sge[0].lkey = cpu_to_le32(g->lkey);
	g->sq_pi++;
	dma_wmb();
	WRITE_ONCE(xrnic_gsi_qp_db(g)->sq_pi, cpu_to_le32(g->sq_pi));
	xrnic_gsi_ring(xn);
out:
	spin_unlock(&g->lock);
	return ret;
}

static int xrnic_gsi_modify(struct xrnic_xr *xr, u32 mask, u8 state)
{
	struct xrnic_qp_attr a = {
		.qpn = cpu_to_le32(xr->gsi.qpn),
		.attr_mask = cpu_to_le32(mask | XRNIC_QP_STATE),
		.state = state,
	};

	if (mask & XRNIC_QP_PORT)
		a.port_num = 1;
	if (mask & XRNIC_QP_QKEY)
		a.qkey = cpu_to_le32(XRNIC_GSI_QKEY);
	return xrnic_cmd_modify_qp(xr->xn, &a);
}

/* The MR over the buffers, its page list in the allocation's PBL chunk. */
static int xrnic_gsi_reg_mr(struct xrnic_xr *xr)
{
	struct xrnic_dev *xn = xr->xn;
	struct xrnic_gsi *g = &xr->gsi;
	__le64 *pbl = xrnic_gsi_at(g, XRNIC_GSI_PBL * PAGE_SIZE);
	struct xrnic_cmd_reg_mr reg = {
		.pdn = cpu_to_le32(g->pdn),
		.access = cpu_to_le32(XRNIC_ACCESS_LOCAL_WRITE),
		.iova = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_BUFS * PAGE_SIZE)),
		.length = cpu_to_le64(XRNIC_GSI_BUF_PAGES * PAGE_SIZE),
		.npages = cpu_to_le32(XRNIC_GSI_BUF_PAGES),
		.page_shift = PAGE_SHIFT,
		.pbl_mode = XRNIC_PBL_CHAINED,
		.pbl_addr = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_PBL * PAGE_SIZE)),
	};
	u32 rkey;
	int i;

	for (i = 0; i < XRNIC_GSI_BUF_PAGES; i++)
		pbl[i] = cpu_to_le64(xrnic_gsi_dma(g, (XRNIC_GSI_BUFS + i) * PAGE_SIZE));
	g->mr_pages = XRNIC_GSI_BUF_PAGES;
	return xrnic_cmd_reg_mr(xn, &reg, &g->lkey, &rkey);
}

static int xrnic_gsi_create_queues(struct xrnic_xr *xr)
{
	struct xrnic_dev *xn = xr->xn;
	struct xrnic_gsi *g = &xr->gsi;
	struct xrnic_cmd_create_cq cq = {
		.ring_addr = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_CQ * PAGE_SIZE)),
		.depth = cpu_to_le32(XRNIC_GSI_CQ_DEPTH),
		.eq_vector = cpu_to_le16(1),
		.db_addr = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_CQ_DB * PAGE_SIZE)),
	};
	struct xrnic_cmd_create_qp qp = {
		.sq_depth = cpu_to_le32(XRNIC_GSI_SQ_DEPTH),
		.rq_depth = cpu_to_le32(XRNIC_GSI_RQ_DEPTH),
		.qp_type = XRNIC_QPT_GSI,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.sq_addr = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_SQ * PAGE_SIZE)),
		.rq_addr = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_RQ * PAGE_SIZE)),
		.db_addr = cpu_to_le64(xrnic_gsi_dma(g, XRNIC_GSI_QP_DB * PAGE_SIZE)),
	};
	int ret;

	ret = xrnic_cmd_create_cq(xn, &cq, &g->cqn);
	if (ret)
		return ret;
	qp.pdn = cpu_to_le32(g->pdn);
	qp.send_cqn = cpu_to_le32(g->cqn);
	qp.recv_cqn = cpu_to_le32(g->cqn);
	ret = xrnic_cmd_create_qp(xn, &qp, &g->qpn);
	if (ret)
		goto err_destroy_cq;
	ret = xrnic_gsi_modify(xr, XRNIC_QP_PKEY_INDEX | XRNIC_QP_PORT | XRNIC_QP_QKEY,
			       XRNIC_QPS_INIT);
	if (!ret)
		ret = xrnic_gsi_modify(xr, 0, XRNIC_QPS_RTR);
	if (!ret)
		ret = xrnic_gsi_modify(xr, XRNIC_QP_SQ_PSN, XRNIC_QPS_RTS);
	if (ret)
		goto err_destroy_qp;
	return 0;

err_destroy_qp:
	xrnic_cmd_destroy_qp(xn, g->qpn);
err_destroy_cq:
	xrnic_cmd_destroy_cq(xn, g->cqn);
	return ret;
}

/**
 * xrnic_gsi_init - create the port's GSI QP and post its receive buffers
 * @xr: the RDMA function, with its completion event queues
 *
 * A device without a completion vector has no GSI QP (no RDMA CM).
 *
 * Return: 0 or a negative errno; nothing is left behind on failure.
 */
int xrnic_gsi_init(struct xrnic_xr *xr)
{
	struct xrnic_dev *xn = xr->xn;
	struct xrnic_gsi *g = &xr->gsi;
	int ret;
	u32 i;

	spin_lock_init(&g->lock);
	INIT_WORK(&g->work, xrnic_gsi_work);
	if (xn->num_vectors < 2 || xn->eth_vector == 1)
		return 0;
	g->mem = dma_alloc_coherent(&xn->pdev->dev, XRNIC_GSI_SIZE, &g->dma, GFP_KERNEL);
	if (!g->mem)
		return -ENOMEM;
	ret = xrnic_cmd_alloc_pd(xn, &g->pdn);
	if (ret)
		goto err_free;
	ret = xrnic_gsi_reg_mr(xr);
	if (ret)
		goto err_dealloc_pd;
	ret = xrnic_gsi_create_queues(xr);
	if (ret)
		goto err_dereg_mr;
	for (i = 0; i < XRNIC_GSI_RQ_DEPTH; i++)
		xrnic_gsi_post_recv(g, i);
	WRITE_ONCE(xn->own.objs, 1);
	WRITE_ONCE(xn->own.mr_pages, g->mr_pages);
	WRITE_ONCE(g->ready, true);
	/* Arms the CQ. */
	schedule_work(&g->work);
	xrnic_gsi_ring(xn);
	return 0;

err_dereg_mr:
	xrnic_cmd_dereg_mr(xn, g->lkey);
err_dealloc_pd:
	xrnic_cmd_dealloc_pd(xn, g->pdn);
err_free:
	/* Held instead if the device stopped answering (xrnic_dma.c). */
	xrnic_dma_free(xn, g->mem, g->dma, XRNIC_GSI_SIZE, true);
	g->mem = NULL;
	return ret;
}

/**
 * xrnic_gsi_destroy - destroy the GSI QP
 * @xr: the RDMA function, unregistered (the core sends nothing any more)
 */
void xrnic_gsi_destroy(struct xrnic_xr *xr)
{
	struct xrnic_dev *xn = xr->xn;
	struct xrnic_gsi *g = &xr->gsi;

	if (!g->mem)
		return;
	WRITE_ONCE(g->ready, false);
	cancel_work_sync(&g->work);
	xrnic_cmd_destroy_qp(xn, g->qpn);
	xrnic_cmd_destroy_cq(xn, g->cqn);
	/*
	 * No event names the CQ now, but one being handled may have read
	 * ready before it changed and scheduled the work again (which then
	 * does nothing): once its vector's thread is done, that work is the
	 * last.
	 */
	synchronize_irq(pci_irq_vector(xn->pdev, 1));
	cancel_work_sync(&g->work);
	xrnic_cmd_dereg_mr(xn, g->lkey);
	xrnic_cmd_dealloc_pd(xn, g->pdn);
	xrnic_dma_free(xn, g->mem, g->dma, XRNIC_GSI_SIZE, true);
	g->mem = NULL;
	WRITE_ONCE(xn->own.objs, 0);
	WRITE_ONCE(xn->own.mr_pages, 0);
}
