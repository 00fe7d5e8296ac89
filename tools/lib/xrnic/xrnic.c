// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libxrnic: the XRNIC provider for libibverbs.  Device matching, contexts
 * with their doorbell page, and the control verbs, which go to the kernel
 * through libibverbs' ibv_cmd_* calls; the data path is in datapath.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/xrnic-abi.h>
#include <xrnic/xrnic_regs.h>
#include "xrnic.h"

/* The driver-specific tails of the answers (<rdma/xrnic-abi.h>). */
struct xrnic_get_context_resp {
	struct ib_uverbs_get_context_resp ibv;
	struct xrnic_alloc_ucontext_resp drv;
};

struct xrnic_create_cq_answer {
	struct ib_uverbs_create_cq_resp ibv;
	struct xrnic_create_cq_resp drv;
};

struct xrnic_create_qp_answer {
	struct ib_uverbs_create_qp_resp ibv;
	struct xrnic_create_qp_resp drv;
};

static int xrnic_map(struct ibv_context *ctx, struct xrnic_map *m, uint64_t key, size_t size)
{
	m->buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd, key);
	if (m->buf == MAP_FAILED) {
		m->buf = NULL;
		return errno;
	}
	m->size = size;
	return 0;
}

static void xrnic_unmap(struct xrnic_map *m)
{
	if (m->buf)
		munmap(m->buf, m->size);
	m->buf = NULL;
}

static int xrnic_query_device_ex(struct ibv_context *ctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp, &resp_size);
	if (ret)
		return ret;
	/* The kernel answers "major.minor.sub" as major << 32 | minor << 16 | sub. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver), "%u.%u.%u",
		 (unsigned int)(fw >> 32 & 0xffff), (unsigned int)(fw >> 16 & 0xffff),
		 (unsigned int)(fw & 0xffff));
	return 0;
}

static int xrnic_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *xrnic_alloc_pd(struct ibv_context *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	int ret;

	if (!pd)
		return NULL;
	ret = ibv_cmd_alloc_pd(ctx, pd, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int xrnic_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

static struct ibv_mr *xrnic_reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t hca_va,
				   int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct verbs_mr *vmr = calloc(1, sizeof(*vmr));
	struct ibv_reg_mr cmd;
	int ret;

	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, len, hca_va, access, vmr, &cmd, sizeof(cmd), &resp,
			     sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int xrnic_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

static struct ibv_mw *xrnic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int xrnic_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * ibv_bind_mw() of a type 1 window: a BIND_MW work request with the next
 * key byte; the window has its new rkey at once (a bind that fails to
 * complete leaves the user to set it back, as with rxe).
 */
static int xrnic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	struct ibv_send_wr wr = {
		.wr_id = bind->wr_id, .opcode = IBV_WR_BIND_MW, .send_flags = bind->send_flags,
		.bind_mw = { .mw = mw, .rkey = ibv_inc_rkey(mw->rkey),
			     .bind_info = bind->bind_info },
	}, *bad;
	int ret;

	ret = xrnic_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

static struct xrnic_cq *xrnic_cq_alloc(struct ibv_context *ctx, int cqe,
				       struct ibv_comp_channel *channel, int vector)
{
	struct xrnic_create_cq_answer resp = {};
	struct ibv_create_cq cmd;
	struct xrnic_cq *cq = calloc(1, sizeof(*cq));
	int ret;

	if (!cq)
		return NULL;
	ret = ibv_cmd_create_cq(ctx, cqe, channel, vector, &cq->vcq.cq, &cmd, sizeof(cmd),
				&resp.ibv, sizeof(resp));
	if (ret)
		goto err_free;
	ret = xrnic_map(ctx, &cq->map, resp.drv.ring_mmap_key, resp.drv.ring_size);
	if (ret)
		goto err_destroy;
	cq->cqes = (struct xrnic_cqe *)cq->map.buf;
	cq->db = (struct xrnic_cq_db *)(cq->map.buf + resp.drv.db_offset);
	/* As libibverbs read the answer (ioctl or write): the granted depth. */
	cq->depth = cq->vcq.cq.cqe;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	return cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

static struct ibv_cq *xrnic_create_cq(struct ibv_context *ctx, int cqe,
				      struct ibv_comp_channel *channel, int vector)
{
	struct xrnic_cq *cq = xrnic_cq_alloc(ctx, cqe, channel, vector);

