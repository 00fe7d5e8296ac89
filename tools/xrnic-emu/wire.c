// SPDX-License-Identifier: GPL-2.0
/*
 * The port's wire.  A packet sent here is counted, and for now loops back
 * to this device's own port: the device has no Ethernet function yet.  A
 * received packet is parsed and handed to the responder (requests) or the
 * completer (answers) of the QP its BTH names; a malformed packet, one for
 * an unknown QP or another partition is dropped and counted.
 */
#include "transport.h"

/* P_Key's low 15 bits; the device has only the default partition. */
#define XE_PKEY_BASE_MASK	0x7fff

void xe_wire_send(struct xe_dev *xe, struct xe_pkt *p, const struct xe_buf *payload,
		  uint64_t payload_off)
{
	uint8_t hdr[XE_PKT_MAX_HDR];
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
	xe_wire_recv(xe, &f);
}

bool xe_wire_recv(struct xe_dev *xe, const struct xe_frame *f)
{
	struct xe_rx rx = { .payload = f->payload, .payload_off = f->payload_off };
	struct xe_buf after_hdr;
	struct xe_qp *qp;

	xe->counters[XRNIC_CNT_RX_PACKETS]++;
	xe->counters[XRNIC_CNT_RX_BYTES] += f->len;
	if (xe_pkt_parse(&rx.pkt, f->hdr, f->hdr_avail, f->len))
		goto drop;
	if ((rx.pkt.pkey & XE_PKEY_BASE_MASK) != XE_PKEY_BASE_MASK)
		goto drop;
	if (!f->payload) {
		if (f->hdr_avail < (size_t)rx.pkt.hdr_len + rx.pkt.payload_len)
			goto drop;
		after_hdr = (struct xe_buf){ .host = f->hdr + rx.pkt.hdr_len,
					     .len = rx.pkt.payload_len };
		rx.payload = &after_hdr;
		rx.payload_off = 0;
	}
	qp = xe_qp_get(xe, rx.pkt.qpn);
	if (!qp)
		goto drop;
	if (rx.pkt.mask & XE_PKT_REQ)
		xe_resp_rcv(xe, qp, &rx);
	else
		xe_comp_rcv(xe, qp, &rx);
	return true;
drop:
	xe->counters[XRNIC_CNT_RX_DROPPED]++;
	return false;
}
