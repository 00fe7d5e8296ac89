// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of RoCE v2 on a wire: two devices in one process, each set up
 * by loopback.c, QP 0 of device A connected to QP 1 of device B through
 * their GIDs and MACs, and a wire between them that queues the frames each
 * puts out until the test delivers them.  The frames are checked as RoCE v2
 * (Ethernet, IP, UDP 4791, ICRC) and the data byte for byte.  The
 * "switched" tests join the two devices by the switch between device
 * models (switch.c, through tap.c) instead.  No VM.
 */
#include <sys/socket.h>

#include "xe_fixture.h"
#include "loopback.h"
#include "frame.h"
#include "tap.h"
#include "transport.h"

#define RAM		(1024 * 1024)
#define BUF		XE_LB_BUF
#define BUF_LEN		(64 * 1024)
#define WIRE_SLOTS	(XE_PSN_WINDOW + 64)

struct wire {
	unsigned int n;
	size_t len[WIRE_SLOTS];
	uint8_t frame[WIRE_SLOTS][4400];
};

struct side {
	struct xe_dev xe;
	struct xe_lb lb;
	struct wire out;	/* what it put on the wire */
	uint32_t cq_ci;
	int irqs[XRNIC_MAX_VECTORS];
};

static void queue_frame(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	struct wire *w = xe->wire_ctx;

	if (w->n < WIRE_SLOTS && len <= sizeof(w->frame[0])) {
		memcpy(w->frame[w->n], frame, len);
		w->len[w->n++] = len;
	}
}

static int side_init(struct side *s, uint8_t last_mac_byte)
{
	s->xe.bar2 = aligned_alloc(XRNIC_PAGE_SIZE, XRNIC_BAR2_SIZE);
	if (!s->xe.bar2 || map_ram(&s->xe.mem, RAM))
		return -1;
	s->xe.log = fopen("/dev/null", "w");
	s->xe.raise_irq = count_irq;
	s->xe.irq_ctx = s->irqs;
	s->xe.eth_xmit = queue_frame;
	s->xe.wire_ctx = &s->out;
	s->xe.id = (struct xe_identity){
		.mac = { 0x52, 0x54, 0x00, 0x00, 0x00, last_mac_byte }, .num_vectors = 4,
	};
	xe_dev_init(&s->xe);
	s->xe.poll_linger_ns = 0;
	return xe_lb_setup(&s->xe, &s->lb, BUF_LEN, 0);
}

static void side_fini(struct side *s)
{
	xe_dev_fini(&s->xe);
	fclose(s->xe.log);
	xe_gm_unmap(&s->xe.mem);
	free(s->xe.bar2);
}

/* Sides a and b, QP 0 of a connected to QP 1 of b through IPv4 or IPv6 GIDs. */
static int pair_init(struct side **a, struct side **b, bool v6)
{
	*a = calloc(1, sizeof(**a));
	*b = calloc(1, sizeof(**b));
	if (!*a || !*b || side_init(*a, 1) || side_init(*b, 2))
		return -1;
	if (xe_lb_connect(&(*a)->xe, &(*a)->lb, (*a)->lb.qpn[0], &(*b)->xe, (*b)->lb.qpn[1], v6) ||
	    xe_lb_connect(&(*b)->xe, &(*b)->lb, (*b)->lb.qpn[1], &(*a)->xe, (*a)->lb.qpn[0], v6))
		return -1;
	return 0;
}

static void pair_fini(struct side *a, struct side *b)
{
	side_fini(a);
	side_fini(b);
	free(a);
	free(b);
}

FIXTURE(wire) {
	struct side *a, *b;
};

FIXTURE_VARIANT(wire) {
	bool v6;
};

FIXTURE_VARIANT_ADD(wire, ipv4) { .v6 = false };
FIXTURE_VARIANT_ADD(wire, ipv6) { .v6 = true };

FIXTURE_SETUP(wire)
{
	ASSERT_EQ(0, pair_init(&self->a, &self->b, variant->v6));
}

FIXTURE_TEARDOWN(wire)
{
	pair_fini(self->a, self->b);
}

/*
 * Deliver what from put on the wire.  Every frame must pass every RoCE v2
 * check (a wrong one ends the test), unless faults are injected on purpose.
 */
static int deliver(struct side *from, struct side *to)
{
	struct xe_roce_frame rf;
	unsigned int i, n = from->out.n;

	for (i = 0; i < n; i++) {
		if (!from->xe.faults.active &&
		    xe_frame_parse(from->out.frame[i], from->out.len[i], &rf) != 1)
			return -1;
		xe_port_receive(&to->xe, from->out.frame[i], from->out.len[i]);
	}
	from->out.n = 0;
	return n;
}

/* Run both devices and the wire until nothing moves; -1 on a bad frame. */
static int run(struct side *a, struct side *b)
{
	int moved, n;

	do {
		xe_doorbell(&a->xe, 1);
		xe_doorbell(&b->xe, 1);
		while (xe_dev_poll(&a->xe) == 0 || xe_dev_poll(&b->xe) == 0)
			;
		moved = 0;
		if ((n = deliver(a, b)) < 0 || (moved += n, (n = deliver(b, a)) < 0))
			return -1;
		moved += n;
	} while (moved);
	return 0;
}

static void post_send(struct side *s, int q, const struct xrnic_sqe *w)
{
	struct xrnic_qp_db *db = (void *)(s->xe.mem.base + XE_LB_QP_DB(q));
	uint32_t pi = le32toh(db->sq_pi);

	memcpy(s->xe.mem.base + XE_LB_QP(q) + (pi % XE_LB_DEPTH) * XRNIC_SQE_SIZE, w, sizeof(*w));
	db->sq_pi = htole32(pi + 1);
}

static void post_recv(struct side *s, int q, uint64_t addr, uint32_t len)
{
	struct xrnic_qp_db *db = (void *)(s->xe.mem.base + XE_LB_QP_DB(q));
	uint32_t pi = le32toh(db->rq_pi);
	struct xrnic_rqe *r = (void *)(s->xe.mem.base + XE_LB_RQ(q) + (pi % XE_LB_DEPTH) * 128);

	memset(r, 0, sizeof(*r));
	r->wr_id = htole64(0x77);
	r->num_sge = 1;
	r->sge[0] = (struct xrnic_sge){ htole64(addr), htole32(len), htole32(s->lb.key) };
	db->rq_pi = htole32(pi + 1);
}

static struct xrnic_cqe *poll_cq(struct side *s)
{
	struct xrnic_cqe *e = (void *)(s->xe.mem.base + XE_LB_CQ +
				       (s->cq_ci % XE_LB_CQ_DEPTH) * XRNIC_CQE_SIZE);

	if ((e->flags & XRNIC_CQE_PHASE) != xrnic_entry_phase(s->cq_ci, XE_LB_CQ_DEPTH))
		return NULL;
	s->cq_ci++;
	((struct xrnic_cq_db *)(s->xe.mem.base + XE_LB_CQ_DB))->ci = htole32(s->cq_ci);
	return e;
}

static struct xrnic_sqe sqe(uint8_t opcode, uint64_t addr, uint32_t len, uint32_t key,
			    uint64_t remote, uint32_t rkey)
{
	struct xrnic_sqe w = {
		.wr_id = htole64(0x55), .opcode = opcode, .flags = XRNIC_SQE_SIGNALED,
		.num_sge = 1, .remote_addr = htole64(remote), .rkey = htole32(rkey),
	};

	w.sge[0] = (struct xrnic_sge){ htole64(addr), htole32(len), htole32(key) };
	return w;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	while (n--)
		*p++ = seed++ * 13;
}

TEST_F(wire, write_and_read_cross_the_wire_as_roce_v2_frames)
{
	struct side *a = self->a, *b = self->b;
	uint8_t *abuf = a->xe.mem.base + BUF, *bbuf = b->xe.mem.base + BUF;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	fill(abuf, 10000, 1);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 10000, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(0, memcmp(abuf, bbuf + 20000, 10000));
	/* 3 packets of a 4096-byte MTU went out, and the ACK came back. */
	EXPECT_EQ(3, a->xe.counters[XRNIC_CNT_TX_PACKETS]);
	EXPECT_EQ(3, b->xe.counters[XRNIC_CNT_RX_PACKETS]);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RX_PACKETS]);

	fill(bbuf + 40000, 7000, 9);
	w = sqe(XRNIC_WR_RDMA_READ, BUF + 30000, 7000, a->lb.key, BUF + 40000, b->lb.key);
	post_send(a, 0, &w);
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(0, memcmp(abuf + 30000, bbuf + 40000, 7000));
}

TEST_F(wire, send_with_immediate_lands_in_the_peers_receive_queue)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	fill(a->xe.mem.base + BUF, 5000, 3);
	post_recv(b, 1, BUF + 8192, 6000);
	w = sqe(XRNIC_WR_SEND_WITH_IMM, BUF, 5000, a->lb.key, 0, 0);
	w.imm_data_be = htobe32(0xabcd);
	post_send(a, 0, &w);
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(b));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(XRNIC_WC_RECV, c->opcode);
	EXPECT_EQ(5000, le32toh(c->byte_len));
	EXPECT_EQ(a->lb.qpn[0], le32toh(c->src_qp));
	EXPECT_EQ(htobe32(0xabcd), c->imm_data_be);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 8192, 5000));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
}

TEST_F(wire, a_corrupted_frame_fails_the_icrc_and_is_dropped_and_counted)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;

	fill(a->xe.mem.base + BUF, 100, 5);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 100, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	ASSERT_EQ(1, a->out.n);
	a->out.frame[0][a->out.len[0] - 10] ^= 0x40;	/* a payload bit */
	EXPECT_EQ(-2, xe_frame_parse(a->out.frame[0], a->out.len[0],
				     &(struct xe_roce_frame){ }));
	xe_port_receive(&b->xe, a->out.frame[0], a->out.len[0]);
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_RX_ICRC_ERRORS]);
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_RX_DROPPED]);
	EXPECT_TRUE(xe_all_zero(b->xe.mem.base + BUF + 20000, 100));
}

TEST_F(wire, frames_for_another_mac_or_gid_are_not_taken)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	uint8_t f[4400];
	size_t n;

	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 100, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	ASSERT_EQ(1, a->out.n);
	n = a->out.len[0];
	memcpy(f, a->out.frame[0], n);
	f[5] = 9;				/* another port's MAC: ignored */
	xe_port_receive(&b->xe, f, n);
	EXPECT_EQ(0, b->xe.counters[XRNIC_CNT_RX_PACKETS]);
	/* Device A does not own B's GID: its own frame is dropped there. */
	memcpy(f, a->out.frame[0], n);
	memcpy(f, a->xe.id.mac, 6);
	xe_port_receive(&a->xe, f, n);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RX_DROPPED]);
	/* An ordinary frame goes to the Ethernet function, not the transport. */
	memcpy(f, a->out.frame[0], n);
	f[12] = 0x08;
	f[13] = 0x06;				/* ARP */
	xe_port_receive(&b->xe, f, 60);
	EXPECT_EQ(0, b->xe.counters[XRNIC_CNT_RX_PACKETS]);
}

