// SPDX-License-Identifier: GPL-2.0
/*
 * User CQs and QPs on Linux's ib_core: rings in kernel memory that the
 * device and the context share (xrnic_ib_ring_alloc()), the device's
 * objects made and destroyed by admin command, each in a table that the
 * device's events look it up in.  The provider posts and polls in user
 * space, as on xrdma_core.  A destroy frees what the driver holds whatever
 * the device answered, as ib_core expects (a refusing live device keeps its
 * rings for ever; a dead one keeps nothing).
 */
#include <linux/capability.h>
#include <linux/log2.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/xrnic-abi.h>

#include "xrnic_ib.h"

static struct ib_ucontext *xrnic_ib_uctx(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct xrnic_ib_ucontext, ibuc)->ibuc;
}

/**
 * xrnic_ib_create_cq - create a user CQ
 * @ibcq: ib_core's CQ, in struct xrnic_ib_cq
 * @attr: its depth and completion vector
 * @udata: the provider's answer (struct xrnic_create_cq_resp)
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP for a kernel CQ.
 */
int xrnic_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		       struct ib_udata *udata)
{
	struct xrnic_ib_cq *cq = container_of(ibcq, struct xrnic_ib_cq, ibcq);
	struct xrnic_ib *ib = to_xrnic_ib(ibcq->device);
	u32 depth = roundup_pow_of_two(max_t(u32, attr->cqe, 2));
	struct xrnic_create_cq_resp resp = {};
	struct xrnic_cmd_create_cq create = {};
	struct xrnic_dev *xn = ib->xn;
	int destroyed = 0;
	int ret;

	if (!udata)
		return -EOPNOTSUPP;
	if (attr->flags || udata->inlen)
		return -EINVAL;
	if (attr->cqe > ib->ibdev.attrs.max_cqe || depth > ib->ibdev.attrs.max_cqe)
		return -EINVAL;
	ret = xrnic_ib_ring_alloc(xrnic_ib_uctx(udata), &cq->ring, depth, XRNIC_CQE_SIZE,
				  true, &resp.ring_mmap_key, &resp.ring_size);
	if (ret)
		return ret;
	/* A device with the admin vector alone has no completion events. */
	create.ring_addr = cpu_to_le64(cq->ring.m->dma);
	create.depth = cpu_to_le32(depth);
	create.eq_vector = cpu_to_le16(xn->num_vectors > 1 ? 1 + attr->comp_vector : 0);
	create.db_addr = cpu_to_le64(cq->ring.m->dma + cq->ring.db_offset);
	ret = xrnic_cmd_create_cq(xn, &create, &cq->cqn);
	if (ret)
		goto err_ring;
	resp.cqn = cq->cqn;
	resp.db_offset = cq->ring.db_offset;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_destroy;
	ret = xa_insert(&ib->cqs, cq->cqn, cq, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	ibcq->cqe = depth;
	return 0;

err_destroy:
	destroyed = xrnic_cmd_destroy_cq(xn, cq->cqn);
err_ring:
	xrnic_ib_ring_free(&cq->ring, destroyed);
	return ret;
}

/**
 * xrnic_ib_destroy_cq - destroy a user CQ
 * @ibcq: the CQ, which no QP uses any more
 * @udata: unused
 *
 * Return: 0.
 */
int xrnic_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct xrnic_ib_cq *cq = container_of(ibcq, struct xrnic_ib_cq, ibcq);
	struct xrnic_ib *ib = to_xrnic_ib(ibcq->device);

	/* Under the lock: a completion event being reported ends first. */
	xa_erase(&ib->cqs, cq->cqn);
	xrnic_ib_ring_free(&cq->ring, xrnic_cmd_destroy_cq(ib->xn, cq->cqn));
	return 0;
}

static int xrnic_ib_qp_caps_ok(struct xrnic_ib *ib, struct ib_qp_cap *cap)
{
	if (cap->max_send_sge > XRNIC_MAX_SGE || cap->max_recv_sge > XRNIC_MAX_SGE ||
	    cap->max_inline_data > XRNIC_MAX_INLINE)
		return -EINVAL;
	cap->max_send_wr = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 2));
	cap->max_recv_wr = roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 2));
	if (cap->max_send_wr > ib->ibdev.attrs.max_qp_wr ||
	    cap->max_recv_wr > ib->ibdev.attrs.max_qp_wr)
		return -EINVAL;
	return 0;
}

/**
 * xrnic_ib_create_qp - create a user RC, UC or UD QP
 * @ibqp: ib_core's QP, in struct xrnic_ib_qp
 * @init: its type, CQs and capacities (the granted ones written back)
 * @udata: the provider's answer (struct xrnic_create_qp_resp)
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP for a kernel QP, one on an
 * SRQ, or creation flags.
 */
