// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of IB CM (drivers/infiniband/core/cm.c): its state machine
 * on both sides and its messages, byte for byte at IBTA's offsets, against
 * a peer that sends what Linux's ib_cm sends (peer.c), with the MAD layer
 * and the RDMA CM faked (fake.c) and a manual clock for the timeouts.
 * Every test ends with nothing left: no connection, no pending timer, no
 * allocation, the device's users back to 1, no leak.
 */
#include <sanitizer/lsan_interface.h>

#include "kselftest_harness.h"

#include "fake.h"

/*
 * IBTA time exponents as cm.c turns them into ms (4.096 us * 2^t): a
 * RoCE path's packet life time (16), the local ACK timeout both sides'
 * QPs take (17: TIMEWAIT lasts that long), response timeouts (19, 20), an
 * MRA's (24).  A message goes again after twice the first plus how long the
 * peer takes to answer: our REQ's remote CM response timeout (20) for the
 * active side, the peer's REQ's local one (19, peer_req_default()) for our
 * REP.
 */
#define MS_16		268
#define MS_17		536
#define MS_19		2147
#define MS_20		4294
#define MS_24		68719
#define ACTIVE_TIMEOUT	(2 * MS_16 + MS_20)
#define PASSIVE_TIMEOUT	(2 * MS_16 + MS_19)
#define HOUR		3600000

#define REJ_TIMEOUT		4
#define REJ_INVALID_SERVICE_ID	8
#define REJ_STALE_CONN		10
#define REJ_CONSUMER_DEFINED	28

static u8 req_pdata[XR_IBCM_REQ_PRIVATE_LEN];

/* Our REQ: as cma.c asks for one, each field a value of its own. */
static struct xr_ibcm_req our_req(void)
{
	pattern(req_pdata, sizeof(req_pdata), 0x10);
	return (struct xr_ibcm_req){
		.port = 1,
		.ah = {
			.dgid = PEER_GID, .dmac = { 0x52, 0x54, 0, 0, 0, 2 }, .sgid_index = 0,
			.hop_limit = 64, .traffic_class = 0x48, .flow_label = 0x54321,
			.remote_qpn = 1, .remote_qkey = 0x80010000,
		},
		.sgid = OUR_GID,
		.service_id = 0x0000000001063039ull,	/* RDMA_PS_TCP, port 12345 */
		.qpn = 0x00c0de,
		.starting_psn = 0x5a5a5a,
		.responder_resources = 7,
		.initiator_depth = 6,
		.flow_control = 1,
		.retry_count = 5,
		.rnr_retry_count = 4,
		.srq = 1,
		.mtu = 4,
		.packet_life_time = 16,
		.remote_cm_response_timeout = 20,
		.local_cm_response_timeout = 18,
		.max_cm_retries = 3,
		.private_data = req_pdata,
		.private_data_len = sizeof(req_pdata),
	};
}

static u8 rep_pdata[XR_IBCM_REP_PRIVATE_LEN];

/* Our REP (the passive side's accept). */
static struct xr_ibcm_rep our_rep(void)
{
	pattern(rep_pdata, sizeof(rep_pdata), 0x30);
	return (struct xr_ibcm_rep){
		.qpn = 0x000789, .responder_resources = 2, .initiator_depth = 1,
		.flow_control = 1, .rnr_retry_count = 7, .srq = 1,
		.private_data = rep_pdata, .private_data_len = sizeof(rep_pdata),
	};
}

static const u8 *sent(unsigned int i)
{
	if (i >= fake.nsent || i >= FAKE_MAX_SENT)
		host_bug("MAD %u asked for, %u sent", i, fake.nsent);
	return fake.sent[i].mad;
}

static const u8 *last_sent(void)
{
	return sent(fake.nsent - 1);
}

static u16 attr_of(const u8 *m)
{
	return get_be(m, 16, 2);
}

static u64 tid_of(const u8 *m)
{
	return get_be(m, 8, 8);
}

static u32 local_id_of(const u8 *m)
{
	return get_be(m, CM(0), 4);
}

static bool all_zero(const u8 *m, unsigned int from, unsigned int to)
{
	while (from < to)
		if (m[from++])
			return false;
	return true;
}

static void recv(struct xr_device *xdev, const u8 *m)
{
	xr_ibcm_recv(xdev, 1, &peer_wc, m);
}

static long counter(struct xr_device *xdev, u32 group, u16 attr)
{
	return xr_ibcm_counter(xdev, 1, group, attr - ATTR_REQ);
}

/* The active side: our REQ sent (the first MAD), events to fake_handler(@ctx). */
static struct xr_ibcm *active(struct xr_device *xdev, const struct xr_ibcm_req *p, void *ctx)
{
	struct xr_ibcm *cm = xr_ibcm_connect(xdev, p, fake_handler, ctx);

	if (IS_ERR(cm))
		host_bug("xr_ibcm_connect(): %ld", PTR_ERR(cm));
	return cm;
}

/* The peer's REP to our REQ (@req), received. */
static struct peer_rep recv_rep(struct xr_device *xdev, const u8 *req)
{
	struct peer_rep r = peer_rep_default(tid_of(req), local_id_of(req));
	u8 m[MAD_SIZE];

	peer_rep(m, &r);
	recv(xdev, m);
	return r;
}

/* The REP of another of the peer's QPs (a second connection), received. */
static struct peer_rep recv_other_rep(struct xr_device *xdev, const u8 *req)
{
	struct peer_rep r = peer_rep_default(tid_of(req), local_id_of(req));
	u8 m[MAD_SIZE];

	r.qpn++;
	peer_rep(m, &r);
	recv(xdev, m);
	return r;
}

/* The active side established: REQ, the peer's REP (in *@rep), our RTU. */
static struct xr_ibcm *active_established(struct xr_device *xdev, struct peer_rep *rep)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(xdev, &p, NULL);

	*rep = recv_rep(xdev, last_sent());
	if (xr_ibcm_send_rtu(cm))
		host_bug("xr_ibcm_send_rtu() failed");
	return cm;
}

/* The peer's REQ @r received and taken by the RDMA CM (fake.c). */
static struct xr_ibcm *passive(struct xr_device *xdev, const struct peer_req *r)
{
	unsigned int n = fake.nreqs;
	u8 m[MAD_SIZE];

	peer_req(m, r);
	recv(xdev, m);
	if (fake.nreqs != n + 1 || !fake.reqs[n].cm)
		host_bug("the REQ was not taken");
	return fake.reqs[n].cm;
}

/* The passive side has answered the peer's REQ @r with our REP. */
static struct xr_ibcm *passive_rep_sent(struct xr_device *xdev, const struct peer_req *r)
{
	struct xr_ibcm *cm = passive(xdev, r);
	struct xr_ibcm_rep rep = our_rep();

	if (xr_ibcm_accept(cm, &rep))
		host_bug("xr_ibcm_accept() failed");
	return cm;
}

/* The peer's RTU for our REP (@rep), from the peer of REQ @r. */
static void recv_rtu(struct xr_device *xdev, const struct peer_req *r, const u8 *rep)
{
	u8 m[MAD_SIZE];

	peer_ids_msg(m, ATTR_RTU, r->tid, r->local_id, local_id_of(rep));
	recv(xdev, m);
}

/* The passive side established: the peer's REQ @r, our REP, its RTU. */
static struct xr_ibcm *passive_established(struct xr_device *xdev, const struct peer_req *r)
{
	struct xr_ibcm *cm = passive_rep_sent(xdev, r);

	recv_rtu(xdev, r, sent(fake.nsent - 1));
	return cm;
}

/* A new REQ (another ID) from the QP of the peer's REQ @r; returns its ID. */
static u32 recv_req_of_the_same_qp(struct xr_device *xdev, const struct peer_req *r)
{
	struct peer_req again = *r;
	u8 m[MAD_SIZE];

	again.local_id = r->local_id + 1;
	again.tid = peer_tid(again.local_id);
	peer_req(m, &again);
	recv(xdev, m);
	return again.local_id;
}

/* A test starts with a device of one port and IB CM's IDs chosen. */
static struct xr_device *start(long *allocations)
{
	struct xr_device *xdev;

	fake_reset();
	xdev = fake_device(1);
	xr_ibcm_init();
	*allocations = host_allocations();
	return xdev;
}

/*
 * It ends with nothing left once the timers ran out (what the owners
 * destroyed while established still sends its DREQ): no connection, no
 * timer, no allocation, the device's users back to its registration, no
 * leak.
 */
static void nothing_left(struct __test_metadata *_metadata, struct xr_device *xdev,
			 long allocations)
{
	int i;

	for (i = 0; i < 100 && host_timers_pending(); i++)
		host_clock_advance(host_next_timer() - jiffies);
	EXPECT_EQ(0, xr_ibcm_live());
	EXPECT_EQ(0, host_timers_pending());
	EXPECT_EQ(allocations, host_allocations());
	EXPECT_EQ(1, refcount_read(&xdev->users));
	fake_device_free(xdev);
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check());
}

FIXTURE(cm) {
	struct xr_device *xdev;
	long allocations;
};

FIXTURE_SETUP(cm)
{
	self->xdev = start(&self->allocations);
}

FIXTURE_TEARDOWN(cm)
{
	nothing_left(_metadata, self->xdev, self->allocations);
}

