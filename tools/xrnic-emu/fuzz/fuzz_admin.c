// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the admin path.  Input: ten little-endian u32 register
 * values (AQ/ACQ/AENQ base lo/hi, AQ_DEPTH, AENQ_DEPTH, AQ_CTL, AENQ_CI),
 * then 64-byte AQ entries.  The device is reset, the registers written and
 * the admin doorbell rung; if that enabled the AQ, the entries are written
 * into the ring a lap at a time with a doorbell after each lap.  Finally the
 * AQ is disabled and the device reset.  Besides the sanitizers, the target
 * checks that a latched ring never reaches outside guest RAM.
 */
#include <stdlib.h>
#include <string.h>

#include "xe.h"

#define FUZZ_RAM_SIZE	(16 * 1024)	/* small: rings easily overrun it */

static const uint32_t fuzz_regs[] = {
	XRNIC_REG_AQ_BASE_LO, XRNIC_REG_AQ_BASE_HI, XRNIC_REG_ACQ_BASE_LO,
	XRNIC_REG_ACQ_BASE_HI, XRNIC_REG_AENQ_BASE_LO, XRNIC_REG_AENQ_BASE_HI,
	XRNIC_REG_AQ_DEPTH, XRNIC_REG_AENQ_DEPTH, XRNIC_REG_AQ_CTL, XRNIC_REG_AENQ_CI,
};

#define FUZZ_HDR_SIZE	(ARRAY_SIZE(fuzz_regs) * 4)

static void fuzz_irq(struct xe_dev *xe, unsigned int vec)
{
	if (vec != XRNIC_VEC_ADMIN)
		abort();
	++*(unsigned long *)xe->irq_ctx;
}

static void fuzz_check_ring(const struct xe_ring *r, size_t entry_size, const uint8_t *ram)
{
	uintptr_t start = (uintptr_t)r->host, end = (uintptr_t)ram + FUZZ_RAM_SIZE;

	if (start < (uintptr_t)ram || start > end || r->depth * entry_size > end - start)
		abort();
}

static void fuzz_reset(struct xe_dev *xe)
{
	xe_reg_write(xe, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_doorbell(xe, XRNIC_VEC_ADMIN);
	if (xe_reg_read(xe, XRNIC_REG_DEV_CTL) || xe->sts != XRNIC_DEV_STS_READY)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *bar2, *ram;
	static unsigned long irqs;
	struct xe_dev xe = { .raise_irq = fuzz_irq, .irq_ctx = &irqs };
	size_t i, n;
	uint32_t v;

	if (!bar2) {
		bar2 = aligned_alloc(XRNIC_PAGE_SIZE, XRNIC_BAR2_SIZE);
		ram = aligned_alloc(XRNIC_PAGE_SIZE, FUZZ_RAM_SIZE);
	}
	if (size < FUZZ_HDR_SIZE)
		return -1;
	memset(ram, 0, FUZZ_RAM_SIZE);
	xe.bar2 = bar2;
	xe.mem = (struct xe_guest_mem){ .base = ram, .size = FUZZ_RAM_SIZE };
	xe.id.num_vectors = 4;
	xe_dev_init(&xe);
	fuzz_reset(&xe);

	for (i = 0; i < ARRAY_SIZE(fuzz_regs); i++) {
		memcpy(&v, data + 4 * i, 4);
		xe_reg_write(&xe, fuzz_regs[i], le32toh(v));
	}
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);
	data += FUZZ_HDR_SIZE;
	size -= FUZZ_HDR_SIZE;

	if (xe.aq_enabled) {
		fuzz_check_ring(&xe.aq, XRNIC_AQ_ENTRY_SIZE, ram);
		fuzz_check_ring(&xe.acq, XRNIC_ACQ_ENTRY_SIZE, ram);
		fuzz_check_ring(&xe.aenq, XRNIC_AENQ_ENTRY_SIZE, ram);
		for (n = 0; n < size / XRNIC_AQ_ENTRY_SIZE; n++) {
			memcpy(xe.aq.host + (n & (xe.aq.depth - 1)) * XRNIC_AQ_ENTRY_SIZE,
			       data + n * XRNIC_AQ_ENTRY_SIZE, XRNIC_AQ_ENTRY_SIZE);
			if ((n & (xe.aq.depth - 1)) == xe.aq.depth - 1)
				xe_doorbell(&xe, XRNIC_VEC_ADMIN);
		}
		xe_doorbell(&xe, XRNIC_VEC_ADMIN);
		/* Not aq_ci <= n: completions may land in an overlapping AQ. */
		if (xe.acq_pi != xe.aq_ci)
			abort();
	}
	xe_reg_write(&xe, XRNIC_REG_AQ_CTL, 0);
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);
	if (xe.aq_enabled)
		abort();
	fuzz_reset(&xe);
	return 0;
}
