// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The data path, entirely in user space: work requests are written into
 * the mapped rings, producer indexes into the doorbell records, and one
 * store to the doorbell page wakes the device; completions are read from
 * the CQ ring by their phase bit.  A lock per queue makes each verb
 * thread-safe, as libibverbs promises.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "xrnic.h"

static const uint8_t xrnic_wr_opcode[] = {
	[IBV_WR_SEND]			= XRNIC_WR_SEND,
	[IBV_WR_SEND_WITH_IMM]		= XRNIC_WR_SEND_WITH_IMM,
	[IBV_WR_RDMA_WRITE]		= XRNIC_WR_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM]	= XRNIC_WR_RDMA_WRITE_WITH_IMM,
	[IBV_WR_RDMA_READ]		= XRNIC_WR_RDMA_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP]	= XRNIC_WR_ATOMIC_CMP_AND_SWP,
	[IBV_WR_ATOMIC_FETCH_AND_ADD]	= XRNIC_WR_ATOMIC_FETCH_AND_ADD,
	[IBV_WR_LOCAL_INV]		= XRNIC_WR_LOCAL_INV,
	[IBV_WR_BIND_MW]		= XRNIC_WR_BIND_MW,
	[IBV_WR_SEND_WITH_INV]		= XRNIC_WR_SEND_WITH_INV,
};

static void xrnic_sge(struct xrnic_sge *dst, const struct ibv_sge *src)
{
	dst->addr = htole64(src->addr);
	dst->length = htole32(src->length);
	dst->lkey = htole32(src->lkey);
}

int xrnic_build_bind(struct xrnic_qp *qp, struct ibv_mw *mw, uint32_t rkey,
		     const struct ibv_mw_bind_info *info, struct xrnic_sqe *w)
{
	/* A window, an MR and a QP of one PD (C10-72); the device checks the rest. */
	if (qp->ud || !mw || mw->pd != qp->vqp.qp.pd || (info->mr && info->mr->pd != mw->pd) ||
	    (!info->mr && (info->addr || info->length)))
		return EINVAL;
	w->bind = (struct xrnic_bind_mw){
		.mw_rkey = htole32(mw->rkey),
		.new_rkey = htole32(rkey),
		.mr_lkey = htole32(info->mr ? info->mr->lkey : 0),
		.access = htole32(info->mw_access_flags),
		.addr = htole64(info->addr),
		.length = htole64(info->length),
	};
	return 0;
}

/* Build one send WQE; returns 0 or the errno of a bad work request. */
static int xrnic_build_sqe(struct xrnic_qp *qp, const struct ibv_send_wr *wr,
			   struct xrnic_sqe *w)
{
	uint32_t len = 0;
	int i;