TEST_F(cm, active_req_fields_at_ibta_offsets)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	const u8 *m;
	u32 id;

	ASSERT_EQ(1, fake.nsent);
	EXPECT_EQ(1, fake.sent[0].port);
	EXPECT_EQ(0, memcmp(&p.ah, &fake.sent[0].ah, sizeof(p.ah)));
	m = sent(0);
	id = local_id_of(m);
	/* The MAD header: CM class version 2, SEND, REQ, our TID. */
	EXPECT_EQ(1, m[0]);
	EXPECT_EQ(0x07, m[1]);
	EXPECT_EQ(2, m[2]);
	EXPECT_EQ(0x03, m[3]);
	EXPECT_TRUE(all_zero(m, 4, 8));
	EXPECT_EQ((u64)1 << 32 | id, tid_of(m));
	EXPECT_EQ(ATTR_REQ, attr_of(m));
	EXPECT_TRUE(all_zero(m, 18, 24));
	/* IBTA table 106. */
	EXPECT_TRUE(all_zero(m, CM(4), CM(8)));		/* vendor ID */
	EXPECT_EQ(p.service_id, get_be(m, CM(8), 8));
	EXPECT_EQ(OUR_GUID, get_be(m, CM(16), 8));
	EXPECT_TRUE(all_zero(m, CM(24), CM(32)));	/* local Q_Key */
	EXPECT_EQ(0x00c0de, get_be(m, CM(32), 3));
	EXPECT_EQ(7, m[CM(35)]);			/* responder resources */
	EXPECT_TRUE(all_zero(m, CM(36), CM(39)));	/* local EECN */
	EXPECT_EQ(6, m[CM(39)]);			/* initiator depth */
	EXPECT_TRUE(all_zero(m, CM(40), CM(43)));	/* remote EECN */
	/* Remote CM response timeout 20, transport RC, flow control. */
	EXPECT_EQ(20 << 3 | 0 << 1 | 1, m[CM(43)]);
	EXPECT_EQ(0x5a5a5a, get_be(m, CM(44), 3));
	EXPECT_EQ(18 << 3 | 5, m[CM(47)]);		/* local timeout, retry count */
	EXPECT_EQ(0xffff, get_be(m, CM(48), 2));	/* P_Key */
	EXPECT_EQ(4 << 4 | 0 << 3 | 4, m[CM(50)]);	/* MTU, RDC exists, RNR retries */
	EXPECT_EQ(3 << 4 | 1 << 3, m[CM(51)]);		/* max CM retries, SRQ */
	EXPECT_EQ(0xffff, get_be(m, CM(52), 2));	/* permissive LIDs: routed */
	EXPECT_EQ(0xffff, get_be(m, CM(54), 2));
	EXPECT_EQ(0, memcmp(m + CM(56), our_gid, 16));
	EXPECT_EQ(0, memcmp(m + CM(72), peer_gid, 16));
	EXPECT_EQ((u64)0x54321 << 12, get_be(m, CM(88), 4));	/* flow label */
	EXPECT_EQ(0x48, m[CM(92)]);			/* traffic class */
	EXPECT_EQ(64, m[CM(93)]);			/* hop limit */
	EXPECT_EQ(0, m[CM(94)]);			/* SL, subnet local */
	/* Local ACK timeout: the packet life time + 1, at least the ACK delay. */
	EXPECT_EQ(17 << 3, m[CM(95)]);
	EXPECT_TRUE(all_zero(m, CM(96), CM(140)));	/* no alternate path */
	EXPECT_EQ(0, memcmp(m + CM(140), req_pdata, sizeof(req_pdata)));
	EXPECT_TRUE(all_zero(m, CM(232), MAD_SIZE));
	EXPECT_EQ(1, counter(self->xdev, XR_CM_TX_MSGS, ATTR_REQ));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, active_private_data_too_long_refused)
{
	struct xr_ibcm_req p = our_req();

	p.private_data_len = XR_IBCM_REQ_PRIVATE_LEN + 1;
	EXPECT_EQ(-EINVAL, PTR_ERR(xr_ibcm_connect(self->xdev, &p, fake_handler, NULL)));
	p.private_data_len = XR_IBCM_SIDR_REQ_PRIVATE_LEN + 1;
	EXPECT_EQ(-EINVAL, PTR_ERR(xr_ibcm_sidr_req(self->xdev, &p, fake_handler, NULL)));
	EXPECT_EQ(0, fake.nsent);
}

TEST_F(cm, active_connect_without_memory_fails_cleanly)
{
	struct xr_ibcm_req p = our_req();

	/* The connection's memory, then its ID. */
	host_fail_allocation(0);
	EXPECT_EQ(-ENOMEM, PTR_ERR(xr_ibcm_connect(self->xdev, &p, fake_handler, NULL)));
	host_fail_allocation(1);
	EXPECT_EQ(-ENOMEM, PTR_ERR(xr_ibcm_connect(self->xdev, &p, fake_handler, NULL)));
	host_fail_allocation(1);
	EXPECT_EQ(-ENOMEM, PTR_ERR(xr_ibcm_sidr_req(self->xdev, &p, fake_handler, NULL)));
	host_fail_allocation(-1);
	EXPECT_EQ(0, fake.nsent);
}

TEST_F(cm, active_rep_gives_connect_response_with_the_peers_qp)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, &p);
	const struct xr_cm_event *ev;
	struct xr_ibcm_qp qp;
	struct peer_rep r;

	EXPECT_EQ(-EINVAL, xr_ibcm_qp_attr(cm, &qp));
	r = recv_rep(self->xdev, sent(0));
	ASSERT_EQ(1, fake.nevents);
	ev = &fake.events[0].ev;
	EXPECT_EQ(&p, fake.events[0].context);
	EXPECT_EQ(XR_CM_EVENT_CONNECT_RESPONSE, ev->event);
	EXPECT_EQ(0, ev->status);
	EXPECT_EQ(0x456, ev->qp_num);
	/* Ours: the peer's initiator depth, and our depth bounded by its resources. */
	EXPECT_EQ(5, ev->responder_resources);
	EXPECT_EQ(2, ev->initiator_depth);
	EXPECT_EQ(5, ev->retry_count);
	EXPECT_EQ(6, ev->rnr_retry_count);
	ASSERT_EQ(XR_IBCM_REP_PRIVATE_LEN, ev->private_data_len);
	EXPECT_EQ(0, memcmp(ev->private_data, r.pdata, sizeof(r.pdata)));

	ASSERT_EQ(0, xr_ibcm_qp_attr(cm, &qp));
	EXPECT_EQ(0x456, qp.dest_qpn);
	EXPECT_EQ(0x654321, qp.sq_psn);		/* the REP's */
	EXPECT_EQ(0x5a5a5a, qp.rq_psn);		/* the REQ's */
	EXPECT_EQ(4, qp.mtu);
	EXPECT_EQ(5, qp.retry_count);
	EXPECT_EQ(6, qp.rnr_retry_count);
	EXPECT_EQ(17, qp.ack_timeout);
	EXPECT_EQ(2, qp.initiator_depth);
	EXPECT_EQ(5, qp.responder_resources);
	EXPECT_EQ(0, memcmp(qp.dgid, peer_gid, 16));
	EXPECT_EQ(0, qp.sgid_index);
	EXPECT_EQ(64, qp.hop_limit);
	EXPECT_EQ(0x48, qp.traffic_class);
	EXPECT_EQ(0x54321, qp.flow_label);
	/* Answered: the REQ is not sent again. */
	EXPECT_EQ(0, host_timers_pending());
	host_clock_advance(HOUR);
	EXPECT_EQ(1, fake.nsent);
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_MSGS, ATTR_REP));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, active_rtu_establishes)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	const u8 *m;
	u32 id;

	EXPECT_EQ(-EINVAL, xr_ibcm_send_rtu(cm));	/* no REP yet */
	id = local_id_of(sent(0));
	recv_rep(self->xdev, sent(0));
	ASSERT_EQ(0, xr_ibcm_send_rtu(cm));
	ASSERT_EQ(2, fake.nsent);
	m = sent(1);
	EXPECT_EQ(ATTR_RTU, attr_of(m));
	EXPECT_EQ(tid_of(sent(0)), tid_of(m));		/* the REQ's transaction */
	EXPECT_EQ(id, local_id_of(m));
	EXPECT_EQ(0x6a7b8c9d, get_be(m, CM(4), 4));	/* the REP's local ID */
	EXPECT_TRUE(all_zero(m, CM(8), MAD_SIZE));
	EXPECT_EQ(0, memcmp(&p.ah, &fake.sent[1].ah, sizeof(p.ah)));
	/* Established: once, and it may be ended. */
	EXPECT_EQ(-EINVAL, xr_ibcm_send_rtu(cm));
	EXPECT_EQ(1, fake.nevents);
	EXPECT_EQ(0, xr_ibcm_disconnect(cm));
	EXPECT_EQ(ATTR_DREQ, attr_of(last_sent()));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, active_duplicate_rep_before_rtu_gets_mra)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	const u8 *m;

	recv_rep(self->xdev, sent(0));
	recv_rep(self->xdev, sent(0));
	EXPECT_EQ(1, fake.nevents);
	ASSERT_EQ(2, fake.nsent);
	m = sent(1);
	EXPECT_EQ(ATTR_MRA, attr_of(m));
	EXPECT_EQ(tid_of(sent(0)), tid_of(m));
	EXPECT_EQ(local_id_of(sent(0)), local_id_of(m));
	EXPECT_EQ(0x6a7b8c9d, get_be(m, CM(4), 4));
	EXPECT_EQ(1 << 6, m[CM(8)]);			/* MRAed: the REP */
	EXPECT_EQ(24 << 3, m[CM(9)]);			/* service timeout */
	EXPECT_TRUE(all_zero(m, CM(10), MAD_SIZE));
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_DUPLICATES, ATTR_REP));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, active_duplicate_rep_after_rtu_sends_rtu_again)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u8 m[MAD_SIZE];

	ASSERT_EQ(2, fake.nsent);
	peer_rep(m, &r);
	recv(self->xdev, m);
	ASSERT_EQ(3, fake.nsent);
	EXPECT_EQ(0, memcmp(sent(1), sent(2), MAD_SIZE));
	EXPECT_EQ(1, fake.nevents);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, active_req_resent_max_cm_retries_times_then_unreachable)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	unsigned int i;

	for (i = 1; i <= 3; i++) {
		host_clock_advance(ACTIVE_TIMEOUT - 1);
		EXPECT_EQ(i, fake.nsent);
		host_clock_advance(1);
		ASSERT_EQ(i + 1, fake.nsent);
		EXPECT_EQ(0, memcmp(sent(0), sent(i), MAD_SIZE));
	}
	host_clock_advance(ACTIVE_TIMEOUT - 1);
	EXPECT_EQ(0, fake.nevents);
	host_clock_advance(1);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_UNREACHABLE, fake.events[0].ev.event);
	EXPECT_EQ(-ETIMEDOUT, fake.events[0].ev.status);
	EXPECT_EQ(4 * ACTIVE_TIMEOUT, fake.events[0].at);
	EXPECT_EQ(4, fake.nsent);
	EXPECT_EQ(4, counter(self->xdev, XR_CM_TX_MSGS, ATTR_REQ));
	EXPECT_EQ(3, counter(self->xdev, XR_CM_TX_RETRIES, ATTR_REQ));
	EXPECT_EQ(0, host_timers_pending());
	xr_ibcm_destroy(cm);
}

