/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrnic-emu: the XRNIC device model.  This header holds the device state and
 * the interface of the core (registers, admin queue, AENQ, logging), which
 * knows nothing of ivshmem: it sees BAR2 as a buffer, guest RAM through
 * struct xe_guest_mem and raises interrupts through a callback.
 */
#ifndef XE_H
#define XE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <endian.h>
#include <string.h>

#include <xrnic/xrnic_regs.h>
#include <xrnic/xrnic_admin.h>
#include <xrnic/xrnic_io.h>

#include "cc.h"
#include "dma.h"
#include "guest_mem.h"

/* Device limits reported by QUERY_DEVICE. */
#define XE_MAX_QP		1024
#define XE_MAX_QP_WR		4096
#define XE_MAX_RD_ATOMIC	128	/* max_rd_atomic, max_dest_rd_atomic (rxe's) */
#define XE_MAX_CQ		1024
#define XE_MAX_CQE		65536
#define XE_MAX_MR		4096
#define XE_MAX_PD		1024
#define XE_HW_VER		1
#define XE_MAX_MR_SIZE		(1ull << 30)
#define XE_PAGE_SIZE_CAP	0x1000ull	/* max_sge is XRNIC_MAX_SGE */

/*
 * MR page size (the only one in XE_PAGE_SIZE_CAP) and the budget of page-list
 * entries all MRs together may hold: like a real MTT it bounds the host
 * memory a guest can make the device allocate (8 bytes an entry, 32 MiB).
 * Beyond it REG_MR fails with NO_RESOURCES.
 */
#define XE_MR_PAGE_SHIFT	12
#define XE_MR_PAGE_SIZE		(1ull << XE_MR_PAGE_SHIFT)
#define XE_MAX_MR_PAGES		(1u << 22)

/*
 * QP numbers are "generation << XE_QPN_SLOT_BITS | slot" with slots
 * 2 .. XE_MAX_QP + 1, so 0 and 1 never occur and a stale qpn of a destroyed
 * QP does not name the QP that reuses its slot (until the generation wraps).
 * Slot 1 holds the GSI QP, whose number is always XRNIC_GSI_QPN.
 */
#define XE_QPN_SLOT_BITS	11
#define XE_QPN_GSI_SLOT		XRNIC_GSI_QPN
#define XE_QPN_FIRST_SLOT	2
#define XE_QPN_SLOT_END		(XE_QPN_FIRST_SLOT + XE_MAX_QP)
#define XE_QPN_SLOT(qpn)	((qpn) & ((1u << XE_QPN_SLOT_BITS) - 1))
#define XE_QPN_GEN_MASK		(XRNIC_QPN_MASK >> XE_QPN_SLOT_BITS)

static_assert(XE_QPN_SLOT_END <= 1u << XE_QPN_SLOT_BITS, "QP slots fit the qpn");

/* Port attributes reported by QUERY_PORT; the device has one port. */
#define XE_PORT_NUM		1
#define XE_PORT_MTU		5		/* IB_MTU_4096 */
#define XE_PORT_SPEED		4		/* QDR */
#define XE_PORT_WIDTH		1		/* 1X */
#define XE_PORT_GID_TBL_LEN	16
#define XE_PORT_MAX_MSG_SZ	(1u << 31)
#define XE_PORT_CAP_FLAGS	0x00010000u

/* The Ethernet function's largest MTU (QUERY_PORT eth_max_mtu). */
#define XE_ETH_MAX_MTU		9000

/* Constant register values. */
#define XE_DMA_WIDTH		48
#define XE_RESET_TIMEOUT_MS	1000
#define XE_MAX_AQ_DEPTH		256

/*
 * The longest the device keeps polling after its last progress before it
 * sleeps until a doorbell (the default of xe_dev.poll_linger_ns).  A
 * doorbell trapped from a TCG guest costs the guest 11-19 us, so a stream
 * of work requests should not ring each one; longer would spend a host
 * core on a guest that has nothing in flight.  Within it the linger adapts
 * (xe_dev.linger_ns): a doorbell that rings less than this after the device
 * stopped polling doubles it (from XE_POLL_LINGER_STEP_NS), one that rings
 * later, which no linger allowed would have caught, takes an eighth off it
 * (below the step: 0).  A stream keeps the device polling, also through the
 * pauses of a two-sided one (halving there cut ib_send_bw at 4 KiB to a
 * third); a ping-pong whose turns are longer than this (90 us between two
 * TCG guests) stops it spinning for nothing on the cores its guests need.
 */
