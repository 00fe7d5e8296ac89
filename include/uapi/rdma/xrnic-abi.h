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
 * the device is not polling.  The clock page (struct xrnic_clock_info),
 * read-only, is one page at clock_mmap_key.
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
	__aligned_u64 clock_mmap_key;
};

/*
 * The clock page: the driver's latest reading of the device clock that
 * stamps completions (QUERY_CLOCK, nanoseconds), with the kernel's
 * CLOCK_MONOTONIC and CLOCK_REALTIME at the moment the device read it,
 * give or take err_ns (half the reading's round trip).  The driver reads
 * again every second.  seq is odd while the driver writes the page: read
 * seq, then the fields, then seq again, and start over if it was odd or
 * changed.
 */
struct xrnic_clock_info {
	__u32 seq;
	__u32 reserved;
	__aligned_u64 device_ns;
	__aligned_u64 mono_ns;
	__aligned_u64 real_ns;
	__aligned_u64 err_ns;
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
 * MODIFY_SRQ with IB_SRQ_MAX_WR (a resize), driver data: where the kernel
 * writes struct xrnic_resize_srq_resp, as rxe's modify takes it (the
 * command has no answer of its own).  Without it the resize is refused.
 */
struct xrnic_modify_srq {
	__aligned_u64 resp_addr;
};

/*
 * The resized SRQ's new ring, to map in place of the old one (whose
 * mapping the device no longer reads), with the size granted.
 */
struct xrnic_resize_srq_resp {
	__aligned_u64 ring_mmap_key;
	__u32 ring_size;
	__u32 db_offset;
	__u32 max_wr;
	__u32 reserved;
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
