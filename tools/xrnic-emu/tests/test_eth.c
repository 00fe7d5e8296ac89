// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the Ethernet function: START_ETH and STOP_ETH, TX and RX
 * descriptors written into fake guest RAM as the driver writes them, the
 * frames the device puts on its wire, the drops it counts and the
 * interrupt arm word.  No VM.
 */
#include "xe_fixture.h"

#define TX_GPA		0x40000ull
#define RX_GPA		0x41000ull
#define DB_GPA		0x42000ull
#define STATS_GPA	0x43000ull
#define TXBUF_GPA	0x50000ull	/* DEPTH frames of BUF bytes */
#define RXBUF_GPA	0x80000ull
#define DEPTH		8
#define BUF		0x3000
#define VEC		3

/* What the device put on its wire: the frames' lengths and first bytes. */
struct wire {
	unsigned int frames;
	size_t len[64];
	uint8_t first[64][64];
};

static struct wire sent;

static void capture(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	(void)xe;
	if (sent.frames < 64) {
		sent.len[sent.frames] = len;
		memcpy(sent.first[sent.frames], frame, len < 64 ? len : 64);
	}
	sent.frames++;
}

static struct xrnic_eth_desc *tx_desc(struct _test_data_dev *self, uint32_t i)
{
	return (void *)(self->xe.mem.base + TX_GPA + (i % DEPTH) * XRNIC_ETH_DESC_SIZE);
}

static struct xrnic_eth_desc *rx_desc(struct _test_data_dev *self, uint32_t i)
{
	return (void *)(self->xe.mem.base + RX_GPA + (i % DEPTH) * XRNIC_ETH_DESC_SIZE);
}

static struct xrnic_eth_db *eth_db(struct _test_data_dev *self)
{
	return (void *)(self->xe.mem.base + DB_GPA);
}

static struct xrnic_cmd_start_eth start_cmd(void)
{
	return (struct xrnic_cmd_start_eth){
		.tx_ring = htole64(TX_GPA), .rx_ring = htole64(RX_GPA),
		.db_addr = htole64(DB_GPA), .tx_depth = htole32(DEPTH),
		.rx_depth = htole32(DEPTH), .vector = htole16(VEC),
	};
}

/* An admin queue, the wire captured, the Ethernet function armed: START_ETH's status. */
static uint8_t eth_start(struct _test_data_dev *self)
{
	struct xrnic_cmd_start_eth c = start_cmd();

	start(self);
	memset(&sent, 0, sizeof(sent));
	self->xe.eth_xmit = capture;
	self->xe.poll_linger_ns = 0;
	eth_db(self)->arm = htole32(1);
	return admin(self, XRNIC_ADMIN_START_ETH, &c, NULL);
}

static void run(struct _test_data_dev *self)
{
	xe_doorbell(&self->xe, VEC);
	while (xe_dev_poll(&self->xe) == 0)
		;
}

/* Queue a TX frame of len bytes at addr (its bytes: index + i); no doorbell. */
static void put_tx(struct _test_data_dev *self, uint64_t addr, uint32_t len)
{
	struct xrnic_eth_db *db = eth_db(self);
	uint32_t pi = le32toh(db->tx_pi), i;
	struct xrnic_eth_desc *d = tx_desc(self, pi);

	if (addr + len <= RAM_SIZE)
		for (i = 0; i < len; i++)
			self->xe.mem.base[addr + i] = (uint8_t)(pi + i);
	*d = (struct xrnic_eth_desc){ .addr = htole64(addr), .buf_len = htole16(len) };
	db->tx_pi = htole32(pi + 1);
}

static void post_rx(struct _test_data_dev *self, uint32_t n, uint32_t buf_len)
{
	struct xrnic_eth_db *db = eth_db(self);
	uint32_t pi = le32toh(db->rx_pi), i;

	for (i = 0; i < n; i++, pi++)
		*rx_desc(self, pi) = (struct xrnic_eth_desc){
			.addr = htole64(RXBUF_GPA + (pi % DEPTH) * BUF), .buf_len = htole16(buf_len),
		};
	db->rx_pi = htole32(pi);
}

