/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * XRNIC hardware interface: admin queue (AQ), admin completion queue (ACQ)
 * and asynchronous event notification queue (AENQ) entry formats.
 *
 * Shared by the xrnic driver and the xrnic-emu device model.  All rings live
 * in host (guest) memory; fields are little-endian; every structure has a
 * fixed size checked below.
 */
#ifndef XRNIC_ADMIN_H
#define XRNIC_ADMIN_H

#include <linux/types.h>
#include <xrnic/xrnic_regs.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

#define XRNIC_AQ_ENTRY_SIZE		64
#define XRNIC_ACQ_ENTRY_SIZE		64
#define XRNIC_AENQ_ENTRY_SIZE		16
#define XRNIC_ADMIN_DATA_SIZE		56

/*
 * Entry ownership: the producer writes the body, then flips the phase bit of
 * the flags byte.  The phase bit of the first lap is 1, and it alternates on
 * every wrap of the ring, so an entry is valid when its phase bit equals
 * ((index / depth) & 1) ^ 1 for the consumer's free-running index.
 */
#define XRNIC_ENTRY_PHASE		(1u << 0)

/* The phase bit an entry carries when it is valid at free-running @index. */
static inline __u8 xrnic_entry_phase(__u32 index, __u32 depth)
{
	return ((index / depth) & 1) ^ 1;
}

/* Admin opcodes */
enum xrnic_admin_opcode {
	XRNIC_ADMIN_QUERY_DEVICE	= 1,
	XRNIC_ADMIN_QUERY_PORT		= 2,
	XRNIC_ADMIN_ALLOC_PD		= 3,
	XRNIC_ADMIN_DEALLOC_PD		= 4,
	XRNIC_ADMIN_REG_MR		= 5,
	XRNIC_ADMIN_DEREG_MR		= 6,
	XRNIC_ADMIN_CREATE_CQ		= 7,
	XRNIC_ADMIN_DESTROY_CQ		= 8,
	XRNIC_ADMIN_CREATE_QP		= 9,
	XRNIC_ADMIN_MODIFY_QP		= 10,
	XRNIC_ADMIN_QUERY_QP		= 11,
	XRNIC_ADMIN_DESTROY_QP		= 12,
	XRNIC_ADMIN_QUERY_STATS		= 13,
	XRNIC_ADMIN_QUERY_RESOURCES	= 14,
	XRNIC_ADMIN_CREATE_EQ		= 15,
	XRNIC_ADMIN_DESTROY_EQ		= 16,
	XRNIC_ADMIN_START_ETH		= 17,
	XRNIC_ADMIN_STOP_ETH		= 18,
	XRNIC_ADMIN_SET_GID		= 19,
	XRNIC_ADMIN_CREATE_SRQ		= 20,
	XRNIC_ADMIN_DESTROY_SRQ		= 21,
	XRNIC_ADMIN_MODIFY_SRQ		= 22,
	XRNIC_ADMIN_QUERY_SRQ		= 23,
	XRNIC_ADMIN_ATTACH_MCAST	= 24,
	XRNIC_ADMIN_DETACH_MCAST	= 25,
	XRNIC_ADMIN_ALLOC_MW		= 26,
	XRNIC_ADMIN_DEALLOC_MW		= 27,
	XRNIC_ADMIN_QUERY_CC		= 28,
	XRNIC_ADMIN_SET_CC		= 29,
	XRNIC_ADMIN_QUERY_CLOCK		= 30,
	XRNIC_ADMIN_RESIZE_SRQ		= 31,
};

/* Admin completion status */
enum xrnic_admin_status {
	XRNIC_STATUS_OK			= 0,
	XRNIC_STATUS_BAD_OPCODE		= 1,	/* unknown opcode */
	XRNIC_STATUS_MALFORMED		= 2,	/* reserved bits or flags set */
	XRNIC_STATUS_BAD_PARAM		= 3,	/* a field is out of range */
	XRNIC_STATUS_BAD_ADDRESS	= 4,	/* a DMA address is outside RAM */
	XRNIC_STATUS_NO_RESOURCES	= 5,
	XRNIC_STATUS_BUSY		= 6,	/* object still referenced */
	XRNIC_STATUS_BAD_STATE		= 7,	/* invalid QP state transition */
	XRNIC_STATUS_NOT_FOUND		= 8,	/* no such PD, MR, CQ or QP */
};

/*
 * Object numbers: a PD number (pdn), CQ number (cqn) and QP number (qpn)
 * are chosen by the device.  Memory keys are "index << 8 | key": the key
 * byte changes every time an MR table index is reused, so a stale key never
 * matches a new registration.  QP numbers 0 and 1 are never used.
 */