	if ((unsigned int)wr->opcode >= sizeof(xrnic_wr_opcode) ||
	    (wr->opcode != IBV_WR_SEND && !xrnic_wr_opcode[wr->opcode]))
		return EINVAL;
	/* UC has no READs, atomics and SEND with Invalidate. */
	if (qp->vqp.qp.qp_type == IBV_QPT_UC && wr->opcode != IBV_WR_SEND &&
	    wr->opcode != IBV_WR_SEND_WITH_IMM && wr->opcode != IBV_WR_RDMA_WRITE &&
	    wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM && wr->opcode != IBV_WR_LOCAL_INV &&
	    wr->opcode != IBV_WR_BIND_MW)
		return EINVAL;
	/* A UD QP sends datagrams, to an address handle of its PD. */
	if (qp->ud && ((wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) ||
		       !wr->wr.ud.ah || wr->wr.ud.ah->pd != qp->vqp.qp.pd))
		return EINVAL;
	memset(w, 0, sizeof(*w));
	w->wr_id = htole64(wr->wr_id);
	w->opcode = xrnic_wr_opcode[wr->opcode];
	if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		w->flags |= XRNIC_SQE_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		w->flags |= XRNIC_SQE_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		w->flags |= XRNIC_SQE_FENCE;
	if (wr->opcode == IBV_WR_SEND_WITH_IMM || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		w->imm_data_be = wr->imm_data;
	if (wr->opcode == IBV_WR_SEND_WITH_INV || wr->opcode == IBV_WR_LOCAL_INV)
		w->invalidate_rkey = htole32(wr->invalidate_rkey);
	switch (wr->opcode) {
	case IBV_WR_LOCAL_INV:
		return 0;
	case IBV_WR_BIND_MW:
		return xrnic_build_bind(qp, wr->bind_mw.mw, wr->bind_mw.rkey,
					&wr->bind_mw.bind_info, w);
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (wr->num_sge != 1)
			return EINVAL;
		w->remote_addr = htole64(wr->wr.atomic.remote_addr);
		w->rkey = htole32(wr->wr.atomic.rkey);
		w->atomic.compare_add = htole64(wr->wr.atomic.compare_add);
		w->atomic.swap = htole64(wr->wr.atomic.swap);
		w->num_sge = 1;
		xrnic_sge(&w->atomic.sge, wr->sg_list);
		return 0;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		w->remote_addr = htole64(wr->wr.rdma.remote_addr);
		w->rkey = htole32(wr->wr.rdma.rkey);
		break;
	default:
		if (qp->ud)
			xrnic_sqe_set_ud(w, wr->wr.ud.ah, wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey);
		break;
	}
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	if ((wr->send_flags & IBV_SEND_INLINE) && wr->opcode != IBV_WR_RDMA_READ) {
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->max_inline)
			return EINVAL;
		w->flags |= XRNIC_SQE_INLINE;
		w->inline_len = htole32(len);
		len = 0;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(xrnic_sqe_inline(qp, w) + len, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		return 0;
	}
	w->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++)
		xrnic_sge(&xrnic_sqe_sge(qp, w)[i], &wr->sg_list[i]);
	return 0;
}

/* Free slots: the device's consumer index says what it has finished. */
static uint32_t xrnic_wq_room(const struct xrnic_wq *wq)
{
	uint32_t ci = le32toh(__atomic_load_n(wq->ci_le, __ATOMIC_ACQUIRE));

	return wq->depth - (wq->pi - ci);
}

/*
 * Whether a QP's send queue takes work requests, as the IB spec says and
 * rxe answers: from RTS on (RTS, SQD, SQE, and ERR, where they are
 * flushed); in RESET, INIT and RTR a post is EINVAL.  A receive queue
 * takes them from INIT on.  ibv_modify_qp() keeps ibqp->state.
 */
bool xrnic_sq_takes_work(const struct ibv_qp *ibqp)
{
	return ibqp->state >= IBV_QPS_RTS;
}

int xrnic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct xrnic_qp *qp = to_xqp(ibqp);
	struct xrnic_wq *sq = &qp->sq;
	struct xrnic_sqe w;
	uint32_t room;
	int ret = 0, n = 0;

	if (!xrnic_sq_takes_work(ibqp)) {
		*bad = wr;
		return EINVAL;
	}
	pthread_spin_lock(&sq->lock);
	room = xrnic_wq_room(sq);
	for (; wr; wr = wr->next, n++) {
		if (!room--) {
			ret = ENOMEM;
			break;
		}
		ret = xrnic_build_sqe(qp, wr, &w);
		if (ret)
			break;
		memcpy(sq->ring + (size_t)(sq->pi++ & (sq->depth - 1)) * XRNIC_SQE_SIZE, &w,
		       sizeof(w));
	}
	if (n) {
		/* The WQEs before the index that publishes them. */
		__atomic_store_n(sq->pi_le, htole32(sq->pi), __ATOMIC_RELEASE);
		xrnic_ring_doorbell(to_xctx(ibqp->context));
	}
	pthread_spin_unlock(&sq->lock);
	if (ret)
		*bad = wr;
	return ret;
}