static uint64_t counter(struct _test_data_dev *self, enum xrnic_counter c)
{
	struct xrnic_cmd_query_stats q = { .buf_addr = htole64(STATS_GPA) };

	if (admin(self, XRNIC_ADMIN_QUERY_STATS, &q, NULL))
		return ~0ull;
	return le64toh(((uint64_t *)(self->xe.mem.base + STATS_GPA))[c]);
}

static void frame_of(uint8_t *f, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		f[i] = (uint8_t)(seed + i);
}

TEST_F(dev, start_eth_checks_rings_vector_and_reserved_bytes)
{
	struct xrnic_cmd_start_eth c;

	start(self);
	c = start_cmd();
	c.reserved[21] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	c = start_cmd();
	c.tx_depth = htole32(6);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	c = start_cmd();
	c.rx_depth = htole32(8192);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	c = start_cmd();
	c.rx_ring = htole64(RX_GPA + 16);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	c = start_cmd();
	c.db_addr = htole64(DB_GPA + 8);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	c = start_cmd();
	c.vector = htole16(4);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	c = start_cmd();
	c.tx_ring = htole64(RAM_SIZE);
	EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	EXPECT_FALSE(self->xe.eth.live);

	c = start_cmd();
	EXPECT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	EXPECT_EQ(XRNIC_STATUS_BUSY, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_STOP_ETH, &c, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_STOP_ETH, NULL, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, admin(self, XRNIC_ADMIN_STOP_ETH, NULL, NULL));
}

TEST_F(dev, query_port_reports_the_ethernet_mtu)
{
	struct xrnic_cmd_query_port q = { .port_num = 1 };
	struct xrnic_resp_query_port r;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_QUERY_PORT, &q, &r));
	EXPECT_EQ(XE_ETH_MAX_MTU, le16toh(r.eth_max_mtu));
}

TEST_F(dev, tx_frames_go_on_the_wire_in_order_short_ones_padded)
{
	unsigned int i;

	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	put_tx(self, TXBUF_GPA, 1514);
	put_tx(self, TXBUF_GPA + BUF, 14);
	put_tx(self, TXBUF_GPA + 2 * BUF, XE_ETH_MAX_MTU + XRNIC_ETH_OVERHEAD);
	run(self);
	ASSERT_EQ(3, sent.frames);
	EXPECT_EQ(1514, sent.len[0]);
	EXPECT_EQ(XRNIC_ETH_MIN_FRAME, sent.len[1]);
	EXPECT_EQ(XE_ETH_MAX_MTU + XRNIC_ETH_OVERHEAD, sent.len[2]);
	for (i = 0; i < 14; i++)
		EXPECT_EQ((uint8_t)(1 + i), sent.first[1][i]);
	for (i = 14; i < XRNIC_ETH_MIN_FRAME; i++)
		EXPECT_EQ(0, sent.first[1][i]);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(XRNIC_ETH_DONE, tx_desc(self, i)->status);
	EXPECT_EQ(3, counter(self, XRNIC_CNT_ETH_TX_FRAMES));
	EXPECT_EQ(1514 + 60 + 9018, counter(self, XRNIC_CNT_ETH_TX_BYTES));
	EXPECT_EQ(1, self->irqs[VEC]);
}

TEST_F(dev, bad_tx_descriptors_complete_with_an_error_and_are_not_sent)
{
	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	put_tx(self, TXBUF_GPA, XRNIC_ETH_HLEN - 1);
	put_tx(self, TXBUF_GPA, XE_ETH_MAX_MTU + XRNIC_ETH_OVERHEAD + 1);
	put_tx(self, RAM_SIZE - 100, 200);
	put_tx(self, TXBUF_GPA, 100);
	run(self);
	ASSERT_EQ(1, sent.frames);
	EXPECT_EQ(100, sent.len[0]);
	EXPECT_EQ(XRNIC_ETH_DONE | XRNIC_ETH_ERR, tx_desc(self, 0)->status);
	EXPECT_EQ(XRNIC_ETH_DONE | XRNIC_ETH_ERR, tx_desc(self, 1)->status);
	EXPECT_EQ(XRNIC_ETH_DONE | XRNIC_ETH_ERR, tx_desc(self, 2)->status);
	EXPECT_EQ(XRNIC_ETH_DONE, tx_desc(self, 3)->status);
	EXPECT_EQ(3, counter(self, XRNIC_CNT_ETH_TX_BAD_DESC));
}

