// SPDX-License-Identifier: GPL-2.0
/*
 * The UD transport (IBTA 9.8): datagrams of one packet.  A send WQE names
 * its destination in its address vector, remote QPN and Q_Key, becomes one
 * SEND Only packet with a DETH and completes as soon as it has left: no
 * ACK, no retransmission, a lost datagram is lost.  A received datagram
 * whose Q_Key is not its QP's is dropped and counted; one that finds no
 * receive WQE, or one too small for the GRH and the payload, is dropped
 * (the receive WQE stays posted, as rxe and IBTA's class D errors say) but
 * on an SRQ, which gave the WQE up: that one completes with LOC_LEN_ERR.
 * Delivered, the GRH takes the buffer's first XRNIC_GRH_LEN bytes.
 */
#include <errno.h>

#include "frame.h"
#include "transport.h"

/* The largest datagram: the port's MTU. */
#define XE_UD_MAX_PAYLOAD	(128u << XE_PORT_MTU)
#define XE_FLOW_LABEL_MASK	0xfffffu

/* Check the WQE m holds and fill its local buffer; 0 or a completion status. */
static uint8_t xe_ud_check(struct xe_dev *xe, const struct xe_qp *qp, struct xe_msg *m,
			   uint8_t *verr)
{
	const struct xrnic_sqe *w = &m->wqe;
	const struct xrnic_av *av = &w->ud.av;
	unsigned int i;

	*verr = XRNIC_VERR_BAD_WQE;
	if ((w->opcode != XRNIC_WR_SEND && w->opcode != XRNIC_WR_SEND_WITH_IMM) ||
	    (w->flags & ~XRNIC_SQE_FLAGS_ALL) || w->reserved0 || w->rkey ||
	    le32toh(w->dest_qpn) > XRNIC_QPN_MASK || av->sgid_index >= XE_PORT_GID_TBL_LEN ||
	    !xe->gid[av->sgid_index].valid ||
	    ((av->dmac[0] & 1) && !xe_gid_is_mcast(av->dgid)) ||
	    !xe_all_zero(av->reserved, sizeof(av->reserved)) ||
	    le32toh(av->flow_label) > XE_FLOW_LABEL_MASK)
		return XRNIC_WC_LOC_QP_OP_ERR;
	if (w->flags & XRNIC_SQE_INLINE) {
		if (le32toh(w->inline_len) > qp->max_inline)
			return XRNIC_WC_LOC_QP_OP_ERR;
		m->local = (struct xe_buf){ .host = w->ud.inline_data, .len = le32toh(w->inline_len) };
	} else {
		if (w->num_sge > qp->max_send_sge)
			return XRNIC_WC_LOC_QP_OP_ERR;
		m->local = (struct xe_buf){ .piece = m->pieces, .npieces = w->num_sge, .pdn = qp->pdn };
		for (i = 0; i < w->num_sge; i++) {
			m->pieces[i] = (struct xe_piece){
				.key = le32toh(w->ud.sge[i].lkey),
				.addr = le64toh(w->ud.sge[i].addr),
				.len = le32toh(w->ud.sge[i].length),
			};
			m->local.len += m->pieces[i].len;
		}
	}
	if (m->local.len > XE_UD_MAX_PAYLOAD)
		return XRNIC_WC_LOC_LEN_ERR;
	if (xe_buf_check(xe, &m->local)) {
		*verr = XRNIC_VERR_LKEY;
		return XRNIC_WC_LOC_PROT_ERR;
	}
	*verr = XRNIC_VERR_NONE;
	return XRNIC_WC_SUCCESS;
}

/* Send the datagram of the checked WQE in m; its frame's bytes. */
static size_t xe_ud_xmit(struct xe_dev *xe, struct xe_qp *qp, const struct xe_msg *m)
{
	const struct xrnic_sqe *w = &m->wqe;
	const struct xrnic_av *av = &w->ud.av;
	uint32_t qkey = le32toh(w->qkey);
	struct xe_path path = {
		.hop_limit = av->hop_limit, .traffic_class = av->traffic_class,
		.flow_label = le32toh(av->flow_label), .sport = xe_roce_sport(qp->qpn),
	};
	struct xe_pkt p = {
		.opcode = w->opcode == XRNIC_WR_SEND ? XE_OP_UD_SEND_ONLY : XE_OP_UD_SEND_ONLY_IMM,
		.se = w->flags & XRNIC_SQE_SOLICITED,
		.qpn = le32toh(w->dest_qpn),
		.psn = qp->attr.sq_psn,
		.qkey = qkey & XRNIC_QKEY_USE_QP ? qp->attr.qkey : qkey,
		.src_qp = qp->qpn,
		.imm = w->imm_data_be,
		.payload_len = m->local.len,
	};

	qp->attr.sq_psn = (qp->attr.sq_psn + 1) & XE_PSN_MASK;
	memcpy(path.dmac, av->dmac, 6);
	memcpy(path.smac, xe->id.mac, 6);
	memcpy(path.dgid, av->dgid, 16);
	memcpy(path.sgid, xe->gid[av->sgid_index].gid, 16);
	return xe_wire_send_path(xe, &path, xe_gid_is_ours(xe, av->dgid), &p, &m->local, 0);
}

