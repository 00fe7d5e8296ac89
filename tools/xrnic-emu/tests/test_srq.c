// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of shared receive queues (srq.c): two RC QPs of one device
 * receiving from one SRQ, fed by loopback.c's RC pair.  WQEs are taken in
 * order by whichever QP needs one, an empty SRQ is an RNR, the limit
 * raises one event, a QP leaving for ERR leaves the SRQ's WQEs alone and
 * says so (LAST_WQE), a resize carries the WQEs not yet taken to the new
 * ring, and the commands check what they are given.
 */
#include "xe_fixture.h"
#include "loopback.h"
#include "transport.h"

#define BUF		XE_LB_BUF
#define DEPTH		XE_LB_DEPTH
#define SRQ_RING	XE_LB_QP(6)
#define SRQ_DB		XE_LB_QP_DB(6)
#define NEW_RING	XE_LB_QP(7)	/* up to 32 RQEs, then the record */
#define NEW_DB		(NEW_RING + XE_LB_PAGE)

struct srq {
	struct xe_lb lb;
	uint32_t srqn;
	uint32_t qpn[2];	/* receiving from the SRQ, peers of lb.qpn[0], [1] */
	uint32_t cq_ci, aenq_ci;
	uint64_t ring, db;	/* where the SRQ's ring and record are now */
	uint32_t depth;
};

static uint8_t *gpa(struct _test_data_dev *self, uint64_t a)
{
	return self->xe.mem.base + a;
}

static uint8_t srq_cmd(struct _test_data_dev *self, struct srq *t, uint8_t op, uint32_t srqn,
		       uint32_t limit, struct xrnic_acq_entry *r)
{
	struct xrnic_cmd_srq c = { .srqn = htole32(srqn), .limit = htole32(limit) };

	return xe_lb_admin(&self->xe, &t->lb, op, &c, r ? r->data : NULL);
}

static struct xrnic_aenq_entry *next_event(struct _test_data_dev *self, struct srq *t);

/*
 * An SRQ, and QPs 2 and 3 on it connected to loopback.c's QPs 0 and 1;
 * the events of the setup (the port's) consumed.
 */
static uint8_t srq_setup(struct _test_data_dev *self, struct srq *t, uint8_t rnr_retry)
{
	struct xrnic_cmd_create_srq c = {
		.depth = htole32(DEPTH), .ring_addr = htole64(SRQ_RING),
		.db_addr = htole64(SRQ_DB), .max_sge = 2,
	};
	struct xrnic_qp_attr reset = { .attr_mask = htole32(XRNIC_QP_STATE),
				       .state = XRNIC_QPS_RESET };
	struct xrnic_acq_entry r;
	uint8_t st;
	int i;

	memset(t, 0, sizeof(*t));
	t->ring = SRQ_RING;
	t->db = SRQ_DB;
	t->depth = DEPTH;
	st = xe_lb_setup(&self->xe, &t->lb, 4 * XE_LB_PAGE, rnr_retry);
	if (st)
		return st;
	c.pdn = htole32(t->lb.pdn);
	st = xe_lb_admin(&self->xe, &t->lb, XRNIC_ADMIN_CREATE_SRQ, &c, r.data);
	t->srqn = le32toh(r.srq.srqn);
	for (i = 0; i < 2 && !st; i++) {
		st = xe_lb_create_qp(&self->xe, &t->lb, 2 + i, XRNIC_QPT_RC, t->srqn, &t->qpn[i]);
		if (!st)
			st = xe_lb_rts(&self->xe, &t->lb, t->qpn[i], t->lb.qpn[i], rnr_retry);
		/* loopback.c's QP i, from RESET, to the SRQ's QP i. */
		reset.qpn = htole32(t->lb.qpn[i]);
		if (!st)
			st = xe_lb_admin(&self->xe, &t->lb, XRNIC_ADMIN_MODIFY_QP, &reset, NULL);
		if (!st)
			st = xe_lb_rts(&self->xe, &t->lb, t->lb.qpn[i], t->qpn[i], rnr_retry);
	}
	while (next_event(self, t))
		;
	return st;
}

