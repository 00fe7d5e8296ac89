/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrnic_xrdma: the XRNIC's RDMA function on xrdma_core, an auxiliary
 * driver of the PCI function (xrnic.h).
 */
#ifndef XRNIC_XR_H
#define XRNIC_XR_H

#include <xrdma/xr_core.h>

#include "xrnic.h"

/**
 * struct xrnic_gsi - the port's GSI QP, owned by the RDMA function (xrnic_gsi.c)
 * @mem: one coherent allocation: rings, doorbell records, buffers; NULL
 *	when the device has none
 * @dma: its bus address
 * @ready: the QP is up (set once, cleared before it is destroyed)
 * @pdn: its PD
 * @lkey: of the MR over its buffers
 * @mr_pages: the pages that MR covers
 * @cqn: its CQ (send and receive)
 * @qpn: XRNIC_GSI_QPN
 * @lock: protects @sq_pi and the send slots
 * @sq_pi: free-running send producer index
 * @rq_pi: free-running receive producer index (@work only)
 * @cq_ci: free-running CQ consumer index (@work only)
 * @arm_seq: CQ arm request number (@work only)
 * @work: drains the CQ; scheduled by its completion events
 */
struct xrnic_gsi {
	void *mem;
	dma_addr_t dma;
	bool ready;
	u32 pdn;
	u32 lkey;
	u32 mr_pages;
	u32 cqn;
	u32 qpn;
	spinlock_t lock;	/* protects sq_pi and the send slots */
	u32 sq_pi;
	u32 rq_pi;
	u32 cq_ci;
	u32 arm_seq;
	struct work_struct work;
};

/**
 * struct xrnic_xr - the RDMA function on xrdma_core (xrnic_xr.c)
 * @xdev: the core's device; first: xr_alloc_device() allocates the whole
 * @xn: the PCI function
 * @cqs: cqn -> struct xr_cq, for events; its lock keeps a CQ alive while
 *	an event is reported on it
 * @qps: qpn -> struct xr_qp, for async events; the same for QPs
 * @srqs: srqn -> struct xr_srq, for async events; the same for SRQs
 * @rdma: what the PCI function tells it (xrnic_rdma_attach())
 * @gsi: the port's GSI QP
 */
struct xrnic_xr {
	struct xr_device xdev;
	struct xrnic_dev *xn;
	struct xarray cqs;
	struct xarray qps;
	struct xarray srqs;
	struct xrnic_rdma rdma;
	struct xrnic_gsi gsi;
};

/**
 * struct xrnic_ring - a queue ring in host memory, mapped for user space
 * @buf: kernel address (whole pages from alloc_pages_exact())
 * @dma: bus address
 * @size: bytes, including the doorbell record page of a CQ or SQ ring
 * @db_offset: where in it the doorbell record is (0: none)
 * @mmap_key: offset user space maps it at
 */
struct xrnic_ring {
	void *buf;
	dma_addr_t dma;
	size_t size;
	u32 db_offset;
	u64 mmap_key;
};

/* Driver data of a CQ: its ring, with the doorbell record after it. */
struct xrnic_cq {
	struct xrnic_ring ring;
};

/* Driver data of an SRQ: its ring, with the doorbell record after it. */
struct xrnic_srq {
	struct xrnic_ring ring;
};

/* Driver data of a QP: its rings; the SQ ring carries the doorbell record. */
struct xrnic_qp {
	struct xrnic_ring sq;
	struct xrnic_ring rq;
};

/* xr_alloc_device() allocates the whole structure through its first member. */
static_assert(offsetof(struct xrnic_xr, xdev) == 0);

static inline struct xrnic_xr *to_xr(struct xr_device *xdev)
{
	return container_of(xdev, struct xrnic_xr, xdev);
}

static inline struct xrnic_dev *to_xrnic(struct xr_device *xdev)
{
	return to_xr(xdev)->xn;
}

/* xrnic_gsi.c */
int xrnic_gsi_init(struct xrnic_xr *xr);
void xrnic_gsi_destroy(struct xrnic_xr *xr);
bool xrnic_gsi_event(struct xrnic_xr *xr, u32 cqn);
int xrnic_gsi_send(struct xr_device *xdev, u32 port, const struct xr_gsi_ah *ah,
		   const void *mad, size_t len);

/* xrnic_verbs.c */
extern const struct xr_device_ops xrnic_dev_ops;
extern const struct xrnic_held_ops xrnic_umem_held;

#endif /* XRNIC_XR_H */
