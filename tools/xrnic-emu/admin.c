// SPDX-License-Identifier: GPL-2.0
/*
 * Admin queue: consume submission entries, execute the commands and write
 * their completions.
 */
#include <stdio.h>
#include <string.h>

#include "xe.h"

static uint8_t xe_query_device(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			       struct xrnic_acq_entry *cpl)
{
	struct xrnic_resp_query_device *r = &cpl->query_device;

	if (!xe_all_zero(cmd->data, sizeof(cmd->data)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "parameters given");
	r->max_qp = htole32(XE_MAX_QP);
	r->max_qp_wr = htole32(XE_MAX_QP_WR);
	r->max_sge = htole16(XRNIC_MAX_SGE);
	r->max_cq = htole32(XE_MAX_CQ);
	r->max_cqe = htole32(XE_MAX_CQE);
	r->max_mr = htole32(XE_MAX_MR);
	r->max_pd = htole32(XE_MAX_PD);
	r->vendor_id = htole32(XRNIC_PCI_VENDOR_ID);
	r->vendor_part_id = htole32(XRNIC_PCI_DEVICE_ID);
	r->hw_ver = htole32(XE_HW_VER);
	r->max_mr_size = htole64(XE_MAX_MR_SIZE);
	r->page_size_cap = htole64(XE_PAGE_SIZE_CAP);
	r->max_qp_rd_atom = htole32(XE_MAX_RD_ATOMIC);
	return XRNIC_STATUS_OK;
}

/* The clock CQEs carry the low 32 bits of, whole. */
static uint8_t xe_query_clock(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			      struct xrnic_acq_entry *cpl)
{
	if (!xe_all_zero(cmd->data, sizeof(cmd->data)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "parameters given");
	cpl->clock.now_ns = htole64((uint64_t)xe_now_ns());
	return XRNIC_STATUS_OK;
}

static xe_cmd_fn *const xe_cmds[] = {
	[XRNIC_ADMIN_QUERY_DEVICE]	= xe_query_device,
	[XRNIC_ADMIN_QUERY_PORT]	= xe_cmd_query_port,
	[XRNIC_ADMIN_ALLOC_PD]		= xe_cmd_alloc_pd,
	[XRNIC_ADMIN_DEALLOC_PD]	= xe_cmd_dealloc_pd,
	[XRNIC_ADMIN_REG_MR]		= xe_cmd_reg_mr,
	[XRNIC_ADMIN_DEREG_MR]		= xe_cmd_dereg_mr,
	[XRNIC_ADMIN_CREATE_CQ]		= xe_cmd_create_cq,
	[XRNIC_ADMIN_DESTROY_CQ]	= xe_cmd_destroy_cq,
	[XRNIC_ADMIN_CREATE_QP]		= xe_cmd_create_qp,
	[XRNIC_ADMIN_MODIFY_QP]		= xe_cmd_modify_qp,
	[XRNIC_ADMIN_QUERY_QP]		= xe_cmd_query_qp,
	[XRNIC_ADMIN_DESTROY_QP]	= xe_cmd_destroy_qp,
	[XRNIC_ADMIN_QUERY_STATS]	= xe_cmd_query_stats,
	[XRNIC_ADMIN_QUERY_RESOURCES]	= xe_cmd_query_resources,
	[XRNIC_ADMIN_CREATE_EQ]		= xe_cmd_create_eq,
	[XRNIC_ADMIN_DESTROY_EQ]	= xe_cmd_destroy_eq,
	[XRNIC_ADMIN_START_ETH]		= xe_cmd_start_eth,
	[XRNIC_ADMIN_STOP_ETH]		= xe_cmd_stop_eth,
	[XRNIC_ADMIN_SET_GID]		= xe_cmd_set_gid,
	[XRNIC_ADMIN_CREATE_SRQ]	= xe_cmd_create_srq,
	[XRNIC_ADMIN_DESTROY_SRQ]	= xe_cmd_destroy_srq,
	[XRNIC_ADMIN_MODIFY_SRQ]	= xe_cmd_modify_srq,
	[XRNIC_ADMIN_QUERY_SRQ]		= xe_cmd_query_srq,
	[XRNIC_ADMIN_ATTACH_MCAST]	= xe_cmd_attach_mcast,
	[XRNIC_ADMIN_DETACH_MCAST]	= xe_cmd_detach_mcast,
	[XRNIC_ADMIN_ALLOC_MW]		= xe_cmd_alloc_mw,
	[XRNIC_ADMIN_DEALLOC_MW]	= xe_cmd_dealloc_mw,
	[XRNIC_ADMIN_QUERY_CC]		= xe_cmd_query_cc,
	[XRNIC_ADMIN_SET_CC]		= xe_cmd_set_cc,
	[XRNIC_ADMIN_QUERY_CLOCK]	= xe_query_clock,
	[XRNIC_ADMIN_RESIZE_SRQ]	= xe_cmd_resize_srq,
};

static const char *const xe_status_name[] = {
	[XRNIC_STATUS_BAD_OPCODE] = "unknown opcode",
	[XRNIC_STATUS_MALFORMED] = "reserved field or flag set",
	[XRNIC_STATUS_BAD_PARAM] = "parameter out of range",
	[XRNIC_STATUS_BAD_ADDRESS] = "address outside guest RAM",
	[XRNIC_STATUS_NO_RESOURCES] = "no resources",
	[XRNIC_STATUS_BUSY] = "object in use",
	[XRNIC_STATUS_BAD_STATE] = "illegal QP state transition",
	[XRNIC_STATUS_NOT_FOUND] = "no such object",
};

static void xe_reject(struct xe_dev *xe, const struct xrnic_aq_entry *cmd, uint8_t status)
{
	char why[160];

	if (xe->reject_why)
		snprintf(why, sizeof(why), "%s: %s", xe_status_name[status], xe->reject_why);
	else
		snprintf(why, sizeof(why), "%s", xe_status_name[status]);
	xe_log_reject(xe, cmd, why);
}

/*
 * Execute one command copied out of the ring and fill in the completion body.
 * The handlers write the response only on success: error data stays zero.
 * When several checks fail, the status is that of the first in the order
 * MALFORMED, BAD_PARAM, NOT_FOUND, BAD_ADDRESS, NO_RESOURCES, then BUSY or
 * BAD_STATE; REG_MR checks its page list last (BAD_PARAM, BAD_ADDRESS).
 */
static void xe_execute(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
		       struct xrnic_acq_entry *cpl)
{
	uint8_t status;

	memset(cpl, 0, sizeof(*cpl));
	cpl->cmd_id = cmd->cmd_id;
	xe->reject_why = NULL;
	if ((cmd->flags & ~XRNIC_ENTRY_PHASE) || cmd->reserved)
		status = XRNIC_STATUS_MALFORMED;
	else if (cmd->opcode < ARRAY_SIZE(xe_cmds) && xe_cmds[cmd->opcode])
		status = xe_cmds[cmd->opcode](xe, cmd, cpl);
	else
		status = XRNIC_STATUS_BAD_OPCODE;

	if (status != XRNIC_STATUS_OK) {
		xe_reject(xe, cmd, status);
		memset(cpl->data, 0, sizeof(cpl->data));
	}
	xe_stats_count(xe, status);
	cpl->status = status;
}

/* Write the body, then publish the entry with its phase bit. */
static void xe_post_completion(struct xe_dev *xe, struct xrnic_acq_entry *cpl)
{
	uint32_t slot = xe->acq_pi & (xe->acq.depth - 1);

	cpl->flags = xrnic_entry_phase(xe->acq_pi, xe->acq.depth);
	xe_ring_publish(xe->acq.host + (size_t)slot * XRNIC_ACQ_ENTRY_SIZE, cpl, sizeof(*cpl),
			offsetof(struct xrnic_acq_entry, flags));
	xe->acq_pi++;
}

void xe_admin_process(struct xe_dev *xe)
{
	uint32_t depth = xe->aq.depth;
	struct xrnic_aq_entry cmd;
	struct xrnic_acq_entry cpl;
	unsigned int done;
	uint8_t *src;

	/* At most one lap per doorbell, so a guest cannot keep us busy. */
	for (done = 0; done < depth; done++) {
		src = xe->aq.host + (size_t)(xe->aq_ci & (depth - 1)) * XRNIC_AQ_ENTRY_SIZE;
		if ((__atomic_load_n(src + offsetof(struct xrnic_aq_entry, flags),
				     __ATOMIC_ACQUIRE) & XRNIC_ENTRY_PHASE) !=
		    xrnic_entry_phase(xe->aq_ci, depth))
			break;
		memcpy(&cmd, src, sizeof(cmd));
		xe->aq_ci++;
		xe_execute(xe, &cmd, &cpl);
		xe_post_completion(xe, &cpl);
	}
	if (done && (xe_reg_read(xe, XRNIC_REG_AQ_CTL) & XRNIC_AQ_CTL_ACQ_IRQ))
		xe->raise_irq(xe, XRNIC_VEC_ADMIN);
}
