// SPDX-License-Identifier: GPL-2.0
/*
 * Device lifecycle: initial state, reset, the admin queue's enable and
 * disable sequence; and doorbells, which only record what rang, for
 * xe_dev_poll() to do.
 */
#include <inttypes.h>
#include <string.h>

#include "transport.h"

static void xe_set_sts(struct xe_dev *xe, uint32_t sts)
{
	xe->sts = sts;
	xe_reg_write(xe, XRNIC_REG_DEV_STS, sts);
}

/* Drop every object, the GID table and the Ethernet function; zero the counters. */
static void xe_drop_objects(struct xe_dev *xe)
{
	xe_eth_drop_all(xe);
	xe_gid_drop_all(xe);
	xe_qp_drop_all(xe);
	xe_mcast_drop_all(xe);
	xe_obj_drop_all(xe, XE_SRQ);
	xe_obj_drop_all(xe, XE_CQ);
	xe_eq_drop_all(xe);
	xe_obj_drop_all(xe, XE_MW);
	xe_mr_drop_all(xe);
	xe_obj_drop_all(xe, XE_PD);
	xe_stats_drop_all(xe);
}

void xe_dev_init(struct xe_dev *xe)
{
	const uint8_t *mac = xe->id.mac;

	/* Nothing to free yet: the tables may hold garbage. */
	memset(xe->mr, 0, sizeof(xe->mr));
	memset(xe->qp, 0, sizeof(xe->qp));
	xe_drop_objects(xe);
	memset(xe->bar2, 0, XRNIC_BAR2_SIZE);
	xe_reg_write(xe, XRNIC_REG_SIGNATURE, XRNIC_SIGNATURE);
	xe_reg_write(xe, XRNIC_REG_VERSION,
		     XRNIC_VERSION(XRNIC_VERSION_MAJOR, XRNIC_VERSION_MINOR));
	xe_reg_write(xe, XRNIC_REG_CAPS, XRNIC_CAP_AENQ);
	xe_reg_write(xe, XRNIC_REG_DMA_WIDTH, XE_DMA_WIDTH);
	xe_reg_write(xe, XRNIC_REG_NUM_VECTORS, xe->id.num_vectors);
	xe_reg_write(xe, XRNIC_REG_RESET_TIMEOUT_MS, XE_RESET_TIMEOUT_MS);
	xe_reg_write(xe, XRNIC_REG_MAX_AQ_DEPTH, XE_MAX_AQ_DEPTH);
	xe_reg_write(xe, XRNIC_REG_FW_VERSION, xe->id.fw_version);
	xe_reg_write(xe, XRNIC_REG_NODE_GUID_LO, (uint32_t)xe->id.guid);
	xe_reg_write(xe, XRNIC_REG_NODE_GUID_HI, xe->id.guid >> 32);
	xe_reg_write(xe, XRNIC_REG_MAC_LO, mac[0] | mac[1] << 8 | mac[2] << 16 |
		     (uint32_t)mac[3] << 24);
	xe_reg_write(xe, XRNIC_REG_MAC_HI, mac[4] | mac[5] << 8);
	xe_set_sts(xe, XRNIC_DEV_STS_READY);
	xe->poll_linger_ns = XE_POLL_LINGER_NS;
	xe->linger_ns = XE_POLL_LINGER_NS;
	xe_cc_defaults(&xe->cc);
	xe->rx_handlers = (struct xe_rx_handlers){
		.ud = xe_ud_rcv, .request = xe_resp_rcv, .answer = xe_comp_rcv,
		.ce = xe_cc_ce_rcv, .cnp = xe_cc_cnp_rcv,
	};
}

void xe_dev_fini(struct xe_dev *xe)
{
	xe_drop_objects(xe);
}