	return cq ? &cq->vcq.cq : NULL;
}

/* What an extended CQ's completions can say; the wall clock needs the clock page. */
#define XRNIC_WC_FLAGS	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | \
			 IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			 IBV_WC_EX_WITH_DLID_PATH_BITS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | \
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

/* The same CQ, read through the extended API (cq_ex.c). */
static struct ibv_cq_ex *xrnic_create_cq_ex(struct ibv_context *ctx,
					    struct ibv_cq_init_attr_ex *attr)
{
	struct xrnic_cq *cq;

	if ((attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    (attr->wc_flags & ~(uint64_t)XRNIC_WC_FLAGS) ||
	    ((attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) &&
	     !to_xctx(ctx)->clock) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = xrnic_cq_alloc(ctx, attr->cqe, attr->channel, attr->comp_vector);
	if (!cq)
		return NULL;
	/* libibverbs sets the common fields (verbs_init_cq()) once this returns. */
	xrnic_cq_ex_init(cq);
	return &cq->vcq.cq_ex;
}

static int xrnic_destroy_cq(struct ibv_cq *ibcq)
{
	struct xrnic_cq *cq = to_xcq(ibcq);
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (ret)
		return ret;
	xrnic_unmap(&cq->map);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

static void xrnic_wq_init(struct xrnic_wq *wq, uint8_t *ring, uint32_t depth, uint32_t max_sge,
			  uint32_t *pi_le, const uint32_t *ci_le)
{
	wq->ring = ring;
	wq->depth = depth;
	wq->max_sge = max_sge;
	wq->pi_le = pi_le;
	wq->ci_le = ci_le;
	pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

#define XRNIC_SEND_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV | \
			 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)

#define XRNIC_UD_SEND_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define XRNIC_UC_SEND_OPS	(XRNIC_UD_SEND_OPS | IBV_QP_EX_WITH_RDMA_WRITE | \
				 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_LOCAL_INV | \
				 IBV_QP_EX_WITH_BIND_MW)

/* Whether the device can make the QP attr asks for; errno if not. */
static int xrnic_qp_init_attr_ok(const struct ibv_qp_init_attr_ex *attr)
{
	uint64_t ops = attr->qp_type == IBV_QPT_UD ? XRNIC_UD_SEND_OPS :
		       attr->qp_type == IBV_QPT_UC ? XRNIC_UC_SEND_OPS : XRNIC_SEND_OPS;

	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if (attr->comp_mask & ~(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
				IBV_QP_INIT_ATTR_CREATE_FLAGS))
		return EOPNOTSUPP;
	/* No creation flag is supported; asking for none is fine. */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && (attr->send_ops_flags & ~ops))
		return EOPNOTSUPP;
	return 0;
}

/* RC, UC and UD QPs, classic or extended (with the post-send API of qp_ex.c). */
static struct ibv_qp *xrnic_create_qp_ex(struct ibv_context *ibctx,
					 struct ibv_qp_init_attr_ex *attr)
{
	struct xrnic_context *ctx = to_xctx(ibctx);
	struct xrnic_create_qp_answer resp = {};
	struct ibv_qp_init_attr_ex core;
	struct ibv_create_qp cmd;
	struct xrnic_qp *qp;
	int ret;

