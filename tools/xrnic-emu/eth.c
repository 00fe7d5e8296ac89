// SPDX-License-Identifier: GPL-2.0
/*
 * The Ethernet function: the TX and RX descriptor rings of START_ETH
 * (struct xrnic_eth_desc).  TX frames go to the port's wire through
 * xe_dev.eth_xmit; frames from the wire land in RX buffers.  Every
 * descriptor is copied before it is checked; a bad one is completed with
 * XRNIC_ETH_ERR (TX) or skipped (RX) and counted, never followed.
 */
#include "xe.h"

/* TX descriptors one pass takes, so that the QPs get their turn. */
#define XE_ETH_TX_BUDGET	64

static bool xe_eth_ring_ok(uint64_t ring, uint32_t depth)
{
	return !(ring % XRNIC_RING_ALIGN) && xe_is_pow2(depth) &&
	       depth >= XRNIC_MIN_RING_DEPTH && depth <= XRNIC_MAX_ETH_DEPTH;
}

uint8_t xe_cmd_start_eth(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			 struct xrnic_acq_entry *cpl)
{
	const struct xrnic_cmd_start_eth *c = &cmd->start_eth;
	uint64_t tx = le64toh(c->tx_ring), rx = le64toh(c->rx_ring), db = le64toh(c->db_addr);
	uint32_t tx_depth = le32toh(c->tx_depth), rx_depth = le32toh(c->rx_depth);
	uint16_t vector = le16toh(c->vector);
	uint8_t *tx_host, *rx_host, *db_host;

	(void)cpl;
	if (!xe_all_zero(c->reserved, sizeof(c->reserved)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, NULL);
	if (!xe_eth_ring_ok(tx, tx_depth) || !xe_eth_ring_ok(rx, rx_depth))
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM,
			       "ring misaligned or depth not a power of two in 2..4096");
	if (db % XRNIC_DB_RECORD_SIZE)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "db_addr misaligned");
	if (vector >= xe->id.num_vectors)
		return xe_fail(xe, XRNIC_STATUS_BAD_PARAM, "no such vector");
	tx_host = xe_gm_ptr(&xe->mem, tx, (uint64_t)tx_depth * XRNIC_ETH_DESC_SIZE);
	rx_host = xe_gm_ptr(&xe->mem, rx, (uint64_t)rx_depth * XRNIC_ETH_DESC_SIZE);
	db_host = xe_gm_ptr(&xe->mem, db, XRNIC_DB_RECORD_SIZE);
	if (!tx_host || !rx_host || !db_host)
		return xe_fail(xe, XRNIC_STATUS_BAD_ADDRESS, "ring or db_addr outside guest RAM");
	if (xe->eth.live)
		return xe_fail(xe, XRNIC_STATUS_BUSY, "the Ethernet function is running");
	xe->eth = (struct xe_eth){
		.live = true,
		.tx = (struct xrnic_eth_desc *)tx_host,
		.rx = (struct xrnic_eth_desc *)rx_host,
		.tx_depth = tx_depth,
		.rx_depth = rx_depth,
		.db = (struct xrnic_eth_db *)db_host,
		.vector = vector,
	};
	xe->work = true;
	return XRNIC_STATUS_OK;
}

uint8_t xe_cmd_stop_eth(struct xe_dev *xe, const struct xrnic_aq_entry *cmd,
			struct xrnic_acq_entry *cpl)
{
	(void)cpl;
	if (!xe_all_zero(cmd->data, sizeof(cmd->data)))
		return xe_fail(xe, XRNIC_STATUS_MALFORMED, "STOP_ETH takes no parameters");
	if (!xe->eth.live)
		return xe_fail(xe, XRNIC_STATUS_NOT_FOUND, "the Ethernet function is stopped");
	xe->eth = (struct xe_eth){ };
	return XRNIC_STATUS_OK;
}

void xe_eth_drop_all(struct xe_dev *xe)
{
	xe->eth = (struct xe_eth){ };
}

/* Hand a descriptor back: frame_len first, then status (release). */
static void xe_eth_complete(struct xe_eth *eth, struct xrnic_eth_desc *d, uint16_t frame_len,
			    uint8_t status)
{
	d->frame_len = htole16(frame_len);
	__atomic_store_n(&d->status, status, __ATOMIC_RELEASE);
	eth->completed = true;
}

/* The driver's producer index, or the consumer's own when it is not sane. */
static uint32_t xe_eth_pi(struct xe_dev *xe, const __le32 *pi, uint32_t ci, uint32_t depth,
			  const char *ring)
{
	uint32_t v = le32toh(__atomic_load_n(pi, __ATOMIC_ACQUIRE));

	if (v - ci <= depth)
		return v;
	if (!xe->eth.bad_pi) {
		xe->eth.bad_pi = true;
		xe_log(xe, "Ethernet %s producer index %u is more than %u ahead of %u: ignored",
		       ring, v, depth, ci);
	}
	return ci;
}