#define XRNIC_KEY_INDEX(key)		((key) >> 8)
#define XRNIC_KEY_BYTE(key)		((key) & 0xff)
#define XRNIC_QPN_MASK			0xffffff

/* Memory access rights: the InfiniBand verbs bit values. */
#define XRNIC_ACCESS_LOCAL_WRITE	(1u << 0)
#define XRNIC_ACCESS_REMOTE_WRITE	(1u << 1)
#define XRNIC_ACCESS_REMOTE_READ	(1u << 2)
#define XRNIC_ACCESS_REMOTE_ATOMIC	(1u << 3)
#define XRNIC_ACCESS_MW_BIND		(1u << 4)	/* MRs: memory windows may open it */
#define XRNIC_ACCESS_ALL		0x1f		/* of an MR */
#define XRNIC_ACCESS_ZERO_BASED		(1u << 5)	/* BIND_MW only: see xrnic_io.h */

/*
 * Page lists (REG_MR).  Up to XRNIC_PBL_INLINE_MAX page addresses travel in
 * the command.  Longer lists are chained: pbl_addr is the bus address of a
 * page-aligned 4 KiB chunk holding XRNIC_PBL_CHUNK_ENTRIES page addresses
 * and, in its last 8 bytes, the bus address of the next chunk (ignored in
 * the last chunk).  Every page address is aligned to the page size.
 */
#define XRNIC_PBL_INLINE_MAX		3
#define XRNIC_PBL_CHUNK_SIZE		4096
#define XRNIC_PBL_CHUNK_ENTRIES		(XRNIC_PBL_CHUNK_SIZE / 8 - 1)

enum xrnic_pbl_mode {
	XRNIC_PBL_INLINE	= 0,
	XRNIC_PBL_CHAINED	= 1,
};

/* QUERY_PORT: port numbers start at 1. */
struct xrnic_cmd_query_port {
	__u8	port_num;
	__u8	reserved[55];
};

/* DEALLOC_PD; the ALLOC_PD answer. */
struct xrnic_cmd_pd {
	__le32	pdn;
	__u8	reserved[52];
};

/*
 * REG_MR registers [iova, iova + length) of the user's address space, backed
 * by npages pages of 1 << page_shift bytes; the first page holds iova rounded
 * down to the page size, so npages = ceil((iova % page + length) / page).
 */
struct xrnic_cmd_reg_mr {
	__le32	pdn;
	__le32	access;		/* XRNIC_ACCESS_* */
	__le64	iova;
	__le64	length;		/* 1 .. max_mr_size */
	__le32	npages;
	__u8	page_shift;	/* 12 */
	__u8	pbl_mode;	/* enum xrnic_pbl_mode */
	__le16	reserved;
	union {
		__le64	pages[XRNIC_PBL_INLINE_MAX];	/* XRNIC_PBL_INLINE */
		__le64	pbl_addr;			/* XRNIC_PBL_CHAINED */
	};
};

/* DEREG_MR; the REG_MR answer (lkey == rkey). */
struct xrnic_cmd_mr {
	__le32	lkey;
	__le32	rkey;
	__u8	reserved[48];
};

/*
 * CREATE_CQ: a physically contiguous ring of depth completion entries and
 * its doorbell record (struct xrnic_cq_db).  eq_vector names the event
 * queue its completion events go to (CREATE_EQ); 0: no events.
 */
struct xrnic_cmd_create_cq {
	__le64	ring_addr;	/* page aligned */
	__le32	depth;		/* power of two, 2 .. max_cqe */
	__le16	eq_vector;	/* 0, or a vector with an event queue */
	__le16	reserved0;
	__le64	db_addr;	/* XRNIC_DB_RECORD_SIZE aligned */
	__u8	reserved[32];
};

/*
 * CREATE_EQ: the completion event queue of MSI-X vector 1 .. N-1, a ring of
 * depth struct xrnic_eqe; DESTROY_EQ takes only the vector.
 */
struct xrnic_cmd_eq {
	__le64	ring_addr;	/* page aligned */
	__le32	depth;		/* power of two, 2 .. XRNIC_MAX_EQ_DEPTH */
	__le16	vector;
	__le16	reserved0;
	__le64	db_addr;	/* struct xrnic_eq_db, XRNIC_DB_RECORD_SIZE aligned */
	__u8	reserved[32];
};

#define XRNIC_MAX_EQ_DEPTH		4096

/*
 * START_ETH: the Ethernet function's rings (struct xrnic_eth_desc, page
 * aligned), their doorbell record (struct xrnic_eth_db) and the MSI-X
 * vector raised when descriptors complete.  The device sends what the TX
 * ring holds and lands frames in the RX ring's buffers until STOP_ETH
 * (no body), after whose answer it touches none of them.  Only one
 * Ethernet function runs at a time: BUSY while one does.
 */