	ret = xrnic_qp_init_attr_ok(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	if (!ctx->db) {
		errno = EOPNOTSUPP;	/* the device offers no doorbell page */
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	/* The classic command carries no creation flags (none is asked here). */
	core = *attr;
	core.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, &core, &cmd, sizeof(cmd), &resp.ibv,
				   sizeof(resp));
	attr->cap = core.cap;
	if (ret)
		goto err_free;
	qp->ud = attr->qp_type == IBV_QPT_UD;
	ret = xrnic_map(ibctx, &qp->sq_map, resp.drv.sq_mmap_key, resp.drv.sq_size);
	/* On an SRQ the QP has no receive ring. */
	if (!ret && !attr->srq)
		ret = xrnic_map(ibctx, &qp->rq_map, resp.drv.rq_mmap_key, resp.drv.rq_size);
	if (ret)
		goto err_destroy;
	qp->db = (struct xrnic_qp_db *)(qp->sq_map.buf + resp.drv.db_offset);
	/*
	 * The granted sizes, as libibverbs read the answer: Linux's uverbs
	 * answers them in ioctl attributes, not in the write command's body.
	 */
	xrnic_wq_init(&qp->sq, qp->sq_map.buf, core.cap.max_send_wr, core.cap.max_send_sge,
		      &qp->db->sq_pi, &qp->db->sq_ci);
	xrnic_wq_init(&qp->rq, qp->rq_map.buf, core.cap.max_recv_wr, core.cap.max_recv_sge,
		      &qp->db->rq_pi, &qp->db->rq_ci);
	qp->max_inline = core.cap.max_inline_data;
	qp->sq_sig_all = attr->sq_sig_all;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		xrnic_qp_ex_init(qp);
	return &qp->vqp.qp;

err_destroy:
	xrnic_unmap(&qp->rq_map);
	xrnic_unmap(&qp->sq_map);
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

static struct ibv_qp *xrnic_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context, .send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq, .srq = attr->srq, .cap = attr->cap,
		.qp_type = attr->qp_type, .sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};
	struct ibv_qp *qp = xrnic_create_qp_ex(pd->context, &ex);

	if (qp)
		attr->cap = ex.cap;	/* what was granted, as ibv_cmd_create_qp() tells */
	return qp;
}

static int xrnic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	struct ibv_modify_qp cmd;
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, mask, &cmd, sizeof(cmd));
	if (!ret && (mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET)
		xrnic_qp_reset_queues(to_xqp(ibqp));
	return ret;
}

static int xrnic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
			  struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(ibqp, attr, mask, init_attr, &cmd, sizeof(cmd));
}

static int xrnic_destroy_qp(struct ibv_qp *ibqp)
{
	struct xrnic_qp *qp = to_xqp(ibqp);
	int ret = ibv_cmd_destroy_qp(ibqp);

	if (ret)
		return ret;
	/* Destroyed: the device writes no completion of it any more. */
	if (ibqp->send_cq)
		xrnic_cq_clean(to_xcq(ibqp->send_cq), ibqp->qp_num);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		xrnic_cq_clean(to_xcq(ibqp->recv_cq), ibqp->qp_num);
	xrnic_unmap(&qp->rq_map);
	xrnic_unmap(&qp->sq_map);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	free(qp);
	return 0;
}

struct xrnic_create_srq_answer {
	struct ib_uverbs_create_srq_resp ibv;
	struct xrnic_create_srq_resp drv;
};

static struct ibv_srq *xrnic_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct xrnic_create_srq_answer resp = {};
	struct ibv_create_srq cmd;
	struct xrnic_srq_db *db;
	struct xrnic_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq(pd, &srq->ibv_srq, attr, &cmd, sizeof(cmd), &resp.ibv,
				 sizeof(resp));
	if (ret)
		goto err_free;
	ret = xrnic_map(pd->context, &srq->map, resp.drv.ring_mmap_key, resp.drv.ring_size);
	if (ret)
		goto err_destroy;
	db = (struct xrnic_srq_db *)(srq->map.buf + resp.drv.db_offset);
	/* The granted sizes, as ibv_cmd_create_srq() read them (ioctl or write). */
	xrnic_wq_init(&srq->wq, srq->map.buf, attr->attr.max_wr, attr->attr.max_sge, &db->pi,
		      &db->ci);
	return &srq->ibv_srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->ibv_srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

struct xrnic_modify_srq_cmd {
	struct ibv_modify_srq ibv;
	struct xrnic_modify_srq drv;
};

/*
 * A resize, under the SRQ's lock: the kernel writes the new ring's key to
 * ring, the device copies the WQEs posted and not yet taken to it, and the
 * library maps it in place of the old one.  If that mapping fails the SRQ
 * can take no more WQEs (post_srq_recv answers EIO): the device has left
 * the old ring.
 */
