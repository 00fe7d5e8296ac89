// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the packet parser and the transport behind it: two
 * connected RC QPs of one device (path MTU 256, a 3-page MR, receive WQEs
 * posted on both), QP 0 with one WQE in flight to a peer that does not
 * answer, so that the completer has something to match answers against;
 * then the input's packets arrive from the wire one by one.
 *
 * Input: byte 0 picks QP 0's WQE (none, SEND, WRITE, READ, FETCH_ADD),
 * byte 1 its length in 64-byte units; then packets, each a big-endian
 * 16-bit length and its bytes (BTH first).  Bit 0 of a packet's BTH byte 4
 * (reserved) picks the QP it is for, and its DestQP field is set to that
 * QP's number; an rkey of 0 in a RETH or AtomicETH stands for the MR's key.
 * Besides the sanitizers, the target checks that each QP ends in RTS or
 * ERR, and in ERR with nothing in flight.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_loopback.h"
#include "transport.h"

#define PAGE		XE_LB_PAGE
#define MR_LEN		(3 * PAGE)
#define MAX_PKT		(XE_PKT_MAX_HDR + 256 + 3)

static struct xe_dev *xe;

static void post_recvs(struct xe_lb *lb, int i)
{
	struct xrnic_qp_db *db = (void *)(xe->mem.base + XE_LB_QP_DB(i));
	struct xrnic_rqe *r;
	unsigned int k;

	for (k = 0; k < 4; k++) {
		r = (void *)(xe->mem.base + XE_LB_RQ(i) + k * XRNIC_RQE_SIZE);
		r->wr_id = htole64(k);
		r->num_sge = 1;
		r->sge[0] = (struct xrnic_sge){ htole64(XE_LB_BUF + k * 1024), htole32(1024),
						htole32(lb->key) };
	}
	db->rq_pi = htole32(4);
}

/*
 * QP 0 sends WQEs to a QPN nobody has, so that they stay in flight: none
 * (pick 0), one of opcode pick (1..4), or three from it on (5..8), so
 * that answers meet a window of messages.
 */
static void post_in_flight(struct xe_lb *lb, uint8_t pick, uint32_t len)
{
	static const uint8_t ops[] = { XRNIC_WR_SEND, XRNIC_WR_RDMA_WRITE, XRNIC_WR_RDMA_READ,
				       XRNIC_WR_ATOMIC_FETCH_AND_ADD };
	struct xrnic_qp_attr a = { .qpn = htole32(lb->qpn[0]), .dest_qpn = htole32(0xfffff),
				   .attr_mask = htole32(XRNIC_QP_DEST_QPN) };
	struct xrnic_qp_db *db = (void *)(xe->mem.base + XE_LB_QP_DB(0));
	struct xrnic_sqe *w = (void *)(xe->mem.base + XE_LB_QP(0));
	unsigned int i, n = pick > 4 ? 3 : 1;
	uint8_t op;

	if (!pick)
		return;
	if (xe_lb_admin(xe, lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL))
		abort();
	for (i = 0; i < n; i++, w++) {
		op = ops[(pick - 1 + i) % ARRAY_SIZE(ops)];
		*w = (struct xrnic_sqe){ .opcode = op, .flags = XRNIC_SQE_SIGNALED, .num_sge = 1,
					 .remote_addr = htole64(XE_LB_BUF + 2 * PAGE),
					 .rkey = htole32(lb->key) };
		if (op == XRNIC_WR_ATOMIC_FETCH_AND_ADD) {
			w->atomic.sge = (struct xrnic_sge){ htole64(XE_LB_BUF), htole32(8),
							    htole32(lb->key) };
		} else {
			w->sge[0] = (struct xrnic_sge){ htole64(XE_LB_BUF + PAGE), htole32(len),
							htole32(lb->key) };
		}
	}
	db->sq_pi = htole32(n);
	xe_doorbell(xe, 1);
	while (xe_dev_poll(xe) == 0)
		;
}

/* The UD QP (slot 2, Q_Key FUZZ_QKEY) and the UC QP (slot 3, its own peer). */
#define FUZZ_QKEY	7
static uint32_t ud_qpn, uc_qpn;

/*
 * Address the packet to a QP of its opcode's transport (RC: QP 0 or 1),
 * and give a zero rkey the MR's and a zero Q_Key the UD QP's.
 */
static void fix_up(uint8_t *b, size_t n, const struct xe_lb *lb)
{
	const struct xe_op_info *op;
	uint32_t qpn, rkey, qkey;

	if (n < sizeof(struct xe_bth))
		return;
	switch (xe_op_transport(b[0])) {
	case XRNIC_QPT_UD:
		qpn = ud_qpn;
		if (n >= 16) {
			memcpy(&qkey, b + 12, 4);
			if (!qkey) {
				qkey = htobe32(FUZZ_QKEY);
				memcpy(b + 12, &qkey, 4);
			}
		}
		break;
	case XRNIC_QPT_UC:
		qpn = uc_qpn;
		break;
	default:
		qpn = lb->qpn[b[4] & 1];
		break;
	}
	b[4] = 0;
	b[5] = qpn >> 16;
	b[6] = qpn >> 8;
	b[7] = qpn;
	op = xe_op_info(b[0]);
	if (!op || !(op->mask & (XE_PKT_RETH | XE_PKT_ATMETH)) || n < 24)
		return;
	memcpy(&rkey, b + 20, 4);
	if (!rkey) {
		rkey = htobe32(lb->key);
		memcpy(b + 20, &rkey, 4);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t pkt[MAX_PKT];
	struct xe_frame f;
	unsigned int rounds;
	struct xe_lb lb;
	size_t n;

	xe = fuzz_device();
	if (size < 2 || xe_lb_setup(xe, &lb, MR_LEN, 0))
		return 0;
	if (xe_lb_create_qp(xe, &lb, 2, XRNIC_QPT_UD, 0, &ud_qpn) ||
	    xe_lb_ud_rts(xe, &lb, ud_qpn, FUZZ_QKEY) ||
	    xe_lb_create_qp(xe, &lb, 3, XRNIC_QPT_UC, 0, &uc_qpn) ||
	    xe_lb_uc_rts(xe, &lb, uc_qpn, uc_qpn))
		abort();
	post_recvs(&lb, 2);
	post_recvs(&lb, 3);
	for (n = 0; n < 2; n++) {
		struct xrnic_qp_attr a = { .qpn = htole32(lb.qpn[n]), .path_mtu = 1,
					   .attr_mask = htole32(XRNIC_QP_PATH_MTU) };

		if (xe_lb_admin(xe, &lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL))
			abort();
		post_recvs(&lb, n);
	}
	post_in_flight(&lb, data[0] % 9, data[1] * 64u % (2 * PAGE));
	data += 2;
	size -= 2;
	while (size >= 2) {
		n = (size_t)data[0] << 8 | data[1];
		data += 2;
		size -= 2;
		if (n > size)
			n = size;
		if (n > sizeof(pkt))
			n = sizeof(pkt);
		memcpy(pkt, data, n);
		fix_up(pkt, n, &lb);
		f = (struct xe_frame){ .hdr = pkt, .hdr_avail = n, .len = n };
		xe_wire_recv(xe, &f);
		data += n;
		size -= n;
		for (rounds = 0; rounds < 64 && xe_dev_poll(xe) == 0; rounds++)
			;
	}
	fuzz_check_qps(xe);
	return 0;
}
