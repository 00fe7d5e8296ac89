// SPDX-License-Identifier: GPL-2.0
/*
 * The responder: executes request packets on its QP in PSN order (a SEND
 * into the next receive WQE, a WRITE, READ or atomic on a local MR under
 * an rkey) and answers with an ACK when asked, READ response packets, an
 * atomic ACK, or a NAK.  Each packet passes the checks below in order; the
 * first that fails gives the verdict.  A responder error that is its own (a
 * receive WQE too small or with a bad lkey) completes the receive WQE with
 * an error; it, an invalid request and a remote access violation (with an
 * async event) move the QP to ERR, as the IB spec's responder classes of
 * errors say.
 */
#include <errno.h>

#include "transport.h"

/* What becomes of a request packet. */
enum xe_verdict {
	XE_V_DONE,		/* executed; answered when it asked (AckReq) */
	XE_V_ANSWERED,		/* executed and answered (READ, atomics) */
	XE_V_DROP,		/* not for a QP that receives: dropped */
	XE_V_DUPLICATE,		/* an old PSN: not executed again */
	XE_V_RNR,			/* no receive WQE: RNR NAK, try again later */
	XE_V_NAK_SEQ,		/* a PSN ahead of the expected one */
	XE_V_NAK_INV_REQ,
	XE_V_NAK_ACCESS,
	XE_V_NAK_OP,
};

/* Access the responder's QP must grant for each kind of request. */
static uint32_t xe_qp_access_need(uint32_t mask)
{
	if (mask & XE_PKT_WRITE)
		return XRNIC_ACCESS_REMOTE_WRITE;
	if (mask & XE_PKT_READ)
		return XRNIC_ACCESS_REMOTE_READ;
	if (mask & XE_PKT_ATOMIC)
		return XRNIC_ACCESS_REMOTE_ATOMIC;
	return 0;
}

/* An ACK, NAK, READ response or atomic ACK to the requester. */
static void xe_resp_answer(struct xe_dev *xe, struct xe_qp *qp, struct xe_pkt *p,
			   const struct xe_buf *payload, uint64_t payload_off)
{
	p->qpn = qp->attr.dest_qpn;
	p->msn = qp->resp.msn;
	xe_wire_send(xe, qp, p, payload, payload_off);
}

static void xe_resp_ack(struct xe_dev *xe, struct xe_qp *qp, uint32_t psn, uint8_t syndrome)
{
	struct xe_pkt p = { .opcode = XE_OP_ACKNOWLEDGE, .psn = psn, .syndrome = syndrome };

	xe_resp_answer(xe, qp, &p, NULL, 0);
}

static enum xe_verdict xe_check_psn(const struct xe_qp *qp, const struct xe_pkt *p)
{
	if (p->psn == qp->attr.rq_psn)
		return XE_V_DONE;
	return xe_psn_before(p->psn, qp->attr.rq_psn) ? XE_V_DUPLICATE : XE_V_NAK_SEQ;
}

/* FIRST after LAST, MIDDLE and LAST of the message begun, nothing else. */
static enum xe_verdict xe_check_op_seq(const struct xe_qp *qp, const struct xe_pkt *p)
{
	if (qp->resp.msg)
		return (p->mask & qp->resp.msg) && !(p->mask & XE_PKT_FIRST) ? XE_V_DONE :
									      XE_V_NAK_INV_REQ;
	return p->mask & XE_PKT_FIRST ? XE_V_DONE : XE_V_NAK_INV_REQ;
}

/* Payload at most the path MTU, and exactly it but in the last packet. */
static enum xe_verdict xe_check_length(const struct xe_qp *qp, const struct xe_pkt *p)
{
	uint32_t mtu = xe_mtu_bytes(qp->attr.path_mtu);

	if (p->payload_len > mtu || (!(p->mask & XE_PKT_LAST) && p->payload_len != mtu))
		return XE_V_NAK_INV_REQ;
	if ((p->mask & XE_PKT_RETH) && p->dma_len > XE_PORT_MAX_MSG_SZ)
		return XE_V_NAK_INV_REQ;
	return XE_V_DONE;
}

static enum xe_verdict xe_check_qp_access(const struct xe_qp *qp, const struct xe_pkt *p)
{
	uint32_t need = xe_qp_access_need(p->mask);

	if (!(p->mask & XE_PKT_FIRST))
		return XE_V_DONE;
	return (qp->attr.access_flags & need) == need ? XE_V_DONE : XE_V_NAK_ACCESS;
}