struct xrnic_cmd_start_eth {
	__le64	tx_ring;
	__le64	rx_ring;
	__le64	db_addr;	/* XRNIC_DB_RECORD_SIZE aligned */
	__le32	tx_depth;	/* power of two, 2 .. XRNIC_MAX_ETH_DEPTH */
	__le32	rx_depth;	/* power of two, 2 .. XRNIC_MAX_ETH_DEPTH */
	__le16	vector;		/* 0 .. N-1 */
	__u8	reserved[22];
};

#define XRNIC_MAX_ETH_DEPTH		4096

/*
 * SET_GID: entry index of the port's GID table, which the device sends
 * from (the source IP address of RoCE v2 packets): valid 1 sets it to gid,
 * valid 0 empties it (gid zero).  MODIFY_QP's address vector names a
 * valid entry by sgid_index; the QP keeps that GID until its next one.
 */
struct xrnic_cmd_set_gid {
	__u8	port_num;	/* 1 */
	__u8	index;		/* 0 .. gid_tbl_len - 1 */
	__u8	valid;		/* 0 or 1 */
	__u8	reserved0;
	__u8	gid[16];
	__u8	reserved[36];
};

/* DESTROY_CQ; the CREATE_CQ answer. */
struct xrnic_cmd_cq {
	__le32	cqn;
	__u8	reserved[52];
};

enum xrnic_qp_type {
	XRNIC_QPT_GSI	= 1,	/* the IB verbs values */
	XRNIC_QPT_RC	= 2,
	XRNIC_QPT_UC	= 3,
	XRNIC_QPT_UD	= 4,
};

/*
 * The General Services Interface QP (IBTA 13.5.1): CREATE_QP of type GSI
 * makes the port's one QP numbered XRNIC_GSI_QPN (BUSY while it lives), a
 * UD QP in every other respect.  Management datagrams (MADs) travel on it
 * with the well-known Q_Key XRNIC_GSI_QKEY, which its owner sets by
 * MODIFY_QP as any UD QP's.
 */
#define XRNIC_GSI_QPN			1
#define XRNIC_GSI_QKEY			0x80010000u

/*
 * ATTACH_MCAST, DETACH_MCAST: UD QP qpn joins or leaves the multicast group
 * of gid (ff00::/8, or ::ffff:224.0.0.0/4).  A datagram to such a GID and
 * to QPN XRNIC_MCAST_QPN is delivered to every QP attached to its group.
 * Attaching twice, or detaching a QP that is not attached, fails
 * (BAD_PARAM, NOT_FOUND); DESTROY_QP of an attached QP is BUSY.
 */
#define XRNIC_MAX_MCAST_GRP		64	/* groups a device filters for */
#define XRNIC_MAX_MCAST_QP_ATTACH	16	/* QPs attached to each */
#define XRNIC_MCAST_QPN			0xffffff
struct xrnic_cmd_mcast {
	__le32	qpn;
	__le32	reserved0;
	__u8	gid[16];
	__u8	reserved[32];
};

/*
 * ALLOC_MW: a memory window of PD pdn, of type 1 or 2; the answer is its
 * rkey, whose index is above XRNIC_MW_INDEX_BASE, so that no MR's key ever
 * names a window.  A type 1 window starts bound to nothing, a type 2 one
 * free; BIND_MW WQEs bind them (xrnic_io.h), which change its key byte.
 * DEALLOC_MW names a window by the index of its rkey (the key byte is
 * ignored) and unbinds and frees it.  DEREG_MR of an MR that a
 * window is bound to is BUSY, and DESTROY_QP unbinds the type 2 windows
 * bound to the QP.
 */
#define XRNIC_MAX_MW			1024
#define XRNIC_MW_INDEX_BASE		0x100000
enum xrnic_mw_type {
	XRNIC_MW_TYPE_1		= 1,
	XRNIC_MW_TYPE_2		= 2,
};

struct xrnic_cmd_mw {
	__le32	pdn;		/* ALLOC_MW */
	__le32	rkey;		/* the answer of ALLOC_MW; DEALLOC_MW: its index */
	__u8	type;		/* ALLOC_MW: enum xrnic_mw_type */
	__u8	reserved[47];
};

/*
 * Congestion control (DCQCN) parameters, as mlx5 names them and in its
 * units; the device applies one SET_CC to every QP at once.  QUERY_CC
 * answers a parameter's value in the same structure; SET_CC of a value
 * outside the parameter's range (Documentation/xrnic-hw.rst) is BAD_PARAM
 * and changes nothing.  The enables are 0 or 1.
 */
