/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/netdevice.h>: the types xrdma/xr_core.h names. */
#ifndef CM_SHIM_NETDEVICE_H
#define CM_SHIM_NETDEVICE_H

struct net_device;

typedef struct {
	void *tracker;
} netdevice_tracker;

#endif
