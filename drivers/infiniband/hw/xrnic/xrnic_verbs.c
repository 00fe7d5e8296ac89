// SPDX-License-Identifier: GPL-2.0
/* The operations xrdma_core calls: translate to and from admin commands. */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/xrnic-abi.h>

#include "xrnic_xr.h"

/* The device's encodings are the verbs values the core passes (xr_core.h). */
#define XRNIC_SAME(hw, verbs)	static_assert((int)(hw) == (int)(verbs))
XRNIC_SAME(XRNIC_QP_STATE, XR_QP_STATE);
XRNIC_SAME(XRNIC_QP_ACCESS_FLAGS, XR_QP_ACCESS_FLAGS);
XRNIC_SAME(XRNIC_QP_PKEY_INDEX, XR_QP_PKEY_INDEX);
XRNIC_SAME(XRNIC_QP_PORT, XR_QP_PORT);
XRNIC_SAME(XRNIC_QP_AV, XR_QP_AV);
XRNIC_SAME(XRNIC_QP_PATH_MTU, XR_QP_PATH_MTU);
XRNIC_SAME(XRNIC_QP_TIMEOUT, XR_QP_TIMEOUT);
XRNIC_SAME(XRNIC_QP_RETRY_CNT, XR_QP_RETRY_CNT);
XRNIC_SAME(XRNIC_QP_RNR_RETRY, XR_QP_RNR_RETRY);
XRNIC_SAME(XRNIC_QP_RQ_PSN, XR_QP_RQ_PSN);
XRNIC_SAME(XRNIC_QP_MAX_QP_RD_ATOMIC, XR_QP_MAX_QP_RD_ATOMIC);
XRNIC_SAME(XRNIC_QP_MIN_RNR_TIMER, XR_QP_MIN_RNR_TIMER);
XRNIC_SAME(XRNIC_QP_SQ_PSN, XR_QP_SQ_PSN);
XRNIC_SAME(XRNIC_QP_MAX_DEST_RD_ATOMIC, XR_QP_MAX_DEST_RD_ATOMIC);
XRNIC_SAME(XRNIC_QP_DEST_QPN, XR_QP_DEST_QPN);
XRNIC_SAME(XRNIC_QPT_RC, IB_UVERBS_QPT_RC);
XRNIC_SAME(XRNIC_QPT_UC, IB_UVERBS_QPT_UC);
XRNIC_SAME(XRNIC_QPT_UD, IB_UVERBS_QPT_UD);
XRNIC_SAME(XRNIC_QPS_RESET, XR_QPS_RESET);
XRNIC_SAME(XRNIC_QPS_INIT, XR_QPS_INIT);
XRNIC_SAME(XRNIC_QPS_RTR, XR_QPS_RTR);
XRNIC_SAME(XRNIC_QPS_RTS, XR_QPS_RTS);
XRNIC_SAME(XRNIC_QPS_SQD, XR_QPS_SQD);
XRNIC_SAME(XRNIC_QPS_SQE, XR_QPS_SQE);
XRNIC_SAME(XRNIC_QPS_ERR, XR_QPS_ERR);
XRNIC_SAME(XRNIC_ACCESS_LOCAL_WRITE, IB_UVERBS_ACCESS_LOCAL_WRITE);
XRNIC_SAME(XRNIC_ACCESS_REMOTE_WRITE, IB_UVERBS_ACCESS_REMOTE_WRITE);
XRNIC_SAME(XRNIC_ACCESS_REMOTE_READ, IB_UVERBS_ACCESS_REMOTE_READ);
XRNIC_SAME(XRNIC_ACCESS_REMOTE_ATOMIC, IB_UVERBS_ACCESS_REMOTE_ATOMIC);

static int xrnic_query_device(struct xr_device *xdev,
			      struct xr_device_attr *attr)
{
	struct xrnic_resp_query_device r;
	int ret;