#define XE_POLL_LINGER_NS	50000
#define XE_POLL_LINGER_STEP_NS	2000

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/* Rejected-command log lines allowed per second. */
#define XE_REJECT_LOG_LIMIT	100

struct xe_identity {
	uint64_t guid;
	uint8_t mac[6];
	uint32_t fw_version;		/* XRNIC_FW_VERSION() */
	unsigned int num_vectors;
};

/*
 * Object tables (obj.c), as rxe's rxe_pool: PDs, MRs, MWs, CQs, SRQs and
 * QPs are arrays whose elements start with struct xe_obj.  PD, CQ, SRQ and
 * MR numbers are table indexes from 1 (0 is never valid); the MR key is
 * "index << 8 | key byte"; a QP number holds its slot.  A device reset
 * drops every object.
 */

/**
 * struct xe_obj - what every element of an object table starts with
 * @live: created and not destroyed
 * @refs: the objects that name it (a PD: its MRs, MWs, SRQs and QPs; a
 *	CQ or an SRQ: its QPs; an MR: the windows bound to it); destroying
 *	it is refused while any does
 */
struct xe_obj {
	bool live;
	uint32_t refs;
};

enum xe_obj_kind { XE_PD, XE_MR, XE_MW, XE_CQ, XE_SRQ, XE_QP, XE_OBJ_KINDS };

struct xe_pd {
	struct xe_obj obj;
};

struct xe_mr {
	struct xe_obj obj;
	uint8_t key;			/* key byte; changes on every reuse */
	uint32_t pdn;
	uint32_t access;		/* XRNIC_ACCESS_* */
	uint64_t iova;
	uint64_t length;
	uint32_t npages;
	uint64_t *pages;		/* the device's copy of the page list (GPAs) */
};

/*
 * A memory window (mw.c): while bound it opens [addr, addr + length) of
 * the MR mr_key to remote requests with the rights in access; a type 2
 * window only to those arriving on QP qpn.  Its rkey is
 * (XRNIC_MW_INDEX_BASE + table index) << 8 | key.
 */
struct xe_mw {
	struct xe_obj obj;
	bool bound;
	bool zero_based;		/* remote iovas count from 0 */
	uint8_t type;			/* enum xrnic_mw_type */
	uint8_t key;			/* key byte of its rkey now */
	uint32_t pdn;
	uint32_t qpn;			/* type 2, bound: the QP it is bound to */
	uint32_t access;		/* XRNIC_ACCESS_REMOTE_* */
	uint32_t mr_key;		/* bound: the MR's key */
	uint64_t addr, length;		/* bound: the range, in the MR's iovas */
};

struct xe_cq {
	struct xe_obj obj;
	uint64_t ring;			/* GPA of depth * XRNIC_CQE_SIZE bytes */
	uint32_t depth;
	uint16_t vector;		/* its event queue; 0: none */
	uint8_t *host;			/* the ring */
	struct xrnic_cq_db *db;		/* its doorbell record */
	uint32_t pi;			/* free-running producer index */
	uint32_t answered_sn;		/* last arm request that raised an event */
	bool overrun;			/* in error: no more CQEs */
};

/* A multicast group the device filters for (mcast.c); unused: nqp 0. */
struct xe_mcast {
	uint8_t gid[16];
	uint32_t nqp;
	uint32_t qpn[XRNIC_MAX_MCAST_QP_ATTACH];
};

/* A shared receive queue (srq.c). */
struct xe_srq {
	struct xe_obj obj;
	uint32_t pdn;
	uint32_t depth;
	uint8_t max_sge;
	uint8_t *ring;
	struct xrnic_srq_db *db;
	uint32_t ci;			/* free-running consumer index */
	uint32_t limit;			/* armed: fewer left raises SRQ_LIMIT; 0: not */
};