TEST_F(cm, active_mra_holds_off_the_next_req)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	host_clock_advance(1000);
	peer_mra(m, tid_of(sent(0)), 0x6a7b8c9d, id, 0, 20);
	recv(self->xdev, m);
	EXPECT_EQ(1000 + ACTIVE_TIMEOUT + MS_20, host_next_timer());
	host_clock_advance(ACTIVE_TIMEOUT + MS_20 - 1);
	EXPECT_EQ(1, fake.nsent);
	host_clock_advance(1);
	EXPECT_EQ(2, fake.nsent);
	EXPECT_EQ(0, fake.nevents);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, active_mra_of_a_rep_leaves_the_req_timeout)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	u8 m[MAD_SIZE];

	host_clock_advance(1000);
	peer_mra(m, tid_of(sent(0)), 0x6a7b8c9d, local_id_of(sent(0)), 1, 20);
	recv(self->xdev, m);
	host_clock_advance(ACTIVE_TIMEOUT - 1000);
	EXPECT_EQ(2, fake.nsent);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, active_rej_reports_reason_and_private_data)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	u8 m[MAD_SIZE], pd[XR_IBCM_REJ_PRIVATE_LEN];
	struct xr_ibcm_qp qp;

	pattern(pd, sizeof(pd), 0x77);
	peer_rej(m, tid_of(sent(0)), 0, local_id_of(sent(0)), 0, REJ_CONSUMER_DEFINED, pd,
		 sizeof(pd));
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_REJECTED, fake.events[0].ev.event);
	EXPECT_EQ(REJ_CONSUMER_DEFINED, fake.events[0].ev.status);
	ASSERT_EQ(sizeof(pd), fake.events[0].ev.private_data_len);
	EXPECT_EQ(0, memcmp(fake.events[0].pdata, pd, sizeof(pd)));
	/* Ended: nothing sent again, nothing more to do. */
	host_clock_advance(HOUR);
	EXPECT_EQ(1, fake.nsent);
	EXPECT_EQ(1, fake.nevents);
	EXPECT_EQ(-EINVAL, xr_ibcm_qp_attr(cm, &qp));
	EXPECT_EQ(-EINVAL, xr_ibcm_send_rtu(cm));
	EXPECT_EQ(-EINVAL, xr_ibcm_disconnect(cm));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_req_reaches_the_rdma_cm_with_its_fields)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive(self->xdev, &r);
	const struct fake_req *q = &fake.reqs[0];

	EXPECT_EQ(0, fake.nsent);
	EXPECT_EQ(self->xdev, q->xdev);
	EXPECT_EQ(1, q->r.port);
	EXPECT_FALSE(q->r.ud);
	EXPECT_EQ(r.service_id, q->r.service_id);
	EXPECT_EQ(r.qpn, q->r.qpn);
	/* Ours: what the peer issues we take, and back. */
	EXPECT_EQ(r.initiator_depth, q->r.responder_resources);
	EXPECT_EQ(r.responder_resources, q->r.initiator_depth);
	EXPECT_EQ(r.flow_control, q->r.flow_control);
	EXPECT_EQ(r.retry_count, q->r.retry_count);
	EXPECT_EQ(r.rnr_retry_count, q->r.rnr_retry_count);
	EXPECT_EQ(r.srq, q->r.srq);
	EXPECT_EQ(0, memcmp(q->r.sgid, our_gid, 16));
	EXPECT_EQ(0, memcmp(q->r.dgid, peer_gid, 16));
	ASSERT_EQ(XR_IBCM_REQ_PRIVATE_LEN, q->r.private_data_len);
	EXPECT_EQ(0, memcmp(q->pdata, r.pdata, sizeof(r.pdata)));
	/* What the owner's QP needs, as the RDMA CM asked for it then. */
	ASSERT_EQ(0, q->qp_attr_ret);
	EXPECT_EQ(r.qpn, q->qp.dest_qpn);
	EXPECT_EQ(r.psn, q->qp.sq_psn);
	EXPECT_EQ(0, q->qp.rq_psn >> 24);
	EXPECT_EQ(r.mtu, q->qp.mtu);
	EXPECT_EQ(r.retry_count, q->qp.retry_count);
	EXPECT_EQ(r.rnr_retry_count, q->qp.rnr_retry_count);
	EXPECT_EQ(r.ack_timeout, q->qp.ack_timeout);
	EXPECT_EQ(r.initiator_depth, q->qp.responder_resources);
	EXPECT_EQ(r.responder_resources, q->qp.initiator_depth);
	EXPECT_EQ(0, memcmp(q->qp.dgid, peer_gid, 16));
	EXPECT_EQ(r.hop_limit, q->qp.hop_limit);
	EXPECT_EQ(r.traffic_class, q->qp.traffic_class);
	EXPECT_EQ(r.flow_label, q->qp.flow_label);
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_MSGS, ATTR_REQ));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_accept_sends_rep_at_ibta_offsets_and_rtu_establishes)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive(self->xdev, &r);
	struct xr_ibcm_rep rep = our_rep();
	const struct fake_sent *s;
	const u8 *m;

	ASSERT_EQ(0, xr_ibcm_accept(cm, &rep));
	EXPECT_EQ(-EINVAL, xr_ibcm_accept(cm, &rep));
	ASSERT_EQ(1, fake.nsent);
	s = &fake.sent[0];
	/* To the peer's GSI QP, on the REQ's path. */
	EXPECT_EQ(0, memcmp(s->ah.dgid, peer_gid, 16));
	EXPECT_EQ(1, s->ah.remote_qpn);
	EXPECT_EQ(0x80010000, s->ah.remote_qkey);
	EXPECT_EQ(r.traffic_class, s->ah.traffic_class);
	EXPECT_EQ(r.flow_label, s->ah.flow_label);
	m = s->mad;
	EXPECT_EQ(ATTR_REP, attr_of(m));
	EXPECT_EQ(r.tid, tid_of(m));
	/* IBTA table 110. */
	EXPECT_NE(0, local_id_of(m));
	EXPECT_EQ(r.local_id, get_be(m, CM(4), 4));
	EXPECT_TRUE(all_zero(m, CM(8), CM(12)));	/* local Q_Key */
	EXPECT_EQ(0x789, get_be(m, CM(12), 3));
	EXPECT_TRUE(all_zero(m, CM(15), CM(20)));	/* local EECN */
	EXPECT_EQ(fake.reqs[0].qp.rq_psn, get_be(m, CM(20), 3));
	EXPECT_EQ(0, m[CM(23)]);
	EXPECT_EQ(2, m[CM(24)]);			/* responder resources */
	EXPECT_EQ(1, m[CM(25)]);			/* initiator depth */
	EXPECT_EQ(15 << 3 | 0 << 1 | 1, m[CM(26)]);	/* ACK delay, failover, flow control */
	EXPECT_EQ(7 << 5 | 1 << 4, m[CM(27)]);		/* RNR retries, SRQ */
	EXPECT_EQ(OUR_GUID, get_be(m, CM(28), 8));
	EXPECT_EQ(0, memcmp(m + CM(36), rep_pdata, sizeof(rep_pdata)));
	EXPECT_TRUE(all_zero(m, CM(232), MAD_SIZE));

	recv_rtu(self->xdev, &r, m);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_ESTABLISHED, fake.events[0].ev.event);
	EXPECT_EQ(&fake.reqs[0], fake.events[0].context);
	EXPECT_EQ(0, host_timers_pending());
	/* An RTU again changes nothing. */
	recv_rtu(self->xdev, &r, m);
	EXPECT_EQ(1, fake.nevents);
	EXPECT_EQ(1, fake.nsent);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_private_data_too_long_refused)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive(self->xdev, &r);
	struct xr_ibcm_rep rep = our_rep();

	rep.private_data_len = XR_IBCM_REP_PRIVATE_LEN + 1;
	EXPECT_EQ(-EINVAL, xr_ibcm_accept(cm, &rep));
	EXPECT_EQ(-EINVAL, xr_ibcm_reject(cm, 1, rep_pdata, XR_IBCM_REJ_PRIVATE_LEN + 1));
	EXPECT_EQ(0, fake.nsent);
	/* Still to be answered. */
	rep.private_data_len = 0;
	EXPECT_EQ(0, xr_ibcm_accept(cm, &rep));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_duplicate_req_unanswered_gets_mra)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive(self->xdev, &r);
	const u8 *m;
	u8 req[MAD_SIZE];

	peer_req(req, &r);
	recv(self->xdev, req);
	EXPECT_EQ(1, fake.nreqs);
	ASSERT_EQ(1, fake.nsent);
	m = sent(0);
	EXPECT_EQ(ATTR_MRA, attr_of(m));
	EXPECT_EQ(r.tid, tid_of(m));
	EXPECT_NE(0, local_id_of(m));
	EXPECT_EQ(r.local_id, get_be(m, CM(4), 4));
	EXPECT_EQ(0 << 6, m[CM(8)]);			/* MRAed: the REQ */
	EXPECT_EQ(24 << 3, m[CM(9)]);
	EXPECT_TRUE(all_zero(m, CM(10), MAD_SIZE));
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_DUPLICATES, ATTR_REQ));
	EXPECT_EQ(2, counter(self->xdev, XR_CM_RX_MSGS, ATTR_REQ));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_duplicate_req_after_rep_sends_rep_again)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive_rep_sent(self->xdev, &r);
	u8 req[MAD_SIZE];

	host_clock_advance(1000);
	peer_req(req, &r);
	recv(self->xdev, req);
	EXPECT_EQ(1, fake.nreqs);
	ASSERT_EQ(2, fake.nsent);
	EXPECT_EQ(0, memcmp(sent(0), sent(1), MAD_SIZE));
	/* Its timeout starts again. */
	EXPECT_EQ(1000 + PASSIVE_TIMEOUT, host_next_timer());
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_DUPLICATES, ATTR_REQ));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_req_nobody_listens_rej_invalid_service_id)
{
	struct peer_req r = peer_req_default();
	const u8 *m;
	u8 req[MAD_SIZE];

	fake.cma_answer = -ENOENT;
	peer_req(req, &r);
	recv(self->xdev, req);
	EXPECT_EQ(1, fake.nreqs);
	EXPECT_EQ(NULL, fake.reqs[0].cm);
	EXPECT_EQ(0, xr_ibcm_live());
	ASSERT_EQ(1, fake.nsent);
	EXPECT_EQ(0, memcmp(fake.sent[0].ah.dgid, peer_gid, 16));
	EXPECT_EQ(1, fake.sent[0].ah.remote_qpn);
	m = sent(0);
	EXPECT_EQ(ATTR_REJ, attr_of(m));
	EXPECT_EQ(r.tid, tid_of(m));
	EXPECT_EQ(0, local_id_of(m));
	EXPECT_EQ(r.local_id, get_be(m, CM(4), 4));
	EXPECT_EQ(0 << 6, m[CM(8)]);			/* rejected: the REQ */
	EXPECT_EQ(REJ_INVALID_SERVICE_ID, get_be(m, CM(10), 2));
	EXPECT_TRUE(all_zero(m, CM(12), MAD_SIZE));
}

TEST_F(cm, passive_req_refused_by_its_owner_rej_consumer_defined)
{
	struct peer_req r = peer_req_default();
	u8 req[MAD_SIZE];

	fake.cma_answer = -EINVAL;
	peer_req(req, &r);
	recv(self->xdev, req);
	ASSERT_EQ(1, fake.nsent);
	EXPECT_EQ(ATTR_REJ, attr_of(sent(0)));
	EXPECT_EQ(REJ_CONSUMER_DEFINED, get_be(sent(0), CM(10), 2));
	EXPECT_EQ(0, xr_ibcm_live());
}

