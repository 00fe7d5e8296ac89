// SPDX-License-Identifier: GPL-2.0
/* RoCE v2 transport headers: the opcode table, building and parsing. */
#include <errno.h>
#include <string.h>

#include "pkt.h"

#define SEND		(XE_PKT_SEND | XE_PKT_REQ | XE_PKT_PAYLOAD)
#define WRITE		(XE_PKT_WRITE | XE_PKT_REQ | XE_PKT_PAYLOAD)
#define READ_RESP	(XE_PKT_READ | XE_PKT_PAYLOAD)
#define FIRST		XE_PKT_FIRST
#define LAST		XE_PKT_LAST
#define ONLY		(XE_PKT_FIRST | XE_PKT_LAST)

static const struct xe_op_info xe_ops[XE_OP_NUM] = {
	[XE_OP_SEND_FIRST]	= { "SEND_FIRST", SEND | FIRST },
	[XE_OP_SEND_MIDDLE]	= { "SEND_MIDDLE", SEND },
	[XE_OP_SEND_LAST]	= { "SEND_LAST", SEND | LAST },
	[XE_OP_SEND_LAST_IMM]	= { "SEND_LAST_WITH_IMMEDIATE", SEND | LAST | XE_PKT_IMMDT },
	[XE_OP_SEND_ONLY]	= { "SEND_ONLY", SEND | ONLY },
	[XE_OP_SEND_ONLY_IMM]	= { "SEND_ONLY_WITH_IMMEDIATE", SEND | ONLY | XE_PKT_IMMDT },
	[XE_OP_WRITE_FIRST]	= { "RDMA_WRITE_FIRST", WRITE | FIRST | XE_PKT_RETH },
	[XE_OP_WRITE_MIDDLE]	= { "RDMA_WRITE_MIDDLE", WRITE },
	[XE_OP_WRITE_LAST]	= { "RDMA_WRITE_LAST", WRITE | LAST },
	[XE_OP_WRITE_LAST_IMM]	= { "RDMA_WRITE_LAST_WITH_IMMEDIATE",
				    WRITE | LAST | XE_PKT_IMMDT },
	[XE_OP_WRITE_ONLY]	= { "RDMA_WRITE_ONLY", WRITE | ONLY | XE_PKT_RETH },
	[XE_OP_WRITE_ONLY_IMM]	= { "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
				    WRITE | ONLY | XE_PKT_RETH | XE_PKT_IMMDT },
	[XE_OP_READ_REQUEST]	= { "RDMA_READ_REQUEST",
				    XE_PKT_READ | XE_PKT_REQ | ONLY | XE_PKT_RETH },
	[XE_OP_READ_RESP_FIRST]	= { "RDMA_READ_RESPONSE_FIRST", READ_RESP | FIRST | XE_PKT_AETH },
	[XE_OP_READ_RESP_MIDDLE] = { "RDMA_READ_RESPONSE_MIDDLE", READ_RESP },
	[XE_OP_READ_RESP_LAST]	= { "RDMA_READ_RESPONSE_LAST", READ_RESP | LAST | XE_PKT_AETH },
	[XE_OP_READ_RESP_ONLY]	= { "RDMA_READ_RESPONSE_ONLY", READ_RESP | ONLY | XE_PKT_AETH },
	[XE_OP_ACKNOWLEDGE]	= { "ACKNOWLEDGE", XE_PKT_ACK | ONLY | XE_PKT_AETH },
	[XE_OP_ATOMIC_ACK]	= { "ATOMIC_ACKNOWLEDGE",
				    XE_PKT_ATOMIC | ONLY | XE_PKT_AETH | XE_PKT_ATMACK },
	[XE_OP_CMP_SWAP]	= { "CMP_SWAP", XE_PKT_ATOMIC | XE_PKT_REQ | ONLY | XE_PKT_ATMETH },
	[XE_OP_FETCH_ADD]	= { "FETCH_ADD", XE_PKT_ATOMIC | XE_PKT_REQ | ONLY | XE_PKT_ATMETH },
	[XE_OP_SEND_LAST_INV]	= { "SEND_LAST_WITH_INVALIDATE", SEND | LAST | XE_PKT_IETH },
	[XE_OP_SEND_ONLY_INV]	= { "SEND_ONLY_WITH_INVALIDATE", SEND | ONLY | XE_PKT_IETH },
	/* UC: the SENDs and WRITEs of RC, 0x20 on. */
	[0x20]	= { "UC_SEND_FIRST", SEND | FIRST },
	[0x21]	= { "UC_SEND_MIDDLE", SEND },
	[0x22]	= { "UC_SEND_LAST", SEND | LAST },
	[0x23]	= { "UC_SEND_LAST_WITH_IMMEDIATE", SEND | LAST | XE_PKT_IMMDT },
	[0x24]	= { "UC_SEND_ONLY", SEND | ONLY },
	[0x25]	= { "UC_SEND_ONLY_WITH_IMMEDIATE", SEND | ONLY | XE_PKT_IMMDT },
	[0x26]	= { "UC_RDMA_WRITE_FIRST", WRITE | FIRST | XE_PKT_RETH },
	[0x27]	= { "UC_RDMA_WRITE_MIDDLE", WRITE },
	[0x28]	= { "UC_RDMA_WRITE_LAST", WRITE | LAST },
	[0x29]	= { "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", WRITE | LAST | XE_PKT_IMMDT },
	[0x2a]	= { "UC_RDMA_WRITE_ONLY", WRITE | ONLY | XE_PKT_RETH },
	[0x2b]	= { "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", WRITE | ONLY | XE_PKT_RETH | XE_PKT_IMMDT },
	[XE_OP_UD_SEND_ONLY]	= { "UD_SEND_ONLY", SEND | ONLY | XE_PKT_DETH },
	[XE_OP_UD_SEND_ONLY_IMM] = { "UD_SEND_ONLY_WITH_IMMEDIATE",
				     SEND | ONLY | XE_PKT_DETH | XE_PKT_IMMDT },
	/* No transport's: the wire hands it to congestion control (cc.c). */
	[XE_OP_CNP]		= { "CNP", ONLY | XE_PKT_CNP },
};

