// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the data path: two QPs of one device connected to each
 * other (loopback), work requests written into fake guest RAM as the
 * provider writes them, and the device's completions, data and errors
 * checked.  No VM.
 */
#include "xe_fixture.h"
#include "loopback.h"
#include "transport.h"

#define PAGE		XE_LB_PAGE
#define CQ_GPA		XE_LB_CQ
#define CQ_DB_GPA	XE_LB_CQ_DB
#define EQ_GPA		XE_LB_EQ
#define QP_GPA(i)	XE_LB_QP(i)
#define BUF_GPA		XE_LB_BUF	/* the MR: 3 pages of data */
#define BUF_LEN		(3 * PAGE)
#define DEPTH		XE_LB_DEPTH

struct dp {
	uint32_t pdn, cqn, key;
	uint32_t qpn[2];
	uint32_t cq_ci;
	struct xe_lb lb;	/* for more admin commands */
};

static uint8_t *gpa(struct _test_data_dev *self, uint64_t a)
{
	return self->xe.mem.base + a;
}

static struct xrnic_qp_db *qp_db(struct _test_data_dev *self, int i)
{
	return (void *)gpa(self, XE_LB_QP_DB(i));
}

/* Two connected RTS QPs (loopback.c); 0 or the failed admin status. */
static uint8_t dp_setup(struct _test_data_dev *self, struct dp *d, uint8_t rnr_retry)
{
	struct xe_lb lb;
	uint8_t st = xe_lb_setup(&self->xe, &lb, BUF_LEN, rnr_retry);

	*d = (struct dp){ .pdn = lb.pdn, .cqn = lb.cqn, .key = lb.key,
			  .qpn = { lb.qpn[0], lb.qpn[1] }, .lb = lb };
	return st;
}

/* Write a send WQE to QP i and publish it; run the device. */
static void post_send(struct _test_data_dev *self, int i, const struct xrnic_sqe *w)
{
	xe_lb_post_send(&self->xe, i, w);
}

static void post_recv(struct _test_data_dev *self, int i, uint64_t wr_id, uint64_t addr,
		      uint32_t len, uint32_t key)
{
	xe_lb_post_recv(&self->xe, i, wr_id, addr, len, key);
}

/* The next CQE, or NULL; consumes it. */
static struct xrnic_cqe *poll_cq(struct _test_data_dev *self, struct dp *d)
{
	return xe_lb_poll_cq(&self->xe, &d->cq_ci);
}

static struct xrnic_sqe sqe(uint8_t opcode, uint64_t wr_id, uint64_t addr, uint32_t len,
			    uint32_t key)
{
	struct xrnic_sqe w = {
		.wr_id = htole64(wr_id), .opcode = opcode, .flags = XRNIC_SQE_SIGNALED,
		.num_sge = 1,
	};

	w.sge[0] = (struct xrnic_sge){ htole64(addr), htole32(len), htole32(key) };
	return w;
}

TEST_F(dev, send_lands_in_the_receive_buffer_across_pages)
{
	struct dp d;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	uint32_t i;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	for (i = 0; i < 5000; i++)
		gpa(self, BUF_GPA + 100)[i] = i * 7;
	post_recv(self, 1, 0x77, BUF_GPA + 6000, 6000, d.key);
	w = sqe(XRNIC_WR_SEND_WITH_IMM, 0x55, BUF_GPA + 100, 5000, d.key);
	w.imm_data_be = htobe32(0xabcd);
	post_send(self, 0, &w);
	c = poll_cq(self, &d);		/* the receiver's, written first */
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_RECV, c->opcode);
	EXPECT_EQ(0x77, le64toh(c->wr_id));
	EXPECT_EQ(5000, le32toh(c->byte_len));
	EXPECT_EQ(d.qpn[0], le32toh(c->src_qp));
	EXPECT_TRUE(c->flags & XRNIC_CQE_WITH_IMM);
	EXPECT_EQ(htobe32(0xabcd), c->imm_data_be);
	c = poll_cq(self, &d);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_SEND, c->opcode);
	EXPECT_EQ(0x55, le64toh(c->wr_id));
	EXPECT_EQ(0, memcmp(gpa(self, BUF_GPA + 100), gpa(self, BUF_GPA + 6000), 5000));
	EXPECT_EQ(1, le32toh(qp_db(self, 0)->sq_ci));
	EXPECT_EQ(1, le32toh(qp_db(self, 1)->rq_ci));
}