TEST_F(cm, passive_req_without_room_unanswered_and_taken_again)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm;
	u8 req[MAD_SIZE];

	/* The listener's backlog is full: as a lost REQ. */
	fake.cma_answer = -ENOMEM;
	peer_req(req, &r);
	recv(self->xdev, req);
	EXPECT_EQ(1, fake.nreqs);
	EXPECT_EQ(0, fake.nsent);
	EXPECT_EQ(0, xr_ibcm_live());
	/* Our memory: the same. */
	fake.cma_answer = 0;
	host_fail_allocation(0);
	recv(self->xdev, req);
	host_fail_allocation(1);
	recv(self->xdev, req);
	EXPECT_EQ(1, fake.nreqs);
	EXPECT_EQ(0, fake.nsent);
	/* The peer sends it again: a new request, not a duplicate. */
	host_fail_allocation(-1);
	cm = passive(self->xdev, &r);
	EXPECT_EQ(0, fake.nsent);
	EXPECT_EQ(0, counter(self->xdev, XR_CM_RX_DUPLICATES, ATTR_REQ));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_req_not_rc_rejected_without_asking)
{
	struct peer_req r = peer_req_default();
	u8 req[MAD_SIZE];

	r.transport = 1;	/* UC */
	peer_req(req, &r);
	recv(self->xdev, req);
	EXPECT_EQ(0, fake.nreqs);
	ASSERT_EQ(1, fake.nsent);
	EXPECT_EQ(ATTR_REJ, attr_of(sent(0)));
	EXPECT_EQ(REJ_INVALID_SERVICE_ID, get_be(sent(0), CM(10), 2));
}

TEST_F(cm, passive_req_to_no_gid_of_ours_ignored)
{
	struct xr_gsi_wc wc = peer_wc;
	struct peer_req r = peer_req_default();
	u8 req[MAD_SIZE];

	memcpy(wc.dgid, other_gid, 16);
	peer_req(req, &r);
	xr_ibcm_recv(self->xdev, 1, &wc, req);
	peer_sidr_req(req, r.tid, r.local_id, r.service_id, NULL, 0);
	xr_ibcm_recv(self->xdev, 1, &wc, req);
	EXPECT_EQ(0, fake.nreqs);
	EXPECT_EQ(0, fake.nsent);
	EXPECT_EQ(0, xr_ibcm_live());
}

TEST_F(cm, passive_rep_resent_after_the_requesters_timeout_then_unreachable)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm;
	unsigned int i;

	r.max_cm_retries = 2;
	cm = passive_rep_sent(self->xdev, &r);
	for (i = 1; i <= 2; i++) {
		host_clock_advance(PASSIVE_TIMEOUT);
		ASSERT_EQ(i + 1, fake.nsent);
		EXPECT_EQ(0, memcmp(sent(0), sent(i), MAD_SIZE));
	}
	host_clock_advance(PASSIVE_TIMEOUT - 1);
	EXPECT_EQ(0, fake.nevents);
	host_clock_advance(1);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_UNREACHABLE, fake.events[0].ev.event);
	EXPECT_EQ(-ETIMEDOUT, fake.events[0].ev.status);
	EXPECT_EQ(2, counter(self->xdev, XR_CM_TX_RETRIES, ATTR_REP));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_mra_holds_off_the_next_rep)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive_rep_sent(self->xdev, &r);
	u8 m[MAD_SIZE];

	host_clock_advance(1000);
	/* An MRA of a REQ is not one of our REP: nothing changes. */
	peer_mra(m, r.tid, r.local_id, local_id_of(sent(0)), 0, 24);
	recv(self->xdev, m);
	EXPECT_EQ(PASSIVE_TIMEOUT, host_next_timer());
	peer_mra(m, r.tid, r.local_id, local_id_of(sent(0)), 1, 24);
	recv(self->xdev, m);
	EXPECT_EQ(1000 + PASSIVE_TIMEOUT + MS_24, host_next_timer());
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_establish_before_rtu)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive(self->xdev, &r);
	struct xr_ibcm_rep rep = our_rep();

	EXPECT_EQ(-EINVAL, xr_ibcm_establish(cm));
	ASSERT_EQ(0, xr_ibcm_accept(cm, &rep));
	EXPECT_EQ(0, xr_ibcm_establish(cm));
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_ESTABLISHED, fake.events[0].ev.event);
	EXPECT_EQ(0, host_timers_pending());
	EXPECT_EQ(-EISCONN, xr_ibcm_establish(cm));
	recv_rtu(self->xdev, &r, sent(0));
	EXPECT_EQ(1, fake.nevents);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_reject_sends_rej_with_private_data)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive(self->xdev, &r);
	u8 pd[XR_IBCM_REJ_PRIVATE_LEN];
	const u8 *m;

	pattern(pd, sizeof(pd), 0x55);
	ASSERT_EQ(0, xr_ibcm_reject(cm, REJ_CONSUMER_DEFINED, pd, sizeof(pd)));
	EXPECT_EQ(-EINVAL, xr_ibcm_reject(cm, REJ_CONSUMER_DEFINED, NULL, 0));
	ASSERT_EQ(1, fake.nsent);
	m = sent(0);
	EXPECT_EQ(ATTR_REJ, attr_of(m));
	EXPECT_EQ(r.tid, tid_of(m));
	EXPECT_NE(0, local_id_of(m));
	EXPECT_EQ(r.local_id, get_be(m, CM(4), 4));
	EXPECT_EQ(0 << 6, m[CM(8)]);
	EXPECT_EQ(0, m[CM(9)]);				/* no reject info */
	EXPECT_EQ(REJ_CONSUMER_DEFINED, get_be(m, CM(10), 2));
	EXPECT_TRUE(all_zero(m, CM(12), CM(84)));
	EXPECT_EQ(0, memcmp(m + CM(84), pd, sizeof(pd)));
	EXPECT_EQ(0, fake.nevents);
	xr_ibcm_destroy(cm);
	EXPECT_EQ(1, fake.nsent);
}

TEST_F(cm, active_reject_of_a_rep_says_so)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	const u8 *m;

	recv_rep(self->xdev, sent(0));
	ASSERT_EQ(0, xr_ibcm_reject(cm, REJ_CONSUMER_DEFINED, NULL, 0));
	m = last_sent();
	EXPECT_EQ(ATTR_REJ, attr_of(m));
	EXPECT_EQ(tid_of(sent(0)), tid_of(m));
	EXPECT_EQ(local_id_of(sent(0)), local_id_of(m));
	EXPECT_EQ(0x6a7b8c9d, get_be(m, CM(4), 4));
	EXPECT_EQ(1 << 6, m[CM(8)]);			/* rejected: the REP */
	xr_ibcm_destroy(cm);
}

TEST_F(cm, passive_rej_of_our_rep_reports_rejected)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive_rep_sent(self->xdev, &r);
	u8 m[MAD_SIZE];

	peer_rej(m, r.tid, r.local_id, local_id_of(sent(0)), 1, REJ_STALE_CONN, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_REJECTED, fake.events[0].ev.event);
	EXPECT_EQ(REJ_STALE_CONN, fake.events[0].ev.status);
	host_clock_advance(HOUR);
	EXPECT_EQ(1, fake.nsent);
	xr_ibcm_destroy(cm);
}

/*
 * Our requester destroyed with its REQ unanswered tells the peer at once,
 * as Linux's cm_destroy_id(): a REJ "timeout" of no message with our CA
 * GUID as its ARI, the peer's ID unknown (0), so the peer finds its
 * connection by our GUID and ID.
 */
TEST_F(cm, destroy_in_req_sent_sends_rej_timeout_naming_our_guid)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	const u8 *m;

	xr_ibcm_destroy(cm);
	ASSERT_EQ(2, fake.nsent);
	EXPECT_EQ(0, memcmp(&p.ah, &fake.sent[1].ah, sizeof(p.ah)));
	m = sent(1);
	EXPECT_EQ(ATTR_REJ, attr_of(m));
	EXPECT_EQ(tid_of(sent(0)), tid_of(m));
	EXPECT_EQ(local_id_of(sent(0)), local_id_of(m));
	EXPECT_EQ(0, get_be(m, CM(4), 4));
	EXPECT_EQ(2 << 6, m[CM(8)]);			/* rejected: other */
	EXPECT_EQ(8 << 1, m[CM(9)]);			/* reject info length */
	EXPECT_EQ(REJ_TIMEOUT, get_be(m, CM(10), 2));
	EXPECT_EQ(OUR_GUID, get_be(m, CM(12), 8));	/* ARI */
	EXPECT_TRUE(all_zero(m, CM(20), MAD_SIZE));
	EXPECT_EQ(1, counter(self->xdev, XR_CM_TX_MSGS, ATTR_REJ));
}

/* Our REP unanswered: a REJ "consumer defined" of no message, both IDs, as Linux's. */
TEST_F(cm, destroy_in_rep_sent_sends_rej_consumer_defined_with_both_ids)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive_rep_sent(self->xdev, &r);
	const u8 *m;

	xr_ibcm_destroy(cm);
	ASSERT_EQ(2, fake.nsent);
	EXPECT_EQ(0, memcmp(fake.sent[1].ah.dgid, peer_gid, 16));
	m = sent(1);
	EXPECT_EQ(ATTR_REJ, attr_of(m));
	EXPECT_EQ(r.tid, tid_of(m));
	EXPECT_EQ(local_id_of(sent(0)), local_id_of(m));
	EXPECT_EQ(r.local_id, get_be(m, CM(4), 4));
	EXPECT_EQ(2 << 6, m[CM(8)]);
	EXPECT_EQ(0, m[CM(9)]);
	EXPECT_EQ(REJ_CONSUMER_DEFINED, get_be(m, CM(10), 2));
	EXPECT_TRUE(all_zero(m, CM(12), MAD_SIZE));
}

/*
 * The peer's REJ "timeout" (its requester destroyed, our ID unknown to
 * it) ends passive connection @cm of its REQ @r, found by the peer's GUID
 * and ID: REJECTED with reason 4, nothing sent back or again.
 */
static void rej_timeout_ends(struct __test_metadata *_metadata, struct xr_device *xdev,
			     struct xr_ibcm *cm, const struct peer_req *r)
{
	struct xr_ibcm_rep rep = our_rep();
	unsigned int nsent = fake.nsent;
	u8 m[MAD_SIZE];

	peer_rej_timeout(m, r->tid, r->local_id, 0, PEER_GUID);
	recv(xdev, m);
	EXPECT_EQ(1, fake.nevents);
	EXPECT_EQ(&fake.reqs[0], fake.events[0].context);
	EXPECT_EQ(XR_CM_EVENT_REJECTED, fake.events[0].ev.event);
	EXPECT_EQ(REJ_TIMEOUT, fake.events[0].ev.status);
	EXPECT_EQ(0, host_timers_pending());
	EXPECT_EQ(-EINVAL, xr_ibcm_accept(cm, &rep));
	host_clock_advance(HOUR);
	xr_ibcm_destroy(cm);
	EXPECT_EQ(nsent, fake.nsent);
	EXPECT_EQ(1, fake.nevents);
}

TEST_F(cm, passive_rej_timeout_before_our_answer_reports_rejected)
{
	struct peer_req r = peer_req_default();

	rej_timeout_ends(_metadata, self->xdev, passive(self->xdev, &r), &r);
}

TEST_F(cm, passive_rej_timeout_after_our_rep_reports_rejected)
{
	struct peer_req r = peer_req_default();

	rej_timeout_ends(_metadata, self->xdev, passive_rep_sent(self->xdev, &r), &r);
}

