// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of memory windows (mw.c), on loopback.c's RC pair: QP 1 binds
 * windows over the MR (registered with MW_BIND) and QP 0 reaches them with
 * WRITEs, READs and SEND with Invalidate.  A window opens exactly its range
 * with its rights, a type 2 window only to its QP, an old rkey opens
 * nothing, and every rule of a bind or an invalidation is checked.
 */
#include "xe_fixture.h"
#include "loopback.h"
#include "transport.h"

#define BUF		XE_LB_BUF
#define WIN		(BUF + 2 * XE_LB_PAGE)	/* where the windows open */
#define WIN_LEN		256
#define DATA		(BUF + 4 * XE_LB_PAGE)	/* QP 0's source and sink */

struct mw {
	struct xe_lb lb;
	uint32_t cq_ci;
};

static uint8_t *gpa(struct _test_data_dev *self, uint64_t a)
{
	return self->xe.mem.base + a;
}

static uint8_t mw_setup(struct _test_data_dev *self, struct mw *t)
{
	memset(t, 0, sizeof(*t));
	return xe_lb_setup(&self->xe, &t->lb, 8 * XE_LB_PAGE, 0);
}

static uint8_t alloc_mw(struct _test_data_dev *self, struct mw *t, uint32_t pdn, uint8_t type,
			uint32_t *rkey)
{
	struct xrnic_cmd_mw c = { .pdn = htole32(pdn), .type = type };
	struct xrnic_acq_entry r = {};
	uint8_t st = xe_lb_admin(&self->xe, &t->lb, XRNIC_ADMIN_ALLOC_MW, &c, r.data);

	*rkey = le32toh(r.mw.rkey);
	return st;
}

static uint8_t dealloc_mw(struct _test_data_dev *self, struct mw *t, uint32_t rkey)
{
	struct xrnic_cmd_mw c = { .rkey = htole32(rkey) };

	return xe_lb_admin(&self->xe, &t->lb, XRNIC_ADMIN_DEALLOC_MW, &c, NULL);
}

/* Post w on the QP of ring slot and return its completion's status (0xff: none). */
static uint8_t run(struct _test_data_dev *self, struct mw *t, int slot, struct xrnic_sqe *w)
{
	struct xrnic_cqe *c;

	w->flags |= XRNIC_SQE_SIGNALED;
	xe_lb_post_send(&self->xe, slot, w);
	c = xe_lb_poll_cq(&self->xe, &t->cq_ci);
	return c ? c->status : 0xff;
}

static struct xrnic_sqe bind_wqe(uint32_t mw_rkey, uint32_t new_rkey, uint32_t mr_lkey,
				 uint32_t access, uint64_t addr, uint64_t len)
{
	struct xrnic_sqe w = { .opcode = XRNIC_WR_BIND_MW };

	w.bind = (struct xrnic_bind_mw){
		.mw_rkey = htole32(mw_rkey), .new_rkey = htole32(new_rkey),
		.mr_lkey = htole32(mr_lkey), .access = htole32(access),
		.addr = htole64(addr), .length = htole64(len),
	};
	return w;
}

/* A one-SGE request of QP 0 on [DATA, DATA + len) to va under rkey. */
static struct xrnic_sqe rdma_wqe(struct mw *t, uint8_t opcode, uint32_t rkey, uint64_t va,
				 uint32_t len)
{
	struct xrnic_sqe w = {
		.opcode = opcode, .num_sge = 1, .remote_addr = htole64(va), .rkey = htole32(rkey),
	};

	w.sge[0] = (struct xrnic_sge){ htole64(DATA), htole32(len), htole32(t->lb.key) };
	return w;
}

/* Back from ERR to RTS with empty queues, as a library would reset its QP. */
static void requalify(struct __test_metadata *_metadata, struct _test_data_dev *self,
		      struct mw *t, int slot)
{
	struct xrnic_qp_attr a = { .qpn = htole32(t->lb.qpn[slot]),
				   .attr_mask = htole32(XRNIC_QP_STATE), .state = XRNIC_QPS_RESET };
	struct xrnic_qp_db *db = (void *)gpa(self, XE_LB_QP_DB(slot));

	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t->lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL));
	db->sq_pi = 0;
	db->rq_pi = 0;
	ASSERT_EQ(0, xe_lb_rts(&self->xe, &t->lb, t->lb.qpn[slot], t->lb.qpn[!slot], 0));
	/* The flushed WQEs' completions are read. */
	while (xe_lb_poll_cq(&self->xe, &t->cq_ci))
		;
}