/* Whether a path loops back is judged again whenever the GID table changes. */
TEST_F(wire, a_path_loops_back_while_its_destination_gid_is_the_ports_own)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_cmd_set_gid g = { .port_num = 1, .index = 1, .valid = 1 };
	struct xrnic_sqe w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 100, a->lb.key, BUF + 20000, b->lb.key);

	memcpy(g.gid, a->xe.qp[XE_QPN_SLOT(a->lb.qpn[0])].attr.dgid, 16);
	ASSERT_EQ(XRNIC_STATUS_OK, xe_lb_admin(&a->xe, &a->lb, XRNIC_ADMIN_SET_GID, &g, NULL));
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	EXPECT_EQ(0, a->out.n);
	EXPECT_LE(1, a->xe.counters[XRNIC_CNT_RX_PACKETS]);
	/* The GID gone, the same path leads to the wire again. */
	g.valid = 0;
	memset(g.gid, 0, sizeof(g.gid));
	ASSERT_EQ(XRNIC_STATUS_OK, xe_lb_admin(&a->xe, &a->lb, XRNIC_ADMIN_SET_GID, &g, NULL));
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	ASSERT_LE(1, a->out.n);
	EXPECT_EQ(0, memcmp(a->out.frame[0], b->xe.id.mac, 6));
}

/* Give QP 0 of side a an ACK timeout of 67 ms and 3 retries. */
static uint8_t slow_timeout(struct side *a)
{
	struct xrnic_qp_attr t = {
		.qpn = htole32(a->lb.qpn[0]),
		.attr_mask = htole32(XRNIC_QP_TIMEOUT | XRNIC_QP_RETRY_CNT),
		.timeout = 14, .retry_cnt = 3,
	};

	return xe_lb_admin(&a->xe, &a->lb, XRNIC_ADMIN_MODIFY_QP, &t, NULL);
}

/* The requester state of side s's QP 0. */
static struct xe_qp_req *req_of(struct side *s)
{
	return &s->xe.qp[XE_QPN_SLOT(s->lb.qpn[0])].req;
}

/*
 * Keep s running, as its process would, until its ACK timer expires (it
 * then sends again); -1 when it did not within 10 s.
 */
static int pass_ack_timeout(struct side *s)
{
	uint64_t before = s->xe.counters[XRNIC_CNT_ACK_TIMEOUTS];
	int i;

	for (i = 0; i < 10000; i++) {
		xe_dev_poll(&s->xe);
		if (s->xe.counters[XRNIC_CNT_ACK_TIMEOUTS] != before)
			return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * Run a's posted WQE: its sent frames reach b, b's answers are lost, and
 * the time passes a's ACK timeout.  Returns the answers lost, or -1 when
 * a did not send `sent` frames.
 */
static int lose_the_answers(struct side *a, struct side *b, int sent)
{
	int lost;

	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	if (deliver(a, b) != sent)
		return -1;
	while (xe_dev_poll(&b->xe) == 0)
		;
	lost = b->out.n;
	b->out.n = 0;
	return pass_ack_timeout(a) ? -1 : lost;
}

TEST_F(wire, a_lost_ack_is_sent_again_when_the_message_comes_again)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, slow_timeout(a));
	fill(a->xe.mem.base + BUF, 6000, 7);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 6000, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	ASSERT_EQ(1, lose_the_answers(a, b, 2));	/* the ACK */
	EXPECT_EQ(NULL, poll_cq(a));
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	/* After the timeout one packet goes again, and its ACK answers both. */
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_RX_DUPLICATES]);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 6000));
	EXPECT_EQ(NULL, poll_cq(b));		/* executed once: no second completion */
}

TEST_F(wire, lost_read_responses_are_read_again)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, slow_timeout(a));
	fill(b->xe.mem.base + BUF + 40000, 6000, 11);
	w = sqe(XRNIC_WR_RDMA_READ, BUF, 6000, a->lb.key, BUF + 40000, b->lb.key);
	post_send(a, 0, &w);
	ASSERT_EQ(2, lose_the_answers(a, b, 1));	/* both responses */
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_RX_DUPLICATES]);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 40000, 6000));
}

/* Post a READ of 5 packets from b to a and let b answer: 5 responses queued. */
static int read_five(struct side *a, struct side *b)
{
	struct xrnic_sqe w = sqe(XRNIC_WR_RDMA_READ, BUF, 5 * 4096, a->lb.key, BUF + 40000,
				 b->lb.key);

	fill(b->xe.mem.base + BUF + 40000, 5 * 4096, 3);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	if (deliver(a, b) != 1)
		return -1;
	while (xe_dev_poll(&b->xe) == 0)
		;
	return b->out.n;
}

/* Drop frame i of what s put on the wire. */
static void lose_frame(struct side *s, unsigned int i)
{
	for (; i + 1 < s->out.n; i++) {
		memcpy(s->out.frame[i], s->out.frame[i + 1], s->out.len[i + 1]);
		s->out.len[i] = s->out.len[i + 1];
	}
	s->out.n--;
}

TEST_F(wire, a_read_response_lost_midway_is_asked_for_again_at_once)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, slow_timeout(a));		/* 3 retries, where loopback.c gives 0 */
	ASSERT_EQ(5, read_five(a, b));
	lose_frame(b, 1);
	/* No timeout passes: the gap itself makes a ask again, for 4 of 5. */
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
	EXPECT_EQ(3, a->xe.counters[XRNIC_CNT_RX_DROPPED]);	/* those after the gap */
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_RX_DUPLICATES]);
	EXPECT_EQ(5 + 4, b->xe.counters[XRNIC_CNT_TX_PACKETS]);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 40000, 5 * 4096));
}

TEST_F(wire, after_a_timeout_a_read_asks_only_for_the_responses_not_in)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, slow_timeout(a));
	ASSERT_EQ(5, read_five(a, b));
	b->out.n = 2;				/* the last three are lost */
	ASSERT_EQ(2, deliver(b, a));
	while (xe_dev_poll(&a->xe) == 0)
		;
	EXPECT_EQ(NULL, poll_cq(a));
	ASSERT_EQ(0, pass_ack_timeout(a));
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
	EXPECT_EQ(5 + 3, b->xe.counters[XRNIC_CNT_TX_PACKETS]);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 40000, 5 * 4096));
}

TEST_F(wire, a_lost_atomic_ack_is_replayed_and_the_atomic_runs_once)
{
	struct side *a = self->a, *b = self->b;
	uint64_t *word = (uint64_t *)(b->xe.mem.base + BUF + 48000);
	uint64_t *got = (uint64_t *)(a->xe.mem.base + BUF);
	struct xrnic_sqe w = {
		.wr_id = htole64(0x99), .opcode = XRNIC_WR_ATOMIC_FETCH_AND_ADD,
		.flags = XRNIC_SQE_SIGNALED, .num_sge = 1,
		.remote_addr = htole64(BUF + 48000), .rkey = htole32(b->lb.key),
	};
	struct xrnic_cqe *c;

	ASSERT_EQ(0, slow_timeout(a));
	*word = 1000;
	w.atomic.compare_add = htole64(5);
	w.atomic.sge = (struct xrnic_sge){ htole64(BUF), htole32(8), htole32(a->lb.key) };
	post_send(a, 0, &w);
	ASSERT_EQ(1, lose_the_answers(a, b, 1));	/* the ATOMIC ACK */
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(1005, *word);			/* added once */
	EXPECT_EQ(1000, *got);			/* the value it had, replayed */
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_RX_DUPLICATES]);
}

/* Run a FETCH_ADD of add on b's word from a; keep the request frame in *req. */
static int fetch_add(struct side *a, struct side *b, uint64_t add, uint8_t *req, size_t *len)
{
	struct xrnic_sqe w = {
		.wr_id = htole64(0x98), .opcode = XRNIC_WR_ATOMIC_FETCH_AND_ADD,
		.flags = XRNIC_SQE_SIGNALED, .num_sge = 1,
		.remote_addr = htole64(BUF + 48000), .rkey = htole32(b->lb.key),
	};
	struct xrnic_cqe *c;

	w.atomic.compare_add = htole64(add);
	w.atomic.sge = (struct xrnic_sge){ htole64(BUF), htole32(8), htole32(a->lb.key) };
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	if (a->out.n != 1)
		return -1;
	*len = a->out.len[0];
	memcpy(req, a->out.frame[0], *len);
	if (run(a, b))
		return -1;
	c = poll_cq(a);
	return c && c->status == XRNIC_WC_SUCCESS ? 0 : -1;
}

TEST_F(wire, an_older_atomic_that_comes_again_is_answered_from_the_replay_cache)
{
	struct side *a = self->a, *b = self->b;
	uint64_t *word = (uint64_t *)(b->xe.mem.base + BUF + 48000), orig;
	static uint8_t first[4400], second[4400];
	struct xe_roce_frame rf;
	size_t len1, len2;

	*word = 1000;
	ASSERT_EQ(0, fetch_add(a, b, 5, first, &len1));
	ASSERT_EQ(0, fetch_add(a, b, 7, second, &len2));
	ASSERT_EQ(1012, *word);
	/* The first comes again, after the second (a requester with both
	 * outstanding whose first ATOMIC ACK was lost resends both). */
	xe_port_receive(&b->xe, first, len1);
	while (xe_dev_poll(&b->xe) == 0)
		;
	ASSERT_EQ(1, b->out.n);
	ASSERT_EQ(1, xe_frame_parse(b->out.frame[0], b->out.len[0], &rf));
	memcpy(&orig, rf.bth + 16, 8);		/* BTH, AETH, then AtomicAckETH */
	EXPECT_EQ(1000, be64toh(orig));
	b->out.n = 0;
	xe_port_receive(&b->xe, second, len2);
	while (xe_dev_poll(&b->xe) == 0)
		;
	ASSERT_EQ(1, b->out.n);
	ASSERT_EQ(1, xe_frame_parse(b->out.frame[0], b->out.len[0], &rf));
	memcpy(&orig, rf.bth + 16, 8);
	EXPECT_EQ(1005, be64toh(orig));
	b->out.n = 0;
	EXPECT_EQ(1012, *word);			/* neither ran twice */
	EXPECT_EQ(2, b->xe.counters[XRNIC_CNT_RX_DUPLICATES]);
}

/* Set attributes of QP 0 of a (and the path MTU of QP 1 of b, which must agree). */
static uint8_t set_qp(struct side *a, struct side *b, uint32_t mask, uint8_t path_mtu,
		      uint8_t max_rd_atomic)
{
	struct xrnic_qp_attr t = {
		.qpn = htole32(a->lb.qpn[0]), .attr_mask = htole32(mask),
		.path_mtu = path_mtu, .max_rd_atomic = max_rd_atomic,
	};
	uint8_t st = xe_lb_admin(&a->xe, &a->lb, XRNIC_ADMIN_MODIFY_QP, &t, NULL);

	t.qpn = htole32(b->lb.qpn[1]);
	t.attr_mask = htole32(mask & XRNIC_QP_PATH_MTU);
	return st || !(mask & XRNIC_QP_PATH_MTU) ? st :
	       xe_lb_admin(&b->xe, &b->lb, XRNIC_ADMIN_MODIFY_QP, &t, NULL);
}

/* Let s send what its doorbell asks; returns the frames it put on the wire. */
static unsigned int send_now(struct side *s)
{
	xe_doorbell(&s->xe, 1);
	while (xe_dev_poll(&s->xe) == 0)
		;
	return s->out.n;
}

