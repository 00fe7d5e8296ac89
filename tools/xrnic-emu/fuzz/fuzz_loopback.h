/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the data-path fuzzers (fuzz_wqe, fuzz_pkt) share: one device with
 * RAM_SIZE bytes of guest RAM, made once per process and set up again for
 * every input with xe_lb_setup(), and the invariant both check after it.
 */
#ifndef FUZZ_LOOPBACK_H
#define FUZZ_LOOPBACK_H

#include <stdlib.h>

#include "loopback.h"
#include "transport.h"

#define FUZZ_RAM_SIZE	(1024 * 1024)

static void fuzz_irq(struct xe_dev *dev, unsigned int vec)
{
	if (vec >= dev->id.num_vectors)
		abort();
}

/* The process's device, made on first use. */
static struct xe_dev *fuzz_device(void)
{
	static uint8_t bar2[XRNIC_BAR2_SIZE] __attribute__((aligned(4096)));
	static struct xe_dev xe;
	static bool ready;

	if (ready)
		return &xe;
	xe.bar2 = bar2;
	xe.log = fopen("/dev/null", "w");
	xe.raise_irq = fuzz_irq;
	xe.id.num_vectors = 4;
	xe.mem = (struct xe_guest_mem){ .base = aligned_alloc(XE_LB_PAGE, FUZZ_RAM_SIZE),
					.size = FUZZ_RAM_SIZE };
	if (!xe.log || !xe.mem.base)
		abort();
	xe_dev_init(&xe);
	xe.poll_linger_ns = 0;	/* stop as soon as there is no progress */
	ready = true;
	return &xe;
}

/*
 * Every QP ends in RTS or ERR, and one in ERR has nothing in flight; the
 * window holds at most XE_SQ_WINDOW messages, the next to send among them,
 * and no more READs and atomics than max_rd_atomic (0 counting as 1).
 */
static __attribute__((no_sanitize("coverage"))) void fuzz_check_qps(const struct xe_dev *xe)
{
	const struct xe_qp_req *r;
	const struct xe_qp *qp;
	unsigned int slot;
	uint32_t n;

	for (slot = XE_QPN_FIRST_SLOT; slot < XE_QPN_SLOT_END; slot++) {
		qp = &xe->qp[slot];
		if (!qp->obj.live)
			continue;
		r = &qp->req;
		n = r->sq_next - qp->sq_ci;
		if (n > XE_SQ_WINDOW || r->send_idx - qp->sq_ci > n || r->rd_atomic > n ||
		    r->rd_atomic > xe_req_rd_atomic_max(qp))
			abort();
		if (qp->state == XRNIC_QPS_ERR && (n || r->timer))
			abort();
		if (qp->state != XRNIC_QPS_ERR && qp->state != XRNIC_QPS_RTS)
			abort();
	}
}

#endif /* FUZZ_LOOPBACK_H */
