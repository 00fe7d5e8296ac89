// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of DCQCN's algorithm (cc.c) step by step on a clock of the
 * test's own: the reaction point's cuts, alpha, the rate increases by timer
 * and byte counter through fast recovery, additive and hyper increase, the
 * bounds, the monitor period and pacing; the notification point's CNP
 * interval.  The rates expected are computed here from the algorithm's
 * definition (cc.c) with mlx5's default parameters.  The wire's part is in
 * test_wire.c.
 */
#include "kselftest_harness.h"

#include "cc.h"

#define T0		1000000000ll	/* ns: any time */
#define US		1000ll
#define LINE		XE_CC_LINE_RATE

/* The rate of a cut with alpha (of 1024). */
static uint32_t cut(uint32_t rc, uint32_t alpha)
{
	return (uint64_t)rc * (2048 - alpha) / 2048;
}

/* alpha after a CNP, with g = 5 / 1024 (dce_tcp_g 1019). */
static uint32_t raised(uint32_t alpha)
{
	return alpha * 1019 / 1024 + 5;
}

static uint32_t half_way(uint32_t rt, uint32_t rc)
{
	return (rt + rc + 1) / 2;
}

TEST(a_first_cnp_cuts_the_line_rate_by_half_alpha_and_raises_alpha)
{
	struct xe_cc_params p;
	struct xe_cc_rp rp = { };

	xe_cc_defaults(&p);
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0));
	EXPECT_EQ(LINE, rp.rt);
	EXPECT_EQ(cut(LINE, 1023), rp.rc);
	EXPECT_EQ(5004, rp.rc);
	EXPECT_EQ(raised(1023), rp.alpha);
	EXPECT_EQ(T0, rp.cut_at);
}

TEST(a_cnp_within_the_monitor_period_changes_nothing)
{
	struct xe_cc_params p;
	struct xe_cc_rp rp = { }, before;

	xe_cc_defaults(&p);
	p.dce_tcp_rtt = 1000;		/* no decay of alpha in between */
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0));
	before = rp;
	EXPECT_FALSE(xe_cc_rp_cnp(&p, &rp, T0 + 4 * US - 1));
	EXPECT_EQ(0, memcmp(&before, &rp, sizeof(rp)));
	EXPECT_TRUE(xe_cc_rp_cnp(&p, &rp, T0 + 4 * US));
	EXPECT_EQ(5004, rp.rt);
	EXPECT_EQ(cut(5004, before.alpha), rp.rc);
	EXPECT_EQ(raised(before.alpha), rp.alpha);
}

TEST(alpha_decays_by_one_minus_g_each_period_without_a_cnp)
{
	struct xe_cc_params p;
	struct xe_cc_rp rp = { };
	uint32_t a;

	xe_cc_defaults(&p);
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0));
	a = rp.alpha;
	xe_cc_rp_advance(&p, &rp, T0 + 1 * US - 1);
	EXPECT_EQ(a, rp.alpha);
	xe_cc_rp_advance(&p, &rp, T0 + 1 * US);
	a = a * 1019 / 1024;
	EXPECT_EQ(a, rp.alpha);
	xe_cc_rp_advance(&p, &rp, T0 + 3 * US);
	a = a * 1019 / 1024;
	a = a * 1019 / 1024;
	EXPECT_EQ(a, rp.alpha);
	/* The next cut takes the decayed alpha. */
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0 + 4 * US));
	a = a * 1019 / 1024;
	EXPECT_EQ(cut(5004, a), rp.rc);
	EXPECT_EQ(raised(a), rp.alpha);
	/* Long without a CNP, alpha goes to nothing; a CNP raises it by g. */
	xe_cc_rp_advance(&p, &rp, T0 + 1000 * US);
	EXPECT_EQ(0, rp.alpha);
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0 + 1000 * US));
	EXPECT_EQ(1024 - 1019, rp.alpha);
}

TEST(timer_events_recover_fast_then_increase_additively_then_hyper)
{
	struct xe_cc_params p;
	struct xe_cc_rp rp = { };
	uint32_t rc, rt, unit = 32767 * 64;
	int64_t t;

	xe_cc_defaults(&p);
	/* Two cuts: RT = 5004, RC below it. */
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0));
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0 + 4 * US));
	t = T0 + 4 * US;
	rt = rp.rt;
	rc = rp.rc;
	ASSERT_EQ(5004, rt);
	/* No event before rpg_time_reset (300 us). */
	xe_cc_rp_advance(&p, &rp, t + 300 * US - 1);
	EXPECT_EQ(rc, rp.rc);
	/* Event 1 (rpg_threshold 1): fast recovery, RT stays. */
	xe_cc_rp_advance(&p, &rp, t + 300 * US);
	rc = half_way(rt, rc);
	EXPECT_EQ(rt, rp.rt);
	EXPECT_EQ(rc, rp.rc);
	/* Events 2 and 3 of the timer alone: additive increase by 5 Mb/s. */
	xe_cc_rp_advance(&p, &rp, t + 900 * US);
	rt += 5;
	rc = half_way(rt, rc);
	rt += 5;
	rc = half_way(rt, rc);
	EXPECT_EQ(rt, rp.rt);
	EXPECT_EQ(rc, rp.rc);
	EXPECT_EQ(3, rp.t);
	/* The byte counter's first event: still additive (BC is 1). */
	xe_cc_rp_sent(&p, &rp, unit, t + 900 * US);
	rt += 5;
	rc = half_way(rt, rc);
	EXPECT_EQ(rt, rp.rt);
	EXPECT_EQ(rc, rp.rc);
	/* Both past the threshold: hyper increase, i * 50 Mb/s, i = min(T, BC) - 1. */
	xe_cc_rp_sent(&p, &rp, unit, t + 900 * US);
	rt += 1 * 50;
	rc = half_way(rt, rc);
	EXPECT_EQ(rt, rp.rt);
	EXPECT_EQ(rc, rp.rc);
	xe_cc_rp_advance(&p, &rp, t + 1200 * US);	/* T = 4, BC = 2 */
	rt += 1 * 50;
	rc = half_way(rt, rc);
	EXPECT_EQ(rt, rp.rt);
	EXPECT_EQ(rc, rp.rc);
	xe_cc_rp_sent(&p, &rp, unit, t + 1200 * US);	/* T = 4, BC = 3 */
	rt += 2 * 50;
	rc = half_way(rt, rc);
	EXPECT_EQ(rt, rp.rt);
	EXPECT_EQ(rc, rp.rc);
	/* A CNP starts the stages over. */
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, t + 1200 * US));
	EXPECT_EQ(0, rp.t);
	EXPECT_EQ(0, rp.bc);
	EXPECT_EQ(rc, rp.rt);
}