static struct xrnic_srq_db *srq_db(struct _test_data_dev *self)
{
	return (void *)gpa(self, SRQ_DB);
}

static void post_srq(struct _test_data_dev *self, struct srq *t, uint64_t wr_id, uint64_t addr,
		     uint32_t len, uint32_t key)
{
	struct xrnic_srq_db *db = (void *)gpa(self, t->db);
	uint32_t pi = le32toh(db->pi);
	struct xrnic_rqe *r = (void *)gpa(self, t->ring + (pi % t->depth) * XRNIC_RQE_SIZE);

	memset(r, 0, sizeof(*r));
	r->wr_id = htole64(wr_id);
	r->num_sge = 1;
	r->sge[0] = (struct xrnic_sge){ htole64(addr), htole32(len), htole32(key) };
	db->pi = htole32(pi + 1);
}

/* A SEND of len bytes from loopback.c's QP i (an RC QP with its own RQ). */
static void send_from(struct _test_data_dev *self, struct srq *t, int i, uint64_t wr_id,
		      uint32_t len)
{
	struct xrnic_qp_db *db = (void *)gpa(self, XE_LB_QP_DB(i));
	uint32_t pi = le32toh(db->sq_pi);
	struct xrnic_sqe w = {
		.wr_id = htole64(wr_id), .opcode = XRNIC_WR_SEND, .flags = XRNIC_SQE_SIGNALED,
		.num_sge = 1,
	};

	w.sge[0] = (struct xrnic_sge){ htole64(BUF), htole32(len), htole32(t->lb.key) };
	memcpy(gpa(self, XE_LB_QP(i) + (pi % DEPTH) * XRNIC_SQE_SIZE), &w, sizeof(w));
	db->sq_pi = htole32(pi + 1);
	xe_doorbell(&self->xe, 1);
	while (xe_dev_poll(&self->xe) == 0)
		;
}

static struct xrnic_cqe *poll_cq(struct _test_data_dev *self, struct srq *t)
{
	return xe_lb_poll_cq(&self->xe, &t->cq_ci);
}

/* The next async event (loopback.c's AENQ has 4 entries), or NULL. */
static struct xrnic_aenq_entry *next_event(struct _test_data_dev *self, struct srq *t)
{
	struct xrnic_aenq_entry *e = (void *)gpa(self, XE_LB_AENQ + (t->aenq_ci % 4) *
						  XRNIC_AENQ_ENTRY_SIZE);

	if ((e->flags & XRNIC_ENTRY_PHASE) != xrnic_entry_phase(t->aenq_ci, 4))
		return NULL;
	t->aenq_ci++;
	xe_reg_write(&self->xe, XRNIC_REG_AENQ_CI, t->aenq_ci);
	return e;
}

TEST_F(dev, two_qps_take_the_srqs_wqes_in_order)
{
	struct xrnic_cqe *c;
	struct srq t;

	ASSERT_EQ(0, srq_setup(self, &t, 0));
	post_srq(self, &t, 0x71, BUF + XE_LB_PAGE, 100, t.lb.key);
	post_srq(self, &t, 0x72, BUF + 2 * XE_LB_PAGE, 100, t.lb.key);
	/* QP 1 sends to SRQ QP 1 first: it gets the first WQE. */
	send_from(self, &t, 1, 1, 10);
	ASSERT_NE(NULL, c = poll_cq(self, &t));
	EXPECT_EQ(XRNIC_WC_RECV, c->opcode);
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(t.qpn[1], le32toh(c->qpn));
	EXPECT_EQ(10, le32toh(c->byte_len));
	EXPECT_EQ(1, le32toh(srq_db(self)->ci));
	ASSERT_NE(NULL, c = poll_cq(self, &t));
	EXPECT_EQ(XRNIC_WC_SEND, c->opcode);
	send_from(self, &t, 0, 2, 20);
	ASSERT_NE(NULL, c = poll_cq(self, &t));
	EXPECT_EQ(0x72, le64toh(c->wr_id));
	EXPECT_EQ(t.qpn[0], le32toh(c->qpn));
	EXPECT_EQ(2, le32toh(srq_db(self)->ci));
	/* The QPs' own doorbell records do not move. */
	EXPECT_EQ(0, le32toh(((struct xrnic_qp_db *)gpa(self, XE_LB_QP_DB(2)))->rq_ci));
}

