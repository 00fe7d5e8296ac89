// SPDX-License-Identifier: GPL-2.0
/* The device's clock: monotonic nanoseconds, for timers and timestamps. */
#include <time.h>

#include "xe.h"

int64_t xe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