/* A completion event queue, one per MSI-X vector 1 .. N-1. */
struct xe_eq {
	bool live;
	uint8_t *host;
	uint32_t depth;
	struct xrnic_eq_db *db;
	uint32_t pi;
	uint64_t dropped;		/* events lost to a full queue */
};

/* The MODIFY_QP / QUERY_QP attributes other than the state. */
struct xe_qp_attrs {
	uint32_t dest_qpn;
	uint32_t qkey;			/* UD */
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t access_flags;
	uint8_t path_mtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t dgid[16];
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t port_num;
	uint8_t dmac[6];		/* the path's next hop */
	uint8_t sgid[16];		/* the GID sgid_index named (SET_GID) */
};

/*
 * A long SEND or WRITE asks an ACK every XE_ACK_EVERY packets, so that
 * the requester knows how far the responder got: a timeout then resends
 * from there, and the progress gives the message its retries again.
 */
#define XE_ACK_EVERY		32

/* What wait_until of struct xe_qp_req waits for. */
enum xe_timer {
	XE_TIMER_NONE,
	XE_TIMER_ACK,			/* an answer: the local ACK timeout */
	XE_TIMER_RNR,			/* the RNR timer of an RNR NAK */
	XE_TIMER_RESEND,		/* none: resend now (a sequence NAK) */
};

/*
 * The requester keeps up to XE_SQ_WINDOW messages in flight, as IBTA RC
 * allows (go-back-N: a loss sends again from the lost packet on), and
 * sends a packet only while it is less than XE_PSN_WINDOW PSNs past the
 * first one not answered yet, so that a loss costs at most that many
 * packets sent again.  READs and atomics in flight are bounded by the
 * QP's max_rd_atomic.
 */
#define XE_SQ_WINDOW		64
#define XE_PSN_WINDOW		256
#define XE_CWND_MIN		1
/*
 * The longest an ACK timeout waits after backing off, unless the QP's own
 * timeout is longer: with timeout 14 (67 ms) and retry_cnt 7 the silence
 * the QP survives is 67 ms x (1 + 2 + 4 + ... ), about 5 s.
 */
#define XE_ACK_BACKOFF_MAX_NS	1000000000ll

/* A message in flight: a send queue WQE from when it is taken until it completes. */
struct xe_msg {
	struct xrnic_sqe wqe;		/* its copy: the guest may rewrite the slot */
	struct xe_piece pieces[XRNIC_MAX_SGE];
	struct xe_buf local;		/* its local buffer: SGEs or wqe's inline data */
	uint32_t first_psn, npsn;	/* the PSNs it takes */
	uint32_t done;			/* its packets ACKed, or READ responses in */
	uint32_t read_start;		/* READ: the first response the last request asked */
};

/*
 * Requester and completer (req.c, comp.c).  WQEs sq_ci .. sq_next - 1
 * are in flight, each in msgs[index % XE_SQ_WINDOW] of struct xe_qp; the
 * completer completes them in order from sq_ci.
 */
struct xe_qp_req {
	uint32_t sq_next;		/* the next WQE to take (free-running) */
	uint32_t send_idx;		/* the message whose packet goes next; sq_next: none */
	uint32_t next_psn;		/* that packet */
	uint32_t fresh_psn;		/* the first PSN never sent: packets before it are resent */
	uint32_t rd_atomic;		/* READs and atomics in flight */
	bool gap;			/* asked again after an answer past the one expected */
	enum xe_timer timer;
	int64_t wait_until;		/* CLOCK_MONOTONIC ns the timer expires */
	uint8_t rnr_left, retry_left;	/* retries left; progress gives them back */
	uint32_t retry_psn;		/* where the last sequence-NAK retry began */
	bool rnr_naked;			/* an RNR NAK came since the last progress... */
	uint32_t rnr_psn;		/* ...naming this PSN */
	/*
	 * The loss response (req.c): at most cwnd packets unanswered, from
	 * XE_CWND_MIN to XE_PSN_WINDOW; slow start below ssthresh, one more
	 * per window answered above it (cwnd_acc counts toward it); a
	 * sequence NAK or gap halves it, an ACK timeout drops it to
	 * XE_CWND_MIN.  backoff: ACK timeouts in a row, each doubling the
	 * next wait, until an answer.
	 */
	uint32_t cwnd, ssthresh, cwnd_acc;
	uint8_t backoff;
};

