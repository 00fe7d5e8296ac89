/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request a requester hands to a responder, and the responder's answer.
 * On one device (loopback) the requester calls the responder directly; the
 * wire will carry the same request as RoCE v2 packets.
 */
#ifndef XE_RESP_H
#define XE_RESP_H

#include "dma.h"

/* The responder's answer: an ACK, or why not. */
enum xe_answer {
	XE_ACK,
	XE_NAK_RNR,		/* no receive WQE: retry after the RNR timer */
	XE_NAK_INV_REQ,		/* the receive buffer is too small, or a bad request */
	XE_NAK_REM_ACCESS,	/* rkey, bounds, rights or QP access flags */
	XE_NAK_REM_OP,		/* the responder failed (its own lkey) */
	XE_NO_ANSWER,		/* dropped: no such QP, or not ready to receive */
};

struct xe_request {
	uint8_t opcode;			/* enum xrnic_wr_opcode */
	uint32_t src_qpn;
	uint32_t dest_qpn;
	/*
	 * SEND and WRITE: the payload (requester memory, already checked);
	 * READ and atomics: where the answer goes (checked too).
	 */
	const struct xe_buf *data;
	uint64_t len;
	uint64_t raddr;
	uint32_t rkey;
	__be32 imm;
	bool solicited;
	uint64_t compare_add, swap;
	uint8_t rnr_timer;		/* out, with XE_NAK_RNR: the responder's */
};

enum xe_answer xe_resp_request(struct xe_dev *xe, struct xe_request *req);

#endif /* XE_RESP_H */
