// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the UD transport (ud.c): two UD QPs of one device, beside
 * loopback.c's RC pair, sending each other datagrams through the port's
 * own GIDs.  What lands (the GRH, then the payload), what completes, and
 * what is dropped and counted: a wrong Q_Key, no receive WQE, a buffer too
 * small; what fails the WQE: a datagram above the MTU, a bad address vector.
 */
#include "xe_fixture.h"
#include "loopback.h"
#include "frame.h"
#include "transport.h"

#define BUF		XE_LB_BUF
#define BUF_LEN		(4 * XE_LB_PAGE)
#define DEPTH		XE_LB_DEPTH
#define QKEY		0x11111111u
#define UD(i)		(2 + (i))		/* loopback.c's QP slots 0, 1 are RC */

struct ud {
	struct xe_lb lb;
	uint32_t qpn[2];
	uint32_t cq_ci;
};

static void post_send(struct _test_data_dev *self, int i, const struct xrnic_sqe *w)
{
	xe_lb_post_send(&self->xe, UD(i), w);
}

static void post_recv(struct _test_data_dev *self, int i, uint64_t wr_id, uint64_t addr,
		      uint32_t len, uint32_t key)
{
	xe_lb_post_recv(&self->xe, UD(i), wr_id, addr, len, key);
}

static struct xrnic_cqe *poll_cq(struct _test_data_dev *self, struct ud *t)
{
	return xe_lb_poll_cq(&self->xe, &t->cq_ci);
}

static uint8_t *gpa(struct _test_data_dev *self, uint64_t a)
{
	return self->xe.mem.base + a;
}

static struct xrnic_qp_db *qp_db(struct _test_data_dev *self, int i)
{
	return (void *)gpa(self, XE_LB_QP_DB(UD(i)));
}

static uint8_t modify(struct _test_data_dev *self, struct ud *u, uint32_t qpn, uint32_t mask,
		      uint8_t state, uint32_t qkey)
{
	struct xrnic_qp_attr a = {
		.qpn = htole32(qpn), .attr_mask = htole32(mask), .state = state,
		.qkey = htole32(qkey), .port_num = mask & XRNIC_QP_PORT ? 1 : 0,
	};

	return xe_lb_admin(&self->xe, &u->lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL);
}

/*
 * loopback.c's device, GID 1 an IPv4 address of the port, and two UD QPs
 * in RTS with Q_Key QKEY; 0 or the failed admin status.
 */
static uint8_t ud_setup(struct _test_data_dev *self, struct ud *u)
{
	struct xrnic_cmd_set_gid g = { .port_num = 1, .index = 1, .valid = 1,
				       .gid = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 7 } };
	uint8_t st;
	int i;

	memset(u, 0, sizeof(*u));
	st = xe_lb_setup(&self->xe, &u->lb, BUF_LEN, 0);
	if (!st)
		st = xe_lb_admin(&self->xe, &u->lb, XRNIC_ADMIN_SET_GID, &g, NULL);
	for (i = 0; i < 2 && !st; i++) {
		st = xe_lb_create_qp(&self->xe, &u->lb, UD(i), XRNIC_QPT_UD, 0, &u->qpn[i]);
		if (!st)
			st = xe_lb_ud_rts(&self->xe, &u->lb, u->qpn[i], QKEY);
	}
	return st;
}

/* A datagram of len bytes at BUF from UD QP 0 to the GID of index dgid_index. */
static struct xrnic_sqe datagram(struct _test_data_dev *self, struct ud *u, uint64_t wr_id,
				 uint32_t len, uint8_t dgid_index, uint32_t qkey)
{
	struct xrnic_sqe w = {
		.wr_id = htole64(wr_id), .opcode = XRNIC_WR_SEND_WITH_IMM,
		.flags = XRNIC_SQE_SIGNALED | XRNIC_SQE_SOLICITED, .num_sge = 1,
		.imm_data_be = htobe32(0xfeed), .dest_qpn = htole32(u->qpn[1]),
		.qkey = htole32(qkey),
	};

	memcpy(w.ud.av.dgid, self->xe.gid[dgid_index].gid, 16);
	memcpy(w.ud.av.dmac, self->xe.id.mac, 6);
	w.ud.av.sgid_index = dgid_index;
	w.ud.av.hop_limit = 64;
	w.ud.av.traffic_class = 0x28;
	w.ud.sge[0] = (struct xrnic_sge){ htole64(BUF), htole32(len), htole32(u->lb.key) };
	return w;
}

