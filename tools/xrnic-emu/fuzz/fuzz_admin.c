// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the admin path.  Input: ten little-endian u32 register
 * values (AQ/ACQ/AENQ base lo/hi, AQ_DEPTH, AENQ_DEPTH, AQ_CTL, AENQ_CI), a
 * little-endian u32 fill length (modulo the RAM size plus one) and that many
 * bytes copied to the start of guest RAM (page lists for REG_MR to walk),
 * then 64-byte AQ entries.  The device is reset, RAM filled, the registers
 * written and the admin doorbell rung; if that enabled the AQ, the entries
 * are written into the ring a lap at a time with a doorbell after each lap.
 * Finally the AQ is disabled and the device reset.  Besides the sanitizers,
 * the target checks that a latched ring never reaches outside guest RAM,
 * that the object tables are consistent (references, page lists inside RAM,
 * the page budget, unique QP numbers, the command counter) and that the
 * reset empties them.
 */
#include <stdlib.h>
#include <string.h>

#include "xe.h"

#define FUZZ_RAM_SIZE	(16 * 1024)	/* small: rings easily overrun it */

static const uint32_t fuzz_regs[] = {
	XRNIC_REG_AQ_BASE_LO, XRNIC_REG_AQ_BASE_HI, XRNIC_REG_ACQ_BASE_LO,
	XRNIC_REG_ACQ_BASE_HI, XRNIC_REG_AENQ_BASE_LO, XRNIC_REG_AENQ_BASE_HI,
	XRNIC_REG_AQ_DEPTH, XRNIC_REG_AENQ_DEPTH, XRNIC_REG_AQ_CTL, XRNIC_REG_AENQ_CI,
};

#define FUZZ_HDR_SIZE	(ARRAY_SIZE(fuzz_regs) * 4 + 4)

static void fuzz_irq(struct xe_dev *xe, unsigned int vec)
{
	/* Completion events of QPs flushed by MODIFY_QP raise vectors 1..3. */
	if (vec >= xe->id.num_vectors)
		abort();
	++*(unsigned long *)xe->irq_ctx;
}

static void fuzz_check_ring(const struct xe_ring *r, size_t entry_size, const uint8_t *ram)
{
	uintptr_t start = (uintptr_t)r->host, end = (uintptr_t)ram + FUZZ_RAM_SIZE;

	if (start < (uintptr_t)ram || start > end || r->depth * entry_size > end - start)
		abort();
}

/* The checks are no target: keep their comparisons out of the feedback. */
#define FUZZ_CHECKER	__attribute__((no_sanitize("coverage")))

static FUZZ_CHECKER void fuzz_check_mr(struct xe_dev *xe, const struct xe_mr *mr, uint32_t *pd_refs)
{
	uint64_t span = mr->iova % XE_MR_PAGE_SIZE + mr->length;
	uint32_t i;

	if (!xe_pd_get(xe, mr->pdn) || !mr->length || mr->length > XE_MAX_MR_SIZE ||
	    mr->iova > UINT64_MAX - mr->length ||
	    mr->npages != (span + XE_MR_PAGE_SIZE - 1) / XE_MR_PAGE_SIZE ||
	    (mr->access & ~XRNIC_ACCESS_ALL))
		abort();
	for (i = 0; i < mr->npages; i++)
		if (mr->pages[i] % XE_MR_PAGE_SIZE ||
		    !xe_gm_ptr(&xe->mem, mr->pages[i], XE_MR_PAGE_SIZE))
			abort();
	pd_refs[mr->pdn]++;
}

