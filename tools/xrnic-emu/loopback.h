/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device set up as the driver would, for the host tests, the data-path
 * fuzzer and the engine benchmark: an admin queue, one PD, one MR over a
 * range of guest RAM, one event queue, one CQ and two RC QPs in RTS
 * connected to each other (loopback: GID 0, the default GID of the MAC, is
 * both paths' destination) with a 4096-byte path MTU and 16 READs or
 * atomics in flight each way.  Guest RAM layout below.
 */
#ifndef XE_LOOPBACK_H
#define XE_LOOPBACK_H

#include "xe.h"

#define XE_LB_PAGE		4096u
#define XE_LB_AQ		0x1000u
#define XE_LB_ACQ		0x2000u
#define XE_LB_AENQ		0x3000u
#define XE_LB_CQ		0x10000u	/* XE_LB_CQ_DEPTH CQEs, then its db page */
#define XE_LB_CQ_DB		(XE_LB_CQ + XE_LB_PAGE)
#define XE_LB_CQ_DEPTH		64
#define XE_LB_EQ		0x12000u	/* 16 EQEs, then its db */
#define XE_LB_QP(i)		(0x20000u + (i) * 0x4000u)	/* SQ, db, RQ */
#define XE_LB_QP_DB(i)		(XE_LB_QP(i) + XE_LB_PAGE)
#define XE_LB_RQ(i)		(XE_LB_QP(i) + 2 * XE_LB_PAGE)
#define XE_LB_DEPTH		16
#define XE_LB_BUF		0x40000u	/* the MR */
#define XE_LB_PATH_MTU		5		/* IB_MTU_4096, as perftest picks */
#define XE_LB_RD_ATOMIC		16		/* max_rd_atomic, max_dest_rd_atomic */

struct xe_lb {
	uint32_t pdn, cqn, key;
	uint32_t qpn[2];
	uint32_t next_cmd;
};

/*
 * Reset the device, zero guest RAM and set everything up; the MR covers
 * buf_len bytes from XE_LB_BUF (iova = guest address).  rnr_retry is the
 * QPs'.  Returns 0 or the status of the admin command that failed.
 */
uint8_t xe_lb_setup(struct xe_dev *xe, struct xe_lb *lb, uint64_t buf_len, uint8_t rnr_retry);

/*
 * Create a QP of type in ring slot slot (XE_LB_QP(slot) ...) on the PD and
 * CQ of xe_lb_setup(), receiving from SRQ srqn (0: its own RQ); move an RC
 * QP to RTS towards dest_qpn on the port's own GID 0.  0 or the status.
 */
uint8_t xe_lb_create_qp(struct xe_dev *xe, struct xe_lb *lb, int slot, uint8_t type,
			uint32_t srqn, uint32_t *qpn);
uint8_t xe_lb_rts(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn, uint32_t dest_qpn,
		  uint8_t rnr_retry);
/* The same for a UC QP (path MTU 4096, PSNs 100), and a UD QP with qkey. */
uint8_t xe_lb_uc_rts(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn, uint32_t dest_qpn);
uint8_t xe_lb_ud_rts(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn, uint32_t qkey);

/* Write a send WQE to the QP in ring slot slot, publish it and run the device. */
void xe_lb_post_send(struct xe_dev *xe, int slot, const struct xrnic_sqe *w);
/* Post a receive WQE of one SGE to the QP in ring slot slot (not run yet). */
void xe_lb_post_recv(struct xe_dev *xe, int slot, uint64_t wr_id, uint64_t addr, uint32_t len,
		     uint32_t key);
/* The next CQE of the CQ of xe_lb_setup(), or NULL; *ci is the caller's index. */
struct xrnic_cqe *xe_lb_poll_cq(struct xe_dev *xe, uint32_t *ci);

/* One admin command on the 4-entry admin queue; returns its status. */
uint8_t xe_lb_admin(struct xe_dev *xe, struct xe_lb *lb, uint8_t opcode, const void *body,
		    void *answer);

/*
 * Point QP qpn of xe (set up by xe_lb_setup) at QP peer_qpn of another
 * device, as two devices on one wire: each device's GID 1 is IPv4-mapped
 * 192.0.2.<last MAC byte>, or with v6 2001:db8::<last MAC byte>, and the
 * path leads from xe's GID 1 to the peer's, to the peer's MAC.  Returns 0
 * or the status of the admin command that failed.
 */
uint8_t xe_lb_connect(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn,
		      const struct xe_dev *peer, uint32_t peer_qpn, bool v6);

#endif /* XE_LOOPBACK_H */
