// SPDX-License-Identifier: GPL-2.0
/*
 * The device's one port: its attributes (QUERY_PORT), its GID table
 * (SET_GID) and its physical link, which the operator can take down and up
 * (SIGUSR1 / SIGUSR2 to the process).  Link changes are reported as
 * asynchronous events.
 */
#include "xe.h"

uint8_t xe_cmd_query_port(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_query_port *c = &cmd->query_port;
	struct xrnic_resp_query_port *r = &cpl->query_port;

	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (c->port_num != XE_PORT_NUM)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "no such port");
	r->state = xe->link_down ? XRNIC_PORT_DOWN : XRNIC_PORT_ACTIVE;
	r->phys_state = xe->link_down ? XRNIC_PORT_PHYS_POLLING :
					XRNIC_PORT_PHYS_LINK_UP;
	r->active_mtu = XE_PORT_MTU;
	r->max_mtu = XE_PORT_MTU;
	r->active_speed = XE_PORT_SPEED;
	r->active_width = XE_PORT_WIDTH;
	r->gid_tbl_len = htole16(XE_PORT_GID_TBL_LEN);
	r->max_msg_sz = htole32(XE_PORT_MAX_MSG_SZ);
	r->port_cap_flags = htole32(XE_PORT_CAP_FLAGS);
	r->eth_max_mtu = htole16(XE_ETH_MAX_MTU);
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_set_gid(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_set_gid *c = &cmd->set_gid;
	uint32_t slot;

	(void)cpl;
	if (c->reserved0 || !xe_all_zero(c->reserved, sizeof(c->reserved)) || c->valid > 1 ||
	    (!c->valid && !xe_all_zero(c->gid, sizeof(c->gid))))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (c->port_num != XE_PORT_NUM)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "no such port");
	if (c->index >= XE_PORT_GID_TBL_LEN)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "index beyond the GID table");
	xe->gid[c->index].valid = c->valid;
	memcpy(xe->gid[c->index].gid, c->gid, sizeof(c->gid));
	/* A path to a GID that became or stopped being ours changes side. */
	for (slot = XE_QPN_GSI_SLOT; slot < XE_QPN_SLOT_END; slot++)
		if (xe->qp[slot].obj.live)
			xe->qp[slot].loopback = xe_gid_is_ours(xe, xe->qp[slot].attr.dgid);
	return XRNIC_STATUS_OK;
}

/* True when gid is a valid entry of the port's GID table. */
bool xe_gid_is_ours(const struct xe_dev *xe, const uint8_t *gid)
{
	unsigned int i;

	for (i = 0; i < XE_PORT_GID_TBL_LEN; i++)
		if (xe->gid[i].valid && !memcmp(xe->gid[i].gid, gid, 16))
			return true;
	return false;
}

/* The modified EUI-64 of a MAC (RFC 4291 appendix A): the GUID, and GID 0's low half. */
void xe_mac_eui64(const uint8_t *mac, uint8_t *eui)
{
	eui[0] = mac[0] ^ 2;
	eui[1] = mac[1];
	eui[2] = mac[2];
	eui[3] = 0xff;
	eui[4] = 0xfe;
	memcpy(eui + 5, mac + 3, 3);
}

void xe_gid_drop_all(struct xe_dev *xe)
{
	memset(xe->gid, 0, sizeof(xe->gid));
}

/* Tell the driver the port's state (after enable and on every change). */
void xe_port_announce(struct xe_dev *xe)
{
	xe_aenq_post(xe, xe->link_down ? XRNIC_EVENT_PORT_DOWN :
					 XRNIC_EVENT_PORT_ACTIVE, XE_PORT_NUM, 0);
}

void xe_port_set_link(struct xe_dev *xe, bool up)
{
	if (xe->link_down == !up)
		return;
	xe->link_down = !up;
	xe_log(xe, "port %u link %s", XE_PORT_NUM, up ? "up" : "down");
	if (xe->aq_enabled)
		xe_port_announce(xe);
}