int xrnic_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		       struct ib_udata *udata)
{
	struct xrnic_ib_qp *qp = container_of(ibqp, struct xrnic_ib_qp, ibqp);
	struct xrnic_ib *ib = to_xrnic_ib(ibqp->device);
	struct xrnic_create_qp_resp resp = {};
	struct xrnic_cmd_create_qp create = {};
	struct xrnic_dev *xn = ib->xn;
	struct ib_ucontext *ibuc;
	int destroyed = 0;
	u32 qpn;
	int ret;

	if (!udata || init->srq || init->create_flags)
		return -EOPNOTSUPP;
	if (udata->inlen)
		return -EINVAL;
	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	    init->qp_type != IB_QPT_UD)
		return -EOPNOTSUPP;
	ret = xrnic_ib_qp_caps_ok(ib, &init->cap);
	if (ret)
		return ret;
	ibuc = xrnic_ib_uctx(udata);
	ret = xrnic_ib_ring_alloc(ibuc, &qp->sq, init->cap.max_send_wr, XRNIC_SQE_SIZE, true,
				  &resp.sq_mmap_key, &resp.sq_size);
	if (ret)
		return ret;
	ret = xrnic_ib_ring_alloc(ibuc, &qp->rq, init->cap.max_recv_wr, XRNIC_RQE_SIZE, false,
				  &resp.rq_mmap_key, &resp.rq_size);
	if (ret)
		goto err_free_sq;

	create.pdn = cpu_to_le32(xrnic_ib_pdn(ibqp->pd));
	create.send_cqn = cpu_to_le32(container_of(init->send_cq, struct xrnic_ib_cq, ibcq)->cqn);
	create.recv_cqn = cpu_to_le32(container_of(init->recv_cq, struct xrnic_ib_cq, ibcq)->cqn);
	create.sq_depth = cpu_to_le32(init->cap.max_send_wr);
	create.rq_depth = cpu_to_le32(init->cap.max_recv_wr);
	create.qp_type = init->qp_type;	/* the IB values (xrnic_admin.h) */
	create.max_send_sge = init->cap.max_send_sge;
	create.max_recv_sge = init->cap.max_recv_sge;
	create.sq_addr = cpu_to_le64(qp->sq.m->dma);
	create.rq_addr = cpu_to_le64(qp->rq.m->dma);
	create.max_inline = cpu_to_le32(init->cap.max_inline_data);
	create.db_addr = cpu_to_le64(qp->sq.m->dma + qp->sq.db_offset);
	ret = xrnic_cmd_create_qp(xn, &create, &qpn);
	if (ret)
		goto err_free_rq;
	ibqp->qp_num = qpn;
	qp->cap = init->cap;
	qp->state = IB_QPS_RESET;
	resp.db_offset = qp->sq.db_offset;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_destroy;
	ret = xa_insert(&ib->qps, qpn, qp, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	return 0;

err_destroy:
	destroyed = xrnic_cmd_destroy_qp(xn, qpn);
err_free_rq:
	xrnic_ib_ring_free(&qp->rq, destroyed);
err_free_sq:
	xrnic_ib_ring_free(&qp->sq, destroyed);
	return ret;
}

/* The device's address vector from ib_core's: RoCE, with a GRH. */
static int xrnic_ib_av(const struct rdma_ah_attr *ah, struct xrnic_qp_attr *a)
{
	const struct ib_global_route *grh;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE || !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	memcpy(a->dgid, grh->dgid.raw, sizeof(a->dgid));
	a->sgid_index = grh->sgid_index;
	a->hop_limit = grh->hop_limit;
	a->traffic_class = grh->traffic_class;
	memcpy(a->dmac, ah->roce.dmac, sizeof(a->dmac));
	return 0;
}

/*
 * The values of the attributes in @mask, as the device takes them (the
 * checks xrdma_core makes, so that both cores answer alike).
 */
static int xrnic_ib_qp_attr_ok(struct ib_qp *ibqp, const struct ib_qp_attr *attr, int mask)
{
	u32 max_rd = ibqp->device->attrs.max_qp_rd_atom;

	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_LOCAL_WRITE)))
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > max_rd)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic > max_rd)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > 0xffffff)
		return -EINVAL;
	/*
	 * A controlled Q_Key (bit 31) would let a user's datagrams pass for the
	 * kernel's management traffic: only CAP_NET_RAW may set one, as Linux
	 * (6.4 on) rules.
	 */
	if ((mask & IB_QP_QKEY) && (attr->qkey & 0x80000000) && !capable(CAP_NET_RAW))
		return -EPERM;
	return 0;
}