/* Responder (resp.c): the message being received. */
struct xe_qp_resp {
	uint32_t msg;			/* XE_PKT_SEND or _WRITE while one is partly in, or 0 */
	uint64_t offset;		/* the bytes of it received */
	struct xrnic_rqe rqe;		/* SEND: its receive WQE (a copy) */
	bool rqe_held;			/* rqe was taken from the SRQ, not yet completed */
	struct xe_piece pieces[XRNIC_MAX_SGE];
	struct xe_buf dst;		/* SEND: the receive WQE's SGEs */
	struct xe_piece range;		/* WRITE: the RETH's range */
	uint32_t dma_len;		/* WRITE: the RETH's length */
	uint32_t msn;			/* messages completed, for the AETH */
	bool nak_sent;			/* a sequence NAK went out since the last in-order packet */
	uint8_t atomic_next;		/* the slot of struct xe_qp.atomics to fill next */
};

/* An atomic executed, kept to answer it again (struct xe_qp.atomics). */
struct xe_atomic_done {
	bool valid;
	uint32_t psn;
	uint64_t orig;			/* the value it found */
};

struct xe_qp {
	struct xe_obj obj;
	uint32_t gen;			/* qpn generation of this slot */
	uint32_t qpn;
	uint8_t type;			/* enum xrnic_qp_type */
	uint32_t pdn, send_cqn, recv_cqn;
	uint32_t srqn;			/* receives from this SRQ; 0: its own RQ */
	uint32_t mcast_groups;		/* multicast groups it is attached to */
	uint32_t mws;			/* type 2 memory windows bound to it */
	uint64_t sq_addr, rq_addr;	/* GPAs of the rings */
	uint32_t sq_depth, rq_depth;
	uint8_t max_send_sge, max_recv_sge;
	uint32_t max_inline;
	uint8_t state;			/* enum xrnic_qp_state */
	struct xe_qp_attrs attr;
	bool loopback;			/* attr.dgid is in the GID table: the wire loops back */

	/* Data path: the rings, then one part per transport role. */
	uint8_t *sq, *rq;		/* the rings */
	struct xrnic_qp_db *db;		/* its doorbell record */
	uint32_t sq_ci, rq_ci;		/* free-running consumer indexes */
	struct xe_qp_req req;
	struct xe_qp_resp resp;
	/*
	 * The replay cache: the last XE_MAX_RD_ATOMIC atomics executed, a
	 * ring, so that one that comes again (its ATOMIC ACK was lost) is
	 * answered with the value it found without executing twice, for as
	 * many atomics as a requester may have outstanding.
	 */
	struct xe_atomic_done *atomics;
	struct xe_msg *msgs;		/* XE_SQ_WINDOW: the messages in flight */
	/* Congestion control (cc.c): its rate as a sender, its CNPs as a receiver. */
	struct xe_cc_rp rp;
	struct xe_cc_np np;
};

/*
 * Faults injected into the RoCE frames the port sends (fault.c), each in
 * percent; a physical property of the wire, which a reset leaves alone.
 */
struct xe_faults {
	bool active;
	double drop, dup, reorder, corrupt;
	uint64_t state;			/* the generator's, from the seed */
	uint8_t held[4400];		/* a frame held back (reordered); a 4096 MTU's fits */
	size_t held_len;
};

/* An entry of the port's GID table (SET_GID). */
struct xe_gid {
	bool valid;
	uint8_t gid[16];
};

/* The Ethernet function (eth.c), while START_ETH runs it. */
struct xe_eth {
	bool live;
	struct xrnic_eth_desc *tx, *rx;	/* the rings */
	uint32_t tx_depth, rx_depth;
	struct xrnic_eth_db *db;
	uint16_t vector;
	uint32_t tx_ci, rx_ci;		/* free-running consumer indexes */
	uint32_t answered_arm;		/* the arm value last answered */
	bool completed;			/* a descriptor completed since the last notify */
	bool bad_pi;			/* a bad producer index was logged */
};

