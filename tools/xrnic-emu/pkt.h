/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCE v2 transport headers (IBTA vol. 1 ch. 9, RC and UD): the base header
 * (BTH) and the extension headers DETH, RETH, AtomicETH, AETH, AtomicAckETH,
 * ImmDt and IETH, in wire (big-endian) layout, and one per-opcode table saying which
 * of them follow the BTH.  xe_pkt_build() writes the headers of a packet
 * from struct xe_pkt; xe_pkt_parse() checks a packet's length against the
 * table before it reads any field.  Private to the device model: the wire is
 * not the PCI interface.  Ethernet, IP, UDP and the ICRC wrap these on the
 * wire; in loopback the headers travel beside a pointer to the payload.
 */
#ifndef XE_PKT_H
#define XE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <linux/types.h>

/* Opcodes (IBTA table 38): RC's prefix is 000, UC's 001, UD's 011. */
enum xe_op {
	XE_OP_SEND_FIRST		= 0x00,
	XE_OP_SEND_MIDDLE		= 0x01,
	XE_OP_SEND_LAST			= 0x02,
	XE_OP_SEND_LAST_IMM		= 0x03,
	XE_OP_SEND_ONLY			= 0x04,
	XE_OP_SEND_ONLY_IMM		= 0x05,
	XE_OP_WRITE_FIRST		= 0x06,
	XE_OP_WRITE_MIDDLE		= 0x07,
	XE_OP_WRITE_LAST		= 0x08,
	XE_OP_WRITE_LAST_IMM		= 0x09,
	XE_OP_WRITE_ONLY		= 0x0a,
	XE_OP_WRITE_ONLY_IMM		= 0x0b,
	XE_OP_READ_REQUEST		= 0x0c,
	XE_OP_READ_RESP_FIRST		= 0x0d,
	XE_OP_READ_RESP_MIDDLE		= 0x0e,
	XE_OP_READ_RESP_LAST		= 0x0f,
	XE_OP_READ_RESP_ONLY		= 0x10,
	XE_OP_ACKNOWLEDGE		= 0x11,
	XE_OP_ATOMIC_ACK		= 0x12,
	XE_OP_CMP_SWAP			= 0x13,
	XE_OP_FETCH_ADD			= 0x14,
	XE_OP_SEND_LAST_INV		= 0x16,
	XE_OP_SEND_ONLY_INV		= 0x17,
	/* UC (prefix 001): RC's SENDs and WRITEs, XE_OP_UC | RC's opcode */
	XE_OP_UC			= 0x20,
	/* UD (prefix 011) */
	XE_OP_UD_SEND_ONLY		= 0x64,
	XE_OP_UD_SEND_ONLY_IMM		= 0x65,
	/* RoCE v2's Congestion Notification Packet (IBTA Annex A17.9.3) */
	XE_OP_CNP			= 0x81,
	XE_OP_NUM			= 0x100,	/* the table covers every byte */
};

/* What an opcode is and carries: the bits of struct xe_op_info.mask. */
enum {
	XE_PKT_RETH		= 1u << 0,
	XE_PKT_ATMETH		= 1u << 1,
	XE_PKT_AETH		= 1u << 2,
	XE_PKT_ATMACK		= 1u << 3,
	XE_PKT_IMMDT		= 1u << 4,
	XE_PKT_PAYLOAD		= 1u << 5,	/* may carry payload */
	XE_PKT_REQ		= 1u << 6,	/* requester to responder */
	XE_PKT_FIRST		= 1u << 7,	/* FIRST and ONLY */
	XE_PKT_LAST		= 1u << 8,	/* LAST and ONLY */
	XE_PKT_SEND		= 1u << 9,
	XE_PKT_WRITE		= 1u << 10,
	XE_PKT_READ		= 1u << 11,	/* request and responses */
	XE_PKT_ATOMIC		= 1u << 12,	/* request and ACK */
	XE_PKT_ACK		= 1u << 13,	/* ACKNOWLEDGE */
	XE_PKT_DETH		= 1u << 14,	/* a datagram: UD */
	XE_PKT_IETH		= 1u << 15,	/* SEND with Invalidate */
	XE_PKT_CNP		= 1u << 16,	/* a CNP: 16 reserved bytes after the BTH */
};

/* Wire layouts, each field big-endian. */
struct xe_bth {
	uint8_t opcode;
	uint8_t flags;			/* SE:1 M:1 PadCnt:2 TVer:4 */
	__be16 pkey;
	__be32 qpn;			/* FECN:1 BECN:1 resv:6 DestQP:24 */
	__be32 apsn;			/* AckReq:1 resv:7 PSN:24 */
} __attribute__((packed));

struct xe_deth {
	__be32 qkey;
	__be32 src_qp;			/* resv:8 SrcQP:24 */
} __attribute__((packed));

struct xe_reth {
	__be64 va;
	__be32 rkey;
	__be32 dma_len;
} __attribute__((packed));

struct xe_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __attribute__((packed));

struct xe_aeth {
	__be32 smsn;			/* Syndrome:8 MSN:24 */
} __attribute__((packed));

struct xe_atmack {
	__be64 orig;
} __attribute__((packed));

struct xe_immdt {
	__be32 imm;
} __attribute__((packed));

