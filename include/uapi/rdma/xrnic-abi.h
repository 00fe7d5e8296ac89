/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * Driver-specific data of the uverbs commands for the XRNIC: what follows
 * the core structures of <rdma/ib_user_verbs.h> in requests and answers.
 * Structures are 8-byte aligned; new fields go at the end.
 */
#ifndef XRNIC_ABI_USER_H
#define XRNIC_ABI_USER_H

#include <linux/types.h>

#define XRNIC_UVERBS_ABI_VERSION	1

/* GET_CONTEXT answer: the geometry of the rings the library maps. */
struct xrnic_alloc_ucontext_resp {
	__u32 sqe_size;
	__u32 rqe_size;
	__u32 cqe_size;
	__u32 max_inline;
};

/* CREATE_CQ answer: mmap() the ring at ring_mmap_key, ring_size bytes. */
struct xrnic_create_cq_resp {
	__aligned_u64 ring_mmap_key;
	__u32 ring_size;
	__u32 cqn;
};

/* CREATE_QP answer: the send and receive rings. */
struct xrnic_create_qp_resp {
	__aligned_u64 sq_mmap_key;
	__aligned_u64 rq_mmap_key;
	__u32 sq_size;
	__u32 rq_size;
};

#endif /* XRNIC_ABI_USER_H */
