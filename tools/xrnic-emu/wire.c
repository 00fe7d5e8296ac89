// SPDX-License-Identifier: GPL-2.0
/*
 * The port's wire.  A packet sent here is counted; if its QP's destination
 * GID is one of the port's own (qp->loopback, judged when the path or the
 * GID table changes) it loops back to this device (the payload
 * moves straight from the sender's memory), otherwise it leaves as a
 * RoCE v2 frame (frame.c) to the QP's next hop.  Frames from the wire are
 * RoCE v2 ones for this port, which go to the transport, or the Ethernet
 * function's (eth.c).  A received packet is parsed and handed to the
 * responder (requests) or the completer (answers) of the QP its BTH names,
 * or to a UD QP (datagrams); a malformed packet, one for an unknown QP, a
 * QP of another transport or another partition is dropped and counted.
 * A UD QP's datagrams go to the path of their WQE (xe_wire_send_path()).
 */
#include "frame.h"
#include "transport.h"

/* P_Key's low 15 bits; the device has only the default partition. */
#define XE_PKEY_BASE_MASK	0x7fff

/* The largest frame: outer headers, transport headers, an MTU, pad, ICRC. */
#define XE_WIRE_MAX_FRAME	(XE_FRAME_MAX_OUTER + XE_PKT_MAX_HDR + 4096 + 3 + XE_ICRC_LEN)

/*
 * Put a packet on the wire as a RoCE v2 frame of frame_len bytes to the
 * path's next hop: built where the wire will send it from when it can
 * say (eth_reserve: no faults to inject, the link up), else here.
 */
static void xe_wire_out(struct xe_dev *xe, const struct xe_path *path, const uint8_t *hdr,
			size_t hdr_len, const struct xe_pkt *p, const struct xe_buf *payload,
			uint64_t payload_off, size_t frame_len)
{
	static uint8_t buf[XE_WIRE_MAX_FRAME];
	size_t len = hdr_len + p->payload_len + p->pad, outer;
	uint8_t *frame = NULL, *in_place;
	struct xe_buf body;

	if (xe->eth_reserve && !xe->faults.active && !xe->link_down)
		frame = xe->eth_reserve(xe, path->dmac, frame_len);
	in_place = frame;
	if (!frame)
		frame = buf;
	outer = xe_frame_outer(frame, path, len, xe->ip_id++);
	memcpy(frame + outer, hdr, hdr_len);
	body = (struct xe_buf){ .host = frame + outer + hdr_len, .len = p->payload_len };
	/* A source deregistered under the message: nothing goes; the timer retries. */
	if (p->payload_len && xe_buf_copy(xe, &body, 0, payload, payload_off, p->payload_len))
		return;
	memset(frame + outer + hdr_len + p->payload_len, 0, p->pad);
	xe_frame_seal(frame, frame_len);
	if (in_place) {
		xe->eth_commit(xe, frame, frame_len);
		return;
	}
	if (xe->link_down) {
		xe->counters[XRNIC_CNT_ETH_TX_LINK_DOWN]++;
		return;
	}
	xe_fault_xmit(xe, frame, frame_len);
}

size_t xe_wire_send_path(struct xe_dev *xe, const struct xe_path *path, bool loopback,
			 struct xe_pkt *p, const struct xe_buf *payload, uint64_t payload_off)
{
	uint8_t hdr[XE_PKT_MAX_HDR], outer[XE_FRAME_MAX_OUTER];
	size_t frame_len;
	uint32_t n;
	struct xe_frame f;

	p->pkey = XE_DEFAULT_PKEY;
	n = xe_pkt_build(hdr, p);
	f = (struct xe_frame){
		.hdr = hdr, .hdr_avail = n, .len = n + p->payload_len + p->pad,
		.payload = payload, .payload_off = payload_off,
	};
	xe->counters[XRNIC_CNT_TX_PACKETS]++;
	xe->counters[XRNIC_CNT_TX_BYTES] += f.len;
	frame_len = XE_ETH_HLEN + (xe_gid_is_v4(path->dgid) ? XE_IPV4_HLEN : XE_IPV6_HLEN) +
		    XE_UDP_HLEN + f.len + XE_ICRC_LEN;
	if (!loopback) {
		xe_wire_out(xe, path, hdr, n, p, payload, payload_off, frame_len);
		return frame_len;
	}
	/* A datagram's receiver sees the IP header it would have had on the wire. */
	if (p->mask & XE_PKT_DETH) {
		xe_frame_outer(outer, path, f.len, xe->ip_id++);
		f.ip = outer + XE_ETH_HLEN;
		f.ip_len = xe_gid_is_v4(path->dgid) ? XE_IPV4_HLEN : XE_IPV6_HLEN;
		f.smac = outer + 6;
	}
	xe_wire_recv(xe, &f);
	return frame_len;
}

void xe_wire_qp_path(const struct xe_dev *xe, const struct xe_qp *qp, struct xe_path *path)
{
	*path = (struct xe_path){
		.hop_limit = qp->attr.hop_limit, .traffic_class = qp->attr.traffic_class,
		.sport = xe_roce_sport(qp->qpn),
	};
	memcpy(path->dmac, qp->attr.dmac, 6);
	memcpy(path->smac, xe->id.mac, 6);
	memcpy(path->dgid, qp->attr.dgid, 16);
	memcpy(path->sgid, qp->attr.sgid, 16);
}

