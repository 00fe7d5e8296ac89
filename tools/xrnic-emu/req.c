// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: takes the send queue's WQEs in order into a window of
 * messages in flight (struct xe_qp_req), checks each (opcode, flags, SGEs
 * and their lkeys) and sends it as request packets: a SEND or WRITE cut at
 * the path MTU into FIRST, MIDDLE and LAST packets (or one ONLY), one PSN
 * each; a READ as one request that takes a PSN for each response packet
 * it asks for; an atomic as one request.  The completer (comp.c) completes
 * the messages in order from the answers; the requester sends again from
 * a PSN on when the completer asks for it (an RNR NAK, a sequence NAK, an
 * answer missing: a READ asks again for the part not in) and from the
 * first packet not answered when no answer came within the QP's timeout,
 * within rnr_retry and retry_cnt.  A loss shrinks what it keeps
 * unanswered and answers grow it back (struct xe_qp_req.cwnd), and ACK
 * timeouts in a row wait twice as long each.
 */
#include <errno.h>

#include "transport.h"

/* Validate a WQE on its own; on success fill the local buffer it names. */
static int xe_req_check(const struct xe_qp *qp, const struct xrnic_sqe *w,
			struct xe_piece *pieces, struct xe_buf *local)
{
	bool is_atomic = xe_wr_is_atomic(w->opcode);
	bool is_read = w->opcode == XRNIC_WR_RDMA_READ;
	const struct xrnic_sge *sge = is_atomic ? &w->atomic.sge : w->sge;
	unsigned int i, n = is_atomic ? 1 : w->num_sge;

	if (w->opcode >= XRNIC_WR_NUM_OPCODES || (w->flags & ~XRNIC_SQE_FLAGS_ALL) ||
	    w->reserved0)
		return -EINVAL;
	*local = (struct xe_buf){
		.piece = pieces,
		.pdn = qp->pdn,
		/* READ and atomic results are written into local memory. */
		.access = (is_read || is_atomic) ? XRNIC_ACCESS_LOCAL_WRITE : 0,
	};
	if (w->flags & XRNIC_SQE_INLINE) {
		if (is_read || is_atomic || le32toh(w->inline_len) > qp->max_inline)
			return -EINVAL;
		*local = (struct xe_buf){ .host = w->inline_data, .len = le32toh(w->inline_len) };
		return 0;
	}
	if (is_atomic ? w->num_sge != 1 : w->num_sge > qp->max_send_sge)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		pieces[i] = (struct xe_piece){
			.key = le32toh(sge[i].lkey),
			.addr = le64toh(sge[i].addr),
			.len = le32toh(sge[i].length),
		};
		local->len += pieces[i].len;
	}
	local->npieces = n;
	if (is_atomic && local->len != sizeof(uint64_t))
		return -EINVAL;
	if (local->len > XE_PORT_MAX_MSG_SZ)
		return -EINVAL;
	return 0;
}

/* The BTH opcode of packet i of n of a SEND or WRITE. */
static uint8_t xe_req_opcode(uint8_t wr, uint32_t i, uint32_t n)
{
	static const uint8_t ops[][XE_POS_NUM] = {
		[XRNIC_WR_SEND] = { XE_OP_SEND_FIRST, XE_OP_SEND_MIDDLE, XE_OP_SEND_LAST,
				    XE_OP_SEND_ONLY },
		[XRNIC_WR_SEND_WITH_IMM] = { XE_OP_SEND_FIRST, XE_OP_SEND_MIDDLE,
					     XE_OP_SEND_LAST_IMM, XE_OP_SEND_ONLY_IMM },
		[XRNIC_WR_RDMA_WRITE] = { XE_OP_WRITE_FIRST, XE_OP_WRITE_MIDDLE, XE_OP_WRITE_LAST,
					  XE_OP_WRITE_ONLY },
		[XRNIC_WR_RDMA_WRITE_WITH_IMM] = { XE_OP_WRITE_FIRST, XE_OP_WRITE_MIDDLE,
						   XE_OP_WRITE_LAST_IMM, XE_OP_WRITE_ONLY_IMM },
		[XRNIC_WR_SEND_WITH_INV] = { XE_OP_SEND_FIRST, XE_OP_SEND_MIDDLE,
					     XE_OP_SEND_LAST_INV, XE_OP_SEND_ONLY_INV },
	};

	return ops[wr][xe_pkt_pos(i, n)];
}

