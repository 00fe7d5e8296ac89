/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrnic_ib: the XRNIC's RDMA function on Linux's own RDMA core (ib_core),
 * an auxiliary driver of the PCI function (xrnic.h), built against the
 * running kernel's include/rdma.
 */
#ifndef XRNIC_IB_H
#define XRNIC_IB_H

#include <rdma/ib_verbs.h>

#include "xrnic.h"

/**
 * struct xrnic_ib - the RDMA device over one PCI function
 * @ibdev: ib_core's device; first: ib_alloc_device() allocates the whole
 * @xn: the PCI function
 * @rdma: what the PCI function tells it (xrnic_rdma_attach())
 * @cqs: cqn -> struct xrnic_ib_cq, for events; its lock keeps a CQ alive
 *	while its owner hears of an event
 * @qps: qpn -> struct xrnic_ib_qp, for async events; the same for QPs
 */
struct xrnic_ib {
	struct ib_device ibdev;
	struct xrnic_dev *xn;
	struct xrnic_rdma rdma;
	struct xarray cqs;
	struct xarray qps;
};

/**
 * struct xrnic_ib_mmap - memory a user context may map
 * @entry: ib_core's entry: its offset is the key user space maps at
 * @xn: the PCI function
 * @addr: a page's physical address (device memory or the clock page), or 0
 * @buf: a ring in kernel memory (alloc_pages_exact()), or NULL
 * @dma: its bus address
 * @size: bytes
 * @io: device memory (mapped uncached)
 * @read_only: a writable mapping is refused
 * @leak: the ring is never freed: a live device refused to drop it
 *
 * A ring is freed (xrnic_ib_mmap_free()) once the driver removed its entry
 * and the last mapping of it is gone, and then only as xrnic_dma_free()
 * allows.
 */
struct xrnic_ib_mmap {
	struct rdma_user_mmap_entry entry;
	struct xrnic_dev *xn;
	phys_addr_t addr;
	void *buf;
	dma_addr_t dma;
	size_t size;
	bool io;
	bool read_only;
	bool leak;
};

/**
 * struct xrnic_ib_ring - a queue's ring, mapped for the device and a context
 * @m: its memory
 * @db_offset: where in it the doorbell record is (0: none)
 */
struct xrnic_ib_ring {
	struct xrnic_ib_mmap *m;
	u32 db_offset;
};

/**
 * struct xrnic_ib_cq - a completion queue
 * @ibcq: ib_core's CQ
 * @cqn: the device's number for it
 * @ring: its ring, the doorbell record after it
 */
struct xrnic_ib_cq {
	struct ib_cq ibcq;
	u32 cqn;
	struct xrnic_ib_ring ring;
};

/**
 * struct xrnic_ib_qp - a queue pair
 * @ibqp: ib_core's QP; its qp_num is the device's number
 * @sq: the send ring, which carries the doorbell record
 * @rq: the receive ring
 * @cap: its granted capacities
 * @state: its state since the last modify
 */
struct xrnic_ib_qp {
	struct ib_qp ibqp;
	struct xrnic_ib_ring sq;
	struct xrnic_ib_ring rq;
	struct ib_qp_cap cap;
	enum ib_qp_state state;
};

/**
 * struct xrnic_ib_mr - a memory region
 * @ibmr: ib_core's MR (its keys are the device's)
 * @umem: the pinned user pages
 */
struct xrnic_ib_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
};

/**
 * struct xrnic_ib_ucontext - a user context
 * @ibuc: ib_core's context
 * @db: the doorbell page, or NULL when the device offers none
 * @status: the device's status page (read only)
 * @clock: the clock page (read only)
 */
struct xrnic_ib_ucontext {
	struct ib_ucontext ibuc;
	struct rdma_user_mmap_entry *db;
	struct rdma_user_mmap_entry *status;
	struct rdma_user_mmap_entry *clock;
};

/**
 * struct xrnic_ib_pd - a protection domain
 * @ibpd: ib_core's PD
 * @pdn: the device's number for it
 */
struct xrnic_ib_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct xrnic_ib *to_xrnic_ib(struct ib_device *ibdev)
{
	return container_of(ibdev, struct xrnic_ib, ibdev);
}

static inline struct xrnic_dev *ib_to_xrnic(struct ib_device *ibdev)
{
	return to_xrnic_ib(ibdev)->xn;
}

static inline u32 xrnic_ib_pdn(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct xrnic_ib_pd, ibpd)->pdn;
}

/* xrnic_ib_verbs.c */
extern const struct ib_device_ops xrnic_ib_ops;

/* xrnic_ib_mmap.c */
struct rdma_user_mmap_entry *
xrnic_ib_mmap_add(struct ib_ucontext *ibuc, phys_addr_t addr, bool io, bool read_only,
		  u64 *key);
int xrnic_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void xrnic_ib_mmap_free(struct rdma_user_mmap_entry *e);
int xrnic_ib_ring_alloc(struct ib_ucontext *ibuc, struct xrnic_ib_ring *ring, u32 depth,
			u32 entry_size, bool with_db, u64 *key, u32 *size);
void xrnic_ib_ring_free(struct xrnic_ib_ring *ring, int destroyed);

/* xrnic_ib_queues.c */
int xrnic_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		       struct ib_udata *udata);
int xrnic_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int xrnic_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		       struct ib_udata *udata);
int xrnic_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		       struct ib_udata *udata);
int xrnic_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_qp_init_attr *init);
int xrnic_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* xrnic_ib_mr.c */
extern const struct xrnic_held_ops xrnic_ib_umem_held;
struct ib_mr *xrnic_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				   int access, struct ib_udata *udata);
int xrnic_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

#endif /* XRNIC_IB_H */
