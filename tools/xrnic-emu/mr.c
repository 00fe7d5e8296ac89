// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: REG_MR copies the page list (inline or chained through
 * guest memory) into the MR table, DEREG_MR drops it, and xe_mr_translate()
 * turns an iova of a registered MR into a guest address for the data path.
 * The guest's page list is read once, at registration.
 */
#include <errno.h>
#include <stdlib.h>

#include "xe.h"

/* Remote write and atomic need local write, as in the IB spec. */
#define XE_ACCESS_NEED_LOCAL_WRITE	(XRNIC_ACCESS_REMOTE_WRITE | XRNIC_ACCESS_REMOTE_ATOMIC)

uint32_t xe_mr_lookup(const struct xe_dev *xe, uint32_t key)
{
	uint32_t idx = XRNIC_KEY_INDEX(key);

	const struct xe_mr *mr = xe_obj_get(xe, XE_MR, idx);

	if (!mr || mr->key != XRNIC_KEY_BYTE(key))
		return 0;
	return idx;
}

/* Check one page address from the list and store it. */
static uint8_t xe_mr_page(struct xe_dev *xe, __le64 le, uint64_t *page)
{
	uint64_t gpa = le64toh(le);

	if (gpa % XE_MR_PAGE_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "page address not page aligned");
	if (!xe_gm_ptr(&xe->mem, gpa, XE_MR_PAGE_SIZE))
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "page outside guest RAM");
	*page = gpa;
	return XRNIC_STATUS_OK;
}

/*
 * Copy a chained page list: each chunk is copied out of guest memory before
 * it is looked at.  The walk ends after npages entries, so a chain that loops
 * back on itself only repeats pages.
 */
static uint8_t xe_mr_copy_chain(struct xe_dev *xe, uint64_t chunk, uint32_t npages,
				uint64_t *pages)
{
	__le64 buf[XRNIC_PBL_CHUNK_SIZE / sizeof(__le64)];
	uint32_t done = 0, n, i;
	const uint8_t *src;
	uint8_t status;

	static_assert(XRNIC_PBL_CHUNK_ENTRIES + 1 == ARRAY_SIZE(buf), "chunk layout");
	while (done < npages) {
		src = chunk % XRNIC_PBL_CHUNK_SIZE ? NULL :
		      xe_gm_ptr(&xe->mem, chunk, XRNIC_PBL_CHUNK_SIZE);
		if (!src)
			return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS,
				       "page list chunk unaligned or outside guest RAM");
		memcpy(buf, src, sizeof(buf));
		n = npages - done < XRNIC_PBL_CHUNK_ENTRIES ? npages - done :
							     XRNIC_PBL_CHUNK_ENTRIES;
		for (i = 0; i < n; i++) {
			status = xe_mr_page(xe, buf[i], &pages[done + i]);
			if (status)
				return status;
		}
		done += n;
		chunk = le64toh(buf[XRNIC_PBL_CHUNK_ENTRIES]);
	}
	return XRNIC_STATUS_OK;
}