/* References, page lists and numbers agree with the tables. */
static FUZZ_CHECKER void fuzz_check_objects(struct xe_dev *xe, bool empty)
{
	static uint32_t pd_refs[XE_MAX_PD + 1], cq_refs[XE_MAX_CQ + 1];
	static uint32_t srq_refs[XRNIC_MAX_SRQ + 1], groups[XE_QPN_SLOT_END];
	static uint32_t mr_mws[XE_MAX_MR + 1], qp_mws[XE_QPN_SLOT_END];
	uint64_t pages = 0;
	const struct xe_qp *qp;
	uint32_t i, j, k;

	memset(pd_refs, 0, sizeof(pd_refs));
	memset(cq_refs, 0, sizeof(cq_refs));
	memset(srq_refs, 0, sizeof(srq_refs));
	memset(groups, 0, sizeof(groups));
	/* A multicast group holds live UD QPs, each once. */
	for (i = 0; i < XRNIC_MAX_MCAST_GRP; i++) {
		const struct xe_mcast *g = &xe->mcast[i];

		if (g->nqp > XRNIC_MAX_MCAST_QP_ATTACH || (g->nqp && !xe_gid_is_mcast(g->gid)))
			abort();
		for (j = 0; j < g->nqp; j++) {
			qp = xe_qp_get(xe, g->qpn[j]);
			if (!qp || qp->type != XRNIC_QPT_UD || empty)
				abort();
			for (k = 0; k < j; k++)
				if (g->qpn[k] == g->qpn[j])
					abort();
			groups[qp - xe->qp]++;
		}
	}
	for (i = 0; i <= XE_MAX_MR; i++) {
		if (!xe->mr[i].obj.live) {
			if (xe->mr[i].pages || xe->mr[i].npages)
				abort();
			continue;
		}
		if (!i || empty)
			abort();
		fuzz_check_mr(xe, &xe->mr[i], pd_refs);
		pages += xe->mr[i].npages;
	}
	if (pages != xe->mr_pages || pages > XE_MAX_MR_PAGES)
		abort();
	for (i = 0; i < XE_QPN_SLOT_END; i++) {
		qp = &xe->qp[i];
		if (qp->mcast_groups != groups[i])
			abort();
		if (!qp->obj.live)
			continue;
		/* Slot 1 holds only the GSI QP, a UD QP numbered 1. */
		if (i < XE_QPN_GSI_SLOT || empty || xe_qp_get(xe, qp->qpn) != qp ||
		    (i == XE_QPN_GSI_SLOT) != (qp->qpn == XRNIC_GSI_QPN) ||
		    (i == XE_QPN_GSI_SLOT && qp->type != XRNIC_QPT_UD) ||
		    qp->qpn < 1 || qp->qpn > XRNIC_QPN_MASK || qp->state > XRNIC_QPS_ERR ||
		    !xe_pd_get(xe, qp->pdn) || !xe_cq_get(xe, qp->send_cqn) ||
		    !xe_cq_get(xe, qp->recv_cqn))
			abort();
		if (qp->srqn && !xe_srq_get(xe, qp->srqn))
			abort();
		pd_refs[qp->pdn]++;
		cq_refs[qp->send_cqn]++;
		cq_refs[qp->recv_cqn]++;
		srq_refs[qp->srqn]++;
		for (j = 0; j < i; j++)
			if (xe->qp[j].obj.live && xe->qp[j].qpn == qp->qpn)
				abort();
	}
	/* A window holds its PD, and while bound its MR and (type 2) its QP. */
	memset(mr_mws, 0, sizeof(mr_mws));
	memset(qp_mws, 0, sizeof(qp_mws));
	for (i = 0; i <= XRNIC_MAX_MW; i++) {
		const struct xe_mw *mw = &xe->mw[i];

		if (!mw->obj.live) {
			if (mw->bound)
				abort();
			continue;
		}
		if (!i || empty || !xe_pd_get(xe, mw->pdn) ||
		    (mw->type != XRNIC_MW_TYPE_1 && mw->type != XRNIC_MW_TYPE_2))
			abort();
		pd_refs[mw->pdn]++;
		if (!mw->bound)
			continue;
		j = xe_mr_lookup(xe, mw->mr_key);
		if (!j || xe->mr[j].pdn != mw->pdn)
			abort();
		mr_mws[j]++;
		if (mw->type == XRNIC_MW_TYPE_2) {
			qp = xe_qp_get(xe, mw->qpn);
			if (!qp)
				abort();
			qp_mws[qp - xe->qp]++;
		}
	}
	for (i = 1; i <= XE_MAX_MR; i++)
		if (xe->mr[i].obj.refs != mr_mws[i])
			abort();
	for (i = 0; i < XE_QPN_SLOT_END; i++)
		if (xe->qp[i].mws != qp_mws[i])
			abort();
	/* An SRQ holds its PD; QPs hold their SRQ. */
	for (i = 1; i <= XRNIC_MAX_SRQ; i++) {
		if (!xe->srq[i].obj.live) {
			if (xe->srq[i].obj.refs)
				abort();
			continue;
		}
		if (empty || !xe_pd_get(xe, xe->srq[i].pdn) || xe->srq[i].obj.refs != srq_refs[i] ||
		    xe->srq[i].limit >= xe->srq[i].depth)
			abort();
		/* Its ring and record, also after a resize, inside guest RAM. */
		fuzz_check_ring(&(struct xe_ring){ .host = xe->srq[i].ring,
						   .depth = xe->srq[i].depth },
				XRNIC_RQE_SIZE, xe->mem.base);
		fuzz_check_ring(&(struct xe_ring){ .host = (uint8_t *)xe->srq[i].db, .depth = 1 },
				XRNIC_DB_RECORD_SIZE, xe->mem.base);
		pd_refs[xe->srq[i].pdn]++;
	}
	for (i = 0; i <= XE_MAX_PD; i++)
		if (xe->pd[i].obj.refs != pd_refs[i] || ((!i || empty) && xe->pd[i].obj.live))
			abort();
	for (i = 0; i <= XE_MAX_CQ; i++)
		if (xe->cq[i].obj.refs != cq_refs[i] || ((!i || empty) && xe->cq[i].obj.live))
			abort();
	if (xe->counters[XRNIC_CNT_ADMIN_ERRORS] > xe->counters[XRNIC_CNT_ADMIN_COMMANDS])
		abort();
}

