/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * XRNIC hardware interface: the data path.  Send and receive work queue
 * entries, completion queue entries, doorbell records and completion event
 * queue entries.
 *
 * Shared by the xrnic driver, the xrnic-emu device model and the libibverbs
 * provider (plain C: no kernel types beyond <linux/types.h>).  Every ring is
 * an array of fixed-size entries in host memory; fields are little-endian
 * unless named _be; every structure has a fixed size checked below.
 * Documentation/xrnic-hw.rst is the prose specification.
 */
#ifndef XRNIC_IO_H
#define XRNIC_IO_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

#define XRNIC_SQE_SIZE		256	/* send work queue entry */
#define XRNIC_RQE_SIZE		128	/* receive work queue entry */
#define XRNIC_CQE_SIZE		32	/* completion queue entry */
#define XRNIC_EQE_SIZE		16	/* completion event queue entry */
#define XRNIC_MAX_SGE		6	/* scatter/gather entries per WQE */
#define XRNIC_MAX_INLINE	64	/* inline send data per WQE */
#define XRNIC_DB_RECORD_SIZE	64	/* room a doorbell record takes */

/* A scatter/gather entry: lkey-checked local memory. */
struct xrnic_sge {
	__le64	addr;
	__le32	length;
	__le32	lkey;
};

/* Send work request opcodes. */
enum xrnic_wr_opcode {
	XRNIC_WR_SEND			= 0,
	XRNIC_WR_SEND_WITH_IMM		= 1,
	XRNIC_WR_RDMA_WRITE		= 2,
	XRNIC_WR_RDMA_WRITE_WITH_IMM	= 3,
	XRNIC_WR_RDMA_READ		= 4,
	XRNIC_WR_ATOMIC_CMP_AND_SWP	= 5,
	XRNIC_WR_ATOMIC_FETCH_AND_ADD	= 6,
	XRNIC_WR_SEND_WITH_INV		= 7,	/* RC: the receiver invalidates invalidate_rkey */
	XRNIC_WR_LOCAL_INV		= 8,	/* invalidate invalidate_rkey: a type 2 MW */
	XRNIC_WR_BIND_MW		= 9,	/* bind: struct xrnic_bind_mw */
	XRNIC_WR_NUM_OPCODES,
};

/* struct xrnic_sqe.flags */
#define XRNIC_SQE_SIGNALED	(1u << 0)	/* write a CQE on success */
#define XRNIC_SQE_SOLICITED	(1u << 1)	/* the receiver's CQE is solicited */
#define XRNIC_SQE_FENCE		(1u << 2)	/* wait for earlier READs/atomics */
#define XRNIC_SQE_INLINE	(1u << 3)	/* data is in inline_data */
#define XRNIC_SQE_FLAGS_ALL	0xf

/*
 * The address vector of a UD send WQE: where the datagram goes, as the
 * kernel resolved it for the address handle (the next hop's MAC from the
 * neighbour table).  sgid_index names a valid entry of the port's GID
 * table; dgid is IPv4-mapped for RoCE v2 over IPv4.
 */
struct xrnic_av {
	__u8	dgid[16];
	__u8	dmac[6];	/* unicast */
	__u8	sgid_index;
	__u8	hop_limit;
	__u8	traffic_class;
	__u8	reserved[3];
	__le32	flow_label;	/* 20 bits; IPv6 only */
};

/*
 * The body of a BIND_MW WQE (RC and UC QPs): memory window mw_rkey, of the
 * QP's PD, opens [addr, addr + length) of the MR mr_lkey with the remote
 * rights in access, and its rkey becomes new_rkey (the same index, any key
 * byte).  A type 1 window may be bound again while bound, and length 0
 * unbinds it; a type 2 window must be free (never bound, or invalidated)
 * and is bound to the QP that binds it: only requests arriving on that QP
 * may use it.  The MR must be of the QP's PD, registered with
 * XRNIC_ACCESS_MW_BIND (and LOCAL_WRITE for a window that remote writes or
 * atomics may use), and hold the whole range.  XRNIC_ACCESS_ZERO_BASED
 * (type 2 only): remote requests address the window from 0.
 */