/* A latched ring: host view of guest memory, depth a power of two. */
struct xe_ring {
	uint8_t *host;
	uint32_t depth;
};

struct xe_rx;
/*
 * Where the wire (wire.c) hands each packet it received: the transport's
 * roles and congestion control, which sit above the wire and send through
 * it, so the wire calls none of them by name.  xe_dev_init() sets them.
 */
struct xe_rx_handlers {
	/* A datagram for UD qp (each QP of a multicast group in turn). */
	void (*ud)(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx);
	/* A request for qp: its responder. */
	void (*request)(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx);
	/* An answer for qp's requester: its completer. */
	void (*answer)(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx);
	/* A packet for qp that a switch marked CE: the notification point. */
	void (*ce)(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx);
	/* A CNP for qp (NULL: none): the reaction point. */
	void (*cnp)(struct xe_dev *xe, struct xe_qp *qp);
};

struct xe_dev {
	/* Set up by the creator before xe_dev_init(). */
	uint8_t *bar2;			/* XRNIC_BAR2_SIZE bytes, shared */
	struct xe_guest_mem mem;
	FILE *log;
	struct xe_identity id;
	void (*raise_irq)(struct xe_dev *xe, unsigned int vec);
	void *irq_ctx;			/* for raise_irq */
	/* Put an Ethernet frame on the port's wire; NULL: no wire. */
	void (*eth_xmit)(struct xe_dev *xe, const uint8_t *frame, size_t len);
	/*
	 * Optional, for a frame of len bytes to dmac: where the wire would
	 * put it, to build it there (one copy less), or NULL: build it
	 * elsewhere and eth_xmit it; then eth_commit sends it.
	 */
	uint8_t *(*eth_reserve)(struct xe_dev *xe, const uint8_t *dmac, size_t len);
	void (*eth_commit)(struct xe_dev *xe, uint8_t *frame, size_t len);
	void *wire_ctx;			/* for eth_xmit, eth_reserve, eth_commit */
	/* The most to poll after the last progress (0: never); xe_dev_init() sets the default. */
	int64_t poll_linger_ns;
	/* Congestion control's parameters (xe_dev_init() sets mlx5's defaults; a reset keeps them). */
	struct xe_cc_params cc;
	/* Set by xe_dev_init(). */
	struct xe_rx_handlers rx_handlers;
	/*
	 * The clock of the device's timers (xe_clock()): CLOCK_MONOTONIC, or
	 * clock_ns while manual_clock is set (host tests move it).
	 */
	bool manual_clock;
	int64_t clock_ns;

	/* The physical link of the port and its faults; a reset changes neither. */
	bool link_down;
	struct xe_faults faults;

	/* Device-private state; RO registers are written from it. */
	uint32_t sts;			/* XRNIC_DEV_STS_* */
	uint32_t aenq_dropped;
	bool aq_enabled;
	struct xe_ring aq, acq, aenq;
	uint32_t aq_ci;			/* free-running indexes */
	uint32_t acq_pi;
	uint32_t aenq_pi;

	/* Data-path work may be pending: a data doorbell rang, or work remained. */
	bool work;
	bool rung;			/* a data doorbell rang since the last poll */
	/* Polling the doorbell records (the status page says so), since when busy. */
	bool polling;
	int64_t last_progress;		/* CLOCK_MONOTONIC ns */
	int64_t linger_ns;		/* polling after it now: 0 .. poll_linger_ns */
	int64_t poll_stopped;		/* when polling last stopped */
	/*
	 * Answers may wait unread on the input (the last receive filled its
	 * batch): no ACK timer expires until they are in, so a peer is not
	 * charged for frames the device model has not read yet.
	 */
	bool rx_pending;
	/*
	 * The port is paused (the switch's lossless mode, switch.h): the
	 * requesters and the Ethernet function send nothing new.
	 */
	bool tx_paused;