const struct xe_op_info *xe_op_info(uint8_t opcode)
{
	return xe_ops[opcode].name ? &xe_ops[opcode] : NULL;
}

/* The extension headers in the order IBTA 9.2 puts them after the BTH. */
static const struct {
	uint32_t bit;
	uint32_t size;
} xe_ext_hdrs[] = {
	{ XE_PKT_DETH, sizeof(struct xe_deth) },
	{ XE_PKT_RETH, sizeof(struct xe_reth) },
	{ XE_PKT_ATMETH, sizeof(struct xe_atmeth) },
	{ XE_PKT_AETH, sizeof(struct xe_aeth) },
	{ XE_PKT_ATMACK, sizeof(struct xe_atmack) },
	{ XE_PKT_IMMDT, sizeof(struct xe_immdt) },
	{ XE_PKT_IETH, sizeof(struct xe_ieth) },
	{ XE_PKT_CNP, sizeof(struct xe_cnp_rsvd) },
};

static uint32_t xe_hdr_len(uint32_t mask)
{
	uint32_t len = sizeof(struct xe_bth);
	size_t i;

	for (i = 0; i < sizeof(xe_ext_hdrs) / sizeof(xe_ext_hdrs[0]); i++)
		if (mask & xe_ext_hdrs[i].bit)
			len += xe_ext_hdrs[i].size;
	return len;
}

uint32_t xe_pkt_build(uint8_t *hdr, struct xe_pkt *p)
{
	struct xe_bth bth;
	uint8_t *at = hdr + sizeof(bth);

	p->mask = xe_ops[p->opcode].mask;
	p->pad = -p->payload_len & 3;
	p->hdr_len = xe_hdr_len(p->mask);
	bth = (struct xe_bth){
		.opcode = p->opcode,
		.flags = (p->se ? XE_BTH_SE : 0) | p->pad << XE_BTH_PAD_SHIFT,
		.pkey = htobe16(p->pkey),
		.qpn = htobe32(p->qpn & XE_QPN_MASK),
		.apsn = htobe32((p->ackreq ? XE_BTH_ACKREQ : 0) | (p->psn & XE_PSN_MASK)),
	};
	memcpy(hdr, &bth, sizeof(bth));
	if (p->mask & XE_PKT_DETH) {
		struct xe_deth h = { htobe32(p->qkey), htobe32(p->src_qp & XE_QPN_MASK) };

		memcpy(at, &h, sizeof(h));
		at += sizeof(h);
	}
	if (p->mask & XE_PKT_RETH) {
		struct xe_reth h = { htobe64(p->va), htobe32(p->rkey), htobe32(p->dma_len) };

		memcpy(at, &h, sizeof(h));
		at += sizeof(h);
	}
	if (p->mask & XE_PKT_ATMETH) {
		struct xe_atmeth h = { htobe64(p->va), htobe32(p->rkey), htobe64(p->swap_add),
				       htobe64(p->compare) };

		memcpy(at, &h, sizeof(h));
		at += sizeof(h);
	}
	if (p->mask & XE_PKT_AETH) {
		struct xe_aeth h = { htobe32((uint32_t)p->syndrome << 24 | (p->msn & XE_PSN_MASK)) };

		memcpy(at, &h, sizeof(h));
		at += sizeof(h);
	}
	if (p->mask & XE_PKT_ATMACK) {
		struct xe_atmack h = { htobe64(p->orig) };

		memcpy(at, &h, sizeof(h));
		at += sizeof(h);
	}
	if (p->mask & XE_PKT_IMMDT) {
		struct xe_immdt h = { p->imm };

		memcpy(at, &h, sizeof(h));
		at += sizeof(h);
	}
	if (p->mask & XE_PKT_IETH) {
		struct xe_ieth h = { htobe32(p->rkey) };

		memcpy(at, &h, sizeof(h));
		at += sizeof(h);
	}
	if (p->mask & XE_PKT_CNP) {
		memset(at, 0, sizeof(struct xe_cnp_rsvd));
		at += sizeof(struct xe_cnp_rsvd);
	}
	return at - hdr;
}

