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

#include "xe.h"

#define RAM		(1024 * 1024)
#define PAGE		4096u
#define AQ		0x1000u
#define ACQ		0x2000u
#define AENQ		0x3000u
#define CQ		0x10000u	/* 64 CQEs, then its db page */
#define EQ		0x12000u	/* 16 EQEs, then its db */
#define QP(i)		(0x20000u + (i) * 0x4000u)	/* SQ, db, RQ */
#define BUF		0x40000u	/* the MR's 3 pages */
#define DEPTH		16

static struct xe_dev xe;
static uint8_t bar2[XRNIC_BAR2_SIZE] __attribute__((aligned(4096)));
static uint32_t next_cmd;

static void fuzz_irq(struct xe_dev *dev, unsigned int vec)
{
	if (vec >= dev->id.num_vectors)
		abort();
}

/* One admin command on the 4-entry queue; returns its status. */
static uint8_t fuzz_admin(uint8_t opcode, const void *body, void *answer)
{
	struct xrnic_aq_entry *e = (void *)(xe.mem.base + AQ + (next_cmd % 4) * 64);
	struct xrnic_acq_entry *c = (void *)(xe.mem.base + ACQ + (next_cmd % 4) * 64);

	memset(e, 0, sizeof(*e));
	e->opcode = opcode;
	memcpy(e->data, body, sizeof(e->data));
	e->flags = xrnic_entry_phase(next_cmd, 4);
	next_cmd++;
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);
	if (answer)
		memcpy(answer, c->data, sizeof(c->data));
	return c->status;
}

static void fuzz_setup(void)
{
	struct xrnic_cmd_eq eq = { .ring_addr = htole64(EQ), .depth = htole32(16),
				   .vector = htole16(1), .db_addr = htole64(EQ + PAGE) };
	struct xrnic_cmd_create_cq cq = { .ring_addr = htole64(CQ), .depth = htole32(64),
					  .eq_vector = htole16(1), .db_addr = htole64(CQ + PAGE) };
	struct xrnic_cmd_reg_mr mr = {
		.access = htole32(XRNIC_ACCESS_ALL), .iova = htole64(BUF),
		.length = htole64(3 * PAGE), .npages = htole32(3), .page_shift = 12,
		.pages = { htole64(BUF), htole64(BUF + PAGE), htole64(BUF + 2 * PAGE) },
	};
	static const uint8_t none[XRNIC_ADMIN_DATA_SIZE];
	uint8_t answer[XRNIC_ADMIN_DATA_SIZE];
	uint32_t pdn, cqn, qpn[2];
	int i;

	xe_reg_write(&xe, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);
	memset(xe.mem.base, 0, RAM);
	next_cmd = 0;
	xe_reg_write(&xe, XRNIC_REG_AQ_BASE_LO, AQ);
	xe_reg_write(&xe, XRNIC_REG_ACQ_BASE_LO, ACQ);
	xe_reg_write(&xe, XRNIC_REG_AENQ_BASE_LO, AENQ);
	xe_reg_write(&xe, XRNIC_REG_AQ_DEPTH, 4);
	xe_reg_write(&xe, XRNIC_REG_AENQ_DEPTH, 4);
	xe_reg_write(&xe, XRNIC_REG_AQ_CTL, XRNIC_AQ_CTL_ENABLE);
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);
	if (fuzz_admin(XRNIC_ADMIN_ALLOC_PD, none, answer))
		abort();
	pdn = le32toh(((struct xrnic_cmd_pd *)answer)->pdn);
	mr.pdn = htole32(pdn);
	if (fuzz_admin(XRNIC_ADMIN_REG_MR, &mr, NULL) ||
	    fuzz_admin(XRNIC_ADMIN_CREATE_EQ, &eq, NULL) ||
	    fuzz_admin(XRNIC_ADMIN_CREATE_CQ, &cq, answer))
		abort();
	cqn = le32toh(((struct xrnic_cmd_cq *)answer)->cqn);
	for (i = 0; i < 2; i++) {
		struct xrnic_cmd_create_qp c = {
			.pdn = htole32(pdn), .send_cqn = htole32(cqn), .recv_cqn = htole32(cqn),
			.sq_depth = htole32(DEPTH), .rq_depth = htole32(DEPTH),
			.qp_type = XRNIC_QPT_RC, .max_send_sge = XRNIC_MAX_SGE,
			.max_recv_sge = XRNIC_MAX_SGE, .sq_addr = htole64(QP(i)),
			.rq_addr = htole64(QP(i) + 2 * PAGE), .max_inline = htole32(XRNIC_MAX_INLINE),
			.db_addr = htole64(QP(i) + PAGE),
		};

		if (fuzz_admin(XRNIC_ADMIN_CREATE_QP, &c, answer))
			abort();
		qpn[i] = le32toh(((struct xrnic_cmd_qp *)answer)->qpn);
	}
	for (i = 0; i < 2; i++) {
		static const uint8_t states[] = { XRNIC_QPS_INIT, XRNIC_QPS_RTR, XRNIC_QPS_RTS };
		struct xrnic_qp_attr a = {
			.qpn = htole32(qpn[i]),
			.attr_mask = htole32(XRNIC_QP_STATE | XRNIC_QP_ACCESS_FLAGS |
					     XRNIC_QP_DEST_QPN),
			.dest_qpn = htole32(qpn[!i]),
			.access_flags = htole32(XRNIC_ACCESS_REMOTE_WRITE |
						XRNIC_ACCESS_REMOTE_READ |
						XRNIC_ACCESS_REMOTE_ATOMIC),
		};
		size_t s;

		for (s = 0; s < sizeof(states); s++) {
			a.state = states[s];
			if (fuzz_admin(XRNIC_ADMIN_MODIFY_QP, &a, NULL))
				abort();
			a.attr_mask = htole32(XRNIC_QP_STATE);
			a.access_flags = 0;
			a.dest_qpn = 0;
		}
	}
}

/* What the guest controls, in input order: the small records first. */
static const struct {
	uint32_t gpa, len;
} fuzz_areas[] = {
	{ QP(0) + PAGE, 16 }, { QP(1) + PAGE, 16 }, { CQ + PAGE, 8 },
	{ QP(0), DEPTH * XRNIC_SQE_SIZE }, { QP(1) + 2 * PAGE, DEPTH * XRNIC_RQE_SIZE },
	{ QP(1), DEPTH * XRNIC_SQE_SIZE }, { QP(0) + 2 * PAGE, DEPTH * XRNIC_RQE_SIZE },
	{ BUF, 3 * PAGE },
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
		if (qp->state == XRNIC_QPS_ERR && (qp->wait_until || qp->retrying))
			abort();
		if (qp->state != XRNIC_QPS_ERR && qp->state != XRNIC_QPS_RTS)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	unsigned int i, rounds;
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
		ready = true;
	}
	fuzz_setup();
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