	/* Objects, dropped by a reset.  Entry 0 (QPs: 0 and 1) is unused. */
	struct xe_pd pd[XE_MAX_PD + 1];
	struct xe_mr mr[XE_MAX_MR + 1];
	uint64_t mr_pages;		/* page-list entries held by all MRs */
	struct xe_mw mw[XRNIC_MAX_MW + 1];
	struct xe_cq cq[XE_MAX_CQ + 1];
	struct xe_srq srq[XRNIC_MAX_SRQ + 1];
	struct xe_mcast mcast[XRNIC_MAX_MCAST_GRP];
	struct xe_qp qp[XE_QPN_SLOT_END];
	struct xe_eq eq[XRNIC_MAX_VECTORS];
	struct xe_eth eth;
	struct xe_gid gid[XE_PORT_GID_TBL_LEN];	/* the port's GID table */
	uint64_t counters[XRNIC_NUM_COUNTERS];	/* enum xrnic_counter */

	/* Why the command being executed failed, for the log; or NULL. */
	const char *reject_why;

	uint16_t ip_id;			/* IPv4 identification of the next frame */

	/* Rejected-command log rate limit. */
	int64_t reject_window;		/* CLOCK_MONOTONIC second */
	unsigned int reject_count;
};

/*
 * The live QP numbered qpn, or NULL: a lookup in the device's QP table, for
 * every layer (the wire, memory windows, multicast), defined here so that
 * none of them calls up into qp.c.
 */
static inline struct xe_qp *xe_qp_get(struct xe_dev *xe, uint32_t qpn)
{
	uint32_t slot = XE_QPN_SLOT(qpn);

	if (qpn > XRNIC_QPN_MASK || slot < XE_QPN_GSI_SLOT || slot >= XE_QPN_SLOT_END ||
	    !xe->qp[slot].obj.live || xe->qp[slot].qpn != qpn)
		return NULL;
	return &xe->qp[slot];
}

/* True when len bytes at p are all zero. */
static inline bool xe_all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static inline bool xe_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A command handler's failure: remember why for the log, return status. */
static inline uint8_t xe_fail(struct xe_dev *xe, uint8_t status, const char *why)
{
	xe->reject_why = why;
	return status;
}

/*
 * A command handler: validates the command, executes it and fills in the
 * completion body, returning an enum xrnic_admin_status.  It writes the
 * body only on success and changes no state on failure.
 */
typedef uint8_t xe_cmd_fn(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl);

/*
 * Publish a ring entry: every byte but the flags byte at flags_off, then the
 * flags byte (carrying the phase bit) with release ordering.  The one way
 * the device writes the ACQ, AENQ, CQs and EQs.
 */
static inline void xe_ring_publish(uint8_t *slot, const void *entry, size_t size,
				   size_t flags_off)
{
	const uint8_t *src = entry;

	memcpy(slot, src, flags_off);
	memcpy(slot + flags_off + 1, src + flags_off + 1, size - flags_off - 1);
	__atomic_store_n(slot + flags_off, src[flags_off], __ATOMIC_RELEASE);
}

/* regs.c: the register block, nothing else. */
uint32_t xe_reg_read(const struct xe_dev *xe, uint32_t off);
void xe_reg_write(struct xe_dev *xe, uint32_t off, uint32_t val);
uint64_t xe_reg_read64(const struct xe_dev *xe, uint32_t lo);
void xe_reg_clear(struct xe_dev *xe, uint32_t off, uint32_t bits);

/* dev.c: lifecycle (init, reset, admin queue enable) and doorbells. */
void xe_dev_init(struct xe_dev *xe);
void xe_dev_fini(struct xe_dev *xe);
/* A doorbell only records what rang; xe_dev_poll() does the work. */
void xe_doorbell(struct xe_dev *xe, unsigned int vec);
/*
 * Do the work that doorbells asked for, and keep polling every doorbell
 * record for linger_ns (adaptive, see XE_POLL_LINGER_NS) after the last
 * progress, the status page saying so.  Returns the nanoseconds until a timer of the data path
 * expires (a retry), 0 when work remains now or the device is polling, or
 * -1 when nothing is pending.
 */
int64_t xe_dev_poll(struct xe_dev *xe);
int64_t xe_now_ns(void);

/*
 * The clock of the device's timers (struct xe_dev.manual_clock): the
 * transport's ACK and RNR timers, congestion control, the switch port's
 * pauses.  The poll's linger and the guest's time stamps are on the host's.
 */