/*
 * A READ or atomic needs responder resources: none (max_dest_rd_atomic 0)
 * is an invalid request, as rxe answers it.  How many are outstanding is
 * the requester's to bound; the replay cache holds the most it may have.
 */
static enum xe_verdict xe_check_resources(const struct xe_qp *qp, const struct xe_pkt *p)
{
	if ((p->mask & (XE_PKT_READ | XE_PKT_ATOMIC)) && !qp->attr.max_dest_rd_atomic)
		return XE_V_NAK_INV_REQ;
	return XE_V_DONE;
}

/*
 * The next receive WQE, copied into resp.rqe; RNR when there is none.  One
 * taken from the SRQ for a message that was dropped (UC) is the QP's: it
 * serves the next message, as a WQE of the QP's own queue would.
 */
static enum xe_verdict xe_resp_take_rqe(struct xe_dev *xe, struct xe_qp *qp)
{
	if (qp->resp.rqe_held)
		return XE_V_DONE;
	switch (xe_rq_take(xe, qp, &qp->resp.rqe)) {
	case 0:
		qp->resp.rqe_held = qp->srqn != 0;
		return XE_V_DONE;
	case -ENOENT:
		return XE_V_RNR;
	default:
		return XE_V_NAK_OP;
	}
}

/* Complete the receive WQE in resp.rqe; the slot is free before its completion shows. */
static void xe_resp_rqe_done(struct xe_dev *xe, struct xe_qp *qp, uint8_t status, uint8_t verr,
			     uint8_t opcode, uint32_t byte_len, const struct xe_pkt *p)
{
	uint32_t flags = 0;

	qp->resp.rqe_held = false;
	xe_rq_consumed(qp);
	__be32 imm = 0;

	if (status == XRNIC_WC_SUCCESS) {
		if (p->mask & XE_PKT_IMMDT) {
			flags |= XRNIC_CQE_WITH_IMM;
			imm = p->imm;
		}
		if (p->mask & XE_PKT_IETH) {
			flags |= XRNIC_CQE_WITH_INV;
			imm = (__be32)htole32(p->rkey);	/* the CQE's invalidated_rkey */
		}
		if (p->se)
			flags |= XRNIC_CQE_SOLICITED;
	}
	xe_comp_recv(xe, qp, le64toh(qp->resp.rqe.wr_id), status, verr, opcode, byte_len,
		     qp->attr.dest_qpn, flags, imm);
}

/* Fail the receive WQE with status; the caller's verdict moves the QP to ERR. */
static enum xe_verdict xe_resp_recv_error(struct xe_dev *xe, struct xe_qp *qp,
					  const struct xe_pkt *p, uint8_t status, uint8_t verr,
					  enum xe_verdict verdict)
{
	xe_resp_rqe_done(xe, qp, status, verr, XRNIC_WC_RECV, 0, p);
	return verdict;
}

/* SEND: scatter each packet's payload into the receive WQE's SGEs. */
static enum xe_verdict xe_exec_send(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	struct xe_qp_resp *r = &qp->resp;
	const struct xe_pkt *p = &rx->pkt;
	enum xe_verdict v;

	if (p->mask & XE_PKT_FIRST) {
		v = xe_resp_take_rqe(xe, qp);
		if (v != XE_V_DONE)
			return v;
		if (xe_rqe_buf(xe, qp, &r->rqe, r->pieces, &r->dst))
			return xe_resp_recv_error(xe, qp, p, XRNIC_WC_LOC_QP_OP_ERR,
						  XRNIC_VERR_BAD_WQE, XE_V_NAK_OP);
		r->offset = 0;
		r->msg = XE_PKT_SEND;
	}
	if (p->payload_len > r->dst.len - r->offset)
		return xe_resp_recv_error(xe, qp, p, XRNIC_WC_LOC_LEN_ERR, XRNIC_VERR_RECV_LEN,
					  XE_V_NAK_INV_REQ);
	/* Only the bytes the message fills are translated and written. */
	if (xe_buf_copy(xe, &r->dst, r->offset, rx->payload, rx->payload_off, p->payload_len))
		return xe_resp_recv_error(xe, qp, p, XRNIC_WC_LOC_PROT_ERR, XRNIC_VERR_LKEY,
					  XE_V_NAK_OP);
	r->offset += p->payload_len;
	if (p->mask & XE_PKT_LAST) {
		/* Send with Invalidate (IBTA 9.4.1.1): an invalid rkey is an invalid request. */
		if ((p->mask & XE_PKT_IETH) && xe_mw_remote_invalidate(xe, qp, p->rkey))
			return xe_resp_recv_error(xe, qp, p, XRNIC_WC_REM_INV_REQ_ERR,
						  XRNIC_VERR_MW, XE_V_NAK_INV_REQ);
		r->msg = 0;
		r->msn++;
		xe_resp_rqe_done(xe, qp, XRNIC_WC_SUCCESS, XRNIC_VERR_NONE, XRNIC_WC_RECV,
				 r->offset, p);
	}
	return XE_V_DONE;
}

