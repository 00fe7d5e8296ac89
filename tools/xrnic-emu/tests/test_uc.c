// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the UC transport: two UC QPs of one device connected to
 * each other (loopback).  Messages leave without waiting for answers and
 * none come back; a lost packet loses its message, and the next message
 * arrives; READs and atomics are not UC operations.
 */
#include "xe_fixture.h"
#include "loopback.h"
#include "transport.h"

#define BUF		XE_LB_BUF
#define DEPTH		XE_LB_DEPTH
#define UC(i)		(2 + (i))

struct uc {
	struct xe_lb lb;
	uint32_t qpn[2];
	uint32_t cq_ci;
};

static void post_send(struct _test_data_dev *self, int i, const struct xrnic_sqe *w)
{
	xe_lb_post_send(&self->xe, UC(i), w);
}

static void post_recv(struct _test_data_dev *self, int i, uint64_t wr_id, uint64_t addr,
		      uint32_t len, uint32_t key)
{
	xe_lb_post_recv(&self->xe, UC(i), wr_id, addr, len, key);
}

static struct xrnic_cqe *poll_cq(struct _test_data_dev *self, struct uc *t)
{
	return xe_lb_poll_cq(&self->xe, &t->cq_ci);
}

static uint8_t *gpa(struct _test_data_dev *self, uint64_t a)
{
	return self->xe.mem.base + a;
}

static struct xrnic_qp_db *qp_db(struct _test_data_dev *self, int i)
{
	return (void *)gpa(self, XE_LB_QP_DB(UC(i)));
}

static uint8_t uc_setup(struct _test_data_dev *self, struct uc *u)
{
	uint8_t st;
	int i;

	memset(u, 0, sizeof(*u));
	st = xe_lb_setup(&self->xe, &u->lb, 8 * XE_LB_PAGE, 0);
	for (i = 0; i < 2 && !st; i++)
		st = xe_lb_create_qp(&self->xe, &u->lb, UC(i), XRNIC_QPT_UC, 0, &u->qpn[i]);
	for (i = 0; i < 2 && !st; i++)
		st = xe_lb_uc_rts(&self->xe, &u->lb, u->qpn[i], u->qpn[!i]);
	return st;
}

static struct xrnic_sqe sqe(struct uc *u, uint8_t opcode, uint64_t wr_id, uint32_t len)
{
	struct xrnic_sqe w = {
		.wr_id = htole64(wr_id), .opcode = opcode, .flags = XRNIC_SQE_SIGNALED,
		.num_sge = 1, .remote_addr = htole64(BUF + 4 * XE_LB_PAGE),
		.rkey = htole32(u->lb.key),
	};

	w.sge[0] = (struct xrnic_sge){ htole64(BUF), htole32(len), htole32(u->lb.key) };
	return w;
}

/* Hand QP qpn a packet of QP 0's, built from p with len payload bytes of 0x5a. */
static void inject_to(struct _test_data_dev *self, uint32_t qpn, struct xe_pkt *p, uint32_t len)
{
	uint8_t b[XE_PKT_MAX_HDR + 4096 + 3];
	struct xe_frame f;
	uint32_t n;

	p->qpn = qpn;
	p->pkey = XE_DEFAULT_PKEY;
	p->payload_len = len;
	n = xe_pkt_build(b, p);
	memset(b + n, 0x5a, len + p->pad);
	f = (struct xe_frame){ .hdr = b, .hdr_avail = n + len + p->pad, .len = n + len + p->pad };
	xe_wire_recv(&self->xe, &f);
}

static void inject(struct _test_data_dev *self, struct uc *u, struct xe_pkt *p, uint32_t len)
{
	inject_to(self, u->qpn[1], p, len);
}

TEST_F(dev, uc_writes_and_sends_complete_with_no_answer)
{
	uint64_t *cnt = self->xe.counters;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct uc u;
	int i;

	ASSERT_EQ(0, uc_setup(self, &u));
	for (i = 0; i < 10000; i++)
		gpa(self, BUF)[i] = i * 11;
	/* A 10000-byte WRITE at MTU 4096: three packets, nothing back. */
	w = sqe(&u, XRNIC_WR_RDMA_WRITE, 1, 10000);
	post_send(self, 0, &w);
	EXPECT_EQ(3, cnt[XRNIC_CNT_TX_PACKETS]);
	ASSERT_NE(NULL, c = poll_cq(self, &u));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_RDMA_WRITE, c->opcode);
	EXPECT_EQ(0, memcmp(gpa(self, BUF), gpa(self, BUF + 4 * XE_LB_PAGE), 10000));
	EXPECT_EQ(103, xe_qp_get(&self->xe, u.qpn[1])->attr.rq_psn);
	/* A SEND with immediate into a receive WQE. */
	post_recv(self, 1, 0x71, BUF + 4 * XE_LB_PAGE, 8192, u.lb.key);
	w = sqe(&u, XRNIC_WR_SEND_WITH_IMM, 2, 5000);
	w.imm_data_be = htobe32(9);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &u));
	EXPECT_EQ(XRNIC_WC_RECV, c->opcode);
	EXPECT_EQ(5000, le32toh(c->byte_len));
	EXPECT_EQ(htobe32(9), c->imm_data_be);
	ASSERT_NE(NULL, c = poll_cq(self, &u));
	EXPECT_EQ(XRNIC_WC_SEND, c->opcode);
	EXPECT_EQ(5, cnt[XRNIC_CNT_TX_PACKETS]);
	/* A READ is no UC operation: the WQE fails. */
	w = sqe(&u, XRNIC_WR_RDMA_READ, 3, 8);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &u));
	EXPECT_EQ(XRNIC_WC_LOC_QP_OP_ERR, c->status);
}

