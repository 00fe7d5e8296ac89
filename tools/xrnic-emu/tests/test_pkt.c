// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the RoCE v2 transport headers (pkt.c): every opcode's
 * headers survive a build and a parse, sit where IBTA puts them, and a
 * parse refuses what is short, unknown or carries what its opcode does not.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"

#include "pkt.h"

static struct xe_pkt sample(uint8_t opcode, uint32_t payload_len)
{
	return (struct xe_pkt){
		.opcode = opcode, .se = true, .ackreq = true, .pkey = 0xffff, .qpn = 0xabcdef,
		.psn = 0x123456, .qkey = 0x80010000, .src_qp = 0x345678, .va = 0x1122334455667788ull, .rkey = 0xa1b2c3d4,
		.dma_len = 0x10000, .swap_add = 0x0102030405060708ull, .compare = 0x99,
		.syndrome = XE_AETH_NAK | XE_NAK_REM_ACCESS, .msn = 0x654321,
		.orig = 0xfeedfacecafebeefull, .imm = htobe32(0xdeadbeef),
		.payload_len = payload_len,
	};
}

TEST(every_opcode_survives_build_and_parse)
{
	uint8_t b[XE_PKT_MAX_HDR + 4096 + 3];
	const struct xe_op_info *op;
	struct xe_pkt p, q;
	uint32_t len, plen;
	unsigned int o, known = 0;

	for (o = 0; o < XE_OP_NUM; o++) {
		op = xe_op_info(o);
		if (!op)
			continue;
		known++;
		ASSERT_NE(NULL, op->name);
		plen = op->mask & XE_PKT_PAYLOAD ? 4093 : 0;
		p = sample(o, plen);
		len = xe_pkt_build(b, &p);
		EXPECT_EQ(len, p.hdr_len);
		EXPECT_EQ(plen ? 3 : 0, p.pad);
		ASSERT_EQ(0, xe_pkt_parse(&q, b, len, len + plen + p.pad)) TH_LOG("%s", op->name);
		EXPECT_EQ(o, q.opcode);
		EXPECT_EQ(op->mask, q.mask);
		EXPECT_EQ(plen, q.payload_len);
		EXPECT_EQ(0xabcdef, q.qpn);
		EXPECT_EQ(0x123456, q.psn);
		EXPECT_TRUE(q.ackreq && q.se);
		if (op->mask & XE_PKT_DETH) {
			EXPECT_EQ(p.qkey, q.qkey);
			EXPECT_EQ(p.src_qp, q.src_qp);
		}
		if (op->mask & (XE_PKT_RETH | XE_PKT_ATMETH)) {
			EXPECT_EQ(p.va, q.va);
			EXPECT_EQ(p.rkey, q.rkey);
		}
		if (op->mask & XE_PKT_RETH)
			EXPECT_EQ(p.dma_len, q.dma_len);
		if (op->mask & XE_PKT_ATMETH) {
			EXPECT_EQ(p.swap_add, q.swap_add);
			EXPECT_EQ(p.compare, q.compare);
		}
		if (op->mask & XE_PKT_AETH) {
			EXPECT_EQ(p.syndrome, q.syndrome);
			EXPECT_EQ(p.msn, q.msn);
		}
		if (op->mask & XE_PKT_ATMACK)
			EXPECT_EQ(p.orig, q.orig);
		if (op->mask & XE_PKT_IMMDT)
			EXPECT_EQ(p.imm, q.imm);
		if (op->mask & XE_PKT_IETH)
			EXPECT_EQ(p.rkey, q.rkey);
	}
	/* RC's 23 opcodes, UC's 12 SENDs and WRITEs, UD's two SENDs and the CNP. */
	EXPECT_EQ(23 + 12 + 2 + 1, known);
}

/* IBTA Annex A17.9.3, as Linux and mlx5 send it: BTH, 16 reserved zero bytes. */
TEST(a_cnp_is_its_bth_and_sixteen_zero_bytes)
{
	static const uint8_t cnp[28] = {
		0x81, 0x00, 0xff, 0xff, 0x00, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x00, 0x00,
	};
	struct xe_pkt p = { .opcode = XE_OP_CNP, .pkey = 0xffff, .qpn = 0xabcdef }, q;
	uint8_t b[XE_PKT_MAX_HDR];

	memset(b, 0xee, sizeof(b));
	ASSERT_EQ(sizeof(cnp), xe_pkt_build(b, &p));
	EXPECT_EQ(0, memcmp(b, cnp, sizeof(cnp)));
	ASSERT_EQ(0, xe_pkt_parse(&q, b, sizeof(cnp), sizeof(cnp)));
	EXPECT_EQ(XE_OP_CNP, q.opcode);
	EXPECT_EQ(0xabcdef, q.qpn);
	EXPECT_EQ(0, q.payload_len);
	/* Shorter than its reserved bytes, or with a payload: not a CNP. */
	EXPECT_EQ(-EMSGSIZE, xe_pkt_parse(&q, b, sizeof(cnp) - 1, sizeof(cnp) - 1));
	EXPECT_EQ(-EINVAL, xe_pkt_parse(&q, b, sizeof(cnp), sizeof(cnp) + 4));
}