	ret = xrnic_cmd_query_device(to_xrnic(xdev), &r);
	if (ret)
		return ret;
	attr->max_mr_size = le64_to_cpu(r.max_mr_size);
	attr->page_size_cap = le64_to_cpu(r.page_size_cap);
	attr->max_qp_rd_atom = min_t(u32, le16_to_cpu(r.max_qp_rd_atom), U8_MAX);
	attr->vendor_id = le32_to_cpu(r.vendor_id);
	attr->vendor_part_id = le32_to_cpu(r.vendor_part_id);
	attr->hw_ver = le32_to_cpu(r.hw_ver);
	attr->max_qp = le32_to_cpu(r.max_qp);
	attr->max_qp_wr = le32_to_cpu(r.max_qp_wr);
	attr->max_sge = le16_to_cpu(r.max_sge);
	attr->max_cq = le32_to_cpu(r.max_cq);
	attr->max_cqe = le32_to_cpu(r.max_cqe);
	attr->max_mr = le32_to_cpu(r.max_mr);
	attr->max_pd = le32_to_cpu(r.max_pd);
	attr->max_ah = XRNIC_MAX_AH;
	attr->max_srq = XRNIC_MAX_SRQ;
	attr->max_mcast_grp = XRNIC_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = XRNIC_MAX_MCAST_QP_ATTACH;
	attr->max_mw = XRNIC_MAX_MW;
	attr->timestamp_mask = XRNIC_CLOCK_MASK;
	attr->hca_core_clock = XRNIC_CLOCK_KHZ;
	return 0;
}

static int xrnic_query_port(struct xr_device *xdev, u32 port,
			    struct xr_port_attr *attr)
{
	struct xrnic_resp_query_port r;
	int ret;

	if (port < 1 || port > xdev->phys_port_cnt)
		return -EINVAL;
	ret = xrnic_port_attrs(to_xrnic(xdev), &r);
	if (ret)
		return ret;
	attr->state = r.state;
	attr->phys_state = r.phys_state;
	attr->active_mtu = r.active_mtu;
	attr->max_mtu = r.max_mtu;
	attr->active_speed = r.active_speed;
	attr->active_width = r.active_width;
	attr->gid_tbl_len = le16_to_cpu(r.gid_tbl_len);
	attr->max_msg_sz = le32_to_cpu(r.max_msg_sz);
	attr->port_cap_flags = le32_to_cpu(r.port_cap_flags);
	return 0;
}

/* Data doorbells ring vector 1 (or the admin vector of a one-vector device). */
static int xrnic_alloc_ucontext(struct xr_device *xdev, struct xr_ufile *ufile,
				struct xr_udata *udata)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	struct xrnic_alloc_ucontext_resp resp = {
		.sqe_size = XRNIC_SQE_SIZE,
		.rqe_size = XRNIC_RQE_SIZE,
		.cqe_size = XRNIC_CQE_SIZE,
		.max_inline = XRNIC_MAX_INLINE,
		.db_offset = XRNIC_IVSHMEM_DOORBELL,
		.db_value = XRNIC_DEVICE_PEER << 16 | (xn->num_vectors > 1),
	};
	int ret;

	if (xn->db_page) {
		ret = xr_mmap_insert_io(ufile, xn->db_page, PAGE_SIZE, false,
					&resp.db_mmap_key);
		if (ret)
			return ret;
	}
	ret = xr_mmap_insert_io(ufile, pci_resource_start(xn->pdev, XRNIC_MEM_BAR) +
				XRNIC_BAR2_STATUS_OFF, PAGE_SIZE, true,
				&resp.status_mmap_key);
	if (ret)
		return ret;
	ret = xr_mmap_insert(ufile, xn->clock, PAGE_SIZE, true,
			     &resp.clock_mmap_key);
	if (ret)
		return ret;
	return xr_copy_to_udata(udata, &resp, sizeof(resp));
}

static int xrnic_alloc_pd(struct xr_device *xdev, struct xr_pd *pd)
{
	return xrnic_cmd_alloc_pd(to_xrnic(xdev), &pd->pdn);
}