TEST_F(dev, an_empty_srq_is_an_rnr_and_a_posted_wqe_ends_it)
{
	struct xe_qp *qp0;
	struct xrnic_cqe *c;
	struct srq t;

	ASSERT_EQ(0, srq_setup(self, &t, 3));
	qp0 = xe_qp_get(&self->xe, t.lb.qpn[0]);
	send_from(self, &t, 0, 1, 10);
	EXPECT_EQ(NULL, poll_cq(self, &t));
	EXPECT_EQ(1, self->xe.counters[XRNIC_CNT_RNR_NAKS_SENT]);
	EXPECT_EQ(XE_TIMER_RNR, qp0->req.timer);
	post_srq(self, &t, 0x71, BUF + XE_LB_PAGE, 100, t.lb.key);
	qp0->req.wait_until = 1;
	xe_doorbell(&self->xe, 1);
	while (xe_dev_poll(&self->xe) == 0)
		;
	ASSERT_NE(NULL, c = poll_cq(self, &t));
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
}

TEST_F(dev, the_limit_raises_one_event_and_disarms)
{
	struct xrnic_aenq_entry *e;
	struct xrnic_acq_entry r;
	struct srq t;
	int i;

	ASSERT_EQ(0, srq_setup(self, &t, 0));
	for (i = 0; i < 4; i++)
		post_srq(self, &t, 0x70 + i, BUF + XE_LB_PAGE, 100, t.lb.key);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM,
		  srq_cmd(self, &t, XRNIC_ADMIN_MODIFY_SRQ, t.srqn, DEPTH, NULL));
	ASSERT_EQ(0, srq_cmd(self, &t, XRNIC_ADMIN_MODIFY_SRQ, t.srqn, 3, NULL));
	ASSERT_EQ(0, srq_cmd(self, &t, XRNIC_ADMIN_QUERY_SRQ, t.srqn, 0, &r));
	EXPECT_EQ(3, le32toh(r.srq.limit));
	/* 4 -> 3 left: not below the limit yet. */
	send_from(self, &t, 0, 1, 10);
	EXPECT_EQ(NULL, next_event(self, &t));
	/* 3 -> 2: below it, one event, disarmed. */
	send_from(self, &t, 0, 2, 10);
	ASSERT_NE(NULL, e = next_event(self, &t));
	EXPECT_EQ(XRNIC_EVENT_SRQ_LIMIT, le16toh(e->event));
	EXPECT_EQ(t.srqn, le32toh(e->param));
	send_from(self, &t, 0, 3, 10);
	EXPECT_EQ(NULL, next_event(self, &t));
	ASSERT_EQ(0, srq_cmd(self, &t, XRNIC_ADMIN_QUERY_SRQ, t.srqn, 0, &r));
	EXPECT_EQ(0, le32toh(r.srq.limit));
}

