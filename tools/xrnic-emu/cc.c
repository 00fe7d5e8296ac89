// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control, DCQCN (cc.h), as a pure algorithm: the reaction
 * point's rate state machine as the DCQCN paper defines it with mlx5's
 * parameters, and the notification point's CNP interval.  The device's
 * hooks, which send the CNPs, are cc_qp.c's.
 *
 * The reaction point (RP), per QP, rates in Mb/s:
 *  - a CNP (at most one every rate_reduce_monitor_period): RT = RC,
 *    RC = RC * (1 - alpha / 2), no lower than rpg_min_dec_fac % of RC nor
 *    rpg_min_rate; alpha = (1 - g) * alpha + g; the increase counters start
 *    again;
 *  - every dce_tcp_rtt without a CNP: alpha = (1 - g) * alpha;
 *  - a timer event every rpg_time_reset without a CNP (T counts them), a
 *    byte-counter event every rpg_byte_reset * 64 bytes sent (BC counts
 *    them); each raises the rate: while both T and BC are at most
 *    rpg_threshold, fast recovery (RT stays); while one is, additive
 *    increase (RT += rpg_ai_rate); once both are past it, hyper increase
 *    (RT += i * rpg_hai_rate, i = min(T, BC) - rpg_threshold); then
 *    RC = (RT + RC) / 2, rounded up so that it reaches RT.  A QP whose RC
 *    reaches the line rate (or rpg_max_rate) is no longer limited.
 * g is 1 - dce_tcp_g / 1024, alpha a fraction of 1024, as mlx5 keeps them.
 */
#include <stddef.h>

#include <xrnic/xrnic_admin.h>

#include "cc.h"

#define XE_NS_PER_US		1000

void xe_cc_defaults(struct xe_cc_params *p)
{
	/* mlx5's defaults (ConnectX-4 and later), in its units. */
	*p = (struct xe_cc_params){
		.np_enable = true,
		.rp_enable = true,
		.min_time_between_cnps = 4,
		.cnp_dscp = 48,
		.initial_alpha_value = 1023,
		.dce_tcp_g = 1019,
		.dce_tcp_rtt = 1,
		.rate_reduce_monitor_period = 4,
		.rate_to_set_on_first_cnp = 0,
		.rpg_min_dec_fac = 50,
		.rpg_min_rate = 1,
		.rpg_time_reset = 300,
		.rpg_byte_reset = 32767,
		.rpg_threshold = 1,
		.rpg_max_rate = 0,
		.rpg_ai_rate = 5,
		.rpg_hai_rate = 50,
	};
}

/*
 * Each parameter's place and range, by enum xrnic_cc_param: mlx5's ranges
 * where NVIDIA documents them (the enables, the DSCP, alpha and g of 1024,
 * rpg_min_dec_fac 1-100 %, rpg_byte_reset up to 32767, rpg_threshold
 * 1-31), rates up to the line rate, times up to 131071 us.
 */
