// SPDX-License-Identifier: GPL-2.0
/*
 * The completer: answers to the requester's packets (ACKs, NAKs, READ
 * responses, atomic ACKs) become completions of the head WQE, data written
 * into its local buffer, retries or errors.  Also the completion entries
 * themselves, and the error state: a QP in ERR completes every outstanding
 * WQE of both queues with WR_FLUSH_ERR.
 */
#include "transport.h"

static const uint8_t xe_wc_opcode[XRNIC_WR_NUM_OPCODES] = {
	[XRNIC_WR_SEND]			= XRNIC_WC_SEND,
	[XRNIC_WR_SEND_WITH_IMM]	= XRNIC_WC_SEND,
	[XRNIC_WR_RDMA_WRITE]		= XRNIC_WC_RDMA_WRITE,
	[XRNIC_WR_RDMA_WRITE_WITH_IMM]	= XRNIC_WC_RDMA_WRITE,
	[XRNIC_WR_RDMA_READ]		= XRNIC_WC_RDMA_READ,
	[XRNIC_WR_ATOMIC_CMP_AND_SWP]	= XRNIC_WC_COMP_SWAP,
	[XRNIC_WR_ATOMIC_FETCH_AND_ADD]	= XRNIC_WC_FETCH_ADD,
	[XRNIC_WR_SEND_WITH_INV]	= XRNIC_WC_SEND,
	[XRNIC_WR_LOCAL_INV]		= XRNIC_WC_LOCAL_INV,
	[XRNIC_WR_BIND_MW]		= XRNIC_WC_BIND_MW,
};

static void xe_comp_send(struct xe_dev *xe, struct xe_qp *qp, const struct xrnic_sqe *wqe,
			 uint8_t status, uint8_t vendor_err, uint32_t byte_len)
{
	struct xrnic_cqe cqe = {
		.wr_id = wqe->wr_id,
		.byte_len = htole32(byte_len),
		.qpn = htole32(qp->qpn),
		.status = status,
		.opcode = wqe->opcode < XRNIC_WR_NUM_OPCODES ? xe_wc_opcode[wqe->opcode] : 0,
		.vendor_err = vendor_err,
	};

	xe_cq_post(xe, qp->send_cqn, &cqe);
}

void xe_comp_wqe(struct xe_dev *xe, struct xe_qp *qp, uint8_t status, uint8_t vendor_err,
		 uint32_t byte_len)
{
	struct xe_qp_req *r = &qp->req;
	/* Its record stays until the requester takes another WQE. */
	const struct xe_msg *m = xe_req_msg(qp, qp->sq_ci);

	/* The slot is free before its completion shows: see struct xrnic_qp_db. */
	qp->sq_ci++;
	if (xe_wr_is_rd_atomic(m->wqe.opcode))
		r->rd_atomic--;
	__atomic_store_n(&qp->db->sq_ci, htole32(qp->sq_ci), __ATOMIC_RELEASE);
	/* A message resent from the one completed starts again with the next. */
	if ((int32_t)(r->send_idx - qp->sq_ci) < 0)
		xe_req_rewind(qp, xe_req_msg(qp, qp->sq_ci)->first_psn);
	if (status == XRNIC_WC_SUCCESS) {
		/* Progress: the retries start over, the ACK timer too. */
		xe_req_answered(qp, m->npsn - m->done);
		r->rnr_left = qp->attr.rnr_retry;
		r->retry_left = qp->attr.retry_cnt;
		r->gap = false;
		r->rnr_naked = false;
		if (!xe_req_in_flight(qp)) {
			r->timer = XE_TIMER_NONE;
			r->wait_until = 0;
		} else if (r->timer == XE_TIMER_ACK) {
			xe_req_wait_answer(xe, qp);
		}
	}
	if (status != XRNIC_WC_SUCCESS || (m->wqe.flags & XRNIC_SQE_SIGNALED))
		xe_comp_send(xe, qp, &m->wqe, status, vendor_err, byte_len);
	if (status != XRNIC_WC_SUCCESS)
		xe_qp_to_err(xe, qp);
}