TEST_F(dev, a_qp_leaving_for_err_leaves_the_srq_alone_and_says_so)
{
	struct xrnic_qp_attr a = { .attr_mask = htole32(XRNIC_QP_STATE),
				   .state = XRNIC_QPS_ERR };
	struct xrnic_aenq_entry *e;
	struct xrnic_cqe *c;
	struct srq t;

	ASSERT_EQ(0, srq_setup(self, &t, 0));
	post_srq(self, &t, 0x71, BUF + XE_LB_PAGE, 100, t.lb.key);
	a.qpn = htole32(t.qpn[0]);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL));
	ASSERT_NE(NULL, e = next_event(self, &t));
	EXPECT_EQ(XRNIC_EVENT_QP_LAST_WQE, le16toh(e->event));
	EXPECT_EQ(t.qpn[0], le32toh(e->param));
	EXPECT_EQ(NULL, poll_cq(self, &t));		/* nothing flushed */
	EXPECT_EQ(0, le32toh(srq_db(self)->ci));
	/* Once only: ERR again says nothing. */
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL));
	EXPECT_EQ(NULL, next_event(self, &t));
	/* The other QP still gets the WQE. */
	send_from(self, &t, 1, 1, 10);
	ASSERT_NE(NULL, c = poll_cq(self, &t));
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(t.qpn[1], le32toh(c->qpn));
}

/* A UD QP on the SRQ: a datagram too big for the WQE it took fails that WQE. */
TEST_F(dev, a_ud_datagram_too_big_for_its_srq_wqe_fails_it)
{
	struct xrnic_sqe w = { .wr_id = htole64(1), .opcode = XRNIC_WR_SEND,
			       .flags = XRNIC_SQE_SIGNALED, .num_sge = 1, .qkey = htole32(5) };
	struct xrnic_cqe *c;
	uint32_t ud[2];
	struct srq t;

	ASSERT_EQ(0, srq_setup(self, &t, 0));
	ASSERT_EQ(0, xe_lb_create_qp(&self->xe, &t.lb, 4, XRNIC_QPT_UD, 0, &ud[0]));
	ASSERT_EQ(0, xe_lb_create_qp(&self->xe, &t.lb, 5, XRNIC_QPT_UD, t.srqn, &ud[1]));
	ASSERT_EQ(0, xe_lb_ud_rts(&self->xe, &t.lb, ud[0], 5));
	ASSERT_EQ(0, xe_lb_ud_rts(&self->xe, &t.lb, ud[1], 5));
	post_srq(self, &t, 0x71, BUF + XE_LB_PAGE, 100, t.lb.key);
	w.dest_qpn = htole32(ud[1]);
	memcpy(w.ud.av.dgid, self->xe.gid[0].gid, 16);
	memcpy(w.ud.av.dmac, self->xe.id.mac, 6);
	w.ud.av.hop_limit = 1;
	w.ud.sge[0] = (struct xrnic_sge){ htole64(BUF), htole32(100), htole32(t.lb.key) };
	xe_lb_post_send(&self->xe, 4, &w);
	ASSERT_NE(NULL, c = poll_cq(self, &t));		/* 100 + the GRH > 100 */
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(XRNIC_WC_LOC_LEN_ERR, c->status);
	EXPECT_EQ(1, le32toh(srq_db(self)->ci));
}

static uint8_t resize(struct _test_data_dev *self, struct srq *t, uint32_t depth)
{
	struct xrnic_cmd_resize_srq c = {
		.srqn = htole32(t->srqn), .depth = htole32(depth),
		.ring_addr = htole64(NEW_RING), .db_addr = htole64(NEW_DB),
	};
	uint8_t st = xe_lb_admin(&self->xe, &t->lb, XRNIC_ADMIN_RESIZE_SRQ, &c, NULL);

	if (!st) {
		t->ring = NEW_RING;
		t->db = NEW_DB;
		t->depth = depth;
	}
	return st;
}

/*
 * Growing and shrinking: the WQEs posted and not taken move to the same
 * indices of the new ring (wrapping at its depth), the new record starts
 * with pi and ci, and the old ring and record are never read or written
 * again.
 */