/* A remote range under the responder's PD. */
static void xe_resp_range(const struct xe_qp *qp, const struct xe_pkt *p, struct xe_piece *piece,
			  struct xe_buf *buf, uint32_t access, uint64_t len)
{
	*piece = (struct xe_piece){ .key = p->rkey, .addr = p->va, .len = len };
	*buf = (struct xe_buf){
		.piece = piece, .npieces = 1, .pdn = qp->pdn, .qpn = qp->qpn, .access = access,
		.len = len,
	};
}

/* WRITE: the RETH's range is checked once, each packet translated as it lands. */
static enum xe_verdict xe_exec_write(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	struct xe_qp_resp *r = &qp->resp;
	const struct xe_pkt *p = &rx->pkt;
	enum xe_verdict v;

	if (p->mask & XE_PKT_FIRST) {
		xe_resp_range(qp, p, &r->range, &r->dst, XRNIC_ACCESS_REMOTE_WRITE, p->dma_len);
		/* A zero-length WRITE checks no rkey (IB spec 9.4.5). */
		if (p->dma_len && xe_buf_check(xe, &r->dst))
			return XE_V_NAK_ACCESS;
		r->dma_len = p->dma_len;
		r->offset = 0;
		r->msg = XE_PKT_WRITE;
	}
	if (p->payload_len > r->dma_len - r->offset ||
	    ((p->mask & XE_PKT_LAST) && r->offset + p->payload_len != r->dma_len))
		return XE_V_NAK_INV_REQ;
	/* The immediate needs a receive WQE: RNR before any byte lands. */
	if (p->mask & XE_PKT_IMMDT) {
		v = xe_resp_take_rqe(xe, qp);
		if (v != XE_V_DONE)
			return v;
	}
	if (xe_buf_copy(xe, &r->dst, r->offset, rx->payload, rx->payload_off, p->payload_len))
		return XE_V_NAK_ACCESS;
	r->offset += p->payload_len;
	if (p->mask & XE_PKT_LAST) {
		r->msg = 0;
		r->msn++;
		if (p->mask & XE_PKT_IMMDT)
			xe_resp_rqe_done(xe, qp, XRNIC_WC_SUCCESS, XRNIC_VERR_NONE,
					 XRNIC_WC_RECV_RDMA_WITH_IMM, r->dma_len, p);
	}
	return XE_V_DONE;
}

/*
 * READ: answer with the range cut at the path MTU, one PSN a packet.  A
 * READ again (a duplicate: responses were lost) is answered again from
 * its PSN, the QP's PSN and MSN staying where they are: reading twice
 * changes nothing.
 */
static enum xe_verdict xe_read_respond(struct xe_dev *xe, struct xe_qp *qp,
				       const struct xe_pkt *p, bool again)
{
	static const uint8_t ops[XE_POS_NUM] = {
		[XE_POS_FIRST] = XE_OP_READ_RESP_FIRST, [XE_POS_MIDDLE] = XE_OP_READ_RESP_MIDDLE,
		[XE_POS_LAST] = XE_OP_READ_RESP_LAST, [XE_POS_ONLY] = XE_OP_READ_RESP_ONLY,
	};
	uint32_t mtu = xe_mtu_bytes(qp->attr.path_mtu), n, i;
	struct xe_piece piece;
	struct xe_buf src;
	struct xe_pkt a;

	xe_resp_range(qp, p, &piece, &src, XRNIC_ACCESS_REMOTE_READ, p->dma_len);
	if (p->dma_len && xe_buf_check(xe, &src))
		return XE_V_NAK_ACCESS;
	n = xe_pkt_count(p->dma_len, mtu);
	if (!again) {
		qp->resp.msn++;
		qp->attr.rq_psn = (p->psn + n) & XE_PSN_MASK;
	}
	for (i = 0; i < n; i++) {
		a = (struct xe_pkt){
			.opcode = ops[xe_pkt_pos(i, n)],
			.psn = (p->psn + i) & XE_PSN_MASK,
			.syndrome = XE_AETH_ACK,
			.payload_len = i == n - 1 ? p->dma_len - i * mtu : mtu,
		};
		xe_resp_answer(xe, qp, &a, &src, (uint64_t)i * mtu);
	}
	return XE_V_ANSWERED;
}