static int xrnic_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct xrnic_srq *srq = to_xsrq(ibsrq);
	struct xrnic_resize_srq_resp ring = {};
	struct xrnic_modify_srq_cmd cmd = {};
	struct xrnic_map map = {};
	struct xrnic_srq_db *db;
	int ret;

	if (!(mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibsrq, attr, mask, &cmd.ibv, sizeof(cmd));
	cmd.drv.resp_addr = (uintptr_t)&ring;
	pthread_spin_lock(&srq->wq.lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, mask, &cmd.ibv, sizeof(cmd));
	if (ret)
		goto out;
	ret = xrnic_map(ibsrq->context, &map, ring.ring_mmap_key, ring.ring_size);
	xrnic_unmap(&srq->map);
	srq->map = map;
	srq->wq.ring = map.buf;
	if (ret)
		goto out;
	db = (struct xrnic_srq_db *)(map.buf + ring.db_offset);
	srq->wq.depth = ring.max_wr;
	srq->wq.pi_le = &db->pi;
	srq->wq.ci_le = &db->ci;
out:
	pthread_spin_unlock(&srq->wq.lock);
	return ret;
}

static int xrnic_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int xrnic_destroy_srq(struct ibv_srq *ibsrq)
{
	struct xrnic_srq *srq = to_xsrq(ibsrq);
	int ret = ibv_cmd_destroy_srq(ibsrq);

	if (ret)
		return ret;
	xrnic_unmap(&srq->map);
	pthread_spin_destroy(&srq->wq.lock);
	free(srq);
	return 0;
}

struct xrnic_create_ah_answer {
	struct ib_uverbs_create_ah_resp ibv;
	struct xrnic_create_ah_resp drv;
};

/* The kernel resolves the next hop; the rest of the address is the caller's. */
static struct ibv_ah *xrnic_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct xrnic_create_ah_answer resp = {};
	struct xrnic_ah *ah;
	int ret;

	if (!attr->is_global) {
		errno = EINVAL;		/* RoCE needs a GRH */
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv, sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	memcpy(ah->av.dgid, attr->grh.dgid.raw, sizeof(ah->av.dgid));
	memcpy(ah->av.dmac, resp.drv.dmac, sizeof(ah->av.dmac));
	ah->av.sgid_index = attr->grh.sgid_index;
	ah->av.hop_limit = attr->grh.hop_limit;
	ah->av.traffic_class = attr->grh.traffic_class;
	ah->av.flow_label = htole32(attr->grh.flow_label & 0xfffff);	/* as the kernel */
	return &ah->ibv_ah;
}

static int xrnic_destroy_ah(struct ibv_ah *ibah)
{
	int ret = ibv_cmd_destroy_ah(ibah);

	if (ret)
		return ret;
	free(to_xah(ibah));
	return 0;
}

