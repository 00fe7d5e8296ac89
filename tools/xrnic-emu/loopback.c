// SPDX-License-Identifier: GPL-2.0
/* Two connected QPs on one device, for tests and benchmarks: see loopback.h. */
#include <stdlib.h>

#include "loopback.h"

uint8_t xe_lb_admin(struct xe_dev *xe, struct xe_lb *lb, uint8_t opcode, const void *body,
		    void *answer)
{
	struct xrnic_aq_entry *e = (void *)(xe->mem.base + XE_LB_AQ + (lb->next_cmd % 4) * 64);
	struct xrnic_acq_entry *c = (void *)(xe->mem.base + XE_LB_ACQ + (lb->next_cmd % 4) * 64);

	memset(e, 0, sizeof(*e));
	e->opcode = opcode;
	if (body)
		memcpy(e->data, body, sizeof(e->data));
	e->flags = xrnic_entry_phase(lb->next_cmd, 4);
	lb->next_cmd++;
	xe_doorbell(xe, XRNIC_VEC_ADMIN);
	if ((c->flags & XRNIC_ENTRY_PHASE) != xrnic_entry_phase(lb->next_cmd - 1, 4))
		return 0xff;
	if (answer)
		memcpy(answer, c->data, sizeof(c->data));
	return c->status;
}

/* Page list of [XE_LB_BUF, + len): inline, or chained in the pages after it. */
static void xe_lb_mr_pages(struct xe_dev *xe, struct xrnic_cmd_reg_mr *mr, uint64_t len)
{
	uint32_t n = (len + XE_LB_PAGE - 1) / XE_LB_PAGE, i;
	uint64_t chain = XE_LB_BUF + (uint64_t)n * XE_LB_PAGE, *chunk = NULL;

	mr->npages = htole32(n);
	if (n <= XRNIC_PBL_INLINE_MAX) {
		for (i = 0; i < n; i++)
			mr->pages[i] = htole64(XE_LB_BUF + (uint64_t)i * XE_LB_PAGE);
		return;
	}
	mr->pbl_mode = XRNIC_PBL_CHAINED;
	mr->pbl_addr = htole64(chain);
	for (i = 0; i < n; i++) {
		if (i % XRNIC_PBL_CHUNK_ENTRIES == 0) {
			chunk = (uint64_t *)(xe->mem.base + chain +
					     (uint64_t)(i / XRNIC_PBL_CHUNK_ENTRIES) * XE_LB_PAGE);
			chunk[XRNIC_PBL_CHUNK_ENTRIES] = htole64(chain + (uint64_t)(i /
				XRNIC_PBL_CHUNK_ENTRIES + 1) * XE_LB_PAGE);
		}
		chunk[i % XRNIC_PBL_CHUNK_ENTRIES] = htole64(XE_LB_BUF + (uint64_t)i * XE_LB_PAGE);
	}
}