/* Every CQE carries the device clock's low 32 bits (ns): later ones later. */
TEST_F(dev, completions_are_stamped_with_the_device_clock)
{
	uint32_t ts[6], before, after;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct dp d;
	int i;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	before = (uint32_t)xe_now_ns();
	for (i = 0; i < 3; i++) {
		post_recv(self, 1, i, BUF_GPA + 4096, 100, d.key);
		w = sqe(XRNIC_WR_SEND, i, BUF_GPA, 100, d.key);
		post_send(self, 0, &w);
		usleep(1000);
	}
	after = (uint32_t)xe_now_ns();
	for (i = 0; i < 6; i++) {
		ASSERT_NE(NULL, c = poll_cq(self, &d));
		ts[i] = le32toh(c->timestamp);
		/* Within [before, after], modulo 2^32. */
		EXPECT_GE(after - before, ts[i] - before);
		if (i)
			EXPECT_GE(after - before, ts[i] - ts[i - 1]);
	}
	/* A millisecond apart: the clock counts nanoseconds. */
	EXPECT_LE(1000000, ts[2] - ts[0]);
}

TEST_F(dev, write_read_and_atomics_reach_the_remote_mr)
{
	struct dp d;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	uint64_t *word = (uint64_t *)gpa(self, BUF_GPA + 2 * PAGE);

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	memset(gpa(self, BUF_GPA), 0x5a, 300);
	w = sqe(XRNIC_WR_RDMA_WRITE, 1, BUF_GPA, 300, d.key);
	w.remote_addr = htole64(BUF_GPA + 4000);	/* across a page boundary */
	w.rkey = htole32(d.key);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_RDMA_WRITE, c->opcode);
	EXPECT_EQ(0, memcmp(gpa(self, BUF_GPA), gpa(self, BUF_GPA + 4000), 300));

	w = sqe(XRNIC_WR_RDMA_READ, 2, BUF_GPA + 5000, 300, d.key);
	w.remote_addr = htole64(BUF_GPA + 4000);
	w.rkey = htole32(d.key);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_RDMA_READ, c->opcode);
	EXPECT_EQ(0, memcmp(gpa(self, BUF_GPA + 5000), gpa(self, BUF_GPA), 300));

	*word = 40;
	w = sqe(XRNIC_WR_ATOMIC_FETCH_AND_ADD, 3, 0, 0, 0);
	w.num_sge = 1;
	w.atomic.sge = (struct xrnic_sge){ htole64(BUF_GPA + 8), htole32(8), htole32(d.key) };
	w.atomic.compare_add = htole64(2);
	w.remote_addr = htole64(BUF_GPA + 2 * PAGE);
	w.rkey = htole32(d.key);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(42, *word);
	EXPECT_EQ(40, *(uint64_t *)gpa(self, BUF_GPA + 8));
	w.opcode = XRNIC_WR_ATOMIC_CMP_AND_SWP;
	w.atomic.compare_add = htole64(42);
	w.atomic.swap = htole64(7);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_COMP_SWAP, c->opcode);
	EXPECT_EQ(7, *word);
	EXPECT_EQ(42, *(uint64_t *)gpa(self, BUF_GPA + 8));
}

TEST_F(dev, bad_rkey_fails_the_wqe_and_flushes_the_next)
{
	struct dp d;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	w = sqe(XRNIC_WR_RDMA_WRITE, 1, BUF_GPA, 8, d.key);
	w.remote_addr = htole64(BUF_GPA);
	w.rkey = htole32(d.key ^ 1);		/* another key byte */
	/* Two WQEs before one doorbell: the second is flushed. */
	memcpy(gpa(self, QP_GPA(0) + XRNIC_SQE_SIZE), &w, sizeof(w));
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_REM_ACCESS_ERR, c->status);
	EXPECT_EQ(1, le64toh(c->wr_id));
	EXPECT_EQ(XRNIC_QPS_ERR, xe_qp_get(&self->xe, d.qpn[0])->state);
	qp_db(self, 0)->sq_pi = htole32(2);
	xe_doorbell(&self->xe, 1);
	xe_dev_poll(&self->xe);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_WR_FLUSH_ERR, c->status);
	/* The responder saw an access violation: its QP is in ERR too. */
	EXPECT_EQ(XRNIC_QPS_ERR, xe_qp_get(&self->xe, d.qpn[1])->state);
}