TEST_F(dev, a_resize_carries_the_wqes_not_yet_taken)
{
	struct xrnic_srq_db *new_db = (void *)gpa(self, NEW_DB);
	struct xrnic_cqe *c;
	struct srq t;
	int i;

	ASSERT_EQ(0, srq_setup(self, &t, 0));
	for (i = 0; i < 3; i++)
		post_srq(self, &t, 0x71 + i, BUF + XE_LB_PAGE, 100, t.lb.key);
	send_from(self, &t, 0, 1, 10);
	ASSERT_NE(NULL, c = poll_cq(self, &t));
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	ASSERT_NE(NULL, poll_cq(self, &t));			/* the SEND */
	ASSERT_EQ(0, resize(self, &t, 32));
	EXPECT_EQ(3, le32toh(new_db->pi));
	EXPECT_EQ(1, le32toh(new_db->ci));
	/* A WQE posted to the old ring now is not the device's any more. */
	post_srq(self, &(struct srq){ .ring = SRQ_RING, .db = SRQ_DB, .depth = DEPTH },
		 0x99, BUF, 100, t.lb.key);
	post_srq(self, &t, 0x74, BUF + XE_LB_PAGE, 100, t.lb.key);
	for (i = 0; i < 3; i++) {
		send_from(self, &t, i & 1, 2 + i, 10);
		ASSERT_NE(NULL, c = poll_cq(self, &t));
		EXPECT_EQ(XRNIC_WC_RECV, c->opcode);
		EXPECT_EQ(0x72 + i, le64toh(c->wr_id));
		ASSERT_NE(NULL, poll_cq(self, &t));
	}
	EXPECT_EQ(4, le32toh(new_db->ci));
	EXPECT_EQ(1, le32toh(srq_db(self)->ci));
	/* Shrinking to 2 with one posted: index 4 lands in slot 0 of 2. */
	post_srq(self, &t, 0x75, BUF + XE_LB_PAGE, 100, t.lb.key);
	ASSERT_EQ(0, resize(self, &t, 2));
	send_from(self, &t, 0, 9, 10);
	ASSERT_NE(NULL, c = poll_cq(self, &t));
	EXPECT_EQ(0x75, le64toh(c->wr_id));
	EXPECT_EQ(5, le32toh(new_db->ci));
}

TEST_F(dev, a_resize_checks_its_fields_the_wqes_posted_and_the_limit)
{
	struct xrnic_cmd_resize_srq c = {
		.depth = htole32(32), .ring_addr = htole64(NEW_RING), .db_addr = htole64(NEW_DB),
	};
	struct xrnic_cqe *cqe;
	struct srq t;
	int i;

	ASSERT_EQ(0, srq_setup(self, &t, 0));
	c.srqn = htole32(t.srqn);
#define BAD(status, field, value) do {						\
		struct xrnic_cmd_resize_srq b = c;				\
		b.field = value;						\
		EXPECT_EQ(status, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_RESIZE_SRQ,	\
					      &b, NULL)) TH_LOG("%s", #field);	\
	} while (0)
	BAD(XRNIC_STATUS_BAD_PARAM, depth, htole32(24));
	BAD(XRNIC_STATUS_BAD_PARAM, depth, htole32(1));
	BAD(XRNIC_STATUS_BAD_PARAM, depth, htole32(2 * XE_MAX_QP_WR));
	BAD(XRNIC_STATUS_BAD_PARAM, ring_addr, htole64(NEW_RING + 64));
	BAD(XRNIC_STATUS_BAD_PARAM, db_addr, htole64(NEW_DB + 8));
	BAD(XRNIC_STATUS_BAD_ADDRESS, ring_addr, htole64(RAM_SIZE));
	BAD(XRNIC_STATUS_BAD_ADDRESS, db_addr, htole64(RAM_SIZE));
	BAD(XRNIC_STATUS_NOT_FOUND, srqn, htole32(t.srqn + 1));
	BAD(XRNIC_STATUS_NOT_FOUND, srqn, 0);
	BAD(XRNIC_STATUS_MALFORMED, reserved[31], 1);
	/* Five posted: four entries are too few; with 4 armed, 4 is not above it. */
	for (i = 0; i < 5; i++)
		post_srq(self, &t, 0x71 + i, BUF + XE_LB_PAGE, 100, t.lb.key);
	BAD(XRNIC_STATUS_BAD_PARAM, depth, htole32(4));
	ASSERT_EQ(0, srq_cmd(self, &t, XRNIC_ADMIN_MODIFY_SRQ, t.srqn, 4, NULL));
	send_from(self, &t, 0, 1, 10);
	ASSERT_NE(NULL, cqe = poll_cq(self, &t));
	EXPECT_EQ(0x71, le64toh(cqe->wr_id));
	ASSERT_NE(NULL, poll_cq(self, &t));
	BAD(XRNIC_STATUS_BAD_PARAM, depth, htole32(4));
	/* A record whose pi runs more than a ring ahead. */
	srq_db(self)->pi = htole32(1 + DEPTH + 1);
	BAD(XRNIC_STATUS_BAD_PARAM, depth, htole32(32));
	srq_db(self)->pi = htole32(5);
