// SPDX-License-Identifier: GPL-2.0
/*
 * The responder: executes a request on its QP (a SEND into the next receive
 * WQE, a WRITE, READ or atomic on a local MR under an rkey) and answers ACK
 * or NAK.  A responder error that is its own (a receive WQE too small or
 * with a bad lkey) completes the receive WQE with an error and moves the QP
 * to ERR; a remote access violation moves it to ERR with an async event, as
 * the IB spec's responder class of errors says.
 */
#include <errno.h>

#include "resp.h"

/* Access the responder's QP must grant for each opcode. */
static const uint32_t xe_qp_access_need[XRNIC_WR_NUM_OPCODES] = {
	[XRNIC_WR_RDMA_WRITE]		= XRNIC_ACCESS_REMOTE_WRITE,
	[XRNIC_WR_RDMA_WRITE_WITH_IMM]	= XRNIC_ACCESS_REMOTE_WRITE,
	[XRNIC_WR_RDMA_READ]		= XRNIC_ACCESS_REMOTE_READ,
	[XRNIC_WR_ATOMIC_CMP_AND_SWP]	= XRNIC_ACCESS_REMOTE_ATOMIC,
	[XRNIC_WR_ATOMIC_FETCH_AND_ADD]	= XRNIC_ACCESS_REMOTE_ATOMIC,
};

static bool xe_opcode_consumes_rqe(uint8_t opcode)
{
	return opcode == XRNIC_WR_SEND || opcode == XRNIC_WR_SEND_WITH_IMM ||
	       opcode == XRNIC_WR_RDMA_WRITE_WITH_IMM;
}

static enum xe_answer xe_resp_access_error(struct xe_dev *xe, struct xe_qp *qp)
{
	xe_aenq_post(xe, XRNIC_EVENT_QP_ACCESS, qp->qpn, 0);
	xe_qp_to_err(xe, qp);
	return XE_NAK_REM_ACCESS;
}

/* The remote range of a WRITE, READ or atomic, under the responder's PD. */
static void xe_resp_range(const struct xe_qp *qp, const struct xe_request *req,
			  struct xe_piece *piece, struct xe_buf *buf, uint32_t access)
{
	*piece = (struct xe_piece){ .key = req->rkey, .addr = req->raddr, .len = req->len };
	*buf = (struct xe_buf){
		.piece = piece, .npieces = 1, .pdn = qp->pdn, .access = access, .len = req->len,
	};
}

/* Take the next receive WQE, or answer RNR. */
static enum xe_answer xe_resp_rqe(struct xe_dev *xe, struct xe_qp *qp, struct xrnic_rqe *rqe)
{
	uint32_t pi = le32toh(__atomic_load_n(&qp->db->rq_pi, __ATOMIC_ACQUIRE));

	if (pi - qp->rq_ci > qp->rq_depth) {
		xe_aenq_post(xe, XRNIC_EVENT_QP_FATAL, qp->qpn, 0);
		xe_qp_to_err(xe, qp);
		return XE_NAK_REM_OP;
	}
	if (pi == qp->rq_ci)
		return XE_NAK_RNR;
	memcpy(rqe, qp->rq + (size_t)(qp->rq_ci & (qp->rq_depth - 1)) * XRNIC_RQE_SIZE,
	       sizeof(*rqe));
	return XE_ACK;
}

static void xe_resp_rqe_done(struct xe_qp *qp)
{
	qp->rq_ci++;
	__atomic_store_n(&qp->db->rq_ci, htole32(qp->rq_ci), __ATOMIC_RELEASE);
}

/* Fail the receive WQE with status, and the QP with it. */
static enum xe_answer xe_resp_recv_error(struct xe_dev *xe, struct xe_qp *qp,
					 const struct xrnic_rqe *rqe, uint8_t status,
					 uint8_t verr, enum xe_answer answer)
{
	xe_resp_rqe_done(qp);
	xe_comp_recv(xe, qp, le64toh(rqe->wr_id), status, verr, XRNIC_WC_RECV, 0, 0, 0, 0);
	xe_qp_to_err(xe, qp);
	return answer;
}

/* SEND: scatter the payload into the receive WQE's SGEs. */
static enum xe_answer xe_resp_send(struct xe_dev *xe, struct xe_qp *qp,
				   const struct xrnic_rqe *rqe, const struct xe_request *req)
{
	struct xe_piece pieces[XRNIC_MAX_SGE];
	struct xe_buf dst = { .piece = pieces, .pdn = qp->pdn, .access = XRNIC_ACCESS_LOCAL_WRITE };
	unsigned int i;

	if (rqe->num_sge > qp->max_recv_sge)
		return xe_resp_recv_error(xe, qp, rqe, XRNIC_WC_LOC_QP_OP_ERR, XRNIC_VERR_BAD_WQE,
					  XE_NAK_REM_OP);
	for (i = 0; i < rqe->num_sge; i++) {
		pieces[i] = (struct xe_piece){
			.key = le32toh(rqe->sge[i].lkey),
			.addr = le64toh(rqe->sge[i].addr),
			.len = le32toh(rqe->sge[i].length),
		};
		dst.len += pieces[i].len;
	}
	dst.npieces = rqe->num_sge;
	if (dst.len < req->len)
		return xe_resp_recv_error(xe, qp, rqe, XRNIC_WC_LOC_LEN_ERR, XRNIC_VERR_RECV_LEN,
					  XE_NAK_INV_REQ);
	/* Only the bytes the message fills are checked and written. */
	for (i = 0; i < dst.npieces; i++) {
		uint64_t before = 0, j;

		for (j = 0; j < i; j++)
			before += pieces[j].len;
		if (before >= req->len)
			pieces[i].len = 0;
		else if (pieces[i].len > req->len - before)
			pieces[i].len = req->len - before;
	}
	if (xe_buf_check(xe, &dst) || xe_buf_copy(xe, &dst, req->data, req->len))
		return xe_resp_recv_error(xe, qp, rqe, XRNIC_WC_LOC_PROT_ERR, XRNIC_VERR_LKEY,
					  XE_NAK_REM_OP);
	return XE_ACK;
}

