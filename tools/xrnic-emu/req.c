// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: takes the send queue's WQEs in order, checks each (opcode,
 * flags, SGEs and their lkeys) and sends it as request packets: a SEND or
 * WRITE cut at the path MTU into FIRST, MIDDLE and LAST packets (or one
 * ONLY), one PSN each; a READ as one request that takes a PSN for each
 * response packet it asks for; an atomic as one request.  The completer
 * (comp.c) completes the WQE from the answers; the requester resends from
 * a PSN when the completer asks for it (an RNR NAK, a sequence NAK, READ
 * responses missing: a READ asks again for the part not in) and
 * when no answer came within the QP's timeout, within rnr_retry and
 * retry_cnt.
 */
#include <errno.h>

#include "transport.h"

#define XE_RETRY_INFINITE	7	/* rnr_retry 7: retry for ever */

/* IB RNR NAK timer codes (IBA table 45) in microseconds; code 0 is 655.36 ms. */
static const uint32_t xe_rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

/* Local ACK timeout: 4.096 us << timeout; 0 (infinite) waits as long as 14. */
static int64_t xe_ack_timeout_ns(uint8_t timeout)
{
	return 4096ll << (timeout ? timeout : 14);
}

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

bool xe_req_rnr_retry(struct xe_qp *qp, uint32_t psn, uint8_t rnr_code)
{
	struct xe_qp_req *r = &qp->req;

	if (qp->attr.rnr_retry != XE_RETRY_INFINITE) {
		if (!r->rnr_left)
			return false;
		r->rnr_left--;
	}
	r->next_psn = psn;
	r->timer = XE_TIMER_RNR;
	r->wait_until = xe_now_ns() + (int64_t)xe_rnr_timer_us[rnr_code & 31] * 1000;
	return true;
}

bool xe_req_seq_retry(struct xe_qp *qp, uint32_t psn)
{
	struct xe_qp_req *r = &qp->req;

	/*
	 * A NAK past the previous one's PSN: the message advanced in between,
	 * so its retries start over, as rxe's do on progress; a long message
	 * on a lossy wire is not failed for losses it recovered from.
	 */
	if (xe_psn_before(r->retry_psn, psn))
		r->retry_left = qp->attr.retry_cnt;
	if (!r->retry_left)
		return false;
	r->retry_left--;
	r->retry_psn = psn;
	r->next_psn = psn;
	r->timer = XE_TIMER_RESEND;
	r->wait_until = 0;
	return true;
}

void xe_req_wait_answer(struct xe_qp *qp)
{
	qp->req.timer = XE_TIMER_ACK;
	qp->req.wait_until = xe_now_ns() + xe_ack_timeout_ns(qp->attr.timeout);
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
	};

	return ops[wr][xe_pkt_pos(i, n)];
}

/*
 * Send the head WQE's packets from next_psn on, until the last is out or
 * an answer (in loopback it comes at once) completed the WQE or asked for
 * a retry.
 */
static void xe_req_send(struct xe_dev *xe, struct xe_qp *qp, bool again)
{
	struct xe_qp_req *r = &qp->req;
	const struct xrnic_sqe *w = &r->wqe;
	uint32_t mtu = xe_mtu_bytes(qp->attr.path_mtu), i;
	struct xe_pkt p;

	r->timer = XE_TIMER_NONE;
	r->wait_until = 0;
	while (r->busy && r->timer == XE_TIMER_NONE &&
	       (i = xe_psn_diff(r->next_psn, r->first_psn)) < r->npsn) {
		p = (struct xe_pkt){ .qpn = qp->attr.dest_qpn, .psn = r->next_psn, .ackreq = true };
		switch (w->opcode) {
		case XRNIC_WR_RDMA_READ:
			/*
			 * From response i on: a resent READ asks only for what
			 * has not come (IBTA 9.4.4: the responder answers a
			 * duplicate READ for any part of the original).
			 */
			p.opcode = XE_OP_READ_REQUEST;
			p.va = le64toh(w->remote_addr) + (uint64_t)i * mtu;
			p.rkey = le32toh(w->rkey);
			p.dma_len = r->local.len - (uint64_t)i * mtu;
			r->resp_psn = r->next_psn;
			r->read_start = i;
			break;
		case XRNIC_WR_ATOMIC_CMP_AND_SWP:
		case XRNIC_WR_ATOMIC_FETCH_AND_ADD:
			p.opcode = w->opcode == XRNIC_WR_ATOMIC_CMP_AND_SWP ? XE_OP_CMP_SWAP :
									      XE_OP_FETCH_ADD;
			p.va = le64toh(w->remote_addr);
			p.rkey = le32toh(w->rkey);
			p.swap_add = w->opcode == XRNIC_WR_ATOMIC_CMP_AND_SWP ?
				     le64toh(w->atomic.swap) : le64toh(w->atomic.compare_add);
			p.compare = le64toh(w->atomic.compare_add);
			break;
		default:
			p.opcode = xe_req_opcode(w->opcode, i, r->npsn);
			/* The last packet asks an ACK, and every XE_ACK_EVERY-th on the way. */
			p.ackreq = i == r->npsn - 1 || (i + 1) % XE_ACK_EVERY == 0;
			p.se = p.ackreq && (w->flags & XRNIC_SQE_SOLICITED);
			p.va = le64toh(w->remote_addr);
			p.rkey = le32toh(w->rkey);
			p.dma_len = r->local.len;
			p.imm = w->imm_data_be;
			p.payload_len = i == r->npsn - 1 ? r->local.len - (uint64_t)i * mtu : mtu;
			break;
		}
		/* The PSN moves on before the answer can come back. */
		r->next_psn = (r->next_psn + (p.opcode == XE_OP_READ_REQUEST ? r->npsn - i : 1)) &
			      XE_PSN_MASK;
		if (again)
			xe->counters[XRNIC_CNT_RETRANSMITS]++;
		xe_wire_send(xe, qp, &p, &r->local, (uint64_t)i * mtu);
	}
	if (r->busy && r->timer == XE_TIMER_NONE)
		xe_req_wait_answer(qp);
}

