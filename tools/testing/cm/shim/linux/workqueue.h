/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for <linux/workqueue.h>: delayed work on the manual clock
 * (host_clock_advance()), nothing else.  jiffies count milliseconds.
 */
#ifndef CM_SHIM_WORKQUEUE_H
#define CM_SHIM_WORKQUEUE_H

#include <linux/kernel.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	work_func_t func;
};

/* @node: in the clock's list of pending work (kernel.c), while @pending */
struct delayed_work {
	struct work_struct work;
	unsigned long expires;
	bool pending;
	struct list_head node;
};

struct workqueue_struct;
extern struct workqueue_struct *system_wq;
extern unsigned long jiffies;

#define INIT_DELAYED_WORK(dw, fn)	(*(dw) = (struct delayed_work){ .work.func = (fn) })

static inline struct delayed_work *to_delayed_work(struct work_struct *work)
{
	return container_of(work, struct delayed_work, work);
}

static inline unsigned long msecs_to_jiffies(unsigned int ms)
{
	return ms;
}

bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw,
		      unsigned long delay);
bool cancel_delayed_work(struct delayed_work *dw);
bool cancel_delayed_work_sync(struct delayed_work *dw);

#endif