TEST_F(dev, alloc_and_dealloc_mw_check_what_they_are_given)
{
	struct xrnic_cmd_mw c = { .type = XRNIC_MW_TYPE_1 };
	uint32_t rkey, rkey2;
	struct mw t;

	ASSERT_EQ(0, mw_setup(self, &t));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, alloc_mw(self, &t, t.lb.pdn, 3, &rkey));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, alloc_mw(self, &t, t.lb.pdn + 1, 1, &rkey));
	c.pdn = htole32(t.lb.pdn);
	c.reserved[5] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED,
		  xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_ALLOC_MW, &c, NULL));
	ASSERT_EQ(0, alloc_mw(self, &t, t.lb.pdn, XRNIC_MW_TYPE_1, &rkey));
	EXPECT_GT(XRNIC_KEY_INDEX(rkey), XRNIC_MW_INDEX_BASE);
	/* The PD is in use; a wrong key byte names nothing. */
	EXPECT_EQ(XRNIC_STATUS_BUSY, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_DEALLOC_PD,
						 &(struct xrnic_cmd_pd){ .pdn = htole32(t.lb.pdn) },
						 NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_mw(self, &t, rkey + 0x100));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_mw(self, &t, t.lb.key));
	/* The index names it: binds change the key byte. */
	EXPECT_EQ(0, dealloc_mw(self, &t, rkey ^ 1));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_mw(self, &t, rkey));
	/* The index again, another key byte. */
	ASSERT_EQ(0, alloc_mw(self, &t, t.lb.pdn, XRNIC_MW_TYPE_2, &rkey2));
	EXPECT_EQ(XRNIC_KEY_INDEX(rkey), XRNIC_KEY_INDEX(rkey2));
	EXPECT_NE(rkey, rkey2);
}

