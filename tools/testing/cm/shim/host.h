/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host stand-ins for the kernel (linux/ here, kernel.c) give the
 * tests beyond the kernel's API: the manual clock that fires delayed work,
 * the count of what is allocated and pending, allocation failures on
 * request, and the abort on what the kernel would WARN about or hang on.
 */
#ifndef CM_SHIM_HOST_H
#define CM_SHIM_HOST_H

#include <linux/types.h>

/* The kernel would WARN, oops or hang here: say where, and abort. */
#define host_bug(...)	host_bug_at(__FILE__, __LINE__, __VA_ARGS__)
void host_bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/*
 * The clock: jiffies, one a millisecond (HZ 1000), from 0.  Advancing it
 * runs each delayed work as its time comes, in time order, the clock
 * standing at that time while it runs.
 */
void host_clock_advance(unsigned long ms);
/* Delayed work armed and not yet run or cancelled. */
unsigned int host_timers_pending(void);
/* When the first of them runs (its jiffies), or 0 when none is pending. */
unsigned long host_next_timer(void);

/* Memory from kzalloc() not yet kfree()d, and xarray entries stored. */
long host_allocations(void);
/* The allocation (kzalloc(), xa_alloc_cyclic()) after @n that succeed fails; -1: none. */
void host_fail_allocation(long n);

/* get_random_u32() starts again from @seed (not 0). */
void host_random_seed(u32 seed);

/*
 * Back to the state the program started with, xa_alloc_cyclic()'s next
 * index too (the fuzzer, between inputs, so that an input always meets
 * the same IDs).
 */
void host_reset(void);

#endif
