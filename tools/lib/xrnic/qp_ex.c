// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The extended QP's post-send API (ibv_wr_start() .. ibv_wr_complete()):
 * each ibv_wr_<opcode>() starts a WQE in the next free slot of the send
 * ring, the ibv_wr_set_*() calls fill its data, and ibv_wr_complete()
 * publishes them all with one producer index and one doorbell, or, after
 * an error, none of them.  The send queue's lock is held from start to
 * complete or abort, as libibverbs documents.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "xrnic.h"

static struct xrnic_qp *to_xqpx(struct ibv_qp_ex *qpx)
{
	return to_xqp(&qpx->qp_base);
}

static struct xrnic_sqe *xrnic_wr_cur(struct xrnic_qp *qp)
{
	return (struct xrnic_sqe *)(qp->sq.ring + (size_t)((qp->sq.pi - 1) & (qp->sq.depth - 1)) *
				    XRNIC_SQE_SIZE);
}

static void xrnic_wr_start(struct ibv_qp_ex *qpx)
{
	struct xrnic_qp *qp = to_xqpx(qpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_start_pi = qp->sq.pi;
	/* ibv_wr_complete() answers it; nothing is written meanwhile. */
	qp->wr_err = xrnic_sq_takes_work(&qpx->qp_base) ? 0 : EINVAL;
}

/* A new WQE of opcode in the next slot, or an error for complete. */
static struct xrnic_sqe *xrnic_wr_new(struct ibv_qp_ex *qpx, uint8_t opcode)
{
	struct xrnic_qp *qp = to_xqpx(qpx);
	uint32_t ci = le32toh(__atomic_load_n(qp->sq.ci_le, __ATOMIC_ACQUIRE));
	struct xrnic_sqe *w;

	if (qp->wr_err)
		return NULL;
	if (qp->sq.pi - ci >= qp->sq.depth) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	qp->sq.pi++;
	w = xrnic_wr_cur(qp);
	memset(w, 0, sizeof(*w));
	w->wr_id = htole64(qpx->wr_id);
	w->opcode = opcode;
	if ((qpx->wr_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		w->flags |= XRNIC_SQE_SIGNALED;
	if (qpx->wr_flags & IBV_SEND_SOLICITED)
		w->flags |= XRNIC_SQE_SOLICITED;
	if (qpx->wr_flags & IBV_SEND_FENCE)
		w->flags |= XRNIC_SQE_FENCE;
	return w;
}

static void xrnic_wr_send(struct ibv_qp_ex *qpx)
{
	xrnic_wr_new(qpx, XRNIC_WR_SEND);
}

static void xrnic_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct xrnic_sqe *w = xrnic_wr_new(qpx, XRNIC_WR_SEND_WITH_IMM);

	if (w)
		w->imm_data_be = imm;
}

static void xrnic_wr_remote(struct ibv_qp_ex *qpx, uint8_t opcode, uint32_t rkey,
			    uint64_t addr, __be32 imm)
{
	struct xrnic_sqe *w = xrnic_wr_new(qpx, opcode);

	if (!w)
		return;
	w->rkey = htole32(rkey);
	w->remote_addr = htole64(addr);
	w->imm_data_be = imm;
}

static void xrnic_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	xrnic_wr_remote(qpx, XRNIC_WR_RDMA_WRITE, rkey, addr, 0);
}

static void xrnic_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
				    __be32 imm)
{
	xrnic_wr_remote(qpx, XRNIC_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void xrnic_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	xrnic_wr_remote(qpx, XRNIC_WR_RDMA_READ, rkey, addr, 0);
}

static void xrnic_wr_atomic(struct ibv_qp_ex *qpx, uint8_t opcode, uint32_t rkey,
			    uint64_t addr, uint64_t compare_add, uint64_t swap)
{
	struct xrnic_sqe *w = xrnic_wr_new(qpx, opcode);

	if (!w)
		return;
	w->rkey = htole32(rkey);
	w->remote_addr = htole64(addr);
	w->atomic.compare_add = htole64(compare_add);
	w->atomic.swap = htole64(swap);
	w->num_sge = 1;		/* its one SGE comes with ibv_wr_set_sge() */
}

static void xrnic_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
				    uint64_t compare, uint64_t swap)
{
	xrnic_wr_atomic(qpx, XRNIC_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void xrnic_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
				      uint64_t add)
{
	xrnic_wr_atomic(qpx, XRNIC_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

static void xrnic_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct xrnic_sqe *w = xrnic_wr_new(qpx, XRNIC_WR_SEND_WITH_INV);

	if (w)
		w->invalidate_rkey = htole32(invalidate_rkey);
}

static void xrnic_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct xrnic_sqe *w = xrnic_wr_new(qpx, XRNIC_WR_LOCAL_INV);

	if (w)
		w->invalidate_rkey = htole32(invalidate_rkey);
}

static void xrnic_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
			     const struct ibv_mw_bind_info *info)
{
	struct xrnic_sqe *w = xrnic_wr_new(qpx, XRNIC_WR_BIND_MW);
	struct xrnic_qp *qp = to_xqpx(qpx);

	if (w && xrnic_build_bind(qp, mw, rkey, info, w))
		qp->wr_err = EINVAL;
}