TEST_F(dev, a_type_1_window_opens_its_range_with_its_rights_until_rebound)
{
	uint32_t rkey, key1, key2;
	struct xrnic_sqe w;
	struct mw t;

	ASSERT_EQ(0, mw_setup(self, &t));
	ASSERT_EQ(0, alloc_mw(self, &t, t.lb.pdn, XRNIC_MW_TYPE_1, &rkey));
	/* Unbound, it opens nothing. */
	w = rdma_wqe(&t, XRNIC_WR_RDMA_WRITE, rkey, WIN, 8);
	EXPECT_EQ(XRNIC_WC_REM_ACCESS_ERR, run(self, &t, 0, &w));
	requalify(_metadata, self, &t, 0);
	requalify(_metadata, self, &t, 1);

	key1 = (rkey & ~0xffu) | ((rkey + 1) & 0xff);
	w = bind_wqe(rkey, key1, t.lb.key, XRNIC_ACCESS_REMOTE_WRITE, WIN, WIN_LEN);
	ASSERT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 1, &w));
	memset(gpa(self, DATA), 0xab, WIN_LEN);
	w = rdma_wqe(&t, XRNIC_WR_RDMA_WRITE, key1, WIN, WIN_LEN);
	EXPECT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 0, &w));
	EXPECT_EQ(0xab, gpa(self, WIN)[WIN_LEN - 1]);
	EXPECT_EQ(0, gpa(self, WIN)[WIN_LEN]);
	/* The old rkey, a READ it does not grant, and a byte past it: refused. */
	w = rdma_wqe(&t, XRNIC_WR_RDMA_WRITE, rkey, WIN, 8);
	EXPECT_EQ(XRNIC_WC_REM_ACCESS_ERR, run(self, &t, 0, &w));
	requalify(_metadata, self, &t, 0);
	requalify(_metadata, self, &t, 1);
	w = rdma_wqe(&t, XRNIC_WR_RDMA_READ, key1, WIN, 8);
	EXPECT_EQ(XRNIC_WC_REM_ACCESS_ERR, run(self, &t, 0, &w));
	requalify(_metadata, self, &t, 0);
	requalify(_metadata, self, &t, 1);
	w = rdma_wqe(&t, XRNIC_WR_RDMA_WRITE, key1, WIN + 1, WIN_LEN);
	EXPECT_EQ(XRNIC_WC_REM_ACCESS_ERR, run(self, &t, 0, &w));
	requalify(_metadata, self, &t, 0);
	requalify(_metadata, self, &t, 1);

	/* Bound again (from QP 0: type 1 is the PD's), for READ only. */
	key2 = (rkey & ~0xffu) | ((rkey + 2) & 0xff);
	w = bind_wqe(key1, key2, t.lb.key, XRNIC_ACCESS_REMOTE_READ, WIN, WIN_LEN);
	ASSERT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 0, &w));
	memset(gpa(self, DATA), 0, WIN_LEN);
	w = rdma_wqe(&t, XRNIC_WR_RDMA_READ, key2, WIN, WIN_LEN);
	EXPECT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 0, &w));
	EXPECT_EQ(0xab, gpa(self, DATA)[0]);
	/* The MR may not go while the window is bound. */
	EXPECT_EQ(XRNIC_STATUS_BUSY,
		  xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_DEREG_MR,
			      &(struct xrnic_cmd_mr){ .lkey = htole32(t.lb.key), .rkey = htole32(t.lb.key) }, NULL));
	/* Length 0 unbinds it; LOCAL_INV is not for type 1. */
	w = bind_wqe(key2, rkey, 0, 0, 0, 0);
	ASSERT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 1, &w));
	w = (struct xrnic_sqe){ .opcode = XRNIC_WR_LOCAL_INV, .invalidate_rkey = htole32(rkey) };
	EXPECT_EQ(XRNIC_WC_LOC_QP_OP_ERR, run(self, &t, 1, &w));
	EXPECT_EQ(0, self->xe.mr[XRNIC_KEY_INDEX(t.lb.key)].obj.refs);
	EXPECT_EQ(0, dealloc_mw(self, &t, rkey));
}