#undef BAD
	/* Nothing moved: the old ring still feeds the QPs. */
	EXPECT_EQ(0, le32toh(((struct xrnic_srq_db *)gpa(self, NEW_DB))->pi));
	send_from(self, &t, 1, 2, 10);
	ASSERT_NE(NULL, cqe = poll_cq(self, &t));
	EXPECT_EQ(0x72, le64toh(cqe->wr_id));
	EXPECT_EQ(2, le32toh(srq_db(self)->ci));
}

TEST_F(dev, srq_commands_check_their_fields_and_references)
{
	struct xrnic_cmd_create_srq c = {
		.depth = htole32(DEPTH), .ring_addr = htole64(SRQ_RING + XE_LB_PAGE * 8),
		.db_addr = htole64(SRQ_DB), .max_sge = 1,
	};
	struct xrnic_cmd_qp q = {};
	struct xrnic_acq_entry r;
	struct srq t;
	uint32_t qpn;

	ASSERT_EQ(0, srq_setup(self, &t, 0));
	c.pdn = htole32(t.lb.pdn);
#define BAD(status, field, value) do {						\
		struct xrnic_cmd_create_srq b = c;				\
		b.field = value;						\
		EXPECT_EQ(status, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_CREATE_SRQ,	\
					      &b, NULL)) TH_LOG("%s", #field);	\
	} while (0)
	BAD(XRNIC_STATUS_BAD_PARAM, depth, htole32(3));
	BAD(XRNIC_STATUS_BAD_PARAM, depth, htole32(1));
	BAD(XRNIC_STATUS_BAD_PARAM, max_sge, 0);
	BAD(XRNIC_STATUS_BAD_PARAM, max_sge, XRNIC_MAX_SGE + 1);
	BAD(XRNIC_STATUS_BAD_PARAM, ring_addr, htole64(SRQ_RING + 8));
	BAD(XRNIC_STATUS_BAD_ADDRESS, ring_addr, htole64(RAM_SIZE));
	BAD(XRNIC_STATUS_NOT_FOUND, pdn, htole32(99));
	BAD(XRNIC_STATUS_MALFORMED, reserved[3], 1);
#undef BAD
	/* In use by two QPs: neither it nor its PD goes. */
	EXPECT_EQ(XRNIC_STATUS_BUSY, srq_cmd(self, &t, XRNIC_ADMIN_DESTROY_SRQ, t.srqn, 0, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND,
		  srq_cmd(self, &t, XRNIC_ADMIN_DESTROY_SRQ, t.srqn + 1, 0, NULL));
	/* A QP on an SRQ that does not exist. */
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND,
		  xe_lb_create_qp(&self->xe, &t.lb, 4, XRNIC_QPT_RC, t.srqn + 5, &qpn));
	q.qpn = htole32(t.qpn[0]);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_DESTROY_QP, &q, NULL));
	q.qpn = htole32(t.qpn[1]);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_DESTROY_QP, &q, NULL));
	EXPECT_EQ(0, srq_cmd(self, &t, XRNIC_ADMIN_DESTROY_SRQ, t.srqn, 0, NULL));
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_QUERY_RESOURCES, NULL, r.data));
	EXPECT_EQ(0, le32toh(r.resources.srqs));
}

TEST_HARNESS_MAIN
