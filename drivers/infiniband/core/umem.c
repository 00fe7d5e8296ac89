// SPDX-License-Identifier: GPL-2.0
/*
 * Pinning user memory for registration: pin_user_pages_fast() with
 * FOLL_LONGTERM, charged to the process's pinned_vm against
 * RLIMIT_MEMLOCK (unless CAP_IPC_LOCK), then, as a separate step taken
 * under the file's lock, DMA mapped for the device.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "core_priv.h"

/* Pages pinned per pin_user_pages_fast() call. */
#define XR_PIN_BATCH	512

static void xr_umem_unpin(struct xr_umem *umem, unsigned long npinned)
{
	unpin_user_pages_dirty_lock(umem->pages, npinned, umem->writable);
}

static void xr_umem_unmap(struct device *dma_dev, struct xr_umem *umem,
			  unsigned long nmapped)
{
	unsigned long i;

	for (i = 0; i < nmapped; i++)
		dma_unmap_page(dma_dev, umem->dma[i], PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
}

/**
 * xr_umem_pin - pin a range of the caller's memory
 * @addr: first byte
 * @length: bytes, at least 1
 * @writable: the device may write (pins with FOLL_WRITE)
 *
 * May wait for page faults as long as they take (userfaultfd, FUSE), so
 * the caller holds no lock that others might wait for; a fatal signal
 * ends it.
 *
 * Return: the pinned memory, not yet DMA mapped, or an ERR_PTR: -EINVAL
 * for an empty or overflowing range, -ENOMEM over RLIMIT_MEMLOCK or out of
 * memory, -EFAULT for an address range that is not mapped, -EINTR.
 */
struct xr_umem *xr_umem_pin(u64 addr, u64 length, bool writable)
{
	unsigned int gup_flags = FOLL_LONGTERM | (writable ? FOLL_WRITE : 0);
	unsigned long npages, npinned = 0, lock_limit;
	struct mm_struct *mm = current->mm;
	struct xr_umem *umem;
	u64 end;
	long got;
	int ret;

	if (!length || check_add_overflow(addr, length, &end) ||
	    end > TASK_SIZE || PAGE_ALIGN(end) < end)
		return ERR_PTR(-EINVAL);
	npages = (PAGE_ALIGN(end) - (addr & PAGE_MASK)) >> PAGE_SHIFT;
	if (!npages || npages > INT_MAX)
		return ERR_PTR(-EINVAL);

	umem = kzalloc(sizeof(*umem), GFP_KERNEL_ACCOUNT);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	umem->address = addr;
	umem->length = length;
	umem->npages = npages;
	umem->writable = writable;
	umem->owning_mm = mm;
	mmgrab(mm);

	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (atomic64_add_return(npages, &mm->pinned_vm) > lock_limit &&
	    !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto err_uncharge;
	}

	umem->pages = kvcalloc(npages, sizeof(*umem->pages), GFP_KERNEL_ACCOUNT);
	umem->dma = kvcalloc(npages, sizeof(*umem->dma), GFP_KERNEL_ACCOUNT);
	if (!umem->pages || !umem->dma) {
		ret = -ENOMEM;
		goto err_free_arrays;
	}

	while (npinned < npages) {
		got = pin_user_pages_fast((addr & PAGE_MASK) +
					  npinned * PAGE_SIZE,
					  min_t(unsigned long, npages - npinned,
						XR_PIN_BATCH),
					  gup_flags, umem->pages + npinned);
		if (got <= 0) {
			ret = got ? got : -EFAULT;
			goto err_unpin;
		}
		npinned += got;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_unpin;
		}
		cond_resched();
	}
	return umem;

err_unpin:
	xr_umem_unpin(umem, npinned);
err_free_arrays:
	kvfree(umem->dma);
	kvfree(umem->pages);
err_uncharge:
	atomic64_sub(npages, &mm->pinned_vm);
	mmdrop(mm);
	kfree(umem);
	return ERR_PTR(ret);
}

/**
 * xr_umem_map - DMA map pinned memory for a device
 * @umem: from xr_umem_pin(), not mapped yet
 * @dma_dev: the device that will access the pages
 *
 * Return: 0 or -ENOMEM.
 */
int xr_umem_map(struct xr_umem *umem, struct device *dma_dev)
{
	unsigned long n;

	for (n = 0; n < umem->npages; n++) {
		umem->dma[n] = dma_map_page(dma_dev, umem->pages[n], 0,
					    PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dma_dev, umem->dma[n])) {
			xr_umem_unmap(dma_dev, umem, n);
			return -ENOMEM;
		}
	}
	umem->dma_dev = dma_dev;
	return 0;
}

/**
 * xr_umem_release - undo xr_umem_map() if it was done, and xr_umem_pin()
 * @umem: the pinned memory
 *
 * The pages are marked dirty if the device could write them, unpinned, and
 * the pinned_vm charge is returned to the process that made it.
 */
void xr_umem_release(struct xr_umem *umem)
{
	if (umem->dma_dev)
		xr_umem_unmap(umem->dma_dev, umem, umem->npages);
	xr_umem_unpin(umem, umem->npages);
	kvfree(umem->dma);
	kvfree(umem->pages);
	atomic64_sub(umem->npages, &umem->owning_mm->pinned_vm);
	mmdrop(umem->owning_mm);
	kfree(umem);
}
EXPORT_SYMBOL_GPL(xr_umem_release);

/**
 * xr_umem_abandon - forget pinned memory that a device may still write
 * @umem: the pinned memory, of a device that never completed a reset
 *
 * The pages stay pinned for ever, and charged to the process's pinned_vm:
 * handing them back to the allocator would let the device corrupt whoever
 * gets them next.  Only the bookkeeping is freed.
 */
void xr_umem_abandon(struct xr_umem *umem)
{
	kvfree(umem->dma);
	kvfree(umem->pages);
	mmdrop(umem->owning_mm);
	kfree(umem);
}
EXPORT_SYMBOL_GPL(xr_umem_abandon);