/* Packet i of message m, from the PSN it takes. */
static void xe_req_packet(const struct xe_qp *qp, struct xe_msg *m, uint32_t i,
			  struct xe_pkt *p)
{
	const struct xrnic_sqe *w = &m->wqe;
	uint32_t mtu = xe_mtu_bytes(qp->attr.path_mtu);

	*p = (struct xe_pkt){
		.qpn = qp->attr.dest_qpn,
		.psn = (m->first_psn + i) & XE_PSN_MASK,
		.ackreq = true,
		.va = le64toh(w->remote_addr),
		.rkey = le32toh(w->rkey),
	};
	switch (w->opcode) {
	case XRNIC_WR_RDMA_READ:
		/*
		 * From response i on: a resent READ asks only for what has
		 * not come (IBTA 9.4.4: the responder answers a duplicate
		 * READ for any part of the original).
		 */
		p->opcode = XE_OP_READ_REQUEST;
		p->va += (uint64_t)i * mtu;
		p->dma_len = m->local.len - (uint64_t)i * mtu;
		m->read_start = i;
		break;
	case XRNIC_WR_ATOMIC_CMP_AND_SWP:
		p->opcode = XE_OP_CMP_SWAP;
		p->swap_add = le64toh(w->atomic.swap);
		p->compare = le64toh(w->atomic.compare_add);
		break;
	case XRNIC_WR_ATOMIC_FETCH_AND_ADD:
		p->opcode = XE_OP_FETCH_ADD;
		p->swap_add = le64toh(w->atomic.compare_add);
		break;
	default:
		p->opcode = xe_req_opcode(w->opcode, i, m->npsn);
		/* The last packet asks an ACK, and every XE_ACK_EVERY-th on the way. */
		p->ackreq = i == m->npsn - 1 || (i + 1) % XE_ACK_EVERY == 0;
		p->se = p->ackreq && (w->flags & XRNIC_SQE_SOLICITED);
		p->dma_len = m->local.len;
		p->imm = w->imm_data_be;
		if (w->opcode == XRNIC_WR_SEND_WITH_INV)
			p->rkey = le32toh(w->invalidate_rkey);
		p->payload_len = i == m->npsn - 1 ? m->local.len - (uint64_t)i * mtu : mtu;
		break;
	}
}

/* The first PSN of the window: the head message's first packet not answered. */
static uint32_t xe_req_window_base(const struct xe_qp *qp)
{
	const struct xe_msg *h = xe_req_msg(qp, qp->sq_ci);

	return (h->first_psn + h->done) & XE_PSN_MASK;
}

/*
 * Send the packets of the message at send_idx from next_psn on, until its
 * last is out, the PSN window is full, or an answer (in loopback it comes
 * at once) moved the requester elsewhere: a retry, an RNR wait, an error.
 * Then the ACK timer runs.  True when a packet left.
 */