/* Receive WQEs into wq: a QP's receive queue or an SRQ. */
static int xrnic_post_rqes(struct xrnic_wq *wq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad)
{
	struct xrnic_rqe r;
	uint32_t room;
	int ret = 0, n = 0, i;

	pthread_spin_lock(&wq->lock);
	/* An SRQ whose new ring could not be mapped (xrnic_modify_srq). */
	if (!wq->ring) {
		pthread_spin_unlock(&wq->lock);
		*bad = wr;
		return EIO;
	}
	room = xrnic_wq_room(wq);
	for (; wr; wr = wr->next, n++) {
		if (!room--) {
			ret = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge) {
			ret = EINVAL;
			break;
		}
		memset(&r, 0, sizeof(r));
		r.wr_id = htole64(wr->wr_id);
		r.num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++)
			xrnic_sge(&r.sge[i], &wr->sg_list[i]);
		memcpy(wq->ring + (size_t)(wq->pi++ & (wq->depth - 1)) * XRNIC_RQE_SIZE, &r,
		       sizeof(r));
	}
	/*
	 * No doorbell: the device reads the producer index when a message
	 * arrives (Documentation/xrnic-hw.rst), as mlx5's receive queues
	 * have a doorbell record only.
	 */
	if (n)
		__atomic_store_n(wq->pi_le, htole32(wq->pi), __ATOMIC_RELEASE);
	pthread_spin_unlock(&wq->lock);
	if (ret)
		*bad = wr;
	return ret;
}

int xrnic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct xrnic_qp *qp = to_xqp(ibqp);

	/* A QP on an SRQ has no receive queue of its own; see xrnic_sq_takes_work(). */
	if (ibqp->srq || ibqp->state == IBV_QPS_RESET) {
		*bad = wr;
		return EINVAL;
	}
	return xrnic_post_rqes(&qp->rq, wr, bad);
}

int xrnic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct xrnic_srq *srq = to_xsrq(ibsrq);

	return xrnic_post_rqes(&srq->wq, wr, bad);
}

void xrnic_qp_reset_queues(struct xrnic_qp *qp)
{
	pthread_spin_lock(&qp->sq.lock);
	pthread_spin_lock(&qp->rq.lock);
	qp->sq.pi = 0;
	qp->rq.pi = 0;
	__atomic_store_n(&qp->db->sq_pi, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->db->rq_pi, 0, __ATOMIC_RELEASE);
	pthread_spin_unlock(&qp->rq.lock);
	pthread_spin_unlock(&qp->sq.lock);
}

/* The phase bit that the CQE at free-running index i has once written. */
static uint8_t xrnic_cq_phase(const struct xrnic_cq *cq, uint32_t i)
{
	return ((i / cq->depth) & 1) ^ 1;
}

static struct xrnic_cqe *xrnic_cq_slot(struct xrnic_cq *cq, uint32_t i)
{
	return &cq->cqes[i & (cq->depth - 1)];
}

/* Is the CQE at free-running index i written (not read yet, if i >= ci)? */
static bool xrnic_cq_written(struct xrnic_cq *cq, uint32_t i)
{
	return (__atomic_load_n(&xrnic_cq_slot(cq, i)->flags, __ATOMIC_ACQUIRE) &
		XRNIC_CQE_PHASE) == xrnic_cq_phase(cq, i);
}

bool xrnic_cq_next(struct xrnic_cq *cq, struct xrnic_cqe *e)
{
	if (!xrnic_cq_written(cq, cq->ci))
		return false;
	*e = *xrnic_cq_slot(cq, cq->ci);
	cq->ci++;
	return true;
}