static inline int64_t xe_clock(const struct xe_dev *xe)
{
	return xe->manual_clock ? xe->clock_ns : xe_now_ns();
}

/* obj.c: the object tables (struct xe_obj). */
/* The live object numbered n of a kind, or NULL (QPs: xe_qp_get()). */
void *xe_obj_get(const struct xe_dev *xe, enum xe_obj_kind kind, uint32_t n);
/* The first number of a kind no live object has, or 0: the table is full. */
uint32_t xe_obj_unused(const struct xe_dev *xe, enum xe_obj_kind kind);
/* How many objects of a kind are live. */
uint32_t xe_obj_count(const struct xe_dev *xe, enum xe_obj_kind kind);
/* Forget every object of a kind (a reset); what they hold is freed first. */
void xe_obj_drop_all(struct xe_dev *xe, enum xe_obj_kind kind);

static inline struct xe_pd *xe_pd_get(struct xe_dev *xe, uint32_t pdn)
{
	return xe_obj_get(xe, XE_PD, pdn);
}

static inline struct xe_cq *xe_cq_get(struct xe_dev *xe, uint32_t cqn)
{
	return xe_obj_get(xe, XE_CQ, cqn);
}

static inline struct xe_srq *xe_srq_get(struct xe_dev *xe, uint32_t srqn)
{
	return xe_obj_get(xe, XE_SRQ, srqn);
}

/* admin.c */
void xe_admin_process(struct xe_dev *xe);

/* pd.c */
xe_cmd_fn xe_cmd_query_port;
xe_cmd_fn xe_cmd_alloc_pd, xe_cmd_dealloc_pd;

/* mr.c */
xe_cmd_fn xe_cmd_reg_mr, xe_cmd_dereg_mr;
void xe_mr_drop_all(struct xe_dev *xe);
/*
 * Translate [iova, iova + len) of the MR named by key, which must be live,
 * belong to PD pdn and allow every XRNIC_ACCESS_* bit of access (0: local
 * read).  On success *gpa is the guest address of the byte at iova and
 * *avail the bytes from there that are in the same page (at most len): the
 * caller translates the rest page by page.  Returns 0, -EINVAL (len 0 or
 * unknown access bits), -ENOENT (no live MR with that key), -EACCES (another
 * PD or missing rights) or -ERANGE (not inside the MR).
 */
int xe_mr_translate(const struct xe_dev *xe, uint32_t key, uint32_t pdn, uint64_t iova,
		    uint64_t len, uint32_t access, uint64_t *gpa, uint64_t *avail);
/* The MR table index of key, or 0 when it names no live MR. */
uint32_t xe_mr_lookup(const struct xe_dev *xe, uint32_t key);

/* mw.c */
xe_cmd_fn xe_cmd_alloc_mw, xe_cmd_dealloc_mw;

/* cc.c */
xe_cmd_fn xe_cmd_query_cc, xe_cmd_set_cc;
/* Unbind the type 2 windows bound to qp (it is being destroyed). */
void xe_mw_unbind_qp(struct xe_dev *xe, const struct xe_qp *qp);
/*
 * Execute a LOCAL_INV or BIND_MW WQE of qp: XRNIC_WC_SUCCESS, or the
 * status (and in *verr the vendor error) the rules give.
 */
uint8_t xe_mw_local_op(struct xe_dev *xe, struct xe_qp *qp, const struct xrnic_sqe *w,
		       uint8_t *verr);
/* Invalidate the type 2 window rkey bound to qp (a SEND_WITH_INV); 0 or -EINVAL. */
int xe_mw_remote_invalidate(struct xe_dev *xe, const struct xe_qp *qp, uint32_t rkey);
/*
 * xe_mr_translate() for a window's rkey: the window must be live, bound,
 * of PD pdn (and, type 2, bound to QP qpn) and grant access, which must
 * ask a remote right; the range is translated through its MR.  True when
 * key names a window at all (then *err is the answer).
 */
