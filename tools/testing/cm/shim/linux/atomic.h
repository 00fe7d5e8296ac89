/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/atomic.h>: one thread, plain arithmetic. */
#ifndef CM_SHIM_ATOMIC_H
#define CM_SHIM_ATOMIC_H

#include <linux/types.h>

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC64_INIT(i)	{ (i) }

static inline void atomic_long_inc(atomic_long_t *v)
{
	v->counter++;
}

static inline long atomic_long_read(const atomic_long_t *v)
{
	return v->counter;
}

static inline void atomic64_inc(atomic64_t *v)
{
	v->counter++;
}

static inline void atomic64_dec(atomic64_t *v)
{
	v->counter--;
}

static inline s64 atomic64_read(const atomic64_t *v)
{
	return v->counter;
}

#endif