bool xe_ud_send(struct xe_dev *xe, struct xe_qp *qp, uint32_t pi)
{
	struct xe_msg *m = xe_req_msg(qp, qp->sq_ci);
	uint8_t status, verr;
	size_t len;

	/*
	 * Nothing posted, a paused port (lossless mode), or a rate-limited
	 * QP whose time has not come (DCQCN, cc.c): the WQE waits.
	 */
	if (pi == qp->sq_ci || xe->tx_paused || (qp->rp.rc && !xe_cc_may_send(xe, qp)))
		return false;
	/* The guest may rewrite the slot: work on a copy. */
	memcpy(&m->wqe, qp->sq + (size_t)(qp->sq_ci & (qp->sq_depth - 1)) * XRNIC_SQE_SIZE,
	       sizeof(m->wqe));
	m->first_psn = qp->attr.sq_psn;
	m->npsn = 1;
	m->done = 0;
	status = xe_ud_check(xe, qp, m, &verr);
	if (status == XRNIC_WC_SUCCESS) {
		len = xe_ud_xmit(xe, qp, m);
		if (qp->rp.rc)
			xe_cc_sent(xe, qp, len);
	}
	qp->req.sq_next = qp->sq_ci + 1;
	qp->req.send_idx = qp->req.sq_next;
	/* Sent is done: the WQE completes (an error moves the QP to ERR). */
	xe_comp_wqe(xe, qp, status, verr, status == XRNIC_WC_SUCCESS ? m->local.len : 0);
	return true;
}

/* The GRH of a datagram: its IPv6 header, or 20 zeros and its IPv4 header. */
static void xe_ud_grh(const struct xe_rx *rx, uint8_t *grh)
{
	memset(grh, 0, XRNIC_GRH_LEN);
	if (rx->ip && rx->ip_len == XE_IPV4_HLEN)
		memcpy(grh + XRNIC_GRH_LEN - XE_IPV4_HLEN, rx->ip, XE_IPV4_HLEN);
	else if (rx->ip && rx->ip_len == XE_IPV6_HLEN)
		memcpy(grh, rx->ip, XE_IPV6_HLEN);
}

void xe_ud_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	const struct xe_pkt *p = &rx->pkt;
	struct xe_piece pieces[XRNIC_MAX_SGE];
	uint8_t grh[XRNIC_GRH_LEN], status = XRNIC_WC_SUCCESS, verr = XRNIC_VERR_NONE;
	struct xe_buf dst, grh_buf = { .host = grh, .len = sizeof(grh) };
	struct xrnic_rqe rqe;
	uint32_t flags = XRNIC_CQE_GRH;
	int r;

	if (qp->state != XRNIC_QPS_RTR && qp->state != XRNIC_QPS_RTS)
		goto drop;
	if (p->qkey != qp->attr.qkey) {
		xe->counters[XRNIC_CNT_RX_QKEY_VIOLATIONS]++;
		goto drop;
	}
	r = xe_rq_take(xe, qp, &rqe);
	if (r == -EIO) {
		xe_qp_to_err(xe, qp);
		goto drop;
	}
	if (r)
		goto drop;
	if (xe_rqe_buf(xe, qp, &rqe, pieces, &dst)) {
		status = XRNIC_WC_LOC_QP_OP_ERR;
		verr = XRNIC_VERR_BAD_WQE;
	} else if (XRNIC_GRH_LEN + (uint64_t)p->payload_len > dst.len) {
		/* An SRQ gave its WQE up: it cannot stay posted, so it fails. */
		if (!qp->srqn)
			goto drop;
		status = XRNIC_WC_LOC_LEN_ERR;
		verr = XRNIC_VERR_RECV_LEN;
	} else {
		xe_ud_grh(rx, grh);
		if (xe_buf_copy(xe, &dst, 0, &grh_buf, 0, sizeof(grh)) ||
		    xe_buf_copy(xe, &dst, XRNIC_GRH_LEN, rx->payload, rx->payload_off,
				p->payload_len)) {
			status = XRNIC_WC_LOC_PROT_ERR;
			verr = XRNIC_VERR_LKEY;
		}
	}
	xe_rq_consumed(qp);
	if (status != XRNIC_WC_SUCCESS) {
		xe_comp_recv(xe, qp, le64toh(rqe.wr_id), status, verr, XRNIC_WC_RECV, 0, 0, 0, 0);
		xe_qp_to_err(xe, qp);
		return;
	}
	if (rx->ip && rx->ip_len == XE_IPV4_HLEN)
		flags |= XRNIC_CQE_GRH_IPV4;
	if (p->mask & XE_PKT_IMMDT)
		flags |= XRNIC_CQE_WITH_IMM;
	if (p->se)
		flags |= XRNIC_CQE_SOLICITED;
	xe_comp_recv(xe, qp, le64toh(rqe.wr_id), status, verr, XRNIC_WC_RECV,
		     XRNIC_GRH_LEN + p->payload_len, p->src_qp, flags,
		     p->mask & XE_PKT_IMMDT ? p->imm : 0);
	return;
drop:
	xe->counters[XRNIC_CNT_RX_DROPPED]++;
}