enum xrnic_cc_param {
	XRNIC_CC_NP_ENABLE			= 0,
	XRNIC_CC_RP_ENABLE			= 1,
	XRNIC_CC_NP_MIN_TIME_BETWEEN_CNPS	= 2,	/* us */
	XRNIC_CC_NP_CNP_DSCP			= 3,
	XRNIC_CC_RP_INITIAL_ALPHA_VALUE		= 4,	/* of 1024 */
	XRNIC_CC_RP_DCE_TCP_G			= 5,	/* of 1024 */
	XRNIC_CC_RP_DCE_TCP_RTT			= 6,	/* us */
	XRNIC_CC_RP_RATE_REDUCE_MONITOR_PERIOD	= 7,	/* us */
	XRNIC_CC_RP_RATE_TO_SET_ON_FIRST_CNP	= 8,	/* Mb/s; 0: cut from the line rate */
	XRNIC_CC_RP_MIN_DEC_FAC			= 9,	/* % */
	XRNIC_CC_RP_MIN_RATE			= 10,	/* Mb/s */
	XRNIC_CC_RP_TIME_RESET			= 11,	/* us */
	XRNIC_CC_RP_BYTE_RESET			= 12,	/* 64 bytes; 0: off */
	XRNIC_CC_RP_THRESHOLD			= 13,
	XRNIC_CC_RP_MAX_RATE			= 14,	/* Mb/s; 0: the line rate */
	XRNIC_CC_RP_AI_RATE			= 15,	/* Mb/s */
	XRNIC_CC_RP_HAI_RATE			= 16,	/* Mb/s */
	XRNIC_CC_NUM_PARAMS			= 17,
};

struct xrnic_cmd_cc {
	__le32	param;		/* enum xrnic_cc_param */
	__le32	value;		/* SET_CC; the answer of QUERY_CC */
	__u8	reserved[48];
};

/*
 * QUERY_CLOCK (no parameters): the device clock that stamps completions
 * (xrnic_io.h), all 64 bits of it, read while the device executes the
 * command.
 */
struct xrnic_resp_query_clock {
	__le64	now_ns;
	__u8	reserved[48];
};

/* SRQs a device has: srqn 1 .. XRNIC_MAX_SRQ. */
#define XRNIC_MAX_SRQ			1024

/*
 * CREATE_SRQ: a shared receive queue in PD pdn, a ring of depth struct
 * xrnic_rqe (physically contiguous, page aligned) and its doorbell record
 * (struct xrnic_srq_db).  QPs created with its srqn take their receive WQEs
 * from it.  DESTROY_SRQ (BUSY while a QP uses it), QUERY_SRQ and the answer
 * of CREATE_SRQ use struct xrnic_cmd_srq.
 */
struct xrnic_cmd_create_srq {
	__le32	pdn;
	__le32	depth;		/* power of two, 2 .. max_qp_wr */
	__le64	ring_addr;
	__le64	db_addr;	/* XRNIC_DB_RECORD_SIZE aligned */
	__u8	max_sge;	/* 1 .. max_sge */
	__u8	reserved[31];
};

/*
 * MODIFY_SRQ arms the limit: once fewer than limit receive WQEs are left,
 * the device posts XRNIC_EVENT_SRQ_LIMIT once and the limit is disarmed
 * (0); limit 0 disarms it.  QUERY_SRQ answers srqn and the limit.
 */
struct xrnic_cmd_srq {
	__le32	srqn;
	__le32	limit;		/* below depth */
	__u8	reserved[48];
};

/*
 * RESIZE_SRQ moves the SRQ to a new ring of depth entries and a new
 * doorbell record, as CREATE_SRQ takes them.  The receive WQEs posted and
 * not yet taken (the old record's pi minus the device's ci) are copied to
 * the same indices of the new ring, and the new record is written with pi
 * and ci; the device never reads the old ring or record again.  BAD_PARAM
 * when the new depth is smaller than the WQEs posted or not above an armed
 * limit.
 */
struct xrnic_cmd_resize_srq {
	__le32	srqn;
	__le32	depth;		/* power of two, 2 .. max_qp_wr */
	__le64	ring_addr;
	__le64	db_addr;	/* XRNIC_DB_RECORD_SIZE aligned */
	__u8	reserved[32];
};

/*
 * CREATE_QP: rings are physically contiguous and page aligned.  With srqn (not 0) the QP
 * receives from that SRQ (of its PD): rq_depth, rq_addr and max_recv_sge
 * are then 0.
 */
struct xrnic_cmd_create_qp {
	__le32	pdn;
	__le32	send_cqn;
	__le32	recv_cqn;
	__le32	sq_depth;	/* power of two, 2 .. max_qp_wr */
	__le32	rq_depth;	/* power of two, 2 .. max_qp_wr */
	__u8	qp_type;	/* enum xrnic_qp_type */
	__u8	max_send_sge;	/* 1 .. max_sge */
	__u8	max_recv_sge;	/* 1 .. max_sge */
	__u8	reserved0;
	__le64	sq_addr;
	__le64	rq_addr;
	__le32	max_inline;
	__le32	srqn;		/* 0: the QP's own receive queue */
	__le64	db_addr;	/* struct xrnic_qp_db, XRNIC_DB_RECORD_SIZE aligned */
};