TEST_F(dev, a_producer_index_more_than_a_ring_ahead_is_ignored_and_logged)
{
	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	eth_db(self)->tx_pi = htole32(DEPTH + 1);
	eth_db(self)->rx_pi = htole32(1000);
	run(self);
	EXPECT_EQ(0, sent.frames);
	EXPECT_EQ(0, self->xe.eth.tx_ci);
	fflush(self->xe.log);
	EXPECT_NE(NULL, strstr(self->logbuf, "TX producer index"));
	eth_db(self)->tx_pi = htole32(0);
	put_tx(self, TXBUF_GPA, 64);
	run(self);
	EXPECT_EQ(1, sent.frames);
}

TEST_F(dev, rx_frames_land_in_posted_buffers_short_ones_padded)
{
	uint8_t f[2000], *buf = self->xe.mem.base + RXBUF_GPA;

	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	post_rx(self, 2, 1600);
	frame_of(f, sizeof(f), 7);
	xe_port_receive(&self->xe, f, 1514);
	xe_port_receive(&self->xe, f, 20);
	xe_eth_notify(&self->xe);
	EXPECT_EQ(XRNIC_ETH_DONE, rx_desc(self, 0)->status);
	EXPECT_EQ(1514, le16toh(rx_desc(self, 0)->frame_len));
	EXPECT_EQ(0, memcmp(buf, f, 1514));
	EXPECT_EQ(XRNIC_ETH_DONE, rx_desc(self, 1)->status);
	EXPECT_EQ(XRNIC_ETH_MIN_FRAME, le16toh(rx_desc(self, 1)->frame_len));
	EXPECT_EQ(0, memcmp(buf + BUF, f, 20));
	EXPECT_TRUE(xe_all_zero(buf + BUF + 20, XRNIC_ETH_MIN_FRAME - 20));
	EXPECT_EQ(2, counter(self, XRNIC_CNT_ETH_RX_FRAMES));
	EXPECT_EQ(1514 + 60, counter(self, XRNIC_CNT_ETH_RX_BYTES));
	EXPECT_EQ(1, self->irqs[VEC]);
}

TEST_F(dev, rx_frames_too_short_or_too_long_are_dropped_and_counted)
{
	uint8_t f[2000];

	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	post_rx(self, 1, 1518);
	frame_of(f, sizeof(f), 1);
	xe_port_receive(&self->xe, f, XRNIC_ETH_HLEN - 1);
	xe_port_receive(&self->xe, f, 1519);
	EXPECT_EQ(0, rx_desc(self, 0)->status);
	EXPECT_EQ(1, counter(self, XRNIC_CNT_ETH_RX_TOO_SHORT));
	EXPECT_EQ(1, counter(self, XRNIC_CNT_ETH_RX_TOO_LONG));
	/* The buffer stayed posted. */
	xe_port_receive(&self->xe, f, 1518);
	EXPECT_EQ(XRNIC_ETH_DONE, rx_desc(self, 0)->status);
	EXPECT_EQ(1518, le16toh(rx_desc(self, 0)->frame_len));
}

TEST_F(dev, a_full_rx_ring_drops_and_counts_then_recovers)
{
	uint8_t f[100];
	unsigned int i;

	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	frame_of(f, sizeof(f), 3);
	xe_port_receive(&self->xe, f, sizeof(f));
	post_rx(self, DEPTH, 1518);
	for (i = 0; i < DEPTH + 3; i++)
		xe_port_receive(&self->xe, f, sizeof(f));
	EXPECT_EQ(DEPTH, counter(self, XRNIC_CNT_ETH_RX_FRAMES));
	EXPECT_EQ(4, counter(self, XRNIC_CNT_ETH_RX_NO_BUFFER));
	/* The driver takes the frames and posts the buffers again. */
	post_rx(self, 2, 1518);
	xe_port_receive(&self->xe, f, sizeof(f));
	EXPECT_EQ(DEPTH + 1, counter(self, XRNIC_CNT_ETH_RX_FRAMES));
	EXPECT_EQ(XRNIC_ETH_DONE, rx_desc(self, DEPTH)->status);
}