/* Progress within the head message m: rel + 1 of its packets answered. */
static void xe_comp_progress(struct xe_dev *xe, struct xe_qp *qp, struct xe_msg *m, uint32_t rel)
{
	struct xe_qp_req *r = &qp->req;

	if (rel + 1 <= m->done)
		return;
	xe_req_answered(qp, rel + 1 - m->done);
	m->done = rel + 1;
	r->retry_left = qp->attr.retry_cnt;
	r->gap = false;
	r->rnr_naked = false;
	if (r->timer == XE_TIMER_ACK)
		xe_req_wait_answer(xe, qp);
}

/*
 * An answer past the one expected (psn): answers were lost.  Ask again
 * from psn at once, once per gap, rather than wait for the timeout.
 */
static void xe_comp_gap(struct xe_dev *xe, struct xe_qp *qp, uint32_t psn)
{
	struct xe_qp_req *r = &qp->req;

	if (r->gap)
		return;
	r->gap = true;
	if (!xe_req_seq_retry(qp, psn))
		xe_comp_wqe(xe, qp, XRNIC_WC_RETRY_EXC_ERR, XRNIC_VERR_NO_DEST, 0);
}

/* Work completion status of each NAK code (IBTA 9.9.5 and table 44). */
static const uint8_t xe_nak_status[] = {
	[XE_NAK_INV_REQ]	= XRNIC_WC_REM_INV_REQ_ERR,
	[XE_NAK_REM_ACCESS]	= XRNIC_WC_REM_ACCESS_ERR,
	[XE_NAK_REM_OP]		= XRNIC_WC_REM_OP_ERR,
};

/*
 * ACKNOWLEDGE of packet rel of the head m: an ACK of its last completes
 * it; a NAK fails or retries.
 */
static bool xe_comp_ack(struct xe_dev *xe, struct xe_qp *qp, struct xe_msg *m,
			const struct xe_pkt *p, uint32_t rel)
{
	uint8_t code = p->syndrome & XE_AETH_VALUE_MASK;

	switch (p->syndrome & XE_AETH_TYPE_MASK) {
	case 0:		/* ACK */
		if (xe_wr_is_rd_atomic(m->wqe.opcode))
			return false;
		if (rel == m->npsn - 1)
			xe_comp_wqe(xe, qp, XRNIC_WC_SUCCESS, XRNIC_VERR_NONE, m->local.len);
		else
			xe_comp_progress(xe, qp, m, rel);
		return true;
	case XE_AETH_RNR_NAK:
		if (!xe_req_rnr_retry(xe, qp, p->psn, code))
			xe_comp_wqe(xe, qp, XRNIC_WC_RNR_RETRY_EXC_ERR, XRNIC_VERR_RNR, 0);
		return true;
	case XE_AETH_NAK:
		if (code == XE_NAK_PSN_SEQ) {
			xe->counters[XRNIC_CNT_SEQ_NAKS_RCVD]++;
			/*
			 * Behind an RNR NAK of the same PSN (rxe sends both:
			 * the packets after the one it could not take are out
			 * of sequence): no news, the RNR retry resends from
			 * there anyway, and no transport retry is spent; nor
			 * when it comes after the resend (the RNR timer can be
			 * shorter than the NAK's trip): a receiver whose
			 * queue stays empty would otherwise fail the QP after
			 * seven RNR rounds, with rnr_retry infinite.
			 */
			if (qp->req.rnr_naked && p->psn == qp->req.rnr_psn)
				return true;
			if (!xe_req_seq_retry(qp, p->psn))
				xe_comp_wqe(xe, qp, XRNIC_WC_RETRY_EXC_ERR, XRNIC_VERR_NO_DEST, 0);
			return true;
		}
		if (code >= ARRAY_SIZE(xe_nak_status) || !xe_nak_status[code])
			return false;
		/* A NAK says what kind of error, not which check failed. */
		xe_comp_wqe(xe, qp, xe_nak_status[code], XRNIC_VERR_NAK, 0);
		return true;
	default:
		return false;
	}
}

