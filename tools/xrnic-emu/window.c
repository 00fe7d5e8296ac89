// SPDX-License-Identifier: GPL-2.0
/*
 * The requester's window (struct xe_qp_req): where the requester sends
 * from next, how many packets it may keep unanswered (cwnd: a loss
 * shrinks it, answers grow it back) and its timers (the RNR timer, the
 * ACK timer backing off).  The completer (comp.c) moves it on the
 * answers, the requester (req.c) on its own timers; both are above it.
 */
#include "transport.h"

#define XE_RETRY_INFINITE	7	/* rnr_retry 7: retry for ever */

/* IB RNR NAK timer codes (IBA table 45) in microseconds; code 0 is 655.36 ms. */
static const uint32_t xe_rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

/* Local ACK timeout: 4.096 us << timeout; 0 (infinite) waits as long as 14. */
static int64_t xe_ack_timeout_ns(uint8_t timeout)
{
	return 4096ll << (timeout ? timeout : 14);
}

bool xe_req_rnr_retry(struct xe_dev *xe, struct xe_qp *qp, uint32_t psn, uint8_t rnr_code)
{
	struct xe_qp_req *r = &qp->req;

	if (qp->attr.rnr_retry != XE_RETRY_INFINITE) {
		if (!r->rnr_left)
			return false;
		r->rnr_left--;
	}
	r->rnr_naked = true;
	r->rnr_psn = psn;
	xe_req_rewind(qp, psn);
	r->timer = XE_TIMER_RNR;
	r->wait_until = xe_clock(xe) + (int64_t)xe_rnr_timer_us[rnr_code & 31] * 1000;
	return true;
}

void xe_req_reset(struct xe_qp *qp)
{
	memset(&qp->req, 0, sizeof(qp->req));
	qp->req.sq_next = qp->sq_ci;
	qp->req.send_idx = qp->sq_ci;
	qp->req.cwnd = XE_PSN_WINDOW;
	qp->req.ssthresh = XE_PSN_WINDOW;
	/* Not limited, and no CNP sent: congestion control starts over too. */
	memset(&qp->rp, 0, sizeof(qp->rp));
	memset(&qp->np, 0, sizeof(qp->np));
}

void xe_req_cwnd_loss(struct xe_qp_req *r)
{
	r->ssthresh = r->cwnd / 2 > XE_CWND_MIN ? r->cwnd / 2 : XE_CWND_MIN;
	r->cwnd = r->ssthresh;
	r->cwnd_acc = 0;
}

void xe_req_answered(struct xe_qp *qp, uint32_t n)
{
	struct xe_qp_req *r = &qp->req;

	r->backoff = 0;
	if (r->cwnd < r->ssthresh) {
		/* Slow start: one more for each packet answered. */
		r->cwnd += n < r->ssthresh - r->cwnd ? n : r->ssthresh - r->cwnd;
		return;
	}
	/* Congestion avoidance: one more for each window answered. */
	r->cwnd_acc += n;
	while (r->cwnd_acc >= r->cwnd && r->cwnd < XE_PSN_WINDOW) {
		r->cwnd_acc -= r->cwnd;
		r->cwnd++;
	}
	if (r->cwnd == XE_PSN_WINDOW)
		r->cwnd_acc = 0;
}

bool xe_req_seq_retry(struct xe_qp *qp, uint32_t psn)
{
	struct xe_qp_req *r = &qp->req;

	/*
	 * A retry past the previous one's PSN: the messages advanced in
	 * between, so the retries start over, as rxe's do on progress; a
	 * long message on a lossy wire is not failed for losses it recovered
	 * from.
	 */
	if (xe_psn_before(r->retry_psn, psn))
		r->retry_left = qp->attr.retry_cnt;
	if (!r->retry_left)
		return false;
	r->retry_left--;
	r->retry_psn = psn;
	xe_req_cwnd_loss(r);
	xe_req_rewind(qp, psn);
	r->timer = XE_TIMER_RESEND;
	r->wait_until = 0;
	return true;
}

void xe_req_wait_answer(struct xe_dev *xe, struct xe_qp *qp)
{
	int64_t t = xe_ack_timeout_ns(qp->attr.timeout);
	int64_t max = t > XE_ACK_BACKOFF_MAX_NS ? t : XE_ACK_BACKOFF_MAX_NS;

	/* Backed off: twice as long for each timeout in a row, up to max. */
	t = qp->req.backoff < 16 && t << qp->req.backoff < max ? t << qp->req.backoff : max;
	qp->req.timer = XE_TIMER_ACK;
	qp->req.wait_until = xe_clock(xe) + t;
}

void xe_req_rewind(struct xe_qp *qp, uint32_t psn)
{
	struct xe_qp_req *r = &qp->req;
	const struct xe_msg *m;
	uint32_t idx;

	for (idx = qp->sq_ci; idx != r->sq_next; idx++) {
		m = xe_req_msg(qp, idx);
		if (xe_psn_diff(psn, m->first_psn) < m->npsn)
			break;
	}
	r->send_idx = idx;
	r->next_psn = idx == r->sq_next ? qp->attr.sq_psn : psn;
}
