/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for <linux/xarray.h>: the allocating array's subset that
 * IB CM uses (a few entries, each with its index, looked for one by one;
 * indices given as xa_alloc_cyclic() gives them), and its lock, which
 * aborts when taken twice.
 */
#ifndef CM_SHIM_XARRAY_H
#define CM_SHIM_XARRAY_H

#include <linux/kernel.h>

#include "../host.h"

struct xa_entry {
	unsigned long index;
	void *entry;
};

struct xarray {
	struct xa_entry *entries;
	unsigned int count;
	unsigned int room;
	bool locked;
};

struct xa_limit {
	u32 max;
	u32 min;
};

#define xa_limit_32b	((struct xa_limit){ .min = 0, .max = UINT_MAX })

#define DEFINE_XARRAY_ALLOC(name)	struct xarray name = { .entries = NULL }

#define xa_lock(xa) do { \
	if ((xa)->locked) \
		host_bug("%s locked again: deadlock", #xa); \
	(xa)->locked = true; \
} while (0)

#define xa_unlock(xa) do { \
	if (!(xa)->locked) \
		host_bug("%s unlocked but not locked", #xa); \
	(xa)->locked = false; \
} while (0)

int xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit, u32 *next,
		    gfp_t gfp);
void *xa_load(struct xarray *xa, unsigned long index);
void *xa_erase(struct xarray *xa, unsigned long index);
/* The first entry at *@index or after, its index in *@index; or NULL. */
void *xa_find(struct xarray *xa, unsigned long *index);

#define xa_for_each_start(xa, index, entry, start) \
	for (index = start; (entry = xa_find(xa, &index)); index++)
#define xa_for_each(xa, index, entry) xa_for_each_start(xa, index, entry, 0)

#endif