TEST_F(dev, a_lost_uc_packet_loses_its_message_and_the_next_arrives)
{
	struct xrnic_cqe *c;
	struct xe_pkt p;
	struct uc u;

	ASSERT_EQ(0, uc_setup(self, &u));
	post_recv(self, 1, 0x71, BUF + 4 * XE_LB_PAGE, 16384, u.lb.key);
	/* FIRST 100, MIDDLE 101 lost, LAST 102: the message is dropped. */
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_SEND_FIRST, .psn = 100 };
	inject(self, &u, &p, 4096);
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_SEND_LAST, .psn = 102 };
	inject(self, &u, &p, 10);
	EXPECT_EQ(NULL, poll_cq(self, &u));
	EXPECT_EQ(0, le32toh(qp_db(self, 1)->rq_ci));
	EXPECT_EQ(1, self->xe.counters[XRNIC_CNT_RX_DROPPED]);
	/* A MIDDLE with no FIRST: dropped too. */
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_SEND_MIDDLE, .psn = 103 };
	inject(self, &u, &p, 4096);
	EXPECT_EQ(NULL, poll_cq(self, &u));
	/* The next message, after the gap, takes the same receive WQE. */
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_SEND_ONLY, .psn = 110 };
	inject(self, &u, &p, 20);
	ASSERT_NE(NULL, c = poll_cq(self, &u));
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(20, le32toh(c->byte_len));
	EXPECT_EQ(XRNIC_QPS_RTS, xe_qp_get(&self->xe, u.qpn[1])->state);
	/* An RC opcode to a UC QP: dropped, as is a bad rkey (no NAK). */
	p = (struct xe_pkt){ .opcode = XE_OP_SEND_ONLY, .psn = 111 };
	inject(self, &u, &p, 20);
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_WRITE_ONLY, .psn = 111,
			     .va = BUF, .rkey = u.lb.key + 1, .dma_len = 8 };
	inject(self, &u, &p, 8);
	EXPECT_EQ(NULL, poll_cq(self, &u));
	EXPECT_EQ(0, self->xe.counters[XRNIC_CNT_TX_PACKETS]);
	EXPECT_EQ(XRNIC_QPS_RTS, xe_qp_get(&self->xe, u.qpn[1])->state);
}

/*
 * A UC QP on an SRQ: the WQE a dropped message took from the SRQ is the
 * QP's and serves the next message; the QP entering ERR flushes it.
 */
TEST_F(dev, a_dropped_uc_message_gives_the_srq_wqe_it_took_to_the_next)
{
	struct xrnic_cmd_create_srq c = {
		.depth = htole32(4), .ring_addr = htole64(XE_LB_QP(6)),
		.db_addr = htole64(XE_LB_QP_DB(6)), .max_sge = 1,
	};
	struct xrnic_qp_attr err = { .attr_mask = htole32(XRNIC_QP_STATE),
				     .state = XRNIC_QPS_ERR };
	struct xrnic_srq_db *db = (void *)gpa(self, XE_LB_QP_DB(6));
	struct xrnic_rqe *r = (void *)gpa(self, XE_LB_QP(6));
	struct xrnic_acq_entry a;
	struct xrnic_cqe *e;
	uint32_t qpn, i;
	struct xe_pkt p;
	struct uc u;

	ASSERT_EQ(0, uc_setup(self, &u));
	c.pdn = htole32(u.lb.pdn);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &u.lb, XRNIC_ADMIN_CREATE_SRQ, &c, a.data));
	ASSERT_EQ(0, xe_lb_create_qp(&self->xe, &u.lb, 4, XRNIC_QPT_UC, le32toh(a.srq.srqn),
				     &qpn));
	ASSERT_EQ(0, xe_lb_uc_rts(&self->xe, &u.lb, qpn, u.qpn[0]));
	for (i = 0; i < 2; i++) {
		r[i] = (struct xrnic_rqe){ .wr_id = htole64(0x81 + i), .num_sge = 1 };
		r[i].sge[0] = (struct xrnic_sge){ htole64(BUF + 4 * XE_LB_PAGE), htole32(16384),
						  htole32(u.lb.key) };
	}
	db->pi = htole32(2);
	/* FIRST 100 takes WQE 0x81, LAST 102 (101 lost): the message is dropped. */
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_SEND_FIRST, .psn = 100 };
	inject_to(self, qpn, &p, 4096);
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_SEND_LAST, .psn = 102 };
	inject_to(self, qpn, &p, 10);
	EXPECT_EQ(NULL, poll_cq(self, &u));
	EXPECT_EQ(1, le32toh(db->ci));
	/* The next message lands in 0x81; the SRQ gives nothing more. */
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_SEND_ONLY, .psn = 110 };
	inject_to(self, qpn, &p, 20);
	ASSERT_NE(NULL, e = poll_cq(self, &u));
	EXPECT_EQ(0x81, le64toh(e->wr_id));
	EXPECT_EQ(20, le32toh(e->byte_len));
	EXPECT_EQ(1, le32toh(db->ci));
	/* A message in progress holds 0x82: ERR flushes it, the QP's own. */
	p = (struct xe_pkt){ .opcode = XE_OP_UC | XE_OP_SEND_FIRST, .psn = 111 };
	inject_to(self, qpn, &p, 4096);
	EXPECT_EQ(2, le32toh(db->ci));
	err.qpn = htole32(qpn);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &u.lb, XRNIC_ADMIN_MODIFY_QP, &err, NULL));
	ASSERT_NE(NULL, e = poll_cq(self, &u));
	EXPECT_EQ(0x82, le64toh(e->wr_id));
	EXPECT_EQ(XRNIC_WC_WR_FLUSH_ERR, e->status);
	EXPECT_EQ(NULL, poll_cq(self, &u));
}

TEST_HARNESS_MAIN