struct xrnic_bind_mw {
	__le32	mw_rkey;
	__le32	new_rkey;
	__le32	mr_lkey;
	__le32	access;		/* XRNIC_ACCESS_REMOTE_*, LOCAL_WRITE (ignored), ZERO_BASED */
	__le64	addr;		/* an iova of the MR */
	__le64	length;
};

/* A UD WQE's Q_Key with this bit set means the QP's own (IBTA 10.2.5). */
#define XRNIC_QKEY_USE_QP	0x80000000u

/*
 * Send WQE.  SEND, WRITE and READ take num_sge SGEs (0 .. the QP's
 * max_send_sge), or with XRNIC_SQE_INLINE (SEND and WRITE only)
 * inline_len bytes of inline_data.  Atomics take exactly one 8-byte SGE that
 * receives the original remote value; remote_addr must be 8-byte aligned.
 * imm_data_be travels as the verbs API gives it (network order); a
 * SEND_WITH_INV or LOCAL_INV names the key to invalidate in its place.
 * BIND_MW takes the bind body instead of SGEs; LOCAL_INV and BIND_MW are
 * local operations: they execute once every WQE before them has completed.
 *
 * A UD QP's WQE is a SEND or SEND_WITH_IMM of one packet: dest_qpn and
 * qkey take the place of remote_addr, and the scatter/gather area holds
 * the address vector, then the SGEs or the inline data.  The rest of the
 * 256 bytes is reserved.
 */
struct xrnic_sqe {
	__le64	wr_id;
	__u8	opcode;		/* enum xrnic_wr_opcode */
	__u8	flags;		/* XRNIC_SQE_* */
	__u8	num_sge;
	__u8	reserved0;
	union {
		__be32	imm_data_be;
		__le32	invalidate_rkey;	/* SEND_WITH_INV, LOCAL_INV */
	};
	union {
		__le64	remote_addr;
		struct {
			__le32	dest_qpn;	/* UD: 24 bits */
			__le32	qkey;		/* UD: or XRNIC_QKEY_USE_QP */
		};
	};
	__le32	rkey;
	__le32	inline_len;	/* bytes of inline_data, with XRNIC_SQE_INLINE */
	union {
		struct xrnic_sge sge[XRNIC_MAX_SGE];
		__u8	inline_data[XRNIC_MAX_SGE * sizeof(struct xrnic_sge)];
		struct {
			__le64	compare_add;	/* CMP_AND_SWP: compare; FETCH_AND_ADD: add */
			__le64	swap;		/* CMP_AND_SWP only */
			struct xrnic_sge sge;
		} atomic;
		struct xrnic_bind_mw bind;
		struct {
			struct xrnic_av av;
			union {
				struct xrnic_sge sge[XRNIC_MAX_SGE];
				__u8	inline_data[XRNIC_MAX_INLINE];
			};
		} ud;
		__u8	reserved1[XRNIC_SQE_SIZE - 32];
	};
};

/* Receive WQE: num_sge SGEs (0 .. the QP's max_recv_sge). */
struct xrnic_rqe {
	__le64	wr_id;
	__u8	num_sge;
	__u8	reserved[23];
	struct xrnic_sge sge[XRNIC_MAX_SGE];
};

/* Completion status: the values of enum ibv_wc_status. */
enum xrnic_wc_status {
	XRNIC_WC_SUCCESS		= 0,
	XRNIC_WC_LOC_LEN_ERR		= 1,
	XRNIC_WC_LOC_QP_OP_ERR		= 2,
	XRNIC_WC_LOC_PROT_ERR		= 4,
	XRNIC_WC_WR_FLUSH_ERR		= 5,
	XRNIC_WC_MW_BIND_ERR		= 6,
	XRNIC_WC_BAD_RESP_ERR		= 7,
	XRNIC_WC_LOC_ACCESS_ERR		= 8,
	XRNIC_WC_REM_INV_REQ_ERR	= 9,
	XRNIC_WC_REM_ACCESS_ERR		= 10,
	XRNIC_WC_REM_OP_ERR		= 11,
	XRNIC_WC_RETRY_EXC_ERR		= 12,
	XRNIC_WC_RNR_RETRY_EXC_ERR	= 13,
	XRNIC_WC_FATAL_ERR		= 19,
	XRNIC_WC_GENERAL_ERR		= 21,
};