/*
 * A REJ "timeout" names its connection by the peer's GUID and ID only:
 * another GUID or ID (our ID right) ends nothing, nor does GUID 0 (our
 * requester with no REP yet has no peer GUID).
 */
TEST_F(cm, rej_timeout_of_another_guid_or_id_ignored)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm, *a;
	u32 id, aid;
	u8 m[MAD_SIZE];

	cm = passive_rep_sent(self->xdev, &r);
	id = local_id_of(sent(0));
	a = active(self->xdev, &p, NULL);
	aid = local_id_of(sent(1));
	peer_rej_timeout(m, r.tid, r.local_id, id, PEER_GUID ^ 1);
	recv(self->xdev, m);
	peer_rej_timeout(m, r.tid, r.local_id ^ 1, id, PEER_GUID);
	recv(self->xdev, m);
	peer_rej_timeout(m, tid_of(sent(1)), 0, aid, 0);
	recv(self->xdev, m);
	EXPECT_EQ(0, fake.nevents);
	EXPECT_EQ(2, fake.nsent);
	EXPECT_EQ(2, host_timers_pending());
	xr_ibcm_destroy(cm);
	xr_ibcm_destroy(a);
}

/*
 * The peer's passive side destroyed with its REP unanswered (a REJ 28 of
 * no message, both IDs) ends ours whose RTU is not sent yet and one whose
 * RTU just went: REJECTED, as Linux's cm_rej_handler() reports it.
 */
TEST_F(cm, active_rej_after_the_rep_reports_rejected)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *a, *e;
	struct peer_rep r;
	unsigned int i;
	u8 m[MAD_SIZE];

	a = active(self->xdev, &p, NULL);
	e = active(self->xdev, &p, NULL);
	r = recv_rep(self->xdev, sent(0));
	recv_other_rep(self->xdev, sent(1));
	ASSERT_EQ(0, xr_ibcm_send_rtu(e));
	for (i = 0; i < 2; i++) {
		peer_rej(m, tid_of(sent(i)), r.local_id, local_id_of(sent(i)), 2,
			 REJ_CONSUMER_DEFINED, NULL, 0);
		recv(self->xdev, m);
	}
	ASSERT_EQ(4, fake.nevents);
	for (i = 2; i < 4; i++) {
		EXPECT_EQ(XR_CM_EVENT_REJECTED, fake.events[i].ev.event);
		EXPECT_EQ(REJ_CONSUMER_DEFINED, fake.events[i].ev.status);
	}
	EXPECT_EQ(-EINVAL, xr_ibcm_send_rtu(a));
	EXPECT_EQ(-EINVAL, xr_ibcm_disconnect(e));
	xr_ibcm_destroy(a);
	xr_ibcm_destroy(e);
	EXPECT_EQ(3, fake.nsent);		/* ended: no RTU, REJ or DREQ */
}

TEST_F(cm, dreq_received_sends_drep_and_disconnects)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE], pd[XR_IBCM_DREQ_PRIVATE_LEN];
	const u8 *drep;

	pattern(pd, sizeof(pd), 0x99);
	peer_dreq(m, peer_tid(0x4242), r.local_id, id, 0x00c0de, pd, sizeof(pd));
	recv(self->xdev, m);
	ASSERT_EQ(3, fake.nsent);
	drep = sent(2);
	EXPECT_EQ(ATTR_DREP, attr_of(drep));
	EXPECT_EQ(peer_tid(0x4242), tid_of(drep));
	EXPECT_EQ(id, local_id_of(drep));
	EXPECT_EQ(r.local_id, get_be(drep, CM(4), 4));
	EXPECT_TRUE(all_zero(drep, CM(8), MAD_SIZE));
	ASSERT_EQ(2, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_DISCONNECTED, fake.events[1].ev.event);
	EXPECT_EQ(0, fake.events[1].ev.status);
	ASSERT_EQ(sizeof(pd), fake.events[1].ev.private_data_len);
	EXPECT_EQ(0, memcmp(fake.events[1].pdata, pd, sizeof(pd)));
	EXPECT_EQ(-EINVAL, xr_ibcm_disconnect(cm));
	/* The DREP was lost, the DREQ comes again: a DREP again, a duplicate. */
	EXPECT_EQ(0, counter(self->xdev, XR_CM_RX_DUPLICATES, ATTR_DREQ));
	recv(self->xdev, m);
	EXPECT_EQ(4, fake.nsent);
	EXPECT_EQ(2, fake.nevents);
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_DUPLICATES, ATTR_DREQ));
	xr_ibcm_destroy(cm);
	EXPECT_EQ(4, fake.nsent);
}

TEST_F(cm, dreq_for_unknown_connection_gets_drep)
{
	u8 m[MAD_SIZE];
	const u8 *d;

	peer_dreq(m, peer_tid(0x11111111), 0x11111111, 0x22222222, 0x123, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nsent);
	d = sent(0);
	EXPECT_EQ(0, memcmp(fake.sent[0].ah.dgid, peer_gid, 16));
	EXPECT_EQ(ATTR_DREP, attr_of(d));
	EXPECT_EQ(peer_tid(0x11111111), tid_of(d));
	EXPECT_EQ(0x22222222, local_id_of(d));
	EXPECT_EQ(0x11111111, get_be(d, CM(4), 4));
	EXPECT_TRUE(all_zero(d, CM(8), MAD_SIZE));
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_DUPLICATES, ATTR_DREQ));
}

TEST_F(cm, dreq_with_stale_remote_id_gets_drep_and_keeps_the_connection)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	peer_dreq(m, peer_tid(1), r.local_id ^ 0x100, id, 0x00c0de, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(3, fake.nsent);
	EXPECT_EQ(ATTR_DREP, attr_of(sent(2)));
	EXPECT_EQ(r.local_id ^ 0x100, get_be(sent(2), CM(4), 4));
	EXPECT_EQ(1, fake.nevents);
	EXPECT_EQ(0, xr_ibcm_disconnect(cm));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, disconnect_sends_dreq_and_its_drep_disconnects)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];
	const u8 *d;

	ASSERT_EQ(0, xr_ibcm_disconnect(cm));
	EXPECT_EQ(-EINVAL, xr_ibcm_disconnect(cm));
	ASSERT_EQ(3, fake.nsent);
	d = sent(2);
	EXPECT_EQ(ATTR_DREQ, attr_of(d));
	EXPECT_EQ((u64)1 << 32 | id, tid_of(d));
	EXPECT_EQ(id, local_id_of(d));
	EXPECT_EQ(r.local_id, get_be(d, CM(4), 4));
	EXPECT_EQ(r.qpn, get_be(d, CM(8), 3));
	EXPECT_TRUE(all_zero(d, CM(11), MAD_SIZE));
	peer_ids_msg(m, ATTR_DREP, tid_of(d), r.local_id, id);
	recv(self->xdev, m);
	ASSERT_EQ(2, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_DISCONNECTED, fake.events[1].ev.event);
	EXPECT_EQ(0, fake.events[1].ev.status);
	EXPECT_EQ(1, host_timers_pending());	/* TIMEWAIT */
	/* The same DREP again: nothing. */
	recv(self->xdev, m);
	EXPECT_EQ(2, fake.nevents);
	xr_ibcm_destroy(cm);
	EXPECT_EQ(3, fake.nsent);
}

/*
 * As Linux's cm_enter_timewait(): a connection that ended after its QPs
 * talked waits the local ACK timeout (the packets still on the path die),
 * then its owner hears TIMEWAIT_EXIT, once; nothing is sent.
 */
TEST_F(cm, a_disconnected_connection_leaves_timewait_after_the_ack_timeout)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	ASSERT_EQ(0, xr_ibcm_disconnect(cm));
	peer_ids_msg(m, ATTR_DREP, tid_of(sent(2)), r.local_id, id);
	recv(self->xdev, m);
	ASSERT_EQ(2, fake.nevents);
	host_clock_advance(MS_17 - 1);
	EXPECT_EQ(2, fake.nevents);
	host_clock_advance(2);
	ASSERT_EQ(3, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_TIMEWAIT_EXIT, fake.events[2].ev.event);
	EXPECT_EQ(0, fake.events[2].ev.status);
	EXPECT_EQ(0, host_timers_pending());
	host_clock_advance(HOUR);
	EXPECT_EQ(3, fake.nevents);
	EXPECT_EQ(-EINVAL, xr_ibcm_disconnect(cm));
	EXPECT_EQ(3, fake.nsent);
	xr_ibcm_destroy(cm);
}

/* The passive side too, after the peer's DREQ, by the REQ's ACK timeout. */
TEST_F(cm, a_passive_connection_leaves_timewait_after_the_reqs_ack_timeout)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	peer_dreq(m, peer_tid(3), r.local_id, id, 0x789, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(2, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_DISCONNECTED, fake.events[1].ev.event);
	host_clock_advance(MS_17 - 1);
	EXPECT_EQ(2, fake.nevents);
	host_clock_advance(2);
	ASSERT_EQ(3, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_TIMEWAIT_EXIT, fake.events[2].ev.event);
	xr_ibcm_destroy(cm);
}

/* Destroyed in TIMEWAIT: no TIMEWAIT_EXIT, nothing sent, nothing left. */
TEST_F(cm, destroy_in_timewait_sends_nothing_and_tells_nothing)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	peer_dreq(m, peer_tid(9), r.local_id, id, 0x00c0de, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(2, fake.nevents);
	ASSERT_EQ(3, fake.nsent);
	xr_ibcm_destroy(cm);
	host_clock_advance(HOUR);
	EXPECT_EQ(2, fake.nevents);
	EXPECT_EQ(3, fake.nsent);
}

/*
 * Unlike Linux's (which sends it once): a connection destroyed while
 * established sends its DREQ again until the DREP, as an orphan that tells
 * nobody anything, then leaves after TIMEWAIT.
 */
TEST_F(cm, destroyed_established_sends_its_dreq_until_the_drep)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	xr_ibcm_destroy(cm);
	ASSERT_EQ(3, fake.nsent);
	EXPECT_EQ(ATTR_DREQ, attr_of(sent(2)));
	EXPECT_EQ(1, xr_ibcm_live());
	host_clock_advance(ACTIVE_TIMEOUT);
	ASSERT_EQ(4, fake.nsent);
	EXPECT_EQ(0, memcmp(sent(2), sent(3), MAD_SIZE));
	EXPECT_EQ(1, counter(self->xdev, XR_CM_TX_RETRIES, ATTR_DREQ));
	peer_ids_msg(m, ATTR_DREP, tid_of(sent(2)), r.local_id, id);
	recv(self->xdev, m);
	EXPECT_EQ(1, xr_ibcm_live());		/* TIMEWAIT */
	host_clock_advance(MS_17 + 1);
	EXPECT_EQ(0, xr_ibcm_live());
	EXPECT_EQ(0, host_timers_pending());
	EXPECT_EQ(1, fake.nevents);		/* ESTABLISHED only */
	EXPECT_EQ(4, fake.nsent);
}

