// SPDX-License-Identifier: GPL-2.0
/*
 * The object tables, one generic implementation for every kind (as rxe's
 * rxe_pool.c): where each kind's array lies in struct xe_dev, the numbers
 * it may use, a lookup of a live object, the first unused number, a count
 * of the live ones, and dropping them all at a reset.
 */
#include <stddef.h>
#include <string.h>

#include "xe.h"

/* One kind: its array in struct xe_dev, its element size, its numbers. */
struct xe_table {
	size_t offset;
	size_t size;
	size_t bytes;			/* the whole array, slot 0 included */
	uint32_t first, last;
};

#define XE_TABLE(field, first_, last_) {					\
	offsetof(struct xe_dev, field), sizeof(((struct xe_dev *)0)->field[0]),	\
	sizeof(((struct xe_dev *)0)->field), first_, last_ }

static const struct xe_table xe_tables[XE_OBJ_KINDS] = {
	[XE_PD] = XE_TABLE(pd, 1, XE_MAX_PD),
	[XE_MR] = XE_TABLE(mr, 1, XE_MAX_MR),
	[XE_MW] = XE_TABLE(mw, 1, XRNIC_MAX_MW),
	[XE_CQ] = XE_TABLE(cq, 1, XE_MAX_CQ),
	[XE_SRQ] = XE_TABLE(srq, 1, XRNIC_MAX_SRQ),
	/* The GSI QP's slot is its own (CREATE_QP of a GSI QP). */
	[XE_QP] = XE_TABLE(qp, XE_QPN_FIRST_SLOT, XE_QPN_SLOT_END - 1),
};

/* Element n of a kind's array, whatever its state. */
static struct xe_obj *xe_obj_at(const struct xe_dev *xe, enum xe_obj_kind kind, uint32_t n)
{
	const struct xe_table *t = &xe_tables[kind];

	return (struct xe_obj *)((char *)xe + t->offset + (size_t)n * t->size);
}

void *xe_obj_get(const struct xe_dev *xe, enum xe_obj_kind kind, uint32_t n)
{
	struct xe_obj *obj;

	if (n < 1 || n > xe_tables[kind].last)
		return NULL;
	obj = xe_obj_at(xe, kind, n);
	return obj->live ? obj : NULL;
}

uint32_t xe_obj_unused(const struct xe_dev *xe, enum xe_obj_kind kind)
{
	uint32_t n;

	for (n = xe_tables[kind].first; n <= xe_tables[kind].last; n++)
		if (!xe_obj_at(xe, kind, n)->live)
			return n;
	return 0;
}

uint32_t xe_obj_count(const struct xe_dev *xe, enum xe_obj_kind kind)
{
	uint32_t n, live = 0;

	for (n = 1; n <= xe_tables[kind].last; n++)
		live += xe_obj_at(xe, kind, n)->live;
	return live;
}

void xe_obj_drop_all(struct xe_dev *xe, enum xe_obj_kind kind)
{
	memset(xe_obj_at(xe, kind, 0), 0, xe_tables[kind].bytes);
}