struct xe_ieth {
	__be32 rkey;
} __attribute__((packed));

/* What follows a CNP's BTH: reserved, sent as zeros, ignored when received. */
struct xe_cnp_rsvd {
	uint8_t reserved[16];
} __attribute__((packed));

#define XE_BTH_SE		0x80
#define XE_BTH_PAD_SHIFT	4
#define XE_BTH_PAD_MASK		0x30
#define XE_BTH_TVER_MASK	0x0f
#define XE_BTH_ACKREQ		0x80000000u
#define XE_PSN_MASK		0xffffffu
#define XE_QPN_MASK		0xffffffu
#define XE_DEFAULT_PKEY		0xffff

/* AETH syndromes (IBTA table 44): ACK, RNR NAK with a timer, NAK with a code. */
#define XE_AETH_ACK		0x1f	/* ACK, no end-to-end credits */
#define XE_AETH_RNR_NAK		0x20	/* | RNR timer code */
#define XE_AETH_NAK		0x60	/* | one of the codes below */
#define XE_AETH_TYPE_MASK	0x60
#define XE_AETH_VALUE_MASK	0x1f
#define XE_NAK_PSN_SEQ		0
#define XE_NAK_INV_REQ		1
#define XE_NAK_REM_ACCESS	2
#define XE_NAK_REM_OP		3

/* The longest header stack of any opcode (AtomicETH's). */
#define XE_PKT_MAX_HDR		(sizeof(struct xe_bth) + sizeof(struct xe_atmeth))

/* A packet's header fields in CPU order; which are valid says mask. */
struct xe_pkt {
	uint8_t opcode;			/* enum xe_op */
	uint32_t mask;			/* XE_PKT_* of the opcode */
	bool se, ackreq;
	uint8_t pad;			/* payload bytes padding it to 4 */
	uint16_t pkey;
	uint32_t qpn, psn;
	uint32_t qkey, src_qp;		/* DETH */
	uint64_t va;			/* RETH or AtomicETH */
	uint32_t rkey;			/* RETH, AtomicETH, or IETH's key to invalidate */
	uint32_t dma_len;		/* RETH */
	uint64_t swap_add, compare;	/* AtomicETH */
	uint8_t syndrome;		/* AETH */
	uint32_t msn;
	uint64_t orig;			/* AtomicAckETH */
	__be32 imm;			/* ImmDt, kept in wire order */
	uint32_t hdr_len;		/* BTH and extension headers */
	uint32_t payload_len;		/* without pad */
};

/* The table entry of an opcode: its name (for logs) and XE_PKT_* mask. */
struct xe_op_info {
	const char *name;
	uint32_t mask;
};

/* The opcode's entry, or NULL for one this device does not know. */
const struct xe_op_info *xe_op_info(uint8_t opcode);

/*
 * Write the headers of p (p->opcode must be known; p->mask, p->pad and
 * p->hdr_len are set here from the table and p->payload_len) into hdr,
 * which has room for XE_PKT_MAX_HDR bytes.  Returns the header length.
 */
uint32_t xe_pkt_build(uint8_t *hdr, struct xe_pkt *p);

/*
 * Parse a packet of len bytes (headers, payload and pad; no ICRC) whose
 * first avail bytes are at b.  Returns 0 and fills p, or -EPROTONOSUPPORT
 * (an opcode this device does not know, or a transport version not 0),
 * -EMSGSIZE (shorter than its headers) or -EINVAL (payload or pad on an
 * opcode that carries none, or pad longer than the payload).
 */
int xe_pkt_parse(struct xe_pkt *p, const uint8_t *b, size_t avail, size_t len);

/* The transport an opcode belongs to: enum xrnic_qp_type (RC 2, UC 3, UD 4). */
static inline uint8_t xe_op_transport(uint8_t opcode)
{
	static const uint8_t qpt[8] = { [0] = 2, [1] = 3, [3] = 4 };

	return qpt[opcode >> 5];
}

/* 256 << (path_mtu - 1): the bytes of enum ib_mtu 1..5. */
static inline uint32_t xe_mtu_bytes(uint8_t path_mtu)
{
	return 128u << path_mtu;
}

/* The packets a message of len bytes takes at the path MTU: one at least. */
static inline uint32_t xe_pkt_count(uint64_t len, uint32_t mtu)
{
	return len ? (len + mtu - 1) / mtu : 1;
}

/* Packet i of n in a message: the column of an opcode table. */
enum xe_pkt_pos { XE_POS_FIRST, XE_POS_MIDDLE, XE_POS_LAST, XE_POS_ONLY, XE_POS_NUM };

static inline enum xe_pkt_pos xe_pkt_pos(uint32_t i, uint32_t n)
{
	if (n == 1)
		return XE_POS_ONLY;
	return i == 0 ? XE_POS_FIRST : i == n - 1 ? XE_POS_LAST : XE_POS_MIDDLE;
}

/* PSN arithmetic in 24 bits: a - b, and whether a comes before b. */
static inline uint32_t xe_psn_diff(uint32_t a, uint32_t b)
{
	return (a - b) & XE_PSN_MASK;
}

static inline bool xe_psn_before(uint32_t a, uint32_t b)
{
	return a != b && xe_psn_diff(b, a) < (1u << 23);
}

#endif /* XE_PKT_H */
