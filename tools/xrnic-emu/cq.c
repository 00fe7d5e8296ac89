// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: CREATE_CQ and DESTROY_CQ, and writing completions with
 * the arm protocol of struct xrnic_cq_db.
 */
#include "xe.h"

uint8_t xe_cmd_create_cq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			 struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_create_cq *c = &cmd->create_cq;
	uint64_t ring = le64toh(c->ring_addr);
	uint32_t depth = le32toh(c->depth), cqn;
	uint16_t vector = le16toh(c->eq_vector);
	uint64_t db = le64toh(c->db_addr);
	uint8_t *host, *db_host;

	if (c->reserved0 || !xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (ring % XRNIC_RING_ALIGN)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "ring_addr not page aligned");
	if (!xe_is_pow2(depth) || depth < XRNIC_MIN_RING_DEPTH || depth > XE_MAX_CQE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "depth not a power of two in 2..max_cqe");
	if (vector >= xe->id.num_vectors)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "eq_vector beyond the device's vectors");
	if (db % XRNIC_DB_RECORD_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "db_addr not 64-byte aligned");
	if (vector && !xe->eq[vector].live)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no event queue on eq_vector");
	host = xe_gm_ptr(&xe->mem, ring, (uint64_t)depth * XRNIC_CQE_SIZE);
	db_host = xe_gm_ptr(&xe->mem, db, XRNIC_DB_RECORD_SIZE);
	if (!host || !db_host)
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "ring or db_addr outside guest RAM");
	cqn = xe_obj_unused(xe, XE_CQ);
	if (!cqn)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "CQ table full");
	xe->cq[cqn] = (struct xe_cq){
		.obj.live = true,
		.ring = ring,
		.depth = depth,
		.vector = vector,
		.host = host,
		.db = (struct xrnic_cq_db *)db_host,
	};
	cpl->cq.cqn = htole32(cqn);
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_destroy_cq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_cq *c = &cmd->cq;
	struct xe_cq *cq;

	(void)cpl;
	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	cq = xe_cq_get(xe, le32toh(c->cqn));
	if (!cq)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such CQ");
	if (cq->obj.refs)
		return xe_fail(xe, XRNIC_STATUS_BUSY, "CQ used by a QP");
	cq->obj.live = false;
	return XRNIC_STATUS_OK;
}

/* A full barrier, then the arm request: see struct xrnic_cq_db. */
static void xe_cq_event(struct xe_dev *xe, struct xe_cq *cq, uint32_t cqn,
			const struct xrnic_cqe *cqe)
{
	uint32_t arm, sn, kind;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	arm = le32toh(__atomic_load_n(&cq->db->arm, __ATOMIC_ACQUIRE));
	sn = arm >> XRNIC_CQ_ARM_SN_SHIFT;
	kind = arm & XRNIC_CQ_ARM_KIND;
	if (!kind || sn == cq->answered_sn)
		return;
	if (kind == XRNIC_CQ_ARM_SOLICITED && !(cqe->flags & XRNIC_CQE_SOLICITED) &&
	    cqe->status == XRNIC_WC_SUCCESS)
		return;
	cq->answered_sn = sn;
	if (cq->vector)
		xe_eq_post(xe, cq->vector, cqn);
}

void xe_cq_post(struct xe_dev *xe, uint32_t cqn, struct xrnic_cqe *cqe)
{
	struct xe_cq *cq = xe_cq_get(xe, cqn);
	uint32_t ci;

	if (!cq || cq->overrun)
		return;
	/* Unsigned arithmetic: a consumer index ahead of us reads as full. */
	ci = le32toh(__atomic_load_n(&cq->db->ci, __ATOMIC_ACQUIRE));
	if (cq->pi - ci >= cq->depth) {
		cq->overrun = true;
		xe_log(xe, "CQ %u overrun: completion dropped, CQ in error", cqn);
		xe_aenq_post(xe, XRNIC_EVENT_CQ_ERR, cqn, 0);
		return;
	}
	cqe->timestamp = htole32((uint32_t)xe_now_ns());
	cqe->flags = (cqe->flags & ~XRNIC_CQE_PHASE) | xrnic_entry_phase(cq->pi, cq->depth);
	xe_ring_publish(cq->host + (size_t)(cq->pi & (cq->depth - 1)) * XRNIC_CQE_SIZE, cqe,
			sizeof(*cqe), offsetof(struct xrnic_cqe, flags));
	cq->pi++;
	xe_cq_event(xe, cq, cqn, cqe);
}