TEST_F(dev, bad_rx_descriptors_are_skipped_with_an_error)
{
	uint8_t f[100];

	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	post_rx(self, 3, 1518);
	rx_desc(self, 0)->buf_len = htole16(XRNIC_ETH_MIN_FRAME - 1);
	rx_desc(self, 1)->addr = htole64(RAM_SIZE - 64);
	frame_of(f, sizeof(f), 9);
	xe_port_receive(&self->xe, f, sizeof(f));
	EXPECT_EQ(XRNIC_ETH_DONE | XRNIC_ETH_ERR, rx_desc(self, 0)->status);
	EXPECT_EQ(XRNIC_ETH_DONE | XRNIC_ETH_ERR, rx_desc(self, 1)->status);
	EXPECT_EQ(XRNIC_ETH_DONE, rx_desc(self, 2)->status);
	EXPECT_EQ(0, memcmp(self->xe.mem.base + RXBUF_GPA + 2 * BUF, f, sizeof(f)));
	EXPECT_EQ(2, counter(self, XRNIC_CNT_ETH_RX_BAD_DESC));
}

TEST_F(dev, a_downed_link_drops_tx_counted_and_receives_nothing)
{
	uint8_t f[100] = { };

	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	post_rx(self, 1, 1518);
	xe_port_set_link(&self->xe, false);
	put_tx(self, TXBUF_GPA, 100);
	run(self);
	xe_port_receive(&self->xe, f, sizeof(f));
	EXPECT_EQ(0, sent.frames);
	EXPECT_EQ(XRNIC_ETH_DONE, tx_desc(self, 0)->status);
	EXPECT_EQ(0, rx_desc(self, 0)->status);
	EXPECT_EQ(1, counter(self, XRNIC_CNT_ETH_TX_LINK_DOWN));
	xe_port_set_link(&self->xe, true);
	put_tx(self, TXBUF_GPA, 100);
	run(self);
	xe_port_receive(&self->xe, f, sizeof(f));
	EXPECT_EQ(1, sent.frames);
	EXPECT_EQ(XRNIC_ETH_DONE, rx_desc(self, 0)->status);
}

TEST_F(dev, the_vector_is_raised_once_per_arm_value)
{
	uint8_t f[100] = { };

	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	post_rx(self, DEPTH, 1518);
	xe_port_receive(&self->xe, f, sizeof(f));
	xe_eth_notify(&self->xe);
	xe_port_receive(&self->xe, f, sizeof(f));
	xe_eth_notify(&self->xe);
	EXPECT_EQ(1, self->irqs[VEC]);
	/* Nothing completed: a new arm value alone raises nothing. */
	eth_db(self)->arm = htole32(2);
	xe_eth_notify(&self->xe);
	EXPECT_EQ(1, self->irqs[VEC]);
	put_tx(self, TXBUF_GPA, 60);
	run(self);
	EXPECT_EQ(2, self->irqs[VEC]);
	put_tx(self, TXBUF_GPA, 60);
	run(self);
	EXPECT_EQ(2, self->irqs[VEC]);
}

TEST_F(dev, stop_and_reset_end_the_ethernet_function)
{
	struct xrnic_cmd_start_eth c = start_cmd();
	uint8_t f[100] = { };

	ASSERT_EQ(XRNIC_STATUS_OK, eth_start(self));
	post_rx(self, 2, 1518);
	ASSERT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_STOP_ETH, NULL, NULL));
	xe_port_receive(&self->xe, f, sizeof(f));
	put_tx(self, TXBUF_GPA, 100);
	run(self);
	EXPECT_EQ(0, rx_desc(self, 0)->status);
	EXPECT_EQ(0, sent.frames);

	ASSERT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_START_ETH, &c, NULL));
	reset(self);
	EXPECT_FALSE(self->xe.eth.live);
	xe_port_receive(&self->xe, f, sizeof(f));
	EXPECT_EQ(0, rx_desc(self, 0)->status);
}

TEST_HARNESS_MAIN