/* Tell the library through the status page; see struct xrnic_dev_status. */
static void xe_set_polling(struct xe_dev *xe, bool on)
{
	struct xrnic_dev_status *st = (void *)(xe->bar2 + XRNIC_BAR2_STATUS_OFF);

	xe->polling = on;
	__atomic_store_n(&st->poll, htole32(on ? XRNIC_STATUS_POLLING : 0), __ATOMIC_RELAXED);
	/* The poll word before the doorbell records are read again. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void xe_reset(struct xe_dev *xe)
{
	static const uint32_t cleared[] = {
		XRNIC_REG_FATAL_REASON,
		XRNIC_REG_AQ_BASE_LO, XRNIC_REG_AQ_BASE_HI,
		XRNIC_REG_ACQ_BASE_LO, XRNIC_REG_ACQ_BASE_HI,
		XRNIC_REG_AENQ_BASE_LO, XRNIC_REG_AENQ_BASE_HI,
		XRNIC_REG_AQ_DEPTH, XRNIC_REG_AENQ_DEPTH,
		XRNIC_REG_AQ_CTL, XRNIC_REG_AENQ_CI, XRNIC_REG_AENQ_DROPPED,
	};
	size_t i;

	xe->aq_enabled = false;
	memset(&xe->aq, 0, sizeof(xe->aq));
	memset(&xe->acq, 0, sizeof(xe->acq));
	memset(&xe->aenq, 0, sizeof(xe->aenq));
	xe->aq_ci = 0;
	xe->acq_pi = 0;
	xe->aenq_pi = 0;
	xe->aenq_dropped = 0;
	xe_set_polling(xe, false);
	xe_drop_objects(xe);
	xe_cc_defaults(&xe->cc);
	for (i = 0; i < ARRAY_SIZE(cleared); i++)
		xe_reg_write(xe, cleared[i], 0);
	xe_set_sts(xe, XRNIC_DEV_STS_READY);
	/* Last: the driver waits for RESET to clear. */
	xe_reg_clear(xe, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_log(xe, "reset");
}

static void xe_fatal(struct xe_dev *xe, uint32_t reason, const char *why)
{
	xe_reg_write(xe, XRNIC_REG_FATAL_REASON, reason);
	xe_set_sts(xe, xe->sts | XRNIC_DEV_STS_FATAL);
	xe_log(xe, "fatal error %u: %s", reason, why);
}

static bool xe_ring_config_ok(uint64_t base, uint32_t depth, uint32_t max_depth)
{
	return base && !(base % XRNIC_RING_ALIGN) && xe_is_pow2(depth) &&
	       depth >= XRNIC_MIN_RING_DEPTH && depth <= max_depth;
}

static bool xe_ring_map(struct xe_dev *xe, struct xe_ring *r, uint64_t base,
			uint32_t depth, uint32_t entry_size)
{
	r->depth = depth;
	r->host = xe_gm_ptr(&xe->mem, base, (uint64_t)depth * entry_size);
	return r->host;
}

/* Validate and latch the ring registers, or go FATAL. */
static void xe_aq_enable(struct xe_dev *xe)
{
	uint64_t aq = xe_reg_read64(xe, XRNIC_REG_AQ_BASE_LO);
	uint64_t acq = xe_reg_read64(xe, XRNIC_REG_ACQ_BASE_LO);
	uint64_t aenq = xe_reg_read64(xe, XRNIC_REG_AENQ_BASE_LO);
	uint32_t depth = xe_reg_read(xe, XRNIC_REG_AQ_DEPTH);
	uint32_t aenq_depth = xe_reg_read(xe, XRNIC_REG_AENQ_DEPTH);

	if (!xe_ring_config_ok(aq, depth, XE_MAX_AQ_DEPTH) ||
	    !xe_ring_config_ok(acq, depth, XE_MAX_AQ_DEPTH) ||
	    !xe_ring_config_ok(aenq, aenq_depth, XRNIC_MAX_AENQ_DEPTH)) {
		xe_fatal(xe, XRNIC_FATAL_BAD_AQ_CONFIG, "bad admin ring base or depth");
		return;
	}
	if (!xe_ring_map(xe, &xe->aq, aq, depth, XRNIC_AQ_ENTRY_SIZE) ||
	    !xe_ring_map(xe, &xe->acq, acq, depth, XRNIC_ACQ_ENTRY_SIZE) ||
	    !xe_ring_map(xe, &xe->aenq, aenq, aenq_depth, XRNIC_AENQ_ENTRY_SIZE)) {
		xe_fatal(xe, XRNIC_FATAL_DMA, "admin ring outside guest RAM");
		return;
	}
	xe->aq_ci = 0;
	xe->acq_pi = 0;
	xe->aenq_pi = 0;
	xe->aq_enabled = true;
	xe_set_sts(xe, xe->sts | XRNIC_DEV_STS_AQ_ENABLED);
	xe_log(xe, "admin queue enabled: aq 0x%" PRIx64 " acq 0x%" PRIx64
	       " depth %u, aenq 0x%" PRIx64 " depth %u", aq, acq, depth, aenq, aenq_depth);
	xe_port_announce(xe);
}

static void xe_admin_doorbell(struct xe_dev *xe)
{
	if (xe_reg_read(xe, XRNIC_REG_DEV_CTL) & XRNIC_DEV_CTL_RESET)
		xe_reset(xe);
	if (xe->sts & XRNIC_DEV_STS_FATAL)
		return;
	if (!xe->aq_enabled && (xe_reg_read(xe, XRNIC_REG_AQ_CTL) & XRNIC_AQ_CTL_ENABLE))
		xe_aq_enable(xe);
	if (!xe->aq_enabled)
		return;
	xe_admin_process(xe);
	if (!(xe_reg_read(xe, XRNIC_REG_AQ_CTL) & XRNIC_AQ_CTL_ENABLE)) {
		xe->aq_enabled = false;
		xe_set_sts(xe, xe->sts & ~XRNIC_DEV_STS_AQ_ENABLED);
		xe_log(xe, "admin queue disabled");
	}
}

/* A data doorbell while not polling: would a longer linger have caught it? */
static void xe_linger_adapt(struct xe_dev *xe)
{
	if (xe_now_ns() - xe->poll_stopped < xe->poll_linger_ns) {
		xe->linger_ns = 2 * xe->linger_ns;
		if (xe->linger_ns < XE_POLL_LINGER_STEP_NS)
			xe->linger_ns = XE_POLL_LINGER_STEP_NS;
		if (xe->linger_ns > xe->poll_linger_ns)
			xe->linger_ns = xe->poll_linger_ns;
	} else {
		xe->linger_ns -= xe->linger_ns / 8;
		if (xe->linger_ns < XE_POLL_LINGER_STEP_NS)
			xe->linger_ns = 0;
	}
}

void xe_doorbell(struct xe_dev *xe, unsigned int vec)
{
	/* A one-vector device rings its data path on the admin vector too. */
	if (vec == XRNIC_VEC_ADMIN)
		xe_admin_doorbell(xe);
	if (vec != XRNIC_VEC_ADMIN || xe->id.num_vectors == 1) {
		xe->counters[XRNIC_CNT_DOORBELLS]++;
		if (!xe->polling)
			xe_linger_adapt(xe);
	}
	xe->rung = true;
	xe->work = true;
}

/* WQEs one QP may run per pass, so that one QP cannot starve the others. */
#define XE_POLL_PASSES		16

/*
 * One pass over every QP at host time now; true on progress.  *next: the
 * nearest timer, or -1.
 */
static bool xe_poll_pass(struct xe_dev *xe, int64_t now, int64_t *next)
{
	int64_t clock = xe->manual_clock ? xe->clock_ns : now;	/* xe_clock() */
	bool progress = false;
	unsigned int slot, pass;
	struct xe_qp *qp;
	int64_t wait;

	for (slot = XE_QPN_GSI_SLOT; slot < XE_QPN_SLOT_END; slot++) {
		qp = &xe->qp[slot];
		if (!qp->obj.live)
			continue;
		for (pass = 0; pass < XE_POLL_PASSES && xe_req_run(xe, qp); pass++)
			progress = true;
		if (pass == XE_POLL_PASSES)
			xe->work = true;
		if (qp->req.timer != XE_TIMER_NONE) {
			wait = qp->req.wait_until > clock ? qp->req.wait_until - clock : 0;
			if (*next < 0 || wait < *next)
				*next = wait;
		}
		/* A paced QP (DCQCN) whose packet waits: woken when it may go. */
		if (qp->rp.blocked && (wait = xe_cc_wait(xe, qp)) >= 0 &&
		    (*next < 0 || wait < *next))
			*next = wait;
	}
	if (xe_eth_tx(xe))
		progress = true;
	xe_eth_notify(xe);
	if (progress || *next >= 0)
		xe->work = true;
	return progress;
}

int64_t xe_dev_poll(struct xe_dev *xe)
{
	int64_t now, next = -1;
	bool rung = xe->rung;

	xe->rung = false;
	if (!xe->aq_enabled || (xe->sts & XRNIC_DEV_STS_FATAL)) {
		if (xe->polling)
			xe_set_polling(xe, false);
		return -1;
	}
	if (!xe->work && !xe->polling)
		return -1;
	xe->work = false;
	now = xe_now_ns();
	if (xe_poll_pass(xe, now, &next)) {
		xe->last_progress = now;
		if (!rung)
			xe->counters[XRNIC_CNT_POLLED]++;
		if (!xe->polling)
			xe_set_polling(xe, true);
		return 0;
	}
	if (!xe->polling)
		return next;
	if (now - xe->last_progress < xe->linger_ns &&
	    now - xe->last_progress < xe->poll_linger_ns)
		return 0;
	/* Say so, then look once more: an index written meanwhile is seen. */
	xe_set_polling(xe, false);
	xe->poll_stopped = now;
	if (xe_poll_pass(xe, now, &next)) {
		xe->last_progress = now;
		xe_set_polling(xe, true);
		return 0;
	}
	return next;
}
