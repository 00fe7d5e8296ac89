/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/rwsem.h>: the type, for struct xr_device. */
#ifndef CM_SHIM_RWSEM_H
#define CM_SHIM_RWSEM_H

struct rw_semaphore {
	unsigned int count;
};

#endif