/*
 * Its DREQ gets every retry of the REQ's count, even when the REQ used
 * some, then TIMEWAIT; the peer's DREQ meanwhile gets a DREP.
 */
TEST_F(cm, destroyed_established_dreq_retries_then_timewait)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	u32 id = local_id_of(sent(0));
	struct peer_rep r = peer_rep_default(tid_of(sent(0)), id);
	u8 m[MAD_SIZE];
	unsigned int i;

	host_clock_advance(ACTIVE_TIMEOUT);		/* the REQ again */
	ASSERT_EQ(2, fake.nsent);
	peer_rep(m, &r);
	recv(self->xdev, m);
	ASSERT_EQ(0, xr_ibcm_send_rtu(cm));
	xr_ibcm_destroy(cm);
	ASSERT_EQ(4, fake.nsent);
	peer_dreq(m, peer_tid(9), r.local_id, id, p.qpn, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(5, fake.nsent);
	EXPECT_EQ(ATTR_DREP, attr_of(last_sent()));
	EXPECT_EQ(1, xr_ibcm_live());
	host_clock_advance(MS_17 + 1);
	EXPECT_EQ(0, xr_ibcm_live());

	/* Another, whose DREQ nobody answers: 1 + max_cm_retries sends. */
	cm = active_established(self->xdev, &r);
	xr_ibcm_destroy(cm);
	for (i = 0; i < p.max_cm_retries; i++)
		host_clock_advance(ACTIVE_TIMEOUT);
	EXPECT_EQ(p.max_cm_retries, counter(self->xdev, XR_CM_TX_RETRIES, ATTR_DREQ));
	EXPECT_EQ(1, xr_ibcm_live());
	host_clock_advance(ACTIVE_TIMEOUT + MS_17 + 1);
	EXPECT_EQ(0, xr_ibcm_live());
	EXPECT_EQ(p.max_cm_retries, counter(self->xdev, XR_CM_TX_RETRIES, ATTR_DREQ));
}

/* A device that goes ends its orphans at once: nothing waits for their timers. */
TEST_F(cm, removing_the_device_ends_its_orphans)
{
	struct xr_ibcm_req p = our_req();
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	struct xr_ibcm *other;

	xr_ibcm_destroy(cm);
	other = active(self->xdev, &p, NULL);
	recv_other_rep(self->xdev, last_sent());
	ASSERT_EQ(0, xr_ibcm_send_rtu(other));
	ASSERT_EQ(0, xr_ibcm_disconnect(other));
	xr_ibcm_destroy(other);
	EXPECT_EQ(2, xr_ibcm_live());
	EXPECT_EQ(3, refcount_read(&self->xdev->users));
	fake.client->remove(self->xdev);
	EXPECT_EQ(0, xr_ibcm_live());
	EXPECT_EQ(0, host_timers_pending());
	EXPECT_EQ(1, refcount_read(&self->xdev->users));
}

/* As Linux's cm_dreq_handler(): a DREQ that names another QP than ours is dropped. */
TEST_F(cm, a_dreq_naming_another_qp_is_dropped)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	peer_dreq(m, peer_tid(2), r.local_id, id, 0x00c0df, NULL, 0);
	recv(self->xdev, m);
	EXPECT_EQ(2, fake.nsent);		/* no DREP */
	EXPECT_EQ(1, fake.nevents);		/* still established */
	EXPECT_EQ(0, xr_ibcm_disconnect(cm));
	xr_ibcm_destroy(cm);
}

/*
 * A REQ from the peer's QP that still has a connection here (the peer lost
 * it): as Linux's cm_match_req(), rejected as a stale connection without
 * asking the RDMA CM, and the old connection ends with a DREQ.
 */
TEST_F(cm, a_req_from_a_qp_still_connected_is_rejected_stale_and_the_old_one_ends)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive_established(self->xdev, &r);
	u32 id = local_id_of(sent(0)), new_id;
	const u8 *rej, *dreq;

	new_id = recv_req_of_the_same_qp(self->xdev, &r);
	EXPECT_EQ(1, fake.nreqs);
	ASSERT_EQ(3, fake.nsent);
	rej = sent(1);
	EXPECT_EQ(ATTR_REJ, attr_of(rej));
	EXPECT_EQ(peer_tid(new_id), tid_of(rej));
	EXPECT_EQ(0, local_id_of(rej));
	EXPECT_EQ(new_id, get_be(rej, CM(4), 4));
	EXPECT_EQ(0, rej[CM(8)] >> 6);			/* the REQ rejected */
	EXPECT_EQ(REJ_STALE_CONN, get_be(rej, CM(10), 2));
	dreq = sent(2);
	EXPECT_EQ(ATTR_DREQ, attr_of(dreq));
	EXPECT_EQ(id, local_id_of(dreq));
	EXPECT_EQ(r.local_id, get_be(dreq, CM(4), 4));
	EXPECT_EQ(r.qpn, get_be(dreq, CM(8), 3));
	EXPECT_EQ(-EINVAL, xr_ibcm_disconnect(cm));	/* DREQ_SENT */
	xr_ibcm_destroy(cm);
}

/*
 * A REP for our REQ from the peer's QP that still has a connection here:
 * as Linux's cm_rep_handler(), the REP rejected as stale, the old
 * connection ended with a DREQ, our REQ still waiting (sent again).
 */
TEST_F(cm, a_rep_from_a_qp_still_connected_is_rejected_stale_and_the_old_one_ends)
{
	struct xr_ibcm_req p = our_req();
	struct peer_rep ra, rb;
	struct xr_ibcm *a = active_established(self->xdev, &ra), *b;
	u32 a_id = local_id_of(sent(0)), b_id;
	const u8 *rej, *dreq;
	u8 m[MAD_SIZE];

	b = active(self->xdev, &p, NULL);
	ASSERT_EQ(3, fake.nsent);
	b_id = local_id_of(sent(2));
	rb = peer_rep_default(tid_of(sent(2)), b_id);
	rb.local_id = ra.local_id + 1;
	peer_rep(m, &rb);			/* the same QP as ra's */
	recv(self->xdev, m);
	EXPECT_EQ(1, fake.nevents);		/* no CONNECT_RESPONSE for b */
	ASSERT_EQ(5, fake.nsent);
	rej = sent(3);
	EXPECT_EQ(ATTR_REJ, attr_of(rej));
	EXPECT_EQ(tid_of(sent(2)), tid_of(rej));
	EXPECT_EQ(b_id, local_id_of(rej));
	EXPECT_EQ(rb.local_id, get_be(rej, CM(4), 4));
	EXPECT_EQ(1, rej[CM(8)] >> 6);			/* the REP rejected */
	EXPECT_EQ(REJ_STALE_CONN, get_be(rej, CM(10), 2));
	dreq = sent(4);
	EXPECT_EQ(ATTR_DREQ, attr_of(dreq));
	EXPECT_EQ(a_id, local_id_of(dreq));
	EXPECT_EQ(-EINVAL, xr_ibcm_disconnect(a));	/* DREQ_SENT */
	/* b's REQ goes again after its timeout (with a's DREQ). */
	host_clock_advance(ACTIVE_TIMEOUT);
	ASSERT_EQ(7, fake.nsent);
	EXPECT_EQ(ATTR_REQ, attr_of(sent(5)));
	EXPECT_EQ(b_id, local_id_of(sent(5)));
	EXPECT_EQ(ATTR_DREQ, attr_of(sent(6)));
	xr_ibcm_destroy(b);
	xr_ibcm_destroy(a);
}

/* The same QP's REQ once the old connection is in TIMEWAIT: a new connection. */
TEST_F(cm, a_req_from_a_qp_whose_connection_is_in_timewait_is_taken)
{
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = passive_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	peer_dreq(m, peer_tid(3), r.local_id, id, 0x789, NULL, 0);
	recv(self->xdev, m);
	recv_req_of_the_same_qp(self->xdev, &r);
	ASSERT_EQ(2, fake.nreqs);
	EXPECT_NE(NULL, fake.reqs[1].cm);
	EXPECT_EQ(2, fake.nsent);		/* the REP, the DREP */
	xr_ibcm_destroy(fake.reqs[1].cm);
	xr_ibcm_destroy(cm);
}

/* As Linux's cm_rej_handler(): our REQ rejected as stale goes through TIMEWAIT. */
TEST_F(cm, our_req_rejected_stale_reports_rejected_then_leaves_timewait)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	u8 m[MAD_SIZE];

	peer_rej(m, tid_of(sent(0)), 0, local_id_of(sent(0)), 0, REJ_STALE_CONN, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_REJECTED, fake.events[0].ev.event);
	EXPECT_EQ(REJ_STALE_CONN, fake.events[0].ev.status);
	host_clock_advance(MS_17 + 1);
	ASSERT_EQ(2, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_TIMEWAIT_EXIT, fake.events[1].ev.event);
	EXPECT_EQ(1, fake.nsent);		/* no REQ again */
	xr_ibcm_destroy(cm);
}

TEST_F(cm, disconnect_unanswered_dreq_resent_then_disconnected)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);

	ASSERT_EQ(0, xr_ibcm_disconnect(cm));
	host_clock_advance(3 * ACTIVE_TIMEOUT);
	ASSERT_EQ(6, fake.nsent);
	EXPECT_EQ(0, memcmp(sent(2), sent(5), MAD_SIZE));
	EXPECT_EQ(1, fake.nevents);
	host_clock_advance(ACTIVE_TIMEOUT);
	ASSERT_EQ(2, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_DISCONNECTED, fake.events[1].ev.event);
	EXPECT_EQ(0, fake.events[1].ev.status);
	EXPECT_EQ(3, counter(self->xdev, XR_CM_TX_RETRIES, ATTR_DREQ));
	xr_ibcm_destroy(cm);
}