TEST_F(dev, local_errors_have_their_own_status)
{
	struct dp d;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	w = sqe(XRNIC_WR_SEND, 1, BUF_GPA, 8, d.key + 0x100);	/* no such MR */
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_LOC_PROT_ERR, c->status);

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	post_recv(self, 1, 9, BUF_GPA, 4, d.key);
	w = sqe(XRNIC_WR_SEND, 2, BUF_GPA + 100, 8, d.key);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_LOC_LEN_ERR, c->status);	/* the receiver's */
	EXPECT_EQ(9, le64toh(c->wr_id));
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_REM_INV_REQ_ERR, c->status);

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	w = sqe(XRNIC_WR_NUM_OPCODES, 3, BUF_GPA, 8, d.key);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_LOC_QP_OP_ERR, c->status);
	EXPECT_EQ(XRNIC_VERR_BAD_WQE, c->vendor_err);
}

TEST_F(dev, misaligned_atomic_is_an_invalid_request)
{
	uint64_t *word = (uint64_t *)gpa(self, BUF_GPA + 2 * PAGE);
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct dp d;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	word[0] = word[1] = 5;
	w = sqe(XRNIC_WR_ATOMIC_FETCH_AND_ADD, 3, 0, 0, 0);
	w.atomic.sge = (struct xrnic_sge){ htole64(BUF_GPA + 8), htole32(8), htole32(d.key) };
	w.atomic.compare_add = htole64(1);
	w.remote_addr = htole64(BUF_GPA + 2 * PAGE + 4);
	w.rkey = htole32(d.key);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_REM_INV_REQ_ERR, c->status);
	EXPECT_EQ(XRNIC_QPS_ERR, xe_qp_get(&self->xe, d.qpn[1])->state);
	EXPECT_EQ(5, word[0]);
	EXPECT_EQ(5, word[1]);
}

/* A responder with no resources for READs and atomics (max_dest_rd_atomic 0) refuses them. */
TEST_F(dev, reads_to_a_responder_without_rd_atomic_resources_are_invalid_requests)
{
	struct xrnic_qp_attr a = { .attr_mask = htole32(XRNIC_QP_MAX_DEST_RD_ATOMIC) };
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct dp d;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	a.qpn = htole32(d.qpn[1]);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &d.lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL));
	memset(gpa(self, BUF_GPA + 2 * PAGE), 0x6b, 100);
	w = sqe(XRNIC_WR_RDMA_READ, 4, BUF_GPA, 100, d.key);
	w.remote_addr = htole64(BUF_GPA + 2 * PAGE);
	w.rkey = htole32(d.key);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_REM_INV_REQ_ERR, c->status);
	EXPECT_EQ(XRNIC_QPS_ERR, xe_qp_get(&self->xe, d.qpn[1])->state);
	EXPECT_NE(0x6b, *gpa(self, BUF_GPA));
}

TEST_F(dev, send_without_a_receive_exhausts_rnr_retries)
{
	struct dp d;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, dp_setup(self, &d, 0));		/* rnr_retry 0: the first RNR NAK fails it */
	w = sqe(XRNIC_WR_SEND, 1, BUF_GPA, 8, d.key);
	post_send(self, 0, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_RNR_RETRY_EXC_ERR, c->status);
}

TEST_F(dev, armed_cq_raises_one_event_on_its_vector)
{
	struct xrnic_cq_db *cdb;
	struct xrnic_eqe *eqe;
	struct xrnic_sqe w;
	struct dp d;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	cdb = (void *)gpa(self, CQ_DB_GPA);
	eqe = (void *)gpa(self, EQ_GPA);
	w = sqe(XRNIC_WR_RDMA_WRITE, 1, BUF_GPA, 8, d.key);
	w.remote_addr = htole64(BUF_GPA + 64);
	w.rkey = htole32(d.key);
	post_send(self, 0, &w);			/* not armed: no event */
	EXPECT_EQ(0, self->irqs[1]);
	cdb->arm = htole32(1 << XRNIC_CQ_ARM_SN_SHIFT | XRNIC_CQ_ARM_NEXT);
	post_send(self, 0, &w);
	EXPECT_EQ(1, self->irqs[1]);
	EXPECT_EQ(d.cqn, le32toh(eqe->cqn));
	EXPECT_EQ(XRNIC_EQE_COMP, eqe->event);
	post_send(self, 0, &w);			/* answered: no second event */
	EXPECT_EQ(1, self->irqs[1]);
}