/* QP states: the IB verbs values. */
enum xrnic_qp_state {
	XRNIC_QPS_RESET	= 0,
	XRNIC_QPS_INIT	= 1,
	XRNIC_QPS_RTR	= 2,
	XRNIC_QPS_RTS	= 3,
	XRNIC_QPS_SQD	= 4,
	XRNIC_QPS_SQE	= 5,
	XRNIC_QPS_ERR	= 6,
};

/* MODIFY_QP attribute mask: the IB verbs bit values (IB_QP_*). */
#define XRNIC_QP_STATE			(1u << 0)
#define XRNIC_QP_ACCESS_FLAGS		(1u << 3)
#define XRNIC_QP_PKEY_INDEX		(1u << 4)
#define XRNIC_QP_PORT			(1u << 5)
#define XRNIC_QP_QKEY			(1u << 6)
#define XRNIC_QP_AV			(1u << 7)
#define XRNIC_QP_PATH_MTU		(1u << 8)
#define XRNIC_QP_TIMEOUT		(1u << 9)
#define XRNIC_QP_RETRY_CNT		(1u << 10)
#define XRNIC_QP_RNR_RETRY		(1u << 11)
#define XRNIC_QP_RQ_PSN			(1u << 12)
#define XRNIC_QP_MAX_QP_RD_ATOMIC	(1u << 13)
#define XRNIC_QP_MIN_RNR_TIMER		(1u << 15)
#define XRNIC_QP_SQ_PSN			(1u << 16)
#define XRNIC_QP_MAX_DEST_RD_ATOMIC	(1u << 17)
#define XRNIC_QP_DEST_QPN		(1u << 20)
#define XRNIC_QP_ATTR_ALL		0x13bff9
/* The attributes of each QP type (QUERY_QP's attr_mask). */
#define XRNIC_QP_RC_ATTRS		(XRNIC_QP_ATTR_ALL & ~XRNIC_QP_QKEY)
#define XRNIC_QP_UD_ATTRS		(XRNIC_QP_STATE | XRNIC_QP_PKEY_INDEX | XRNIC_QP_PORT | \
					 XRNIC_QP_QKEY | XRNIC_QP_SQ_PSN)
#define XRNIC_QP_UC_ATTRS		(XRNIC_QP_STATE | XRNIC_QP_ACCESS_FLAGS | \
					 XRNIC_QP_PKEY_INDEX | XRNIC_QP_PORT | XRNIC_QP_AV | \
					 XRNIC_QP_PATH_MTU | XRNIC_QP_RQ_PSN | XRNIC_QP_SQ_PSN | \
					 XRNIC_QP_DEST_QPN)

/*
 * MODIFY_QP command and QUERY_QP answer.  MODIFY_QP applies the fields
 * named in attr_mask; a state change must be a legal transition.
 * QUERY_QP takes only qpn and answers every field of its QP's type
 * (attr_mask: XRNIC_QP_RC_ATTRS, XRNIC_QP_UC_ATTRS or XRNIC_QP_UD_ATTRS).  The address
 * vector (XRNIC_QP_AV) is the remote port's GID, the index of the local
 * one, and the Ethernet address the driver resolved for the path (the
 * peer, or the gateway to it).  A UD QP has only the state, PKEY_INDEX,
 * PORT, QKEY (in the place of dest_qpn) and SQ_PSN; its destinations
 * travel in its WQEs.
 */
struct xrnic_qp_attr {
	__le32	qpn;
	__le32	attr_mask;
	union {
		__le32	dest_qpn;	/* RC */
		__le32	qkey;		/* UD: XRNIC_QP_QKEY */
	};
	__le32	rq_psn;		/* 24 bits */
	__le32	sq_psn;		/* 24 bits */
	__le16	access_flags;	/* XRNIC_ACCESS_REMOTE_* */
	__u8	state;		/* enum xrnic_qp_state */
	__u8	path_mtu;	/* IB MTU code 1..5 */
	__u8	timeout;	/* 0..31 */
	__u8	retry_cnt;	/* 0..7 */
	__u8	rnr_retry;	/* 0..7 */
	__u8	min_rnr_timer;	/* 0..31 */
	__u8	max_rd_atomic;
	__u8	max_dest_rd_atomic;
	__u8	dgid[16];	/* XRNIC_QP_AV */
	__u8	sgid_index;	/* XRNIC_QP_AV */
	__u8	hop_limit;	/* XRNIC_QP_AV */
	__u8	traffic_class;	/* XRNIC_QP_AV */
	__u8	port_num;	/* 1 */
	__u8	dmac[6];	/* XRNIC_QP_AV: unicast */
};

