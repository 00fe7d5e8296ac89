// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The extended CQ (ibv_create_cq_ex()): ibv_start_poll() takes the CQ's
 * lock and the first completion, ibv_next_poll() the next, the
 * ibv_wc_read_*() calls read the one taken, and ibv_end_poll() publishes
 * the consumer index and lets the lock go.  Every completion carries the
 * device clock (XRNIC_CLOCK_KHZ, XRNIC_CLOCK_MASK), which clock.c turns
 * into wall-clock time.
 */
#include <endian.h>
#include <errno.h>

#include "xrnic.h"

static struct xrnic_cq *to_xcqx(struct ibv_cq_ex *cqx)
{
	return to_xcq(ibv_cq_ex_to_cq(cqx));
}

/* The completion taken becomes the current one; ENOENT when there is none. */
static int xrnic_cqx_take(struct ibv_cq_ex *cqx)
{
	struct xrnic_cq *cq = to_xcqx(cqx);

	if (!xrnic_cq_next(cq, &cq->cur))
		return ENOENT;
	cqx->wr_id = le64toh(cq->cur.wr_id);
	cqx->status = cq->cur.status;
	return 0;
}

static int xrnic_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct xrnic_cq *cq = to_xcqx(cqx);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	ret = xrnic_cqx_take(cqx);
	/* Nothing: the poll is over (libibverbs: no end_poll after ENOENT). */
	if (ret)
		pthread_spin_unlock(&cq->lock);
	return ret;
}

static int xrnic_next_poll(struct ibv_cq_ex *cqx)
{
	return xrnic_cqx_take(cqx);
}

static void xrnic_end_poll(struct ibv_cq_ex *cqx)
{
	struct xrnic_cq *cq = to_xcqx(cqx);

	__atomic_store_n(&cq->db->ci, htole32(cq->ci), __ATOMIC_RELEASE);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode xrnic_read_opcode(struct ibv_cq_ex *cqx)
{
	return to_xcqx(cqx)->cur.opcode;
}

static uint32_t xrnic_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return to_xcqx(cqx)->cur.vendor_err;
}

static uint32_t xrnic_read_byte_len(struct ibv_cq_ex *cqx)
{
	return le32toh(to_xcqx(cqx)->cur.byte_len);
}

/* Also ibv_wc_read_invalidated_rkey(), which takes the same word in host order. */
static __be32 xrnic_read_imm_data(struct ibv_cq_ex *cqx)
{
	const struct xrnic_cqe *e = &to_xcqx(cqx)->cur;

	if (e->flags & XRNIC_CQE_WITH_INV)
		return (__be32)le32toh(e->invalidated_rkey);
	return e->imm_data_be;
}

static uint32_t xrnic_read_qp_num(struct ibv_cq_ex *cqx)
{
	return le32toh(to_xcqx(cqx)->cur.qpn);
}

static uint32_t xrnic_read_src_qp(struct ibv_cq_ex *cqx)
{
	return le32toh(to_xcqx(cqx)->cur.src_qp);
}

static unsigned int xrnic_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return xrnic_cqe_wc_flags(&to_xcqx(cqx)->cur);
}

/* RoCE has no LIDs. */
static uint32_t xrnic_read_slid(struct ibv_cq_ex *cqx)
{
	(void)cqx;
	return 0;
}

static uint8_t xrnic_read_sl(struct ibv_cq_ex *cqx)
{
	return xrnic_cqe_sl(&to_xcqx(cqx)->cur);
}

static uint8_t xrnic_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	(void)cqx;
	return 0;
}

static uint64_t xrnic_read_completion_ts(struct ibv_cq_ex *cqx)
{
	return le32toh(to_xcqx(cqx)->cur.timestamp);
}

static uint64_t xrnic_read_completion_wallclock_ns(struct ibv_cq_ex *cqx)
{
	return xrnic_ts_to_wallclock(to_xctx(cqx->context),
				     le32toh(to_xcqx(cqx)->cur.timestamp));
}

void xrnic_cq_ex_init(struct xrnic_cq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = xrnic_start_poll;
	cqx->next_poll = xrnic_next_poll;
	cqx->end_poll = xrnic_end_poll;
	cqx->read_opcode = xrnic_read_opcode;
	cqx->read_vendor_err = xrnic_read_vendor_err;
	cqx->read_byte_len = xrnic_read_byte_len;
	cqx->read_imm_data = xrnic_read_imm_data;
	cqx->read_qp_num = xrnic_read_qp_num;
	cqx->read_src_qp = xrnic_read_src_qp;
	cqx->read_wc_flags = xrnic_read_wc_flags;
	cqx->read_slid = xrnic_read_slid;
	cqx->read_sl = xrnic_read_sl;
	cqx->read_dlid_path_bits = xrnic_read_dlid_path_bits;
	cqx->read_completion_ts = xrnic_read_completion_ts;
	cqx->read_completion_wallclock_ns = xrnic_read_completion_wallclock_ns;
}