static const struct xe_cc_range {
	size_t off;
	uint32_t min, max;
} xe_cc_ranges[XRNIC_CC_NUM_PARAMS] = {
#define XE_CC_RANGE(param, field, lo, hi) \
	[XRNIC_CC_##param] = { offsetof(struct xe_cc_params, field), lo, hi }
	XE_CC_RANGE(NP_ENABLE, np_enable, 0, 1),
	XE_CC_RANGE(RP_ENABLE, rp_enable, 0, 1),
	XE_CC_RANGE(NP_MIN_TIME_BETWEEN_CNPS, min_time_between_cnps, 0, 131071),
	XE_CC_RANGE(NP_CNP_DSCP, cnp_dscp, 0, 63),
	XE_CC_RANGE(RP_INITIAL_ALPHA_VALUE, initial_alpha_value, 0, XE_CC_ONE - 1),
	XE_CC_RANGE(RP_DCE_TCP_G, dce_tcp_g, 0, XE_CC_ONE - 1),
	XE_CC_RANGE(RP_DCE_TCP_RTT, dce_tcp_rtt, 1, 131071),
	XE_CC_RANGE(RP_RATE_REDUCE_MONITOR_PERIOD, rate_reduce_monitor_period, 0, 131071),
	XE_CC_RANGE(RP_RATE_TO_SET_ON_FIRST_CNP, rate_to_set_on_first_cnp, 0, XE_CC_LINE_RATE),
	XE_CC_RANGE(RP_MIN_DEC_FAC, rpg_min_dec_fac, 1, 100),
	XE_CC_RANGE(RP_MIN_RATE, rpg_min_rate, 1, XE_CC_LINE_RATE),
	XE_CC_RANGE(RP_TIME_RESET, rpg_time_reset, 1, 131071),
	XE_CC_RANGE(RP_BYTE_RESET, rpg_byte_reset, 0, 32767),
	XE_CC_RANGE(RP_THRESHOLD, rpg_threshold, 1, 31),
	XE_CC_RANGE(RP_MAX_RATE, rpg_max_rate, 0, XE_CC_LINE_RATE),
	XE_CC_RANGE(RP_AI_RATE, rpg_ai_rate, 1, XE_CC_LINE_RATE),
	XE_CC_RANGE(RP_HAI_RATE, rpg_hai_rate, 1, XE_CC_LINE_RATE),
#undef XE_CC_RANGE
};

uint32_t *xe_cc_param(struct xe_cc_params *p, uint32_t param, uint32_t *min, uint32_t *max)
{
	if (param >= XRNIC_CC_NUM_PARAMS)
		return NULL;
	*min = xe_cc_ranges[param].min;
	*max = xe_cc_ranges[param].max;
	return (uint32_t *)((char *)p + xe_cc_ranges[param].off);
}

/* The rate a QP climbs back to: rpg_max_rate, at most the line rate. */
static uint32_t xe_cc_max_rate(const struct xe_cc_params *p)
{
	return p->rpg_max_rate && p->rpg_max_rate < XE_CC_LINE_RATE ? p->rpg_max_rate :
								      XE_CC_LINE_RATE;
}

static uint32_t xe_cc_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t xe_cc_max(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* alpha decays: (1 - g) * alpha. */
static uint32_t xe_cc_alpha_decay(const struct xe_cc_params *p, uint32_t alpha)
{
	return (uint64_t)alpha * p->dce_tcp_g / XE_CC_ONE;
}

/* A timer or byte-counter event: the rate goes up as T and BC say. */
static void xe_cc_increase(const struct xe_cc_params *p, struct xe_cc_rp *rp)
{
	uint32_t f = p->rpg_threshold, max = xe_cc_max_rate(p), lo, hi;
	uint64_t rt = rp->rt;

	/* Without a byte counter the timer alone moves the stages. */
	lo = p->rpg_byte_reset ? xe_cc_min(rp->t, rp->bc) : rp->t;
	hi = p->rpg_byte_reset ? xe_cc_max(rp->t, rp->bc) : rp->t;
	/* Fast recovery (both at most f) leaves RT: RC goes half way to it. */
	if (hi > f && lo <= f)
		rt += p->rpg_ai_rate;		/* additive increase */
	else if (hi > f)
		rt += (uint64_t)(lo - f) * p->rpg_hai_rate;	/* hyper increase */
	rp->rt = rt < max ? rt : max;
	rp->rc = ((uint64_t)rp->rt + rp->rc + 1) / 2;
	if (rp->rc >= max)
		*rp = (struct xe_cc_rp){ };	/* back at full speed: not limited */
}

void xe_cc_rp_advance(const struct xe_cc_params *p, struct xe_cc_rp *rp, int64_t now)
{
	int64_t period = (int64_t)p->dce_tcp_rtt * XE_NS_PER_US;
	int64_t reset = (int64_t)p->rpg_time_reset * XE_NS_PER_US;
	int64_t n;
	unsigned int i;

	if (!rp->rc)
		return;
	if (period > 0 && now >= rp->alpha_at) {
		n = (now - rp->alpha_at) / period + 1;
		rp->alpha_at += n * period;
		/* alpha is 0 within a few hundred decays: no need to do all n. */
		while (n-- > 0 && rp->alpha)
			rp->alpha = xe_cc_alpha_decay(p, rp->alpha);
	}
	if (reset <= 0)
		return;
	for (i = 0; rp->rc && now >= rp->timer_at; i++) {
		if (i == XE_CC_CATCHUP_MAX) {
			rp->timer_at = now + reset;
			break;
		}
		rp->timer_at += reset;
		rp->t++;
		xe_cc_increase(p, rp);
	}
}

bool xe_cc_rp_cnp(const struct xe_cc_params *p, struct xe_cc_rp *rp, int64_t now)
{
	uint64_t rc, floor;
	bool first;

	xe_cc_rp_advance(p, rp, now);
	/* A limited QP has been cut: at cut_at. */
	if (rp->rc && now - rp->cut_at < (int64_t)p->rate_reduce_monitor_period * XE_NS_PER_US)
		return false;
	first = !rp->rc;
	if (first) {
		/* From full speed, or from the rate mlx5 lets one set for it. */
		*rp = (struct xe_cc_rp){ .alpha = p->initial_alpha_value, .next_send = now };
		rp->rc = p->rate_to_set_on_first_cnp ?
			 xe_cc_min(p->rate_to_set_on_first_cnp, xe_cc_max_rate(p)) :
			 xe_cc_max_rate(p);
		rp->rt = rp->rc;
	}
	if (!first || !p->rate_to_set_on_first_cnp) {
		rp->rt = rp->rc;
		rc = (uint64_t)rp->rc * (2 * XE_CC_ONE - rp->alpha) / (2 * XE_CC_ONE);
		floor = (uint64_t)rp->rc * p->rpg_min_dec_fac / 100;
		if (rc < floor)
			rc = floor;
		if (rc < p->rpg_min_rate)
			rc = p->rpg_min_rate;
		rp->rc = rc ? rc : 1;		/* 0 would mean no limit */
		rp->alpha = xe_cc_alpha_decay(p, rp->alpha) + (XE_CC_ONE - p->dce_tcp_g);
	}
	rp->t = 0;
	rp->bc = 0;
	rp->bytes = 0;
	rp->cut_at = now;
	rp->timer_at = now + (int64_t)p->rpg_time_reset * XE_NS_PER_US;
	rp->alpha_at = now + (int64_t)p->dce_tcp_rtt * XE_NS_PER_US;
	/* A limit of the line rate or above is none. */
	if (rp->rc >= xe_cc_max_rate(p))
		*rp = (struct xe_cc_rp){ };
	return true;
}

bool xe_cc_rp_may_send(const struct xe_cc_params *p, struct xe_cc_rp *rp, int64_t now,
		       int64_t *wait)
{
	xe_cc_rp_advance(p, rp, now);
	if (!rp->rc || now >= rp->next_send) {
		rp->blocked = false;
		return true;
	}
	rp->blocked = true;
	*wait = rp->next_send - now;
	return false;
}

void xe_cc_rp_sent(const struct xe_cc_params *p, struct xe_cc_rp *rp, uint64_t bytes,
		   int64_t now)
{
	uint64_t unit = (uint64_t)p->rpg_byte_reset * 64;

	if (!rp->rc)
		return;
	/* bytes * 8 bits at rc Mb/s take bytes * 8000 / rc ns. */
	rp->next_send = (rp->next_send > now ? rp->next_send : now) +
			(int64_t)(bytes * 8 * XE_NS_PER_US / rp->rc);
	if (!unit)
		return;
	rp->bytes += bytes;
	while (rp->rc && rp->bytes >= unit) {
		rp->bytes -= unit;
		rp->bc++;
		xe_cc_increase(p, rp);
	}
}

bool xe_cc_np_may_send(const struct xe_cc_params *p, struct xe_cc_np *np, int64_t now)
{
	if (np->sent && now - np->last_cnp < (int64_t)p->min_time_between_cnps * XE_NS_PER_US)
		return false;
	np->sent = true;
	np->last_cnp = now;
	return true;
}