static bool xe_req_send(struct xe_dev *xe, struct xe_qp *qp)
{
	struct xe_qp_req *r = &qp->req;
	uint32_t idx = r->send_idx, i, out;
	bool sent = false, again, paced;
	struct xe_msg *m;
	struct xe_pkt p;
	size_t len;

	while (qp->state == XRNIC_QPS_RTS && r->send_idx == idx && idx != r->sq_next &&
	       (r->timer == XE_TIMER_NONE || r->timer == XE_TIMER_ACK)) {
		m = xe_req_msg(qp, idx);
		i = xe_psn_diff(r->next_psn, m->first_psn);
		/* What the responder has answered need not go again. */
		if (idx == qp->sq_ci && i < m->done)
			i = m->done;
		if (i >= m->npsn) {
			r->send_idx++;
			r->next_psn = r->send_idx == r->sq_next ? qp->attr.sq_psn :
				      xe_req_msg(qp, r->send_idx)->first_psn;
			break;
		}
		p.psn = (m->first_psn + i) & XE_PSN_MASK;
		out = xe_psn_diff(p.psn, xe_req_window_base(qp));
		if (out >= r->cwnd)
			break;
		/* A paused port (lossless mode) takes nothing new. */
		if (xe->tx_paused && !qp->loopback)
			break;
		/* A rate-limited QP's packet waits for its time (DCQCN, cc.c). */
		paced = qp->rp.rc;
		if (paced && !xe_cc_may_send(xe, qp))
			break;
		xe_req_packet(qp, m, i, &p);
		/*
		 * The window's last packet asks the answer that opens it again;
		 * a paced one asks for each, so that its answers come at its
		 * pace and keep the ACK timer from taking the pace for a loss.
		 */
		if (out + 1 == r->cwnd || paced)
			p.ackreq = true;
		/* The PSN moves on before the answer can come back. */
		r->next_psn = (p.psn + (p.opcode == XE_OP_READ_REQUEST ? m->npsn - i : 1)) &
			      XE_PSN_MASK;
		again = xe_psn_before(p.psn, r->fresh_psn);
		if (again)
			xe->counters[XRNIC_CNT_RETRANSMITS]++;
		else
			r->fresh_psn = r->next_psn;
		sent = true;
		len = xe_wire_send(xe, qp, &p, &m->local,
				   (uint64_t)i * xe_mtu_bytes(qp->attr.path_mtu));
		if (paced)
			xe_cc_sent(xe, qp, len);
	}
	if (xe_req_in_flight(qp) && r->timer == XE_TIMER_NONE)
		xe_req_wait_answer(xe, qp);
	return sent;
}

/*
 * A fenced WQE waits for the READs and atomics before it (IBTA 10.8.3.3),
 * and a READ or atomic while max_rd_atomic of them are in flight.
 */
static bool xe_req_must_wait(const struct xe_qp *qp, uint8_t opcode, uint8_t flags)
{
	const struct xe_qp_req *r = &qp->req;

	if (!r->rd_atomic)
		return false;
	return (flags & XRNIC_SQE_FENCE) ||
	       (xe_wr_is_rd_atomic(opcode) && r->rd_atomic >= xe_req_rd_atomic_max(qp));
}

/*
 * Take the next WQE into the window: check it and give it its PSNs.
 * Returns 1 when taken, 0 when there is none or it must wait, -1 when it
 * completed here: it failed (the QP in ERR), or it was a local operation.
 */
