// SPDX-License-Identifier: GPL-2.0
/*
 * The receive queue, for every transport (the responder, UD): the next
 * receive WQE of a QP, from its own ring or its SRQ, the buffer its SGEs
 * name, and its slot given back.
 */
#include <errno.h>
#include <string.h>

#include "transport.h"

int xe_rq_take(struct xe_dev *xe, struct xe_qp *qp, struct xrnic_rqe *rqe)
{
	uint32_t pi = le32toh(__atomic_load_n(&qp->db->rq_pi, __ATOMIC_ACQUIRE));

	if (qp->srqn)
		return xe_srq_take(xe, qp->srqn, rqe);
	if (pi - qp->rq_ci > qp->rq_depth) {
		xe_aenq_post(xe, XRNIC_EVENT_QP_FATAL, qp->qpn, 0);
		return -EIO;
	}
	if (pi == qp->rq_ci)
		return -ENOENT;
	memcpy(rqe, qp->rq + (size_t)(qp->rq_ci & (qp->rq_depth - 1)) * XRNIC_RQE_SIZE,
	       sizeof(*rqe));
	return 0;
}

int xe_rqe_buf(const struct xe_dev *xe, const struct xe_qp *qp, const struct xrnic_rqe *rqe,
	       struct xe_piece *pieces, struct xe_buf *dst)
{
	unsigned int i;

	if (rqe->num_sge > qp->max_recv_sge)
		return -EINVAL;
	/* An SRQ's WQEs name memory of the SRQ's PD. */
	*dst = (struct xe_buf){ .piece = pieces, .npieces = rqe->num_sge,
				.pdn = qp->srqn ? xe->srq[qp->srqn].pdn : qp->pdn,
				.access = XRNIC_ACCESS_LOCAL_WRITE };
	for (i = 0; i < rqe->num_sge; i++) {
		pieces[i] = (struct xe_piece){
			.key = le32toh(rqe->sge[i].lkey),
			.addr = le64toh(rqe->sge[i].addr),
			.len = le32toh(rqe->sge[i].length),
		};
		dst->len += pieces[i].len;
	}
	return 0;
}

void xe_rq_consumed(struct xe_qp *qp)
{
	if (qp->srqn)
		return;			/* taken from the SRQ already */
	qp->rq_ci++;
	__atomic_store_n(&qp->db->rq_ci, htole32(qp->rq_ci), __ATOMIC_RELEASE);
}