uint8_t xe_lb_setup(struct xe_dev *xe, struct xe_lb *lb, uint64_t buf_len, uint8_t rnr_retry)
{
	struct xrnic_cmd_eq eq = {
		.ring_addr = htole64(XE_LB_EQ), .depth = htole32(16), .vector = htole16(1),
		.db_addr = htole64(XE_LB_EQ + XE_LB_PAGE),
	};
	struct xrnic_cmd_create_cq cq = {
		.ring_addr = htole64(XE_LB_CQ), .depth = htole32(XE_LB_CQ_DEPTH),
		.eq_vector = htole16(1), .db_addr = htole64(XE_LB_CQ_DB),
	};
	struct xrnic_cmd_reg_mr mr = {
		.access = htole32(XRNIC_ACCESS_ALL), .iova = htole64(XE_LB_BUF),
		.length = htole64(buf_len), .page_shift = 12,
	};
	struct xrnic_cmd_set_gid gid = { .port_num = 1, .valid = 1 };
	struct xrnic_acq_entry r;
	uint8_t st;
	int i;

	xe_reg_write(xe, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_doorbell(xe, XRNIC_VEC_ADMIN);
	memset(xe->mem.base, 0, xe->mem.size);
	memset(lb, 0, sizeof(*lb));
	xe_reg_write(xe, XRNIC_REG_AQ_BASE_LO, XE_LB_AQ);
	xe_reg_write(xe, XRNIC_REG_ACQ_BASE_LO, XE_LB_ACQ);
	xe_reg_write(xe, XRNIC_REG_AENQ_BASE_LO, XE_LB_AENQ);
	xe_reg_write(xe, XRNIC_REG_AQ_DEPTH, 4);
	xe_reg_write(xe, XRNIC_REG_AENQ_DEPTH, 4);
	xe_reg_write(xe, XRNIC_REG_AQ_CTL, XRNIC_AQ_CTL_ENABLE);
	xe_doorbell(xe, XRNIC_VEC_ADMIN);
	if ((st = xe_lb_admin(xe, lb, XRNIC_ADMIN_ALLOC_PD, NULL, r.data)))
		return st;
	lb->pdn = le32toh(r.pd.pdn);
	mr.pdn = htole32(lb->pdn);
	xe_lb_mr_pages(xe, &mr, buf_len);
	if ((st = xe_lb_admin(xe, lb, XRNIC_ADMIN_REG_MR, &mr, r.data)))
		return st;
	lb->key = le32toh(r.mr.lkey);
	/* GID 0: the default GID of the MAC; both QPs' paths lead to it. */
	gid.gid[0] = 0xfe;
	gid.gid[1] = 0x80;
	xe_mac_eui64(xe->id.mac, gid.gid + 8);
	if ((st = xe_lb_admin(xe, lb, XRNIC_ADMIN_SET_GID, &gid, NULL)) ||
	    (st = xe_lb_admin(xe, lb, XRNIC_ADMIN_CREATE_EQ, &eq, NULL)) ||
	    (st = xe_lb_admin(xe, lb, XRNIC_ADMIN_CREATE_CQ, &cq, r.data)))
		return st;
	lb->cqn = le32toh(r.cq.cqn);
	for (i = 0; i < 2; i++)
		if ((st = xe_lb_create_qp(xe, lb, i, XRNIC_QPT_RC, 0, &lb->qpn[i])))
			return st;
	for (i = 0; i < 2; i++)
		if ((st = xe_lb_rts(xe, lb, lb->qpn[i], lb->qpn[!i], rnr_retry)))
			return st;
	return 0;
}

uint8_t xe_lb_create_qp(struct xe_dev *xe, struct xe_lb *lb, int slot, uint8_t type,
			uint32_t srqn, uint32_t *qpn)
{
	struct xrnic_cmd_create_qp c = {
		.pdn = htole32(lb->pdn), .send_cqn = htole32(lb->cqn),
		.recv_cqn = htole32(lb->cqn), .sq_depth = htole32(XE_LB_DEPTH),
		.rq_depth = htole32(srqn ? 0 : XE_LB_DEPTH), .qp_type = type,
		.max_send_sge = XRNIC_MAX_SGE,
		.max_recv_sge = srqn ? 0 : XRNIC_MAX_SGE,
		.sq_addr = htole64(XE_LB_QP(slot)), .rq_addr = htole64(srqn ? 0 : XE_LB_RQ(slot)),
		.max_inline = htole32(XRNIC_MAX_INLINE), .db_addr = htole64(XE_LB_QP_DB(slot)),
		.srqn = htole32(srqn),
	};
	struct xrnic_acq_entry r;
	uint8_t st = xe_lb_admin(xe, lb, XRNIC_ADMIN_CREATE_QP, &c, r.data);

	*qpn = le32toh(r.qp.qpn);
	return st;
}

uint8_t xe_lb_rts(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn, uint32_t dest_qpn,
		  uint8_t rnr_retry)
{
	static const uint8_t states[] = { XRNIC_QPS_INIT, XRNIC_QPS_RTR, XRNIC_QPS_RTS };
	struct xrnic_qp_attr a = {
		.qpn = htole32(qpn),
		.attr_mask = htole32(XRNIC_QP_STATE | XRNIC_QP_ACCESS_FLAGS | XRNIC_QP_DEST_QPN |
				     XRNIC_QP_RNR_RETRY | XRNIC_QP_PATH_MTU | XRNIC_QP_AV |
				     XRNIC_QP_MAX_QP_RD_ATOMIC | XRNIC_QP_MAX_DEST_RD_ATOMIC),
		.dest_qpn = htole32(dest_qpn),
		.max_rd_atomic = XE_LB_RD_ATOMIC,
		.max_dest_rd_atomic = XE_LB_RD_ATOMIC,
		.path_mtu = XE_LB_PATH_MTU,
		.access_flags = htole16(XRNIC_ACCESS_REMOTE_WRITE | XRNIC_ACCESS_REMOTE_READ |
					XRNIC_ACCESS_REMOTE_ATOMIC),
		.rnr_retry = rnr_retry,
		.hop_limit = 64,
	};
	uint8_t st;
	size_t s;

	/* GID 0: the default GID of the MAC, the port's own. */
	memcpy(a.dgid, xe->gid[0].gid, sizeof(a.dgid));
	memcpy(a.dmac, xe->id.mac, sizeof(a.dmac));
	for (s = 0; s < sizeof(states); s++) {
		a.state = states[s];
		if ((st = xe_lb_admin(xe, lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL)))
			return st;
		a = (struct xrnic_qp_attr){ .qpn = htole32(qpn), .attr_mask = htole32(XRNIC_QP_STATE) };
	}
	return 0;
}

/* MODIFY_QP of qpn through INIT, RTR and RTS with the attributes of each step. */
static uint8_t xe_lb_steps(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn,
			   struct xrnic_qp_attr *step, size_t n)
{
	uint8_t st = 0;
	size_t i;

	for (i = 0; i < n && !st; i++) {
		step[i].qpn = htole32(qpn);
		step[i].state = XRNIC_QPS_INIT + i;
		st = xe_lb_admin(xe, lb, XRNIC_ADMIN_MODIFY_QP, &step[i], NULL);
	}
	return st;
}

uint8_t xe_lb_uc_rts(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn, uint32_t dest_qpn)
{
	struct xrnic_qp_attr step[3] = {
		{ .attr_mask = htole32(XRNIC_QP_STATE | XRNIC_QP_ACCESS_FLAGS | XRNIC_QP_PORT),
		  .access_flags = htole16(XRNIC_ACCESS_REMOTE_WRITE), .port_num = 1 },
		{ .attr_mask = htole32(XRNIC_QP_STATE | XRNIC_QP_AV | XRNIC_QP_PATH_MTU |
				       XRNIC_QP_DEST_QPN | XRNIC_QP_RQ_PSN),
		  .path_mtu = 5, .hop_limit = 64, .dest_qpn = htole32(dest_qpn),
		  .rq_psn = htole32(100) },
		{ .attr_mask = htole32(XRNIC_QP_STATE | XRNIC_QP_SQ_PSN), .sq_psn = htole32(100) },
	};

	memcpy(step[1].dgid, xe->gid[0].gid, 16);
	memcpy(step[1].dmac, xe->id.mac, 6);
	return xe_lb_steps(xe, lb, qpn, step, 3);
}

uint8_t xe_lb_ud_rts(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn, uint32_t qkey)
{
	struct xrnic_qp_attr step[3] = {
		{ .attr_mask = htole32(XRNIC_QP_STATE | XRNIC_QP_PKEY_INDEX | XRNIC_QP_PORT |
				       XRNIC_QP_QKEY),
		  .qkey = htole32(qkey), .port_num = 1 },
		{ .attr_mask = htole32(XRNIC_QP_STATE) },
		{ .attr_mask = htole32(XRNIC_QP_STATE | XRNIC_QP_SQ_PSN) },
	};

	return xe_lb_steps(xe, lb, qpn, step, 3);
}

void xe_lb_post_send(struct xe_dev *xe, int slot, const struct xrnic_sqe *w)
{
	struct xrnic_qp_db *db = (void *)(xe->mem.base + XE_LB_QP_DB(slot));
	uint32_t pi = le32toh(db->sq_pi);

	memcpy(xe->mem.base + XE_LB_QP(slot) + (pi % XE_LB_DEPTH) * XRNIC_SQE_SIZE, w,
	       sizeof(*w));
	db->sq_pi = htole32(pi + 1);
	xe_doorbell(xe, 1);
	while (xe_dev_poll(xe) == 0)
		;
}

void xe_lb_post_recv(struct xe_dev *xe, int slot, uint64_t wr_id, uint64_t addr, uint32_t len,
		     uint32_t key)
{
	struct xrnic_qp_db *db = (void *)(xe->mem.base + XE_LB_QP_DB(slot));
	uint32_t pi = le32toh(db->rq_pi);
	struct xrnic_rqe *r = (void *)(xe->mem.base + XE_LB_RQ(slot) +
				       (pi % XE_LB_DEPTH) * XRNIC_RQE_SIZE);

	memset(r, 0, sizeof(*r));
	r->wr_id = htole64(wr_id);
	r->num_sge = 1;
	r->sge[0] = (struct xrnic_sge){ htole64(addr), htole32(len), htole32(key) };
	db->rq_pi = htole32(pi + 1);
}

struct xrnic_cqe *xe_lb_poll_cq(struct xe_dev *xe, uint32_t *ci)
{
	struct xrnic_cqe *e = (void *)(xe->mem.base + XE_LB_CQ +
				       (*ci % XE_LB_CQ_DEPTH) * XRNIC_CQE_SIZE);

	if ((e->flags & XRNIC_CQE_PHASE) != xrnic_entry_phase(*ci, XE_LB_CQ_DEPTH))
		return NULL;
	(*ci)++;
	((struct xrnic_cq_db *)(xe->mem.base + XE_LB_CQ_DB))->ci = htole32(*ci);
	return e;
}

/* GID 1 of a device: IPv4-mapped 192.0.2.<n>, or with v6 2001:db8::<n>. */
static struct xrnic_cmd_set_gid xe_lb_gid1(uint8_t n, bool v6)
{
	struct xrnic_cmd_set_gid g = { .port_num = 1, .index = 1, .valid = 1 };

	if (v6) {
		g.gid[0] = 0x20;
		g.gid[1] = 0x01;
		g.gid[2] = 0x0d;
		g.gid[3] = 0xb8;
	} else {
		g.gid[10] = g.gid[11] = 0xff;
		g.gid[12] = 192;
		g.gid[14] = 2;
	}
	g.gid[15] = n;
	return g;
}

uint8_t xe_lb_connect(struct xe_dev *xe, struct xe_lb *lb, uint32_t qpn,
		      const struct xe_dev *peer, uint32_t peer_qpn, bool v6)
{
	struct xrnic_cmd_set_gid mine = xe_lb_gid1(xe->id.mac[5], v6);
	struct xrnic_cmd_set_gid theirs = xe_lb_gid1(peer->id.mac[5], v6);
	struct xrnic_qp_attr a = {
		.qpn = htole32(qpn),
		.attr_mask = htole32(XRNIC_QP_AV | XRNIC_QP_DEST_QPN),
		.dest_qpn = htole32(peer_qpn), .sgid_index = 1, .hop_limit = 64,
	};
	uint8_t st;

	memcpy(a.dgid, theirs.gid, 16);
	memcpy(a.dmac, peer->id.mac, 6);
	st = xe_lb_admin(xe, lb, XRNIC_ADMIN_SET_GID, &mine, NULL);
	return st ? st : xe_lb_admin(xe, lb, XRNIC_ADMIN_MODIFY_QP, &a, NULL);
}