void xrnic_cq_clean(struct xrnic_cq *cq, uint32_t qpn)
{
	struct xrnic_cqe *from, *to;
	uint32_t end, i, gone = 0;
	uint8_t phase;

	pthread_spin_lock(&cq->lock);
	/* What is written now; the device may write more after it, never of qpn. */
	for (end = cq->ci; end - cq->ci < cq->depth && xrnic_cq_written(cq, end); end++)
		;
	/* From the newest back: each CQE kept moves up past those taken out. */
	for (i = end; i != cq->ci; ) {
		from = xrnic_cq_slot(cq, --i);
		if (le32toh(from->qpn) == qpn && from->status == XRNIC_WC_WR_FLUSH_ERR) {
			gone++;
			continue;
		}
		if (!gone)
			continue;
		to = xrnic_cq_slot(cq, i + gone);
		phase = to->flags & XRNIC_CQE_PHASE;	/* written: it stays so */
		*to = *from;
		to->flags = (from->flags & ~XRNIC_CQE_PHASE) | phase;
	}
	if (gone) {
		cq->ci += gone;
		__atomic_store_n(&cq->db->ci, htole32(cq->ci), __ATOMIC_RELEASE);
	}
	pthread_spin_unlock(&cq->lock);
}

unsigned int xrnic_cqe_wc_flags(const struct xrnic_cqe *e)
{
	return (e->flags & XRNIC_CQE_WITH_IMM ? IBV_WC_WITH_IMM : 0) |
	       (e->flags & XRNIC_CQE_WITH_INV ? IBV_WC_WITH_INV : 0) |
	       (e->flags & XRNIC_CQE_GRH ? IBV_WC_GRH : 0);
}

/*
 * RoCE carries no service level.  For a datagram, as mlx5 does, sl tells
 * what its GRH holds: bit 3 a RoCE v2 (UDP) frame, bits 2:0 the network
 * header, 1 IPv6 or 2 IPv4.  UCX's UD transport reads it so.
 */
uint8_t xrnic_cqe_sl(const struct xrnic_cqe *e)
{
	if (!(e->flags & XRNIC_CQE_GRH))
		return 0;
	return 0x8 | (e->flags & XRNIC_CQE_GRH_IPV4 ? 0x2 : 0x1);
}

int xrnic_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct xrnic_cq *cq = to_xcq(ibcq);
	struct xrnic_cqe e;
	int done;

	pthread_spin_lock(&cq->lock);
	for (done = 0; done < n && xrnic_cq_next(cq, &e); done++) {
		memset(&wc[done], 0, sizeof(wc[done]));
		wc[done].wr_id = le64toh(e.wr_id);
		wc[done].status = e.status;
		wc[done].opcode = e.opcode;
		wc[done].vendor_err = e.vendor_err;
		wc[done].byte_len = le32toh(e.byte_len);
		wc[done].qp_num = le32toh(e.qpn);
		wc[done].src_qp = le32toh(e.src_qp);
		wc[done].wc_flags = xrnic_cqe_wc_flags(&e);
		wc[done].sl = xrnic_cqe_sl(&e);
		if (e.flags & XRNIC_CQE_WITH_IMM)
			wc[done].imm_data = e.imm_data_be;
		else if (e.flags & XRNIC_CQE_WITH_INV)
			wc[done].invalidated_rkey = le32toh(e.invalidated_rkey);
	}
	if (done)
		__atomic_store_n(&cq->db->ci, htole32(cq->ci), __ATOMIC_RELEASE);
	pthread_spin_unlock(&cq->lock);
	return done;
}

/* No doorbell: see struct xrnic_cq_db for why the barrier is enough. */
int xrnic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct xrnic_cq *cq = to_xcq(ibcq);
	uint32_t arm;

	pthread_spin_lock(&cq->lock);
	cq->arm_sn = (cq->arm_sn + 1) & (UINT32_MAX >> XRNIC_CQ_ARM_SN_SHIFT);
	if (!cq->arm_sn)
		cq->arm_sn = 1;
	arm = cq->arm_sn << XRNIC_CQ_ARM_SN_SHIFT |
	      (solicited_only ? XRNIC_CQ_ARM_SOLICITED : XRNIC_CQ_ARM_NEXT);
	__atomic_store_n(&cq->db->arm, htole32(arm), __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pthread_spin_unlock(&cq->lock);
	return 0;
}
