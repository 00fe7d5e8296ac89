/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control: DCQCN (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015) with mlx5's parameters and
 * their defaults.  A congested switch marks ECN CE on a packet (the port
 * sends every packet ECT(0), frame.c); the notification point (NP), the
 * receiving QP, answers with a CNP to the QP that sent it, at most one
 * every min_time_between_cnps; the reaction point (RP), the sending QP,
 * cuts its rate on a CNP and raises it again by timer and byte counter.
 * A QP no CNP reached is not limited and pays nothing but one test on its
 * send path.  The algorithm here works on its own state and a time given
 * to it, so host tests step it by hand; the device's hooks are cc_qp.c's
 * (transport.h).
 */
#ifndef XE_CC_H
#define XE_CC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The line rate in Mb/s: what QUERY_PORT reports (QDR, 1X: 10 Gb/s).  A
 * QP's first CNP cuts from it, and a QP whose rate climbs back to it (or
 * to rpg_max_rate) is no longer limited.
 */
#define XE_CC_LINE_RATE		10000

/* alpha and the gain g: fixed point of 10 fraction bits, as mlx5 keeps them. */
#define XE_CC_ONE		1024

/* Rate-increase events one call catches up at most (a QP long idle). */
#define XE_CC_CATCHUP_MAX	100000

/*
 * The parameters, named and scaled as mlx5's (sysfs
 * /sys/class/net/<if>/ecn/roce_np/ and roce_rp/, NVIDIA's "DCQCN
 * Parameters" table for ConnectX-4 and later); xe_cc_defaults() has their
 * defaults, mlx5's.  The device applies them to every QP.
 */
struct xe_cc_params {
	uint32_t np_enable, rp_enable;		/* 0 or 1 */
	/* Notification point */
	uint32_t min_time_between_cnps;		/* us: per QP */
	uint32_t cnp_dscp;			/* a CNP's DSCP (its ECN: Not-ECT) */
	/* Reaction point: alpha */
	uint32_t initial_alpha_value;		/* of XE_CC_ONE, at a QP's first CNP */
	uint32_t dce_tcp_g;			/* of XE_CC_ONE: g = 1 - dce_tcp_g / 1024 */
	uint32_t dce_tcp_rtt;			/* us: alpha decays each period without CNP */
	/* Reaction point: rate decrease */
	uint32_t rate_reduce_monitor_period;	/* us: at most one cut each */
	uint32_t rate_to_set_on_first_cnp;	/* Mb/s; 0: cut from the line rate */
	uint32_t rpg_min_dec_fac;		/* %: a cut keeps at least this much */
	uint32_t rpg_min_rate;			/* Mb/s */
	/* Reaction point: rate increase */
	uint32_t rpg_time_reset;		/* us: a timer event each */
	uint32_t rpg_byte_reset;		/* 64 bytes: a byte-counter event each; 0: off */
	uint32_t rpg_threshold;			/* events of fast recovery */
	uint32_t rpg_max_rate;			/* Mb/s; 0: the line rate */
	uint32_t rpg_ai_rate;			/* Mb/s: additive increase */
	uint32_t rpg_hai_rate;			/* Mb/s: hyper increase, times i */
};

/* A QP's reaction point: its rate and what moves it. */
struct xe_cc_rp {
	uint32_t rc;			/* current rate, Mb/s; 0: not limited */
	uint32_t rt;			/* target rate, Mb/s */
	uint32_t alpha;			/* of XE_CC_ONE */
	uint32_t t, bc;			/* timer and byte-counter events since the last cut */
	uint64_t bytes;			/* sent toward the next byte-counter event */
	int64_t timer_at;		/* the next timer event (ns) */
	int64_t alpha_at;		/* the next alpha decay (ns) */
	int64_t cut_at;			/* the last cut (ns): the monitor period */
	int64_t next_send;		/* pacing: the next packet leaves from then (ns) */
	bool blocked;			/* a packet waits for next_send */
};

/* A QP's notification point. */
struct xe_cc_np {
	bool sent;			/* a CNP left since the QP was reset */
	int64_t last_cnp;		/* when (ns) */
};

/* mlx5's defaults. */
void xe_cc_defaults(struct xe_cc_params *p);

/*
 * Parameter param (enum xrnic_cc_param) of p, or NULL for none; with its
 * range in *min and *max.
 */
uint32_t *xe_cc_param(struct xe_cc_params *p, uint32_t param, uint32_t *min, uint32_t *max);

/*
 * A CNP at now: the rate is cut (true), or it was cut less than
 * rate_reduce_monitor_period ago and nothing changes (false).  A QP not
 * limited starts from the line rate and initial_alpha_value.
 */
bool xe_cc_rp_cnp(const struct xe_cc_params *p, struct xe_cc_rp *rp, int64_t now);

/* Run rp's timers up to now: alpha's decay, the timer's rate increases. */
void xe_cc_rp_advance(const struct xe_cc_params *p, struct xe_cc_rp *rp, int64_t now);

/*
 * May a packet of the limited QP leave at now?  Else *wait is the ns until
 * it may.  Its timers run first (its rate may have climbed back).
 */
bool xe_cc_rp_may_send(const struct xe_cc_params *p, struct xe_cc_rp *rp, int64_t now,
		       int64_t *wait);

/*
 * A packet of bytes left the limited QP at now: the next waits for its
 * bytes at the current rate, and the byte counter counts them.
 */
void xe_cc_rp_sent(const struct xe_cc_params *p, struct xe_cc_rp *rp, uint64_t bytes,
		   int64_t now);

/* May the QP send a CNP at now?  True takes the interval. */
bool xe_cc_np_may_send(const struct xe_cc_params *p, struct xe_cc_np *np, int64_t now);

#endif /* XE_CC_H */
