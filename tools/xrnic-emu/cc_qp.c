// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control of the device's QPs, around the algorithm (cc.c): a
 * CE-marked packet makes its QP send a CNP (wire.c calls), a CNP cuts its
 * QP's rate (wire.c calls), and a limited QP's packets leave at that rate
 * (req.c), the poll loop waking for the next one; QUERY_CC and SET_CC.
 */
#include <string.h>

#include "transport.h"
#include "frame.h"

/*
 * The path back to the sender of a UD QP's datagram: the reverse of its
 * frame (its source MAC and address; our address it was sent to).
 */
static void xe_cc_reverse_path(const struct xe_dev *xe, const struct xe_qp *qp,
			       const struct xe_rx *rx, struct xe_path *path)
{
	*path = (struct xe_path){ .hop_limit = 64, .sport = xe_roce_sport(qp->qpn) };
	memcpy(path->dmac, rx->smac, 6);
	memcpy(path->smac, xe->id.mac, 6);
	xe_ip_gids(rx->ip, rx->ip_len, path->dgid, path->sgid);
}

/*
 * The device.  The NP answers an RC or UC QP's CE-marked packet to its
 * peer (dest_qpn, on the QP's path), a UD QP's datagram to the DETH's
 * source QP (the one QP it names) on the reverse path of the frame; at
 * most one CNP per receiving QP per min_time_between_cnps.
 */
void xe_cc_ce_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	struct xe_pkt p = { .opcode = XE_OP_CNP, .psn = 0 };
	struct xe_path path;
	bool loopback;

	xe->counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]++;
	if (!xe->cc.np_enable || !qp || qp->qpn == XRNIC_GSI_QPN ||
	    (qp->state != XRNIC_QPS_RTR && qp->state != XRNIC_QPS_RTS))
		return;
	if (!xe_cc_np_may_send(&xe->cc, &qp->np, xe_clock(xe)))
		return;
	/* To the QP that sent it; DSCP cnp_dscp, not ECN-capable. */
	if (qp->type == XRNIC_QPT_UD) {
		p.qpn = rx->pkt.src_qp;
		xe_cc_reverse_path(xe, qp, rx, &path);
		loopback = xe_gid_is_ours(xe, path.dgid);
	} else {
		p.qpn = qp->attr.dest_qpn;
		xe_wire_qp_path(xe, qp, &path);
		loopback = qp->loopback;
	}
	path.traffic_class = xe->cc.cnp_dscp << 2;
	path.not_ect = true;
	xe->counters[XRNIC_CNT_NP_CNP_SENT]++;
	xe_wire_send_path(xe, &path, loopback, &p, NULL, 0);
}

/*
 * A CNP cuts the rate of a QP in RTS (one that sends: RC, UC or UD; a
 * UD QP's rate is for all its datagrams); any other CNP, and one within
 * the monitor period of the QP's last cut, is ignored.
 */
void xe_cc_cnp_rcv(struct xe_dev *xe, struct xe_qp *qp)
{
	if (xe->cc.rp_enable && qp && qp->qpn != XRNIC_GSI_QPN && qp->state == XRNIC_QPS_RTS &&
	    xe_cc_rp_cnp(&xe->cc, &qp->rp, xe_clock(xe))) {
		xe->counters[XRNIC_CNT_RP_CNP_HANDLED]++;
		return;
	}
	xe->counters[XRNIC_CNT_RP_CNP_IGNORED]++;
}

bool xe_cc_may_send(struct xe_dev *xe, struct xe_qp *qp)
{
	int64_t wait;

	return xe_cc_rp_may_send(&xe->cc, &qp->rp, xe_clock(xe), &wait);
}

void xe_cc_sent(struct xe_dev *xe, struct xe_qp *qp, uint64_t bytes)
{
	xe_cc_rp_sent(&xe->cc, &qp->rp, bytes, xe_clock(xe));
}

int64_t xe_cc_wait(struct xe_dev *xe, const struct xe_qp *qp)
{
	int64_t now;

	if (!qp->rp.rc || !qp->rp.blocked)
		return -1;
	now = xe_clock(xe);
	return qp->rp.next_send > now ? qp->rp.next_send - now : 0;
}

/* QUERY_CC and SET_CC: one parameter, for every QP from now on. */
static uint32_t *xe_cc_cmd_param(struct xe_dev *xe, const struct xrnic_cmd_cc *c,
				 uint32_t *min, uint32_t *max, uint8_t *status)
{
	uint32_t *v;

	*status = XRNIC_STATUS_OK;
	if (!xe_all_zero(c->reserved, sizeof(c->reserved))) {
		*status = xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
		return NULL;
	}
	v = xe_cc_param(&xe->cc, le32toh(c->param), min, max);
	if (!v)
		*status = xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "no such parameter");
	return v;
}

uint8_t xe_cmd_query_cc(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			struct xrnic_acq_entry *cpl)
{
	uint32_t min, max, *v;
	uint8_t status;

	if (cmd->cc.value)
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "a value given");
	v = xe_cc_cmd_param(xe, &cmd->cc, &min, &max, &status);
	if (!v)
		return status;
	cpl->cc.param = cmd->cc.param;
	cpl->cc.value = htole32(*v);
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_set_cc(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
		      struct xrnic_acq_entry *cpl)
{
	uint32_t min, max, value = le32toh(cmd->cc.value), *v;
	uint8_t status;

	(void)cpl;
	v = xe_cc_cmd_param(xe, &cmd->cc, &min, &max, &status);
	if (!v)
		return status;
	if (value < min || value > max)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "value outside the parameter's range");
	*v = value;
	return XRNIC_STATUS_OK;
}