/* Completion opcodes: the values of enum ibv_wc_opcode. */
enum xrnic_wc_opcode {
	XRNIC_WC_SEND			= 0,
	XRNIC_WC_RDMA_WRITE		= 1,
	XRNIC_WC_RDMA_READ		= 2,
	XRNIC_WC_COMP_SWAP		= 3,
	XRNIC_WC_FETCH_ADD		= 4,
	XRNIC_WC_BIND_MW		= 5,
	XRNIC_WC_LOCAL_INV		= 6,
	XRNIC_WC_RECV			= 128,
	XRNIC_WC_RECV_RDMA_WITH_IMM	= 129,
};

/* struct xrnic_cqe.flags; XRNIC_ENTRY_PHASE (bit 0) is the owner bit. */
#define XRNIC_CQE_PHASE		(1u << 0)
#define XRNIC_CQE_WITH_IMM	(1u << 1)	/* imm_data_be is valid */
#define XRNIC_CQE_SOLICITED	(1u << 2)	/* the sender asked for an event */
#define XRNIC_CQE_RECV		(1u << 3)	/* a receive queue completion */
#define XRNIC_CQE_GRH		(1u << 4)	/* UD: the buffer starts with a GRH */
#define XRNIC_CQE_GRH_IPV4	(1u << 5)	/* UD: that GRH holds an IPv4 header */
#define XRNIC_CQE_WITH_INV	(1u << 6)	/* invalidated_rkey is valid */

/*
 * A UD receive buffer's first XRNIC_GRH_LEN bytes take the GRH: the IPv6
 * header of a RoCE v2 packet over IPv6, or for one over IPv4, 20 bytes of
 * zeros and then its IPv4 header (as mlx5 and rxe lay it out).  byte_len
 * counts them.
 */
#define XRNIC_GRH_LEN		40

/*
 * Completion entry.  The device writes every other byte, then flags (phase
 * bit last, with release ordering); the phase rule is that of the admin
 * rings (xrnic_entry_phase()).  Every CQE is stamped with the device
 * clock.  A completion with an error status still carries wr_id and qpn;
 * the other fields are then undefined.
 */
struct xrnic_cqe {
	__le64	wr_id;
	__le32	byte_len;
	union {
		__be32	imm_data_be;
		__le32	invalidated_rkey;	/* the key a SEND_WITH_INV invalidated */
	};
	__le32	qpn;		/* the local QP */
	__le32	src_qp;		/* receive completions: the sending QP */
	__u8	status;		/* enum xrnic_wc_status */
	__u8	opcode;		/* enum xrnic_wc_opcode */
	__u8	vendor_err;	/* enum xrnic_vendor_err */
	__u8	flags;		/* XRNIC_CQE_* */
	__le32	timestamp;	/* the device clock when written */
};

/*
 * The device's clock: a free-running count of nanoseconds (XRNIC_CLOCK_KHZ
 * ticks a millisecond), of which every CQE carries the low 32 bits
 * (XRNIC_CLOCK_MASK): it wraps every 4.3 s.
 */
#define XRNIC_CLOCK_KHZ		1000000
#define XRNIC_CLOCK_MASK	0xffffffffull

/* struct xrnic_cqe.vendor_err: what exactly went wrong. */
enum xrnic_vendor_err {
	XRNIC_VERR_NONE		= 0,
	XRNIC_VERR_BAD_WQE	= 1,	/* opcode, flags, num_sge or length */
	XRNIC_VERR_LKEY		= 2,	/* an SGE's lkey, PD, rights or bounds */
	XRNIC_VERR_NAK		= 3,	/* the responder NAKed it (the status: which) */
	XRNIC_VERR_RECV_LEN	= 5,	/* the receive buffer is too small */
	XRNIC_VERR_NO_DEST	= 6,	/* no answer (no such QP, or not ready) */
	XRNIC_VERR_RNR		= 7,	/* no receive WQE within rnr_retry */
	XRNIC_VERR_FLUSH	= 8,	/* the QP is in the error state */
	XRNIC_VERR_MW		= 9,	/* a bind or an invalidation the rules refuse */
};

