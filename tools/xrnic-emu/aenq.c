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

	/* Unsigned arithmetic: a bogus AENQ_CI (ahead of us) reads as full. */
	if (xe->aenq_pi - xe_reg_read(xe, XRNIC_REG_AENQ_CI) >= depth) {
		xe_reg_write(xe, XRNIC_REG_AENQ_DROPPED, ++xe->aenq_dropped);
		return;
	}
	ev.flags = xrnic_entry_phase(xe->aenq_pi, depth);
	xe_ring_publish(xe->aenq.host + (size_t)(xe->aenq_pi & (depth - 1)) * XRNIC_AENQ_ENTRY_SIZE,
			&ev, sizeof(ev), offsetof(struct xrnic_aenq_entry, flags));
	xe->aenq_pi++;
	if (xe_reg_read(xe, XRNIC_REG_AQ_CTL) & XRNIC_AQ_CTL_AENQ_IRQ)
		xe->raise_irq(xe, XRNIC_VEC_ADMIN);
}
