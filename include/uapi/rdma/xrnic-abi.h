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

/*
 * GET_CONTEXT answer: the geometry of the rings the library maps, and the
 * doorbell: mmap() one page at db_mmap_key and write the 32-bit db_value at
 * db_offset in it to wake the device (db_mmap_key 0: no data path).  The
 * device's status page (struct xrnic_dev_status), read-only, is one page
 * at status_mmap_key: a doorbell is needed only while its poll word says
 * the device is not polling.
 */
struct xrnic_alloc_ucontext_resp {
	__u32 sqe_size;
	__u32 rqe_size;
	__u32 cqe_size;
	__u32 max_inline;
	__aligned_u64 db_mmap_key;
	__u32 db_offset;
	__u32 db_value;
	__aligned_u64 status_mmap_key;
};

/*
 * CREATE_CQ answer: mmap() the ring at ring_mmap_key, ring_size bytes; its
 * doorbell record (struct xrnic_cq_db) is at db_offset in the mapping.
 */
struct xrnic_create_cq_resp {
	__aligned_u64 ring_mmap_key;
	__u32 ring_size;
	__u32 cqn;
	__u32 db_offset;
	__u32 reserved;
};

/*
 * CREATE_QP answer: the send and receive rings; the QP's doorbell record
 * (struct xrnic_qp_db) is at db_offset in the send ring's mapping.
 */
struct xrnic_create_qp_resp {
	__aligned_u64 sq_mmap_key;
	__aligned_u64 rq_mmap_key;
	__u32 sq_size;
	__u32 rq_size;
	__u32 db_offset;
	__u32 reserved;
};

/*
 * CREATE_SRQ answer: the ring of receive WQEs; its doorbell record
 * (struct xrnic_srq_db) is at db_offset in the ring's mapping.
 */
struct xrnic_create_srq_resp {
	__aligned_u64 ring_mmap_key;
	__u32 ring_size;
	__u32 db_offset;
};

/*
 * CREATE_AH: the next hop's Ethernet address, which the core resolved; the
 * library writes it with the rest of the address into each UD work request
 * (the device keeps no address handles).
 */
struct xrnic_create_ah_resp {
	__u8 dmac[6];
	__u8 reserved[2];
};

#endif /* XRNIC_ABI_USER_H */