static int xe_req_take(struct xe_dev *xe, struct xe_qp *qp, uint32_t pi)
{
	struct xe_qp_req *r = &qp->req;
	const struct xrnic_sqe *slot;
	uint32_t mtu = xe_mtu_bytes(qp->attr.path_mtu);
	struct xe_msg *m = xe_req_msg(qp, r->sq_next);
	uint8_t status = 0, verr = 0;
	bool rd;

	if (pi == r->sq_next || r->sq_next - qp->sq_ci >= XE_SQ_WINDOW)
		return 0;
	slot = (const void *)(qp->sq + (size_t)(r->sq_next & (qp->sq_depth - 1)) * XRNIC_SQE_SIZE);
	/* A look at the slot first: a WQE that must wait is not copied at each poll. */
	if (xe_req_must_wait(qp, slot->opcode, slot->flags))
		return 0;
	/* The guest may rewrite the slot: work on a copy, which decides. */
	memcpy(&m->wqe, slot, sizeof(m->wqe));
	rd = xe_wr_is_rd_atomic(m->wqe.opcode);
	if (xe_req_must_wait(qp, m->wqe.opcode, m->wqe.flags))
		return 0;
	if (xe_wr_is_local(m->wqe.opcode)) {
		if (xe_req_in_flight(qp))
			return 0;
		m->npsn = 0;
		m->done = 0;
		r->sq_next++;
		status = xe_mw_local_op(xe, qp, &m->wqe, &verr);
		xe_comp_wqe(xe, qp, status, verr, 0);
		return -1;
	}
	if (xe_req_check(qp, &m->wqe, m->pieces, &m->local)) {
		status = XRNIC_WC_LOC_QP_OP_ERR;
		verr = XRNIC_VERR_BAD_WQE;
	} else if (xe_buf_check(xe, &m->local)) {
		status = XRNIC_WC_LOC_PROT_ERR;
		verr = XRNIC_VERR_LKEY;
	}
	if (status) {
		/* Completions keep their order: it fails once it is the head. */
		if (xe_req_in_flight(qp))
			return 0;
		r->sq_next++;
		xe_comp_wqe(xe, qp, status, verr, 0);
		return -1;
	}
	if (!xe_req_in_flight(qp)) {
		r->fresh_psn = qp->attr.sq_psn;
		r->rnr_left = qp->attr.rnr_retry;
		r->retry_left = qp->attr.retry_cnt;
		r->retry_psn = qp->attr.sq_psn;
	}
	m->first_psn = qp->attr.sq_psn;
	m->npsn = xe_wr_is_atomic(m->wqe.opcode) ? 1 : xe_pkt_count(m->local.len, mtu);
	m->done = 0;
	m->read_start = 0;
	qp->attr.sq_psn = (m->first_psn + m->npsn) & XE_PSN_MASK;
	r->rd_atomic += rd;
	r->sq_next++;
	/* send_idx was sq_next: nothing else waits to be sent. */
	r->next_psn = m->first_psn;
	return 1;
}

/*
 * UC (IBTA 9.7.6): a WQE's packets all leave at once, RC's SEND and WRITE
 * opcodes with the UC prefix, and it completes once the last has left: no
 * ACK, no retransmission, a lost packet loses the message at the
 * responder.  READs, atomics and SEND with Invalidate are not UC
 * operations; the local ones are.
 */
static bool xe_uc_send(struct xe_dev *xe, struct xe_qp *qp, uint32_t pi)
{
	struct xe_msg *m = xe_req_msg(qp, qp->sq_ci);
	uint32_t mtu = xe_mtu_bytes(qp->attr.path_mtu), i;
	uint8_t status = XRNIC_WC_SUCCESS, verr = XRNIC_VERR_NONE;
	uint64_t bytes = 0;
	struct xe_pkt p;

	if (pi == qp->sq_ci)
		return false;
	/* Rate-limited (DCQCN): a message leaves whole, when its time has come. */
	if (qp->rp.rc && !xe_cc_may_send(xe, qp))
		return false;
	memcpy(&m->wqe, qp->sq + (size_t)(qp->sq_ci & (qp->sq_depth - 1)) * XRNIC_SQE_SIZE,
	       sizeof(m->wqe));
	m->first_psn = qp->attr.sq_psn;
	m->npsn = 0;
	m->done = 0;
	if (xe_wr_is_local(m->wqe.opcode)) {
		status = xe_mw_local_op(xe, qp, &m->wqe, &verr);
		qp->req.sq_next = qp->sq_ci + 1;
		qp->req.send_idx = qp->req.sq_next;
		xe_comp_wqe(xe, qp, status, verr, 0);
		return true;
	}
	if (m->wqe.opcode >= XRNIC_WR_NUM_OPCODES || xe_wr_is_rd_atomic(m->wqe.opcode) ||
	    m->wqe.opcode == XRNIC_WR_SEND_WITH_INV ||
	    xe_req_check(qp, &m->wqe, m->pieces, &m->local)) {
		status = XRNIC_WC_LOC_QP_OP_ERR;
		verr = XRNIC_VERR_BAD_WQE;
	} else if (xe_buf_check(xe, &m->local)) {
		status = XRNIC_WC_LOC_PROT_ERR;
		verr = XRNIC_VERR_LKEY;
	}
	m->npsn = xe_pkt_count(m->local.len, mtu);
	for (i = 0; status == XRNIC_WC_SUCCESS && i < m->npsn; i++) {
		xe_req_packet(qp, m, i, &p);
		p.opcode |= XE_OP_UC;
		p.ackreq = false;
		bytes += xe_wire_send(xe, qp, &p, &m->local, (uint64_t)i * mtu);
	}
	if (qp->rp.rc)
		xe_cc_sent(xe, qp, bytes);
	if (status == XRNIC_WC_SUCCESS)
		qp->attr.sq_psn = (m->first_psn + m->npsn) & XE_PSN_MASK;
	qp->req.sq_next = qp->sq_ci + 1;
	qp->req.send_idx = qp->req.sq_next;
	xe_comp_wqe(xe, qp, status, verr, status == XRNIC_WC_SUCCESS ? m->local.len : 0);
	return true;
}