/* Keep only frame i of what s put on the wire. */
static void keep_frame(struct side *s, unsigned int i)
{
	memmove(s->out.frame[0], s->out.frame[i], s->out.len[i]);
	s->out.len[0] = s->out.len[i];
	s->out.n = 1;
}

/* The next n CQEs of s: successes with wr_id first, first + 1, ... */
static int expect_cqes(struct side *s, unsigned int n, uint64_t first)
{
	struct xrnic_cqe *c;
	unsigned int i;

	for (i = 0; i < n; i++) {
		c = poll_cq(s);
		if (!c || c->status != XRNIC_WC_SUCCESS || le64toh(c->wr_id) != first + i)
			return -1;
	}
	return poll_cq(s) ? -1 : 0;
}

TEST_F(wire, messages_go_out_without_waiting_and_one_ack_completes_those_before_it)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	unsigned int i;

	fill(a->xe.mem.base + BUF, 800, 4);
	for (i = 0; i < 8; i++) {
		w = sqe(XRNIC_WR_RDMA_WRITE, BUF + i * 100, 100, a->lb.key, BUF + 20000 + i * 100,
			b->lb.key);
		w.wr_id = htole64(i);
		post_send(a, 0, &w);
	}
	ASSERT_EQ(8, send_now(a));		/* all eight, before any answer */
	ASSERT_EQ(8, deliver(a, b));
	ASSERT_EQ(8, send_now(b));		/* an ACK each */
	keep_frame(b, 7);			/* the first seven are lost */
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 8, 0));
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 800));
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
}

TEST_F(wire, a_lost_packet_is_sent_again_with_every_one_after_it)
{
	struct side *a = self->a, *b = self->b;
	uint8_t *dst = b->xe.mem.base + BUF;
	struct xrnic_sqe w;
	unsigned int i;

	ASSERT_EQ(0, slow_timeout(a));
	for (i = 0; i < 6; i++) {
		memset(a->xe.mem.base + BUF + i * 100, 'a' + i, 100);
		post_recv(b, 1, BUF + i * 100, 100);
		w = sqe(XRNIC_WR_SEND, BUF + i * 100, 100, a->lb.key, 0, 0);
		w.wr_id = htole64(i);
		post_send(a, 0, &w);
	}
	ASSERT_EQ(6, send_now(a));
	lose_frame(a, 2);
	/* b takes two, NAKs the gap once, drops the rest; a goes back to it. */
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 6, 0));
	for (i = 0; i < 6; i++) {
		ASSERT_NE(NULL, poll_cq(b));
		EXPECT_EQ('a' + i, dst[i * 100]);
		EXPECT_EQ('a' + i, dst[i * 100 + 99]);
	}
	EXPECT_EQ(NULL, poll_cq(b));
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_SEQ_NAKS_SENT]);
	EXPECT_EQ(4, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
	EXPECT_EQ(0, b->xe.counters[XRNIC_CNT_RX_DUPLICATES]);
}

TEST_F(wire, max_rd_atomic_bounds_the_reads_in_flight_and_a_fence_waits_for_them)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	unsigned int i;

	ASSERT_EQ(0, set_qp(a, b, XRNIC_QP_MAX_QP_RD_ATOMIC, 0, 2));
	fill(b->xe.mem.base + BUF + 40000, 3000, 6);
	for (i = 0; i < 3; i++) {
		w = sqe(XRNIC_WR_RDMA_READ, BUF + i * 1000, 1000, a->lb.key,
			BUF + 40000 + i * 1000, b->lb.key);
		w.wr_id = htole64(i);
		post_send(a, 0, &w);
	}
	ASSERT_EQ(2, send_now(a));		/* two READs; the third waits */
	ASSERT_EQ(2, deliver(a, b));
	ASSERT_EQ(2, send_now(b));
	ASSERT_EQ(2, deliver(b, a));
	ASSERT_EQ(1, send_now(a));		/* the first two are in: the third goes */
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 3, 0));
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 40000, 3000));

	/* A fenced WRITE of what a READ brings waits until it is in. */
	fill(b->xe.mem.base + BUF + 50000, 100, 9);
	w = sqe(XRNIC_WR_RDMA_READ, BUF + 5000, 100, a->lb.key, BUF + 50000, b->lb.key);
	w.wr_id = htole64(3);
	post_send(a, 0, &w);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF + 5000, 100, a->lb.key, BUF + 20000, b->lb.key);
	w.wr_id = htole64(4);
	w.flags |= XRNIC_SQE_FENCE;
	post_send(a, 0, &w);
	ASSERT_EQ(1, send_now(a));
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 2, 3));
	EXPECT_EQ(0, memcmp(b->xe.mem.base + BUF + 20000, b->xe.mem.base + BUF + 50000, 100));
}

TEST_F(wire, a_later_answer_asks_again_at_once_for_a_read_whose_response_was_lost)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;

	ASSERT_EQ(0, slow_timeout(a));
	fill(b->xe.mem.base + BUF + 40000, 1000, 8);
	w = sqe(XRNIC_WR_RDMA_READ, BUF, 1000, a->lb.key, BUF + 40000, b->lb.key);
	w.wr_id = htole64(0);
	post_send(a, 0, &w);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF + 2000, 100, a->lb.key, BUF + 20000, b->lb.key);
	w.wr_id = htole64(1);
	post_send(a, 0, &w);
	ASSERT_EQ(2, send_now(a));
	ASSERT_EQ(2, deliver(a, b));
	ASSERT_EQ(2, send_now(b));		/* the READ response, the WRITE's ACK */
	lose_frame(b, 0);
	/* No timeout passes: the ACK past the READ makes a ask again. */
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 2, 0));
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 40000, 1000));
	EXPECT_EQ(2, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
	EXPECT_EQ(2, b->xe.counters[XRNIC_CNT_RX_DUPLICATES]);
}

TEST_F(wire, an_rnr_nak_crosses_the_wire_and_the_send_goes_again_after_its_timer)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_qp_attr t = {
		.qpn = htole32(a->lb.qpn[0]), .attr_mask = htole32(XRNIC_QP_RNR_RETRY),
		.rnr_retry = 1,
	};
	struct xrnic_qp_attr m = {
		.qpn = htole32(b->lb.qpn[1]), .attr_mask = htole32(XRNIC_QP_MIN_RNR_TIMER),
		.min_rnr_timer = 14,		/* 1.28 ms */
	};
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, xe_lb_admin(&a->xe, &a->lb, XRNIC_ADMIN_MODIFY_QP, &t, NULL));
	ASSERT_EQ(0, xe_lb_admin(&b->xe, &b->lb, XRNIC_ADMIN_MODIFY_QP, &m, NULL));
	fill(a->xe.mem.base + BUF, 300, 5);
	w = sqe(XRNIC_WR_SEND, BUF, 300, a->lb.key, 0, 0);
	post_send(a, 0, &w);
	ASSERT_EQ(1, send_now(a));
	ASSERT_EQ(1, deliver(a, b));
	ASSERT_EQ(1, send_now(b));		/* no receive WQE: the RNR NAK */
	ASSERT_EQ(1, deliver(b, a));
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_RNR_NAKS_SENT]);
	EXPECT_EQ(0, send_now(a));		/* a waits for the RNR timer */
	post_recv(b, 1, BUF + 8192, 300);
	usleep(5000);
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(b));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 8192, 300));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
}

TEST_F(wire, no_more_than_the_psn_window_is_out_unanswered)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	unsigned int i;

	/* Time stands still: however slow this process runs, no ACK times out. */
	a->xe.manual_clock = b->xe.manual_clock = true;
	a->xe.clock_ns = b->xe.clock_ns = 1000000000;
	ASSERT_EQ(0, set_qp(a, b, XRNIC_QP_PATH_MTU, 1, 0));	/* 256 bytes */
	fill(a->xe.mem.base + BUF, 40000, 2);
	for (i = 0; i < 2; i++) {
		/* 157 packets each, 314 in all */
		w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 40000, a->lb.key, BUF + 20000, b->lb.key);
		w.wr_id = htole64(i);
		post_send(a, 0, &w);
	}
	ASSERT_EQ(XE_PSN_WINDOW, send_now(a));
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 2, 0));
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 40000));
	EXPECT_EQ(314, a->xe.counters[XRNIC_CNT_TX_PACKETS]);
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
}

/* Post one WRITE of len bytes from a to b (BUF to BUF + 20000). */
static void post_long_write(struct side *a, struct side *b, uint32_t len)
{
	struct xrnic_sqe w = sqe(XRNIC_WR_RDMA_WRITE, BUF, len, a->lb.key, BUF + 20000,
				 b->lb.key);

	fill(a->xe.mem.base + BUF, len, 6);
	post_send(a, 0, &w);
}

/* a's frames reach b, b's answers reach a; returns what a sends next. */
static unsigned int round_trip(struct side *a, struct side *b)
{
	deliver(a, b);
	send_now(b);
	deliver(b, a);
	return send_now(a);
}

TEST_F(wire, after_an_ack_timeout_the_window_starts_from_one_packet_and_doubles)
{
	struct side *a = self->a, *b = self->b;
	unsigned int n;

	ASSERT_EQ(0, slow_timeout(a));
	ASSERT_EQ(0, set_qp(a, b, XRNIC_QP_PATH_MTU, 1, 0));	/* 256 bytes */
	post_long_write(a, b, 40000);				/* 157 packets */
	ASSERT_EQ(157, send_now(a));
	a->out.n = 0;						/* all lost */
	ASSERT_EQ(0, pass_ack_timeout(a));
	EXPECT_EQ(1, a->out.n);					/* one packet again */
	EXPECT_EQ(XE_CWND_MIN, req_of(a)->cwnd);
	EXPECT_EQ(XE_PSN_WINDOW / 2, req_of(a)->ssthresh);
	EXPECT_EQ(1, req_of(a)->backoff);
	/* Slow start: each answered packet lets two more go. */
	EXPECT_EQ(2, round_trip(a, b));
	EXPECT_EQ(4, round_trip(a, b));
	EXPECT_EQ(8, round_trip(a, b));
	EXPECT_EQ(0, req_of(a)->backoff);
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 1, 0x55));
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 40000));
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_ACK_TIMEOUTS]);
	n = a->xe.counters[XRNIC_CNT_RETRANSMITS];
	EXPECT_EQ(157, n);
}

TEST_F(wire, a_sequence_nak_halves_the_window_and_answers_grow_it_back)
{
	struct side *a = self->a, *b = self->b;

	ASSERT_EQ(0, slow_timeout(a));
	ASSERT_EQ(0, set_qp(a, b, XRNIC_QP_PATH_MTU, 1, 0));
	post_long_write(a, b, 40000);
	ASSERT_EQ(157, send_now(a));
	lose_frame(a, 10);
	deliver(a, b);
	send_now(b);					/* ACKs to 9, one NAK */
	deliver(b, a);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_SEQ_NAKS_RCVD]);
	EXPECT_EQ(XE_PSN_WINDOW / 2, req_of(a)->cwnd);
	EXPECT_EQ(XE_PSN_WINDOW / 2, req_of(a)->ssthresh);
	/* Congestion avoidance from here: one more a window, up to the most. */
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 1, 0x55));
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 40000));
	EXPECT_EQ(XE_PSN_WINDOW / 2 + 1, req_of(a)->cwnd);
}