int xe_pkt_parse(struct xe_pkt *p, const uint8_t *b, size_t avail, size_t len)
{
	const struct xe_op_info *op;
	const uint8_t *at;
	struct xe_bth bth;
	uint32_t v;

	if (avail > len)
		avail = len;
	if (avail < sizeof(bth))
		return -EMSGSIZE;
	memcpy(&bth, b, sizeof(bth));
	op = xe_op_info(bth.opcode);
	if (!op || (bth.flags & XE_BTH_TVER_MASK))
		return -EPROTONOSUPPORT;
	*p = (struct xe_pkt){
		.opcode = bth.opcode,
		.mask = op->mask,
		.se = bth.flags & XE_BTH_SE,
		.pad = (bth.flags & XE_BTH_PAD_MASK) >> XE_BTH_PAD_SHIFT,
		.pkey = be16toh(bth.pkey),
		.qpn = be32toh(bth.qpn) & XE_QPN_MASK,
		.psn = be32toh(bth.apsn) & XE_PSN_MASK,
		.ackreq = be32toh(bth.apsn) & XE_BTH_ACKREQ,
		.hdr_len = xe_hdr_len(op->mask),
	};
	/* Lengths first: no field past the BTH is read before this. */
	if (avail < p->hdr_len)
		return -EMSGSIZE;
	if (len - p->hdr_len < p->pad)
		return -EINVAL;
	p->payload_len = len - p->hdr_len - p->pad;
	if (!(op->mask & XE_PKT_PAYLOAD) && (p->payload_len || p->pad))
		return -EINVAL;

	at = b + sizeof(bth);
	if (op->mask & XE_PKT_DETH) {
		struct xe_deth h;

		memcpy(&h, at, sizeof(h));
		at += sizeof(h);
		p->qkey = be32toh(h.qkey);
		p->src_qp = be32toh(h.src_qp) & XE_QPN_MASK;
	}
	if (op->mask & XE_PKT_RETH) {
		struct xe_reth h;

		memcpy(&h, at, sizeof(h));
		at += sizeof(h);
		p->va = be64toh(h.va);
		p->rkey = be32toh(h.rkey);
		p->dma_len = be32toh(h.dma_len);
	}
	if (op->mask & XE_PKT_ATMETH) {
		struct xe_atmeth h;

		memcpy(&h, at, sizeof(h));
		at += sizeof(h);
		p->va = be64toh(h.va);
		p->rkey = be32toh(h.rkey);
		p->swap_add = be64toh(h.swap_add);
		p->compare = be64toh(h.compare);
	}
	if (op->mask & XE_PKT_AETH) {
		struct xe_aeth h;

		memcpy(&h, at, sizeof(h));
		at += sizeof(h);
		v = be32toh(h.smsn);
		p->syndrome = v >> 24;
		p->msn = v & XE_PSN_MASK;
	}
	if (op->mask & XE_PKT_ATMACK) {
		struct xe_atmack h;

		memcpy(&h, at, sizeof(h));
		at += sizeof(h);
		p->orig = be64toh(h.orig);
	}
	if (op->mask & XE_PKT_IMMDT) {
		struct xe_immdt h;

		memcpy(&h, at, sizeof(h));
		at += sizeof(h);
		p->imm = h.imm;
	}
	if (op->mask & XE_PKT_IETH) {
		struct xe_ieth h;

		memcpy(&h, at, sizeof(h));
		p->rkey = be32toh(h.rkey);
	}
	return 0;
}
