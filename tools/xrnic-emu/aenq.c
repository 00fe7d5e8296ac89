// SPDX-License-Identifier: GPL-2.0
/* Asynchronous event notification queue. */
#include <stddef.h>
#include <string.h>

#include "xe.h"

void xe_aenq_post(struct xe_dev *xe, uint16_t event, uint32_t param, uint64_t data)
{
	struct xrnic_aenq_entry ev = {
		.event = htole16(event),
		.param = htole32(param),
		.data = htole64(data),
	};
	uint32_t depth = xe->aenq.depth;
	size_t flags = offsetof(struct xrnic_aenq_entry, flags);
	const uint8_t *src = (const uint8_t *)&ev;
	uint8_t *dst;

	/* Unsigned arithmetic: a bogus AENQ_CI (ahead of us) reads as full. */
	if (xe->aenq_pi - xe_reg_read(xe, XRNIC_REG_AENQ_CI) >= depth) {
		xe_reg_write(xe, XRNIC_REG_AENQ_DROPPED, ++xe->aenq_dropped);
		return;
	}
	dst = xe->aenq.host + (size_t)(xe->aenq_pi & (depth - 1)) * XRNIC_AENQ_ENTRY_SIZE;
	memcpy(dst, src, flags);
	memcpy(dst + flags + 1, src + flags + 1, sizeof(ev) - flags - 1);
	__atomic_store_n(dst + flags, xrnic_entry_phase(xe->aenq_pi, depth), __ATOMIC_RELEASE);
	xe->aenq_pi++;
	if (xe_reg_read(xe, XRNIC_REG_AQ_CTL) & XRNIC_AQ_CTL_AENQ_IRQ)
		xe->raise_irq(xe, XRNIC_VEC_ADMIN);
}
