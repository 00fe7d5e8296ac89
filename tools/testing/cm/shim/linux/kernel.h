/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for what <linux/kernel.h> brings in: container_of(), the
 * min/max helpers, __aligned(), READ_ONCE(), WRITE_ONCE(), fallthrough, byte order, ERR_PTR() and friends, errno
 * values, the string functions.
 */
#ifndef CM_SHIM_KERNEL_H
#define CM_SHIM_KERNEL_H

#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <linux/types.h>

#ifndef ARRAY_SIZE	/* kselftest.h has one */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define min(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b)	({ t _a = (a); t _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b)	({ t _a = (a); t _b = (b); _a > _b ? _a : _b; })

#define __aligned(n)	__attribute__((aligned(n)))
#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#define fallthrough	__attribute__((__fallthrough__))

#define cpu_to_be16(x)	((__be16)htobe16(x))
#define cpu_to_be32(x)	((__be32)htobe32(x))
#define cpu_to_be64(x)	((__be64)htobe64(x))
#define be16_to_cpu(x)	((u16)be16toh(x))
#define be32_to_cpu(x)	((u32)be32toh(x))
#define be64_to_cpu(x)	((u64)be64toh(x))

#define MAX_ERRNO	4095

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return (unsigned long)ptr >= (unsigned long)-MAX_ERRNO;
}

static inline int PTR_ERR_OR_ZERO(const void *ptr)
{
	return IS_ERR(ptr) ? PTR_ERR(ptr) : 0;
}

#endif
