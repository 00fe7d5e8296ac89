/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for <linux/refcount.h>: an increment on 0 and a decrement
 * below 0, which the kernel WARNs about (a use after free), abort.
 */
#ifndef CM_SHIM_REFCOUNT_H
#define CM_SHIM_REFCOUNT_H

#include <linux/types.h>

#include "../host.h"

typedef struct {
	int refs;
} refcount_t;

#define REFCOUNT_INIT(n)	{ .refs = (n) }

static inline void refcount_set(refcount_t *r, int n)
{
	r->refs = n;
}

static inline unsigned int refcount_read(const refcount_t *r)
{
	return r->refs;
}

static inline void refcount_inc(refcount_t *r)
{
	if (r->refs <= 0)
		host_bug("refcount_t: addition on %d; use-after-free", r->refs);
	r->refs++;
}

static inline bool refcount_inc_not_zero(refcount_t *r)
{
	if (!r->refs)
		return false;
	refcount_inc(r);
	return true;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	if (r->refs <= 0)
		host_bug("refcount_t: underflow from %d; use-after-free", r->refs);
	return --r->refs == 0;
}

#endif
