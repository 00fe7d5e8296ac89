/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC transport, split by protocol role as rxe splits it: the requester
 * (req.c) turns the head WQE into request packets, the responder (resp.c)
 * executes request packets and answers with ACKs, NAKs, READ responses and
 * atomic ACKs, the completer (comp.c) turns those answers into completions,
 * retries and errors.  Packets travel as struct xe_frame through the wire
 * (wire.c), which parses them and hands each to the role it is for.
 */
#ifndef XE_TRANSPORT_H
#define XE_TRANSPORT_H

#include "xe.h"
#include "pkt.h"

/*
 * A packet on its way: its headers, and its payload where it sits.  In
 * loopback the payload is read straight from the sender's memory, so it
 * moves with one copy into the receiver's; a frame from the wire has its
 * payload right after the headers (payload NULL), in body when the
 * headers were copied out of it (the switch's ring), else in hdr.
 */
struct xe_frame {
	const uint8_t *hdr;		/* BTH first */
	size_t hdr_avail;		/* bytes readable at hdr */
	const uint8_t *body;		/* or NULL: the packet's len bytes, BTH first */
	size_t len;			/* headers, payload and pad */
	const struct xe_buf *payload;	/* or NULL: after the headers */
	uint64_t payload_off;		/* where in payload it starts */
	const uint8_t *ip;		/* its IP header (ip_len bytes), or NULL */
	size_t ip_len;
	const uint8_t *smac;		/* its source MAC, with ip */
	const struct xe_mcast *group;	/* a multicast group's, or NULL */
};

/* A received packet: its parsed headers, its payload and its IP header. */
struct xe_rx {
	struct xe_pkt pkt;
	const struct xe_buf *payload;
	uint64_t payload_off;
	const uint8_t *ip;		/* or NULL (RC in loopback) */
	size_t ip_len;
	const uint8_t *smac;		/* the frame's source MAC, with ip */
};

static inline bool xe_wr_is_atomic(uint8_t wr_opcode)
{
	return wr_opcode == XRNIC_WR_ATOMIC_CMP_AND_SWP || wr_opcode == XRNIC_WR_ATOMIC_FETCH_AND_ADD;
}

/* A local operation: no packet, it executes when it is the send queue's head. */
static inline bool xe_wr_is_local(uint8_t wr_opcode)
{
	return wr_opcode == XRNIC_WR_LOCAL_INV || wr_opcode == XRNIC_WR_BIND_MW;
}

/* A READ or an atomic: max_rd_atomic bounds those in flight. */
static inline bool xe_wr_is_rd_atomic(uint8_t wr_opcode)
{
	return wr_opcode == XRNIC_WR_RDMA_READ || xe_wr_is_atomic(wr_opcode);
}

/*
 * wire.c: send a packet of qp built from p and its payload; receive one.
 * Returns the bytes of its frame, Ethernet header to ICRC (in loopback
 * those it would have had), which is what pacing charges.
 */
size_t xe_wire_send(struct xe_dev *xe, const struct xe_qp *qp, struct xe_pkt *p,
		    const struct xe_buf *payload, uint64_t payload_off);
/* The same to the path of a datagram (UD); loopback: a GID of the port's. */
struct xe_path;
size_t xe_wire_send_path(struct xe_dev *xe, const struct xe_path *path, bool loopback,
			 struct xe_pkt *p, const struct xe_buf *payload, uint64_t payload_off);
/* The path of qp's packets: its address vector and the port. */
void xe_wire_qp_path(const struct xe_dev *xe, const struct xe_qp *qp, struct xe_path *path);
/* Count a packet as received, parse and dispatch it; false when it was dropped. */
bool xe_wire_recv(struct xe_dev *xe, const struct xe_frame *f);
/* Parse a counted packet and dispatch it; false when it was dropped. */
bool xe_wire_dispatch(struct xe_dev *xe, const struct xe_frame *f);

/* ud.c: the UD transport, a WQE of qp's send queue (true on progress) and a datagram. */
bool xe_ud_send(struct xe_dev *xe, struct xe_qp *qp, uint32_t pi);
void xe_ud_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx);

/* resp.c: a request packet for qp. */
void xe_resp_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx);
/*
 * rq.c, the receive queue, for every transport: copy the next receive WQE into
 * rqe (0), or none is posted (-ENOENT), or the producer index is more
 * than a ring ahead (-EIO, a QP_FATAL event posted); from the QP's SRQ if
 * it has one, which gives the WQE up at once.  xe_rqe_buf() makes its
 * SGEs the buffer dst (-EINVAL: more than the QP's max_recv_sge);
 * xe_rq_consumed() frees its slot (of the QP's own RQ), before its
 * completion is written.
 */