static int xrnic_dealloc_pd(struct xr_device *xdev, struct xr_pd *pd)
{
	return xrnic_cmd_dealloc_pd(to_xrnic(xdev), pd->pdn);
}

static void xrnic_umem_release(void *umem)
{
	xr_umem_release(umem);
}

/* Pinned for ever: nobody else gets pages the device may write. */
static void xrnic_umem_abandon(void *umem)
{
	xr_umem_abandon(umem);
}

static size_t xrnic_umem_bytes(void *umem)
{
	return ((struct xr_umem *)umem)->npages << PAGE_SHIFT;
}

/* How an MR's pinned pages that the device may still use are held. */
const struct xrnic_held_ops xrnic_umem_held = {
	.release = xrnic_umem_release,
	.abandon = xrnic_umem_abandon,
	.bytes = xrnic_umem_bytes,
};

/*
 * An MR whose REG_MR or DEREG_MR failed: while the device may still use
 * memory it was given, it keeps the MR's pages pinned (mr->umem becomes
 * NULL, so that the core leaves them alone) until it completes a reset;
 * otherwise the core unpins them.
 */
static void xrnic_hold_umem(struct xrnic_dev *xn, struct xr_mr *mr)
{
	if (xrnic_dma_hold(xn, mr->umem, &xrnic_umem_held))
		mr->umem = NULL;
}

/* The device reads the MR's pages from the command's page list. */
static int xrnic_reg_mr(struct xr_device *xdev, struct xr_mr *mr)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	const struct xr_umem *umem = mr->umem;
	struct xrnic_cmd_reg_mr reg = {
		.pdn = cpu_to_le32(mr->pd->pdn),
		.access = cpu_to_le32(mr->access),
		.iova = cpu_to_le64(mr->iova),
		.length = cpu_to_le64(mr->length),
		.npages = cpu_to_le32(umem->npages),
	};
	int ret;

	ret = xrnic_reg_mr_pages(xn, &reg, umem->dma, umem->npages, &mr->lkey, &mr->rkey);
	if (ret)
		xrnic_hold_umem(xn, mr);
	return ret;
}

/* A device that did not answer may still use the pages: see xrnic_dma.c. */
static int xrnic_dereg_mr(struct xr_device *xdev, struct xr_mr *mr)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	int ret = xrnic_cmd_dereg_mr(xn, mr->lkey);

	/* Busy: windows are bound to it, and it stays as it was. */
	if (ret && ret != -EBUSY)
		xrnic_hold_umem(xn, mr);
	return ret;
}

static int xrnic_alloc_mw(struct xr_device *xdev, struct xr_mw *mw)
{
	return xrnic_cmd_alloc_mw(to_xrnic(xdev), mw->pd->pdn, mw->type, &mw->rkey);
}

static int xrnic_dealloc_mw(struct xr_device *xdev, struct xr_mw *mw)
{
	return xrnic_cmd_dealloc_mw(to_xrnic(xdev), mw->rkey);
}

/*
 * A zeroed ring of @depth entries, mapped for the device and user space;
 * with @with_db a page for the doorbell record follows the entries.
 */
static int xrnic_ring_alloc(struct xrnic_dev *xn, struct xr_ufile *ufile,
			    struct xrnic_ring *ring, u32 depth, u32 entry_size,
			    bool with_db)
{
	struct device *dma = &xn->pdev->dev;
	int ret;

	ring->size = PAGE_ALIGN((size_t)depth * entry_size);
	ring->db_offset = with_db ? ring->size : 0;
	if (with_db)
		ring->size += PAGE_SIZE;
	/* Charged to the caller's memory cgroup, like its other objects. */
	ring->buf = alloc_pages_exact(ring->size,
				      GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!ring->buf)
		return -ENOMEM;
	ring->dma = dma_map_single(dma, ring->buf, ring->size,
				   DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dma, ring->dma)) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = xr_mmap_insert(ufile, ring->buf, ring->size, false, &ring->mmap_key);
	if (ret)
		goto err_unmap;
	return 0;