bool xe_mw_translate(const struct xe_dev *xe, uint32_t key, uint32_t pdn, uint32_t qpn,
		     uint64_t iova, uint64_t len, uint32_t access, uint64_t *gpa, uint64_t *avail,
		     int *err);

/* cq.c */
xe_cmd_fn xe_cmd_create_cq, xe_cmd_destroy_cq;
/* Write a CQE (its phase bit is set here) and raise an event if armed. */
void xe_cq_post(struct xe_dev *xe, uint32_t cqn, struct xrnic_cqe *cqe);

/* srq.c */
xe_cmd_fn xe_cmd_create_srq, xe_cmd_destroy_srq, xe_cmd_modify_srq, xe_cmd_resize_srq,
	xe_cmd_query_srq;
/* Copy the next WQE of srq into rqe and take it (0), or none (-ENOENT), or -EIO. */
int xe_srq_take(struct xe_dev *xe, uint32_t srqn, struct xrnic_rqe *rqe);

/* mcast.c */
xe_cmd_fn xe_cmd_attach_mcast, xe_cmd_detach_mcast;
bool xe_gid_is_mcast(const uint8_t *gid);
/* The group of the multicast GID gid, or NULL: not one the device joined. */
struct xe_mcast *xe_mcast_find(struct xe_dev *xe, const uint8_t *gid);
void xe_mcast_drop_all(struct xe_dev *xe);

/* eq.c */
xe_cmd_fn xe_cmd_create_eq, xe_cmd_destroy_eq;
void xe_eq_post(struct xe_dev *xe, uint16_t vector, uint32_t cqn);
void xe_eq_drop_all(struct xe_dev *xe);

/* fault.c: parse "drop=P,dup=P,reorder=P,corrupt=P,seed=N"; 0 or -EINVAL. */
int xe_faults_parse(struct xe_faults *f, const char *spec);
/* Put a RoCE frame on the wire through the faults (it may be changed). */
void xe_fault_xmit(struct xe_dev *xe, uint8_t *frame, size_t len);

/* wire.c: a frame from the port's wire: to the transport or the Ethernet function. */
void xe_port_receive(struct xe_dev *xe, const uint8_t *frame, size_t len);

/* eth.c: the Ethernet function. */
xe_cmd_fn xe_cmd_start_eth, xe_cmd_stop_eth;
void xe_eth_drop_all(struct xe_dev *xe);
/* Send what the TX ring holds (a budget of it); true on progress. */
bool xe_eth_tx(struct xe_dev *xe);
/* A frame from the wire: into the next RX buffer, or dropped and counted. */
void xe_eth_rx(struct xe_dev *xe, const uint8_t *frame, size_t len);
/* Raise the Ethernet vector if descriptors completed and the driver armed it. */
void xe_eth_notify(struct xe_dev *xe);

/* req.c: the requester, one QP's send queue at a time. */
/* Run the send queue of qp; returns true when it made progress. */
bool xe_req_run(struct xe_dev *xe, struct xe_qp *qp);

/* The transport's roles and the wire: transport.h. */

/* qp.c */
xe_cmd_fn xe_cmd_create_qp, xe_cmd_modify_qp, xe_cmd_query_qp, xe_cmd_destroy_qp;
void xe_qp_drop_all(struct xe_dev *xe);

/* stats.c */
xe_cmd_fn xe_cmd_query_stats, xe_cmd_query_resources;
void xe_stats_count(struct xe_dev *xe, uint8_t status);
void xe_stats_drop_all(struct xe_dev *xe);

/* aenq.c */
void xe_aenq_post(struct xe_dev *xe, uint16_t event, uint32_t param, uint64_t data);

/* port.c */
xe_cmd_fn xe_cmd_set_gid;
void xe_mac_eui64(const uint8_t *mac, uint8_t *eui);
bool xe_gid_is_ours(const struct xe_dev *xe, const uint8_t *gid);
void xe_gid_drop_all(struct xe_dev *xe);
void xe_port_set_link(struct xe_dev *xe, bool up);
void xe_port_announce(struct xe_dev *xe);

/* log.c */
void xe_log(struct xe_dev *xe, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xe_log_reject(struct xe_dev *xe, const struct xrnic_aq_entry *e, const char *why);

#endif /* XE_H */
