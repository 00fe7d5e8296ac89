// SPDX-License-Identifier: GPL-2.0
/* Raw uverbs write() commands for the xrdma kselftests. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xrdma_util.h"
#include "xrdma_verbs.h"

#define U64(p) ((uint64_t)(uintptr_t)(p))

int xv_cmd(int fd, uint32_t command, const void *req, size_t req_len,
	   const void *drv, size_t drv_len, size_t out_len)
{
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command,
		.in_words = (sizeof(hdr) + req_len + drv_len) / 4,
		.out_words = out_len / 4,
	};
	char buf[1024];
	size_t len = sizeof(hdr) + req_len + drv_len;
	ssize_t n;

	if (len > sizeof(buf))
		return -E2BIG;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), req, req_len);
	if (drv_len)
		memcpy(buf + sizeof(hdr) + req_len, drv, drv_len);
	n = write(fd, buf, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* The answer of most commands: core part then driver part, contiguous. */
struct answer {
	char core[256];
	char drv[64];
};

static int cmd_with_answer(int fd, uint32_t command, void *req, size_t len,
			   void *resp, size_t resp_len, void *drv,
			   size_t drv_len)
{
	struct answer a;
	int ret;

	memset(&a, 0, sizeof(a));
	*(uint64_t *)req = U64(a.core + sizeof(a.core) - resp_len);
	ret = xv_cmd(fd, command, req, len, NULL, 0, resp_len + drv_len);
	if (ret)
		return ret;
	memcpy(resp, a.core + sizeof(a.core) - resp_len, resp_len);
	if (drv)
		memcpy(drv, a.drv, drv_len);
	return 0;
}

int xv_get_context(int fd, struct ib_uverbs_get_context_resp *resp,
		   struct xrnic_alloc_ucontext_resp *drv)
{
	struct ib_uverbs_get_context req = {};

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &req,
			       sizeof(req), resp, sizeof(*resp), drv,
			       drv ? sizeof(*drv) : 0);
}

int xv_open_context(int *async_fd)
{
	struct ib_uverbs_get_context_resp resp;
	int fd, ret;

	fd = open(XV_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = xv_get_context(fd, &resp, NULL);
	if (ret) {
		close(fd);
		return ret;
	}
	if (async_fd)
		*async_fd = resp.async_fd;
	else
		close(resp.async_fd);
	return fd;
}

int xv_query_device(int fd, struct ib_uverbs_query_device_resp *resp)
{
	struct ib_uverbs_query_device req = {};

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &req,
			       sizeof(req), resp, sizeof(*resp), NULL, 0);
}

int xv_query_port(int fd, uint8_t port, struct ib_uverbs_query_port_resp *r)
{
	struct ib_uverbs_query_port req = { .port_num = port };

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_QUERY_PORT, &req,
			       sizeof(req), r, sizeof(*r), NULL, 0);
}

int xv_alloc_pd(int fd, uint32_t *pd)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ib_uverbs_alloc_pd req = {};
	int ret;

	ret = cmd_with_answer(fd, IB_USER_VERBS_CMD_ALLOC_PD, &req,
			      sizeof(req), &resp, sizeof(resp), NULL, 0);
	if (!ret)
		*pd = resp.pd_handle;
	return ret;
}

int xv_dealloc_pd(int fd, uint32_t pd)
{
	struct ib_uverbs_dealloc_pd req = { .pd_handle = pd };

	return xv_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &req, sizeof(req),
		      NULL, 0, 0);
}

int xv_reg_mr(int fd, uint32_t pd, const void *addr, uint64_t len,
	      uint64_t iova, uint32_t access,
	      struct ib_uverbs_reg_mr_resp *resp)
{
	struct ib_uverbs_reg_mr req = {
		.start = U64(addr), .length = len, .hca_va = iova,
		.pd_handle = pd, .access_flags = access,
	};

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_REG_MR, &req,
			       sizeof(req), resp, sizeof(*resp), NULL, 0);
}