static void xe_eth_send(struct xe_dev *xe, const uint8_t *frame, uint32_t len)
{
	uint8_t padded[XRNIC_ETH_MIN_FRAME] = { };

	if (xe->link_down) {
		xe->counters[XRNIC_CNT_ETH_TX_LINK_DOWN]++;
		return;
	}
	if (len < XRNIC_ETH_MIN_FRAME) {
		memcpy(padded, frame, len);
		frame = padded;
		len = XRNIC_ETH_MIN_FRAME;
	}
	xe->counters[XRNIC_CNT_ETH_TX_FRAMES]++;
	xe->counters[XRNIC_CNT_ETH_TX_BYTES] += len;
	if (xe->eth_xmit)
		xe->eth_xmit(xe, frame, len);
}

bool xe_eth_tx(struct xe_dev *xe)
{
	struct xe_eth *eth = &xe->eth;
	struct xrnic_eth_desc d, *slot;
	uint32_t pi, done, len;
	uint8_t *frame;

	/* A paused port (lossless mode): the frames wait in the ring. */
	if (!eth->live || xe->tx_paused)
		return false;
	pi = xe_eth_pi(xe, &eth->db->tx_pi, eth->tx_ci, eth->tx_depth, "TX");
	for (done = 0; eth->tx_ci != pi && done < XE_ETH_TX_BUDGET; done++, eth->tx_ci++) {
		slot = &eth->tx[eth->tx_ci & (eth->tx_depth - 1)];
		memcpy(&d, slot, sizeof(d));
		len = le16toh(d.buf_len);
		frame = xe_gm_ptr(&xe->mem, le64toh(d.addr), len);
		if (len < XRNIC_ETH_HLEN || len > XE_ETH_MAX_MTU + XRNIC_ETH_OVERHEAD || !frame) {
			xe->counters[XRNIC_CNT_ETH_TX_BAD_DESC]++;
			xe_eth_complete(eth, slot, 0, XRNIC_ETH_DONE | XRNIC_ETH_ERR);
			continue;
		}
		xe_eth_send(xe, frame, len);
		xe_eth_complete(eth, slot, 0, XRNIC_ETH_DONE);
	}
	if (eth->tx_ci != pi)
		xe->work = true;
	return done;
}

/*
 * The next usable RX buffer for a frame of len bytes, or NULL (counted).
 * Descriptors too small to hold a minimum frame or outside RAM are
 * completed with an error and skipped.
 */
static struct xrnic_eth_desc *xe_eth_rx_buf(struct xe_dev *xe, uint32_t len, uint8_t **buf)
{
	struct xe_eth *eth = &xe->eth;
	struct xrnic_eth_desc d, *slot;
	uint32_t pi = xe_eth_pi(xe, &eth->db->rx_pi, eth->rx_ci, eth->rx_depth, "RX");
	uint32_t buf_len;

	for (; eth->rx_ci != pi; eth->rx_ci++) {
		slot = &eth->rx[eth->rx_ci & (eth->rx_depth - 1)];
		memcpy(&d, slot, sizeof(d));
		buf_len = le16toh(d.buf_len);
		*buf = xe_gm_ptr(&xe->mem, le64toh(d.addr), buf_len);
		if (buf_len < XRNIC_ETH_MIN_FRAME || !*buf) {
			xe->counters[XRNIC_CNT_ETH_RX_BAD_DESC]++;
			xe_eth_complete(eth, slot, 0, XRNIC_ETH_DONE | XRNIC_ETH_ERR);
			continue;
		}
		if (len > buf_len) {
			xe->counters[XRNIC_CNT_ETH_RX_TOO_LONG]++;
			return NULL;
		}
		return slot;
	}
	xe->counters[XRNIC_CNT_ETH_RX_NO_BUFFER]++;
	return NULL;
}

void xe_eth_rx(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	struct xrnic_eth_desc *slot;
	uint32_t landed;
	uint8_t *buf;

	/* A stopped function receives nothing (xe_port_receive() checked the link). */
	if (!xe->eth.live)
		return;
	if (len < XRNIC_ETH_HLEN) {
		xe->counters[XRNIC_CNT_ETH_RX_TOO_SHORT]++;
		return;
	}
	landed = len < XRNIC_ETH_MIN_FRAME ? XRNIC_ETH_MIN_FRAME : len;
	slot = xe_eth_rx_buf(xe, landed, &buf);
	if (!slot)
		return;
	memcpy(buf, frame, len);
	memset(buf + len, 0, landed - len);
	xe->eth.rx_ci++;
	xe->counters[XRNIC_CNT_ETH_RX_FRAMES]++;
	xe->counters[XRNIC_CNT_ETH_RX_BYTES] += landed;
	xe_eth_complete(&xe->eth, slot, landed, XRNIC_ETH_DONE);
}

void xe_eth_notify(struct xe_dev *xe)
{
	struct xe_eth *eth = &xe->eth;
	uint32_t arm;

	if (!eth->live || !eth->completed)
		return;
	eth->completed = false;
	/* The descriptors' status before the arm word is read. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	arm = le32toh(__atomic_load_n(&eth->db->arm, __ATOMIC_RELAXED));
	if (arm == eth->answered_arm)
		return;
	eth->answered_arm = arm;
	xe->raise_irq(xe, eth->vector);
}
