// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: the QP table (CREATE_QP, DESTROY_QP, QUERY_QP) and the
 * state machine with its attributes (MODIFY_QP), for RC, UC and UD QPs.  Which attributes each
 * transition requires is the kernel core's business (ib_modify_qp_is_ok());
 * the device checks that the transition is legal and each value in range.
 */
#include <stdlib.h>

#include "transport.h"

#define XE_QP_ACCESS		(XRNIC_ACCESS_REMOTE_WRITE | XRNIC_ACCESS_REMOTE_READ | \
				 XRNIC_ACCESS_REMOTE_ATOMIC)
#define XE_PSN_MAX		0xffffff
#define XE_MTU_256		1
#define XE_MAX_TIMEOUT		31
#define XE_MAX_RETRY		7
#define XE_MAX_RNR_TIMER	31

/* Transport attributes of a new QP, and of one moved to RESET. */
static const struct xe_qp_attrs xe_qp_defaults = {
	.path_mtu = XE_MTU_256,
	.port_num = XE_PORT_NUM,
};

#define XE_QPS(s)		(1u << XRNIC_QPS_##s)

/* Legal transitions (RC's and UD's are the same): the states reachable from each. */
static const uint8_t xe_qp_next[] = {
	[XRNIC_QPS_RESET]	= XE_QPS(INIT),
	[XRNIC_QPS_INIT]	= XE_QPS(INIT) | XE_QPS(RTR),
	[XRNIC_QPS_RTR]		= XE_QPS(RTS),
	[XRNIC_QPS_RTS]		= XE_QPS(RTS) | XE_QPS(SQD),
	[XRNIC_QPS_SQD]		= XE_QPS(SQD) | XE_QPS(RTS),
	[XRNIC_QPS_SQE]		= XE_QPS(RTS),
	[XRNIC_QPS_ERR]		= 0,
};

static bool xe_qp_transition_ok(uint8_t from, uint8_t to)
{
	return to == XRNIC_QPS_RESET || to == XRNIC_QPS_ERR || (xe_qp_next[from] & (1u << to));
}

/* The MODIFY_QP and QUERY_QP attributes of qp's type. */
static uint32_t xe_qp_attrs_of(const struct xe_qp *qp)
{
	switch (qp->type) {
	case XRNIC_QPT_UD:
		return XRNIC_QP_UD_ATTRS;
	case XRNIC_QPT_UC:
		return XRNIC_QP_UC_ATTRS;
	default:
		return XRNIC_QP_RC_ATTRS;
	}
}

/* The live QP numbered qpn, or NULL. */
static bool xe_wq_depth_ok(uint32_t depth)
{
	return xe_is_pow2(depth) && depth >= XRNIC_MIN_RING_DEPTH && depth <= XE_MAX_QP_WR;
}

