// SPDX-License-Identifier: GPL-2.0
/*
 * Completions of work requests, and the error state: a QP in ERR completes
 * every outstanding WQE of both queues with WR_FLUSH_ERR.
 */
#include "xe.h"

static const uint8_t xe_wc_opcode[XRNIC_WR_NUM_OPCODES] = {
	[XRNIC_WR_SEND]			= XRNIC_WC_SEND,
	[XRNIC_WR_SEND_WITH_IMM]	= XRNIC_WC_SEND,
	[XRNIC_WR_RDMA_WRITE]		= XRNIC_WC_RDMA_WRITE,
	[XRNIC_WR_RDMA_WRITE_WITH_IMM]	= XRNIC_WC_RDMA_WRITE,
	[XRNIC_WR_RDMA_READ]		= XRNIC_WC_RDMA_READ,
	[XRNIC_WR_ATOMIC_CMP_AND_SWP]	= XRNIC_WC_COMP_SWAP,
	[XRNIC_WR_ATOMIC_FETCH_AND_ADD]	= XRNIC_WC_FETCH_ADD,
};

void xe_comp_send(struct xe_dev *xe, struct xe_qp *qp, const struct xrnic_sqe *wqe,
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

	pi = le32toh(__atomic_load_n(&qp->db->rq_pi, __ATOMIC_ACQUIRE));
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
	qp->wait_until = 0;
	qp->retrying = false;
}

void xe_qp_to_err(struct xe_dev *xe, struct xe_qp *qp)
{
	qp->state = XRNIC_QPS_ERR;
	xe_qp_flush(xe, qp);
}