static void xrnic_free_context(struct ibv_context *ibctx)
{
	struct xrnic_context *ctx = to_xctx(ibctx);

	if (ctx->clock)
		munmap((void *)ctx->clock, XRNIC_PAGE_SIZE);
	if (ctx->status)
		munmap((void *)ctx->status, XRNIC_PAGE_SIZE);
	if (ctx->db_page)
		munmap(ctx->db_page, XRNIC_PAGE_SIZE);
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops xrnic_ctx_ops = {
	.alloc_mw = xrnic_alloc_mw,
	.alloc_pd = xrnic_alloc_pd,
	.attach_mcast = ibv_cmd_attach_mcast,		/* the kernel does it all */
	.bind_mw = xrnic_bind_mw,
	.create_ah = xrnic_create_ah,
	.create_cq = xrnic_create_cq,
	.create_cq_ex = xrnic_create_cq_ex,
	.create_qp = xrnic_create_qp,
	.create_qp_ex = xrnic_create_qp_ex,
	.create_srq = xrnic_create_srq,
	.dealloc_mw = xrnic_dealloc_mw,
	.dealloc_pd = xrnic_dealloc_pd,
	.dereg_mr = xrnic_dereg_mr,
	.destroy_ah = xrnic_destroy_ah,
	.destroy_cq = xrnic_destroy_cq,
	.destroy_qp = xrnic_destroy_qp,
	.destroy_srq = xrnic_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = xrnic_free_context,
	.modify_qp = xrnic_modify_qp,
	.modify_srq = xrnic_modify_srq,
	.poll_cq = xrnic_poll_cq,
	.post_recv = xrnic_post_recv,
	.post_send = xrnic_post_send,
	.post_srq_recv = xrnic_post_srq_recv,
	.query_device_ex = xrnic_query_device_ex,
	.query_port = xrnic_query_port,
	.query_qp = xrnic_query_qp,
	.query_rt_values = xrnic_query_rt_values,
	.query_srq = xrnic_query_srq,
	.reg_mr = xrnic_reg_mr,
	.req_notify_cq = xrnic_req_notify_cq,
};

static struct verbs_context *xrnic_alloc_context(struct ibv_device *ibdev, int cmd_fd,
						 void *private_data)
{
	struct xrnic_get_context_resp resp = {};
	struct ibv_get_context cmd;
	struct xrnic_context *ctx;

	(void)private_data;
	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
					    &((struct xrnic_context *)NULL)->vctx, 0);
	if (!ctx)
		return NULL;
	if (ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd), &resp.ibv, sizeof(resp)))
		goto err_free;
	if (resp.drv.sqe_size != XRNIC_SQE_SIZE || resp.drv.rqe_size != XRNIC_RQE_SIZE ||
	    resp.drv.cqe_size != XRNIC_CQE_SIZE) {
		errno = EPROTO;		/* a kernel of another interface version */
		goto err_free;
	}
	if (resp.drv.db_mmap_key && resp.drv.db_offset <= XRNIC_PAGE_SIZE - 4) {
		ctx->db_page = mmap(NULL, XRNIC_PAGE_SIZE, PROT_WRITE, MAP_SHARED, cmd_fd,
				    resp.drv.db_mmap_key);
		if (ctx->db_page == MAP_FAILED)
			goto err_free;
		ctx->db = (volatile uint32_t *)(ctx->db_page + resp.drv.db_offset);
		ctx->db_value = resp.drv.db_value;
	}
	/* Without the status page (an older kernel) every post rings. */
	if (ctx->db_page && resp.drv.status_mmap_key) {
		ctx->status = mmap(NULL, XRNIC_PAGE_SIZE, PROT_READ, MAP_SHARED, cmd_fd,
				   resp.drv.status_mmap_key);
		if (ctx->status == MAP_FAILED)
			goto err_unmap_db;
	}
	/* Without the clock page (an older kernel) no wall clock. */
	if (resp.drv.clock_mmap_key) {
		ctx->clock = mmap(NULL, XRNIC_PAGE_SIZE, PROT_READ, MAP_SHARED, cmd_fd,
				  resp.drv.clock_mmap_key);
		if (ctx->clock == MAP_FAILED)
			goto err_unmap_status;
	}
	verbs_set_ops(&ctx->vctx, &xrnic_ctx_ops);
	return &ctx->vctx;

err_unmap_status:
	if (ctx->status)
		munmap((void *)ctx->status, XRNIC_PAGE_SIZE);
err_unmap_db:
	if (ctx->db_page)
		munmap(ctx->db_page, XRNIC_PAGE_SIZE);
err_free:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	return NULL;
}

static struct verbs_device *xrnic_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	(void)sysfs_dev;
	return calloc(1, sizeof(struct verbs_device));
}

static void xrnic_uninit_device(struct verbs_device *vdev)
{
	free(vdev);
}

/* The PCI identity (through sysfs, so a renamed device still matches). */
static const struct verbs_match_ent xrnic_match_table[] = {
	{ .vendor = XRNIC_PCI_VENDOR_ID, .device = XRNIC_PCI_DEVICE_ID, .kind = XRV_MATCH_PCI },
	{ },
};

static const struct verbs_device_ops xrnic_device_ops = {
	.name = "xrnic",
	.match_min_abi_version = XRNIC_UVERBS_ABI_VERSION,
	.match_max_abi_version = XRNIC_UVERBS_ABI_VERSION,
	.match_table = xrnic_match_table,
	.alloc_device = xrnic_alloc_device,
	.uninit_device = xrnic_uninit_device,
	.alloc_context = xrnic_alloc_context,
};

static void __attribute__((constructor)) xrnic_register(void)
{
	verbs_register_driver_34(&xrnic_device_ops);
}
