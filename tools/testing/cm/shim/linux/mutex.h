/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for <linux/mutex.h> and lockdep's assertion: one thread,
 * so a lock taken twice (a deadlock in the kernel), an unlock of a lock not
 * held and an assertion on a lock not held abort.
 */
#ifndef CM_SHIM_MUTEX_H
#define CM_SHIM_MUTEX_H

#include <linux/types.h>

#include "../host.h"

struct mutex {
	bool held;
};

#define SINGLE_DEPTH_NESTING	1

#define mutex_init(m)	((m)->held = false)

#define mutex_lock(m) do { \
	if ((m)->held) \
		host_bug("%s taken again: deadlock", #m); \
	(m)->held = true; \
} while (0)

#define mutex_lock_nested(m, subclass)	mutex_lock(m)

#define mutex_unlock(m) do { \
	if (!(m)->held) \
		host_bug("%s unlocked but not held", #m); \
	(m)->held = false; \
} while (0)

#define lockdep_assert_held(m) do { \
	if (!(m)->held) \
		host_bug("%s not held", #m); \
} while (0)

#endif
