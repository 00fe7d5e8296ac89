// SPDX-License-Identifier: GPL-2.0
/* Device counters (QUERY_STATS) and object counts (QUERY_RESOURCES). */
#include "xe.h"

/* Count one completed admin command. */
void xe_stats_count(struct xe_dev *xe, uint8_t status)
{
	xe->counters[XRNIC_CNT_ADMIN_COMMANDS]++;
	if (status != XRNIC_STATUS_OK)
		xe->counters[XRNIC_CNT_ADMIN_ERRORS]++;
}

/*
 * The counters go into the page the command names.  ADMIN_COMMANDS counts
 * every admin command completed since the last reset, this QUERY_STATS
 * included (it completes OK, so ADMIN_ERRORS is as is): two QUERY_STATS in
 * a row after a reset read 1, then 2.  The TX/RX counters count the
 * transport's packets (wire.c), looped back ones included.
 */
uint8_t xe_cmd_query_stats(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			   struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_query_stats *c = &cmd->query_stats;
	uint64_t addr = le64toh(c->buf_addr);
	unsigned int i;
	__le64 *buf;

	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "reserved bytes set");
	if (!addr || addr % XRNIC_PAGE_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "counter page not page aligned");
	buf = (__le64 *)xe_gm_ptr(&xe->mem, addr, XRNIC_PAGE_SIZE);
	if (!buf)
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "counter page outside guest RAM");
	for (i = 0; i < XRNIC_NUM_COUNTERS; i++)
		buf[i] = htole64(xe->counters[i] + (i == XRNIC_CNT_ADMIN_COMMANDS));
	cpl->stats.num_counters = htole32(XRNIC_NUM_COUNTERS);
	return XRNIC_STATUS_OK;
}

void xe_stats_drop_all(struct xe_dev *xe)
{
	memset(xe->counters, 0, sizeof(xe->counters));
}

/* QUERY_RESOURCES: count the live objects of every table. */
uint8_t xe_cmd_query_resources(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			       struct xrnic_acq_entry *cpl)
{
	struct xrnic_resp_query_resources *r = &cpl->resources;

	if (!xe_all_zero(cmd->data, sizeof(cmd->data)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "parameters given");
	r->pds = htole32(xe_obj_count(xe, XE_PD));
	r->mrs = htole32(xe_obj_count(xe, XE_MR));
	r->cqs = htole32(xe_obj_count(xe, XE_CQ));
	r->qps = htole32(xe_obj_count(xe, XE_QP));
	r->mr_pages = htole64(xe->mr_pages);
	r->srqs = htole32(xe_obj_count(xe, XE_SRQ));
	r->mws = htole32(xe_obj_count(xe, XE_MW));
	return XRNIC_STATUS_OK;
}