/* READ response packet rel of the head m: its payload goes into the local buffer. */
static bool xe_comp_read(struct xe_dev *xe, struct xe_qp *qp, struct xe_msg *m,
			 const struct xe_rx *rx, uint32_t rel)
{
	const struct xe_pkt *p = &rx->pkt;
	uint32_t mtu = xe_mtu_bytes(qp->attr.path_mtu);
	bool last = rel == m->npsn - 1;
	uint64_t off = (uint64_t)rel * mtu;

	if (m->wqe.opcode != XRNIC_WR_RDMA_READ)
		return false;
	if (rel > m->done) {
		xe_comp_gap(xe, qp, (m->first_psn + m->done) & XE_PSN_MASK);
		return false;
	}
	/* FIRST opens the answer to the last request; a MIDDLE at the same PSN
	 * is from an earlier request's answer, and as good. */
	if (rel != m->done || ((p->mask & XE_PKT_FIRST) && rel != m->read_start) ||
	    (!(p->mask & XE_PKT_FIRST) && rel == 0) || !(p->mask & XE_PKT_LAST) != !last ||
	    p->payload_len != (last ? m->local.len - off : mtu))
		return false;
	if (xe_buf_copy(xe, &m->local, off, rx->payload, rx->payload_off, p->payload_len)) {
		/* The local MR went away under the READ. */
		xe_comp_wqe(xe, qp, XRNIC_WC_LOC_PROT_ERR, XRNIC_VERR_LKEY, 0);
		return true;
	}
	if (last)
		xe_comp_wqe(xe, qp, XRNIC_WC_SUCCESS, XRNIC_VERR_NONE, m->local.len);
	else
		xe_comp_progress(xe, qp, m, rel);
	return true;
}

/* ATOMIC_ACKNOWLEDGE of the head m: the original value goes into the local buffer. */
static bool xe_comp_atomic(struct xe_dev *xe, struct xe_qp *qp, struct xe_msg *m,
			   const struct xe_pkt *p)
{
	uint64_t orig = p->orig;
	struct xe_buf src = { .host = (const uint8_t *)&orig, .len = sizeof(orig) };

	if (!xe_wr_is_atomic(m->wqe.opcode))
		return false;
	if (xe_buf_copy(xe, &m->local, 0, &src, 0, sizeof(orig)))
		xe_comp_wqe(xe, qp, XRNIC_WC_LOC_PROT_ERR, XRNIC_VERR_LKEY, 0);
	else
		xe_comp_wqe(xe, qp, XRNIC_WC_SUCCESS, XRNIC_VERR_NONE, sizeof(orig));
	return true;
}

/*
 * The responder runs requests in PSN order, so an answer at psn answers
 * every message before it: a SEND or WRITE whose ACK was coalesced or lost
 * completes; a READ or atomic whose answer is missing is asked again.
 * Returns the head message psn falls in, or NULL.
 */
static struct xe_msg *xe_comp_before(struct xe_dev *xe, struct xe_qp *qp, uint32_t psn)
{
	struct xe_msg *h;

	while (qp->state == XRNIC_QPS_RTS && xe_req_in_flight(qp)) {
		h = xe_req_msg(qp, qp->sq_ci);
		if (xe_psn_before(psn, h->first_psn))
			return NULL;		/* stale */
		if (xe_psn_diff(psn, h->first_psn) < h->npsn)
			return h;
		if (xe_wr_is_rd_atomic(h->wqe.opcode)) {
			xe_comp_gap(xe, qp, (h->first_psn + h->done) & XE_PSN_MASK);
			return NULL;
		}
		xe_comp_wqe(xe, qp, XRNIC_WC_SUCCESS, XRNIC_VERR_NONE, h->local.len);
	}
	return NULL;
}

void xe_comp_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	const struct xe_pkt *p = &rx->pkt;
	struct xe_msg *h = xe_comp_before(xe, qp, p->psn);
	uint32_t rel;
	bool used;

	/* Only answers within the messages in flight count; others are stale. */
	if (!h) {
		used = false;
	} else {
		rel = xe_psn_diff(p->psn, h->first_psn);
		if (p->mask & XE_PKT_ACK)
			used = xe_comp_ack(xe, qp, h, p, rel);
		else if (p->mask & XE_PKT_READ)
			used = xe_comp_read(xe, qp, h, rx, rel);
		else
			used = xe_comp_atomic(xe, qp, h, p);
	}
	if (!used)
		xe->counters[XRNIC_CNT_RX_DROPPED]++;
}