/* The requester's timer expired; false when it failed the QP. */
static bool xe_req_expire(struct xe_dev *xe, struct xe_qp *qp)
{
	struct xe_qp_req *r = &qp->req;

	if (r->timer == XE_TIMER_ACK) {
		/* No answer in time: send again from the first packet not answered. */
		if (!r->retry_left) {
			xe_comp_wqe(xe, qp, XRNIC_WC_RETRY_EXC_ERR, XRNIC_VERR_NO_DEST, 0);
			return false;
		}
		r->retry_left--;
		xe->counters[XRNIC_CNT_ACK_TIMEOUTS]++;
		/* Start again from one packet, and wait longer next time. */
		xe_req_cwnd_loss(r);
		r->cwnd = XE_CWND_MIN;
		if (r->backoff < UINT8_MAX)
			r->backoff++;
		xe_req_rewind(qp, xe_req_window_base(qp));
	}
	r->timer = XE_TIMER_NONE;
	r->wait_until = 0;
	return true;
}

bool xe_req_run(struct xe_dev *xe, struct xe_qp *qp)
{
	struct xe_qp_req *r = &qp->req;
	uint32_t pi;
	int taken;

	if (qp->state == XRNIC_QPS_ERR) {
		pi = le32toh(__atomic_load_n(&qp->db->sq_pi, __ATOMIC_ACQUIRE));
		if (pi == qp->sq_ci &&
		    le32toh(__atomic_load_n(&qp->db->rq_pi, __ATOMIC_ACQUIRE)) == qp->rq_ci)
			return false;
		xe_qp_flush(xe, qp);
		return true;
	}
	if (qp->state != XRNIC_QPS_RTS)
		return false;
	pi = le32toh(__atomic_load_n(&qp->db->sq_pi, __ATOMIC_ACQUIRE));
	if (pi - qp->sq_ci > qp->sq_depth) {
		xe_log(xe, "QP %u: sq_pi %u is more than a ring ahead of %u", qp->qpn, pi,
		       qp->sq_ci);
		xe_aenq_post(xe, XRNIC_EVENT_QP_FATAL, qp->qpn, 0);
		xe_qp_to_err(xe, qp);
		return true;
	}
	/* Paced and blocked is judged again at each run (the poll wakes for it). */
	qp->rp.blocked = false;
	if (qp->type == XRNIC_QPT_UD)
		return xe_ud_send(xe, qp, pi);
	if (qp->type == XRNIC_QPT_UC)
		return xe_uc_send(xe, qp, pi);
	/* An answer that waits on the input is read before the ACK timer judges. */
	if (r->timer != XE_TIMER_NONE && (!r->wait_until || xe_clock(xe) >= r->wait_until) &&
	    !(r->timer == XE_TIMER_ACK && xe->rx_pending)) {
		if (!xe_req_expire(xe, qp))
			return true;
	}
	if (r->timer == XE_TIMER_RNR)
		return false;
	/* One message a call: the poll loop takes turns between QPs. */
	if (r->send_idx == r->sq_next) {
		taken = xe_req_take(xe, qp, pi);
		if (taken <= 0)
			return taken < 0;
	}
	return xe_req_send(xe, qp);
}