/* Take the head WQE: check it, and set up its PSNs; false if it failed. */
static bool xe_req_start(struct xe_dev *xe, struct xe_qp *qp)
{
	struct xe_qp_req *r = &qp->req;
	uint32_t mtu = xe_mtu_bytes(qp->attr.path_mtu);

	/* The guest may rewrite the slot: work on a copy. */
	memcpy(&r->wqe, qp->sq + (size_t)(qp->sq_ci & (qp->sq_depth - 1)) * XRNIC_SQE_SIZE,
	       sizeof(r->wqe));
	r->busy = true;
	if (xe_req_check(qp, &r->wqe, r->pieces, &r->local)) {
		xe_comp_wqe(xe, qp, XRNIC_WC_LOC_QP_OP_ERR, XRNIC_VERR_BAD_WQE, 0);
		return false;
	}
	if (xe_buf_check(xe, &r->local)) {
		xe_comp_wqe(xe, qp, XRNIC_WC_LOC_PROT_ERR, XRNIC_VERR_LKEY, 0);
		return false;
	}
	r->first_psn = qp->attr.sq_psn;
	r->next_psn = r->first_psn;
	r->resp_psn = r->first_psn;
	r->npsn = xe_wr_is_atomic(r->wqe.opcode) ? 1 : xe_pkt_count(r->local.len, mtu);
	r->rnr_left = qp->attr.rnr_retry;
	r->retry_left = qp->attr.retry_cnt;
	r->retry_psn = r->first_psn;
	r->acked = 0;
	r->read_gap = false;
	qp->attr.sq_psn = (r->first_psn + r->npsn) & XE_PSN_MASK;
	return true;
}

bool xe_req_run(struct xe_dev *xe, struct xe_qp *qp)
{
	struct xe_qp_req *r = &qp->req;
	uint32_t pi;

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
	if (r->busy) {
		if (r->wait_until && xe_now_ns() < r->wait_until)
			return false;
		/* No answer in time: send the message again. */
		if (r->timer == XE_TIMER_ACK) {
			if (!r->retry_left) {
				xe_comp_wqe(xe, qp, XRNIC_WC_RETRY_EXC_ERR, XRNIC_VERR_NO_DEST, 0);
				return true;
			}
			r->retry_left--;
			/* From the first packet not ACKed, or READ response not in. */
			r->next_psn = (r->first_psn + r->acked) & XE_PSN_MASK;
		}
		xe_req_send(xe, qp, true);
		return true;
	}
	pi = le32toh(__atomic_load_n(&qp->db->sq_pi, __ATOMIC_ACQUIRE));
	if (pi == qp->sq_ci)
		return false;
	if (pi - qp->sq_ci > qp->sq_depth) {
		xe_log(xe, "QP %u: sq_pi %u is more than a ring ahead of %u", qp->qpn, pi,
		       qp->sq_ci);
		xe_aenq_post(xe, XRNIC_EVENT_QP_FATAL, qp->qpn, 0);
		xe_qp_to_err(xe, qp);
		return true;
	}
	if (xe_req_start(xe, qp))
		xe_req_send(xe, qp, false);
	return true;
}
