// SPDX-License-Identifier: GPL-2.0
/*
 * What a user context maps on Linux's ib_core: single pages (the doorbell
 * page, the status page, the clock page) and the queues' rings, each an
 * rdma_user_mmap_entry, so that ib_core cuts a context's mappings off when
 * the device goes and a ring is freed only once its last mapping is gone.
 * No key is 0, which the ABI reserves for "none" (xrnic-abi.h).
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>

#include "xrnic_ib.h"

/* Offer @m to the context's mmap(); its key goes in @key. */
static int xrnic_ib_mmap_insert(struct ib_ucontext *ibuc, struct xrnic_ib_mmap *m, u64 *key)
{
	int ret;

	m->xn = ib_to_xrnic(ibuc->device);
	ret = rdma_user_mmap_entry_insert_range(ibuc, &m->entry, m->size, 1, U32_MAX);
	if (!ret)
		*key = rdma_user_mmap_get_offset(&m->entry);
	return ret;
}

/**
 * xrnic_ib_mmap_add - offer one page to a context's mmap()
 * @ibuc: the context
 * @addr: the page's physical address
 * @io: device memory (mapped uncached)
 * @read_only: a writable mapping is refused
 * @key: out: where the context maps it
 *
 * Return: the entry (rdma_user_mmap_entry_remove() takes it back) or an
 * ERR_PTR().
 */
struct rdma_user_mmap_entry *
xrnic_ib_mmap_add(struct ib_ucontext *ibuc, phys_addr_t addr, bool io,
		  bool read_only, u64 *key)
{
	struct xrnic_ib_mmap *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->addr = addr;
	m->size = PAGE_SIZE;
	m->io = io;
	m->read_only = read_only;
	ret = xrnic_ib_mmap_insert(ibuc, m, key);
	if (ret) {
		kfree(m);
		return ERR_PTR(ret);
	}
	return &m->entry;
}

/**
 * xrnic_ib_ring_alloc - a zeroed ring, mapped for the device and a context
 * @ibuc: the context
 * @ring: out
 * @depth: entries
 * @entry_size: bytes an entry
 * @with_db: a page for the doorbell record follows the entries
 * @key: out: where the context maps it
 * @size: out: its size in bytes
 *
 * Return: 0 or a negative errno.
 */
int xrnic_ib_ring_alloc(struct ib_ucontext *ibuc, struct xrnic_ib_ring *ring, u32 depth,
			u32 entry_size, bool with_db, u64 *key, u32 *size)
{
	struct xrnic_dev *xn = ib_to_xrnic(ibuc->device);
	struct device *dma = &xn->pdev->dev;
	struct xrnic_ib_mmap *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->size = PAGE_ALIGN((size_t)depth * entry_size);
	ring->db_offset = with_db ? m->size : 0;
	if (with_db)
		m->size += PAGE_SIZE;
	/* Charged to the caller's memory cgroup, like its other objects. */
	m->buf = alloc_pages_exact(m->size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!m->buf) {
		ret = -ENOMEM;
		goto err_free;
	}
	m->dma = dma_map_single(dma, m->buf, m->size, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dma, m->dma)) {
		ret = -ENOMEM;
		goto err_free_pages;
	}
	ret = xrnic_ib_mmap_insert(ibuc, m, key);
	if (ret)
		goto err_unmap;
	*size = m->size;
	ring->m = m;
	return 0;

err_unmap:
	dma_unmap_single(dma, m->dma, m->size, DMA_BIDIRECTIONAL);
err_free_pages:
	free_pages_exact(m->buf, m->size);
err_free:
	kfree(m);
	return ret;
}

/**
 * xrnic_ib_ring_free - the device dropped a ring: free it once unmapped
 * @ring: from xrnic_ib_ring_alloc()
 * @destroyed: the result of the command that made the device drop it (0
 *	if it never had it); a live device that refused may still write the
 *	ring, which is then never freed
 */
void xrnic_ib_ring_free(struct xrnic_ib_ring *ring, int destroyed)
{
	struct xrnic_ib_mmap *m = ring->m;

	m->leak = destroyed && !xrnic_is_dead(m->xn);
	rdma_user_mmap_entry_remove(&m->entry);
}

/**
 * xrnic_ib_mmap - the mmap op: map what a key names, as it was offered
 * @ibuc: the context
 * @vma: the mapping, one whole entry at its key
 *
 * Return: 0 or a negative errno: -EPERM for a writable mapping of a
 * read-only page, -EINVAL for a key nothing was offered at.
 */
int xrnic_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e = rdma_user_mmap_entry_get(ibuc, vma);
	struct xrnic_ib_mmap *m;
	int ret;

	if (!e)
		return -EINVAL;
	m = container_of(e, struct xrnic_ib_mmap, entry);
	if (m->read_only && (vma->vm_flags & VM_WRITE)) {
		ret = -EPERM;
		goto out;
	}
	if (m->read_only)
		vma->vm_flags &= ~VM_MAYWRITE;
	ret = rdma_user_mmap_io(ibuc, vma, PHYS_PFN(m->buf ? virt_to_phys(m->buf) : m->addr),
				m->size, m->io ? pgprot_noncached(vma->vm_page_prot) :
						 vma->vm_page_prot, e);
out:
	rdma_user_mmap_entry_put(e);
	return ret;
}

/**
 * xrnic_ib_mmap_free - the mmap_free op: free what an entry offered
 * @e: an entry whose last reference is gone: no mapping of it is left
 */
void xrnic_ib_mmap_free(struct rdma_user_mmap_entry *e)
{
	struct xrnic_ib_mmap *m = container_of(e, struct xrnic_ib_mmap, entry);

	if (m->buf && m->leak)
		dev_err(&m->xn->pdev->dev,
			"the device kept a ring it was told to drop: leaking %zu bytes\n",
			m->size);
	else if (m->buf)
		/* Held instead if the device stopped answering (xrnic_dma.c). */
		xrnic_dma_free(m->xn, m->buf, m->dma, m->size, false);
	kfree(m);
}