static enum xe_answer xe_resp_atomic(struct xe_dev *xe, struct xe_qp *qp,
				     const struct xe_request *req)
{
	struct xe_piece piece;
	struct xe_buf remote;
	uint64_t *word, orig;
	struct xe_buf result = *req->data;

	if (req->raddr % sizeof(uint64_t))
		return xe_resp_access_error(xe, qp);
	xe_resp_range(qp, req, &piece, &remote, XRNIC_ACCESS_REMOTE_ATOMIC);
	if (xe_buf_check(xe, &remote))
		return xe_resp_access_error(xe, qp);
	word = xe_buf_word(xe, &remote);
	if (!word)
		return xe_resp_access_error(xe, qp);
	/* Executed once, in the target's byte order (little-endian), like rxe. */
	if (req->opcode == XRNIC_WR_ATOMIC_FETCH_AND_ADD) {
		orig = __atomic_fetch_add(word, req->compare_add, __ATOMIC_SEQ_CST);
	} else {
		orig = req->compare_add;
		__atomic_compare_exchange_n(word, &orig, req->swap, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	}
	/* The requester's result buffer was checked before the request left. */
	result.len = sizeof(orig);
	{
		struct xe_buf src = { .host = (const uint8_t *)&orig, .len = sizeof(orig) };

		if (xe_buf_copy(xe, &result, &src, sizeof(orig)))
			return XE_NAK_REM_OP;
	}
	return XE_ACK;
}

enum xe_answer xe_resp_request(struct xe_dev *xe, struct xe_request *req)
{
	struct xe_qp *qp = xe_qp_get(xe, req->dest_qpn);
	struct xrnic_rqe rqe;
	struct xe_piece piece;
	struct xe_buf remote;
	enum xe_answer ans;
	uint32_t flags = 0;

	if (!qp || (qp->state != XRNIC_QPS_RTR && qp->state != XRNIC_QPS_RTS))
		return XE_NO_ANSWER;
	if ((qp->attr.access_flags & xe_qp_access_need[req->opcode]) !=
	    xe_qp_access_need[req->opcode])
		return xe_resp_access_error(xe, qp);
	if (xe_opcode_consumes_rqe(req->opcode)) {
		ans = xe_resp_rqe(xe, qp, &rqe);
		if (ans == XE_NAK_RNR)
			req->rnr_timer = qp->attr.min_rnr_timer;
		if (ans != XE_ACK)
			return ans;
	}

	switch (req->opcode) {
	case XRNIC_WR_SEND:
	case XRNIC_WR_SEND_WITH_IMM:
		ans = xe_resp_send(xe, qp, &rqe, req);
		if (ans != XE_ACK)
			return ans;
		break;
	case XRNIC_WR_RDMA_WRITE:
	case XRNIC_WR_RDMA_WRITE_WITH_IMM:
		/* A zero-length WRITE checks no rkey (IB spec 9.4.5). */
		if (req->len) {
			xe_resp_range(qp, req, &piece, &remote, XRNIC_ACCESS_REMOTE_WRITE);
			if (xe_buf_check(xe, &remote))
				return xe_resp_access_error(xe, qp);
			if (xe_buf_copy(xe, &remote, req->data, req->len))
				return xe_resp_access_error(xe, qp);
		}
		break;
	case XRNIC_WR_RDMA_READ:
		if (req->len) {
			xe_resp_range(qp, req, &piece, &remote, XRNIC_ACCESS_REMOTE_READ);
			if (xe_buf_check(xe, &remote))
				return xe_resp_access_error(xe, qp);
			if (xe_buf_copy(xe, req->data, &remote, req->len))
				return xe_resp_access_error(xe, qp);
		}
		return XE_ACK;
	default:
		return xe_resp_atomic(xe, qp, req);
	}

	if (!xe_opcode_consumes_rqe(req->opcode))
		return XE_ACK;
	if (req->opcode != XRNIC_WR_SEND)
		flags |= XRNIC_CQE_WITH_IMM;
	if (req->solicited)
		flags |= XRNIC_CQE_SOLICITED;
	/* The slot is free before its completion shows. */
	xe_resp_rqe_done(qp);
	xe_comp_recv(xe, qp, le64toh(rqe.wr_id), XRNIC_WC_SUCCESS, XRNIC_VERR_NONE,
		     req->opcode == XRNIC_WR_RDMA_WRITE_WITH_IMM ? XRNIC_WC_RECV_RDMA_WITH_IMM :
								   XRNIC_WC_RECV,
		     req->len, req->src_qpn, flags, req->imm);
	return XE_ACK;
}