TEST_F(dev, a_datagram_lands_after_its_grh_and_names_its_sender)
{
	uint8_t *rcv = gpa(self, BUF + 2 * XE_LB_PAGE), *ip;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct ud u;
	int i;

	ASSERT_EQ(0, ud_setup(self, &u));
	for (i = 0; i < 1000; i++)
		gpa(self, BUF)[i] = i * 3;
	memset(rcv, 0xee, 2000);
	/* IPv4 (GID 1): 20 zeros, then the IPv4 header the datagram had. */
	post_recv(self, 1, 0x71, BUF + 2 * XE_LB_PAGE, 2000, u.lb.key);
	w = datagram(self, &u, 0x51, 1000, 1, QKEY);
	post_send(self, 0, &w);
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_RECV, c->opcode);
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(XRNIC_GRH_LEN + 1000, le32toh(c->byte_len));
	EXPECT_EQ(u.qpn[0], le32toh(c->src_qp));
	EXPECT_EQ(u.qpn[1], le32toh(c->qpn));
	EXPECT_EQ(XRNIC_CQE_GRH | XRNIC_CQE_GRH_IPV4 | XRNIC_CQE_WITH_IMM | XRNIC_CQE_SOLICITED |
		  XRNIC_CQE_RECV, c->flags & ~XRNIC_CQE_PHASE);
	EXPECT_EQ(htobe32(0xfeed), c->imm_data_be);
	EXPECT_TRUE(xe_all_zero(rcv, 20));
	ip = rcv + 20;
	EXPECT_EQ(0x45, ip[0]);
	EXPECT_EQ(0x28 | XE_ECN_ECT0, ip[1]);	/* the AV's traffic class, ECT(0) */
	EXPECT_EQ(64, ip[8]);			/* and hop limit */
	EXPECT_EQ(17, ip[9]);
	EXPECT_EQ(0, memcmp(ip + 12, "\xc0\x00\x02\x07\xc0\x00\x02\x07", 8));
	EXPECT_EQ(0, memcmp(rcv + XRNIC_GRH_LEN, gpa(self, BUF), 1000));
	EXPECT_EQ(0xee, rcv[XRNIC_GRH_LEN + 1000]);
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_SEND, c->opcode);
	EXPECT_EQ(0x51, le64toh(c->wr_id));
	EXPECT_EQ(1000, le32toh(c->byte_len));

	/* IPv6 (GID 0, link-local): the GRH is the IPv6 header. */
	post_recv(self, 1, 0x72, BUF + 2 * XE_LB_PAGE, 2000, u.lb.key);
	w = datagram(self, &u, 0x52, 10, 0, QKEY);
	post_send(self, 0, &w);
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_GRH_LEN + 10, le32toh(c->byte_len));
	EXPECT_EQ(XRNIC_CQE_GRH, c->flags & (XRNIC_CQE_GRH | XRNIC_CQE_GRH_IPV4));
	EXPECT_EQ(0x62, rcv[0]);		/* version 6, traffic class 0x28 */
	EXPECT_EQ(XE_ECN_ECT0 << 4 | 0x80, rcv[1]);	/* ... with ECT(0) */
	EXPECT_EQ(17, rcv[6]);
	EXPECT_EQ(0, memcmp(rcv + 8, self->xe.gid[0].gid, 16));
	EXPECT_EQ(0, memcmp(rcv + 24, self->xe.gid[0].gid, 16));
	EXPECT_NE(NULL, poll_cq(self, &u));
}

