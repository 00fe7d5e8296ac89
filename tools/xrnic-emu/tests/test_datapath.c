// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the data path: two QPs of one device connected to each
 * other (loopback), work requests written into fake guest RAM as the
 * provider writes them, and the device's completions, data and errors
 * checked.  No VM.
 */
#include "xe_fixture.h"
#include "loopback.h"

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
			  .qpn = { lb.qpn[0], lb.qpn[1] } };
	return st;
}

/* Write a send WQE to QP i and publish it; run the device. */
static void post_send(struct _test_data_dev *self, int i, const struct xrnic_sqe *w)
{
	struct xrnic_qp_db *db = qp_db(self, i);
	uint32_t pi = le32toh(db->sq_pi);

	memcpy(gpa(self, QP_GPA(i) + (pi % DEPTH) * XRNIC_SQE_SIZE), w, sizeof(*w));
	db->sq_pi = htole32(pi + 1);
	xe_doorbell(&self->xe, 1);
	while (xe_dev_poll(&self->xe) == 0)
		;
}

static void post_recv(struct _test_data_dev *self, int i, uint64_t wr_id, uint64_t addr,
		      uint32_t len, uint32_t key)
{
	struct xrnic_qp_db *db = qp_db(self, i);
	uint32_t pi = le32toh(db->rq_pi);
	struct xrnic_rqe *r = (void *)gpa(self, XE_LB_RQ(i) + (pi % DEPTH) * 128);

	memset(r, 0, sizeof(*r));
	r->wr_id = htole64(wr_id);
	r->num_sge = 1;
	r->sge[0] = (struct xrnic_sge){ htole64(addr), htole32(len), htole32(key) };
	db->rq_pi = htole32(pi + 1);
}

/* The next CQE, or NULL; consumes it. */
static struct xrnic_cqe *poll_cq(struct _test_data_dev *self, struct dp *d)
{
	struct xrnic_cqe *e = (void *)gpa(self, CQ_GPA + (d->cq_ci % XE_LB_CQ_DEPTH) *
					   XRNIC_CQE_SIZE);

	if ((e->flags & XRNIC_CQE_PHASE) != xrnic_entry_phase(d->cq_ci, XE_LB_CQ_DEPTH))
		return NULL;
	d->cq_ci++;
	((struct xrnic_cq_db *)gpa(self, CQ_DB_GPA))->ci = htole32(d->cq_ci);
	return e;
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

TEST_HARNESS_MAIN
