/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for <linux/types.h>: the kernel's type names over the uapi ones. */
#ifndef CM_SHIM_TYPES_H
#define CM_SHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef u64 dma_addr_t;
typedef u64 phys_addr_t;
typedef unsigned int gfp_t;

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

struct list_head {
	struct list_head *next, *prev;
};

#define __user

#endif