static bool xrnic_wr_is_atomic(const struct xrnic_sqe *w)
{
	return w->opcode == XRNIC_WR_ATOMIC_CMP_AND_SWP ||
	       w->opcode == XRNIC_WR_ATOMIC_FETCH_AND_ADD;
}

static void xrnic_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t n, const struct ibv_sge *sge)
{
	struct xrnic_qp *qp = to_xqpx(qpx);
	struct xrnic_sqe *w;
	size_t i;

	if (qp->wr_err || qp->sq.pi == qp->wr_start_pi)
		return;
	w = xrnic_wr_cur(qp);
	if (xrnic_wr_is_atomic(w)) {
		if (n != 1) {
			qp->wr_err = EINVAL;
			return;
		}
		w->atomic.sge = (struct xrnic_sge){ htole64(sge->addr), htole32(sge->length),
						    htole32(sge->lkey) };
		return;
	}
	if (n > qp->sq.max_sge) {
		qp->wr_err = EINVAL;
		return;
	}
	w->num_sge = n;
	for (i = 0; i < n; i++)
		xrnic_sqe_sge(qp, w)[i] = (struct xrnic_sge){ htole64(sge[i].addr), htole32(sge[i].length),
						htole32(sge[i].lkey) };
}

static void xrnic_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t len)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };

	xrnic_wr_set_sge_list(qpx, 1, &sge);
}

static void xrnic_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t n,
					  const struct ibv_data_buf *buf)
{
	struct xrnic_qp *qp = to_xqpx(qpx);
	struct xrnic_sqe *w;
	size_t i, len = 0;

	if (qp->wr_err || qp->sq.pi == qp->wr_start_pi)
		return;
	w = xrnic_wr_cur(qp);
	for (i = 0; i < n; i++)
		len += buf[i].length;
	if (len > qp->max_inline || w->opcode == XRNIC_WR_RDMA_READ || xrnic_wr_is_atomic(w)) {
		qp->wr_err = EINVAL;
		return;
	}
	w->flags |= XRNIC_SQE_INLINE;
	w->inline_len = htole32(len);
	for (len = 0, i = 0; i < n; len += buf[i].length, i++)
		memcpy(xrnic_sqe_inline(qp, w) + len, buf[i].addr, buf[i].length);
}

static void xrnic_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t len)
{
	struct ibv_data_buf buf = { .addr = addr, .length = len };

	xrnic_wr_set_inline_data_list(qpx, 1, &buf);
}

static void xrnic_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t remote_qpn,
				 uint32_t remote_qkey)
{
	struct xrnic_qp *qp = to_xqpx(qpx);

	if (qp->wr_err || qp->sq.pi == qp->wr_start_pi)
		return;
	if (!qp->ud || !ah || ah->pd != qpx->qp_base.pd) {
		qp->wr_err = EINVAL;
		return;
	}
	xrnic_sqe_set_ud(xrnic_wr_cur(qp), ah, remote_qpn, remote_qkey);
}

static int xrnic_wr_complete(struct ibv_qp_ex *qpx)
{
	struct xrnic_qp *qp = to_xqpx(qpx);
	int err = qp->wr_err;

	if (err) {
		qp->sq.pi = qp->wr_start_pi;	/* none of them */
	} else if (qp->sq.pi != qp->wr_start_pi) {
		__atomic_store_n(qp->sq.pi_le, htole32(qp->sq.pi), __ATOMIC_RELEASE);
		xrnic_ring_doorbell(to_xctx(qpx->qp_base.context));
	}
	pthread_spin_unlock(&qp->sq.lock);
	return err;
}

static void xrnic_wr_abort(struct ibv_qp_ex *qpx)
{
	struct xrnic_qp *qp = to_xqpx(qpx);

	qp->sq.pi = qp->wr_start_pi;
	pthread_spin_unlock(&qp->sq.lock);
}

/* The operations a QP created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS gets. */
void xrnic_qp_ex_init(struct xrnic_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qp->vqp.comp_mask |= XRV_VERBS_QP_EX;
	qpx->wr_start = xrnic_wr_start;
	qpx->wr_complete = xrnic_wr_complete;
	qpx->wr_abort = xrnic_wr_abort;
	qpx->wr_send = xrnic_wr_send;
	qpx->wr_send_imm = xrnic_wr_send_imm;
	qpx->wr_rdma_write = xrnic_wr_rdma_write;
	qpx->wr_rdma_write_imm = xrnic_wr_rdma_write_imm;
	qpx->wr_rdma_read = xrnic_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = xrnic_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = xrnic_wr_atomic_fetch_add;
	qpx->wr_send_inv = xrnic_wr_send_inv;
	qpx->wr_local_inv = xrnic_wr_local_inv;
	qpx->wr_bind_mw = xrnic_wr_bind_mw;
	qpx->wr_set_sge = xrnic_wr_set_sge;
	qpx->wr_set_sge_list = xrnic_wr_set_sge_list;
	qpx->wr_set_inline_data = xrnic_wr_set_inline_data;
	qpx->wr_set_inline_data_list = xrnic_wr_set_inline_data_list;
	qpx->wr_set_ud_addr = xrnic_wr_set_ud_addr;
}
