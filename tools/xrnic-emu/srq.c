// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: CREATE_SRQ, DESTROY_SRQ, MODIFY_SRQ (the limit),
 * RESIZE_SRQ and QUERY_SRQ, and taking a receive WQE for one of the SRQ's QPs.  A WQE
 * is taken from the SRQ whole when a message's first packet arrives, so
 * that no other QP can take it while the message is partly in.
 */
#include <errno.h>

#include "xe.h"

uint8_t xe_cmd_create_srq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_create_srq *c = &cmd->create_srq;
	uint32_t depth = le32toh(c->depth), srqn;
	uint64_t ring = le64toh(c->ring_addr), db = le64toh(c->db_addr);
	uint8_t *ring_host, *db_host;
	struct xe_pd *pd;

	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (!xe_is_pow2(depth) || depth < XRNIC_MIN_RING_DEPTH || depth > XE_MAX_QP_WR)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "depth not a power of two in 2..max_qp_wr");
	if (c->max_sge < 1 || c->max_sge > XRNIC_MAX_SGE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "max_sge not in 1..max_sge");
	if (ring % XRNIC_RING_ALIGN || db % XRNIC_DB_RECORD_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "ring or db_addr misaligned");
	pd = xe_pd_get(xe, le32toh(c->pdn));
	if (!pd)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such PD");
	ring_host = xe_gm_ptr(&xe->mem, ring, (uint64_t)depth * XRNIC_RQE_SIZE);
	db_host = xe_gm_ptr(&xe->mem, db, XRNIC_DB_RECORD_SIZE);
	if (!ring_host || !db_host)
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "ring or db_addr outside guest RAM");
	srqn = xe_obj_unused(xe, XE_SRQ);
	if (!srqn)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "SRQ table full");
	xe->srq[srqn] = (struct xe_srq){
		.obj.live = true, .pdn = le32toh(c->pdn), .depth = depth, .max_sge = c->max_sge,
		.ring = ring_host, .db = (struct xrnic_srq_db *)db_host,
	};
	pd->obj.refs++;
	cpl->srq.srqn = htole32(srqn);
	return XRNIC_STATUS_OK;
}

/* The SRQ a DESTROY_SRQ, MODIFY_SRQ or QUERY_SRQ names, or NULL with why. */
static struct xe_srq *xe_srq_cmd(struct xe_dev *xe, const struct xrnic_cmd_srq *c,
				 uint8_t *status)
{
	struct xe_srq *srq;

	if (!xe_all_zero(c->reserved, sizeof(c->reserved))) {
		*status = xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
		return NULL;
	}
	srq = xe_srq_get(xe, le32toh(c->srqn));
	if (!srq)
		*status = xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such SRQ");
	return srq;
}

uint8_t xe_cmd_destroy_srq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			   struct xrnic_acq_entry *cpl)
{
	uint8_t status;
	struct xe_srq *srq = xe_srq_cmd(xe, &cmd->srq, &status);

	(void)cpl;
	if (!srq)
		return status;
	if (cmd->srq.limit)
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (srq->obj.refs)
		return xe_fail(xe, XRNIC_STATUS_BUSY, "SRQ used by a QP");
	xe->pd[srq->pdn].obj.refs--;
	*srq = (struct xe_srq){ 0 };
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_modify_srq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	uint8_t status;
	struct xe_srq *srq = xe_srq_cmd(xe, &cmd->srq, &status);

	(void)cpl;
	if (!srq)
		return status;
	if (le32toh(cmd->srq.limit) >= srq->depth)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "limit not below the depth");
	srq->limit = le32toh(cmd->srq.limit);
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_resize_srq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_resize_srq *c = &cmd->resize_srq;
	uint32_t depth = le32toh(c->depth), posted, i;
	uint64_t ring = le64toh(c->ring_addr), db = le64toh(c->db_addr);
	struct xrnic_srq_db *new_db;
	uint8_t *ring_host;
	struct xe_srq *srq;

	(void)cpl;
	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	srq = xe_srq_get(xe, le32toh(c->srqn));
	if (!srq)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such SRQ");
	if (!xe_is_pow2(depth) || depth < XRNIC_MIN_RING_DEPTH || depth > XE_MAX_QP_WR)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "depth not a power of two in 2..max_qp_wr");
	if (ring % XRNIC_RING_ALIGN || db % XRNIC_DB_RECORD_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "ring or db_addr misaligned");
	ring_host = xe_gm_ptr(&xe->mem, ring, (uint64_t)depth * XRNIC_RQE_SIZE);
	new_db = (struct xrnic_srq_db *)xe_gm_ptr(&xe->mem, db, XRNIC_DB_RECORD_SIZE);
	if (!ring_host || !new_db)
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "ring or db_addr outside guest RAM");
	posted = le32toh(__atomic_load_n(&srq->db->pi, __ATOMIC_ACQUIRE)) - srq->ci;
	if (posted > srq->depth || posted > depth)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "fewer entries than WQEs posted");
	if (srq->limit && depth <= srq->limit)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "depth not above the armed limit");
	/* memmove: a guest may give overlapping rings; what it reads is its own. */
	for (i = srq->ci; i != srq->ci + posted; i++)
		memmove(ring_host + (size_t)(i & (depth - 1)) * XRNIC_RQE_SIZE,
			srq->ring + (size_t)(i & (srq->depth - 1)) * XRNIC_RQE_SIZE,
			XRNIC_RQE_SIZE);
	__atomic_store_n(&new_db->ci, htole32(srq->ci), __ATOMIC_RELAXED);
	__atomic_store_n(&new_db->pi, htole32(srq->ci + posted), __ATOMIC_RELEASE);
	srq->ring = ring_host;
	srq->db = new_db;
	srq->depth = depth;
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_query_srq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			 struct xrnic_acq_entry *cpl)
{
	uint8_t status;
	struct xe_srq *srq = xe_srq_cmd(xe, &cmd->srq, &status);

	if (!srq)
		return status;
	if (cmd->srq.limit)
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	cpl->srq.srqn = cmd->srq.srqn;
	cpl->srq.limit = htole32(srq->limit);
	return XRNIC_STATUS_OK;
}

int xe_srq_take(struct xe_dev *xe, uint32_t srqn, struct xrnic_rqe *rqe)
{
	struct xe_srq *srq = &xe->srq[srqn];
	uint32_t pi = le32toh(__atomic_load_n(&srq->db->pi, __ATOMIC_ACQUIRE));

	if (pi - srq->ci > srq->depth) {
		xe_log(xe, "SRQ %u: pi %u is more than a ring ahead of %u", srqn, pi, srq->ci);
		return -EIO;
	}
	if (pi == srq->ci)
		return -ENOENT;
	memcpy(rqe, srq->ring + (size_t)(srq->ci & (srq->depth - 1)) * XRNIC_RQE_SIZE,
	       sizeof(*rqe));
	srq->ci++;
	__atomic_store_n(&srq->db->ci, htole32(srq->ci), __ATOMIC_RELEASE);
	if (srq->limit && pi - srq->ci < srq->limit) {
		srq->limit = 0;
		xe_aenq_post(xe, XRNIC_EVENT_SRQ_LIMIT, srqn, 0);
	}
	return 0;
}
