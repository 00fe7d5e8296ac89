// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the data path: two connected RC QPs of one device,
 * a UD QP and two connected UC QPs, with a 3-page MR, a CQ with events and an event queue, set up through
 * admin commands; then the input is copied over both QPs' send and receive
 * rings and doorbell records, the CQ's doorbell record and the data pages,
 * and the device runs until it stops making progress.  Every WQE and index
 * the guest controls is thus fuzzed.  Besides the sanitizers, the target
 * checks that every QP ends in RTS or ERR, and in ERR with no retry pending.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_loopback.h"

#define PAGE		XE_LB_PAGE
#define DEPTH		XE_LB_DEPTH

static struct xe_dev *xe;

/* What the guest controls, in input order: the small records first. */
static const struct {
	uint32_t gpa, len;
} fuzz_areas[] = {
	{ XE_LB_QP_DB(0), 16 }, { XE_LB_QP_DB(1), 16 }, { XE_LB_CQ_DB, 8 },
	{ XE_LB_QP(0), DEPTH * XRNIC_SQE_SIZE }, { XE_LB_RQ(1), DEPTH * XRNIC_RQE_SIZE },
	{ XE_LB_QP(1), DEPTH * XRNIC_SQE_SIZE }, { XE_LB_RQ(0), DEPTH * XRNIC_RQE_SIZE },
	{ XE_LB_BUF, 3 * PAGE },
	{ XE_LB_QP_DB(2), 16 }, { XE_LB_QP(2), DEPTH * XRNIC_SQE_SIZE },
	{ XE_LB_RQ(2), DEPTH * XRNIC_RQE_SIZE },
	{ XE_LB_QP_DB(3), 16 }, { XE_LB_QP(3), DEPTH * XRNIC_SQE_SIZE },
	{ XE_LB_RQ(4), DEPTH * XRNIC_RQE_SIZE }, { XE_LB_QP_DB(4), 16 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int i, rounds;
	struct xe_lb lb;
	size_t n;

	uint32_t ud, uc[2];

	xe = fuzz_device();
	if (xe_lb_setup(xe, &lb, 3 * PAGE, 0) ||
	    xe_lb_create_qp(xe, &lb, 2, XRNIC_QPT_UD, 0, &ud) || xe_lb_ud_rts(xe, &lb, ud, 7) ||
	    xe_lb_create_qp(xe, &lb, 3, XRNIC_QPT_UC, 0, &uc[0]) ||
	    xe_lb_create_qp(xe, &lb, 4, XRNIC_QPT_UC, 0, &uc[1]) ||
	    xe_lb_uc_rts(xe, &lb, uc[0], uc[1]) || xe_lb_uc_rts(xe, &lb, uc[1], uc[0]))
		abort();
	for (i = 0; i < ARRAY_SIZE(fuzz_areas) && size; i++) {
		n = size < fuzz_areas[i].len ? size : fuzz_areas[i].len;
		memcpy(xe->mem.base + fuzz_areas[i].gpa, data, n);
		data += n;
		size -= n;
	}
	/* Progress is bounded by the rings; retries wait on timers, not us. */
	xe_doorbell(xe, 1);
	for (rounds = 0; rounds < 64 && xe_dev_poll(xe) == 0; rounds++)
		;
	fuzz_check_qps(xe);
	return 0;
}