err_unmap:
	dma_unmap_single(dma, ring->dma, ring->size, DMA_BIDIRECTIONAL);
err_free:
	free_pages_exact(ring->buf, ring->size);
	return ret;
}

/*
 * The pages live on while user space still maps them, and are held while
 * a device that stopped answering may still use them (xrnic_dma.c).
 */
/*
 * @destroyed: the result of the command that made the device drop the ring
 * (0 if it never had it).  A live device that refused it may still write
 * the ring: it is never freed then.
 */
static void xrnic_ring_free(struct xrnic_dev *xn, struct xr_ufile *ufile,
			    struct xrnic_ring *ring, int destroyed)
{
	xr_mmap_remove(ufile, ring->mmap_key);
	if (destroyed && !xrnic_is_dead(xn)) {
		dev_err(&xn->pdev->dev,
			"the device kept a ring it was told to drop (%d): leaking %zu bytes\n",
			destroyed, ring->size);
		return;
	}
	xrnic_dma_free(xn, ring->buf, ring->dma, ring->size, false);
}

static int xrnic_create_cq(struct xr_device *xdev, struct xr_cq *cq,
			   struct xr_udata *udata)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	struct xrnic_create_cq_resp resp = {};
	u32 depth = roundup_pow_of_two(max_t(u32, cq->cqe, 2));
	struct xrnic_cmd_create_cq create = {};
	struct xrnic_cq *xcq;
	int destroyed = 0;
	int ret;

	if (depth > xdev->attr.max_cqe)
		return -EINVAL;
	xcq = kzalloc(sizeof(*xcq), GFP_KERNEL_ACCOUNT);
	if (!xcq)
		return -ENOMEM;
	ret = xrnic_ring_alloc(xn, cq->uobj.ufile, &xcq->ring, depth,
			       XRNIC_CQE_SIZE, true);
	if (ret)
		goto err_free;
	/*
	 * Completion vectors follow the admin vector; a device with only that
	 * one has no completion events.
	 */
	create.ring_addr = cpu_to_le64(xcq->ring.dma);
	create.depth = cpu_to_le32(depth);
	create.eq_vector = cpu_to_le16(xn->num_vectors > 1 ?
				       1 + cq->comp_vector : 0);
	create.db_addr = cpu_to_le64(xcq->ring.dma + xcq->ring.db_offset);
	ret = xrnic_cmd_create_cq(xn, &create, &cq->cqn);
	if (ret)
		goto err_ring;
	resp.ring_mmap_key = xcq->ring.mmap_key;
	resp.ring_size = xcq->ring.size;
	resp.cqn = cq->cqn;
	resp.db_offset = xcq->ring.db_offset;
	ret = xr_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		goto err_destroy;
	ret = xa_insert(&to_xr(xdev)->cqs, cq->cqn, cq, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	cq->cqe = depth;
	cq->priv = xcq;
	return 0;

err_destroy:
	destroyed = xrnic_cmd_destroy_cq(xn, cq->cqn);
err_ring:
	xrnic_ring_free(xn, cq->uobj.ufile, &xcq->ring, destroyed);
err_free:
	kfree(xcq);
	return ret;
}

static int xrnic_destroy_cq(struct xr_device *xdev, struct xr_cq *cq)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	struct xrnic_cq *xcq = cq->priv;
	int ret;

	/* Under the lock: a completion event being reported ends first. */
	xa_erase(&to_xr(xdev)->cqs, cq->cqn);
	ret = xrnic_cmd_destroy_cq(xn, cq->cqn);
	xrnic_ring_free(xn, cq->uobj.ufile, &xcq->ring, ret);
	kfree(xcq);
	return ret;
}