static void fuzz_reset(struct xe_dev *xe)
{
	xe_reg_write(xe, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_doorbell(xe, XRNIC_VEC_ADMIN);
	if (xe_reg_read(xe, XRNIC_REG_DEV_CTL) || xe->sts != XRNIC_DEV_STS_READY)
		abort();
	fuzz_check_objects(xe, true);
	if (!xe_all_zero(xe->counters, sizeof(xe->counters)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *bar2, *ram;
	static unsigned long irqs;
	struct xe_dev xe = { .raise_irq = fuzz_irq, .irq_ctx = &irqs };
	size_t i, n;
	uint32_t v;

	if (!bar2) {
		bar2 = aligned_alloc(XRNIC_PAGE_SIZE, XRNIC_BAR2_SIZE);
		ram = aligned_alloc(XRNIC_PAGE_SIZE, FUZZ_RAM_SIZE);
	}
	if (size < FUZZ_HDR_SIZE)
		return -1;
	memset(ram, 0, FUZZ_RAM_SIZE);
	xe.bar2 = bar2;
	xe.mem = (struct xe_guest_mem){ .base = ram, .size = FUZZ_RAM_SIZE };
	xe.id.num_vectors = 4;
	xe_dev_init(&xe);
	fuzz_reset(&xe);

	for (i = 0; i < ARRAY_SIZE(fuzz_regs); i++) {
		memcpy(&v, data + 4 * i, 4);
		xe_reg_write(&xe, fuzz_regs[i], le32toh(v));
	}
	memcpy(&v, data + FUZZ_HDR_SIZE - 4, 4);
	data += FUZZ_HDR_SIZE;
	size -= FUZZ_HDR_SIZE;
	n = le32toh(v) % (FUZZ_RAM_SIZE + 1);
	if (n > size)
		n = size;
	memcpy(ram, data, n);
	data += n;
	size -= n;
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);

	if (xe.aq_enabled) {
		fuzz_check_ring(&xe.aq, XRNIC_AQ_ENTRY_SIZE, ram);
		fuzz_check_ring(&xe.acq, XRNIC_ACQ_ENTRY_SIZE, ram);
		fuzz_check_ring(&xe.aenq, XRNIC_AENQ_ENTRY_SIZE, ram);
		for (n = 0; n < size / XRNIC_AQ_ENTRY_SIZE; n++) {
			memcpy(xe.aq.host + (n & (xe.aq.depth - 1)) * XRNIC_AQ_ENTRY_SIZE,
			       data + n * XRNIC_AQ_ENTRY_SIZE, XRNIC_AQ_ENTRY_SIZE);
			if ((n & (xe.aq.depth - 1)) == xe.aq.depth - 1)
				xe_doorbell(&xe, XRNIC_VEC_ADMIN);
		}
		xe_doorbell(&xe, XRNIC_VEC_ADMIN);
		/* Not aq_ci <= n: completions may land in an overlapping AQ. */
		if (xe.acq_pi != xe.aq_ci || xe.counters[XRNIC_CNT_ADMIN_COMMANDS] != xe.aq_ci)
			abort();
		fuzz_check_objects(&xe, false);
	}
	xe_reg_write(&xe, XRNIC_REG_AQ_CTL, 0);
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);
	if (xe.aq_enabled)
		abort();
	fuzz_reset(&xe);
	xe_dev_fini(&xe);
	return 0;
}
