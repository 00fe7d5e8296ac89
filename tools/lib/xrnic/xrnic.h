/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* libxrnic: the XRNIC provider for libibverbs.  Objects and their queues. */
#ifndef XRNIC_PROVIDER_H
#define XRNIC_PROVIDER_H

#include <endian.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <xrnic/xrnic_io.h>
#include "ibverbs_private.h"

struct xrnic_context {
	struct verbs_context vctx;
	uint8_t *db_page;		/* the doorbell page, mapped uncached */
	volatile uint32_t *db;		/* the Doorbell register in it */
	uint32_t db_value;
	const struct xrnic_dev_status *status;	/* read-only, or NULL */
	const struct xrnic_clock_info *clock;	/* read-only, or NULL */
};

/* A ring mapped from the kernel; its doorbell record at db_offset. */
struct xrnic_map {
	uint8_t *buf;
	size_t size;
};

struct xrnic_cq {
	struct verbs_cq vcq;
	struct xrnic_map map;
	struct xrnic_cqe *cqes;
	struct xrnic_cq_db *db;
	uint32_t depth;
	uint32_t ci;			/* free-running consumer index */
	uint32_t arm_sn;		/* last arm request number */
	pthread_spinlock_t lock;
	struct xrnic_cqe cur;		/* extended CQ: the completion being read */
};

/* A send or receive queue, or an SRQ; its ring and doorbell record change under lock. */
struct xrnic_wq {
	uint8_t *ring;
	uint32_t depth;
	uint32_t pi;			/* free-running producer index */
	uint32_t max_sge;
	uint32_t *pi_le;		/* where pi is published, in the doorbell record */
	const uint32_t *ci_le;		/* the device's consumer index there */
	pthread_spinlock_t lock;
};

/* A shared receive queue: its mapped ring and doorbell record. */
struct xrnic_srq {
	struct ibv_srq ibv_srq;
	struct xrnic_map map;
	struct xrnic_wq wq;
};

/* An address handle: the kernel's handle and the address vector it resolved. */
struct xrnic_ah {
	struct ibv_ah ibv_ah;
	struct xrnic_av av;
};

struct xrnic_qp {
	struct verbs_qp vqp;
	bool ud;			/* UD: WQEs carry an address vector */
	struct xrnic_map sq_map, rq_map;
	struct xrnic_qp_db *db;
	struct xrnic_wq sq, rq;
	uint32_t max_inline;
	int sq_sig_all;
	/* ibv_wr_start() .. complete(): the first slot, and the first error */
	uint32_t wr_start_pi;
	int wr_err;
};

static inline struct xrnic_context *to_xctx(struct ibv_context *ctx)
{
	return (struct xrnic_context *)((char *)ctx - offsetof(struct xrnic_context, vctx.context));
}

static inline struct xrnic_cq *to_xcq(struct ibv_cq *cq)
{
	return (struct xrnic_cq *)((char *)cq - offsetof(struct xrnic_cq, vcq.cq));
}

static inline struct xrnic_qp *to_xqp(struct ibv_qp *qp)
{
	return (struct xrnic_qp *)((char *)qp - offsetof(struct xrnic_qp, vqp.qp));
}

static inline struct xrnic_srq *to_xsrq(struct ibv_srq *srq)
{
	return (struct xrnic_srq *)((char *)srq - offsetof(struct xrnic_srq, ibv_srq));
}

static inline struct xrnic_ah *to_xah(struct ibv_ah *ah)
{
	return (struct xrnic_ah *)((char *)ah - offsetof(struct xrnic_ah, ibv_ah));
}

/* Where a WQE's SGEs and inline data go: after the address vector in UD. */
static inline struct xrnic_sge *xrnic_sqe_sge(const struct xrnic_qp *qp, struct xrnic_sqe *w)
{
	return qp->ud ? w->ud.sge : w->sge;
}

static inline uint8_t *xrnic_sqe_inline(const struct xrnic_qp *qp, struct xrnic_sqe *w)
{
	return qp->ud ? w->ud.inline_data : w->inline_data;
}

/* A UD WQE's destination. */
static inline void xrnic_sqe_set_ud(struct xrnic_sqe *w, struct ibv_ah *ah, uint32_t remote_qpn,
				    uint32_t remote_qkey)
{
	w->ud.av = to_xah(ah)->av;
	w->dest_qpn = htole32(remote_qpn);
	w->qkey = htole32(remote_qkey);
}

/*
 * Wake the device after a producer index moved, unless it is polling: see
 * struct xrnic_dev_status.  The barrier orders the index before the read
 * of the poll word; a doorbell is a store to device memory that traps.
 */
static inline void xrnic_ring_doorbell(struct xrnic_context *ctx)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (ctx->status &&
	    (le32toh(__atomic_load_n(&ctx->status->poll, __ATOMIC_RELAXED)) & XRNIC_STATUS_POLLING))
		return;
	*ctx->db = ctx->db_value;
}

/* cq_ex.c: the extended CQ's poll and read operations. */
void xrnic_cq_ex_init(struct xrnic_cq *cq);

/* clock.c */
uint64_t xrnic_ts_to_wallclock(struct xrnic_context *ctx, uint32_t ts);
int xrnic_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *values);

/* datapath.c: take the next completion of cq into *e; false when none. */
bool xrnic_cq_next(struct xrnic_cq *cq, struct xrnic_cqe *e);
/*
 * Take the flushed work requests of QP qpn (XRNIC_WC_WR_FLUSH_ERR) out of
 * cq, the other completions keeping their order; only once the device
 * writes none of qpn's any more (destroyed).  Destroy cancels what the
 * error state flushed, so nobody reads those of a QP that is gone: as
 * mlx4 and mlx5, which take every completion of the QP out.  What it did
 * complete (its last message received, say) stays to be read, as rxe
 * keeps it: with every completion taken out, a slow libfabric RXM client
 * once lost its last message (Documentation/testing.rst).
 */
void xrnic_cq_clean(struct xrnic_cq *cq, uint32_t qpn);
/* The IBV_WC_* flags of a completion. */
unsigned int xrnic_cqe_wc_flags(const struct xrnic_cqe *e);
uint8_t xrnic_cqe_sl(const struct xrnic_cqe *e);

/* qp_ex.c */
void xrnic_qp_ex_init(struct xrnic_qp *qp);

/* datapath.c */
/* The body of a BIND_MW WQE of qp: mw gets rkey; 0 or EINVAL. */
int xrnic_build_bind(struct xrnic_qp *qp, struct ibv_mw *mw, uint32_t rkey,
		     const struct ibv_mw_bind_info *info, struct xrnic_sqe *w);
bool xrnic_sq_takes_work(const struct ibv_qp *ibqp);
int xrnic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int xrnic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int xrnic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int xrnic_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc);
int xrnic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
/* After a move to RESET: the device restarts both queues at index 0. */
void xrnic_qp_reset_queues(struct xrnic_qp *qp);

#endif /* XRNIC_PROVIDER_H */
