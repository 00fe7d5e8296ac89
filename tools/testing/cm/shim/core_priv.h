/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's stand-in for drivers/infiniband/core/core_priv.h, which a copy
 * of cm.c finds (the Makefile's -iquote): the kernel APIs cm.c uses
 * (linux/ here), the real xrdma/xr_core.h and cm.h, and what else of
 * core_priv.h cm.c calls.  The fakes (fake.c) define what cm.h declares of
 * mad.c, and device.c's xr_device_put() and client list.
 */
#ifndef XR_CORE_PRIV_H
#define XR_CORE_PRIV_H

#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <xrdma/xr_core.h>

#include "client.h"
#include "cm.h"

/* device.c */
void xr_device_put(struct xr_device *xdev);

#endif /* XR_CORE_PRIV_H */
