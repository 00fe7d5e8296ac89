/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/device.h>: the type, for struct xr_device. */
#ifndef CM_SHIM_DEVICE_H
#define CM_SHIM_DEVICE_H

struct device {
	const char *init_name;
};

#endif