TEST_F(dev, a_type_2_window_serves_its_qp_until_a_send_with_invalidate)
{
	uint32_t rkey, key1, qpn, other;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct mw t;

	ASSERT_EQ(0, mw_setup(self, &t));
	ASSERT_EQ(0, alloc_mw(self, &t, t.lb.pdn, XRNIC_MW_TYPE_2, &rkey));
	key1 = (rkey & ~0xffu) | ((rkey + 7) & 0xff);
	/* Zero based: remote requests address it from 0. */
	w = bind_wqe(rkey, key1, t.lb.key, XRNIC_ACCESS_REMOTE_WRITE | XRNIC_ACCESS_REMOTE_READ |
		     XRNIC_ACCESS_ZERO_BASED, WIN, WIN_LEN);
	ASSERT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 1, &w));
	EXPECT_EQ(1, xe_qp_get(&self->xe, t.lb.qpn[1])->mws);
	memset(gpa(self, DATA), 0xcd, 16);
	w = rdma_wqe(&t, XRNIC_WR_RDMA_WRITE, key1, 16, 16);
	EXPECT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 0, &w));
	EXPECT_EQ(0xcd, gpa(self, WIN)[16]);
	EXPECT_EQ(0, gpa(self, WIN)[15]);
	/* Requests arriving on another QP of the PD do not get in. */
	ASSERT_EQ(0, xe_lb_create_qp(&self->xe, &t.lb, 2, XRNIC_QPT_RC, 0, &qpn));
	ASSERT_EQ(0, xe_lb_create_qp(&self->xe, &t.lb, 3, XRNIC_QPT_RC, 0, &other));
	ASSERT_EQ(0, xe_lb_rts(&self->xe, &t.lb, qpn, other, 0));
	ASSERT_EQ(0, xe_lb_rts(&self->xe, &t.lb, other, qpn, 0));
	w = rdma_wqe(&t, XRNIC_WR_RDMA_WRITE, key1, 16, 16);
	EXPECT_EQ(XRNIC_WC_REM_ACCESS_ERR, run(self, &t, 2, &w));
	/* Bound once: a second bind waits for an invalidation. */
	w = bind_wqe(key1, rkey, t.lb.key, XRNIC_ACCESS_REMOTE_READ, WIN, WIN_LEN);
	EXPECT_EQ(XRNIC_WC_MW_BIND_ERR, run(self, &t, 1, &w));
	requalify(_metadata, self, &t, 1);
	requalify(_metadata, self, &t, 0);

	/* SEND with Invalidate: the receiver's completion names the key. */
	xe_lb_post_recv(&self->xe, 1, 77, BUF, 64, t.lb.key);
	w = rdma_wqe(&t, XRNIC_WR_SEND_WITH_INV, 0, 0, 8);
	w.invalidate_rkey = htole32(key1);
	xe_lb_post_send(&self->xe, 0, &w);
	c = xe_lb_poll_cq(&self->xe, &t.cq_ci);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(77, le64toh(c->wr_id));
	EXPECT_TRUE(c->flags & XRNIC_CQE_WITH_INV);
	EXPECT_EQ(key1, le32toh(c->invalidated_rkey));
	/* Free again: nothing gets in, and it binds once more. */
	w = rdma_wqe(&t, XRNIC_WR_RDMA_WRITE, key1, 16, 16);
	EXPECT_EQ(XRNIC_WC_REM_ACCESS_ERR, run(self, &t, 0, &w));
	requalify(_metadata, self, &t, 0);
	requalify(_metadata, self, &t, 1);
	w = bind_wqe(key1, rkey, t.lb.key, XRNIC_ACCESS_REMOTE_WRITE, WIN, WIN_LEN);
	ASSERT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 1, &w));
	/* A SEND may not invalidate a window bound to another QP than its receiver. */
	xe_lb_post_recv(&self->xe, 0, 78, BUF, 64, t.lb.key);
	w = rdma_wqe(&t, XRNIC_WR_SEND_WITH_INV, 0, 0, 8);
	w.invalidate_rkey = htole32(rkey);
	xe_lb_post_send(&self->xe, 1, &w);
	c = xe_lb_poll_cq(&self->xe, &t.cq_ci);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_REM_INV_REQ_ERR, c->status);		/* QP 0's receive */
	requalify(_metadata, self, &t, 0);
	requalify(_metadata, self, &t, 1);
	/* LOCAL_INV frees it; destroying its QP would have too. */
	w = (struct xrnic_sqe){ .opcode = XRNIC_WR_LOCAL_INV, .invalidate_rkey = htole32(rkey) };
	EXPECT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 1, &w));
	w = bind_wqe(rkey, key1, t.lb.key, XRNIC_ACCESS_REMOTE_WRITE, WIN, WIN_LEN);
	ASSERT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 1, &w));
	qpn = t.lb.qpn[1];
	EXPECT_EQ(1, xe_qp_get(&self->xe, qpn)->mws);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_DESTROY_QP,
				 &(struct xrnic_cmd_qp){ .qpn = htole32(qpn) }, NULL));
	EXPECT_FALSE(self->xe.mw[XRNIC_KEY_INDEX(key1) - XRNIC_MW_INDEX_BASE].bound);
	EXPECT_EQ(0, self->xe.mr[XRNIC_KEY_INDEX(t.lb.key)].obj.refs);
	EXPECT_EQ(0, dealloc_mw(self, &t, rkey));
}

