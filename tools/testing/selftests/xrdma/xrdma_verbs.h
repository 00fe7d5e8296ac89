/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw uverbs write() commands for the xrdma kselftests: the Linux ABI of
 * <rdma/ib_user_verbs.h>, spoken without libibverbs so that every field,
 * size and error can be tested.  Functions return 0 or -errno.
 */
#ifndef XRDMA_VERBS_H
#define XRDMA_VERBS_H

#include <stddef.h>
#include <stdint.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <infiniband/verbs.h>
#include <rdma/xrnic-abi.h>

#define XV_DEV		"/dev/infiniband/uverbs0"
/*
 * Access flags, QP attribute mask bits, states and types are the verbs
 * values: IB_UVERBS_ACCESS_* (kernel uapi) and IBV_QP_*, IBV_QPS_*,
 * IBV_QPT_* from libibverbs' public header (used for its constants only).
 */

/*
 * Send command @command with the core request @req (@req_len bytes, which
 * must start with the response pointer if the command answers) followed by
 * @drv_len bytes of driver data; @out_len is the room announced for the
 * answer (core + driver).
 */
int xv_cmd(int fd, uint32_t command, const void *req, size_t req_len,
	   const void *drv, size_t drv_len, size_t out_len);

int xv_get_context(int fd, struct ib_uverbs_get_context_resp *resp,
		   struct xrnic_alloc_ucontext_resp *drv);
int xv_open_context(int *async_fd);	/* open + GET_CONTEXT: fd or -errno */
int xv_query_device(int fd, struct ib_uverbs_query_device_resp *resp);
int xv_query_port(int fd, uint8_t port, struct ib_uverbs_query_port_resp *r);
int xv_alloc_pd(int fd, uint32_t *pd);
int xv_dealloc_pd(int fd, uint32_t pd);
int xv_reg_mr(int fd, uint32_t pd, const void *addr, uint64_t len,
	      uint64_t iova, uint32_t access,
	      struct ib_uverbs_reg_mr_resp *resp);
int xv_dereg_mr(int fd, uint32_t mr);
int xv_create_comp_channel(int fd);	/* the channel fd or -errno */
int xv_create_cq(int fd, uint32_t cqe, int channel, uint32_t vector,
		 struct ib_uverbs_create_cq_resp *resp,
		 struct xrnic_create_cq_resp *drv);
int xv_destroy_cq(int fd, uint32_t cq,
		  struct ib_uverbs_destroy_cq_resp *resp);
int xv_create_qp(int fd, uint32_t pd, uint32_t send_cq, uint32_t recv_cq,
		 uint32_t wr, struct ib_uverbs_create_qp_resp *resp,
		 struct xrnic_create_qp_resp *drv);
/* ... of an IBV_QPT_* type, with queues of send_wr and recv_wr entries. */
int xv_create_qp_of(int fd, uint8_t type, uint32_t pd, uint32_t send_cq, uint32_t recv_cq,
		    uint32_t send_wr, uint32_t recv_wr, struct ib_uverbs_create_qp_resp *resp,
		    struct xrnic_create_qp_resp *drv);
/* ... as req asks (its response pointer is filled in). */
int xv_create_qp_req(int fd, struct ib_uverbs_create_qp *req,
		     struct ib_uverbs_create_qp_resp *resp, struct xrnic_create_qp_resp *drv);
int xv_modify_qp(int fd, struct ib_uverbs_modify_qp *req);
int xv_query_qp(int fd, uint32_t qp, struct ib_uverbs_query_qp_resp *resp);
int xv_destroy_qp(int fd, uint32_t qp);
int xv_create_ah(int fd, uint32_t pd, const struct ib_uverbs_ah_attr *attr,
		 struct ib_uverbs_create_ah_resp *resp, struct xrnic_create_ah_resp *drv);
int xv_destroy_ah(int fd, uint32_t ah);
/* ATTACH_MCAST (attach) or DETACH_MCAST of QP handle qp to the group of gid. */
int xv_mcast(int fd, bool attach, uint32_t qp, const uint8_t *gid);
int xv_create_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
		  struct ib_uverbs_create_srq_resp *resp, struct xrnic_create_srq_resp *drv);
int xv_modify_srq(int fd, uint32_t srq, uint32_t mask, uint32_t max_wr, uint32_t limit);
int xv_query_srq(int fd, uint32_t srq, struct ib_uverbs_query_srq_resp *resp);
/* MODIFY_SRQ with the driver data of a resize: the answer goes to resp_addr. */
int xv_resize_srq(int fd, uint32_t srq, uint32_t mask, uint32_t max_wr, uint32_t limit,
		  uint64_t resp_addr);
int xv_destroy_srq(int fd, uint32_t srq);

/* Move a fresh QP through INIT and RTR to RTS (loopback to @dest_qpn). */
int xv_qp_to_rts(int fd, uint32_t qp, uint32_t dest_qpn);

/* The process's pinned memory in kB (VmPin of /proc/self/status), or -1. */
long xv_vm_pinned_kb(void);

#endif /* XRDMA_VERBS_H */
