// SPDX-License-Identifier: GPL-2.0
/*
 * The clock page: what user space needs to turn the device clock that
 * stamps completions into its own clocks (ibv_query_rt_values_ex() and the
 * wall-clock completion timestamp).  Once a second the driver reads the
 * device clock with QUERY_CLOCK between two readings of CLOCK_MONOTONIC and
 * publishes the device's reading with the kernel's clocks at the midpoint,
 * under a sequence count, in a page that every user context maps
 * read-only (struct xrnic_clock_info).  Only @clock_work writes the page
 * once xrnic_clock_init() returned.
 */
#include <linux/ktime.h>
#include <linux/workqueue.h>
#include <rdma/xrnic-abi.h>

#include "xrnic.h"

#define XRNIC_CLOCK_PERIOD	HZ

/* One reading; a failed one (a dead device) leaves the last in place. */
static void xrnic_clock_read(struct xrnic_dev *xn)
{
	struct xrnic_clock_info *info = xn->clock;
	u64 mono0, real0, mono1, dev_ns, half;

	mono0 = ktime_get_ns();
	real0 = ktime_get_real_ns();
	if (xrnic_cmd_query_clock(xn, &dev_ns))
		return;
	mono1 = ktime_get_ns();
	half = (mono1 - mono0) / 2;
	WRITE_ONCE(info->seq, info->seq + 1);
	smp_wmb();	/* the odd count before the fields */
	WRITE_ONCE(info->device_ns, dev_ns);
	WRITE_ONCE(info->mono_ns, mono0 + half);
	WRITE_ONCE(info->real_ns, real0 + half);
	WRITE_ONCE(info->err_ns, half);
	smp_wmb();	/* the fields before the even count */
	WRITE_ONCE(info->seq, info->seq + 1);
}

static void xrnic_clock_work(struct work_struct *work)
{
	struct xrnic_dev *xn = container_of(to_delayed_work(work),
					    struct xrnic_dev, clock_work);

	xrnic_clock_read(xn);
	schedule_delayed_work(&xn->clock_work, XRNIC_CLOCK_PERIOD);
}

/**
 * xrnic_clock_init - allocate the clock page and read the clock a first time
 * @xn: the device, its admin queue running
 *
 * Return: 0, -ENOMEM, or -EIO if the device does not answer QUERY_CLOCK.
 */
int xrnic_clock_init(struct xrnic_dev *xn)
{
	xn->clock = (struct xrnic_clock_info *)get_zeroed_page(GFP_KERNEL);
	if (!xn->clock)
		return -ENOMEM;
	xrnic_clock_read(xn);
	if (!xn->clock->seq) {
		free_page((unsigned long)xn->clock);
		xn->clock = NULL;
		return -EIO;
	}
	INIT_DELAYED_WORK(&xn->clock_work, xrnic_clock_work);
	schedule_delayed_work(&xn->clock_work, XRNIC_CLOCK_PERIOD);
	return 0;
}

/**
 * xrnic_clock_destroy - stop reading the clock and let the page go
 * @xn: the device, its admin queue still running
 *
 * Mappings that outlive this keep the page (and its last reading).
 */
void xrnic_clock_destroy(struct xrnic_dev *xn)
{
	cancel_delayed_work_sync(&xn->clock_work);
	free_page((unsigned long)xn->clock);
	xn->clock = NULL;
}