TEST(byte_counter_events_alone_recover_fast_then_increase_additively)
{
	struct xe_cc_params p;
	struct xe_cc_rp rp = { };
	uint32_t rc, rt, unit = 32767 * 64;

	xe_cc_defaults(&p);
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0));
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0 + 4 * US));
	rt = rp.rt;
	rc = rp.rc;
	/* Bytes short of rpg_byte_reset * 64 raise nothing. */
	xe_cc_rp_sent(&p, &rp, unit - 1, T0 + 4 * US);
	EXPECT_EQ(rc, rp.rc);
	xe_cc_rp_sent(&p, &rp, 1, T0 + 4 * US);
	rc = half_way(rt, rc);
	EXPECT_EQ(rt, rp.rt);
	EXPECT_EQ(rc, rp.rc);
	xe_cc_rp_sent(&p, &rp, 2 * unit, T0 + 4 * US);
	rt += 5;
	rc = half_way(rt, rc);
	rt += 5;
	rc = half_way(rt, rc);
	EXPECT_EQ(rt, rp.rt);
	EXPECT_EQ(rc, rp.rc);
	EXPECT_EQ(3, rp.bc);
}

TEST(a_rate_back_at_the_line_rate_is_no_limit)
{
	struct xe_cc_params p;
	struct xe_cc_rp rp = { };

	xe_cc_defaults(&p);
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0));
	/* RT is the line rate: RC halves its distance to it each event. */
	xe_cc_rp_advance(&p, &rp, T0 + 300 * US * 10);
	EXPECT_LT(0, rp.rc);
	xe_cc_rp_advance(&p, &rp, T0 + 300 * US * 20);
	EXPECT_EQ(0, rp.rc);
	/* The next CNP is a first one again. */
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0 + 300 * US * 20));
	EXPECT_EQ(5004, rp.rc);
}

TEST(cuts_stop_at_rpg_min_rate_and_keep_rpg_min_dec_fac_of_the_rate)
{
	struct xe_cc_params p;
	struct xe_cc_rp rp = { };
	int i;

	xe_cc_defaults(&p);
	for (i = 0; i < 40; i++)
		ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0 + i * 4 * US));
	EXPECT_EQ(1, rp.rc);			/* rpg_min_rate: 1 Mb/s */
	/* A cut of at most a quarter: 75 % stays, whatever alpha says. */
	p.rpg_min_dec_fac = 75;
	rp = (struct xe_cc_rp){ };
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0));
	EXPECT_EQ(LINE * 75 / 100, rp.rc);
	p.rpg_min_rate = 8000;
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0 + 4 * US));
	EXPECT_EQ(8000, rp.rc);
}

TEST(a_packet_delays_the_next_by_its_bytes_at_the_current_rate)
{
	struct xe_cc_params p;
	struct xe_cc_rp rp = { };
	int64_t wait = 0, due;

	xe_cc_defaults(&p);
	ASSERT_TRUE(xe_cc_rp_cnp(&p, &rp, T0));
	EXPECT_TRUE(xe_cc_rp_may_send(&p, &rp, T0, &wait));
	xe_cc_rp_sent(&p, &rp, 4170, T0);
	due = 4170ll * 8000 / rp.rc;		/* ns: 8 bits a byte at rc Mb/s */
	EXPECT_FALSE(xe_cc_rp_may_send(&p, &rp, T0 + due - 1, &wait));
	EXPECT_EQ(1, wait);
	EXPECT_TRUE(rp.blocked);
	EXPECT_TRUE(xe_cc_rp_may_send(&p, &rp, T0 + due, &wait));
	EXPECT_FALSE(rp.blocked);
	/* Sent late, the next counts from when it left, not from when it could. */
	xe_cc_rp_sent(&p, &rp, 1000, T0 + 10 * due);
	EXPECT_EQ(T0 + 10 * due + 1000ll * 8000 / rp.rc, rp.next_send);
	/* Not limited: always. */
	rp = (struct xe_cc_rp){ };
	EXPECT_TRUE(xe_cc_rp_may_send(&p, &rp, T0, &wait));
}

TEST(cnps_leave_at_most_one_per_min_time_between_cnps)
{
	struct xe_cc_params p;
	struct xe_cc_np np = { };

	xe_cc_defaults(&p);
	EXPECT_TRUE(xe_cc_np_may_send(&p, &np, T0));
	EXPECT_FALSE(xe_cc_np_may_send(&p, &np, T0 + 4 * US - 1));
	EXPECT_TRUE(xe_cc_np_may_send(&p, &np, T0 + 4 * US));
	EXPECT_FALSE(xe_cc_np_may_send(&p, &np, T0 + 4 * US));
}

TEST_HARNESS_MAIN
