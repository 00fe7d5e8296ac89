// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the data path: two connected RC QPs of one device
 * with a 3-page MR, a CQ with events and an event queue, set up through
 * admin commands; then the input is copied over both QPs' send and receive
 * rings and doorbell records, the CQ's doorbell record and the data pages,
 * and the device runs until it stops making progress.  Every WQE and index
 * the guest controls is thus fuzzed.  Besides the sanitizers, the target
 * checks that every QP ends in RTS or ERR, and in ERR with no retry pending.
 */
#include <stdlib.h>
#include <string.h>

#include "loopback.h"

#define RAM		(1024 * 1024)
#define PAGE		XE_LB_PAGE
#define DEPTH		XE_LB_DEPTH

static struct xe_dev xe;
static uint8_t bar2[XRNIC_BAR2_SIZE] __attribute__((aligned(4096)));

static void fuzz_irq(struct xe_dev *dev, unsigned int vec)
{
	if (vec >= dev->id.num_vectors)
		abort();
}

/* What the guest controls, in input order: the small records first. */
static const struct {
	uint32_t gpa, len;
} fuzz_areas[] = {
	{ XE_LB_QP_DB(0), 16 }, { XE_LB_QP_DB(1), 16 }, { XE_LB_CQ_DB, 8 },
	{ XE_LB_QP(0), DEPTH * XRNIC_SQE_SIZE }, { XE_LB_RQ(1), DEPTH * XRNIC_RQE_SIZE },
	{ XE_LB_QP(1), DEPTH * XRNIC_SQE_SIZE }, { XE_LB_RQ(0), DEPTH * XRNIC_RQE_SIZE },
	{ XE_LB_BUF, 3 * PAGE },
};

static __attribute__((no_sanitize("coverage"))) void fuzz_check(void)
{
	unsigned int slot;
	const struct xe_qp *qp;

	for (slot = XE_QPN_FIRST_SLOT; slot < XE_QPN_SLOT_END; slot++) {
		qp = &xe.qp[slot];
		if (!qp->live)
			continue;
		/* A QP in ERR has no retry pending; one in RTS only its own. */
		if (qp->state == XRNIC_QPS_ERR && (qp->req.busy || qp->req.timer))
			abort();
		if (qp->state != XRNIC_QPS_ERR && qp->state != XRNIC_QPS_RTS)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	unsigned int i, rounds;
	struct xe_lb lb;
	size_t n;

	if (!ready) {
		xe.bar2 = bar2;
		xe.log = fopen("/dev/null", "w");
		xe.raise_irq = fuzz_irq;
		xe.id.num_vectors = 4;
		xe.mem = (struct xe_guest_mem){ .base = aligned_alloc(PAGE, RAM), .size = RAM };
		if (!xe.log || !xe.mem.base)
			abort();
		xe_dev_init(&xe);
		xe.poll_linger_ns = 0;	/* stop as soon as there is no progress */
		ready = true;
	}
	if (xe_lb_setup(&xe, &lb, 3 * PAGE, 0))
		abort();
	for (i = 0; i < ARRAY_SIZE(fuzz_areas) && size; i++) {
		n = size < fuzz_areas[i].len ? size : fuzz_areas[i].len;
		memcpy(xe.mem.base + fuzz_areas[i].gpa, data, n);
		data += n;
		size -= n;
	}
	/* Progress is bounded by the rings; retries wait on timers, not us. */
	xe_doorbell(&xe, 1);
	for (rounds = 0; rounds < 64 && xe_dev_poll(&xe) == 0; rounds++)
		;
	fuzz_check();
	return 0;
}
