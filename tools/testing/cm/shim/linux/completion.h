/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/completion.h>: the type, for struct xr_device. */
#ifndef CM_SHIM_COMPLETION_H
#define CM_SHIM_COMPLETION_H

struct completion {
	unsigned int done;
};

#endif
