// SPDX-License-Identifier: GPL-2.0
/*
 * User memory regions on Linux's ib_core: the pages pinned by ib_umem, their
 * bus addresses handed to the device in the command's page list
 * (xrnic_reg_mr_pages()).  While a device that stopped answering may still
 * use an MR's pages, they stay pinned (xrnic_dma_hold()) until it completes
 * a reset, or for ever.
 */
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "xrnic_ib.h"

/* The access flags the device takes; ib_core's optional ones it may ignore. */
#define XRNIC_IB_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

static void xrnic_ib_umem_release(void *umem)
{
	ib_umem_release(umem);
}

/* Pinned for ever: nobody else gets pages the device may write. */
static void xrnic_ib_umem_abandon(void *umem)
{
}

static size_t xrnic_ib_umem_bytes(void *umem)
{
	return ib_umem_num_pages(umem) << PAGE_SHIFT;
}

/* How an MR's pinned pages that the device may still use are held. */
const struct xrnic_held_ops xrnic_ib_umem_held = {
	.release = xrnic_ib_umem_release,
	.abandon = xrnic_ib_umem_abandon,
	.bytes = xrnic_ib_umem_bytes,
};

/* A command on the MR failed: hold its pages if the device may use them. */
static void xrnic_ib_put_umem(struct xrnic_dev *xn, struct ib_umem *umem)
{
	if (!xrnic_dma_hold(xn, umem, &xrnic_ib_umem_held))
		ib_umem_release(umem);
}

/**
 * xrnic_ib_reg_user_mr - register user memory
 * @ibpd: its PD
 * @start: its first byte in the process
 * @length: bytes
 * @iova: the address the MR's users give for @start
 * @access: IB_ACCESS_*
 * @udata: no driver data
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *xrnic_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				   int access, struct ib_udata *udata)
{
	struct xrnic_dev *xn = ib_to_xrnic(ibpd->device);
	struct xrnic_cmd_reg_mr reg = {};
	struct ib_block_iter biter;
	unsigned long npages, i = 0;
	struct xrnic_ib_mr *mr;
	dma_addr_t *pages;
	int ret;

	if (access & ~IB_ACCESS_OPTIONAL & ~XRNIC_IB_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	if (udata && udata->inlen)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free;
	}
	npages = ib_umem_num_dma_blocks(mr->umem, PAGE_SIZE);
	pages = kvcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages) {
		ret = -ENOMEM;
		goto err_release;
	}
	rdma_umem_for_each_dma_block(mr->umem, &biter, PAGE_SIZE)
		pages[i++] = rdma_block_iter_dma_address(&biter);
	reg.pdn = cpu_to_le32(xrnic_ib_pdn(ibpd));
	reg.access = cpu_to_le32(access & XRNIC_IB_MR_ACCESS);
	reg.iova = cpu_to_le64(iova);
	reg.length = cpu_to_le64(length);
	reg.npages = cpu_to_le32(npages);
	ret = xrnic_reg_mr_pages(xn, &reg, pages, npages, &mr->ibmr.lkey, &mr->ibmr.rkey);
	kvfree(pages);
	if (ret) {
		xrnic_ib_put_umem(xn, mr->umem);
		goto err_free;
	}
	return &mr->ibmr;

err_release:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(ret);
}

/**
 * xrnic_ib_dereg_mr - unregister a user MR
 * @ibmr: the MR
 * @udata: unused
 *
 * Return: 0; the pages stay pinned while a device that stopped answering
 * may still use them.
 */
int xrnic_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct xrnic_ib_mr *mr = container_of(ibmr, struct xrnic_ib_mr, ibmr);
	struct xrnic_dev *xn = ib_to_xrnic(ibmr->device);

	if (xrnic_cmd_dereg_mr(xn, ibmr->lkey))
		xrnic_ib_put_umem(xn, mr->umem);
	else
		ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}
