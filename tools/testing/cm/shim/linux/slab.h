/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/slab.h>: counted, and failing on request (host.h). */
#ifndef CM_SHIM_SLAB_H
#define CM_SHIM_SLAB_H

#include <linux/types.h>

#define GFP_KERNEL	0u

void *kzalloc(size_t size, gfp_t gfp);
void kfree(const void *p);

#endif