int xv_dereg_mr(int fd, uint32_t mr)
{
	struct ib_uverbs_dereg_mr req = { .mr_handle = mr };

	return xv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &req, sizeof(req),
		      NULL, 0, 0);
}

int xv_create_comp_channel(int fd)
{
	struct ib_uverbs_create_comp_channel_resp resp;
	struct ib_uverbs_create_comp_channel req = {};
	int ret;

	ret = cmd_with_answer(fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			      sizeof(req), &resp, sizeof(resp), NULL, 0);
	return ret ? ret : (int)resp.fd;
}

int xv_create_cq(int fd, uint32_t cqe, int channel, uint32_t vector,
		 struct ib_uverbs_create_cq_resp *resp,
		 struct xrnic_create_cq_resp *drv)
{
	struct ib_uverbs_create_cq req = {
		.user_handle = 0xc0ffee, .cqe = cqe, .comp_vector = vector,
		.comp_channel = channel,
	};

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_CREATE_CQ, &req,
			       sizeof(req), resp, sizeof(*resp), drv,
			       drv ? sizeof(*drv) : 0);
}

int xv_destroy_cq(int fd, uint32_t cq, struct ib_uverbs_destroy_cq_resp *resp)
{
	struct ib_uverbs_destroy_cq_resp r;
	struct ib_uverbs_destroy_cq req = { .cq_handle = cq };

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &req,
			       sizeof(req), resp ? resp : &r, sizeof(r),
			       NULL, 0);
}

int xv_create_qp_of(int fd, uint8_t type, uint32_t pd, uint32_t send_cq, uint32_t recv_cq,
		    uint32_t send_wr, uint32_t recv_wr, struct ib_uverbs_create_qp_resp *resp,
		    struct xrnic_create_qp_resp *drv)
{
	struct ib_uverbs_create_qp req = {
		.user_handle = 0xbeef, .pd_handle = pd,
		.send_cq_handle = send_cq, .recv_cq_handle = recv_cq,
		.max_send_wr = send_wr, .max_recv_wr = recv_wr, .max_send_sge = 1,
		.max_recv_sge = 1, .qp_type = type,
	};

	return xv_create_qp_req(fd, &req, resp, drv);
}

int xv_create_qp_req(int fd, struct ib_uverbs_create_qp *req,
		     struct ib_uverbs_create_qp_resp *resp, struct xrnic_create_qp_resp *drv)
{
	return cmd_with_answer(fd, IB_USER_VERBS_CMD_CREATE_QP, req, sizeof(*req), resp,
			       sizeof(*resp), drv, drv ? sizeof(*drv) : 0);
}

int xv_create_qp(int fd, uint32_t pd, uint32_t send_cq, uint32_t recv_cq,
		 uint32_t wr, struct ib_uverbs_create_qp_resp *resp,
		 struct xrnic_create_qp_resp *drv)
{
	return xv_create_qp_of(fd, IBV_QPT_RC, pd, send_cq, recv_cq, wr, wr, resp, drv);
}

int xv_create_ah(int fd, uint32_t pd, const struct ib_uverbs_ah_attr *attr,
		 struct ib_uverbs_create_ah_resp *resp, struct xrnic_create_ah_resp *drv)
{
	struct ib_uverbs_create_ah req = { .user_handle = 0xa4, .pd_handle = pd, .attr = *attr };

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_CREATE_AH, &req, sizeof(req), resp,
			       sizeof(*resp), drv, drv ? sizeof(*drv) : 0);
}

int xv_destroy_ah(int fd, uint32_t ah)
{
	struct ib_uverbs_destroy_ah req = { .ah_handle = ah };

	return xv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_AH, &req, sizeof(req), NULL, 0, 0);
}

int xv_mcast(int fd, bool attach, uint32_t qp, const uint8_t *gid)
{
	struct ib_uverbs_attach_mcast req = { .qp_handle = qp };

	memcpy(req.gid, gid, sizeof(req.gid));
	return xv_cmd(fd, attach ? IB_USER_VERBS_CMD_ATTACH_MCAST : IB_USER_VERBS_CMD_DETACH_MCAST,
		      &req, sizeof(req), NULL, 0, 0);
}