/* DESTROY_QP and QUERY_QP; the CREATE_QP answer. */
struct xrnic_cmd_qp {
	__le32	qpn;
	__u8	reserved[52];
};

/* The counters the device keeps since its last reset, in QUERY_STATS order. */
enum xrnic_counter {
	XRNIC_CNT_ADMIN_COMMANDS,	/* admin commands completed */
	XRNIC_CNT_ADMIN_ERRORS,		/* ... with a status other than OK */
	XRNIC_CNT_TX_PACKETS,
	XRNIC_CNT_RX_PACKETS,
	XRNIC_CNT_TX_BYTES,
	XRNIC_CNT_RX_BYTES,
	XRNIC_CNT_RX_DROPPED,		/* packets the transport dropped */
	XRNIC_CNT_RX_DUPLICATES,	/* ... of them, requests with an old PSN */
	XRNIC_CNT_RNR_NAKS_SENT,
	XRNIC_CNT_SEQ_NAKS_SENT,	/* PSN sequence error NAKs */
	XRNIC_CNT_RETRANSMITS,		/* packets sent again */
	XRNIC_CNT_DOORBELLS,		/* data doorbells rung */
	XRNIC_CNT_POLLED,		/* work found by polling, no doorbell rung */
	XRNIC_CNT_RX_ICRC_ERRORS,	/* RoCE v2 frames with a bad ICRC (dropped) */
	/* The Ethernet function (frames without FCS). */
	XRNIC_CNT_ETH_TX_FRAMES,
	XRNIC_CNT_ETH_TX_BYTES,
	XRNIC_CNT_ETH_RX_FRAMES,	/* landed in an RX buffer */
	XRNIC_CNT_ETH_RX_BYTES,
	XRNIC_CNT_ETH_TX_BAD_DESC,	/* TX descriptor: length or address */
	XRNIC_CNT_ETH_TX_LINK_DOWN,	/* TX frames dropped: no link */
	XRNIC_CNT_ETH_RX_TOO_SHORT,	/* shorter than an Ethernet header */
	XRNIC_CNT_ETH_RX_TOO_LONG,	/* longer than the RX buffer */
	XRNIC_CNT_ETH_RX_NO_BUFFER,	/* the RX ring had no buffer */
	XRNIC_CNT_ETH_RX_BAD_DESC,	/* RX descriptor: length or address */
	/* Faults the device model injects into the RoCE frames it sends. */
	XRNIC_CNT_INJECTED_DROPS,
	XRNIC_CNT_INJECTED_DUPS,
	XRNIC_CNT_INJECTED_REORDERS,
	XRNIC_CNT_INJECTED_CORRUPTS,
	/* Frames sent that the wire had no room for (its queue was full). */
	XRNIC_CNT_WIRE_TX_DROPS,
	/* The requester's loss signals: no answer in time, a sequence NAK. */
	XRNIC_CNT_ACK_TIMEOUTS,
	XRNIC_CNT_SEQ_NAKS_RCVD,
	/* UD datagrams dropped: a Q_Key or P_Key not the QP's (IBTA 10.2.5, 10.9). */
	XRNIC_CNT_RX_QKEY_VIOLATIONS,
	XRNIC_CNT_RX_PKEY_VIOLATIONS,
	/*
	 * Congestion control (DCQCN), as mlx5 names them: packets received
	 * with ECN CE, CNPs sent for them, CNPs that cut a QP's rate and
	 * CNPs that did not.
	 */
	XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS,
	XRNIC_CNT_NP_CNP_SENT,
	XRNIC_CNT_RP_CNP_HANDLED,
	XRNIC_CNT_RP_CNP_IGNORED,
	/*
	 * The switch's lossless mode, as mlx5's rx_prio<n>_pause and
	 * rx_prio<n>_pause_duration: times the port was paused, and the
	 * microseconds it was.
	 */
	XRNIC_CNT_RX_PAUSE,
	XRNIC_CNT_RX_PAUSE_DURATION,
	XRNIC_NUM_COUNTERS,
};

/*
 * QUERY_STATS: the device writes XRNIC_NUM_COUNTERS counters, each an
 * __le64 in enum xrnic_counter order, into the page of host memory at
 * buf_addr (page aligned), and answers how many it wrote.
 */
struct xrnic_cmd_query_stats {
	__le64	buf_addr;
	__u8	reserved[48];
};

struct xrnic_resp_query_stats {
	__le32	num_counters;
	__u8	reserved[52];
};

