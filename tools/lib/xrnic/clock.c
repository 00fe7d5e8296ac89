// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The device clock in user space, from the clock page the driver keeps
 * (struct xrnic_clock_info): the device clock now is its last reading
 * plus the CLOCK_MONOTONIC time since (ibv_query_rt_values_ex()), and a
 * completion's 32-bit timestamp becomes wall-clock time by its distance
 * from that (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK).  No system
 * call: clock_gettime() is the vDSO's.
 */
#include <errno.h>
#include <time.h>

#include <rdma/xrnic-abi.h>
#include "xrnic.h"

/*
 * A completion is read at most this long before the device clock the page
 * gives (an estimate that can run a little behind) and at most 2^32 ns
 * minus this after it was written: [-0.54 s, 3.76 s].
 */
#define XRNIC_TS_AHEAD	0x20000000u

/* A consistent copy of the page (the driver wrote it before it let us map it). */
static void xrnic_clock_snapshot(const struct xrnic_clock_info *page,
				 struct xrnic_clock_info *snap)
{
	uint32_t seq;

	do {
		seq = __atomic_load_n(&page->seq, __ATOMIC_ACQUIRE);
		snap->device_ns = __atomic_load_n(&page->device_ns, __ATOMIC_RELAXED);
		snap->mono_ns = __atomic_load_n(&page->mono_ns, __ATOMIC_RELAXED);
		snap->real_ns = __atomic_load_n(&page->real_ns, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || seq != __atomic_load_n(&page->seq, __ATOMIC_RELAXED));
}

static uint64_t xrnic_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* The device clock now, estimated from @snap. */
static uint64_t xrnic_device_now(const struct xrnic_clock_info *snap)
{
	return snap->device_ns + (xrnic_mono_ns() - snap->mono_ns);
}

uint64_t xrnic_ts_to_wallclock(struct xrnic_context *ctx, uint32_t ts)
{
	struct xrnic_clock_info snap;
	uint64_t now, full;
	uint32_t age;

	if (!ctx->clock)
		return 0;
	xrnic_clock_snapshot(ctx->clock, &snap);
	now = xrnic_device_now(&snap);
	age = (uint32_t)now - ts;
	full = age >= (uint32_t)-XRNIC_TS_AHEAD ? now + (uint32_t)-age : now - age;
	return snap.real_ns + (full - snap.device_ns);
}

int xrnic_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *values)
{
	struct xrnic_context *ctx = to_xctx(ibctx);
	struct xrnic_clock_info snap;
	uint32_t asked = values->comp_mask;

	if (asked & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	values->comp_mask = 0;
	if (!(asked & IBV_VALUES_MASK_RAW_CLOCK))
		return 0;
	if (!ctx->clock)
		return EOPNOTSUPP;
	xrnic_clock_snapshot(ctx->clock, &snap);
	/* As mlx5: the raw count in tv_nsec, tv_sec 0. */
	values->raw_clock.tv_sec = 0;
	values->raw_clock.tv_nsec = (long)xrnic_device_now(&snap);
	values->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	return 0;
}
