// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line part of the host stand-ins for the kernel: the manual
 * clock and its delayed work, counted allocations, the allocating xarray,
 * a repeatable get_random_u32().  One thread; nothing here locks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/random.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "host.h"

struct workqueue_struct *system_wq;
unsigned long jiffies;

/* Pending delayed work, in the order it was armed. */
static struct list_head timers = { &timers, &timers };
static unsigned int timers_pending;
static long allocations;
static long fail_after = -1;
static u32 random_state = 1;
/* The next index of the last xa_alloc_cyclic() caller, for host_reset(). */
static u32 *cyclic_next;

void host_bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s:%d: BUG: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void timer_del(struct delayed_work *dw)
{
	dw->node.prev->next = dw->node.next;
	dw->node.next->prev = dw->node.prev;
	dw->pending = false;
	timers_pending--;
}

bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw,
		      unsigned long delay)
{
	bool was = dw->pending;

	(void)wq;
	if (!dw->work.func)
		host_bug("delayed work armed before INIT_DELAYED_WORK()");
	if (was)
		timer_del(dw);
	dw->expires = jiffies + delay;
	dw->node.prev = timers.prev;
	dw->node.next = &timers;
	timers.prev->next = &dw->node;
	timers.prev = &dw->node;
	dw->pending = true;
	timers_pending++;
	return was;
}

bool cancel_delayed_work(struct delayed_work *dw)
{
	if (!dw->pending)
		return false;
	timer_del(dw);
	return true;
}

/* Nothing runs behind the caller's back here: as cancel_delayed_work(). */
bool cancel_delayed_work_sync(struct delayed_work *dw)
{
	return cancel_delayed_work(dw);
}

static struct delayed_work *timer_first(void)
{
	struct delayed_work *first = NULL, *dw;
	struct list_head *n;

	for (n = timers.next; n != &timers; n = n->next) {
		dw = container_of(n, struct delayed_work, node);
		if (!first || dw->expires < first->expires)
			first = dw;
	}
	return first;
}

void host_clock_advance(unsigned long ms)
{
	unsigned long until = jiffies + ms;
	struct delayed_work *dw;

	while ((dw = timer_first()) && dw->expires <= until) {
		if (dw->expires > jiffies)
			jiffies = dw->expires;
		timer_del(dw);
		dw->work.func(&dw->work);
	}
	jiffies = until;
}

unsigned int host_timers_pending(void)
{
	return timers_pending;
}

unsigned long host_next_timer(void)
{
	struct delayed_work *dw = timer_first();

	return dw ? dw->expires : 0;
}

/* Whether the next allocation is to fail (host_fail_allocation()). */
static bool allocation_fails(void)
{
	if (fail_after < 0)
		return false;
	return fail_after-- == 0;
}

void *kzalloc(size_t size, gfp_t gfp)
{
	void *p;

	(void)gfp;
	if (allocation_fails())
		return NULL;
	p = calloc(1, size);
	if (!p)
		host_bug("out of memory");
	allocations++;
	return p;
}

void kfree(const void *p)
{
	if (!p)
		return;
	allocations--;
	free((void *)p);
}

long host_allocations(void)
{
	return allocations;
}

void host_fail_allocation(long n)
{
	fail_after = n;
}

static struct xa_entry *xa_slot(struct xarray *xa, unsigned long index)
{
	unsigned int i;

	for (i = 0; i < xa->count; i++)
		if (xa->entries[i].index == index)
			return &xa->entries[i];
	return NULL;
}

/* The first index from @from to @to that holds nothing, or @to + 1. */
static u64 xa_free_index(struct xarray *xa, u64 from, u64 to)
{
	while (from <= to && xa_slot(xa, from))
		from++;
	return from;
}

int xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit, u32 *next,
		    gfp_t gfp)
{
	u64 from = *next > limit.min ? *next : limit.min;
	u64 index = xa_free_index(xa, from, limit.max);
	struct xa_entry *entries;
	int wrapped = 0;

	(void)gfp;
	if (xa->locked)
		host_bug("%s() under xa_lock(): deadlock", __func__);
	cyclic_next = next;
	if (allocation_fails())
		return -ENOMEM;
	if (index > limit.max) {
		if (from == limit.min)
			return -EBUSY;
		index = xa_free_index(xa, limit.min, from - 1);
		if (index >= from)
			return -EBUSY;
		wrapped = 1;
	}
	if (xa->count == xa->room) {
		xa->room = xa->room ? 2 * xa->room : 16;
		entries = realloc(xa->entries, xa->room * sizeof(*entries));
		if (!entries)
			host_bug("out of memory");
		xa->entries = entries;
	}
	xa->entries[xa->count++] = (struct xa_entry){ index, entry };
	*id = index;
	*next = index + 1;
	allocations++;
	return wrapped;
}

void *xa_load(struct xarray *xa, unsigned long index)
{
	struct xa_entry *e = xa_slot(xa, index);

	return e ? e->entry : NULL;
}

void *xa_erase(struct xarray *xa, unsigned long index)
{
	struct xa_entry *e = xa_slot(xa, index);
	void *entry;

	if (xa->locked)
		host_bug("%s() under xa_lock(): deadlock", __func__);
	if (!e)
		return NULL;
	entry = e->entry;
	*e = xa->entries[--xa->count];
	allocations--;
	return entry;
}

void *xa_find(struct xarray *xa, unsigned long *index)
{
	struct xa_entry *first = NULL;
	unsigned int i;

	for (i = 0; i < xa->count; i++)
		if (xa->entries[i].index >= *index &&
		    (!first || xa->entries[i].index < first->index))
			first = &xa->entries[i];
	if (!first)
		return NULL;
	*index = first->index;
	return first->entry;
}

/* xorshift32 */
u32 get_random_u32(void)
{
	random_state ^= random_state << 13;
	random_state ^= random_state >> 17;
	random_state ^= random_state << 5;
	return random_state;
}

void host_random_seed(u32 seed)
{
	random_state = seed ? seed : 1;
}

void host_reset(void)
{
	timers.next = &timers;
	timers.prev = &timers;
	timers_pending = 0;
	jiffies = 0;
	allocations = 0;
	fail_after = -1;
	random_state = 1;
	if (cyclic_next)
		*cyclic_next = 0;
}