/* Set the path MTU (enum ib_mtu) of both QPs, RTS to RTS. */
static uint8_t set_path_mtu(struct _test_data_dev *self, struct dp *d, uint8_t mtu)
{
	struct xrnic_qp_attr a = { .attr_mask = htole32(XRNIC_QP_PATH_MTU), .path_mtu = mtu };
	uint8_t st = 0;
	int i;

	for (i = 0; i < 2 && !st; i++) {
		a.qpn = htole32(d->qpn[i]);
		st = xe_lb_admin(&self->xe, &d->lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL);
	}
	return st;
}

static uint32_t packets_of(uint32_t len, uint32_t mtu)
{
	return len ? (len + mtu - 1) / mtu : 1;
}

/*
 * A SEND, WRITE and READ of each length around the path MTU, at every path
 * MTU: the data lands, and the requester's and responder's PSNs and the
 * packet counters move by the packets the message takes at that MTU (plus
 * one ACK for a SEND or WRITE; a READ's answers are its responses).
 */
TEST_F(dev, messages_are_cut_at_the_path_mtu_one_psn_a_packet)
{
	static const uint8_t ops[] = { XRNIC_WR_SEND, XRNIC_WR_RDMA_WRITE, XRNIC_WR_RDMA_READ };
	uint64_t *cnt = self->xe.counters;
	uint32_t lens[6], mtu, len, n, psn0, psn1, tx, l, o;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	uint8_t code;
	struct dp d;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	for (code = 1; code <= 5; code++) {
		ASSERT_EQ(0, set_path_mtu(self, &d, code));
		mtu = xe_mtu_bytes(code);
		memcpy(lens, (uint32_t[]){ 0, 1, mtu - 1, mtu, mtu + 1, 6000 }, sizeof(lens));
		for (o = 0; o < ARRAY_SIZE(ops); o++) {
			for (l = 0; l < ARRAY_SIZE(lens); l++) {
				len = lens[l];
				n = packets_of(len, mtu);
				memset(gpa(self, BUF_GPA + 6144), 0, 6000);
				for (uint32_t i = 0; i < len; i++)
					gpa(self, BUF_GPA)[i] = i * 13 + code + l;
				psn0 = xe_qp_get(&self->xe, d.qpn[0])->attr.sq_psn;
				psn1 = xe_qp_get(&self->xe, d.qpn[1])->attr.rq_psn;
				tx = cnt[XRNIC_CNT_TX_PACKETS];
				if (ops[o] == XRNIC_WR_SEND)
					post_recv(self, 1, 5, BUF_GPA + 6144, 6000, d.key);
				if (ops[o] == XRNIC_WR_RDMA_READ) {
					/* Read the pattern into the second half. */
					w = sqe(ops[o], 7, BUF_GPA + 6144, len, d.key);
					w.remote_addr = htole64(BUF_GPA);
				} else {
					w = sqe(ops[o], 7, BUF_GPA, len, d.key);
					w.remote_addr = htole64(BUF_GPA + 6144);
				}
				w.rkey = htole32(d.key);
				post_send(self, 0, &w);
				if (ops[o] == XRNIC_WR_SEND) {
					ASSERT_NE(NULL, c = poll_cq(self, &d));
					EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
					EXPECT_EQ(len, le32toh(c->byte_len));
				}
				ASSERT_NE(NULL, c = poll_cq(self, &d));
				ASSERT_EQ(XRNIC_WC_SUCCESS, c->status)
					TH_LOG("op %u len %u mtu %u", ops[o], len, mtu);
				EXPECT_EQ(0, memcmp(gpa(self, BUF_GPA), gpa(self, BUF_GPA + 6144), len));
				EXPECT_EQ((psn0 + n) & XE_PSN_MASK,
					  xe_qp_get(&self->xe, d.qpn[0])->attr.sq_psn);
				EXPECT_EQ((psn1 + n) & XE_PSN_MASK,
					  xe_qp_get(&self->xe, d.qpn[1])->attr.rq_psn);
				EXPECT_EQ(tx + n + 1, cnt[XRNIC_CNT_TX_PACKETS])
					TH_LOG("op %u len %u mtu %u", ops[o], len, mtu);
			}
		}
	}
	EXPECT_EQ(cnt[XRNIC_CNT_TX_PACKETS], cnt[XRNIC_CNT_RX_PACKETS]);
	EXPECT_EQ(0, cnt[XRNIC_CNT_RX_DROPPED]);
}

/*
 * A WRITE with immediate finds no receive WQE at its last packet: the RNR
 * NAK names that PSN, and after the RNR timer only the last packet is sent
 * again; the data and the immediate arrive once.
 */