TEST_F(wire, ack_timeouts_in_a_row_double_the_wait_and_an_answer_ends_the_backoff)
{
	struct side *a = self->a, *b = self->b;
	int64_t base = 4096ll << 14, left;
	int k;

	ASSERT_EQ(0, slow_timeout(a));			/* 67 ms, 3 retries */
	post_long_write(a, b, 6000);
	ASSERT_EQ(2, send_now(a));
	for (k = 1; k <= 2; k++) {
		a->out.n = 0;
		ASSERT_EQ(0, pass_ack_timeout(a));
		EXPECT_EQ(k, req_of(a)->backoff);
		left = req_of(a)->wait_until - xe_now_ns();
		EXPECT_LT(left, base << k);
		EXPECT_GT(left, (base << k) - base / 2);
	}
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 1, 0x55));
	EXPECT_EQ(0, req_of(a)->backoff);
	EXPECT_EQ(2, a->xe.counters[XRNIC_CNT_ACK_TIMEOUTS]);
}

/* Five ACK timeouts with 3 retries: each answer between them gives the retries back. */
TEST_F(wire, answers_between_ack_timeouts_give_the_retries_back)
{
	struct side *a = self->a, *b = self->b;
	int k;

	ASSERT_EQ(0, slow_timeout(a));			/* 67 ms, 3 retries */
	ASSERT_EQ(0, set_qp(a, b, XRNIC_QP_PATH_MTU, 1, 0));
	post_long_write(a, b, 40000);			/* 157 packets */
	ASSERT_EQ(157, send_now(a));
	for (k = 0; k < 5; k++) {
		a->out.n = 0;				/* what is out is lost */
		ASSERT_EQ(0, pass_ack_timeout(a));
		ASSERT_EQ(XRNIC_QPS_RTS, a->xe.qp[XE_QPN_SLOT(a->lb.qpn[0])].state);
		EXPECT_LE(1, round_trip(a, b));		/* answered: progress */
	}
	ASSERT_EQ(0, run(a, b));
	EXPECT_EQ(0, expect_cqes(a, 1, 0x55));
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 40000));
	EXPECT_EQ(5, a->xe.counters[XRNIC_CNT_ACK_TIMEOUTS]);
}

TEST_F(wire, an_ack_timer_does_not_expire_while_frames_wait_on_the_input)
{
	struct side *a = self->a, *b = self->b;
	int i;

	ASSERT_EQ(0, slow_timeout(a));
	post_long_write(a, b, 6000);
	ASSERT_EQ(2, send_now(a));
	a->out.n = 0;
	a->xe.rx_pending = true;
	for (i = 0; i < 100; i++) {		/* past the 67 ms timeout */
		xe_dev_poll(&a->xe);
		usleep(1000);
	}
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_ACK_TIMEOUTS]);
	EXPECT_EQ(0, a->out.n);
	a->xe.rx_pending = false;
	ASSERT_EQ(0, pass_ack_timeout(a));
	EXPECT_EQ(1, a->out.n);
}

/*
 * Pump both devices and the wire until side s has a CQE (returned), or a
 * bound of 20 s of device time passes (NULL): sleeps while only retry
 * timers are pending.
 */
static struct xrnic_cqe *wait_cqe(struct side *s, struct side *a, struct side *b)
{
	struct xrnic_cqe *c;
	int64_t na, nb, nap;
	int i;

	for (i = 0; i < 20000; i++) {
		if ((c = poll_cq(s)))
			return c;
		xe_doorbell(&a->xe, 1);
		xe_doorbell(&b->xe, 1);
		while ((na = xe_dev_poll(&a->xe)) == 0 || (nb = xe_dev_poll(&b->xe)) == 0)
			;
		if (deliver(a, b) < 0 || deliver(b, a) < 0)
			return NULL;
		nap = na > 0 && (nb < 0 || na < nb) ? na : nb;
		if (nap > 0 && !a->out.n && !b->out.n)
			usleep(nap / 1000 > 1000 ? 1000 : nap / 1000 + 1);
	}
	return NULL;
}

TEST_F(wire, sends_in_flight_together_arrive_exactly_once_and_in_order_through_faults)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_qp_attr t = {
		.attr_mask = htole32(XRNIC_QP_TIMEOUT | XRNIC_QP_RETRY_CNT),
		.timeout = 8, .retry_cnt = 7,		/* 1 ms, 7 retries */
	};
	uint8_t *src = a->xe.mem.base + BUF, *dst = b->xe.mem.base + BUF;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	uint32_t k, j, seq;

	ASSERT_EQ(0, xe_faults_parse(&a->xe.faults, "drop=5,dup=2,reorder=2,corrupt=1,seed=7"));
	ASSERT_EQ(0, xe_faults_parse(&b->xe.faults, "drop=5,dup=2,reorder=2,corrupt=1,seed=8"));
	t.qpn = htole32(a->lb.qpn[0]);
	ASSERT_EQ(0, xe_lb_admin(&a->xe, &a->lb, XRNIC_ADMIN_MODIFY_QP, &t, NULL));
	/* 40 times 8 SENDs in flight together. */
	for (k = 0; k < 40; k++) {
		for (j = 0; j < 8; j++) {
			/* 5000 bytes: two packets, the sequence number in every byte. */
			memset(src + j * 5000, (uint8_t)(k * 8 + j), 5000);
			post_recv(b, 1, BUF + j * 6000, 6000);
			w = sqe(XRNIC_WR_SEND, BUF + j * 5000, 5000, a->lb.key, 0, 0);
			post_send(a, 0, &w);
		}
		for (j = 0; j < 8; j++) {
			seq = k * 8 + j;
			ASSERT_NE(NULL, c = wait_cqe(b, a, b)) TH_LOG("SEND %u never arrived", seq);
			EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
			EXPECT_EQ(5000, le32toh(c->byte_len));
			EXPECT_EQ((uint8_t)seq, dst[j * 6000]);
			EXPECT_EQ((uint8_t)seq, dst[j * 6000 + 4999]);
		}
		for (j = 0; j < 8; j++) {
			ASSERT_NE(NULL, c = wait_cqe(a, a, b)) TH_LOG("SEND %u not completed", k * 8 + j);
			ASSERT_EQ(XRNIC_WC_SUCCESS, c->status) TH_LOG("SEND %u", k * 8 + j);
		}
		/* Exactly once: nothing more arrived. */
		ASSERT_EQ(NULL, poll_cq(b)) TH_LOG("a SEND of batch %u arrived twice", k);
	}
	EXPECT_LT(0, a->xe.counters[XRNIC_CNT_INJECTED_DROPS] + b->xe.counters[XRNIC_CNT_INJECTED_DROPS]);
	EXPECT_LT(0, a->xe.counters[XRNIC_CNT_INJECTED_DUPS]);
	EXPECT_LT(0, a->xe.counters[XRNIC_CNT_INJECTED_REORDERS]);
	EXPECT_LT(0, a->xe.counters[XRNIC_CNT_INJECTED_CORRUPTS]);
	/* Most corrupted frames fail the ICRC; one hit in its IP header fails before. */
	EXPECT_LT(0, b->xe.counters[XRNIC_CNT_RX_ICRC_ERRORS]);
	EXPECT_GE(a->xe.counters[XRNIC_CNT_INJECTED_CORRUPTS],
		  b->xe.counters[XRNIC_CNT_RX_ICRC_ERRORS]);
	EXPECT_LT(0, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
}

/* A UD QP in ring slot 2 of s, in RTS with Q_Key 0x1111; 0 or the status. */
static uint8_t ud_qp(struct side *s, uint32_t *qpn)
{
	uint8_t st = xe_lb_create_qp(&s->xe, &s->lb, 2, XRNIC_QPT_UD, 0, qpn);

	return st ? st : xe_lb_ud_rts(&s->xe, &s->lb, *qpn, 0x1111);
}

/*
 * UD through a wire that drops, duplicates, reorders and corrupts: lost
 * datagrams are lost (nothing is sent again), and every one delivered is
 * whole, after the GRH of its IP header.
 */
TEST_F(wire, datagrams_through_faults_are_lost_or_whole_never_corrupted)
{
	struct side *a = self->a, *b = self->b;
	uint8_t *src = a->xe.mem.base + BUF, *dst = b->xe.mem.base + BUF, *d;
	unsigned int k, j, i, got = 0;
	uint32_t qa, qb, n;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	ASSERT_EQ(0, ud_qp(a, &qa));
	ASSERT_EQ(0, ud_qp(b, &qb));
	ASSERT_EQ(0, xe_faults_parse(&a->xe.faults, "drop=5,dup=2,reorder=2,corrupt=2,seed=3"));
	for (k = 0; k < 20; k++) {
		for (j = 0; j < 8; j++) {
			post_recv(b, 2, BUF + j * 2048, 2048);
			memset(src + j * 1000, (uint8_t)(k * 8 + j), 1000);
			w = (struct xrnic_sqe){
				.wr_id = htole64(k * 8 + j), .opcode = XRNIC_WR_SEND,
				.num_sge = 1, .dest_qpn = htole32(qb), .qkey = htole32(0x1111),
			};
			memcpy(w.ud.av.dgid, b->xe.gid[1].gid, 16);
			memcpy(w.ud.av.dmac, b->xe.id.mac, 6);
			w.ud.av.sgid_index = 1;
			w.ud.av.hop_limit = 64;
			w.ud.sge[0] = (struct xrnic_sge){ htole64(BUF + j * 1000), htole32(1000),
							  htole32(a->lb.key) };
			post_send(a, 2, &w);
		}
		ASSERT_EQ(0, run(a, b));
		/* The batch's datagrams land in its receive WQEs in order. */
		for (i = 0; (c = poll_cq(b)); i++) {
			ASSERT_EQ(XRNIC_WC_SUCCESS, c->status);
			ASSERT_EQ(XRNIC_GRH_LEN + 1000, le32toh(c->byte_len));
			EXPECT_EQ(qa, le32toh(c->src_qp));
			d = dst + i * 2048 + XRNIC_GRH_LEN;
			/* This batch's or, held back by a reorder, the last one's. */
			ASSERT_GE(k * 8 + 7, d[0]);
			ASSERT_LE(k * 8 > 8 ? k * 8 - 8 : 0, d[0]);
			for (n = 1; n < 1000; n++)
				ASSERT_EQ(d[0], d[n]) TH_LOG("datagram %u corrupted at %u", d[0], n);
			got++;
		}
		/* Whatever is left posted is taken again by the next batch. */
		((struct xrnic_qp_db *)(b->xe.mem.base + XE_LB_QP_DB(2)))->rq_pi =
			((struct xrnic_qp_db *)(b->xe.mem.base + XE_LB_QP_DB(2)))->rq_ci;
	}
	/* The sender completed nothing in error and sent nothing again. */
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
	EXPECT_LT(0, a->xe.counters[XRNIC_CNT_INJECTED_DROPS]);
	EXPECT_LT(0, a->xe.counters[XRNIC_CNT_INJECTED_CORRUPTS]);
	EXPECT_LT(0, b->xe.counters[XRNIC_CNT_RX_ICRC_ERRORS]);
	EXPECT_GT(160 + a->xe.counters[XRNIC_CNT_INJECTED_DUPS], got);
	EXPECT_LT(100, got);
}

/* Attach (or detach) QP qpn of s to the group of gid; the status. */
static uint8_t mcast(struct side *s, uint8_t opcode, uint32_t qpn, const uint8_t *gid)
{
	struct xrnic_cmd_mcast m = { .qpn = htole32(qpn) };

	memcpy(m.gid, gid, 16);
	return xe_lb_admin(&s->xe, &s->lb, opcode, &m, NULL);
}