TEST_F(dev, a_wrong_qkey_is_dropped_and_counted_and_the_qps_own_is_used_on_request)
{
	uint64_t *cnt = self->xe.counters;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct ud u;

	ASSERT_EQ(0, ud_setup(self, &u));
	post_recv(self, 1, 0x71, BUF + XE_LB_PAGE, 100, u.lb.key);
	w = datagram(self, &u, 0x51, 8, 1, QKEY + 1);
	post_send(self, 0, &w);
	/* Only the sender's completion: sent is done, lost is lost. */
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SEND, c->opcode);
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(NULL, poll_cq(self, &u));
	EXPECT_EQ(1, cnt[XRNIC_CNT_RX_QKEY_VIOLATIONS]);
	EXPECT_EQ(1, cnt[XRNIC_CNT_RX_DROPPED]);
	EXPECT_EQ(0, le32toh(qp_db(self, 1)->rq_ci));
	/* The high bit: the sending QP's own Q_Key, the receiver's too here. */
	w = datagram(self, &u, 0x52, 8, 1, XRNIC_QKEY_USE_QP);
	post_send(self, 0, &w);
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_RECV, c->opcode);
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(1, cnt[XRNIC_CNT_RX_QKEY_VIOLATIONS]);
}

TEST_F(dev, without_a_fitting_receive_wqe_a_datagram_is_dropped_and_the_wqe_stays)
{
	uint64_t *cnt = self->xe.counters;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct ud u;

	ASSERT_EQ(0, ud_setup(self, &u));
	/* No receive WQE: no RNR, the datagram is gone. */
	w = datagram(self, &u, 0x51, 100, 1, QKEY);
	post_send(self, 0, &w);
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SEND, c->opcode);
	EXPECT_EQ(1, cnt[XRNIC_CNT_RX_DROPPED]);
	/* Room for the payload but not the GRH too: dropped, the WQE kept. */
	post_recv(self, 1, 0x71, BUF + XE_LB_PAGE, 100 + XRNIC_GRH_LEN - 1, u.lb.key);
	post_send(self, 0, &w);
	EXPECT_EQ(XRNIC_WC_SEND, poll_cq(self, &u)->opcode);
	EXPECT_EQ(NULL, poll_cq(self, &u));
	EXPECT_EQ(2, cnt[XRNIC_CNT_RX_DROPPED]);
	EXPECT_EQ(0, le32toh(qp_db(self, 1)->rq_ci));
	EXPECT_EQ(XRNIC_QPS_RTS, xe_qp_get(&self->xe, u.qpn[1])->state);
	/* A smaller datagram takes it. */
	w = datagram(self, &u, 0x52, 99, 1, QKEY);
	post_send(self, 0, &w);
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(99 + XRNIC_GRH_LEN, le32toh(c->byte_len));
	EXPECT_EQ(1, le32toh(qp_db(self, 1)->rq_ci));
}

TEST_F(dev, a_datagram_above_the_mtu_or_with_a_bad_address_fails_its_wqe)
{
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	struct ud u;
	int i;

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, ud_setup(self, &u));
		w = datagram(self, &u, 0x51, 4096, 1, QKEY);
		switch (i) {
		case 0:
			w.ud.sge[0].length = htole32(4097);	/* one byte above the MTU */
			break;
		case 1:
			w.ud.av.sgid_index = 5;			/* an empty GID */
			break;
		case 2:
			w.ud.av.dmac[0] |= 1;			/* a multicast MAC */
			break;
		case 3:
			w.opcode = XRNIC_WR_RDMA_WRITE;		/* not a UD operation */
			break;
		}
		post_send(self, 0, &w);
		c = poll_cq(self, &u);
		ASSERT_NE(NULL, c);
		EXPECT_EQ(i ? XRNIC_WC_LOC_QP_OP_ERR : XRNIC_WC_LOC_LEN_ERR, c->status)
			TH_LOG("case %d", i);
		EXPECT_EQ(XRNIC_QPS_ERR, xe_qp_get(&self->xe, u.qpn[0])->state);
		EXPECT_EQ(0, self->xe.counters[XRNIC_CNT_TX_PACKETS]);
	}
	/* The MTU itself goes. */
	ASSERT_EQ(0, ud_setup(self, &u));
	w = datagram(self, &u, 0x51, 4096, 1, QKEY);
	post_send(self, 0, &w);
	EXPECT_EQ(XRNIC_WC_SUCCESS, poll_cq(self, &u)->status);
}