TEST_F(cm, dreqs_crossing_end_both_sides)
{
	struct peer_rep r;
	struct xr_ibcm *cm = active_established(self->xdev, &r);
	u32 id = local_id_of(sent(0));
	u8 m[MAD_SIZE];

	ASSERT_EQ(0, xr_ibcm_disconnect(cm));
	peer_dreq(m, peer_tid(7), r.local_id, id, 0x00c0de, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(4, fake.nsent);
	EXPECT_EQ(ATTR_DREP, attr_of(sent(3)));
	ASSERT_EQ(2, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_DISCONNECTED, fake.events[1].ev.event);
	EXPECT_EQ(1, host_timers_pending());	/* TIMEWAIT, not the DREQ's */
	/* The peer's DREP to ours, late: nothing more. */
	peer_ids_msg(m, ATTR_DREP, tid_of(sent(2)), r.local_id, id);
	recv(self->xdev, m);
	EXPECT_EQ(2, fake.nevents);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, sidr_req_fields_at_ibta_offsets_and_rep_gives_the_service)
{
	struct xr_ibcm_req p = our_req();
	u8 pd[XR_IBCM_SIDR_REQ_PRIVATE_LEN], rpd[XR_IBCM_SIDR_REP_PRIVATE_LEN];
	struct xr_ibcm *cm;
	u8 m[MAD_SIZE];
	const u8 *s;
	u32 id;

	pattern(pd, sizeof(pd), 0x21);
	p.private_data = pd;
	p.private_data_len = sizeof(pd);
	cm = xr_ibcm_sidr_req(self->xdev, &p, fake_handler, NULL);
	ASSERT_FALSE(IS_ERR(cm));
	ASSERT_EQ(1, fake.nsent);
	s = sent(0);
	id = local_id_of(s);
	EXPECT_EQ(ATTR_SIDR_REQ, attr_of(s));
	EXPECT_EQ((u64)1 << 32 | id, tid_of(s));
	/* IBTA table 119. */
	EXPECT_EQ(0xffff, get_be(s, CM(4), 2));
	EXPECT_TRUE(all_zero(s, CM(6), CM(8)));
	EXPECT_EQ(p.service_id, get_be(s, CM(8), 8));
	EXPECT_EQ(0, memcmp(s + CM(16), pd, sizeof(pd)));
	EXPECT_TRUE(all_zero(s, CM(232), MAD_SIZE));

	pattern(rpd, sizeof(rpd), 0x61);
	peer_sidr_rep(m, tid_of(s), id, 0, 0x999, p.service_id, 0x01234567, rpd, sizeof(rpd));
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_ESTABLISHED, fake.events[0].ev.event);
	EXPECT_EQ(0, fake.events[0].ev.status);
	EXPECT_EQ(0x999, fake.events[0].ev.qp_num);
	EXPECT_EQ(0x01234567, fake.events[0].ev.qkey);
	ASSERT_EQ(sizeof(rpd), fake.events[0].ev.private_data_len);
	EXPECT_EQ(0, memcmp(fake.events[0].pdata, rpd, sizeof(rpd)));
	EXPECT_EQ(0, host_timers_pending());
	/* Once. */
	recv(self->xdev, m);
	EXPECT_EQ(1, fake.nevents);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, sidr_rep_status_makes_it_unreachable)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm;
	u8 m[MAD_SIZE];

	p.private_data_len = 0;
	cm = xr_ibcm_sidr_req(self->xdev, &p, fake_handler, NULL);
	ASSERT_FALSE(IS_ERR(cm));
	peer_sidr_rep(m, tid_of(sent(0)), local_id_of(sent(0)), XR_SIDR_REJECT, 0,
		      p.service_id, 0, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_UNREACHABLE, fake.events[0].ev.event);
	EXPECT_EQ(XR_SIDR_REJECT, fake.events[0].ev.status);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, sidr_req_resent_then_unreachable)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm;

	p.max_cm_retries = 1;
	cm = xr_ibcm_sidr_req(self->xdev, &p, fake_handler, NULL);
	ASSERT_FALSE(IS_ERR(cm));
	host_clock_advance(ACTIVE_TIMEOUT);
	ASSERT_EQ(2, fake.nsent);
	EXPECT_EQ(0, memcmp(sent(0), sent(1), MAD_SIZE));
	host_clock_advance(ACTIVE_TIMEOUT);
	ASSERT_EQ(1, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_UNREACHABLE, fake.events[0].ev.event);
	EXPECT_EQ(-ETIMEDOUT, fake.events[0].ev.status);
	xr_ibcm_destroy(cm);
}

TEST_F(cm, sidr_req_reaches_the_rdma_cm_and_rep_at_ibta_offsets)
{
	u8 pd[XR_IBCM_SIDR_REQ_PRIVATE_LEN], rpd[XR_IBCM_SIDR_REP_PRIVATE_LEN];
	const u64 service = 0x0000000001114e21ull;	/* RDMA_PS_UDP, port 20001 */
	const struct fake_req *q = &fake.reqs[0];
	u8 m[MAD_SIZE];
	const u8 *s;

	pattern(pd, sizeof(pd), 0x33);
	peer_sidr_req(m, peer_tid(0x5150), 0x5150, service, pd, sizeof(pd));
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nreqs);
	ASSERT_NE(NULL, q->cm);
	EXPECT_TRUE(q->r.ud);
	EXPECT_EQ(1, q->r.port);
	EXPECT_EQ(service, q->r.service_id);
	EXPECT_EQ(0, memcmp(q->r.sgid, our_gid, 16));
	EXPECT_EQ(0, memcmp(q->r.dgid, peer_gid, 16));
	ASSERT_EQ(sizeof(pd), q->r.private_data_len);
	EXPECT_EQ(0, memcmp(q->pdata, pd, sizeof(pd)));
	EXPECT_EQ(0, fake.nsent);

	pattern(rpd, sizeof(rpd), 0x44);
	EXPECT_EQ(-EINVAL, xr_ibcm_sidr_rep(q->cm, 0, 0x777, 0x01234567, rpd, sizeof(rpd) + 1));
	ASSERT_EQ(0, xr_ibcm_sidr_rep(q->cm, 0, 0x777, 0x01234567, rpd, sizeof(rpd)));
	EXPECT_EQ(-EINVAL, xr_ibcm_sidr_rep(q->cm, 0, 0x777, 0x01234567, NULL, 0));
	ASSERT_EQ(1, fake.nsent);
	EXPECT_EQ(0, memcmp(fake.sent[0].ah.dgid, peer_gid, 16));
	s = sent(0);
	EXPECT_EQ(ATTR_SIDR_REP, attr_of(s));
	EXPECT_EQ(peer_tid(0x5150), tid_of(s));
	/* IBTA table 120. */
	EXPECT_EQ(0x5150, local_id_of(s));		/* request ID */
	EXPECT_EQ(0, s[CM(4)]);				/* status */
	EXPECT_TRUE(all_zero(s, CM(5), CM(8)));
	EXPECT_EQ(0x777, get_be(s, CM(8), 3));
	EXPECT_EQ(0, s[CM(11)]);
	EXPECT_EQ(service, get_be(s, CM(12), 8));
	EXPECT_EQ(0x01234567, get_be(s, CM(20), 4));
	EXPECT_TRUE(all_zero(s, CM(24), CM(96)));	/* ClassPortInfo */
	EXPECT_EQ(0, memcmp(s + CM(96), rpd, sizeof(rpd)));
	EXPECT_TRUE(all_zero(s, CM(232), MAD_SIZE));
	/* The same SIDR_REQ again: the same answer, nobody asked. */
	recv(self->xdev, m);
	EXPECT_EQ(1, fake.nreqs);
	ASSERT_EQ(2, fake.nsent);
	EXPECT_EQ(0, memcmp(sent(0), sent(1), MAD_SIZE));
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_DUPLICATES, ATTR_SIDR_REQ));
	xr_ibcm_destroy(q->cm);
}

TEST_F(cm, sidr_req_nobody_serves_status_1)
{
	u8 m[MAD_SIZE];
	const u8 *s;

	fake.cma_answer = -ENOENT;
	peer_sidr_req(m, peer_tid(0x5151), 0x5151, 0x0000000001114e21ull, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nsent);
	s = sent(0);
	EXPECT_EQ(ATTR_SIDR_REP, attr_of(s));
	EXPECT_EQ(peer_tid(0x5151), tid_of(s));
	EXPECT_EQ(0x5151, local_id_of(s));
	EXPECT_EQ(XR_SIDR_UNSUPPORTED, s[CM(4)]);
	EXPECT_EQ(0, get_be(s, CM(8), 3));
	EXPECT_EQ(0x0000000001114e21ull, get_be(s, CM(12), 8));
	EXPECT_EQ(0, get_be(s, CM(20), 4));
	EXPECT_EQ(0, xr_ibcm_live());
}

TEST_F(cm, sidr_req_refused_status_2)
{
	u8 m[MAD_SIZE];

	/* As Linux: any failure of the listener, a full backlog too. */
	fake.cma_answer = -ENOMEM;
	peer_sidr_req(m, peer_tid(0x5152), 0x5152, 0x0000000001114e21ull, NULL, 0);
	recv(self->xdev, m);
	ASSERT_EQ(1, fake.nsent);
	EXPECT_EQ(XR_SIDR_REJECT, sent(0)[CM(4)]);
	EXPECT_EQ(0, xr_ibcm_live());
}

TEST_F(cm, wrong_class_version_or_method_ignored)
{
	static const struct {
		u8 version, method;
	} bad[] = { { 1, 0x03 }, { 3, 0x03 }, { 2, 0x01 }, { 2, 0x02 }, { 2, 0x81 } };
	struct peer_req r = peer_req_default();
	u8 m[MAD_SIZE];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		peer_req(m, &r);
		m[2] = bad[i].version;
		m[3] = bad[i].method;
		recv(self->xdev, m);
		peer_dreq(m, peer_tid(1), 1, 2, 3, NULL, 0);
		m[2] = bad[i].version;
		m[3] = bad[i].method;
		recv(self->xdev, m);
		peer_sidr_req(m, peer_tid(1), 1, r.service_id, NULL, 0);
		m[2] = bad[i].version;
		m[3] = bad[i].method;
		recv(self->xdev, m);
	}
	/* Messages not here (LAP, APR) and attributes of no message. */
	peer_ids_msg(m, ATTR_LAP, peer_tid(1), 1, 2);
	recv(self->xdev, m);
	peer_ids_msg(m, 0x001a, peer_tid(1), 1, 2);
	recv(self->xdev, m);
	peer_ids_msg(m, 0xffff, peer_tid(1), 1, 2);
	recv(self->xdev, m);
	EXPECT_EQ(0, fake.nreqs);
	EXPECT_EQ(0, fake.nsent);
	EXPECT_EQ(0, xr_ibcm_live());
	EXPECT_EQ(0, counter(self->xdev, XR_CM_RX_MSGS, ATTR_REQ));
	EXPECT_EQ(1, counter(self->xdev, XR_CM_RX_MSGS, ATTR_LAP));
}

