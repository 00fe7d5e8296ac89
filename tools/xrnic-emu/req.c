// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: takes the send queue's WQEs in order, checks each (opcode,
 * flags, SGEs and their lkeys), hands the request to the responder of the
 * destination QP and completes the WQE from the answer: success, an error
 * that moves the QP to ERR, or a retry later (RNR NAK, or no answer) within
 * the QP's rnr_retry and retry_cnt.
 */
#include <errno.h>

#include "resp.h"

#define XE_RETRY_INFINITE	7	/* rnr_retry 7: retry for ever */
#define XE_PSN_MASK		0xffffff

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
	bool is_atomic = w->opcode == XRNIC_WR_ATOMIC_CMP_AND_SWP ||
			 w->opcode == XRNIC_WR_ATOMIC_FETCH_AND_ADD;
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

/* Complete the head WQE and move on. */
static void xe_req_done(struct xe_dev *xe, struct xe_qp *qp, const struct xrnic_sqe *w,
			uint8_t status, uint8_t verr, uint32_t len)
{
	/* The slot is free before its completion shows: see struct xrnic_qp_db. */
	qp->sq_ci++;
	qp->retrying = false;
	qp->wait_until = 0;
	qp->attr.sq_psn = (qp->attr.sq_psn + 1) & XE_PSN_MASK;
	__atomic_store_n(&qp->db->sq_ci, htole32(qp->sq_ci), __ATOMIC_RELEASE);
	if (status != XRNIC_WC_SUCCESS || (w->flags & XRNIC_SQE_SIGNALED))
		xe_comp_send(xe, qp, w, status, verr, len);
	if (status != XRNIC_WC_SUCCESS)
		xe_qp_to_err(xe, qp);
}

/* Schedule a retry of the head WQE; false when none is left. */
static bool xe_req_retry(struct xe_dev *xe, struct xe_qp *qp, bool rnr, uint8_t rnr_timer)
{
	uint8_t *left = rnr ? &qp->rnr_left : &qp->retry_left;

	(void)xe;
	if (!qp->retrying) {
		qp->retrying = true;
		qp->rnr_left = qp->attr.rnr_retry;
		qp->retry_left = qp->attr.retry_cnt;
	}
	if (!(rnr && qp->attr.rnr_retry == XE_RETRY_INFINITE)) {
		if (!*left)
			return false;
		(*left)--;
	}
	qp->wait_until = xe_now_ns() + (rnr ? (int64_t)xe_rnr_timer_us[rnr_timer & 31] * 1000 :
					      xe_ack_timeout_ns(qp->attr.timeout));
	return true;
}

bool xe_req_run(struct xe_dev *xe, struct xe_qp *qp)
{
	struct xe_piece pieces[XRNIC_MAX_SGE];
	struct xe_request req;
	struct xe_buf local;
	struct xrnic_sqe w;
	enum xe_answer ans;
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
	if (qp->wait_until && xe_now_ns() < qp->wait_until)
		return false;

	/* The guest may rewrite the slot: work on a copy. */
	memcpy(&w, qp->sq + (size_t)(qp->sq_ci & (qp->sq_depth - 1)) * XRNIC_SQE_SIZE,
	       sizeof(w));
	if (xe_req_check(qp, &w, pieces, &local)) {
		xe_req_done(xe, qp, &w, XRNIC_WC_LOC_QP_OP_ERR, XRNIC_VERR_BAD_WQE, 0);
		return true;
	}
	if (xe_buf_check(xe, &local)) {
		xe_req_done(xe, qp, &w, XRNIC_WC_LOC_PROT_ERR, XRNIC_VERR_LKEY, 0);
		return true;
	}

	req = (struct xe_request){
		.opcode = w.opcode,
		.src_qpn = qp->qpn,
		.dest_qpn = qp->attr.dest_qpn,
		.data = &local,
		.len = local.len,
		.raddr = le64toh(w.remote_addr),
		.rkey = le32toh(w.rkey),
		.imm = w.imm_data_be,
		.solicited = w.flags & XRNIC_SQE_SOLICITED,
		.compare_add = le64toh(w.atomic.compare_add),
		.swap = le64toh(w.atomic.swap),
	};
	if (w.opcode == XRNIC_WR_ATOMIC_CMP_AND_SWP || w.opcode == XRNIC_WR_ATOMIC_FETCH_AND_ADD)
		req.len = sizeof(uint64_t);
	ans = xe_resp_request(xe, &req);

	switch (ans) {
	case XE_ACK:
		xe_req_done(xe, qp, &w, XRNIC_WC_SUCCESS, XRNIC_VERR_NONE, req.len);
		break;
	case XE_NAK_RNR:
		if (!xe_req_retry(xe, qp, true, req.rnr_timer))
			xe_req_done(xe, qp, &w, XRNIC_WC_RNR_RETRY_EXC_ERR, XRNIC_VERR_RNR, 0);
		break;
	case XE_NO_ANSWER:
		if (!xe_req_retry(xe, qp, false, 0))
			xe_req_done(xe, qp, &w, XRNIC_WC_RETRY_EXC_ERR, XRNIC_VERR_NO_DEST, 0);
		break;
	case XE_NAK_INV_REQ:
		xe_req_done(xe, qp, &w, XRNIC_WC_REM_INV_REQ_ERR, XRNIC_VERR_RECV_LEN, 0);
		break;
	case XE_NAK_REM_ACCESS:
		xe_req_done(xe, qp, &w, XRNIC_WC_REM_ACCESS_ERR, XRNIC_VERR_RKEY, 0);
		break;
	case XE_NAK_REM_OP:
		xe_req_done(xe, qp, &w, XRNIC_WC_REM_OP_ERR, XRNIC_VERR_NONE, 0);
		break;
	}
	return true;
}