static uint8_t destroy_qp(struct side *s, uint32_t qpn)
{
	struct xrnic_cmd_qp d = { .qpn = htole32(qpn) };

	return xe_lb_admin(&s->xe, &s->lb, XRNIC_ADMIN_DESTROY_QP, &d, NULL);
}

/* A datagram of 100 bytes at BUF from a's UD QP (slot 2) to group gid. */
static void mcast_send(struct side *a, const uint8_t *gid, bool v6)
{
	static const uint8_t mac4[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	static const uint8_t mac6[6] = { 0x33, 0x33, 0x00, 0x01, 0x00, 0x03 };
	struct xrnic_sqe w = {
		.opcode = XRNIC_WR_SEND, .flags = XRNIC_SQE_SIGNALED, .num_sge = 1,
		.dest_qpn = htole32(XRNIC_MCAST_QPN), .qkey = htole32(0x1111),
	};

	memcpy(w.ud.av.dgid, gid, 16);
	memcpy(w.ud.av.dmac, v6 ? mac6 : mac4, 6);
	w.ud.av.sgid_index = 1;
	w.ud.av.hop_limit = 1;
	w.ud.sge[0] = (struct xrnic_sge){ htole64(BUF), htole32(100), htole32(a->lb.key) };
	post_send(a, 2, &w);
}

/*
 * Multicast: a datagram to a group's GID and QPN 0xffffff reaches every
 * QP attached to the group once; a group nobody joined is not taken; the
 * table's rules hold.
 */
TEST_F(wire, a_multicast_datagram_reaches_every_qp_attached_to_its_group)
{
	static const uint8_t g4[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 2, 3 };
	static const uint8_t g6[16] = { 0xff, 0x0e, [13] = 1, [15] = 3 };
	const uint8_t *g = variant->v6 ? g6 : g4;
	struct side *a = self->a, *b = self->b;
	uint8_t *dst = b->xe.mem.base + BUF, other[16];
	uint32_t qa, qb, qc, seen = 0;
	struct xrnic_cqe *c;
	uint64_t rx;

	ASSERT_EQ(0, ud_qp(a, &qa));
	ASSERT_EQ(0, ud_qp(b, &qb));
	ASSERT_EQ(0, xe_lb_create_qp(&b->xe, &b->lb, 3, XRNIC_QPT_UD, 0, &qc));
	ASSERT_EQ(0, xe_lb_ud_rts(&b->xe, &b->lb, qc, 0x1111));
	ASSERT_EQ(0, mcast(b, XRNIC_ADMIN_ATTACH_MCAST, qb, g));
	ASSERT_EQ(0, mcast(b, XRNIC_ADMIN_ATTACH_MCAST, qc, g));
	/* The rules: twice, a unicast GID, an RC QP, one not attached, destroy. */
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, mcast(b, XRNIC_ADMIN_ATTACH_MCAST, qb, g));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, mcast(b, XRNIC_ADMIN_ATTACH_MCAST, qb, b->xe.gid[1].gid));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, mcast(b, XRNIC_ADMIN_ATTACH_MCAST, b->lb.qpn[1], g));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, mcast(b, XRNIC_ADMIN_ATTACH_MCAST, 0x777777, g));
	memcpy(other, g, 16);
	other[15]++;
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, mcast(b, XRNIC_ADMIN_DETACH_MCAST, qb, other));
	EXPECT_EQ(XRNIC_STATUS_BUSY, destroy_qp(b, qb));

	fill(a->xe.mem.base + BUF, 100, 9);
	post_recv(b, 2, BUF, 2048);
	post_recv(b, 3, BUF + 2048, 2048);
	mcast_send(a, g, variant->v6);
	ASSERT_EQ(0, run(a, b));
	c = poll_cq(a);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	while ((c = poll_cq(b))) {
		EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
		EXPECT_EQ(XRNIC_GRH_LEN + 100, le32toh(c->byte_len));
		EXPECT_EQ(qa, le32toh(c->src_qp));
		seen |= le32toh(c->qpn) == qb ? 1 : le32toh(c->qpn) == qc ? 2 : 4;
	}
	EXPECT_EQ(3, seen);
	EXPECT_EQ(0, memcmp(dst + XRNIC_GRH_LEN, a->xe.mem.base + BUF, 100));
	EXPECT_EQ(0, memcmp(dst + 2048 + XRNIC_GRH_LEN, a->xe.mem.base + BUF, 100));
	/* The GRH names the group: the IPv6 destination, or the IPv4 one. */
	EXPECT_EQ(0, variant->v6 ? memcmp(dst + 24, g, 16) : memcmp(dst + 36, g + 12, 4));

	/* One left in the group: one copy. */
	ASSERT_EQ(0, mcast(b, XRNIC_ADMIN_DETACH_MCAST, qc, g));
	post_recv(b, 2, BUF, 2048);
	post_recv(b, 3, BUF + 2048, 2048);
	mcast_send(a, g, variant->v6);
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, poll_cq(a));
	c = poll_cq(b);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(qb, le32toh(c->qpn));
	EXPECT_EQ(NULL, poll_cq(b));

	/* Nobody left: the group's frames are not the device's to take. */
	ASSERT_EQ(0, mcast(b, XRNIC_ADMIN_DETACH_MCAST, qb, g));
	rx = b->xe.counters[XRNIC_CNT_RX_PACKETS];
	mcast_send(a, g, variant->v6);
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, poll_cq(a));
	EXPECT_EQ(NULL, poll_cq(b));
	EXPECT_EQ(rx, b->xe.counters[XRNIC_CNT_RX_PACKETS]);
	EXPECT_EQ(0, destroy_qp(b, qb));
}

/* The DSCP of an IP header (its TOS or traffic class without ECN). */
static uint8_t ip_dscp(const struct xe_roce_frame *rf)
{
	const uint8_t *ip = rf->ip;

	return (rf->ip_len == XE_IPV4_HLEN ? ip[1] : (ip[0] << 4 | ip[1] >> 4)) >> 2 & 0x3f;
}

/*
 * The frames s put on the wire that are not RoCE v2 with ECN ecn and DSCP
 * dscp (-1: any), or -1 if none is RoCE v2 at all.
 */
static int frames_not(const struct side *s, uint8_t ecn, int dscp)
{
	struct xe_roce_frame rf;
	unsigned int i;
	int bad = 0;

	if (!s->out.n)
		return -1;
	for (i = 0; i < s->out.n; i++)
		bad += xe_frame_parse(s->out.frame[i], s->out.len[i], &rf) != 1 ||
		       xe_ip_ecn(rf.ip, rf.ip_len) != ecn || (dscp >= 0 && ip_dscp(&rf) != dscp);
	return bad;
}

/* Poll s until it rests; its last answer (the wait until its next timer). */
static int64_t settle(struct side *s)
{
	int64_t r;

	while ((r = xe_dev_poll(&s->xe)) == 0)
		;
	return r;
}

TEST_F(wire, every_roce_frame_leaves_ect0_with_the_dscp_of_its_path)
{
	struct side *a = self->a, *b = self->b;
	struct xe_qp *qa = &a->xe.qp[XE_QPN_SLOT(a->lb.qpn[0])];
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	/* DSCP 26; the ECN bits of the traffic class are the port's to set. */
	qa->attr.traffic_class = 26 << 2 | XE_ECN_CE;
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 10000, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	settle(a);
	EXPECT_EQ(0, frames_not(a, XE_ECN_ECT0, 26));
	ASSERT_EQ(3, deliver(a, b));
	settle(b);
	EXPECT_EQ(0, frames_not(b, XE_ECN_ECT0, 0));	/* the ACK */
	ASSERT_EQ(0, run(a, b));
	w = sqe(XRNIC_WR_RDMA_READ, BUF, 5000, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	settle(a);
	EXPECT_EQ(0, frames_not(a, XE_ECN_ECT0, 26));
	ASSERT_EQ(1, deliver(a, b));
	settle(b);
	EXPECT_EQ(0, frames_not(b, XE_ECN_ECT0, 0));	/* the READ responses */
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
}

TEST_F(wire, a_frame_marked_ce_by_a_switch_keeps_its_icrc_and_ip_checksum)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	struct xe_roce_frame rf;
	struct xe_path path = { .traffic_class = 48 << 2, .not_ect = true };
	uint8_t f[128], before[128];
	size_t n;

	fill(a->xe.mem.base + BUF, 100, 7);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 100, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	settle(a);
	ASSERT_EQ(1, a->out.n);
	EXPECT_TRUE(xe_frame_mark_ce(a->out.frame[0], a->out.len[0]));
	ASSERT_EQ(1, xe_frame_parse(a->out.frame[0], a->out.len[0], &rf));
	EXPECT_EQ(XE_ECN_CE, xe_ip_ecn(rf.ip, rf.ip_len));
	EXPECT_EQ(0, ip_dscp(&rf));
	/* Once CE it stays as it is. */
	EXPECT_FALSE(xe_frame_mark_ce(a->out.frame[0], a->out.len[0]));
	/* The peer takes it: the WRITE lands and is answered. */
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, poll_cq(a));
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 100));
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]);
	EXPECT_EQ(0, b->xe.counters[XRNIC_CNT_RX_DROPPED]);

	/* A frame that is not ECN-capable (a CNP) is never marked. */
	memcpy(path.dgid, a->xe.qp[XE_QPN_SLOT(a->lb.qpn[0])].attr.dgid, 16);
	memcpy(path.sgid, a->xe.qp[XE_QPN_SLOT(a->lb.qpn[0])].attr.sgid, 16);
	n = xe_frame_outer(f, &path, 28, 1);
	memset(f + n, 0, 28);
	f[n] = XE_OP_CNP;
	n += 28 + XE_ICRC_LEN;
	xe_frame_seal(f, n);
	memcpy(before, f, n);
	EXPECT_FALSE(xe_frame_mark_ce(f, n));
	EXPECT_EQ(0, memcmp(before, f, n));
	ASSERT_EQ(1, xe_frame_parse(f, n, &rf));
	EXPECT_EQ(XE_ECN_NOT_ECT, xe_ip_ecn(rf.ip, rf.ip_len));
	EXPECT_EQ(48, ip_dscp(&rf));
}

/* CRC-32 of IEEE 802.3 bit by bit: the test's own, not ISA-L's. */
static uint32_t crc32_bits(uint32_t crc, const uint8_t *p, size_t n)
{
	unsigned int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (crc & 1 ? 0xedb88320 : 0);
	}
	return crc;
}

/*
 * The ICRC of every length of packet, the short ones (an ACK, an 8-byte
 * WRITE: sent to the CRC with their headers) and the long ones, over IPv4
 * and IPv6: the CRC of 8 bytes of ones, the IP and UDP headers with their
 * variant fields set to ones, the BTH with its reserved byte set to ones,
 * and the rest, as IBTA's RoCE v2 annex says; and the frame parses.
 */
