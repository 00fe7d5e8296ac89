// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the Ethernet function.  Input: a little-endian u16
 * fill length and that many bytes copied over the rings, their doorbell
 * record and the buffers in guest RAM (descriptors and producer indexes
 * as a hostile driver writes them), then frames from the wire, each a
 * little-endian u16 length and its bytes, with a TX pass after each.  The
 * function is started through the admin queue; the target checks, besides
 * the sanitizers, that every frame put on the wire has a legal length and
 * came out of RAM, that every descriptor consumed is accounted for by a
 * counter, that every frame from the wire is either landed or counted as
 * dropped, and that a reset stops the function.
 */
#include <stdlib.h>
#include <string.h>

#include "xe.h"

#define FUZZ_RAM_SIZE	(64 * 1024)
#define FUZZ_AQ		0xc000u		/* 4 entries, then ACQ, AENQ */
#define FUZZ_ACQ	0xd000u
#define FUZZ_AENQ	0xe000u
#define FUZZ_TX		0x0000u		/* rings of 16 descriptors */
#define FUZZ_RX		0x1000u
#define FUZZ_DB		0x2000u
#define FUZZ_DEPTH	16

static unsigned long fuzz_sent;

static void fuzz_irq(struct xe_dev *xe, unsigned int vec)
{
	if (vec >= xe->id.num_vectors)
		abort();
}

static void fuzz_xmit(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	(void)xe;
	(void)frame;
	if (len < XRNIC_ETH_MIN_FRAME || len > XE_ETH_MAX_MTU + XRNIC_ETH_OVERHEAD)
		abort();
	fuzz_sent++;
}

static uint8_t fuzz_admin(struct xe_dev *xe, uint32_t *next, uint8_t opcode, const void *body)
{
	struct xrnic_aq_entry *e = (void *)(xe->mem.base + FUZZ_AQ + (*next % 4) * 64);
	struct xrnic_acq_entry *c = (void *)(xe->mem.base + FUZZ_ACQ + (*next % 4) * 64);

	memset(e, 0, sizeof(*e));
	e->opcode = opcode;
	if (body)
		memcpy(e->data, body, sizeof(e->data));
	e->flags = xrnic_entry_phase(*next, 4);
	++*next;
	xe_doorbell(xe, XRNIC_VEC_ADMIN);
	return c->status;
}

static uint64_t fuzz_tx_consumed(const struct xe_dev *xe)
{
	return xe->counters[XRNIC_CNT_ETH_TX_FRAMES] + xe->counters[XRNIC_CNT_ETH_TX_BAD_DESC] +
	       xe->counters[XRNIC_CNT_ETH_TX_LINK_DOWN];
}

static uint64_t fuzz_rx_accounted(const struct xe_dev *xe)
{
	return xe->counters[XRNIC_CNT_ETH_RX_FRAMES] + xe->counters[XRNIC_CNT_ETH_RX_TOO_SHORT] +
	       xe->counters[XRNIC_CNT_ETH_RX_TOO_LONG] + xe->counters[XRNIC_CNT_ETH_RX_NO_BUFFER];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *bar2, *ram;
	struct xrnic_cmd_start_eth start = {
		.tx_ring = htole64(FUZZ_TX), .rx_ring = htole64(FUZZ_RX),
		.db_addr = htole64(FUZZ_DB), .tx_depth = htole32(FUZZ_DEPTH),
		.rx_depth = htole32(FUZZ_DEPTH), .vector = htole16(3),
	};
	struct xe_dev xe = { .raise_irq = fuzz_irq, .eth_xmit = fuzz_xmit };
	uint32_t next = 0, tx_ci;
	uint64_t offered = 0;
	uint16_t v;
	size_t n;

	if (!bar2) {
		bar2 = aligned_alloc(XRNIC_PAGE_SIZE, XRNIC_BAR2_SIZE);
		ram = aligned_alloc(XRNIC_PAGE_SIZE, FUZZ_RAM_SIZE);
	}
	if (size < 2)
		return -1;
	memset(ram, 0, FUZZ_RAM_SIZE);
	xe.bar2 = bar2;
	xe.mem = (struct xe_guest_mem){ .base = ram, .size = FUZZ_RAM_SIZE };
	xe.id.num_vectors = 4;
	xe_dev_init(&xe);
	xe.poll_linger_ns = 0;
	fuzz_sent = 0;
	xe_reg_write(&xe, XRNIC_REG_AQ_BASE_LO, FUZZ_AQ);
	xe_reg_write(&xe, XRNIC_REG_ACQ_BASE_LO, FUZZ_ACQ);
	xe_reg_write(&xe, XRNIC_REG_AENQ_BASE_LO, FUZZ_AENQ);
	xe_reg_write(&xe, XRNIC_REG_AQ_DEPTH, 4);
	xe_reg_write(&xe, XRNIC_REG_AENQ_DEPTH, 4);
	xe_reg_write(&xe, XRNIC_REG_AQ_CTL, XRNIC_AQ_CTL_ENABLE);
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);
	if (fuzz_admin(&xe, &next, XRNIC_ADMIN_START_ETH, &start) != XRNIC_STATUS_OK)
		abort();

	memcpy(&v, data, 2);
	data += 2;
	size -= 2;
	n = le16toh(v) % (FUZZ_AQ + 1);		/* the admin rings stay intact */
	if (n > size)
		n = size;
	memcpy(ram, data, n);
	data += n;
	size -= n;
	while (size >= 2) {
		tx_ci = xe.eth.tx_ci;
		xe_doorbell(&xe, 3);
		while (xe_dev_poll(&xe) == 0)
			;
		if (fuzz_tx_consumed(&xe) != xe.eth.tx_ci || xe.eth.tx_ci - tx_ci > FUZZ_DEPTH ||
		    fuzz_sent != xe.counters[XRNIC_CNT_ETH_TX_FRAMES])
			abort();
		memcpy(&v, data, 2);
		n = le16toh(v);
		data += 2;
		size -= 2;
		if (n > size)
			n = size;
		xe_eth_rx(&xe, data, n);
		xe_eth_notify(&xe);
		offered++;
		if (fuzz_rx_accounted(&xe) != offered)
			abort();
		data += n;
		size -= n;
	}
	/* RX buffers may have landed on the admin rings: end with a reset. */
	xe_reg_write(&xe, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_doorbell(&xe, XRNIC_VEC_ADMIN);
	if (xe.eth.live)
		abort();
	xe_dev_fini(&xe);
	return 0;
}
