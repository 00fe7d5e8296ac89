// SPDX-License-Identifier: GPL-2.0
/*
 * Admin queue: consume submission entries, execute the commands and write
 * their completions.
 */
#include <string.h>

#include "xe.h"

static bool xe_all_zero(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

static uint8_t xe_query_device(const struct xrnic_aq_entry *cmd,
			       struct xrnic_acq_entry *cpl)
{
	struct xrnic_resp_query_device *r = &cpl->query_device;

	if (!xe_all_zero(cmd->data, sizeof(cmd->data)))
		return XRNIC_STATUS_MALFORMED;
	r->max_qp = htole32(XE_MAX_QP);
	r->max_qp_wr = htole32(XE_MAX_QP_WR);
	r->max_sge = htole32(XE_MAX_SGE);
	r->max_cq = htole32(XE_MAX_CQ);
	r->max_cqe = htole32(XE_MAX_CQE);
	r->max_mr = htole32(XE_MAX_MR);
	r->max_pd = htole32(XE_MAX_PD);
	r->vendor_id = htole32(XRNIC_PCI_VENDOR_ID);
	r->vendor_part_id = htole32(XRNIC_PCI_DEVICE_ID);
	r->hw_ver = htole32(XE_HW_VER);
	r->max_mr_size = htole64(XE_MAX_MR_SIZE);
	r->page_size_cap = htole64(XE_PAGE_SIZE_CAP);
	return XRNIC_STATUS_OK;
}

static uint8_t xe_query_port(const struct xrnic_aq_entry *cmd,
			     struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_query_port *c = &cmd->query_port;
	struct xrnic_resp_query_port *r = &cpl->query_port;

	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return XRNIC_STATUS_MALFORMED;
	if (c->port_num != XE_PORT_NUM)
		return XRNIC_STATUS_BAD_PARAM;
	r->state = XRNIC_PORT_ACTIVE;
	r->phys_state = XRNIC_PORT_PHYS_LINK_UP;
	r->active_mtu = XE_PORT_MTU;
	r->max_mtu = XE_PORT_MTU;
	r->active_speed = XE_PORT_SPEED;
	r->active_width = XE_PORT_WIDTH;
	r->gid_tbl_len = htole16(XE_PORT_GID_TBL_LEN);
	r->max_msg_sz = htole32(XE_PORT_MAX_MSG_SZ);
	r->port_cap_flags = htole32(XE_PORT_CAP_FLAGS);
	return XRNIC_STATUS_OK;
}

static const char *const xe_status_name[] = {
	[XRNIC_STATUS_BAD_OPCODE] = "unknown opcode",
	[XRNIC_STATUS_MALFORMED] = "reserved field or flag set",
	[XRNIC_STATUS_BAD_PARAM] = "parameter out of range",
};

/*
 * Execute one command copied out of the ring and fill in the completion body.
 * The handlers write the response only on success: error data stays zero.
 */
static void xe_execute(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
		       struct xrnic_acq_entry *cpl)
{
	uint8_t status;

	memset(cpl, 0, sizeof(*cpl));
	cpl->cmd_id = cmd->cmd_id;
	if ((cmd->flags & ~XRNIC_ENTRY_PHASE) || cmd->reserved)
		status = XRNIC_STATUS_MALFORMED;
	else if (cmd->opcode == XRNIC_ADMIN_QUERY_DEVICE)
		status = xe_query_device(cmd, cpl);
	else if (cmd->opcode == XRNIC_ADMIN_QUERY_PORT)
		status = xe_query_port(cmd, cpl);
	else
		status = XRNIC_STATUS_BAD_OPCODE;

	if (status != XRNIC_STATUS_OK)
		xe_log_reject(xe, cmd, xe_status_name[status]);
	cpl->status = status;
}

/* Write the body, then publish the entry with its phase bit. */
static void xe_post_completion(struct xe_dev *xe, const struct xrnic_acq_entry *cpl)
{
	uint32_t slot = xe->acq_pi & (xe->acq.depth - 1);
	uint8_t *dst = xe->acq.host + (size_t)slot * XRNIC_ACQ_ENTRY_SIZE;
	const uint8_t *src = (const uint8_t *)cpl;
	size_t flags = offsetof(struct xrnic_acq_entry, flags);

	memcpy(dst, src, flags);
	memcpy(dst + flags + 1, src + flags + 1, sizeof(*cpl) - flags - 1);
	__atomic_store_n(dst + flags, xrnic_entry_phase(xe->acq_pi, xe->acq.depth), __ATOMIC_RELEASE);
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