void xe_comp_recv(struct xe_dev *xe, struct xe_qp *qp, uint64_t wr_id, uint8_t status,
		  uint8_t vendor_err, uint8_t opcode, uint32_t byte_len, uint32_t src_qp,
		  uint32_t flags, __be32 imm)
{
	struct xrnic_cqe cqe = {
		.wr_id = htole64(wr_id),
		.byte_len = htole32(byte_len),
		.imm_data_be = imm,
		.qpn = htole32(qp->qpn),
		.src_qp = htole32(src_qp),
		.status = status,
		.opcode = opcode,
		.vendor_err = vendor_err,
		.flags = flags | XRNIC_CQE_RECV,
	};

	xe_cq_post(xe, qp->recv_cqn, &cqe);
}

/*
 * Complete the WQEs between the consumer and the producer index of both
 * queues.  A producer index more than a ring ahead is clamped to one ring.
 */
void xe_qp_flush(struct xe_dev *xe, struct xe_qp *qp)
{
	uint32_t pi = le32toh(__atomic_load_n(&qp->db->sq_pi, __ATOMIC_ACQUIRE));
	struct xrnic_sqe sqe;
	struct xrnic_rqe rqe;

	if (pi - qp->sq_ci > qp->sq_depth)
		pi = qp->sq_ci + qp->sq_depth;
	/* Each slot is free before its completion shows (struct xrnic_qp_db). */
	while (qp->sq_ci != pi) {
		memcpy(&sqe, qp->sq + (size_t)(qp->sq_ci & (qp->sq_depth - 1)) * XRNIC_SQE_SIZE,
		       sizeof(sqe));
		qp->sq_ci++;
		__atomic_store_n(&qp->db->sq_ci, htole32(qp->sq_ci), __ATOMIC_RELEASE);
		xe_comp_send(xe, qp, &sqe, XRNIC_WC_WR_FLUSH_ERR, XRNIC_VERR_FLUSH, 0);
	}

	/* An SRQ's WQEs are the SRQ's: the other QPs take them. */
	pi = qp->srqn ? qp->rq_ci : le32toh(__atomic_load_n(&qp->db->rq_pi, __ATOMIC_ACQUIRE));
	if (pi - qp->rq_ci > qp->rq_depth)
		pi = qp->rq_ci + qp->rq_depth;
	while (qp->rq_ci != pi) {
		memcpy(&rqe, qp->rq + (size_t)(qp->rq_ci & (qp->rq_depth - 1)) * XRNIC_RQE_SIZE,
		       sizeof(rqe));
		qp->rq_ci++;
		__atomic_store_n(&qp->db->rq_ci, htole32(qp->rq_ci), __ATOMIC_RELEASE);
		xe_comp_recv(xe, qp, le64toh(rqe.wr_id), XRNIC_WC_WR_FLUSH_ERR, XRNIC_VERR_FLUSH,
			     XRNIC_WC_RECV, 0, 0, 0, 0);
	}
	/* But the one a message in progress took from it is the QP's. */
	if (qp->resp.rqe_held)
		xe_comp_recv(xe, qp, le64toh(qp->resp.rqe.wr_id), XRNIC_WC_WR_FLUSH_ERR,
			     XRNIC_VERR_FLUSH, XRNIC_WC_RECV, 0, 0, 0, 0);
	xe_req_reset(qp);
	memset(&qp->resp, 0, sizeof(qp->resp));
}

void xe_qp_last_wqe(struct xe_dev *xe, const struct xe_qp *qp, uint8_t from)
{
	if (qp->srqn && from != XRNIC_QPS_ERR)
		xe_aenq_post(xe, XRNIC_EVENT_QP_LAST_WQE, qp->qpn, 0);
}

void xe_qp_to_err(struct xe_dev *xe, struct xe_qp *qp)
{
	uint8_t from = qp->state;

	qp->state = XRNIC_QPS_ERR;
	xe_qp_flush(xe, qp);
	xe_qp_last_wqe(xe, qp, from);
}