static int xrnic_create_qp(struct xr_device *xdev, struct xr_qp *qp,
			   struct xr_udata *udata)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	struct xrnic_create_qp_resp resp = {};
	struct xrnic_cmd_create_qp create = {};
	struct xr_qp_cap *cap = &qp->cap;
	struct xrnic_qp *xqp;
	int destroyed = 0;
	int ret;

	if (cap->max_send_sge > XRNIC_MAX_SGE ||
	    cap->max_recv_sge > XRNIC_MAX_SGE ||
	    cap->max_inline_data > XRNIC_MAX_INLINE)
		return -EINVAL;
	cap->max_send_wr = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 2));
	if (!qp->srq)
		cap->max_recv_wr = roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 2));
	if (cap->max_send_wr > xdev->attr.max_qp_wr ||
	    cap->max_recv_wr > xdev->attr.max_qp_wr)
		return -EINVAL;

	xqp = kzalloc(sizeof(*xqp), GFP_KERNEL_ACCOUNT);
	if (!xqp)
		return -ENOMEM;
	ret = xrnic_ring_alloc(xn, qp->uobj.ufile, &xqp->sq, cap->max_send_wr,
			       XRNIC_SQE_SIZE, true);
	if (ret)
		goto err_free;
	/* With an SRQ there is no receive ring (and no mapping of one). */
	if (!qp->srq) {
		ret = xrnic_ring_alloc(xn, qp->uobj.ufile, &xqp->rq, cap->max_recv_wr,
				       XRNIC_RQE_SIZE, false);
		if (ret)
			goto err_free_sq;
	}

	create.pdn = cpu_to_le32(qp->pd->pdn);
	create.send_cqn = cpu_to_le32(qp->send_cq->cqn);
	create.recv_cqn = cpu_to_le32(qp->recv_cq->cqn);
	create.sq_depth = cpu_to_le32(cap->max_send_wr);
	create.rq_depth = cpu_to_le32(qp->srq ? 0 : cap->max_recv_wr);
	create.qp_type = qp->qp_type;	/* the IB values (xrnic_admin.h) */
	create.max_send_sge = cap->max_send_sge;
	create.max_recv_sge = qp->srq ? 0 : cap->max_recv_sge;
	create.srqn = cpu_to_le32(qp->srq ? qp->srq->srqn : 0);
	create.sq_addr = cpu_to_le64(xqp->sq.dma);
	create.rq_addr = cpu_to_le64(xqp->rq.dma);
	create.max_inline = cpu_to_le32(cap->max_inline_data);
	create.db_addr = cpu_to_le64(xqp->sq.dma + xqp->sq.db_offset);
	ret = xrnic_cmd_create_qp(xn, &create, &qp->qpn);
	if (ret)
		goto err_free_rq;

	resp.sq_mmap_key = xqp->sq.mmap_key;
	resp.rq_mmap_key = xqp->rq.mmap_key;
	resp.sq_size = xqp->sq.size;
	resp.rq_size = xqp->rq.size;
	resp.db_offset = xqp->sq.db_offset;
	ret = xr_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		goto err_destroy;
	ret = xa_insert(&to_xr(xdev)->qps, qp->qpn, qp, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	qp->priv = xqp;
	return 0;

err_destroy:
	destroyed = xrnic_cmd_destroy_qp(xn, qp->qpn);
err_free_rq:
	if (!qp->srq)
		xrnic_ring_free(xn, qp->uobj.ufile, &xqp->rq, destroyed);
err_free_sq:
	xrnic_ring_free(xn, qp->uobj.ufile, &xqp->sq, destroyed);
err_free:
	kfree(xqp);
	return ret;
}

static int xrnic_destroy_qp(struct xr_device *xdev, struct xr_qp *qp)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	struct xrnic_qp *xqp = qp->priv;
	int ret;

	/* Under the lock: an async event being reported ends first. */
	xa_erase(&to_xr(xdev)->qps, qp->qpn);
	ret = xrnic_cmd_destroy_qp(xn, qp->qpn);
	if (!qp->srq)
		xrnic_ring_free(xn, qp->uobj.ufile, &xqp->rq, ret);
	xrnic_ring_free(xn, qp->uobj.ufile, &xqp->sq, ret);
	kfree(xqp);
	return ret;
}