int xe_rq_take(struct xe_dev *xe, struct xe_qp *qp, struct xrnic_rqe *rqe);
int xe_rqe_buf(const struct xe_dev *xe, const struct xe_qp *qp, const struct xrnic_rqe *rqe,
	       struct xe_piece *pieces, struct xe_buf *dst);
void xe_rq_consumed(struct xe_qp *qp);

/*
 * cc.c: congestion control on the device.  A packet for qp (NULL: none)
 * arrived marked CE: count it and send qp's peer a CNP, at most one per
 * interval (the NP).  A CNP for qp (NULL: none) arrived: cut qp's rate or
 * count it ignored (the RP).  For a limited QP (qp->rp.rc): may its next
 * packet leave now (else it is blocked, and xe_cc_wait() says for how
 * long); a packet of bytes left.
 */
void xe_cc_ce_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx);
void xe_cc_cnp_rcv(struct xe_dev *xe, struct xe_qp *qp);
bool xe_cc_may_send(struct xe_dev *xe, struct xe_qp *qp);
void xe_cc_sent(struct xe_dev *xe, struct xe_qp *qp, uint64_t bytes);
/* ns until a blocked paced QP may send (0: now), or -1: it is not blocked. */
int64_t xe_cc_wait(struct xe_dev *xe, const struct xe_qp *qp);

/* comp.c: an answer for qp's requester. */
void xe_comp_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx);
/* Complete the head WQE of qp's send queue; an error moves qp to ERR. */
void xe_comp_wqe(struct xe_dev *xe, struct xe_qp *qp, uint8_t status, uint8_t vendor_err,
		 uint32_t byte_len);
void xe_comp_recv(struct xe_dev *xe, struct xe_qp *qp, uint64_t wr_id, uint8_t status,
		  uint8_t vendor_err, uint8_t opcode, uint32_t byte_len, uint32_t src_qp,
		  uint32_t flags, __be32 imm);
/* Move qp to ERR and complete every outstanding WQE with WR_FLUSH_ERR. */
void xe_qp_to_err(struct xe_dev *xe, struct xe_qp *qp);
/* qp entered ERR from state from: with an SRQ, it takes no more WQEs (QP_LAST_WQE). */
void xe_qp_last_wqe(struct xe_dev *xe, const struct xe_qp *qp, uint8_t from);
void xe_qp_flush(struct xe_dev *xe, struct xe_qp *qp);

/* The message of WQE index idx, while it is in flight. */
static inline struct xe_msg *xe_req_msg(const struct xe_qp *qp, uint32_t idx)
{
	return &qp->msgs[idx % XE_SQ_WINDOW];
}

static inline bool xe_req_in_flight(const struct xe_qp *qp)
{
	return qp->req.sq_next != qp->sq_ci;
}

/* The READs and atomics qp may have in flight: max_rd_atomic, 0 counting as 1. */
static inline uint32_t xe_req_rd_atomic_max(const struct xe_qp *qp)
{
	return qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
}

static inline uint32_t xe_msg_last_psn(const struct xe_msg *m)
{
	return (m->first_psn + m->npsn - 1) & XE_PSN_MASK;
}

/*
 * window.c, the requester's window, for the completer and the requester:
 * send again from psn on, the message it falls
 * in and every one after it (go-back-N), after the RNR timer of rnr_code
 * (rnr_retry counts these) or at once after a sequence NAK or a gap in
 * the answers (retry_cnt counts these); false when no retry is left.
 */
bool xe_req_rnr_retry(struct xe_dev *xe, struct xe_qp *qp, uint32_t psn, uint8_t rnr_code);
bool xe_req_seq_retry(struct xe_qp *qp, uint32_t psn);
/*
 * Start the ACK timer (again): packets are out, their answer is not in.
 * It waits the QP's timeout, doubled for each ACK timeout in a row.
 */
void xe_req_wait_answer(struct xe_dev *xe, struct xe_qp *qp);
/* n more packets answered: the window grows, the backoff ends. */
void xe_req_answered(struct xe_qp *qp, uint32_t n);
/* An empty requester with the full window (create, RESET, ERR). */
void xe_req_reset(struct xe_qp *qp);
/* The next packet to send is the one of psn (or the next new one). */
void xe_req_rewind(struct xe_qp *qp, uint32_t psn);
/* A packet was lost (a sequence NAK, a gap, a timeout): half as many unanswered. */
void xe_req_cwnd_loss(struct xe_qp_req *r);

#endif /* XE_TRANSPORT_H */