/* Field checks of CREATE_QP that need no table or guest memory. */
static uint8_t xe_qp_create_check(struct xe_dev *xe, const struct xrnic_cmd_create_qp *c)
{
	bool srq = c->srqn;

	if (c->reserved0)
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (c->qp_type != XRNIC_QPT_RC && c->qp_type != XRNIC_QPT_UC &&
	    c->qp_type != XRNIC_QPT_UD && c->qp_type != XRNIC_QPT_GSI)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "qp_type not GSI, RC, UC or UD");
	if (srq && (c->rq_depth || c->rq_addr || c->max_recv_sge))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "a receive queue with an SRQ");
	if (!xe_wq_depth_ok(le32toh(c->sq_depth)) ||
	    (!srq && !xe_wq_depth_ok(le32toh(c->rq_depth))))
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM,
			       "queue depth not a power of two in 2..max_qp_wr");
	if (c->max_send_sge < 1 || c->max_send_sge > XRNIC_MAX_SGE ||
	    (!srq && (c->max_recv_sge < 1 || c->max_recv_sge > XRNIC_MAX_SGE)))
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "SGE count not in 1..max_sge");
	if (le32toh(c->max_inline) > XRNIC_MAX_INLINE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "max_inline above XRNIC_MAX_INLINE");
	if (le64toh(c->sq_addr) % XRNIC_RING_ALIGN || le64toh(c->rq_addr) % XRNIC_RING_ALIGN)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "ring address not page aligned");
	if (le64toh(c->db_addr) % XRNIC_DB_RECORD_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "db_addr not 64-byte aligned");
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_create_qp(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			 struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_create_qp *c = &cmd->create_qp;
	uint32_t sq_depth = le32toh(c->sq_depth), rq_depth = le32toh(c->rq_depth), slot;
	uint64_t sq_addr = le64toh(c->sq_addr), rq_addr = le64toh(c->rq_addr);
	uint8_t *sq, *rq, *db;
	struct xe_atomic_done *atomics;
	struct xe_msg *msgs;
	struct xe_srq *srq = NULL;
	struct xe_cq *scq, *rcq;
	struct xe_pd *pd;
	struct xe_qp *qp;
	uint8_t status;

	status = xe_qp_create_check(xe, c);
	if (status)
		return status;
	pd = xe_pd_get(xe, le32toh(c->pdn));
	scq = xe_cq_get(xe, le32toh(c->send_cqn));
	rcq = xe_cq_get(xe, le32toh(c->recv_cqn));
	if (!pd || !scq || !rcq)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such PD or CQ");
	if (c->srqn) {
		srq = xe_srq_get(xe, le32toh(c->srqn));
		if (!srq)
			return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such SRQ");
	}
	sq = xe_gm_ptr(&xe->mem, sq_addr, (uint64_t)sq_depth * XRNIC_SQE_SIZE);
	rq = srq ? NULL : xe_gm_ptr(&xe->mem, rq_addr, (uint64_t)rq_depth * XRNIC_RQE_SIZE);
	db = xe_gm_ptr(&xe->mem, le64toh(c->db_addr), XRNIC_DB_RECORD_SIZE);
	if (!sq || (!srq && !rq) || !db)
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "ring or db_addr outside guest RAM");
	if (c->qp_type == XRNIC_QPT_GSI) {
		slot = XE_QPN_GSI_SLOT;
		if (xe->qp[slot].obj.live)
			return xe_fail(xe, XRNIC_STATUS_BUSY, "the GSI QP exists");
	} else {
		slot = xe_obj_unused(xe, XE_QP);
		if (!slot)
			return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "QP table full");
	}
	atomics = calloc(XE_MAX_RD_ATOMIC, sizeof(*atomics));
	msgs = calloc(XE_SQ_WINDOW, sizeof(*msgs));
	if (!atomics || !msgs) {
		free(msgs);
		free(atomics);
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "no memory for the QP's state");
	}

	qp = &xe->qp[slot];
	*qp = (struct xe_qp){
		.obj.live = true,
		.gen = qp->gen,
		.qpn = slot == XE_QPN_GSI_SLOT ? XRNIC_GSI_QPN :
		       (qp->gen & XE_QPN_GEN_MASK) << XE_QPN_SLOT_BITS | slot,
		/* The GSI QP is a UD QP with a well-known number. */
		.type = c->qp_type == XRNIC_QPT_GSI ? XRNIC_QPT_UD : c->qp_type,
		.pdn = le32toh(c->pdn),
		.send_cqn = le32toh(c->send_cqn),
		.recv_cqn = le32toh(c->recv_cqn),
		.srqn = le32toh(c->srqn),
		.sq_addr = sq_addr,
		.rq_addr = rq_addr,
		.sq_depth = sq_depth,
		.rq_depth = rq_depth,
		.max_send_sge = c->max_send_sge,
		.max_recv_sge = srq ? srq->max_sge : c->max_recv_sge,
		.max_inline = le32toh(c->max_inline),
		.state = XRNIC_QPS_RESET,
		.attr = xe_qp_defaults,
		.sq = sq,
		.rq = rq,
		.db = (struct xrnic_qp_db *)db,
		.atomics = atomics,
		.msgs = msgs,
	};
	xe_req_reset(qp);
	pd->obj.refs++;
	scq->obj.refs++;
	rcq->obj.refs++;
	if (srq)
		srq->obj.refs++;
	cpl->qp.qpn = htole32(qp->qpn);
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_destroy_qp(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			  struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_qp *c = &cmd->qp;
	struct xe_qp *qp;

	(void)cpl;
	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	qp = xe_qp_get(xe, le32toh(c->qpn));
	if (!qp)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such QP");
	if (qp->mcast_groups)
		return xe_fail(xe, XRNIC_STATUS_BUSY, "QP attached to a multicast group");
	xe_mw_unbind_qp(xe, qp);
	xe->pd[qp->pdn].obj.refs--;
	xe->cq[qp->send_cqn].obj.refs--;
	xe->cq[qp->recv_cqn].obj.refs--;
	if (qp->srqn)
		xe->srq[qp->srqn].obj.refs--;
	free(qp->msgs);
	free(qp->atomics);
	/* The next QP in this slot gets another qpn. */
	*qp = (struct xe_qp){ .gen = qp->gen + 1 };
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_query_qp(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_qp *c = &cmd->qp;
	struct xrnic_qp_attr *r = &cpl->qp_attr;
	const struct xe_qp_attrs *a;
	struct xe_qp *qp;

	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	qp = xe_qp_get(xe, le32toh(c->qpn));
	if (!qp)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such QP");
	a = &qp->attr;
	r->qpn = htole32(qp->qpn);
	r->attr_mask = htole32(xe_qp_attrs_of(qp));
	r->state = qp->state;
	r->port_num = a->port_num;
	r->sq_psn = htole32(a->sq_psn);
	if (qp->type == XRNIC_QPT_UD) {
		r->qkey = htole32(a->qkey);
		return XRNIC_STATUS_OK;
	}
	r->dest_qpn = htole32(a->dest_qpn);
	r->rq_psn = htole32(a->rq_psn);
	r->access_flags = htole16(a->access_flags);
	r->path_mtu = a->path_mtu;
	r->timeout = a->timeout;
	r->retry_cnt = a->retry_cnt;
	r->rnr_retry = a->rnr_retry;
	r->min_rnr_timer = a->min_rnr_timer;
	r->max_rd_atomic = a->max_rd_atomic;
	r->max_dest_rd_atomic = a->max_dest_rd_atomic;
	memcpy(r->dgid, a->dgid, sizeof(r->dgid));
	r->sgid_index = a->sgid_index;
	r->hop_limit = a->hop_limit;
	r->traffic_class = a->traffic_class;
	memcpy(r->dmac, a->dmac, sizeof(r->dmac));
	return XRNIC_STATUS_OK;
}

/*
 * MODIFY_QP fields not named in attr_mask are unused bytes and must be zero.
 * XRNIC_QP_PKEY_INDEX has no field: the one P_Key is at index 0.
 */
static bool xe_qp_unused_zero(const struct xrnic_qp_attr *a, uint32_t mask)
{
	struct xrnic_qp_attr z = *a;

	z.qpn = 0;
	z.attr_mask = 0;
	if (mask & XRNIC_QP_STATE)
		z.state = 0;
	if (mask & XRNIC_QP_ACCESS_FLAGS)
		z.access_flags = 0;
	if (mask & XRNIC_QP_PORT)
		z.port_num = 0;
	if (mask & XRNIC_QP_AV) {
		memset(z.dgid, 0, sizeof(z.dgid));
		z.sgid_index = 0;
		z.hop_limit = 0;
		z.traffic_class = 0;
		memset(z.dmac, 0, sizeof(z.dmac));
	}
	if (mask & XRNIC_QP_PATH_MTU)
		z.path_mtu = 0;
	if (mask & XRNIC_QP_TIMEOUT)
		z.timeout = 0;
	if (mask & XRNIC_QP_RETRY_CNT)
		z.retry_cnt = 0;
	if (mask & XRNIC_QP_RNR_RETRY)
		z.rnr_retry = 0;
	if (mask & XRNIC_QP_RQ_PSN)
		z.rq_psn = 0;
	if (mask & XRNIC_QP_MAX_QP_RD_ATOMIC)
		z.max_rd_atomic = 0;
	if (mask & XRNIC_QP_MIN_RNR_TIMER)
		z.min_rnr_timer = 0;
	if (mask & XRNIC_QP_SQ_PSN)
		z.sq_psn = 0;
	if (mask & XRNIC_QP_MAX_DEST_RD_ATOMIC)
		z.max_dest_rd_atomic = 0;
	if (mask & (XRNIC_QP_DEST_QPN | XRNIC_QP_QKEY))
		z.dest_qpn = 0;		/* or qkey, in its place */
	return xe_all_zero(&z, sizeof(z));
}

/* The range of each attribute named in mask; a false entry is out of range. */
static const char *xe_qp_attr_range(const struct xrnic_qp_attr *a, uint32_t mask)
{
	const struct {
		uint32_t bit;
		bool ok;
		const char *what;
	} checks[] = {
		{ XRNIC_QP_STATE, a->state <= XRNIC_QPS_ERR, "state" },
		{ XRNIC_QP_ACCESS_FLAGS, !(le16toh(a->access_flags) & ~XE_QP_ACCESS),
		  "access_flags not only remote access bits" },
		{ XRNIC_QP_PORT, a->port_num == XE_PORT_NUM, "port_num not 1" },
		{ XRNIC_QP_AV, a->sgid_index < XE_PORT_GID_TBL_LEN, "sgid_index beyond GID table" },
		{ XRNIC_QP_AV, !(a->dmac[0] & 1), "dmac is a multicast address" },
		{ XRNIC_QP_PATH_MTU, a->path_mtu >= XE_MTU_256 && a->path_mtu <= XE_PORT_MTU,
		  "path_mtu not in 1..5" },
		{ XRNIC_QP_TIMEOUT, a->timeout <= XE_MAX_TIMEOUT, "timeout above 31" },
		{ XRNIC_QP_RETRY_CNT, a->retry_cnt <= XE_MAX_RETRY, "retry_cnt above 7" },
		{ XRNIC_QP_RNR_RETRY, a->rnr_retry <= XE_MAX_RETRY, "rnr_retry above 7" },
		{ XRNIC_QP_MIN_RNR_TIMER, a->min_rnr_timer <= XE_MAX_RNR_TIMER,
		  "min_rnr_timer above 31" },
		{ XRNIC_QP_MAX_QP_RD_ATOMIC, a->max_rd_atomic <= XE_MAX_RD_ATOMIC,
		  "max_rd_atomic above max_qp_rd_atom" },
		{ XRNIC_QP_MAX_DEST_RD_ATOMIC, a->max_dest_rd_atomic <= XE_MAX_RD_ATOMIC,
		  "max_dest_rd_atomic above max_qp_rd_atom" },
		{ XRNIC_QP_RQ_PSN, le32toh(a->rq_psn) <= XE_PSN_MAX, "rq_psn above 24 bits" },
		{ XRNIC_QP_SQ_PSN, le32toh(a->sq_psn) <= XE_PSN_MAX, "sq_psn above 24 bits" },
		{ XRNIC_QP_DEST_QPN, le32toh(a->dest_qpn) <= XRNIC_QPN_MASK,
		  "dest_qpn above 24 bits" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(checks); i++)
		if ((mask & checks[i].bit) && !checks[i].ok)
			return checks[i].what;
	return NULL;
}

/* Copy the attributes named in mask into qp. */
static void xe_qp_apply(struct xe_qp_attrs *q, const struct xrnic_qp_attr *a, uint32_t mask)
{
	if (mask & XRNIC_QP_ACCESS_FLAGS)
		q->access_flags = le16toh(a->access_flags);
	if (mask & XRNIC_QP_PORT)
		q->port_num = a->port_num;
	if (mask & XRNIC_QP_AV) {
		memcpy(q->dgid, a->dgid, sizeof(q->dgid));
		q->sgid_index = a->sgid_index;
		q->hop_limit = a->hop_limit;
		q->traffic_class = a->traffic_class;
		memcpy(q->dmac, a->dmac, sizeof(q->dmac));
	}
	if (mask & XRNIC_QP_PATH_MTU)
		q->path_mtu = a->path_mtu;
	if (mask & XRNIC_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & XRNIC_QP_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
	if (mask & XRNIC_QP_RNR_RETRY)
		q->rnr_retry = a->rnr_retry;
	if (mask & XRNIC_QP_RQ_PSN)
		q->rq_psn = le32toh(a->rq_psn);
	if (mask & XRNIC_QP_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & XRNIC_QP_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & XRNIC_QP_SQ_PSN)
		q->sq_psn = le32toh(a->sq_psn);
	if (mask & XRNIC_QP_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & XRNIC_QP_DEST_QPN)
		q->dest_qpn = le32toh(a->dest_qpn);
	if (mask & XRNIC_QP_QKEY)
		q->qkey = le32toh(a->qkey);
}

/*
 * Everything is checked before anything is applied.  A QP in RESET always
 * has the default attributes: moving to RESET drops the ones given with it.
 */
uint8_t xe_cmd_modify_qp(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			 struct xrnic_acq_entry *cpl)
{
	const struct xrnic_qp_attr *a = &cmd->qp_attr;
	uint32_t mask = le32toh(a->attr_mask);
	const char *range;
	struct xe_qp *qp;
	uint8_t from;

	(void)cpl;
	if (mask & ~XRNIC_QP_ATTR_ALL)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "unknown attr_mask bits");
	if (!xe_qp_unused_zero(a, mask))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "attribute not in attr_mask is set");
	range = xe_qp_attr_range(a, mask);
	if (range)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, range);
	if ((mask & XRNIC_QP_AV) && !xe->gid[a->sgid_index].valid)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "sgid_index names an empty GID");
	qp = xe_qp_get(xe, le32toh(a->qpn));
	if (!qp)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such QP");
	if (mask & ~xe_qp_attrs_of(qp))
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "attribute the QP's type has not");
	if ((mask & XRNIC_QP_STATE) && !xe_qp_transition_ok(qp->state, a->state))
		return xe_fail(xe, XRNIC_STATUS_BAD_STATE, "illegal state transition");

	from = qp->state;
	xe_qp_apply(&qp->attr, a, mask);
	/* The source GID as it is now: the QP keeps it until its next AV. */
	if (mask & XRNIC_QP_AV) {
		memcpy(qp->attr.sgid, xe->gid[a->sgid_index].gid, sizeof(qp->attr.sgid));
		qp->loopback = xe_gid_is_ours(xe, qp->attr.dgid);
	}
	if (mask & XRNIC_QP_STATE)
		qp->state = a->state;
	if (qp->state == XRNIC_QPS_RESET) {
		/* Empty queues: the library starts its producer indexes at 0. */
		qp->attr = xe_qp_defaults;
		qp->loopback = false;
		qp->sq_ci = 0;
		qp->rq_ci = 0;
		xe_req_reset(qp);
		memset(&qp->resp, 0, sizeof(qp->resp));
		memset(qp->atomics, 0, XE_MAX_RD_ATOMIC * sizeof(*qp->atomics));
		__atomic_store_n(&qp->db->sq_ci, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&qp->db->rq_ci, 0, __ATOMIC_RELEASE);
	} else if (qp->state == XRNIC_QPS_ERR) {
		xe_qp_flush(xe, qp);
		xe_qp_last_wqe(xe, qp, from);
	}
	xe->work = true;
	return XRNIC_STATUS_OK;
}

void xe_qp_drop_all(struct xe_dev *xe)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(xe->qp); i++) {
		free(xe->qp[i].msgs);
		free(xe->qp[i].atomics);
	}
	xe_obj_drop_all(xe, XE_QP);
}
