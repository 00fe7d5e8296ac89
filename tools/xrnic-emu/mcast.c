// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast for UD (IBTA 10.5): a table of groups, each a multicast GID
 * and the QPs attached to it.  The receive path (wire.c) takes a frame to a
 * multicast MAC only for a group here, and gives one copy of the datagram
 * to each attached QP.
 */
#include <string.h>

#include "frame.h"
#include "xe.h"

bool xe_gid_is_mcast(const uint8_t *gid)
{
	if (xe_gid_is_v4(gid))
		return (gid[12] & 0xf0) == 0xe0;	/* 224.0.0.0/4 */
	return gid[0] == 0xff;
}

struct xe_mcast *xe_mcast_find(struct xe_dev *xe, const uint8_t *gid)
{
	unsigned int i;

	for (i = 0; i < XRNIC_MAX_MCAST_GRP; i++)
		if (xe->mcast[i].nqp && !memcmp(xe->mcast[i].gid, gid, 16))
			return &xe->mcast[i];
	return NULL;
}

/* The attached slot of qpn in g, or -1. */
static int xe_mcast_slot(const struct xe_mcast *g, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; g && i < g->nqp; i++)
		if (g->qpn[i] == qpn)
			return i;
	return -1;
}

/* The QP and group a command names, or NULL and the status in *status. */
static struct xe_qp *xe_mcast_cmd(struct xe_dev *xe, const struct xrnic_cmd_mcast *c,
				  struct xe_mcast **g, uint8_t *status)
{
	struct xe_qp *qp = NULL;

	*status = XRNIC_STATUS_OK;
	if (c->reserved0 || !xe_all_zero(c->reserved, sizeof(c->reserved)))
		*status = xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	else if (!xe_gid_is_mcast(c->gid))
		*status = xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "not a multicast GID");
	else if (!(qp = xe_qp_get(xe, le32toh(c->qpn))))
		*status = xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such QP");
	else if (qp->type != XRNIC_QPT_UD)
		*status = xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "multicast needs a UD QP");
	if (*status)
		return NULL;
	*g = xe_mcast_find(xe, c->gid);
	return qp;
}

uint8_t xe_cmd_attach_mcast(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			    struct xrnic_acq_entry *cpl)
{
	struct xe_mcast *g = NULL;
	struct xe_qp *qp;
	uint8_t status;
	unsigned int i;

	(void)cpl;
	qp = xe_mcast_cmd(xe, &cmd->mcast, &g, &status);
	if (!qp)
		return status;
	if (xe_mcast_slot(g, qp->qpn) >= 0)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "QP already attached");
	for (i = 0; !g && i < XRNIC_MAX_MCAST_GRP; i++)
		if (!xe->mcast[i].nqp) {
			g = &xe->mcast[i];
			memcpy(g->gid, cmd->mcast.gid, 16);
		}
	if (!g || g->nqp == XRNIC_MAX_MCAST_QP_ATTACH)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "multicast table full");
	g->qpn[g->nqp++] = qp->qpn;
	qp->mcast_groups++;
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_detach_mcast(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			    struct xrnic_acq_entry *cpl)
{
	struct xe_mcast *g = NULL;
	struct xe_qp *qp;
	uint8_t status;
	int i;

	(void)cpl;
	qp = xe_mcast_cmd(xe, &cmd->mcast, &g, &status);
	if (!qp)
		return status;
	i = xe_mcast_slot(g, qp->qpn);
	if (i < 0)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "QP not attached");
	g->qpn[i] = g->qpn[--g->nqp];
	qp->mcast_groups--;
	return XRNIC_STATUS_OK;
}

void xe_mcast_drop_all(struct xe_dev *xe)
{
	memset(xe->mcast, 0, sizeof(xe->mcast));
}