/* QUERY_RESOURCES answer: the objects the device holds now. */
struct xrnic_resp_query_resources {
	__le32	pds;
	__le32	mrs;
	__le32	cqs;
	__le32	qps;
	__le64	mr_pages;	/* page-list entries held by all MRs */
	__le32	srqs;
	__le32	mws;
	__u8	reserved[24];
};

/* Submission entry: the command body is opcode specific. */
struct xrnic_aq_entry {
	__u8	opcode;
	__u8	flags;		/* XRNIC_ENTRY_PHASE; other bits must be 0 */
	__le16	cmd_id;		/* echoed in the completion */
	__le32	reserved;
	union {
		__u8 data[XRNIC_ADMIN_DATA_SIZE];
		struct xrnic_cmd_query_port query_port;
		struct xrnic_cmd_pd pd;
		struct xrnic_cmd_reg_mr reg_mr;
		struct xrnic_cmd_mr mr;
		struct xrnic_cmd_create_cq create_cq;
		struct xrnic_cmd_cq cq;
		struct xrnic_cmd_eq eq;
		struct xrnic_cmd_create_qp create_qp;
		struct xrnic_qp_attr qp_attr;
		struct xrnic_cmd_qp qp;
		struct xrnic_cmd_query_stats query_stats;
		struct xrnic_cmd_start_eth start_eth;
		struct xrnic_cmd_set_gid set_gid;
		struct xrnic_cmd_create_srq create_srq;
		struct xrnic_cmd_srq srq;
		struct xrnic_cmd_resize_srq resize_srq;
		struct xrnic_cmd_mcast mcast;
		struct xrnic_cmd_mw mw;
		struct xrnic_cmd_cc cc;
	};
};

struct xrnic_resp_query_device {
	__le32	max_qp;
	__le32	max_qp_wr;
	__le16	max_sge;
	__le16	max_qp_rd_atom;	/* READs and atomics outstanding per QP, each way */
	__le32	max_cq;
	__le32	max_cqe;
	__le32	max_mr;
	__le32	max_pd;
	__le32	vendor_id;
	__le32	vendor_part_id;
	__le32	hw_ver;
	__le64	max_mr_size;
	__le64	page_size_cap;
};

/* Port states and physical states use the InfiniBand encodings. */
enum xrnic_port_state {
	XRNIC_PORT_DOWN		= 1,
	XRNIC_PORT_INIT		= 2,
	XRNIC_PORT_ARMED	= 3,
	XRNIC_PORT_ACTIVE	= 4,
};

enum xrnic_port_phys_state {
	XRNIC_PORT_PHYS_POLLING		= 2,
	XRNIC_PORT_PHYS_DISABLED	= 3,
	XRNIC_PORT_PHYS_LINK_UP		= 5,
};

struct xrnic_resp_query_port {
	__u8	state;		/* enum xrnic_port_state */
	__u8	phys_state;	/* enum xrnic_port_phys_state */
	__u8	active_mtu;	/* IB MTU code: 1=256 .. 5=4096 */
	__u8	max_mtu;
	__u8	active_speed;	/* IB speed code (1=SDR .. 64=HDR) */
	__u8	active_width;	/* IB width code (1=1X, 2=4X, ...) */
	__le16	gid_tbl_len;
	__le32	max_msg_sz;
	__le32	port_cap_flags;
	__le16	eth_max_mtu;	/* the Ethernet function's largest MTU */
	__u8	reserved[38];
};

/* Completion entry */
struct xrnic_acq_entry {
	__le16	cmd_id;
	__u8	status;		/* enum xrnic_admin_status */
	__u8	flags;		/* XRNIC_ENTRY_PHASE */
	__le32	reserved;
	union {
		__u8 data[XRNIC_ADMIN_DATA_SIZE];
		struct xrnic_resp_query_device query_device;
		struct xrnic_resp_query_port query_port;
		struct xrnic_cmd_pd pd;
		struct xrnic_cmd_mr mr;
		struct xrnic_cmd_cq cq;
		struct xrnic_cmd_qp qp;
		struct xrnic_qp_attr qp_attr;
		struct xrnic_resp_query_stats stats;
		struct xrnic_resp_query_resources resources;
		struct xrnic_cmd_srq srq;
		struct xrnic_cmd_mw mw;
		struct xrnic_cmd_cc cc;
		struct xrnic_resp_query_clock clock;
	};
};

/* Asynchronous events */
enum xrnic_aenq_event {
	XRNIC_EVENT_PORT_ACTIVE	= 1,	/* param: port number */
	XRNIC_EVENT_PORT_DOWN	= 2,	/* param: port number */
	XRNIC_EVENT_FATAL	= 3,	/* param: XRNIC_FATAL_* */
	XRNIC_EVENT_QP_FATAL	= 4,	/* param: qpn; a bad doorbell record */
	XRNIC_EVENT_QP_ACCESS	= 5,	/* param: qpn; a remote access error */
	XRNIC_EVENT_CQ_ERR	= 6,	/* param: cqn; overrun */
	XRNIC_EVENT_SRQ_LIMIT	= 7,	/* param: srqn; fewer WQEs than its limit */
	XRNIC_EVENT_QP_LAST_WQE	= 8,	/* param: qpn; in ERR, it takes no more from its SRQ */
};