/**
 * xrnic_ib_modify_qp - move a QP through its states, as the IBA allows
 * @ibqp: the QP
 * @attr: the attributes in @mask
 * @mask: IB_QP_* (the device's XRNIC_QP_* are the same bits)
 * @udata: no driver data
 *
 * Return: 0 or a negative errno: -EINVAL for a transition or attribute the
 * IBA does not allow (ib_modify_qp_is_ok()) or a value the device does not
 * take, -EPERM for a controlled Q_Key without CAP_NET_RAW.
 */
int xrnic_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		       struct ib_udata *udata)
{
	struct xrnic_ib_qp *qp = container_of(ibqp, struct xrnic_ib_qp, ibqp);
	enum ib_qp_state cur, new;
	struct xrnic_qp_attr a = {};
	int ret;

	if (udata && udata->inlen)
		return -EINVAL;
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask))
		return -EINVAL;
	ret = xrnic_ib_qp_attr_ok(ibqp, attr, mask);
	if (ret)
		return ret;
	/* The device wants the fields of attributes not in the mask left zero. */
	mask &= XRNIC_QP_ATTR_ALL;
	a.qpn = cpu_to_le32(ibqp->qp_num);
	a.attr_mask = cpu_to_le32(mask);
	if (mask & IB_QP_STATE)
		a.state = new;
	/* Local write is always allowed; the device takes the remote bits. */
	if (mask & IB_QP_ACCESS_FLAGS)
		a.access_flags = cpu_to_le16(attr->qp_access_flags & ~IB_ACCESS_LOCAL_WRITE);
	if (mask & IB_QP_PORT)
		a.port_num = attr->port_num;
	if (mask & IB_QP_AV) {
		ret = xrnic_ib_av(&attr->ah_attr, &a);
		if (ret)
			return ret;
	}
	if (mask & IB_QP_PATH_MTU)
		a.path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a.timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a.retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a.rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a.rq_psn = cpu_to_le32(attr->rq_psn & 0xffffff);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a.sq_psn = cpu_to_le32(attr->sq_psn & 0xffffff);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a.dest_qpn = cpu_to_le32(attr->dest_qp_num);
	if (mask & IB_QP_QKEY)
		a.qkey = cpu_to_le32(attr->qkey);
	ret = xrnic_cmd_modify_qp(to_xrnic_ib(ibqp->device)->xn, &a);
	if (!ret && (mask & IB_QP_STATE))
		qp->state = new;
	return ret;
}

/**
 * xrnic_ib_query_qp - a QP's attributes, as the device holds them
 * @ibqp: the QP
 * @attr: out
 * @mask: the attributes asked for (all are answered)
 * @init: out: its type and capacities
 *
 * Return: 0 or a negative errno.
 */
int xrnic_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_qp_init_attr *init)
{
	struct xrnic_ib_qp *qp = container_of(ibqp, struct xrnic_ib_qp, ibqp);
	struct xrnic_qp_attr a;
	int ret;

	ret = xrnic_cmd_query_qp(to_xrnic_ib(ibqp->device)->xn, ibqp->qp_num, &a);
	if (ret)
		return ret;
	attr->qp_state = a.state;
	attr->cur_qp_state = a.state;
	attr->port_num = a.port_num;
	attr->sq_psn = le32_to_cpu(a.sq_psn);
	attr->qkey = le32_to_cpu(a.qkey);
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
	if (ibqp->qp_type != IB_QPT_UD) {
		attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&attr->ah_attr, a.port_num);
		rdma_ah_set_grh(&attr->ah_attr, NULL, 0, a.sgid_index, a.hop_limit,
				a.traffic_class);
		rdma_ah_set_dgid_raw(&attr->ah_attr, a.dgid);
		memcpy(attr->ah_attr.roce.dmac, a.dmac, ETH_ALEN);
	}
	attr->cap = qp->cap;
	init->cap = qp->cap;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	return 0;
}

/**
 * xrnic_ib_destroy_qp - destroy a user QP
 * @ibqp: the QP
 * @udata: unused
 *
 * Return: 0.
 */
int xrnic_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct xrnic_ib_qp *qp = container_of(ibqp, struct xrnic_ib_qp, ibqp);
	struct xrnic_ib *ib = to_xrnic_ib(ibqp->device);
	int ret;

	/* Under the lock: an async event being reported ends first. */
	xa_erase(&ib->qps, ibqp->qp_num);
	ret = xrnic_cmd_destroy_qp(ib->xn, ibqp->qp_num);
	xrnic_ib_ring_free(&qp->rq, ret);
	xrnic_ib_ring_free(&qp->sq, ret);
	return 0;
}