TEST_F(dev, ud_and_rc_qps_take_only_their_own_attributes_and_packets)
{
	struct xrnic_acq_entry r;
	struct xrnic_cmd_qp q = {};
	struct xe_pkt p;
	struct xe_frame f;
	uint8_t b[64];
	uint32_t n;
	struct ud u;

	ASSERT_EQ(0, ud_setup(self, &u));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, modify(self, &u, u.qpn[0], XRNIC_QP_DEST_QPN, 0, 0));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, modify(self, &u, u.lb.qpn[0], XRNIC_QP_QKEY, 0, 1));
	EXPECT_EQ(0, modify(self, &u, u.qpn[0], XRNIC_QP_QKEY, 0, 0x4242));
	q.qpn = htole32(u.qpn[0]);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &u.lb, XRNIC_ADMIN_QUERY_QP, &q, r.data));
	EXPECT_EQ(0x4242, le32toh(r.qp_attr.qkey));
	EXPECT_EQ(XRNIC_QP_UD_ATTRS, le32toh(r.qp_attr.attr_mask));
	EXPECT_EQ(XRNIC_QPS_RTS, r.qp_attr.state);

	/* An RC SEND to a UD QP and a datagram to an RC QP: dropped. */
	p = (struct xe_pkt){ .opcode = XE_OP_SEND_ONLY, .qpn = u.qpn[1], .pkey = 0xffff };
	n = xe_pkt_build(b, &p);
	f = (struct xe_frame){ .hdr = b, .hdr_avail = n, .len = n };
	EXPECT_FALSE(xe_wire_recv(&self->xe, &f));
	p = (struct xe_pkt){ .opcode = XE_OP_UD_SEND_ONLY, .qpn = u.lb.qpn[1], .pkey = 0xffff,
			     .qkey = QKEY };
	n = xe_pkt_build(b, &p);
	f = (struct xe_frame){ .hdr = b, .hdr_avail = n, .len = n };
	EXPECT_FALSE(xe_wire_recv(&self->xe, &f));
	/* Another partition: a P_Key violation. */
	p.qpn = u.qpn[1];
	p.pkey = 0x8001;
	n = xe_pkt_build(b, &p);
	EXPECT_FALSE(xe_wire_recv(&self->xe, &f));
	EXPECT_EQ(1, self->xe.counters[XRNIC_CNT_RX_PKEY_VIOLATIONS]);
	EXPECT_EQ(3, self->xe.counters[XRNIC_CNT_RX_DROPPED]);
	EXPECT_EQ(XRNIC_QPS_RTS, xe_qp_get(&self->xe, u.lb.qpn[1])->state);
}

/*
 * The GSI QP: CREATE_QP of type GSI is QP 1, once; MADs from QP 1 to QP 1
 * carry the well-known Q_Key (the WR's high bit: the QP's own), land after
 * their GRH from source QP 1; a datagram with another Q_Key is dropped; a
 * destroyed GSI QP takes nothing and comes back as QP 1.
 */
