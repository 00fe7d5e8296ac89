// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (IBTA 10.6.7): ALLOC_MW and DEALLOC_MW, the local
 * operations BIND_MW and LOCAL_INV of a send queue, the remote invalidation
 * a SEND_WITH_INV asks, and the translation of a remote request's window
 * rkey through the MR the window is bound to.  Every refusal of a bind is
 * MW_BIND_ERR and of an invalidation LOC_QP_OP_ERR, as rxe reports them.
 */
#include <errno.h>

#include "xe.h"

#define XE_MW_BIND_ACCESS	(XRNIC_ACCESS_REMOTE_WRITE | XRNIC_ACCESS_REMOTE_READ | \
				 XRNIC_ACCESS_REMOTE_ATOMIC)
#define XE_MW_BIND_FLAGS	(XE_MW_BIND_ACCESS | XRNIC_ACCESS_LOCAL_WRITE | \
				 XRNIC_ACCESS_ZERO_BASED)

static uint32_t xe_mw_rkey(uint32_t idx, uint8_t key)
{
	return (XRNIC_MW_INDEX_BASE + idx) << 8 | key;
}

/* The table index of the window rkey names now, or 0. */
static uint32_t xe_mw_lookup(const struct xe_dev *xe, uint32_t rkey)
{
	uint32_t idx = XRNIC_KEY_INDEX(rkey) - XRNIC_MW_INDEX_BASE;
	const struct xe_mw *mw;

	if (XRNIC_KEY_INDEX(rkey) <= XRNIC_MW_INDEX_BASE)
		return 0;
	mw = xe_obj_get(xe, XE_MW, idx);
	if (!mw || mw->key != XRNIC_KEY_BYTE(rkey))
		return 0;
	return idx;
}

static struct xe_mw *xe_mw_get(struct xe_dev *xe, uint32_t rkey)
{
	uint32_t idx = xe_mw_lookup(xe, rkey);

	return idx ? &xe->mw[idx] : NULL;
}

uint8_t xe_cmd_alloc_mw(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_mw *c = &cmd->mw;
	uint32_t pdn = le32toh(c->pdn), idx;
	struct xe_pd *pd;

	if (c->rkey || !xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (c->type != XRNIC_MW_TYPE_1 && c->type != XRNIC_MW_TYPE_2)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "memory window type neither 1 nor 2");
	pd = xe_pd_get(xe, pdn);
	if (!pd)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such PD");
	idx = xe_obj_unused(xe, XE_MW);
	if (!idx)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "memory window table full");
	xe->mw[idx] = (struct xe_mw){
		.obj.live = true, .type = c->type, .key = xe->mw[idx].key, .pdn = pdn,
	};
	pd->obj.refs++;
	cpl->mw.rkey = htole32(xe_mw_rkey(idx, xe->mw[idx].key));
	return XRNIC_STATUS_OK;
}

static void xe_mw_unbind(struct xe_dev *xe, struct xe_mw *mw)
{
	if (!mw->bound)
		return;
	xe->mr[xe_mr_lookup(xe, mw->mr_key)].obj.refs--;
	/* A type 2 window's QP unbinds it before it is destroyed. */
	if (mw->type == XRNIC_MW_TYPE_2)
		xe_qp_get(xe, mw->qpn)->mws--;
	mw->bound = false;
}