TEST_F(dev, rnr_nak_resends_from_the_naked_psn)
{
	uint64_t *cnt = self->xe.counters, tx;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct xe_qp *qp0;
	struct dp d;

	ASSERT_EQ(0, dp_setup(self, &d, 3));		/* min_rnr_timer 0: 655 ms */
	ASSERT_EQ(0, set_path_mtu(self, &d, 3));	/* 1024: 6 packets */
	qp0 = xe_qp_get(&self->xe, d.qpn[0]);
	memset(gpa(self, BUF_GPA), 0x3c, 6000);
	w = sqe(XRNIC_WR_RDMA_WRITE_WITH_IMM, 1, BUF_GPA, 6000, d.key);
	w.remote_addr = htole64(BUF_GPA + 6144);
	w.rkey = htole32(d.key);
	w.imm_data_be = htobe32(77);
	tx = cnt[XRNIC_CNT_TX_PACKETS];
	post_send(self, 0, &w);
	EXPECT_EQ(NULL, poll_cq(self, &d));
	EXPECT_EQ(tx + 6 + 1, cnt[XRNIC_CNT_TX_PACKETS]);	/* the packets and the RNR NAK */
	EXPECT_EQ(XE_TIMER_RNR, qp0->req.timer);
	EXPECT_EQ(xe_req_msg(qp0, qp0->sq_ci)->first_psn + 5, qp0->req.next_psn);
	post_recv(self, 1, 9, BUF_GPA, 0, d.key);
	qp0->req.wait_until = 1;			/* the RNR timer expires now */
	xe_doorbell(&self->xe, 1);
	while (xe_dev_poll(&self->xe) == 0)
		;
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_RECV_RDMA_WITH_IMM, c->opcode);
	EXPECT_EQ(6000, le32toh(c->byte_len));
	EXPECT_EQ(htobe32(77), c->imm_data_be);
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(NULL, poll_cq(self, &d));
	EXPECT_EQ(tx + 7 + 2, cnt[XRNIC_CNT_TX_PACKETS]);	/* the last packet and its ACK */
	EXPECT_EQ(1, cnt[XRNIC_CNT_RNR_NAKS_SENT]);
	EXPECT_EQ(1, cnt[XRNIC_CNT_RETRANSMITS]);
	EXPECT_EQ(0, memcmp(gpa(self, BUF_GPA), gpa(self, BUF_GPA + 6144), 6000));
}

/*
 * After progress the device polls the doorbell records and says so in the
 * status page: an index written then needs no doorbell.  Once it has been
 * idle for its linger time it clears the word and sleeps: an index then
 * waits for a doorbell.
 */