TEST_F(cm, stale_or_mismatched_ids_ignored)
{
	struct peer_req pr = peer_req_default();
	struct xr_ibcm *a, *p;
	struct peer_rep r;
	u32 aid, pid;
	u8 m[MAD_SIZE];

	a = active_established(self->xdev, &r);
	aid = local_id_of(sent(0));
	p = passive_rep_sent(self->xdev, &pr);
	pid = local_id_of(sent(2));
	ASSERT_EQ(3, fake.nsent);
	ASSERT_EQ(1, fake.nevents);
	/* Our ID wrong: nobody's. */
	peer_ids_msg(m, ATTR_RTU, pr.tid, pr.local_id, pid ^ 0x10000);
	recv(self->xdev, m);
	peer_rej(m, pr.tid, pr.local_id, pid ^ 0x10000, 1, REJ_STALE_CONN, NULL, 0);
	recv(self->xdev, m);
	peer_ids_msg(m, ATTR_DREP, peer_tid(1), r.local_id, aid ^ 0x10000);
	recv(self->xdev, m);
	peer_mra(m, pr.tid, pr.local_id, pid ^ 0x10000, 1, 24);
	recv(self->xdev, m);
	/* Ours right, the peer's wrong: stale. */
	peer_ids_msg(m, ATTR_RTU, pr.tid, pr.local_id ^ 1, pid);
	recv(self->xdev, m);
	peer_rej(m, pr.tid, pr.local_id ^ 1, pid, 1, REJ_STALE_CONN, NULL, 0);
	recv(self->xdev, m);
	peer_rej(m, peer_tid(1), r.local_id ^ 1, aid, 2, REJ_CONSUMER_DEFINED, NULL, 0);
	recv(self->xdev, m);
	/* A REJ of a REQ: of ours alone, before the peer's ID is known. */
	peer_rej(m, pr.tid, 0, pid, 0, REJ_CONSUMER_DEFINED, NULL, 0);
	recv(self->xdev, m);
	peer_ids_msg(m, ATTR_DREP, peer_tid(1), r.local_id ^ 1, aid);
	recv(self->xdev, m);
	/* A SIDR_REP to a connection, to no request. */
	peer_sidr_rep(m, peer_tid(1), aid, 0, 0x999, 0, 0x01234567, NULL, 0);
	recv(self->xdev, m);
	peer_sidr_rep(m, peer_tid(1), pid ^ 0x10000, 0, 0x999, 0, 0x01234567, NULL, 0);
	recv(self->xdev, m);
	EXPECT_EQ(3, fake.nsent);
	EXPECT_EQ(1, fake.nevents);
	EXPECT_EQ(PASSIVE_TIMEOUT, host_next_timer());	/* the REP's, untouched */
	/* The right RTU still establishes the passive one. */
	peer_ids_msg(m, ATTR_RTU, pr.tid, pr.local_id, pid);
	recv(self->xdev, m);
	ASSERT_EQ(2, fake.nevents);
	EXPECT_EQ(XR_CM_EVENT_ESTABLISHED, fake.events[1].ev.event);
	xr_ibcm_destroy(a);
	xr_ibcm_destroy(p);
}

TEST_F(cm, stale_rep_of_an_ended_connection_not_taken_by_the_next)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *a, *b;
	struct peer_rep r;
	u8 m[MAD_SIZE];

	a = active(self->xdev, &p, NULL);
	r = recv_rep(self->xdev, sent(0));
	xr_ibcm_destroy(a);
	/* The next connection to the same peer: an ID of its own. */
	b = active(self->xdev, &p, NULL);
	EXPECT_NE(local_id_of(sent(0)), local_id_of(last_sent()));
	/* The peer's REP to the first, sent again, comes late: nobody's. */
	peer_rep(m, &r);
	recv(self->xdev, m);
	EXPECT_EQ(1, fake.nevents);
	EXPECT_EQ(1, host_timers_pending());
	xr_ibcm_destroy(b);
}

TEST_F(cm, messages_for_another_device_ignored)
{
	struct xr_device *other = fake_device(1);
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);
	struct peer_rep r = peer_rep_default(tid_of(sent(0)), local_id_of(sent(0)));
	u8 m[MAD_SIZE];

	peer_rep(m, &r);
	xr_ibcm_recv(other, 1, &peer_wc, m);
	EXPECT_EQ(0, fake.nevents);
	EXPECT_EQ(1, fake.nsent);
	EXPECT_EQ(1, host_timers_pending());
	recv(self->xdev, m);
	EXPECT_EQ(1, fake.nevents);
	xr_ibcm_destroy(cm);
	EXPECT_EQ(1, refcount_read(&other->users));
	fake_device_free(other);
}

TEST_F(cm, counters_of_ports_that_have_none_read_0)
{
	struct xr_ibcm_req p = our_req();
	struct xr_ibcm *cm = active(self->xdev, &p, NULL);

	EXPECT_EQ(1, xr_ibcm_counter(self->xdev, 1, XR_CM_TX_MSGS, 0));
	EXPECT_EQ(0, xr_ibcm_counter(self->xdev, 0, XR_CM_TX_MSGS, 0));
	EXPECT_EQ(0, xr_ibcm_counter(self->xdev, 2, XR_CM_TX_MSGS, 0));
	EXPECT_EQ(0, xr_ibcm_counter(self->xdev, 1, XR_CM_COUNTER_GROUPS, 0));
	EXPECT_EQ(0, xr_ibcm_counter(self->xdev, 1, XR_CM_TX_MSGS, XR_CM_MSG_KINDS));
	xr_ibcm_destroy(cm);
}

/*
 * Destroy in every state: what goes to the peer (as Linux's ib_cm: a DREQ
 * for an established connection, a REJ for one not yet established, a
 * SIDR_REP "rejected" for a SIDR_REQ not yet answered, else nothing), no
 * event after it, nothing left (once a DREQ unanswered ran out of retries).
 */
enum state {
	REQ_SENT, REP_RCVD, ESTABLISHED, DREQ_SENT, REJECTED, SIDR_REQ_SENT,
	REQ_RCVD, REP_SENT, PASSIVE_ESTABLISHED, SIDR_REQ_RCVD, SIDR_REP_SENT,
};

FIXTURE(destroy) {
	struct xr_device *xdev;
	struct xr_ibcm *cm;
	unsigned int nsent, nevents;
	long allocations;
};

FIXTURE_VARIANT(destroy) {
	enum state state;
	u16 sends;		/* the attribute of what destroy sends, or 0 */
	u8 byte8;		/* its CM byte 8 (REJ: rejected) or 4 (SIDR_REP: status) */
	u16 reason;		/* a REJ's */
	bool orphan;		/* its DREQ unanswered: it lives on */
};

FIXTURE_VARIANT_ADD(destroy, req_sent) {
	.state = REQ_SENT, .sends = ATTR_REJ, .byte8 = 2 << 6, .reason = REJ_TIMEOUT,
};
FIXTURE_VARIANT_ADD(destroy, rep_rcvd) {
	.state = REP_RCVD, .sends = ATTR_REJ, .byte8 = 1 << 6, .reason = REJ_CONSUMER_DEFINED,
};
FIXTURE_VARIANT_ADD(destroy, established) {
	.state = ESTABLISHED, .sends = ATTR_DREQ, .orphan = true,
};
FIXTURE_VARIANT_ADD(destroy, dreq_sent) { .state = DREQ_SENT, .orphan = true };
FIXTURE_VARIANT_ADD(destroy, rejected) { .state = REJECTED };
FIXTURE_VARIANT_ADD(destroy, sidr_req_sent) { .state = SIDR_REQ_SENT };
FIXTURE_VARIANT_ADD(destroy, req_rcvd) {
	.state = REQ_RCVD, .sends = ATTR_REJ, .byte8 = 0, .reason = REJ_CONSUMER_DEFINED,
};
FIXTURE_VARIANT_ADD(destroy, rep_sent) {
	.state = REP_SENT, .sends = ATTR_REJ, .byte8 = 2 << 6, .reason = REJ_CONSUMER_DEFINED,
};
FIXTURE_VARIANT_ADD(destroy, passive_established) {
	.state = PASSIVE_ESTABLISHED, .sends = ATTR_DREQ, .orphan = true,
};
FIXTURE_VARIANT_ADD(destroy, sidr_req_rcvd) {
	.state = SIDR_REQ_RCVD, .sends = ATTR_SIDR_REP, .byte8 = XR_SIDR_REJECT,
};
FIXTURE_VARIANT_ADD(destroy, sidr_rep_sent) { .state = SIDR_REP_SENT };

FIXTURE_SETUP(destroy)
{
	struct peer_req pr = peer_req_default();
	struct xr_ibcm_req p = our_req();
	struct peer_rep r;
	u8 m[MAD_SIZE];

	self->xdev = start(&self->allocations);
	switch (variant->state) {
	case REQ_SENT:
		self->cm = active(self->xdev, &p, NULL);
		break;
	case REP_RCVD:
		self->cm = active(self->xdev, &p, NULL);
		recv_rep(self->xdev, sent(0));
		break;
	case ESTABLISHED:
		self->cm = active_established(self->xdev, &r);
		break;
	case DREQ_SENT:
		self->cm = active_established(self->xdev, &r);
		ASSERT_EQ(0, xr_ibcm_disconnect(self->cm));
		break;
	case REJECTED:
		self->cm = active(self->xdev, &p, NULL);
		peer_rej(m, tid_of(sent(0)), 0, local_id_of(sent(0)), 0, REJ_CONSUMER_DEFINED,
			 NULL, 0);
		recv(self->xdev, m);
		break;
	case SIDR_REQ_SENT:
		p.private_data_len = 0;
		self->cm = xr_ibcm_sidr_req(self->xdev, &p, fake_handler, NULL);
		ASSERT_FALSE(IS_ERR(self->cm));
		break;
	case REQ_RCVD:
		self->cm = passive(self->xdev, &pr);
		break;
	case REP_SENT:
		self->cm = passive_rep_sent(self->xdev, &pr);
		break;
	case PASSIVE_ESTABLISHED:
		self->cm = passive_rep_sent(self->xdev, &pr);
		recv_rtu(self->xdev, &pr, sent(0));
		break;
	case SIDR_REQ_RCVD:
	case SIDR_REP_SENT:
		peer_sidr_req(m, peer_tid(0x5150), 0x5150, pr.service_id, NULL, 0);
		recv(self->xdev, m);
		ASSERT_EQ(1, fake.nreqs);
		self->cm = fake.reqs[0].cm;
		ASSERT_NE(NULL, self->cm);
		if (variant->state == SIDR_REP_SENT)
			ASSERT_EQ(0, xr_ibcm_sidr_rep(self->cm, 0, 0x777, 0x01234567, NULL, 0));
		break;
	}
	self->nsent = fake.nsent;
	self->nevents = fake.nevents;
}

FIXTURE_TEARDOWN(destroy)
{
	nothing_left(_metadata, self->xdev, self->allocations);
}

TEST_F(destroy, tells_the_peer_and_leaves_nothing)
{
	const u8 *m;

	EXPECT_EQ(1, xr_ibcm_live());
	xr_ibcm_destroy(self->cm);
	/* One whose DREQ is unanswered lives on to send it again. */
	EXPECT_EQ(variant->orphan, xr_ibcm_live());
	EXPECT_EQ(variant->orphan, host_timers_pending());
	if (!variant->sends) {
		EXPECT_EQ(self->nsent, fake.nsent);
	} else {
		ASSERT_EQ(self->nsent + 1, fake.nsent);
		m = last_sent();
		EXPECT_EQ(variant->sends, attr_of(m));
		if (variant->sends == ATTR_REJ) {
			EXPECT_EQ(variant->byte8, m[CM(8)]);
			EXPECT_EQ(variant->reason, get_be(m, CM(10), 2));
		} else if (variant->sends == ATTR_SIDR_REP) {
			EXPECT_EQ(variant->byte8, m[CM(4)]);
			EXPECT_EQ(0x5150, local_id_of(m));
		}
	}
	/* Nothing more, whatever comes: its handler is not called again. */
	host_clock_advance(HOUR);
	EXPECT_EQ(self->nevents, fake.nevents);
}

TEST_HARNESS_MAIN
