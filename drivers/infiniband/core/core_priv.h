/* SPDX-License-Identifier: GPL-2.0 */
/* xrdma_core internals shared between its files. */
#ifndef XR_CORE_PRIV_H
#define XR_CORE_PRIV_H

#include <xrdma/xr_core.h>

extern struct class xr_class;
extern const struct attribute_group *xr_dev_groups[];

int xr_device_init(void);
void xr_device_exit(void);

int xr_add_port_sysfs(struct xr_device *xdev);
void xr_remove_port_sysfs(struct xr_device *xdev);

#endif /* XR_CORE_PRIV_H */