TEST_F(dev, a_bind_the_rules_refuse_fails_with_mw_bind_err)
{
	struct xrnic_cmd_reg_mr mr = {
		.access = htole32(XRNIC_ACCESS_REMOTE_READ), .iova = htole64(BUF),
		.length = htole64(XE_LB_PAGE), .npages = htole32(1), .page_shift = 12,
		.pages = { htole64(BUF) },
	};
	uint32_t t1, t2, other_pd, other_mw, plain;
	struct xrnic_acq_entry r;
	struct xrnic_sqe w;
	struct mw t;
	struct {
		const char *what;
		uint32_t mw, new_rkey, mr, access;
		uint64_t addr, len;
	} bad[6];
	size_t i;

	ASSERT_EQ(0, mw_setup(self, &t));
	ASSERT_EQ(0, alloc_mw(self, &t, t.lb.pdn, XRNIC_MW_TYPE_1, &t1));
	ASSERT_EQ(0, alloc_mw(self, &t, t.lb.pdn, XRNIC_MW_TYPE_2, &t2));
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_ALLOC_PD, NULL, r.data));
	other_pd = le32toh(r.pd.pdn);
	ASSERT_EQ(0, alloc_mw(self, &t, other_pd, XRNIC_MW_TYPE_1, &other_mw));
	mr.pdn = htole32(t.lb.pdn);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_REG_MR, &mr, r.data));
	plain = le32toh(r.mr.lkey);		/* no MW_BIND, no LOCAL_WRITE */
	bad[0] = (typeof(bad[0])){ "MR without MW_BIND", t1, t1, plain,
				   XRNIC_ACCESS_REMOTE_READ, BUF, 64 };
	bad[1] = (typeof(bad[0])){ "type 2 of length 0", t2, t2, t.lb.key,
				   XRNIC_ACCESS_REMOTE_READ, WIN, 0 };
	bad[2] = (typeof(bad[0])){ "type 1 zero based", t1, t1, t.lb.key,
				   XRNIC_ACCESS_REMOTE_READ | XRNIC_ACCESS_ZERO_BASED, WIN, 64 };
	bad[3] = (typeof(bad[0])){ "past the MR's end", t1, t1, t.lb.key,
				   XRNIC_ACCESS_REMOTE_READ, BUF + 8 * XE_LB_PAGE - 8, 16 };
	bad[4] = (typeof(bad[0])){ "a new rkey of another index", t1, t2, t.lb.key,
				   XRNIC_ACCESS_REMOTE_READ, WIN, 64 };
	bad[5] = (typeof(bad[0])){ "a window of another PD", other_mw, other_mw, t.lb.key,
				   XRNIC_ACCESS_REMOTE_READ, WIN, 64 };
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		w = bind_wqe(bad[i].mw, bad[i].new_rkey, bad[i].mr, bad[i].access, bad[i].addr,
			     bad[i].len);
		EXPECT_EQ(XRNIC_WC_MW_BIND_ERR, run(self, &t, 1, &w)) TH_LOG("%s", bad[i].what);
		requalify(_metadata, self, &t, 1);
	}
	/* A WQE of a bind with SGEs is malformed. */
	w = bind_wqe(t1, t1, t.lb.key, XRNIC_ACCESS_REMOTE_READ, WIN, 64);
	w.num_sge = 1;
	EXPECT_EQ(XRNIC_WC_LOC_QP_OP_ERR, run(self, &t, 1, &w));
	requalify(_metadata, self, &t, 1);
	/* Nothing was bound by any of them. */
	EXPECT_EQ(0, self->xe.mr[XRNIC_KEY_INDEX(t.lb.key)].obj.refs);
	EXPECT_EQ(0, self->xe.mr[XRNIC_KEY_INDEX(plain)].obj.refs);
	/* A remote-write window needs an MR with local write. */
	mr.access = htole32(XRNIC_ACCESS_MW_BIND);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &t.lb, XRNIC_ADMIN_REG_MR, &mr, r.data));
	w = bind_wqe(t1, t1, le32toh(r.mr.lkey), XRNIC_ACCESS_REMOTE_WRITE, BUF, 64);
	EXPECT_EQ(XRNIC_WC_MW_BIND_ERR, run(self, &t, 1, &w));
	requalify(_metadata, self, &t, 1);
	w = bind_wqe(t1, t1, le32toh(r.mr.lkey), XRNIC_ACCESS_REMOTE_READ, BUF, 64);
	EXPECT_EQ(XRNIC_WC_SUCCESS, run(self, &t, 1, &w));
}

TEST_HARNESS_MAIN
