/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/random.h>: repeatable (host_random_seed()). */
#ifndef CM_SHIM_RANDOM_H
#define CM_SHIM_RANDOM_H

#include <linux/types.h>

u32 get_random_u32(void);

#endif