TEST(every_packet_length_gets_the_icrc_of_its_masked_bytes)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct xe_path path = { .hop_limit = 64, .traffic_class = 0x68, .flow_label = 0x12345,
				.sport = 0xc001 };
	uint8_t f[XE_FRAME_MAX_OUTER + 300 + XE_ICRC_LEN], m[XE_IPV6_HLEN + XE_UDP_HLEN + 12];
	unsigned int v6, bad = 0, parsed = 0;
	struct xe_roce_frame rf;
	size_t len, n, i, ip_len;
	const size_t bth_len = sizeof(struct xe_bth);
	uint8_t *ip, *icrc;
	uint32_t crc;

	for (v6 = 0; v6 < 2; v6++) {
		memset(path.sgid, 0, 16);
		memset(path.dgid, 0, 16);
		if (v6) {
			path.sgid[0] = path.dgid[0] = 0xfe;
			path.sgid[15] = 1;
			path.dgid[15] = 2;
		} else {
			path.sgid[10] = path.sgid[11] = path.dgid[10] = path.dgid[11] = 0xff;
			path.sgid[12] = path.dgid[12] = 10;
			path.sgid[15] = 1;
			path.dgid[15] = 2;
		}
		ip_len = v6 ? XE_IPV6_HLEN : XE_IPV4_HLEN;
		for (len = bth_len; len <= 300; len++) {
			n = xe_frame_outer(f, &path, len, 7);
			for (i = 0; i < len; i++)
				f[n + i] = i * 7 + len;
			xe_frame_seal(f, n + len + XE_ICRC_LEN);
			ip = f + XE_ETH_HLEN;
			memcpy(m, ip, ip_len + XE_UDP_HLEN + bth_len);
			if (v6) {
				m[0] |= 0x0f;
				m[1] = m[2] = m[3] = m[7] = 0xff;
			} else {
				m[1] = m[8] = m[10] = m[11] = 0xff;
			}
			m[ip_len + 6] = m[ip_len + 7] = 0xff;
			m[ip_len + XE_UDP_HLEN + 4] = 0xff;
			crc = crc32_bits(0xffffffff, ones, sizeof(ones));
			crc = crc32_bits(crc, m, ip_len + XE_UDP_HLEN + bth_len);
			crc = ~crc32_bits(crc, f + n + bth_len, len - bth_len);
			icrc = f + n + len;
			bad += crc != ((uint32_t)icrc[0] | icrc[1] << 8 | icrc[2] << 16 |
				       (uint32_t)icrc[3] << 24);
			parsed += xe_frame_parse(f, n + len + XE_ICRC_LEN, &rf) == 1;
		}
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(2 * (300 - bth_len + 1), parsed);
}

/*
 * A frame in the sender's ring is parsed from a copy of its head, and its
 * ICRC is checked over that copy: a byte the sender changes in its ring
 * after the copy is not what the receiver checks, and a head that is not
 * the frame's as it was sealed fails the check.
 */
TEST(the_icrc_covers_the_head_as_it_was_parsed)
{
	struct xe_path path = { .hop_limit = 64, .sport = 0xc001 };
	uint8_t f[XE_FRAME_MAX_OUTER + 300 + XE_ICRC_LEN], head[XE_FRAME_HEAD];
	struct xe_roce_frame rf;
	size_t n, i, len = 300;

	path.sgid[10] = path.sgid[11] = path.dgid[10] = path.dgid[11] = 0xff;
	path.sgid[12] = path.dgid[12] = 10;
	path.sgid[15] = 1;
	path.dgid[15] = 2;
	n = xe_frame_outer(f, &path, len, 7);
	for (i = 0; i < len; i++)
		f[n + i] = i;
	n += len + XE_ICRC_LEN;
	xe_frame_seal(f, n);
	memcpy(head, f, sizeof(head));
	ASSERT_EQ(1, xe_frame_parse_head(head, f, n, &rf));

	/* The sender rewrites a header byte in its ring after the copy. */
	f[sizeof(head) - 1] ^= 0x40;
	EXPECT_EQ(1, xe_frame_parse_head(head, f, n, &rf));
	EXPECT_EQ(-2, xe_frame_parse(f, n, &rf));
	f[sizeof(head) - 1] ^= 0x40;

	/* A head that differs from the sealed frame is a bad ICRC. */
	head[sizeof(head) - 1] ^= 0x40;
	EXPECT_EQ(-2, xe_frame_parse_head(head, f, n, &rf));
	/* And a payload byte past the head too. */
	head[sizeof(head) - 1] ^= 0x40;
	f[sizeof(head) + 10] ^= 1;
	EXPECT_EQ(-2, xe_frame_parse_head(head, f, n, &rf));
}

/* Count the CNPs among the frames s put on the wire; -1 if one is malformed. */
static int cnps(const struct side *s, uint32_t dest_qpn)
{
	static const uint8_t zeros[16];
	struct xe_roce_frame rf;
	unsigned int i;
	int n = 0;

	for (i = 0; i < s->out.n; i++) {
		if (xe_frame_parse(s->out.frame[i], s->out.len[i], &rf) != 1)
			return -1;
		if (rf.bth[0] != XE_OP_CNP)
			continue;
		/* BTH: no flags, P_Key, DestQP, PSN 0; 16 zero bytes; the ICRC. */
		if (rf.len != 28 || rf.bth[1] || rf.bth[2] != 0xff || rf.bth[3] != 0xff ||
		    rf.bth[4] || (uint32_t)(rf.bth[5] << 16 | rf.bth[6] << 8 | rf.bth[7]) != dest_qpn ||
		    !xe_all_zero(rf.bth + 8, 4) || memcmp(rf.bth + 12, zeros, 16) ||
		    xe_ip_ecn(rf.ip, rf.ip_len) != XE_ECN_NOT_ECT || ip_dscp(&rf) != 48)
			return -1;
		n++;
	}
	return n;
}

/* Mark CE on every frame s put on the wire. */
static void mark_all(struct side *s)
{
	unsigned int i;

	for (i = 0; i < s->out.n; i++)
		xe_frame_mark_ce(s->out.frame[i], s->out.len[i]);
}

/* Both devices on the manual clock of congestion control, at 1 s. */
static void manual_clocks(struct side *a, struct side *b)
{
	a->xe.manual_clock = b->xe.manual_clock = true;
	a->xe.clock_ns = b->xe.clock_ns = 1000000000;
}

TEST_F(wire, ce_marked_packets_get_one_cnp_per_interval_and_leave_the_psns_alone)
{
	struct side *a = self->a, *b = self->b;
	struct xe_qp *qb = &b->xe.qp[XE_QPN_SLOT(b->lb.qpn[1])];
	uint32_t rq_psn = qb->attr.rq_psn;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	manual_clocks(a, b);
	a->xe.cc.rp_enable = false;		/* a keeps its pace: b's CNPs are the point */
	fill(a->xe.mem.base + BUF, 3 * 4096, 9);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 3 * 4096, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	settle(a);
	ASSERT_EQ(3, a->out.n);
	mark_all(a);
	ASSERT_EQ(3, deliver(a, b));
	settle(b);
	/* Three marked packets within 4 us: one CNP to a's QP, and the ACK. */
	EXPECT_EQ(3, b->xe.counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]);
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_NP_CNP_SENT]);
	EXPECT_EQ(1, cnps(b, a->lb.qpn[0]));
	EXPECT_EQ(2, b->out.n);
	/* The CNP took no PSN and changed nothing of the responder. */
	EXPECT_EQ(rq_psn + 3, qb->attr.rq_psn);
	EXPECT_EQ(1, qb->resp.msn);
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 3 * 4096));
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RX_DROPPED]);
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RP_CNP_IGNORED]);

	/* 4 us later the next marked packet gets the next CNP. */
	b->xe.clock_ns += 3999;
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 100, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	settle(a);
	mark_all(a);
	ASSERT_EQ(1, deliver(a, b));
	settle(b);
	EXPECT_EQ(0, cnps(b, a->lb.qpn[0]));
	ASSERT_EQ(0, run(a, b));
	b->xe.clock_ns += 1;
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	settle(a);
	mark_all(a);
	ASSERT_EQ(1, deliver(a, b));
	settle(b);
	EXPECT_EQ(1, cnps(b, a->lb.qpn[0]));
	EXPECT_EQ(5, b->xe.counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]);
	EXPECT_EQ(2, b->xe.counters[XRNIC_CNT_NP_CNP_SENT]);
	/* Unmarked packets get none. */
	ASSERT_EQ(0, run(a, b));
	b->xe.clock_ns += 1000000;
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	settle(a);
	ASSERT_EQ(1, deliver(a, b));
	settle(b);
	EXPECT_EQ(0, cnps(b, a->lb.qpn[0]));
	EXPECT_EQ(2, b->xe.counters[XRNIC_CNT_NP_CNP_SENT]);
}

TEST_F(wire, a_cnp_cuts_the_senders_rate_once_per_monitor_period)
{
	struct side *a = self->a, *b = self->b;
	struct xe_qp *qa = &a->xe.qp[XE_QPN_SLOT(a->lb.qpn[0])];
	struct xe_qp *qb = &b->xe.qp[XE_QPN_SLOT(b->lb.qpn[1])];
	uint8_t cnp[XE_FRAME_MAX_OUTER + 28 + XE_ICRC_LEN];
	size_t n;

	manual_clocks(a, b);
	EXPECT_EQ(0, qa->rp.rc);			/* not limited */
	/* b's QP says CE came: its CNP reaches a's QP. */
	xe_cc_ce_rcv(&b->xe, qb, NULL);
	ASSERT_EQ(1, cnps(b, a->lb.qpn[0]));
	n = b->out.len[0];
	memcpy(cnp, b->out.frame[0], n);
	ASSERT_EQ(1, deliver(b, a));
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RP_CNP_HANDLED]);
	EXPECT_EQ(XE_CC_LINE_RATE * (2048 - 1023) / 2048, qa->rp.rc);
	EXPECT_EQ(XE_CC_LINE_RATE, qa->rp.rt);
	/* The same CNP within 4 us changes nothing; after them it cuts again. */
	a->xe.clock_ns += 3999;
	xe_port_receive(&a->xe, cnp, n);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RP_CNP_IGNORED]);
	EXPECT_EQ(XE_CC_LINE_RATE * (2048 - 1023) / 2048, qa->rp.rc);
	a->xe.clock_ns += 1;
	xe_port_receive(&a->xe, cnp, n);
	EXPECT_EQ(2, a->xe.counters[XRNIC_CNT_RP_CNP_HANDLED]);
	EXPECT_GT(XE_CC_LINE_RATE / 2, qa->rp.rc);
	/* A CNP for no QP is ignored (and not dropped as a packet). */
	cnp[XE_FRAME_MAX_OUTER - (variant->v6 ? 0 : 20) + 5] ^= 0x80;
	xe_frame_seal(cnp, n);
	xe_port_receive(&a->xe, cnp, n);
	EXPECT_EQ(2, a->xe.counters[XRNIC_CNT_RP_CNP_IGNORED]);
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RX_DROPPED]);
	EXPECT_EQ(2, a->xe.counters[XRNIC_CNT_RP_CNP_HANDLED]);
}

/* Post a datagram of 1000 bytes at BUF from s's UD QP (slot 2) to QP qpn of to. */
static void ud_post_on(struct side *s, int slot, const struct side *to, uint32_t qpn,
		       uint32_t qkey)
{
	struct xrnic_sqe w = {
		.opcode = XRNIC_WR_SEND, .num_sge = 1, .dest_qpn = htole32(qpn),
		.qkey = htole32(qkey),
	};

	memcpy(w.ud.av.dgid, to->xe.gid[1].gid, 16);
	memcpy(w.ud.av.dmac, to->xe.id.mac, 6);
	w.ud.av.sgid_index = 1;
	w.ud.av.hop_limit = 64;
	w.ud.sge[0] = (struct xrnic_sge){ htole64(BUF), htole32(1000), htole32(s->lb.key) };
	post_send(s, slot, &w);
}