TEST_F(dev, the_gsi_qp_is_qp_1_and_takes_mads_of_the_gsi_qkey)
{
	uint8_t *rcv = gpa(self, BUF + 2 * XE_LB_PAGE);
	struct xrnic_cmd_qp q = {};
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	uint32_t qpn;
	struct ud u;
	int i;

	ASSERT_EQ(0, ud_setup(self, &u));
	/* UD(1)'s slot becomes the GSI QP, UD(0) stays a UD QP with QKEY. */
	q.qpn = htole32(u.qpn[1]);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &u.lb, XRNIC_ADMIN_DESTROY_QP, &q, NULL));
	ASSERT_EQ(0, xe_lb_create_qp(&self->xe, &u.lb, UD(1), XRNIC_QPT_GSI, 0, &qpn));
	EXPECT_EQ(XRNIC_GSI_QPN, qpn);
	EXPECT_EQ(XRNIC_STATUS_BUSY,
		  xe_lb_create_qp(&self->xe, &u.lb, UD(1), XRNIC_QPT_GSI, 0, &u.qpn[1]));
	u.qpn[1] = qpn;
	ASSERT_EQ(0, xe_lb_ud_rts(&self->xe, &u.lb, qpn, XRNIC_GSI_QKEY));
	for (i = 0; i < 256; i++)
		gpa(self, BUF)[i] = i;

	/* QP 1 to QP 1, as two ports' GSI QPs talk. */
	post_recv(self, 1, 0x71, BUF + 2 * XE_LB_PAGE, XRNIC_GRH_LEN + 256, u.lb.key);
	w = datagram(self, &u, 0x51, 256, 1, XRNIC_QKEY_USE_QP | XRNIC_GSI_QKEY);
	w.opcode = XRNIC_WR_SEND;
	w.flags = XRNIC_SQE_SIGNALED;
	w.imm_data_be = 0;
	xe_lb_post_send(&self->xe, UD(1), &w);
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_RECV, c->opcode);
	EXPECT_EQ(0x71, le64toh(c->wr_id));
	EXPECT_EQ(XRNIC_GSI_QPN, le32toh(c->qpn));
	EXPECT_EQ(XRNIC_GSI_QPN, le32toh(c->src_qp));
	EXPECT_EQ(XRNIC_GRH_LEN + 256, le32toh(c->byte_len));
	EXPECT_EQ(0, memcmp(rcv + XRNIC_GRH_LEN, gpa(self, BUF), 256));
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SEND, c->opcode);
	EXPECT_EQ(XRNIC_GSI_QPN, le32toh(c->qpn));

	/* A UD QP's own Q_Key is not the GSI's: dropped and counted. */
	post_recv(self, 1, 0x72, BUF + 2 * XE_LB_PAGE, XRNIC_GRH_LEN + 256, u.lb.key);
	w = datagram(self, &u, 0x52, 256, 1, XRNIC_QKEY_USE_QP);
	post_send(self, 0, &w);
	c = poll_cq(self, &u);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SEND, c->opcode);
	EXPECT_EQ(NULL, poll_cq(self, &u));
	EXPECT_EQ(1, self->xe.counters[XRNIC_CNT_RX_QKEY_VIOLATIONS]);

	/* Destroyed, QP 1 takes nothing; created again, it is QP 1 again. */
	q.qpn = htole32(XRNIC_GSI_QPN);
	ASSERT_EQ(0, xe_lb_admin(&self->xe, &u.lb, XRNIC_ADMIN_DESTROY_QP, &q, NULL));
	EXPECT_EQ(NULL, xe_qp_get(&self->xe, XRNIC_GSI_QPN));
	EXPECT_EQ(NULL, xe_qp_get(&self->xe, XRNIC_GSI_QPN | 1u << XE_QPN_SLOT_BITS));
	ASSERT_EQ(0, xe_lb_create_qp(&self->xe, &u.lb, UD(1), XRNIC_QPT_GSI, 0, &qpn));
	EXPECT_EQ(XRNIC_GSI_QPN, qpn);
	EXPECT_EQ(XRNIC_QPT_UD, xe_qp_get(&self->xe, XRNIC_GSI_QPN)->type);
}

TEST_HARNESS_MAIN
