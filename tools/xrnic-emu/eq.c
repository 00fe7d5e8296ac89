// SPDX-License-Identifier: GPL-2.0
/*
 * Completion event queues: one per MSI-X vector 1 .. N-1 (CREATE_EQ,
 * DESTROY_EQ).  An event names a CQ and raises the vector.
 */
#include "xe.h"

static uint8_t xe_eq_vector(struct xe_dev *xe, const struct xrnic_cmd_eq *c, uint16_t *vector)
{
	if (c->reserved0 || !xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	*vector = le16toh(c->vector);
	if (*vector == XRNIC_VEC_ADMIN || *vector >= xe->id.num_vectors)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "vector not in 1..vectors-1");
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_create_eq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			 struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_eq *c = &cmd->eq;
	uint64_t ring = le64toh(c->ring_addr), db = le64toh(c->db_addr);
	uint32_t depth = le32toh(c->depth);
	uint8_t *host, *db_host, status;
	uint16_t vector;

	(void)cpl;
	status = xe_eq_vector(xe, c, &vector);
	if (status)
		return status;
	if (ring % XRNIC_RING_ALIGN || db % XRNIC_DB_RECORD_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "ring or db_addr misaligned");
	if (!xe_is_pow2(depth) || depth < XRNIC_MIN_RING_DEPTH || depth > XRNIC_MAX_EQ_DEPTH)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "depth not a power of two in 2..4096");
	host = xe_gm_ptr(&xe->mem, ring, (uint64_t)depth * XRNIC_EQE_SIZE);
	db_host = xe_gm_ptr(&xe->mem, db, XRNIC_DB_RECORD_SIZE);
	if (!host || !db_host)
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "ring or db_addr outside guest RAM");
	if (xe->eq[vector].live)
		return xe_fail(xe, XRNIC_STATUS_BUSY, "vector already has an event queue");
	xe->eq[vector] = (struct xe_eq){
		.live = true,
		.host = host,
		.depth = depth,
		.db = (struct xrnic_eq_db *)db_host,
	};
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_destroy_eq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_eq *c = &cmd->eq;
	unsigned int i;
	uint16_t vector;
	uint8_t status;

	(void)cpl;
	status = xe_eq_vector(xe, c, &vector);
	if (status)
		return status;
	if (c->ring_addr || c->depth || c->db_addr)
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "DESTROY_EQ takes only the vector");
	if (!xe->eq[vector].live)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no event queue on this vector");
	for (i = 1; i <= XE_MAX_CQ; i++)
		if (xe->cq[i].obj.live && xe->cq[i].vector == vector)
			return xe_fail(xe, XRNIC_STATUS_BUSY, "a CQ uses this event queue");
	xe->eq[vector] = (struct xe_eq){ };
	return XRNIC_STATUS_OK;
}

void xe_eq_post(struct xe_dev *xe, uint16_t vector, uint32_t cqn)
{
	struct xe_eq *eq = &xe->eq[vector];
	struct xrnic_eqe e = { .cqn = htole32(cqn), .event = XRNIC_EQE_COMP };

	if (!eq->live)
		return;
	/* Unsigned arithmetic: a consumer index ahead of us reads as full. */
	if (eq->pi - le32toh(__atomic_load_n(&eq->db->ci, __ATOMIC_ACQUIRE)) >= eq->depth) {
		if (!eq->dropped++)
			xe_log(xe, "event queue %u full: completion events dropped", vector);
		return;
	}
	e.flags = xrnic_entry_phase(eq->pi, eq->depth);
	xe_ring_publish(eq->host + (size_t)(eq->pi & (eq->depth - 1)) * XRNIC_EQE_SIZE, &e,
			sizeof(e), offsetof(struct xrnic_eqe, flags));
	eq->pi++;
	xe->raise_irq(xe, vector);
}

void xe_eq_drop_all(struct xe_dev *xe)
{
	memset(xe->eq, 0, sizeof(xe->eq));
}
