/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's parts that serve every device (uverbs, IB CM, the RDMA CM),
 * as Linux's struct ib_client: device.c calls them, never by name.
 */
#ifndef XR_CLIENT_H
#define XR_CLIENT_H

#include <linux/types.h>

struct xr_device;

/**
 * struct xr_client - a part of the core that serves every device
 * @name: what it is, for messages
 * @add: optional; a device is being registered: take it up; an errno
 *	fails the registration
 * @remove: optional; a device is being unregistered: let go of it.
 *	Called in the reverse order of registration, before the core waits
 *	for the device's last user; no @event comes any more.
 * @event: optional; a port went up or down (XR_EVENT_PORT_ACTIVE,
 *	XR_EVENT_PORT_ERR, @port from 1) or the device died
 *	(XR_EVENT_DEVICE_FATAL, @port 0); only between the device's
 *	registration and its unregistration
 * @list: on device.c's list of clients
 */
struct xr_client {
	const char *name;
	int (*add)(struct xr_device *xdev);
	void (*remove)(struct xr_device *xdev);
	void (*event)(struct xr_device *xdev, u32 port, u32 event_type);
	struct list_head list;
};

int xr_register_client(struct xr_client *client);
void xr_unregister_client(struct xr_client *client);

#endif /* XR_CLIENT_H */
