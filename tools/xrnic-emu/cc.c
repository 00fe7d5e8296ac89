// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control, DCQCN (cc.h): the reaction point's rate state
 * machine as the DCQCN paper defines it with mlx5's parameters, the
 * notification point's CNP interval, and the device's hooks: a CE-marked
 * packet makes its QP send a CNP (wire.c), a CNP cuts its QP's rate
 * (wire.c), and a limited QP's packets leave at that rate (req.c), the
 * poll loop waking for the next one.
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
#include "transport.h"
#include "frame.h"

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

/*
 * The path back to the sender of a UD QP's datagram: the reverse of its
 * frame (its source MAC and address; our address it was sent to).
 */
static void xe_cc_reverse_path(const struct xe_dev *xe, const struct xe_qp *qp,
			       const struct xe_rx *rx, struct xe_path *path)
{
	*path = (struct xe_path){ .hop_limit = 64, .sport = xe_roce_sport(qp->qpn) };
	memcpy(path->dmac, rx->smac, 6);
	memcpy(path->smac, xe->id.mac, 6);
	xe_ip_gids(rx->ip, rx->ip_len, path->dgid, path->sgid);
}

/*
 * The device.  The NP answers an RC or UC QP's CE-marked packet to its
 * peer (dest_qpn, on the QP's path), a UD QP's datagram to the DETH's
 * source QP (the one QP it names) on the reverse path of the frame; at
 * most one CNP per receiving QP per min_time_between_cnps.
 */
void xe_cc_ce_rcv(struct xe_dev *xe, struct xe_qp *qp, const struct xe_rx *rx)
{
	struct xe_pkt p = { .opcode = XE_OP_CNP, .psn = 0 };
	struct xe_path path;
	bool loopback;

	xe->counters[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS]++;
	if (!xe->cc.np_enable || !qp || qp->qpn == XRNIC_GSI_QPN ||
	    (qp->state != XRNIC_QPS_RTR && qp->state != XRNIC_QPS_RTS))
		return;
	if (!xe_cc_np_may_send(&xe->cc, &qp->np, xe_clock(xe)))
		return;
	/* To the QP that sent it; DSCP cnp_dscp, not ECN-capable. */
	if (qp->type == XRNIC_QPT_UD) {
		p.qpn = rx->pkt.src_qp;
		xe_cc_reverse_path(xe, qp, rx, &path);
		loopback = xe_gid_is_ours(xe, path.dgid);
	} else {
		p.qpn = qp->attr.dest_qpn;
		xe_wire_qp_path(xe, qp, &path);
		loopback = qp->loopback;
	}
	path.traffic_class = xe->cc.cnp_dscp << 2;
	path.not_ect = true;
	xe->counters[XRNIC_CNT_NP_CNP_SENT]++;
	xe_wire_send_path(xe, &path, loopback, &p, NULL, 0);
}

/*
 * A CNP cuts the rate of a QP in RTS (one that sends: RC, UC or UD; a
 * UD QP's rate is for all its datagrams); any other CNP, and one within
 * the monitor period of the QP's last cut, is ignored.
 */
void xe_cc_cnp_rcv(struct xe_dev *xe, struct xe_qp *qp)
{
	if (xe->cc.rp_enable && qp && qp->qpn != XRNIC_GSI_QPN && qp->state == XRNIC_QPS_RTS &&
	    xe_cc_rp_cnp(&xe->cc, &qp->rp, xe_clock(xe))) {
		xe->counters[XRNIC_CNT_RP_CNP_HANDLED]++;
		return;
	}
	xe->counters[XRNIC_CNT_RP_CNP_IGNORED]++;
}

bool xe_cc_may_send(struct xe_dev *xe, struct xe_qp *qp)
{
	int64_t wait;

	return xe_cc_rp_may_send(&xe->cc, &qp->rp, xe_clock(xe), &wait);
}

void xe_cc_sent(struct xe_dev *xe, struct xe_qp *qp, uint64_t bytes)
{
	xe_cc_rp_sent(&xe->cc, &qp->rp, bytes, xe_clock(xe));
}

int64_t xe_cc_wait(struct xe_dev *xe, const struct xe_qp *qp)
{
	int64_t now;

	if (!qp->rp.rc || !qp->rp.blocked)
		return -1;
	now = xe_clock(xe);
	return qp->rp.next_send > now ? qp->rp.next_send - now : 0;
}

/* QUERY_CC and SET_CC: one parameter, for every QP from now on. */
static uint32_t *xe_cc_cmd_param(struct xe_dev *xe, const struct xrnic_cmd_cc *c,
				 uint32_t *min, uint32_t *max, uint8_t *status)
{
	uint32_t *v;

	*status = XRNIC_STATUS_OK;
	if (!xe_all_zero(c->reserved, sizeof(c->reserved))) {
		*status = xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
		return NULL;
	}
	v = xe_cc_param(&xe->cc, le32toh(c->param), min, max);
	if (!v)
		*status = xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "no such parameter");
	return v;
}

uint8_t xe_cmd_query_cc(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			struct xrnic_acq_entry *cpl)
{
	uint32_t min, max, *v;
	uint8_t status;

	if (cmd->cc.value)
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "a value given");
	v = xe_cc_cmd_param(xe, &cmd->cc, &min, &max, &status);
	if (!v)
		return status;
	cpl->cc.param = cmd->cc.param;
	cpl->cc.value = htole32(*v);
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_set_cc(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
		      struct xrnic_acq_entry *cpl)
{
	uint32_t min, max, value = le32toh(cmd->cc.value), *v;
	uint8_t status;

	(void)cpl;
	v = xe_cc_cmd_param(xe, &cmd->cc, &min, &max, &status);
	if (!v)
		return status;
	if (value < min || value > max)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "value outside the parameter's range");
	*v = value;
	return XRNIC_STATUS_OK;
}