struct xrnic_aenq_entry {
	__le16	event;		/* enum xrnic_aenq_event */
	__u8	flags;		/* XRNIC_ENTRY_PHASE */
	__u8	reserved;
	__le32	param;
	__le64	data;
};

static_assert(sizeof(struct xrnic_cmd_query_port) == XRNIC_ADMIN_DATA_SIZE,
	      "query_port command size");
static_assert(sizeof(struct xrnic_cmd_pd) == XRNIC_ADMIN_DATA_SIZE,
	      "pd command size");
static_assert(sizeof(struct xrnic_cmd_reg_mr) == XRNIC_ADMIN_DATA_SIZE,
	      "reg_mr command size");
static_assert(sizeof(struct xrnic_cmd_mr) == XRNIC_ADMIN_DATA_SIZE,
	      "mr command size");
static_assert(sizeof(struct xrnic_cmd_create_cq) == XRNIC_ADMIN_DATA_SIZE,
	      "create_cq command size");
static_assert(sizeof(struct xrnic_cmd_cq) == XRNIC_ADMIN_DATA_SIZE,
	      "cq command size");
static_assert(sizeof(struct xrnic_cmd_eq) == XRNIC_ADMIN_DATA_SIZE,
	      "eq command size");
static_assert(sizeof(struct xrnic_cmd_create_qp) == XRNIC_ADMIN_DATA_SIZE,
	      "create_qp command size");
static_assert(sizeof(struct xrnic_qp_attr) == XRNIC_ADMIN_DATA_SIZE,
	      "qp_attr size");
static_assert(sizeof(struct xrnic_cmd_qp) == XRNIC_ADMIN_DATA_SIZE,
	      "qp command size");
static_assert(sizeof(struct xrnic_cmd_query_stats) == XRNIC_ADMIN_DATA_SIZE,
	      "query_stats command size");
static_assert(sizeof(struct xrnic_cmd_start_eth) == XRNIC_ADMIN_DATA_SIZE,
	      "start_eth command size");
static_assert(sizeof(struct xrnic_cmd_set_gid) == XRNIC_ADMIN_DATA_SIZE,
	      "set_gid command size");
static_assert(sizeof(struct xrnic_cmd_create_srq) == XRNIC_ADMIN_DATA_SIZE,
	      "create_srq command size");
static_assert(sizeof(struct xrnic_cmd_srq) == XRNIC_ADMIN_DATA_SIZE, "srq command size");
static_assert(sizeof(struct xrnic_cmd_resize_srq) == XRNIC_ADMIN_DATA_SIZE,
	      "resize_srq command size");
static_assert(sizeof(struct xrnic_cmd_mcast) == XRNIC_ADMIN_DATA_SIZE, "mcast command size");
static_assert(sizeof(struct xrnic_cmd_mw) == XRNIC_ADMIN_DATA_SIZE, "mw command size");
static_assert(sizeof(struct xrnic_cmd_cc) == XRNIC_ADMIN_DATA_SIZE, "cc command size");
static_assert(sizeof(struct xrnic_resp_query_clock) == XRNIC_ADMIN_DATA_SIZE,
	      "query_clock response size");
static_assert(sizeof(struct xrnic_resp_query_stats) == XRNIC_ADMIN_DATA_SIZE,
	      "query_stats response size");
static_assert(XRNIC_NUM_COUNTERS * 8 <= XRNIC_PAGE_SIZE, "counters fit a page");
static_assert(sizeof(struct xrnic_resp_query_resources) ==
	      XRNIC_ADMIN_DATA_SIZE, "query_resources response size");
static_assert(sizeof(struct xrnic_aq_entry) == XRNIC_AQ_ENTRY_SIZE,
	      "AQ entry size");
static_assert(sizeof(struct xrnic_resp_query_device) == XRNIC_ADMIN_DATA_SIZE,
	      "query_device response size");
static_assert(sizeof(struct xrnic_resp_query_port) == XRNIC_ADMIN_DATA_SIZE,
	      "query_port response size");
static_assert(sizeof(struct xrnic_acq_entry) == XRNIC_ACQ_ENTRY_SIZE,
	      "ACQ entry size");
static_assert(sizeof(struct xrnic_aenq_entry) == XRNIC_AENQ_ENTRY_SIZE,
	      "AENQ entry size");

#endif /* XRNIC_ADMIN_H */