int xv_modify_qp(int fd, struct ib_uverbs_modify_qp *req)
{
	return xv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, req, sizeof(*req),
		      NULL, 0, 0);
}

int xv_query_qp(int fd, uint32_t qp, struct ib_uverbs_query_qp_resp *resp)
{
	struct ib_uverbs_query_qp req = { .qp_handle = qp, .attr_mask = ~0u };

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_QUERY_QP, &req,
			       sizeof(req), resp, sizeof(*resp), NULL, 0);
}

int xv_destroy_qp(int fd, uint32_t qp)
{
	struct ib_uverbs_destroy_qp_resp resp;
	struct ib_uverbs_destroy_qp req = { .qp_handle = qp };

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_DESTROY_QP, &req,
			       sizeof(req), &resp, sizeof(resp), NULL, 0);
}

int xv_qp_to_rts(int fd, uint32_t qp, uint32_t dest_qpn)
{
	struct ib_uverbs_modify_qp m = {
		.qp_handle = qp,
		.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS,
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE |
				   IB_UVERBS_ACCESS_REMOTE_READ,
	};
	int ret;

	ret = xv_modify_qp(fd, &m);
	if (ret)
		return ret;
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	m.qp_state = IBV_QPS_RTR;
	m.dest.is_global = 1;
	m.dest.port_num = 1;
	m.dest.hop_limit = 64;
	/* Loopback: the path leads to the device's own GID. */
	if (xt_own_gid(m.dest.dgid))
		return -ENOENT;
	m.path_mtu = 5;
	m.dest_qp_num = dest_qpn;
	m.rq_psn = 0x1234;
	m.max_dest_rd_atomic = 4;
	m.min_rnr_timer = 12;
	ret = xv_modify_qp(fd, &m);
	if (ret)
		return ret;
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.attr_mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	m.qp_state = IBV_QPS_RTS;
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.sq_psn = 0x5678;
	m.max_rd_atomic = 4;
	return xv_modify_qp(fd, &m);
}

long xv_vm_pinned_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int xv_create_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
		  struct ib_uverbs_create_srq_resp *resp, struct xrnic_create_srq_resp *drv)
{
	struct ib_uverbs_create_srq req = {
		.user_handle = 0x5e, .pd_handle = pd, .max_wr = max_wr, .max_sge = max_sge,
	};

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &req, sizeof(req), resp,
			       sizeof(*resp), drv, drv ? sizeof(*drv) : 0);
}

int xv_modify_srq(int fd, uint32_t srq, uint32_t mask, uint32_t max_wr, uint32_t limit)
{
	struct ib_uverbs_modify_srq req = {
		.srq_handle = srq, .attr_mask = mask, .max_wr = max_wr, .srq_limit = limit,
	};

	return xv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &req, sizeof(req), NULL, 0, 0);
}

int xv_resize_srq(int fd, uint32_t srq, uint32_t mask, uint32_t max_wr, uint32_t limit,
		  uint64_t resp_addr)
{
	struct ib_uverbs_modify_srq req = {
		.srq_handle = srq, .attr_mask = mask, .max_wr = max_wr, .srq_limit = limit,
	};
	struct xrnic_modify_srq drv = { .resp_addr = resp_addr };

	return xv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &req, sizeof(req), &drv, sizeof(drv), 0);
}

int xv_query_srq(int fd, uint32_t srq, struct ib_uverbs_query_srq_resp *resp)
{
	struct ib_uverbs_query_srq req = { .srq_handle = srq };

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_QUERY_SRQ, &req, sizeof(req), resp,
			       sizeof(*resp), NULL, 0);
}

int xv_destroy_srq(int fd, uint32_t srq)
{
	struct ib_uverbs_destroy_srq_resp resp;
	struct ib_uverbs_destroy_srq req = { .srq_handle = srq };

	return cmd_with_answer(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &req, sizeof(req), &resp,
			       sizeof(resp), NULL, 0);
}