/*
 * QP doorbell record: XRNIC_DB_RECORD_SIZE bytes at the QP's db_addr.  The
 * library writes the free-running producer indexes after writing the WQEs
 * (release); the device writes the consumer indexes once it has finished
 * with the WQEs before them, and before it writes their completions, so a
 * slot may be reused once ci has passed it, and a WQE's completion implies
 * that its slot is free.
 */
struct xrnic_qp_db {
	__le32	sq_pi;		/* library */
	__le32	rq_pi;		/* library */
	__le32	sq_ci;		/* device */
	__le32	rq_ci;		/* device */
	__u8	reserved[48];
};

/*
 * SRQ doorbell record: XRNIC_DB_RECORD_SIZE bytes at the SRQ's db_addr.
 * The library writes the free-running producer index after the WQEs; the
 * device writes the consumer index as soon as it takes a WQE (for one of
 * the SRQ's QPs), so that slot may be reused at once.
 */
struct xrnic_srq_db {
	__le32	pi;		/* library */
	__le32	ci;		/* device */
	__u8	reserved[56];
};

/* struct xrnic_cq_db.arm: a request number in bits 31..2, and the kind. */
#define XRNIC_CQ_ARM_NEXT	1u	/* event on the next completion */
#define XRNIC_CQ_ARM_SOLICITED	2u	/* ... on a solicited or error one */
#define XRNIC_CQ_ARM_KIND	3u
#define XRNIC_CQ_ARM_SN_SHIFT	2

/*
 * CQ doorbell record: XRNIC_DB_RECORD_SIZE bytes at the CQ's db_addr.  ci
 * is the library's free-running consumer index: the device never writes a
 * CQE into a slot the library has not consumed (it reports a CQ overrun
 * instead).  To arm, the library writes arm with a new request number and a
 * kind, then a full barrier; after writing a CQE the device makes a full
 * barrier and reads arm.  The first CQE that matches an armed request it has
 * not answered yet raises one event on the CQ's vector.  No doorbell is
 * needed: either the device sees the request, or the library's next poll
 * sees the CQE.
 */
struct xrnic_cq_db {
	__le32	ci;		/* library */
	__le32	arm;		/* library */
	__u8	reserved[56];
};

/* Event queue doorbell record: the driver's free-running consumer index. */
struct xrnic_eq_db {
	__le32	ci;
	__u8	reserved[60];
};

/*
 * Completion event queue entry.  One event queue per MSI-X vector 1 .. N-1
 * (CREATE_EQ); the device writes an entry naming the CQ, then raises the
 * vector.  Phase bit as in the admin rings.
 */
#define XRNIC_EQE_COMP		1	/* event: a completion on cqn */

struct xrnic_eqe {
	__le32	cqn;
	__u8	event;		/* XRNIC_EQE_* */
	__u8	flags;		/* XRNIC_ENTRY_PHASE */
	__u8	reserved[10];
};

/*
 * The Ethernet function: a TX ring and an RX ring of 16-byte descriptors
 * (START_ETH), both written by the driver and completed in place by the
 * device.  The driver fills a descriptor with status 0, then advances its
 * producer index in struct xrnic_eth_db (release) and rings the vector it
 * gave START_ETH.  The device takes descriptors in order; when it is done
 * with one it writes frame_len (RX), then status with XRNIC_ETH_DONE
 * (release ordering); the driver reads the rest only after seeing DONE.
 *
 * TX: buf_len bytes at addr are one frame from its destination MAC on,
 * without FCS, 14 .. the largest MTU + XRNIC_ETH_OVERHEAD; the device pads
 * a frame shorter than XRNIC_ETH_MIN_FRAME with zeros.  A descriptor
 * outside those lengths or outside RAM completes with XRNIC_ETH_ERR and is
 * counted; a frame sent while the link is down is dropped and counted, its
 * descriptor completing normally.
 *
 * RX: buf_len bytes at addr receive one frame; frame_len says how many it
 * took.  A frame longer than the next buffer, shorter than an Ethernet
 * header, or arriving when the ring has no buffer is dropped and counted:
 * the buffer stays posted.
 */
