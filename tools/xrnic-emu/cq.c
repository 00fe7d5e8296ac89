// SPDX-License-Identifier: GPL-2.0
/* Completion queues: CREATE_CQ and DESTROY_CQ. */
#include "xe.h"

/* The live CQ numbered cqn, or NULL. */
struct xe_cq *xe_cq_get(struct xe_dev *xe, uint32_t cqn)
{
	if (cqn < 1 || cqn > XE_MAX_CQ || !xe->cq[cqn].live)
		return NULL;
	return &xe->cq[cqn];
}

uint8_t xe_cmd_create_cq(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			 struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_create_cq *c = &cmd->create_cq;
	uint64_t ring = le64toh(c->ring_addr);
	uint32_t depth = le32toh(c->depth), cqn;
	uint16_t vector = le16toh(c->eq_vector);

	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (ring % XRNIC_RING_ALIGN)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "ring_addr not page aligned");
	if (!xe_is_pow2(depth) || depth < XRNIC_MIN_RING_DEPTH || depth > XE_MAX_CQE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "depth not a power of two in 2..max_cqe");
	if (vector >= xe->id.num_vectors)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "eq_vector beyond the device's vectors");
	if (!xe_gm_ptr(&xe->mem, ring, (uint64_t)depth * XRNIC_CQE_SIZE))
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "ring outside guest RAM");
	for (cqn = 1; cqn <= XE_MAX_CQ; cqn++)
		if (!xe->cq[cqn].live)
			break;
	if (cqn > XE_MAX_CQ)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "CQ table full");
	xe->cq[cqn] = (struct xe_cq){
		.live = true,
		.ring = ring,
		.depth = depth,
		.vector = vector,
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
	if (cq->refs)
		return xe_fail(xe, XRNIC_STATUS_BUSY, "CQ used by a QP");
	cq->live = false;
	return XRNIC_STATUS_OK;
}

void xe_cq_drop_all(struct xe_dev *xe)
{
	memset(xe->cq, 0, sizeof(xe->cq));
}
