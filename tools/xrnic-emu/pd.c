// SPDX-License-Identifier: GPL-2.0
/* Protection domains: ALLOC_PD and DEALLOC_PD. */
#include "xe.h"

uint8_t xe_cmd_alloc_pd(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			struct xrnic_acq_entry *cpl)
{
	uint32_t pdn;

	if (!xe_all_zero(cmd->data, sizeof(cmd->data)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "parameters given");
	pdn = xe_obj_unused(xe, XE_PD);
	if (!pdn)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "PD table full");
	xe->pd[pdn] = (struct xe_pd){ .obj.live = true };
	cpl->pd.pdn = htole32(pdn);
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_dealloc_pd(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_pd *c = &cmd->pd;
	struct xe_pd *pd;

	(void)cpl;
	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	pd = xe_pd_get(xe, le32toh(c->pdn));
	if (!pd)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such PD");
	if (pd->obj.refs)
		return xe_fail(xe, XRNIC_STATUS_BUSY, "PD has MRs or QPs");
	pd->obj.live = false;
	return XRNIC_STATUS_OK;
}