/* The device wants the fields of attributes not in the mask left zero. */
static int xrnic_modify_qp(struct xr_device *xdev, struct xr_qp *qp,
			   const struct xr_qp_attr *attr, u32 mask)
{
	struct xrnic_qp_attr a = {};

	mask &= XRNIC_QP_ATTR_ALL;
	a.qpn = cpu_to_le32(qp->qpn);
	a.attr_mask = cpu_to_le32(mask);
	if (mask & XRNIC_QP_STATE)
		a.state = attr->qp_state;
	if (mask & XRNIC_QP_ACCESS_FLAGS)
		a.access_flags = cpu_to_le16(attr->qp_access_flags);
	if (mask & XRNIC_QP_PORT)
		a.port_num = attr->port_num;
	if (mask & XRNIC_QP_AV) {
		memcpy(a.dgid, attr->dgid, sizeof(a.dgid));
		a.sgid_index = attr->sgid_index;
		a.hop_limit = attr->hop_limit;
		a.traffic_class = attr->traffic_class;
		memcpy(a.dmac, attr->dmac, sizeof(a.dmac));
	}
	if (mask & XRNIC_QP_PATH_MTU)
		a.path_mtu = attr->path_mtu;
	if (mask & XRNIC_QP_TIMEOUT)
		a.timeout = attr->timeout;
	if (mask & XRNIC_QP_RETRY_CNT)
		a.retry_cnt = attr->retry_cnt;
	if (mask & XRNIC_QP_RNR_RETRY)
		a.rnr_retry = attr->rnr_retry;
	if (mask & XRNIC_QP_RQ_PSN)
		a.rq_psn = cpu_to_le32(attr->rq_psn);
	if (mask & XRNIC_QP_MAX_QP_RD_ATOMIC)
		a.max_rd_atomic = attr->max_rd_atomic;
	if (mask & XRNIC_QP_MIN_RNR_TIMER)
		a.min_rnr_timer = attr->min_rnr_timer;
	if (mask & XRNIC_QP_SQ_PSN)
		a.sq_psn = cpu_to_le32(attr->sq_psn);
	if (mask & XRNIC_QP_MAX_DEST_RD_ATOMIC)
		a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & XRNIC_QP_DEST_QPN)
		a.dest_qpn = cpu_to_le32(attr->dest_qp_num);
	if (mask & XRNIC_QP_QKEY)
		a.qkey = cpu_to_le32(attr->qkey);
	return xrnic_cmd_modify_qp(to_xrnic(xdev), &a);
}

static int xrnic_query_qp(struct xr_device *xdev, struct xr_qp *qp,
			  struct xr_qp_attr *attr)
{
	struct xrnic_qp_attr a;
	int ret;

	ret = xrnic_cmd_query_qp(to_xrnic(xdev), qp->qpn, &a);
	if (ret)
		return ret;
	attr->qp_state = a.state;
	attr->port_num = a.port_num;
	attr->sq_psn = le32_to_cpu(a.sq_psn);
	if (qp->qp_type == IB_UVERBS_QPT_UD) {
		attr->qkey = le32_to_cpu(a.qkey);
		return 0;
	}
	attr->path_mtu = a.path_mtu;
	attr->rq_psn = le32_to_cpu(a.rq_psn);
	attr->dest_qp_num = le32_to_cpu(a.dest_qpn);
	attr->qp_access_flags = le16_to_cpu(a.access_flags);
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	memcpy(attr->dgid, a.dgid, sizeof(attr->dgid));
	attr->sgid_index = a.sgid_index;
	attr->hop_limit = a.hop_limit;
	attr->traffic_class = a.traffic_class;
	memcpy(attr->dmac, a.dmac, sizeof(attr->dmac));
	return 0;
}