/* A datagram of 1000 bytes from the UD QP on slot 2 to QP qpn of to. */
static void ud_post(struct side *s, const struct side *to, uint32_t qpn)
{
	ud_post_on(s, 2, to, qpn, 0x1111);
}

/*
 * A UD QP's CE-marked datagrams get a CNP (one per interval) to the DETH's
 * source QP, back the way the frame came; the CNP cuts that QP's rate, and
 * its next datagrams leave at it.
 */
TEST_F(wire, a_ce_marked_datagram_gets_a_cnp_to_its_source_qp_which_slows_down)
{
	struct side *a = self->a, *b = self->b;
	struct xe_roce_frame rf;
	struct xe_qp *qpa;
	uint32_t qa, qb;
	int64_t due;
	int k;

	manual_clocks(a, b);
	ASSERT_EQ(0, ud_qp(a, &qa));
	ASSERT_EQ(0, ud_qp(b, &qb));
	qpa = &a->xe.qp[XE_QPN_SLOT(qa)];
	for (k = 0; k < 2; k++) {
		post_recv(b, 2, BUF + k * 2048, 2048);
		ud_post(a, b, qb);
	}
	xe_doorbell(&a->xe, 1);
	settle(a);
	ASSERT_EQ(2, a->out.n);
	mark_all(a);
	ASSERT_EQ(2, deliver(a, b));
	settle(b);
	EXPECT_EQ(2, b->xe.counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]);
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_NP_CNP_SENT]);
	ASSERT_EQ(1, b->out.n);
	ASSERT_EQ(1, cnps(b, qa));
	ASSERT_EQ(1, xe_frame_parse(b->out.frame[0], b->out.len[0], &rf));
	EXPECT_EQ(0, memcmp(b->out.frame[0], a->xe.id.mac, 6));
	EXPECT_EQ(0, memcmp(rf.dgid, a->xe.gid[1].gid, 16));
	EXPECT_EQ(0, memcmp(rf.sgid, b->xe.gid[1].gid, 16));
	/* Both datagrams were received all the same. */
	for (k = 0; k < 2; k++)
		ASSERT_NE(NULL, poll_cq(b));
	ASSERT_EQ(1, deliver(b, a));
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RP_CNP_HANDLED]);
	EXPECT_EQ(XE_CC_LINE_RATE * (2048 - 1023) / 2048, qpa->rp.rc);
	/* Limited: of two datagrams one leaves, the next when its time has come. */
	for (k = 0; k < 2; k++)
		ud_post(a, b, qb);
	xe_doorbell(&a->xe, 1);
	due = settle(a);
	ASSERT_EQ(1, a->out.n);
	EXPECT_EQ((int64_t)a->out.len[0] * 8000 / qpa->rp.rc, due);
	a->xe.clock_ns += due - 1;
	EXPECT_EQ(1, settle(a));
	EXPECT_EQ(1, a->out.n);
	a->xe.clock_ns += 1;
	settle(a);
	EXPECT_EQ(2, a->out.n);
}

/* A GSI QP (QP 1) on slot 3, in RTS. */
static uint8_t gsi_qp(struct side *s)
{
	uint32_t qpn;
	uint8_t st = xe_lb_create_qp(&s->xe, &s->lb, 3, XRNIC_QPT_GSI, 0, &qpn);

	return st ? st : xe_lb_ud_rts(&s->xe, &s->lb, qpn, XRNIC_GSI_QKEY);
}

/*
 * MADs are left out of congestion control both ways, as mlx5 leaves QP 1:
 * a CE-marked MAD gets no CNP, and a CNP to QP 1 cuts nothing.
 */
TEST_F(wire, the_gsi_qp_neither_sends_cnps_nor_heeds_them)
{
	struct side *a = self->a, *b = self->b;
	struct xe_qp *gsi;

	manual_clocks(a, b);
	ASSERT_EQ(0, gsi_qp(a));
	ASSERT_EQ(0, gsi_qp(b));
	post_recv(b, 3, BUF, 2048);
	ud_post_on(a, 3, b, XRNIC_GSI_QPN, XRNIC_GSI_QKEY);
	xe_doorbell(&a->xe, 1);
	settle(a);
	ASSERT_EQ(1, a->out.n);
	mark_all(a);
	ASSERT_EQ(1, deliver(a, b));
	settle(b);
	EXPECT_EQ(1, b->xe.counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]);
	EXPECT_EQ(0, b->xe.counters[XRNIC_CNT_NP_CNP_SENT]);
	EXPECT_EQ(0, b->out.n);
	ASSERT_NE(NULL, poll_cq(b));
	/* A CNP to QP 1 is counted as ignored and leaves its rate alone. */
	gsi = xe_qp_get(&a->xe, XRNIC_GSI_QPN);
	ASSERT_NE(NULL, gsi);
	xe_cc_cnp_rcv(&a->xe, gsi);
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RP_CNP_HANDLED]);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RP_CNP_IGNORED]);
	EXPECT_EQ(0, gsi->rp.rc);
}

TEST_F(wire, a_limited_qps_packets_leave_spaced_by_their_bytes_at_its_rate)
{
	struct side *a = self->a, *b = self->b;
	struct xe_qp *qa = &a->xe.qp[XE_QPN_SLOT(a->lb.qpn[0])];
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	int64_t wait, due;
	unsigned int i;

	manual_clocks(a, b);
	ASSERT_TRUE(xe_cc_rp_cnp(&a->xe.cc, &qa->rp, a->xe.clock_ns));
	ASSERT_NE(0, qa->rp.rc);
	fill(a->xe.mem.base + BUF, 4 * 4096, 3);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 4 * 4096, a->lb.key, BUF + 20000, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	for (i = 1; i <= 4; i++) {
		/* One packet out; the device sleeps until the next may go. */
		wait = settle(a);
		ASSERT_EQ(i, a->out.n);
		due = (int64_t)a->out.len[i - 1] * 8000 / qa->rp.rc;
		if (i == 4)
			break;
		EXPECT_EQ(due, wait);
		a->xe.clock_ns += due - 1;
		EXPECT_EQ(1, settle(a));
		EXPECT_EQ(i, a->out.n);
		a->xe.clock_ns += 1;
	}
	/* Each asked an ACK (the pace is no loss); all arrive whole. */
	ASSERT_EQ(4, deliver(a, b));
	settle(b);
	EXPECT_EQ(4, b->out.n);
	ASSERT_EQ(0, run(a, b));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 4 * 4096));
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RETRANSMITS]);
}

/*
 * Two devices as two device models on one host: each one's wire is a
 * struct xe_tap (tap.c) on a switch of the test's own, whose "tap" is one
 * end of a datagram socket pair; the other end (seg) is the segment.
 */
FIXTURE(switched) {
	struct side *a, *b;
	struct xe_tap ta, tb;
	int seg_a, seg_b;
};

static int switched_port(struct side *s, struct xe_tap *t, int *seg)
{
	char name[32];
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sp))
		return -1;
	*t = (struct xe_tap){ .fd = sp[0] };
	*seg = sp[1];
	snprintf(name, sizeof(name), "test-wire-%d", getpid());
	xe_tap_attach(&s->xe, t);
	return xe_switch_open(&t->sw, name, s->xe.id.mac);
}

FIXTURE_SETUP(switched)
{
	ASSERT_EQ(0, pair_init(&self->a, &self->b, false));
	ASSERT_EQ(0, switched_port(self->a, &self->ta, &self->seg_a));
	ASSERT_EQ(0, switched_port(self->b, &self->tb, &self->seg_b));
}

FIXTURE_TEARDOWN(switched)
{
	xe_switch_close(&self->ta.sw);
	xe_switch_close(&self->tb.sw);
	close(self->ta.fd);
	close(self->tb.fd);
	close(self->seg_a);
	close(self->seg_b);
	pair_fini(self->a, self->b);
}

/* Frames that went on the tap of seg's port, handed to the port of to. */
static int seg_deliver(int seg, struct side *to)
{
	uint8_t f[9100];
	ssize_t n;
	int frames = 0;

	while ((n = read(seg, f, sizeof(f))) > 0) {
		xe_port_receive(&to->xe, f, n);
		frames++;
	}
	return frames;
}

/*
 * Run both devices, the switch and the segment until nothing moves.
 * Returns the frames that went on the taps.
 */
static int run_switched(FIXTURE_DATA(switched) *self)
{
	struct side *a = self->a, *b = self->b;
	uint64_t before;
	int on_taps = 0, n, rounds;

	for (rounds = 0; rounds < 1000; rounds++) {
		before = a->xe.counters[XRNIC_CNT_RX_PACKETS] + b->xe.counters[XRNIC_CNT_RX_PACKETS];
		xe_doorbell(&a->xe, 1);
		xe_doorbell(&b->xe, 1);
		while (xe_dev_poll(&a->xe) == 0 || xe_dev_poll(&b->xe) == 0)
			;
		xe_tap_flush(&a->xe, &self->ta);
		xe_tap_flush(&b->xe, &self->tb);
		n = seg_deliver(self->seg_a, b) + seg_deliver(self->seg_b, a);
		on_taps += n;
		xe_switch_events(&self->tb.sw);
		xe_switch_events(&self->ta.sw);
		xe_tap_switch_receive(&b->xe, &self->tb);
		xe_tap_switch_receive(&a->xe, &self->ta);
		if (!n && before == a->xe.counters[XRNIC_CNT_RX_PACKETS] +
				   b->xe.counters[XRNIC_CNT_RX_PACKETS])
			break;
	}
	return on_taps;
}

/* A frame from a datagram of the switch: counted if good, then taken by to. */
struct good_frames {
	int n;
	struct xe_dev *to;
};

static void count_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct good_frames *g = ctx;
	struct xe_roce_frame rf;

	if (xe_frame_parse(frame, len, &rf) == 1)
		g->n++;
	xe_port_receive(g->to, frame, len);
}

/* Take the frames waiting in the switch's rings to t's port, each handed to fn. */
static unsigned int switch_take(struct xe_tap *t, void (*fn)(void *ctx, const uint8_t *frame,
							      size_t len), void *ctx)
{
	unsigned int n = 0;
	bool more = true;

	xe_switch_events(&t->sw);
	while (more)
		n += xe_switch_recv(&t->sw, fn, ctx, &more);
	return n;
}

/* The good RoCE v2 frames in a capture's records (no file header: see below). */
static int captured_good(FILE *f)
{
	static uint8_t frame[65536];
	uint32_t rec[4];		/* sec, usec, caplen, len */
	struct xe_roce_frame rf;
	int n = 0;

	rewind(f);
	while (fread(rec, sizeof(rec), 1, f) == 1 && rec[2] <= sizeof(frame) &&
	       fread(frame, 1, rec[2], f) == rec[2])
		n += xe_frame_parse(frame, rec[2], &rf) == 1;
	return n;
}