TEST_F(dev, device_says_when_it_polls_and_a_polling_device_needs_no_doorbell)
{
	struct xrnic_dev_status *st = (void *)(self->xe.bar2 + XRNIC_BAR2_STATUS_OFF);
	struct xrnic_qp_db *db;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct dp d;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	db = qp_db(self, 0);
	EXPECT_EQ(0, le32toh(st->poll));
	w = sqe(XRNIC_WR_RDMA_WRITE, 1, BUF_GPA, 8, d.key);
	w.remote_addr = htole64(BUF_GPA + 64);
	w.rkey = htole32(d.key);
	memcpy(gpa(self, QP_GPA(0)), &w, sizeof(w));
	db->sq_pi = htole32(1);
	xe_doorbell(&self->xe, 1);
	EXPECT_EQ(0, xe_dev_poll(&self->xe));
	EXPECT_EQ(XRNIC_STATUS_POLLING, le32toh(st->poll));
	ASSERT_NE(NULL, c = poll_cq(self, &d));

	/* Polling: a new index is taken without a doorbell. */
	w.wr_id = htole64(2);
	memcpy(gpa(self, QP_GPA(0) + XRNIC_SQE_SIZE), &w, sizeof(w));
	db->sq_pi = htole32(2);
	EXPECT_EQ(0, xe_dev_poll(&self->xe));
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(2, le64toh(c->wr_id));
	EXPECT_EQ(1, self->xe.counters[XRNIC_CNT_DOORBELLS]);
	EXPECT_EQ(1, self->xe.counters[XRNIC_CNT_POLLED]);

	/* Idle past the linger time: the word is cleared and the device sleeps. */
	self->xe.last_progress -= self->xe.poll_linger_ns;
	EXPECT_EQ(-1, xe_dev_poll(&self->xe));
	EXPECT_EQ(0, le32toh(st->poll));
	w.wr_id = htole64(3);
	memcpy(gpa(self, QP_GPA(0) + 2 * XRNIC_SQE_SIZE), &w, sizeof(w));
	db->sq_pi = htole32(3);
	EXPECT_EQ(-1, xe_dev_poll(&self->xe));
	EXPECT_EQ(NULL, poll_cq(self, &d));
	xe_doorbell(&self->xe, 1);
	EXPECT_EQ(0, xe_dev_poll(&self->xe));
	ASSERT_NE(NULL, c = poll_cq(self, &d));
	EXPECT_EQ(3, le64toh(c->wr_id));

	/* A reset clears it. */
	xe_reg_write(&self->xe, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_EQ(0, le32toh(st->poll));
}

/*
 * The linger adapts: a doorbell long after the device stopped polling (a
 * ping-pong's turn) takes an eighth off it, down to none (below 2 us: 25
 * such doorbells from 50 us), so that the device stops
 * polling at once after its work; a doorbell soon after it stopped (a
 * stream) doubles it again, up to poll_linger_ns.
 */
TEST_F(dev, the_linger_shrinks_for_late_doorbells_and_grows_for_early_ones)
{
	struct xrnic_dev_status *st = (void *)(self->xe.bar2 + XRNIC_BAR2_STATUS_OFF);
	struct xrnic_qp_db *db;
	struct xrnic_sqe w;
	struct dp d;
	uint32_t i;
	int n;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	db = qp_db(self, 0);
	EXPECT_EQ(XE_POLL_LINGER_NS, self->xe.linger_ns);
	w = sqe(XRNIC_WR_RDMA_WRITE, 1, BUF_GPA, 8, d.key);
	w.remote_addr = htole64(BUF_GPA + 64);
	w.rkey = htole32(d.key);
	for (i = 0; i < 25; i++) {
		if (i == 1)
			EXPECT_EQ(XE_POLL_LINGER_NS - XE_POLL_LINGER_NS / 8, self->xe.linger_ns);
		if (i == 24)
			EXPECT_LT(0, self->xe.linger_ns);
		memcpy(gpa(self, QP_GPA(0) + (i % 16) * XRNIC_SQE_SIZE), &w, sizeof(w));
		db->sq_pi = htole32(i + 1);
		/* Rung a whole linger after polling stopped: too late for any. */
		self->xe.poll_stopped = xe_now_ns() - XE_POLL_LINGER_NS;
		xe_doorbell(&self->xe, 1);
		for (n = 0; xe_dev_poll(&self->xe) == 0 && n < 1000; n++)
			self->xe.last_progress -= XE_POLL_LINGER_NS;
		while (poll_cq(self, &d))
			;
	}
	EXPECT_EQ(0, self->xe.linger_ns);
	/* No linger: polling stops with the pass that found nothing. */
	EXPECT_EQ(0, le32toh(st->poll));
	/* Rung right after polling stopped: 2 us, 4 us, ... up to the most. */
	for (n = 0; n < 20; n++) {
		self->xe.poll_stopped = xe_now_ns();
		xe_doorbell(&self->xe, 1);
		if (n == 0)
			EXPECT_EQ(XE_POLL_LINGER_STEP_NS, self->xe.linger_ns);
		if (n == 1)
			EXPECT_EQ(2 * XE_POLL_LINGER_STEP_NS, self->xe.linger_ns);
		self->xe.polling = false;
	}
	EXPECT_EQ(XE_POLL_LINGER_NS, self->xe.linger_ns);
	/* A doorbell while it polls changes nothing. */
	self->xe.polling = true;
	self->xe.poll_stopped = 0;
	xe_doorbell(&self->xe, 1);
	EXPECT_EQ(XE_POLL_LINGER_NS, self->xe.linger_ns);
	self->xe.polling = false;
	/* Neither do the admin queue's. */
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_EQ(XE_POLL_LINGER_NS, self->xe.linger_ns);
}

/* Hand the device one packet from the wire, built from p with len payload bytes of 0x5a. */
static void inject(struct _test_data_dev *self, struct xe_pkt *p, uint32_t len)
{
	uint8_t b[XE_PKT_MAX_HDR + 4096 + 3];
	struct xe_frame f;
	uint32_t n;

	p->pkey = XE_DEFAULT_PKEY;
	p->payload_len = len;
	n = xe_pkt_build(b, p);
	memset(b + n, 0x5a, len + p->pad);
	f = (struct xe_frame){ .hdr = b, .hdr_avail = n + len + p->pad, .len = n + len + p->pad };
	xe_wire_recv(&self->xe, &f);
	while (xe_dev_poll(&self->xe) == 0)
		;
}

TEST_F(dev, responder_acks_old_psns_again_and_naks_ones_ahead)
{
	uint64_t *cnt = self->xe.counters, drops, sent;
	struct xe_qp *qp1;
	struct xe_pkt p;
	struct dp d;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	qp1 = xe_qp_get(&self->xe, d.qpn[1]);
	qp1->attr.rq_psn = 100;
	/*
	 * An old PSN: a duplicate, not executed, but ACKed again (its ACK may
	 * have been lost), with the last PSN received; QP 0, which has
	 * nothing in flight, drops the ACK.
	 */
	p = (struct xe_pkt){ .opcode = XE_OP_WRITE_ONLY, .qpn = d.qpn[1], .psn = 99,
			     .va = BUF_GPA, .rkey = d.key, .dma_len = 8, .ackreq = true };
	drops = cnt[XRNIC_CNT_RX_DROPPED];
	sent = cnt[XRNIC_CNT_TX_PACKETS];
	inject(self, &p, 8);
	EXPECT_EQ(drops + 2, cnt[XRNIC_CNT_RX_DROPPED]);
	EXPECT_EQ(sent + 1, cnt[XRNIC_CNT_TX_PACKETS]);
	EXPECT_EQ(0, gpa(self, BUF_GPA)[0]);
	EXPECT_EQ(100, qp1->attr.rq_psn);
	/* A PSN ahead: a sequence NAK to QP 0, which drops it too. */
	p.psn = 101;
	inject(self, &p, 8);
	EXPECT_EQ(drops + 3, cnt[XRNIC_CNT_RX_DROPPED]);
	EXPECT_EQ(1, cnt[XRNIC_CNT_RX_DUPLICATES]);
	EXPECT_EQ(1, cnt[XRNIC_CNT_SEQ_NAKS_SENT]);
	EXPECT_EQ(0, gpa(self, BUF_GPA)[0]);
	EXPECT_EQ(XRNIC_QPS_RTS, qp1->state);
	/* The expected PSN executes, and asks an ACK. */
	p.psn = 100;
	inject(self, &p, 8);
	EXPECT_EQ(0x5a, gpa(self, BUF_GPA)[7]);
	EXPECT_EQ(101, qp1->attr.rq_psn);
}

/*
 * rxe answers a SEND it has no receive WQE for with an RNR NAK, and the
 * packets behind it with a sequence NAK of the same PSN.  That NAK brings
 * no news: it spends no transport retry (the QPs here have none left to
 * spend), and the RNR wait goes on; nor when it comes after the RNR timer
 * expired and the SEND went again (a CI run failed verbs_peer against rxe
 * so: RNR and sequence NAKs in turn, 0.1 to 0.5 ms apart, the RNR timer
 * 10 us).
 */
TEST_F(dev, a_sequence_nak_behind_an_rnr_nak_spends_no_retry)
{
	struct xrnic_sqe w;
	struct xe_qp *qp0;
	struct xe_pkt p;
	uint32_t psn;
	struct dp d;

	ASSERT_EQ(0, dp_setup(self, &d, 3));
	ASSERT_EQ(0, set_path_mtu(self, &d, 3));
	qp0 = xe_qp_get(&self->xe, d.qpn[0]);
	ASSERT_EQ(0, qp0->attr.retry_cnt);
	w = sqe(XRNIC_WR_SEND, 1, BUF_GPA, 6000, d.key);
	post_send(self, 0, &w);
	ASSERT_EQ(XE_TIMER_RNR, qp0->req.timer);
	psn = qp0->req.next_psn;
	p = (struct xe_pkt){ .opcode = XE_OP_ACKNOWLEDGE, .qpn = d.qpn[0], .psn = psn,
			     .syndrome = XE_AETH_NAK | XE_NAK_PSN_SEQ };
	inject(self, &p, 0);
	EXPECT_EQ(XRNIC_QPS_RTS, qp0->state);
	EXPECT_EQ(XE_TIMER_RNR, qp0->req.timer);
	EXPECT_EQ(NULL, poll_cq(self, &d));
	EXPECT_EQ(1, self->xe.counters[XRNIC_CNT_SEQ_NAKS_RCVD]);
	/*
	 * The SEND's first packet went again and the rest follow: the same
	 * NAK comes late, and the peer here (no receive WQE yet, loopback)
	 * sends more of them for the packets behind it.
	 */
	qp0->req.timer = XE_TIMER_ACK;
	qp0->req.wait_until = INT64_MAX;
	qp0->req.next_psn = (psn + 1) & XE_PSN_MASK;
	inject(self, &p, 0);
	EXPECT_EQ(XRNIC_QPS_RTS, qp0->state);
	EXPECT_EQ(NULL, poll_cq(self, &d));
	EXPECT_LE(2, self->xe.counters[XRNIC_CNT_SEQ_NAKS_RCVD]);
	/* One for another PSN is a loss: with no retry left, the WQE fails. */
	p.psn = (psn + 1) & XE_PSN_MASK;
	inject(self, &p, 0);
	EXPECT_EQ(XRNIC_QPS_ERR, qp0->state);
	ASSERT_NE(NULL, poll_cq(self, &d));
}

TEST_F(dev, packets_out_of_message_order_or_length_are_invalid_requests)
{
	static const struct {
		uint8_t opcode;
		uint32_t len;
	} bad[] = {
		{ XE_OP_SEND_MIDDLE, 4096 },		/* no FIRST before it */
		{ XE_OP_WRITE_LAST, 8 },
		{ XE_OP_READ_RESP_ONLY, 0 },		/* an answer, to the responder's requester */
		{ XE_OP_WRITE_FIRST, 100 },		/* a FIRST shorter than the MTU */
		{ XE_OP_WRITE_ONLY, 9 },		/* more than the RETH's length */
	};
	struct xe_qp *qp1;
	struct xe_pkt p;
	struct dp d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, dp_setup(self, &d, 0));
		qp1 = xe_qp_get(&self->xe, d.qpn[1]);
		p = (struct xe_pkt){ .opcode = bad[i].opcode, .qpn = d.qpn[1], .va = BUF_GPA,
				     .rkey = d.key, .dma_len = 8192, .ackreq = true };
		if (bad[i].opcode == XE_OP_WRITE_ONLY)
			p.dma_len = 8;
		inject(self, &p, bad[i].len);
		if (bad[i].opcode == XE_OP_READ_RESP_ONLY) {
			/* Not a request: the completer of QP 1 has nothing in flight. */
			EXPECT_EQ(XRNIC_QPS_RTS, qp1->state);
			EXPECT_EQ(1, self->xe.counters[XRNIC_CNT_RX_DROPPED]);
			continue;
		}
		EXPECT_EQ(XRNIC_QPS_ERR, qp1->state) TH_LOG("case %zu", i);
		EXPECT_EQ(0, gpa(self, BUF_GPA)[0]) TH_LOG("case %zu", i);
	}
}