#define XRNIC_ETH_DESC_SIZE	16
#define XRNIC_ETH_HLEN		14
#define XRNIC_ETH_MIN_FRAME	60	/* without FCS */
#define XRNIC_ETH_OVERHEAD	18	/* Ethernet header and one VLAN tag */

/* struct xrnic_eth_desc.status */
#define XRNIC_ETH_DONE		(1u << 0)
#define XRNIC_ETH_ERR		(1u << 1)	/* a bad descriptor: not sent */

struct xrnic_eth_desc {
	__le64	addr;
	__le16	buf_len;	/* driver: TX frame / RX buffer bytes */
	__le16	frame_len;	/* device, RX: bytes of the frame received */
	__u8	status;		/* device: XRNIC_ETH_DONE, XRNIC_ETH_ERR */
	__u8	reserved[3];
};

/*
 * Ethernet doorbell record.  The driver's free-running producer indexes,
 * and an arm word: after completing descriptors the device makes a full
 * barrier and reads @arm; a value it has not answered yet raises the
 * START_ETH vector once.  The driver writes a new value (any other than
 * the last) when it wants the next interrupt, makes a full barrier and
 * looks at its rings once more, as with a CQ's arm word.
 */
struct xrnic_eth_db {
	__le32	tx_pi;
	__le32	rx_pi;
	__le32	arm;
	__u8	reserved[52];
};

/*
 * The per-context doorbell: user space writes (XRNIC_DEVICE_PEER << 16) |
 * vector to the ivshmem Doorbell register (BAR0 offset
 * XRNIC_IVSHMEM_DOORBELL) after updating a producer index, to wake the
 * device.  It carries no data: the device then scans the doorbell records.
 */

/*
 * The status page, written by the device only.  While XRNIC_STATUS_POLLING
 * is set in @poll the device is polling every doorbell record, and a
 * producer index written there needs no doorbell: the library writes its
 * index, issues a full barrier, reads @poll and rings only when the bit is
 * clear.  The device clears the bit, issues a full barrier and reads every
 * record once more before it sleeps, so that one of the two sees the
 * other's write and no index is left unseen (virtio's notification
 * suppression, with the device telling rather than the driver).
 */
struct xrnic_dev_status {
	__le32	poll;
	__u8	reserved[60];
};

#define XRNIC_STATUS_POLLING		0x1

static_assert(sizeof(struct xrnic_dev_status) == 64, "status page header size");
static_assert(sizeof(struct xrnic_sge) == 16, "SGE size");
static_assert(sizeof(struct xrnic_av) == 32, "AV size");
static_assert(sizeof(struct xrnic_bind_mw) == 32, "bind size");
static_assert(sizeof(struct xrnic_sqe) == XRNIC_SQE_SIZE, "SQE size");
static_assert(sizeof(struct xrnic_rqe) == XRNIC_RQE_SIZE, "RQE size");
static_assert(sizeof(struct xrnic_cqe) == XRNIC_CQE_SIZE, "CQE size");
static_assert(sizeof(struct xrnic_eqe) == XRNIC_EQE_SIZE, "EQE size");
static_assert(sizeof(struct xrnic_qp_db) == XRNIC_DB_RECORD_SIZE, "QP db size");
static_assert(sizeof(struct xrnic_cq_db) == XRNIC_DB_RECORD_SIZE, "CQ db size");
static_assert(sizeof(struct xrnic_srq_db) == XRNIC_DB_RECORD_SIZE, "SRQ db size");
static_assert(sizeof(struct xrnic_eq_db) == XRNIC_DB_RECORD_SIZE, "EQ db size");
static_assert(sizeof(struct xrnic_eth_desc) == XRNIC_ETH_DESC_SIZE, "Ethernet descriptor size");
static_assert(sizeof(struct xrnic_eth_db) == XRNIC_DB_RECORD_SIZE, "Ethernet db size");

#endif /* XRNIC_IO_H */