static enum xe_verdict xe_exec_read(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	return xe_read_respond(xe, qp, &rx->pkt, false);
}

/* Atomics: executed once, on the target's word in its byte order (little-endian), as rxe. */
static enum xe_verdict xe_exec_atomic(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	const struct xe_pkt *p = &rx->pkt;
	struct xe_piece piece;
	struct xe_buf remote;
	uint64_t *word, orig;
	struct xe_pkt a;

	/* Misaligned: an invalid request (class C), as rxe answers it. */
	if (p->va % sizeof(uint64_t))
		return XE_V_NAK_INV_REQ;
	xe_resp_range(qp, p, &piece, &remote, XRNIC_ACCESS_REMOTE_ATOMIC, sizeof(uint64_t));
	if (xe_buf_check(xe, &remote))
		return XE_V_NAK_ACCESS;
	word = xe_buf_word(xe, &remote);
	if (!word)
		return XE_V_NAK_ACCESS;
	if (p->opcode == XE_OP_FETCH_ADD) {
		orig = __atomic_fetch_add(word, p->swap_add, __ATOMIC_SEQ_CST);
	} else {
		orig = p->compare;
		__atomic_compare_exchange_n(word, &orig, p->swap_add, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	}
	qp->resp.msn++;
	qp->attr.rq_psn = (p->psn + 1) & XE_PSN_MASK;
	qp->atomics[qp->resp.atomic_next] = (struct xe_atomic_done){
		.valid = true, .psn = p->psn, .orig = orig };
	qp->resp.atomic_next = (qp->resp.atomic_next + 1) % XE_MAX_RD_ATOMIC;
	a = (struct xe_pkt){ .opcode = XE_OP_ATOMIC_ACK, .psn = p->psn,
			     .syndrome = XE_AETH_ACK, .orig = orig };
	xe_resp_answer(xe, qp, &a, NULL, 0);
	return XE_V_ANSWERED;
}

/* A duplicate atomic: the ATOMIC ACK again, from the replay cache, if it is there. */
static void xe_atomic_replay(struct xe_dev *xe, struct xe_qp *qp, const struct xe_pkt *p)
{
	struct xe_pkt a = { .opcode = XE_OP_ATOMIC_ACK, .psn = p->psn, .syndrome = XE_AETH_ACK };
	unsigned int i;

	for (i = 0; i < XE_MAX_RD_ATOMIC; i++) {
		if (qp->atomics[i].valid && qp->atomics[i].psn == p->psn) {
			a.orig = qp->atomics[i].orig;
			xe_resp_answer(xe, qp, &a, NULL, 0);
			return;
		}
	}
}

static enum xe_verdict xe_resp_execute(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	static enum xe_verdict (*const checks[])(const struct xe_qp *, const struct xe_pkt *) = {
		xe_check_psn, xe_check_op_seq, xe_check_length, xe_check_qp_access,
		xe_check_resources,
	};
	const struct xe_pkt *p = &rx->pkt;
	enum xe_verdict v;
	size_t i;

	if (qp->state != XRNIC_QPS_RTR && qp->state != XRNIC_QPS_RTS)
		return XE_V_DROP;
	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		v = checks[i](qp, p);
		if (v != XE_V_DONE)
			return v;
	}
	if (p->mask & XE_PKT_SEND)
		return xe_exec_send(xe, qp, rx);
	if (p->mask & XE_PKT_WRITE)
		return xe_exec_write(xe, qp, rx);
	if (p->mask & XE_PKT_READ)
		return xe_exec_read(xe, qp, rx);
	return xe_exec_atomic(xe, qp, rx);
}

/*
 * UC (IBTA 9.7.6): no ACK, no NAK, no retry.  A PSN other than the next
 * one means packets were lost: the message in progress is dropped (its
 * receive WQE stays for the next one) and only a FIRST or ONLY starts
 * another.  A packet that fails a check is dropped with its message; the
 * QP goes to ERR only for its own receive WQE's errors (too small, a bad
 * lkey), which complete that WQE in error.
 */