static int xrnic_create_srq(struct xr_device *xdev, struct xr_srq *srq,
			    struct xr_udata *udata)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	struct xrnic_create_srq_resp resp = {};
	struct xrnic_cmd_create_srq create = {};
	struct xrnic_srq *xsrq;
	int destroyed = 0;
	int ret;

	if (srq->max_sge > XRNIC_MAX_SGE)
		return -EINVAL;
	srq->max_wr = roundup_pow_of_two(max_t(u32, srq->max_wr, 2));
	if (srq->max_wr > xdev->attr.max_qp_wr)
		return -EINVAL;
	xsrq = kzalloc(sizeof(*xsrq), GFP_KERNEL_ACCOUNT);
	if (!xsrq)
		return -ENOMEM;
	ret = xrnic_ring_alloc(xn, srq->uobj.ufile, &xsrq->ring, srq->max_wr,
			       XRNIC_RQE_SIZE, true);
	if (ret)
		goto err_free;
	create.pdn = cpu_to_le32(srq->pd->pdn);
	create.depth = cpu_to_le32(srq->max_wr);
	create.ring_addr = cpu_to_le64(xsrq->ring.dma);
	create.db_addr = cpu_to_le64(xsrq->ring.dma + xsrq->ring.db_offset);
	create.max_sge = srq->max_sge;
	ret = xrnic_cmd_create_srq(xn, &create, &srq->srqn);
	if (ret)
		goto err_ring;
	resp.ring_mmap_key = xsrq->ring.mmap_key;
	resp.ring_size = xsrq->ring.size;
	resp.db_offset = xsrq->ring.db_offset;
	ret = xr_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		goto err_destroy;
	ret = xa_insert(&to_xr(xdev)->srqs, srq->srqn, srq, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	srq->priv = xsrq;
	return 0;

err_destroy:
	destroyed = xrnic_cmd_srq(xn, XRNIC_ADMIN_DESTROY_SRQ, srq->srqn, 0, NULL);
err_ring:
	xrnic_ring_free(xn, srq->uobj.ufile, &xsrq->ring, destroyed);
err_free:
	kfree(xsrq);
	return ret;
}

static int xrnic_modify_srq(struct xr_device *xdev, struct xr_srq *srq, u32 limit)
{
	return xrnic_cmd_srq(to_xrnic(xdev), XRNIC_ADMIN_MODIFY_SRQ, srq->srqn, limit,
			     NULL);
}

/*
 * A new ring, its mapping key written where the request says before the
 * device moves to it: once it has, only the old ring is freed.  The old
 * mapping's pages live on until user space unmaps them.
 */
static int xrnic_resize_srq(struct xr_device *xdev, struct xr_srq *srq, u32 max_wr,
			    struct xr_udata *udata)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	struct xrnic_srq *xsrq = srq->priv;
	struct xrnic_cmd_resize_srq resize = {};
	struct xrnic_resize_srq_resp resp = {};
	struct xrnic_modify_srq req;
	struct xrnic_ring ring;
	u32 depth;
	int ret;

	ret = xr_copy_from_udata(&req, udata, sizeof(req));
	if (ret)
		return ret;
	depth = roundup_pow_of_two(max_t(u32, max_wr, 2));
	if (depth > xdev->attr.max_qp_wr)
		return -EINVAL;
	ret = xrnic_ring_alloc(xn, srq->uobj.ufile, &ring, depth, XRNIC_RQE_SIZE, true);
	if (ret)
		return ret;
	resp.ring_mmap_key = ring.mmap_key;
	resp.ring_size = ring.size;
	resp.db_offset = ring.db_offset;
	resp.max_wr = depth;
	if (copy_to_user(u64_to_user_ptr(req.resp_addr), &resp, sizeof(resp))) {
		ret = -EFAULT;
		goto err_ring;
	}
	resize.srqn = cpu_to_le32(srq->srqn);
	resize.depth = cpu_to_le32(depth);
	resize.ring_addr = cpu_to_le64(ring.dma);
	resize.db_addr = cpu_to_le64(ring.dma + ring.db_offset);
	ret = xrnic_cmd_resize_srq(xn, &resize);
	if (ret)
		goto err_ring;
	xrnic_ring_free(xn, srq->uobj.ufile, &xsrq->ring, 0);
	xsrq->ring = ring;
	srq->max_wr = depth;
	return 0;