uint8_t xe_cmd_dealloc_mw(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_mw *c = &cmd->mw;
	struct xe_mw *mw;
	uint32_t idx;

	(void)cpl;
	if (c->pdn || c->type || !xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	/* Binds change the key byte behind the driver's back: the index names it. */
	idx = XRNIC_KEY_INDEX(le32toh(c->rkey)) - XRNIC_MW_INDEX_BASE;
	mw = XRNIC_KEY_INDEX(le32toh(c->rkey)) > XRNIC_MW_INDEX_BASE ?
	     xe_obj_get(xe, XE_MW, idx) : NULL;
	if (!mw)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no memory window at that index");
	xe_mw_unbind(xe, mw);
	xe->pd[mw->pdn].obj.refs--;
	/* The next window at this index gets another key byte. */
	*mw = (struct xe_mw){ .key = mw->key + 1 };
	return XRNIC_STATUS_OK;
}

void xe_mw_unbind_qp(struct xe_dev *xe, const struct xe_qp *qp)
{
	uint32_t idx;

	for (idx = 1; qp->mws && idx <= XRNIC_MAX_MW; idx++)
		if (xe->mw[idx].obj.live && xe->mw[idx].bound &&
		    xe->mw[idx].type == XRNIC_MW_TYPE_2 && xe->mw[idx].qpn == qp->qpn)
			xe_mw_unbind(xe, &xe->mw[idx]);
}

/* The checks of a bind (IBTA 10.6.7.2, C10-72 .. C10-75); true when it may go. */
static bool xe_mw_bind_ok(struct xe_dev *xe, const struct xe_qp *qp, const struct xe_mw *mw,
			  const struct xrnic_bind_mw *b, uint32_t *mr_idx)
{
	uint32_t access = le32toh(b->access), new_rkey = le32toh(b->new_rkey);
	uint64_t addr = le64toh(b->addr), length = le64toh(b->length);
	const struct xe_mr *mr;

	if (mw->pdn != qp->pdn || (access & ~XE_MW_BIND_FLAGS) ||
	    XRNIC_KEY_INDEX(new_rkey) != XRNIC_KEY_INDEX(le32toh(b->mw_rkey)))
		return false;
	if (mw->type == XRNIC_MW_TYPE_1 ? (access & XRNIC_ACCESS_ZERO_BASED) :
					  mw->bound || !length)
		return false;
	*mr_idx = 0;
	if (!length)
		return true;		/* a type 1 window unbound */
	*mr_idx = xe_mr_lookup(xe, le32toh(b->mr_lkey));
	if (!*mr_idx)
		return false;
	mr = &xe->mr[*mr_idx];
	if (mr->pdn != qp->pdn || !(mr->access & XRNIC_ACCESS_MW_BIND))
		return false;
	if ((access & (XRNIC_ACCESS_REMOTE_WRITE | XRNIC_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & XRNIC_ACCESS_LOCAL_WRITE))
		return false;
	return addr >= mr->iova && addr - mr->iova <= mr->length &&
	       length <= mr->length - (addr - mr->iova);
}

static uint8_t xe_mw_bind(struct xe_dev *xe, struct xe_qp *qp, const struct xrnic_bind_mw *b)
{
	struct xe_mw *mw = xe_mw_get(xe, le32toh(b->mw_rkey));
	uint32_t access = le32toh(b->access), mr_idx;

	if (!mw || !xe_mw_bind_ok(xe, qp, mw, b, &mr_idx))
		return XRNIC_WC_MW_BIND_ERR;
	xe_mw_unbind(xe, mw);
	mw->key = XRNIC_KEY_BYTE(le32toh(b->new_rkey));
	if (!mr_idx)
		return XRNIC_WC_SUCCESS;
	mw->bound = true;
	mw->zero_based = access & XRNIC_ACCESS_ZERO_BASED;
	mw->access = access & XE_MW_BIND_ACCESS;
	mw->mr_key = le32toh(b->mr_lkey);
	mw->addr = le64toh(b->addr);
	mw->length = le64toh(b->length);
	xe->mr[mr_idx].obj.refs++;
	if (mw->type == XRNIC_MW_TYPE_2) {
		mw->qpn = qp->qpn;
		qp->mws++;
	}
	return XRNIC_WC_SUCCESS;
}

/* Invalidate rkey for qp: a bound type 2 window of its PD (and, remote, bound to it). */
static int xe_mw_invalidate(struct xe_dev *xe, const struct xe_qp *qp, uint32_t rkey,
			    bool remote)
{
	struct xe_mw *mw = xe_mw_get(xe, rkey);

	if (!mw || mw->type != XRNIC_MW_TYPE_2 || !mw->bound || mw->pdn != qp->pdn ||
	    (remote && mw->qpn != qp->qpn))
		return -EINVAL;
	xe_mw_unbind(xe, mw);
	return 0;
}

int xe_mw_remote_invalidate(struct xe_dev *xe, const struct xe_qp *qp, uint32_t rkey)
{
	return xe_mw_invalidate(xe, qp, rkey, true);
}

uint8_t xe_mw_local_op(struct xe_dev *xe, struct xe_qp *qp, const struct xrnic_sqe *w,
		       uint8_t *verr)
{
	uint8_t status;

	*verr = XRNIC_VERR_MW;
	if ((w->flags & ~(XRNIC_SQE_SIGNALED | XRNIC_SQE_FENCE)) || w->reserved0 ||
	    w->num_sge || w->remote_addr || w->rkey || w->inline_len ||
	    (w->opcode == XRNIC_WR_BIND_MW && w->invalidate_rkey)) {
		*verr = XRNIC_VERR_BAD_WQE;
		return XRNIC_WC_LOC_QP_OP_ERR;
	}
	if (w->opcode == XRNIC_WR_BIND_MW)
		status = xe_mw_bind(xe, qp, &w->bind);
	else
		status = xe_mw_invalidate(xe, qp, le32toh(w->invalidate_rkey), false) ?
			 XRNIC_WC_LOC_QP_OP_ERR : XRNIC_WC_SUCCESS;
	if (status == XRNIC_WC_SUCCESS)
		*verr = XRNIC_VERR_NONE;
	return status;
}

bool xe_mw_translate(const struct xe_dev *xe, uint32_t key, uint32_t pdn, uint32_t qpn,
		     uint64_t iova, uint64_t len, uint32_t access, uint64_t *gpa, uint64_t *avail,
		     int *err)
{
	const struct xe_mw *mw = &xe->mw[xe_mw_lookup(xe, key)];

	if (XRNIC_KEY_INDEX(key) <= XRNIC_MW_INDEX_BASE)
		return false;
	/* Entry 0 is never live. */
	if (!mw->obj.live || !mw->bound) {
		*err = -ENOENT;
		return true;
	}
	if (mw->pdn != pdn || (mw->type == XRNIC_MW_TYPE_2 && mw->qpn != qpn) ||
	    !(access & XE_MW_BIND_ACCESS) || (mw->access & access) != access) {
		*err = -EACCES;
		return true;
	}
	if (!mw->zero_based)
		iova -= mw->addr;	/* wraps above the window: out of range */
	if (!len || iova >= mw->length || len > mw->length - iova) {
		*err = -ERANGE;
		return true;
	}
	/* What the window grants is local access to its MR. */
	*err = xe_mr_translate(xe, mw->mr_key, pdn, mw->addr + iova, len,
			       access & (XRNIC_ACCESS_REMOTE_WRITE | XRNIC_ACCESS_REMOTE_ATOMIC) ?
			       XRNIC_ACCESS_LOCAL_WRITE : 0, gpa, avail);
	return true;
}