TEST(headers_have_the_ibta_layout)
{
	static const uint8_t bth_reth[] = {
		0x0a, 0x80, 0xff, 0xff, 0x00, 0xab, 0xcd, 0xef, 0x80, 0x12, 0x34, 0x56,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xa1, 0xb2, 0xc3, 0xd4,
		0x00, 0x01, 0x00, 0x00,
	};
	uint8_t b[XE_PKT_MAX_HDR];
	struct xe_pkt p = sample(XE_OP_WRITE_ONLY, 4096);

	/* RDMA WRITE Only: BTH then RETH, 28 bytes, no pad. */
	ASSERT_EQ(28, xe_pkt_build(b, &p));
	EXPECT_EQ(0, memcmp(b, bth_reth, sizeof(bth_reth)));
	/* Atomic: BTH + AtomicETH, the longest stack. */
	p = sample(XE_OP_FETCH_ADD, 0);
	EXPECT_EQ(40, xe_pkt_build(b, &p));
	EXPECT_EQ(XE_PKT_MAX_HDR, 40);
	/* Atomic ACK: BTH + AETH + AtomicAckETH; the syndrome leads the AETH. */
	p = sample(XE_OP_ATOMIC_ACK, 0);
	EXPECT_EQ(24, xe_pkt_build(b, &p));
	EXPECT_EQ(XE_AETH_NAK | XE_NAK_REM_ACCESS, b[12]);
	/* SEND Last with Immediate: BTH + ImmDt; pad 1 for 3 bytes. */
	p = sample(XE_OP_SEND_LAST_IMM, 3);
	EXPECT_EQ(16, xe_pkt_build(b, &p));
	EXPECT_EQ(0x80 | 1 << 4, b[1]);
	EXPECT_EQ(0, memcmp(b + 12, "\xde\xad\xbe\xef", 4));
	/* UD SEND Only with Immediate: BTH + DETH (Q_Key, 0, source QP) + ImmDt. */
	p = sample(XE_OP_UD_SEND_ONLY_IMM, 4);
	EXPECT_EQ(24, xe_pkt_build(b, &p));
	EXPECT_EQ(0, memcmp(b + 12, "\x80\x01\x00\x00\x00\x34\x56\x78\xde\xad\xbe\xef", 12));
	/* SEND Only with Invalidate: BTH + IETH, the key to invalidate. */
	p = sample(XE_OP_SEND_ONLY_INV, 4);
	EXPECT_EQ(16, xe_pkt_build(b, &p));
	EXPECT_EQ(0x17, b[0]);
	EXPECT_EQ(0, memcmp(b + 12, "\xa1\xb2\xc3\xd4", 4));
}

TEST(parse_refuses_short_unknown_and_misshapen_packets)
{
	uint8_t b[64] = { 0 };
	struct xe_pkt p = sample(XE_OP_WRITE_FIRST, 256), q;
	uint32_t n = xe_pkt_build(b, &p);

	EXPECT_EQ(-EMSGSIZE, xe_pkt_parse(&q, b, 11, 11));
	/* The RETH is cut: no field past the BTH is read. */
	EXPECT_EQ(-EMSGSIZE, xe_pkt_parse(&q, b, n - 1, n + 256));
	EXPECT_EQ(0, xe_pkt_parse(&q, b, n, n + 256));
	EXPECT_EQ(256, q.payload_len);
	/* Readable bytes beyond the packet's length do not count. */
	EXPECT_EQ(-EMSGSIZE, xe_pkt_parse(&q, b, sizeof(b), n - 1));

	b[0] = 0x15;				/* reserved in RC */
	EXPECT_EQ(-EPROTONOSUPPORT, xe_pkt_parse(&q, b, n, n));
	b[0] = 0x66;				/* reserved in UD */
	EXPECT_EQ(-EPROTONOSUPPORT, xe_pkt_parse(&q, b, n, n));
	b[0] = 0x2c;				/* a READ request: not in UC */
	EXPECT_EQ(-EPROTONOSUPPORT, xe_pkt_parse(&q, b, n, n));
	b[0] = XE_OP_WRITE_FIRST;
	b[1] |= 1;				/* transport version 1 */
	EXPECT_EQ(-EPROTONOSUPPORT, xe_pkt_parse(&q, b, n, n));

	p = sample(XE_OP_ACKNOWLEDGE, 0);
	n = xe_pkt_build(b, &p);
	EXPECT_EQ(0, xe_pkt_parse(&q, b, n, n));
	EXPECT_EQ(-EINVAL, xe_pkt_parse(&q, b, n, n + 4));	/* payload on an ACK */
	p = sample(XE_OP_SEND_ONLY, 1);
	n = xe_pkt_build(b, &p);			/* pad 3 */
	EXPECT_EQ(0, xe_pkt_parse(&q, b, n, n + 4));
	EXPECT_EQ(1, q.payload_len);
	EXPECT_EQ(-EINVAL, xe_pkt_parse(&q, b, n, n + 2));	/* pad longer than the payload */
}

TEST(psn_order_wraps_at_24_bits)
{
	EXPECT_TRUE(xe_psn_before(0xffffff, 0));
	EXPECT_FALSE(xe_psn_before(0, 0xffffff));
	EXPECT_TRUE(xe_psn_before(5, 6));
	EXPECT_FALSE(xe_psn_before(6, 6));
	EXPECT_EQ(2, xe_psn_diff(1, 0xffffff));
	EXPECT_EQ(256, xe_mtu_bytes(1));
	EXPECT_EQ(4096, xe_mtu_bytes(5));
}

TEST_HARNESS_MAIN