TEST_F(dev, malformed_or_misaddressed_packets_are_dropped_and_counted)
{
	uint8_t b[64];
	struct xe_frame f = { .hdr = b };
	struct xe_pkt p;
	struct dp d;
	uint32_t n;

	ASSERT_EQ(0, dp_setup(self, &d, 0));
	p = (struct xe_pkt){ .opcode = XE_OP_WRITE_ONLY, .qpn = d.qpn[1], .pkey = 0xffff,
			     .va = BUF_GPA, .rkey = d.key };
	n = xe_pkt_build(b, &p);
	f.hdr_avail = f.len = n - 1;			/* the RETH cut short */
	EXPECT_FALSE(xe_wire_recv(&self->xe, &f));
	f.hdr_avail = f.len = n;
	b[5] ^= 0x40;					/* no such QP */
	EXPECT_FALSE(xe_wire_recv(&self->xe, &f));
	b[5] ^= 0x40;
	b[3] = 0x01;					/* another partition */
	EXPECT_FALSE(xe_wire_recv(&self->xe, &f));
	b[3] = 0xff;
	b[0] = 0x1f;					/* not an RC opcode */
	EXPECT_FALSE(xe_wire_recv(&self->xe, &f));
	b[0] = XE_OP_WRITE_ONLY;
	f.hdr_avail = 12;				/* payload not readable */
	f.len = n + 8;
	EXPECT_FALSE(xe_wire_recv(&self->xe, &f));
	EXPECT_EQ(5, self->xe.counters[XRNIC_CNT_RX_DROPPED]);
	EXPECT_EQ(5, self->xe.counters[XRNIC_CNT_RX_PACKETS]);
	f.hdr_avail = f.len = n;			/* the good one: a zero-length WRITE */
	EXPECT_TRUE(xe_wire_recv(&self->xe, &f));
	EXPECT_EQ(XRNIC_QPS_RTS, xe_qp_get(&self->xe, d.qpn[1])->state);
}

TEST_HARNESS_MAIN
