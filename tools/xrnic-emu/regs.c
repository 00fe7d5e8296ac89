// SPDX-License-Identifier: GPL-2.0
/* The BAR2 register block: 32-bit little-endian registers, read and written. */

#include "xe.h"

static uint32_t *xe_reg(const struct xe_dev *xe, uint32_t off)
{
	return (uint32_t *)(xe->bar2 + XRNIC_BAR2_REGS_OFF + off);
}

uint32_t xe_reg_read(const struct xe_dev *xe, uint32_t off)
{
	return le32toh(__atomic_load_n(xe_reg(xe, off), __ATOMIC_ACQUIRE));
}

void xe_reg_write(struct xe_dev *xe, uint32_t off, uint32_t val)
{
	__atomic_store_n(xe_reg(xe, off), htole32(val), __ATOMIC_RELEASE);
}

uint64_t xe_reg_read64(const struct xe_dev *xe, uint32_t lo)
{
	return xe_reg_read(xe, lo) | (uint64_t)xe_reg_read(xe, lo + 4) << 32;
}


/* Clear bits of a register the driver also writes, without losing its bits. */
void xe_reg_clear(struct xe_dev *xe, uint32_t off, uint32_t bits)
{
	__atomic_fetch_and(xe_reg(xe, off), htole32(~bits), __ATOMIC_RELEASE);
}