size_t xe_wire_send(struct xe_dev *xe, const struct xe_qp *qp, struct xe_pkt *p,
		    const struct xe_buf *payload, uint64_t payload_off)
{
	struct xe_path path;

	xe_wire_qp_path(xe, qp, &path);
	return xe_wire_send_path(xe, &path, qp->loopback, p, payload, payload_off);
}

void xe_port_receive(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	size_t head_len = len < XE_FRAME_HEAD ? len : XE_FRAME_HEAD;
	const struct xe_mcast *group = NULL;
	uint8_t head[XE_FRAME_HEAD];
	struct xe_roce_frame rf;
	struct xe_frame f;
	int r;

	if (xe->link_down || !xe->aq_enabled)
		return;
	/* The frame may be in the sender's ring: its headers are read once, here. */
	memcpy(head, frame, head_len);
	r = xe_frame_parse_head(head, frame, len, &rf);
	if (!r) {
		xe_eth_rx(xe, frame, len);
		return;
	}
	/*
	 * Another port's (the segment floods unknown destinations), or a
	 * group's the device did not join (or not readable): not ours to count.
	 */
	if (head[0] & 1) {
		group = r > 0 ? xe_mcast_find(xe, rf.dgid) : NULL;
		if (!group)
			return;
	} else if (memcmp(head, xe->id.mac, 6)) {
		return;
	}
	xe->counters[XRNIC_CNT_RX_PACKETS]++;
	xe->counters[XRNIC_CNT_RX_BYTES] += len;
	if (r < 0 || (!group && !xe_gid_is_ours(xe, rf.dgid))) {
		if (r == -2)
			xe->counters[XRNIC_CNT_RX_ICRC_ERRORS]++;
		xe->counters[XRNIC_CNT_RX_DROPPED]++;
		return;
	}
	f = (struct xe_frame){ .hdr = rf.bth, .hdr_avail = head + head_len - rf.bth,
			       .body = rf.body, .len = rf.len, .ip = rf.ip, .ip_len = rf.ip_len,
			       .smac = head + 6, .group = group };
	xe_wire_dispatch(xe, &f);
}

bool xe_wire_recv(struct xe_dev *xe, const struct xe_frame *f)
{
	xe->counters[XRNIC_CNT_RX_PACKETS]++;
	xe->counters[XRNIC_CNT_RX_BYTES] += f->len;
	return xe_wire_dispatch(xe, f);
}

bool xe_wire_dispatch(struct xe_dev *xe, const struct xe_frame *f)
{
	struct xe_rx rx = { .payload = f->payload, .payload_off = f->payload_off,
			    .ip = f->ip, .ip_len = f->ip_len, .smac = f->smac };
	struct xe_buf after_hdr;
	struct xe_qp *qp;
	uint32_t i;

	if (xe_pkt_parse(&rx.pkt, f->hdr, f->hdr_avail, f->len))
		goto drop;
	if ((rx.pkt.pkey & XE_PKEY_BASE_MASK) != XE_PKEY_BASE_MASK) {
		xe->counters[XRNIC_CNT_RX_PKEY_VIOLATIONS]++;
		goto drop;
	}
	if (!f->payload) {
		if (!f->body && f->hdr_avail < (size_t)rx.pkt.hdr_len + rx.pkt.payload_len)
			goto drop;
		after_hdr = (struct xe_buf){ .host = (f->body ? f->body : f->hdr) + rx.pkt.hdr_len,
					     .len = rx.pkt.payload_len };
		rx.payload = &after_hdr;
		rx.payload_off = 0;
	}
	if (f->group) {
		/* One copy for each QP attached to the group. */
		if (rx.pkt.qpn != XRNIC_MCAST_QPN ||
		    xe_op_transport(rx.pkt.opcode) != XRNIC_QPT_UD)
			goto drop;
		for (i = 0; i < f->group->nqp; i++)
			xe->rx_handlers.ud(xe, xe_qp_get(xe, f->group->qpn[i]), &rx);
		return true;
	}
	qp = xe_qp_get(xe, rx.pkt.qpn);
	/* A CNP is for congestion control, whatever the QP (or none). */
	if (rx.pkt.opcode == XE_OP_CNP) {
		xe->rx_handlers.cnp(xe, qp);
		return true;
	}
	/* Each QP takes the opcodes of its own transport only. */
	if (!qp || xe_op_transport(rx.pkt.opcode) != qp->type)
		goto drop;
	/* A switch on the way was congested: the sender hears of it (DCQCN). */
	if (f->ip && xe_ip_ecn(f->ip, f->ip_len) == XE_ECN_CE)
		xe->rx_handlers.ce(xe, qp, &rx);
	if (qp->type == XRNIC_QPT_UD)
		xe->rx_handlers.ud(xe, qp, &rx);
	else if (rx.pkt.mask & XE_PKT_REQ)
		xe->rx_handlers.request(xe, qp, &rx);
	else
		xe->rx_handlers.answer(xe, qp, &rx);
	return true;
drop:
	xe->counters[XRNIC_CNT_RX_DROPPED]++;
	return false;
}