/* Built in the ring, captured the same: --pcap holds every frame. */
TEST_F(switched, frames_between_two_ports_travel_through_a_ring)
{
	struct side *a = self->a, *b = self->b;
	struct good_frames g = { .to = &self->b->xe };
	struct xrnic_sqe w;
	struct xrnic_cqe *c;

	/* A capture without its file header: the records xe_pcap_frame() writes. */
	ASSERT_NE(NULL, self->ta.pcap = tmpfile());
	fill(a->xe.mem.base + BUF, 60000, 7);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 60000, a->lb.key, BUF, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	xe_tap_flush(&a->xe, &self->ta);
	/* The 15 packets of the WRITE, each a good RoCE v2 frame; none on the tap. */
	EXPECT_EQ(15, switch_take(&self->tb, count_frame, &g));
	EXPECT_EQ(15, g.n);
	EXPECT_EQ(0, switch_take(&self->tb, count_frame, &g));
	EXPECT_EQ(0, seg_deliver(self->seg_a, b));
	EXPECT_EQ(15, captured_good(self->ta.pcap));
	fclose(self->ta.pcap);
	self->ta.pcap = NULL;
	/* The ACK comes back through the switch too. */
	EXPECT_EQ(0, run_switched(self));
	ASSERT_NE(NULL, c = poll_cq(a));
	EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF, 60000));
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_WIRE_TX_DROPS]);
}

/* The ECN field of each good frame, in order (struct ecn_seen). */
struct ecn_seen {
	int frames, ce;
	bool first_ce;
	struct xe_dev *to;
};

static void see_ecn(void *ctx, const uint8_t *frame, size_t len)
{
	struct ecn_seen *e = ctx;
	struct xe_roce_frame rf;
	bool ce;

	if (xe_frame_parse(frame, len, &rf) == 1) {
		ce = xe_ip_ecn(rf.ip, rf.ip_len) == XE_ECN_CE;
		if (!e->frames)
			e->first_ce = ce;
		e->frames++;
		e->ce += ce;
	}
	xe_port_receive(e->to, frame, len);
}

/*
 * Post two WRITEs of 60000 bytes (30 packets) from a to b, run a alone
 * (b reads nothing) until it has sent them; returns the packets a sent.
 */
static uint64_t send_two_writes(FIXTURE_DATA(switched) *self)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	int i;

	fill(a->xe.mem.base + BUF, 60000, 7);
	for (i = 0; i < 2; i++) {
		w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 60000, a->lb.key, BUF, b->lb.key);
		post_send(a, 0, &w);
	}
	for (i = 0; i < 1000 && a->xe.counters[XRNIC_CNT_TX_PACKETS] < 30; i++) {
		xe_doorbell(&a->xe, 1);
		xe_dev_poll(&a->xe);
	}
	xe_tap_flush(&a->xe, &self->ta);
	return a->xe.counters[XRNIC_CNT_TX_PACKETS];
}

/*
 * A port whose frames wait unread at their port past the switch's
 * threshold sends its next ones marked CE (DCQCN's ECN switch); its
 * peer's CNPs then slow the sending QP down.
 */
TEST_F(switched, a_ports_queue_past_the_threshold_marks_ce_and_slows_the_sender)
{
	struct side *a = self->a, *b = self->b;
	struct xe_qp *qa = &a->xe.qp[XE_QPN_SLOT(a->lb.qpn[0])];
	struct ecn_seen e = { .to = &self->b->xe };
	int i;

	self->ta.sw.mark_bytes = 1;	/* one frame waiting is a queue */
	ASSERT_EQ(30, send_two_writes(self));
	/* The first frame found the ring empty, the others behind it. */
	EXPECT_EQ(30, switch_take(&self->tb, see_ecn, &e));
	EXPECT_EQ(30, e.frames);
	EXPECT_FALSE(e.first_ce);
	EXPECT_EQ(29, e.ce);
	/* The receiver took them all, and tells the sender. */
	EXPECT_EQ(29, b->xe.counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]);
	EXPECT_LE(1, b->xe.counters[XRNIC_CNT_NP_CNP_SENT]);
	EXPECT_EQ(0, run_switched(self));
	EXPECT_LE(1, a->xe.counters[XRNIC_CNT_RP_CNP_HANDLED]);
	EXPECT_NE(0, qa->rp.rc);		/* rate-limited */
	for (i = 0; i < 2; i++) {
		struct xrnic_cqe *c = poll_cq(a);

		ASSERT_NE(NULL, c);
		EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
	}
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF, 60000));
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_WIRE_TX_DROPS]);
}

/* Below the threshold nothing is marked (the default: XE_SWITCH_MARK_BYTES). */
TEST_F(switched, a_short_queue_marks_nothing)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	int i;

	EXPECT_EQ(XE_SWITCH_MARK_BYTES, self->ta.sw.mark_bytes);
	fill(a->xe.mem.base + BUF, 60000, 7);
	for (i = 0; i < 2; i++) {
		w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 60000, a->lb.key, BUF, b->lb.key);
		post_send(a, 0, &w);
	}
	EXPECT_EQ(0, run_switched(self));
	for (i = 0; i < 2; i++)
		ASSERT_NE(NULL, poll_cq(a));
	EXPECT_EQ(0, b->xe.counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]);
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RP_CNP_HANDLED]);
}

TEST_F(switched, frames_for_a_mac_without_a_switch_port_go_on_the_tap)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_sqe w;
	struct xrnic_cqe *c;
	int k, i;

	xe_switch_close(&self->tb.sw);		/* b: a NIC the switch does not have */
	for (k = 0; k < 2; k++) {
		fill(a->xe.mem.base + BUF, 10000, k);
		w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 10000, a->lb.key, BUF + 20000, b->lb.key);
		post_send(a, 0, &w);
		/* 3 packets there, the ACK back (b sends on its tap alone). */
		EXPECT_EQ(4, run_switched(self));
		ASSERT_NE(NULL, c = poll_cq(a));
		EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
		EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF + 20000, 10000));
		/* Once refused, the switch does not ask for b again: no connection. */
		for (i = 0; i < XE_SWITCH_PEERS; i++)
			EXPECT_EQ(-1, self->ta.sw.out[i].fd);
	}
}

/*
 * Fill a's ring to b with frames that are no RoCE v2 (b's Ethernet
 * function, which is off, drops them) until the switch takes no more:
 * one is lost, or held (lossless mode).
 */
static void fill_b_ring(FIXTURE_DATA(switched) *self)
{
	struct side *a = self->a, *b = self->b;
	static uint8_t f[4096];
	uint64_t i;

	memcpy(f, b->xe.id.mac, 6);
	memcpy(f + 6, a->xe.id.mac, 6);
	f[12] = 0x88;			/* the local experimental EtherType */
	f[13] = 0xb5;
	for (i = 0; i <= XE_SWRING_SIZE / 4096 && !a->xe.counters[XRNIC_CNT_WIRE_TX_DROPS] &&
		    !a->xe.tx_paused; i++)
		xe_tap_xmit(&a->xe, f, sizeof(f));
}

TEST_F(switched, a_full_ring_drops_frames_and_counts_them)
{
	struct side *a = self->a, *b = self->b;
	uint64_t sent;
	struct xrnic_sqe w;

	fill_b_ring(self);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_WIRE_TX_DROPS]);
	/* A WRITE's 15 packets: lost at the switch, not sent another way. */
	sent = a->xe.counters[XRNIC_CNT_TX_PACKETS];
	fill(a->xe.mem.base + BUF, 60000, 5);
	w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 60000, a->lb.key, BUF, b->lb.key);
	post_send(a, 0, &w);
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	EXPECT_EQ(-1, xe_tap_flush(&a->xe, &self->ta));
	EXPECT_EQ(sent + 15, a->xe.counters[XRNIC_CNT_TX_PACKETS]);
	EXPECT_EQ(1 + 15, a->xe.counters[XRNIC_CNT_WIRE_TX_DROPS]);
	EXPECT_EQ(0, seg_deliver(self->seg_a, self->b));
	EXPECT_FALSE(a->xe.tx_paused);
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_RX_PAUSE]);
}

/*
 * Lossless mode: the same full ring pauses the sender's port instead.
 * Nothing new leaves while it is paused; once b reads and the pause is
 * over, the held frames go in order and the WRITEs complete, none lost.
 */
TEST_F(switched, in_lossless_mode_a_full_ring_pauses_the_sender_and_loses_nothing)
{
	struct side *a = self->a, *b = self->b;
	struct xrnic_cqe *c;
	struct xrnic_sqe w;
	int k, done = 0;
	uint64_t sent;
	int64_t wait;

	/* The device's time moves only by the pauses: no ACK times out meanwhile. */
	a->xe.manual_clock = b->xe.manual_clock = true;
	a->xe.clock_ns = b->xe.clock_ns = 1000000000;
	ASSERT_EQ(0, xe_switch_lossless(&self->ta.sw));
	fill_b_ring(self);
	wait = xe_tap_flush(&a->xe, &self->ta);
	EXPECT_EQ(XE_SWITCH_PAUSE_NS, wait);
	EXPECT_TRUE(a->xe.tx_paused);
	EXPECT_EQ(1, a->xe.counters[XRNIC_CNT_RX_PAUSE]);
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_WIRE_TX_DROPS]);
	/* Paused: WRITEs posted now do not leave. */
	sent = a->xe.counters[XRNIC_CNT_TX_PACKETS];
	fill(a->xe.mem.base + BUF, 60000, 5);
	for (k = 0; k < 2; k++) {
		w = sqe(XRNIC_WR_RDMA_WRITE, BUF, 60000, a->lb.key, BUF, b->lb.key);
		post_send(a, 0, &w);
	}
	xe_doorbell(&a->xe, 1);
	while (xe_dev_poll(&a->xe) == 0)
		;
	EXPECT_EQ(sent, a->xe.counters[XRNIC_CNT_TX_PACKETS]);
	EXPECT_LT(0, xe_tap_flush(&a->xe, &self->ta));
	/* b reads; the pause ends; everything goes. */
	for (k = 0; k < 10000 && done < 2; k++) {
		xe_switch_events(&self->tb.sw);
		while (xe_tap_switch_receive(&b->xe, &self->tb))
			;
		while (xe_dev_poll(&b->xe) == 0)
			;
		xe_tap_flush(&b->xe, &self->tb);
		xe_switch_events(&self->ta.sw);
		xe_tap_switch_receive(&a->xe, &self->ta);
		xe_doorbell(&a->xe, 1);
		while (xe_dev_poll(&a->xe) == 0)
			;
		wait = xe_tap_flush(&a->xe, &self->ta);
		if (wait > 0)
			a->xe.clock_ns += wait;
		while ((c = poll_cq(a))) {
			EXPECT_EQ(XRNIC_WC_SUCCESS, c->status);
			done++;
		}
	}
	EXPECT_EQ(2, done);
	EXPECT_FALSE(a->xe.tx_paused);
	EXPECT_EQ(0, a->xe.counters[XRNIC_CNT_WIRE_TX_DROPS]);
	EXPECT_LE(1, a->xe.counters[XRNIC_CNT_RX_PAUSE]);
	EXPECT_LE(XE_SWITCH_PAUSE_NS / 1000, a->xe.counters[XRNIC_CNT_RX_PAUSE_DURATION]);
	EXPECT_EQ(0, memcmp(a->xe.mem.base + BUF, b->xe.mem.base + BUF, 60000));
}

TEST_HARNESS_MAIN
