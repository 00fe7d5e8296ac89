/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/bits.h>. */
#ifndef CM_SHIM_BITS_H
#define CM_SHIM_BITS_H

#define BIT(nr)	(1UL << (nr))

#endif
