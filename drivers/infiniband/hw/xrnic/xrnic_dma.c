// SPDX-License-Identifier: GPL-2.0
/*
 * Host memory that the device reads or writes (rings, page-list chunks, the
 * pinned pages of MRs) is freed only once the device is known to be done
 * with it: it completed the command that takes the memory back, or it
 * completed a reset.  A device
 * that stopped answering may still be working (slow, or stopped and later
 * resumed), so what it was given is held until it completes a reset; if it
 * never does, the memory is leaked at unbind rather than handed back to
 * the kernel for the device to corrupt.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "xrnic.h"

/**
 * struct xrnic_held_dma - memory kept from the allocator for the device
 * @list: in xrnic_dev.held
 * @obj: memory the driver does not own (an MR's pinned pages), given back
 *	through @ops (the fields below are unused), or NULL
 * @ops: how @obj is given back
 * @cpu: kernel address
 * @dma: bus address
 * @size: bytes
 * @coherent: from dma_alloc_coherent() (else alloc_pages_exact() memory
 *	mapped with dma_map_single())
 */
struct xrnic_held_dma {
	struct list_head list;
	void *obj;
	const struct xrnic_held_ops *ops;
	void *cpu;
	dma_addr_t dma;
	size_t size;
	bool coherent;
};

static void xrnic_dma_release(struct xrnic_dev *xn, void *cpu, dma_addr_t dma,
			      size_t size, bool coherent)
{
	struct device *dev = &xn->pdev->dev;

	if (coherent) {
		dma_free_coherent(dev, size, cpu, dma);
	} else {
		dma_unmap_single(dev, dma, size, DMA_BIDIRECTIONAL);
		free_pages_exact(cpu, size);
	}
}

/**
 * xrnic_dma_free - give memory back that the device was given
 * @xn: the device
 * @cpu: kernel address
 * @dma: bus address
 * @size: bytes
 * @coherent: from dma_alloc_coherent(), else from alloc_pages_exact() and
 *	mapped with dma_map_single()
 *
 * While the device may still use memory it was given (it stopped answering
 * and has not completed a reset since), the memory is held until it does
 * (xrnic_dma_quiesced()).  Otherwise the device completed the command that
 * took the memory back, or never had it, and it is freed now.
 */
void xrnic_dma_free(struct xrnic_dev *xn, void *cpu, dma_addr_t dma,
		    size_t size, bool coherent)
{
	struct xrnic_held_dma *h;

	mutex_lock(&xn->held_lock);
	if (!xn->dma_unsafe) {
		mutex_unlock(&xn->held_lock);
		xrnic_dma_release(xn, cpu, dma, size, coherent);
		return;
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (h) {
		h->cpu = cpu;
		h->dma = dma;
		h->size = size;
		h->coherent = coherent;
		list_add_tail(&h->list, &xn->held);
	}
	mutex_unlock(&xn->held_lock);
	if (!h)
		dev_err_ratelimited(&xn->pdev->dev,
				    "out of memory: leaking %zu bytes the device may still use\n",
				    size);
}
EXPORT_SYMBOL_NS_GPL(xrnic_dma_free, XRNIC);

/**
 * xrnic_dma_hold - keep memory the device may use until it completes a reset
 * @xn: the device
 * @obj: memory the driver does not own (an MR's pinned pages), which a
 *	command that failed left with the device
 * @ops: how @obj is given back
 *
 * While the device may still use memory it was given, takes @obj until the
 * device completes a reset (@ops->release), or for ever if it never does
 * (@ops->abandon); out of memory, abandons it now.  The RDMA function
 * that holds memory this way abandons what is still held when it is
 * unbound (xrnic_dma_abandon()), so that no @ops outlives its module.
 *
 * Return: true if @obj was taken; false if the device uses no memory it was
 * given, and @obj stays the caller's to free.
 */
bool xrnic_dma_hold(struct xrnic_dev *xn, void *obj, const struct xrnic_held_ops *ops)
{
	struct xrnic_held_dma *h;

	mutex_lock(&xn->held_lock);
	if (!xn->dma_unsafe) {
		mutex_unlock(&xn->held_lock);
		return false;
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (h) {
		h->obj = obj;
		h->ops = ops;
		list_add_tail(&h->list, &xn->held);
	}
	mutex_unlock(&xn->held_lock);
	if (!h) {
		dev_err_ratelimited(&xn->pdev->dev,
				    "out of memory: leaking %zu bytes the device may still use\n",
				    ops->bytes(obj));
		ops->abandon(obj);
	}
	return true;
}
EXPORT_SYMBOL_NS_GPL(xrnic_dma_hold, XRNIC);

/**
 * xrnic_dma_unsafe - the device may be using memory it was given
 * @xn: the device, which stopped answering (or did not complete a reset)
 *
 * From now on memory it was given is held rather than freed.
 */
void xrnic_dma_unsafe(struct xrnic_dev *xn)
{
	mutex_lock(&xn->held_lock);
	xn->dma_unsafe = true;
	mutex_unlock(&xn->held_lock);
}

/**
 * xrnic_dma_quiesced - the device completed a reset: it uses no memory now
 * @xn: the device
 *
 * Frees what was held for it.
 */
void xrnic_dma_quiesced(struct xrnic_dev *xn)
{
	struct xrnic_held_dma *h, *tmp;
	LIST_HEAD(held);

	mutex_lock(&xn->held_lock);
	xn->dma_unsafe = false;
	list_splice_init(&xn->held, &held);
	mutex_unlock(&xn->held_lock);
	list_for_each_entry_safe(h, tmp, &held, list) {
		if (h->obj) {
			h->ops->release(h->obj);
		} else {
			xrnic_dma_release(xn, h->cpu, h->dma, h->size,
					  h->coherent);
		}
		kfree(h);
	}
}

/**
 * xrnic_dma_abandon - the device never completed a reset: leak what it has
 * @xn: the device
 * @ops: leak only what xrnic_dma_hold() took with @ops (its RDMA function
 *	is being unbound), or NULL: everything (the device is being unbound)
 *
 * Return: the bytes leaked.
 */
size_t xrnic_dma_abandon(struct xrnic_dev *xn, const struct xrnic_held_ops *ops)
{
	struct xrnic_held_dma *h, *tmp;
	size_t bytes = 0;

	mutex_lock(&xn->held_lock);
	list_for_each_entry_safe(h, tmp, &xn->held, list) {
		if (ops && h->ops != ops)
			continue;
		if (h->obj) {
			bytes += h->ops->bytes(h->obj);
			/* Kept for ever: nobody else gets pages it may write. */
			h->ops->abandon(h->obj);
		} else {
			bytes += h->size;
		}
		list_del(&h->list);
		kfree(h);
	}
	mutex_unlock(&xn->held_lock);
	return bytes;
}
EXPORT_SYMBOL_NS_GPL(xrnic_dma_abandon, XRNIC);