/* Field checks of REG_MR that need no table or guest memory. */
static uint8_t xe_mr_check(struct xe_dev *xe, const struct xrnic_cmd_reg_mr *c)
{
	uint32_t access = le32toh(c->access), npages = le32toh(c->npages);
	uint64_t iova = le64toh(c->iova), length = le64toh(c->length);
	uint64_t pages;

	if (c->reserved)
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (c->pbl_mode == XRNIC_PBL_INLINE) {
		if (npages <= XRNIC_PBL_INLINE_MAX &&
		    !xe_all_zero(&c->pages[npages], (XRNIC_PBL_INLINE_MAX - npages) * 8))
			return xe_fail(xe, XRNIC_STATUS_MALFORMED, "unused inline page slot set");
	} else if (c->pbl_mode == XRNIC_PBL_CHAINED) {
		if (!xe_all_zero(&c->pages[1], sizeof(c->pages) - sizeof(c->pbl_addr)))
			return xe_fail(xe, XRNIC_STATUS_MALFORMED, "bytes after pbl_addr set");
	} else {
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "unknown pbl_mode");
	}
	if (access & ~XRNIC_ACCESS_ALL)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "unknown access bits");
	if ((access & XE_ACCESS_NEED_LOCAL_WRITE) && !(access & XRNIC_ACCESS_LOCAL_WRITE))
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM,
			       "remote write or atomic without local write");
	if (c->page_shift != XE_MR_PAGE_SHIFT)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "page_shift not 12");
	if (length < 1 || length > XE_MAX_MR_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "length 0 or above max_mr_size");
	if (iova > UINT64_MAX - length)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "iova + length overflows");
	pages = ((iova % XE_MR_PAGE_SIZE) + length + XE_MR_PAGE_SIZE - 1) / XE_MR_PAGE_SIZE;
	if (npages != pages)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "npages does not match iova and length");
	if ((c->pbl_mode == XRNIC_PBL_INLINE) != (npages <= XRNIC_PBL_INLINE_MAX))
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "pbl_mode does not fit npages");
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_reg_mr(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
		      struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_reg_mr *c = &cmd->reg_mr;
	uint32_t npages = le32toh(c->npages), pdn = le32toh(c->pdn), idx, i, key;
	struct xe_pd *pd;
	uint64_t *pages;
	uint8_t status;

	status = xe_mr_check(xe, c);
	if (status)
		return status;
	pd = xe_pd_get(xe, pdn);
	if (!pd)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no such PD");
	idx = xe_obj_unused(xe, XE_MR);
	if (!idx)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "MR table full");
	if (npages > XE_MAX_MR_PAGES - xe->mr_pages)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "page-list budget used up");
	pages = malloc(npages * sizeof(*pages));
	if (!pages)
		return xe_fail(xe, XRNIC_STATUS_NO_RESOURCES, "out of host memory");

	if (c->pbl_mode == XRNIC_PBL_INLINE) {
		for (i = 0, status = XRNIC_STATUS_OK; i < npages && !status; i++)
			status = xe_mr_page(xe, c->pages[i], &pages[i]);
	} else {
		status = xe_mr_copy_chain(xe, le64toh(c->pbl_addr), npages, pages);
	}
	if (status) {
		free(pages);
		return status;
	}

	xe->mr[idx] = (struct xe_mr){
		.obj.live = true,
		.key = xe->mr[idx].key,
		.pdn = pdn,
		.access = le32toh(c->access),
		.iova = le64toh(c->iova),
		.length = le64toh(c->length),
		.npages = npages,
		.pages = pages,
	};
	xe->mr_pages += npages;
	pd->obj.refs++;
	key = idx << 8 | xe->mr[idx].key;
	cpl->mr.lkey = htole32(key);
	cpl->mr.rkey = htole32(key);
	return XRNIC_STATUS_OK;
}

static void xe_mr_drop(struct xe_dev *xe, struct xe_mr *mr)
{
	free(mr->pages);
	xe->mr_pages -= mr->npages;
	/* The next registration at this index gets another key byte. */
	*mr = (struct xe_mr){ .key = mr->key + 1 };
}

uint8_t xe_cmd_dereg_mr(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_mr *c = &cmd->mr;
	uint32_t lkey = le32toh(c->lkey), rkey = le32toh(c->rkey), idx;
	struct xe_mr *mr;

	(void)cpl;
	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (rkey && rkey != lkey)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "rkey neither 0 nor lkey");
	idx = xe_mr_lookup(xe, lkey);
	if (!idx)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "no MR with that key");
	mr = &xe->mr[idx];
	if (mr->obj.refs)
		return xe_fail(xe, XRNIC_STATUS_BUSY, "memory windows are bound to the MR");
	xe->pd[mr->pdn].obj.refs--;
	xe_mr_drop(xe, mr);
	return XRNIC_STATUS_OK;
}

int xe_mr_translate(const struct xe_dev *xe, uint32_t key, uint32_t pdn, uint64_t iova,
		    uint64_t len, uint32_t access, uint64_t *gpa, uint64_t *avail)
{
	const struct xe_mr *mr;
	uint64_t off, in_page;
	uint32_t idx;

	if (!len || (access & ~XRNIC_ACCESS_ALL))
		return -EINVAL;
	idx = xe_mr_lookup(xe, key);
	if (!idx)
		return -ENOENT;
	mr = &xe->mr[idx];
	if (mr->pdn != pdn || (mr->access & access) != access)
		return -EACCES;
	if (iova < mr->iova || iova - mr->iova >= mr->length ||
	    len > mr->length - (iova - mr->iova))
		return -ERANGE;
	/* Offset from the start of the first page, which holds mr->iova. */
	off = mr->iova % XE_MR_PAGE_SIZE + (iova - mr->iova);
	in_page = XE_MR_PAGE_SIZE - off % XE_MR_PAGE_SIZE;
	*gpa = mr->pages[off / XE_MR_PAGE_SIZE] + off % XE_MR_PAGE_SIZE;
	*avail = len < in_page ? len : in_page;
	return 0;
}

void xe_mr_drop_all(struct xe_dev *xe)
{
	uint32_t idx;

	/* Every MR holds at least one page. */
	for (idx = 1; xe->mr_pages && idx <= XE_MAX_MR; idx++)
		if (xe->mr[idx].pages)
			free(xe->mr[idx].pages);
	xe_obj_drop_all(xe, XE_MR);
	xe->mr_pages = 0;
}