err_ring:
	xrnic_ring_free(xn, srq->uobj.ufile, &ring, 0);
	return ret;
}

static int xrnic_query_srq(struct xr_device *xdev, struct xr_srq *srq, u32 *limit)
{
	return xrnic_cmd_srq(to_xrnic(xdev), XRNIC_ADMIN_QUERY_SRQ, srq->srqn, 0, limit);
}

static int xrnic_destroy_srq(struct xr_device *xdev, struct xr_srq *srq)
{
	struct xrnic_dev *xn = to_xrnic(xdev);
	struct xrnic_srq *xsrq = srq->priv;
	int ret;

	/* Under the lock: an async event being reported ends first. */
	xa_erase(&to_xr(xdev)->srqs, srq->srqn);
	ret = xrnic_cmd_srq(xn, XRNIC_ADMIN_DESTROY_SRQ, srq->srqn, 0, NULL);
	xrnic_ring_free(xn, srq->uobj.ufile, &xsrq->ring, ret);
	kfree(xsrq);
	return ret;
}

static int xrnic_attach_mcast(struct xr_device *xdev, struct xr_qp *qp, const u8 *gid)
{
	return xrnic_cmd_mcast(to_xrnic(xdev), XRNIC_ADMIN_ATTACH_MCAST, qp->qpn, gid);
}

static int xrnic_detach_mcast(struct xr_device *xdev, struct xr_qp *qp, const u8 *gid)
{
	return xrnic_cmd_mcast(to_xrnic(xdev), XRNIC_ADMIN_DETACH_MCAST, qp->qpn, gid);
}

/* The device keeps no address handles: its library gets the next hop. */
static int xrnic_create_ah(struct xr_device *xdev, struct xr_ah *ah,
			   struct xr_udata *udata)
{
	struct xrnic_create_ah_resp resp = {};

	memcpy(resp.dmac, ah->dmac, sizeof(resp.dmac));
	return xr_copy_to_udata(udata, &resp, sizeof(resp));
}

static int xrnic_set_gid(struct xr_device *xdev, u32 port, u32 index,
			 const u8 *gid)
{
	return xrnic_cmd_set_gid(to_xrnic(xdev), port, index, gid);
}

static int xrnic_query_stats(struct xr_device *xdev, u64 *values)
{
	return xrnic_read_stats(to_xrnic(xdev), values);
}

const struct xr_device_ops xrnic_dev_ops = {
	.owner = THIS_MODULE,
	.query_device = xrnic_query_device,
	.query_port = xrnic_query_port,
	.alloc_ucontext = xrnic_alloc_ucontext,
	.alloc_pd = xrnic_alloc_pd,
	.dealloc_pd = xrnic_dealloc_pd,
	.reg_mr = xrnic_reg_mr,
	.dereg_mr = xrnic_dereg_mr,
	.alloc_mw = xrnic_alloc_mw,
	.dealloc_mw = xrnic_dealloc_mw,
	.create_cq = xrnic_create_cq,
	.destroy_cq = xrnic_destroy_cq,
	.create_qp = xrnic_create_qp,
	.destroy_qp = xrnic_destroy_qp,
	.modify_qp = xrnic_modify_qp,
	.query_qp = xrnic_query_qp,
	.create_srq = xrnic_create_srq,
	.modify_srq = xrnic_modify_srq,
	.resize_srq = xrnic_resize_srq,
	.query_srq = xrnic_query_srq,
	.destroy_srq = xrnic_destroy_srq,
	.create_ah = xrnic_create_ah,
	.attach_mcast = xrnic_attach_mcast,
	.detach_mcast = xrnic_detach_mcast,
	.set_gid = xrnic_set_gid,
	.query_stats = xrnic_query_stats,
	.gsi_send = xrnic_gsi_send,
	.counter_names = xrnic_counter_names,
	.num_counters = XRNIC_NUM_COUNTERS,
	.uverbs_abi_ver = XRNIC_UVERBS_ABI_VERSION,
};