static void xe_uc_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	const struct xe_pkt *p = &rx->pkt;
	uint32_t rq_ci = qp->rq_ci;
	enum xe_verdict v;

	if (qp->state != XRNIC_QPS_RTR && qp->state != XRNIC_QPS_RTS)
		goto drop;
	if (p->psn != qp->attr.rq_psn)
		qp->resp.msg = 0;
	qp->attr.rq_psn = (p->psn + 1) & XE_PSN_MASK;
	/* A FIRST cuts short a message that lost its LAST. */
	if (p->mask & XE_PKT_FIRST)
		qp->resp.msg = 0;
	if (xe_check_op_seq(qp, p) != XE_V_DONE || xe_check_length(qp, p) != XE_V_DONE ||
	    xe_check_qp_access(qp, p) != XE_V_DONE)
		goto drop_msg;
	v = p->mask & XE_PKT_SEND ? xe_exec_send(xe, qp, rx) : xe_exec_write(xe, qp, rx);
	if (v == XE_V_DONE)
		return;
	if (qp->rq_ci != rq_ci) {
		xe_qp_to_err(xe, qp);
		return;
	}
drop_msg:
	qp->resp.msg = 0;
drop:
	xe->counters[XRNIC_CNT_RX_DROPPED]++;
}

void xe_resp_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	const struct xe_pkt *p = &rx->pkt;
	enum xe_verdict v;
	uint8_t nak = 0;

	if (qp->type == XRNIC_QPT_UC) {
		xe_uc_rcv(xe, qp, rx);
		return;
	}
	v = xe_resp_execute(xe, qp, rx);

	switch (v) {
	case XE_V_DONE:
		qp->attr.rq_psn = (p->psn + 1) & XE_PSN_MASK;
		qp->resp.nak_sent = false;
		if (p->ackreq)
			xe_resp_ack(xe, qp, p->psn, XE_AETH_ACK);
		return;
	case XE_V_ANSWERED:
		qp->resp.nak_sent = false;
		return;
	case XE_V_DUPLICATE:
		xe->counters[XRNIC_CNT_RX_DUPLICATES]++;
		xe->counters[XRNIC_CNT_RX_DROPPED]++;
		/*
		 * Our answer was lost and the requester sent the message
		 * again: ACK the last PSN received once more (IBTA C9-105),
		 * read again, or answer an atomic with the value it had.
		 */
		if ((p->mask & (XE_PKT_SEND | XE_PKT_WRITE)) && p->ackreq)
			xe_resp_ack(xe, qp, (qp->attr.rq_psn - 1) & XE_PSN_MASK, XE_AETH_ACK);
		else if ((p->mask & XE_PKT_READ) && xe_check_qp_access(qp, p) == XE_V_DONE)
			xe_read_respond(xe, qp, p, true);
		else if (p->mask & XE_PKT_ATOMIC)
			xe_atomic_replay(xe, qp, p);
		return;
	case XE_V_DROP:
		xe->counters[XRNIC_CNT_RX_DROPPED]++;
		return;
	case XE_V_RNR:
		xe->counters[XRNIC_CNT_RNR_NAKS_SENT]++;
		xe_resp_ack(xe, qp, p->psn, XE_AETH_RNR_NAK | qp->attr.min_rnr_timer);
		return;
	case XE_V_NAK_SEQ:
		/*
		 * One NAK per gap, as rxe: every packet after a lost one is
		 * ahead, and a NAK for each would spend the requester's
		 * retries on one loss.  A lost resend waits for its timeout.
		 */
		if (qp->resp.nak_sent)
			return;
		qp->resp.nak_sent = true;
		xe->counters[XRNIC_CNT_SEQ_NAKS_SENT]++;
		xe_resp_ack(xe, qp, qp->attr.rq_psn, XE_AETH_NAK | XE_NAK_PSN_SEQ);
		return;
	case XE_V_NAK_INV_REQ:
		nak = XE_NAK_INV_REQ;
		break;
	case XE_V_NAK_ACCESS:
		nak = XE_NAK_REM_ACCESS;
		xe_aenq_post(xe, XRNIC_EVENT_QP_ACCESS, qp->qpn, 0);
		break;
	case XE_V_NAK_OP:
		nak = XE_NAK_REM_OP;
		break;
	}
	/* The responder's own errors first, then the NAK that fails the requester. */
	xe_qp_to_err(xe, qp);
	xe_resp_ack(xe, qp, p->psn, XE_AETH_NAK | nak);
}
