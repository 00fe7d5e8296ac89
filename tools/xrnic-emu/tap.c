// SPDX-License-Identifier: GPL-2.0
/* The port's wire on a tap device, and the switch: see tap.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pcap.h"
#include "tap.h"

/* Frames one call takes off the tap, so that doorbells get their turn. */
#define XE_TAP_RX_BATCH		64

int xe_tap_open(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int fd, err;

	if (strlen(name) >= sizeof(ifr.ifr_name))
		return -ENAMETOOLONG;
	/* TUNSETIFF would create a missing one: attach only to an existing tap. */
	if (!if_nametoindex(name))
		return -ENODEV;
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Who a frame is for, as xe_switch_recv()'s callback sees it. */
struct xe_tap_ctx {
	struct xe_dev *xe;
	struct xe_tap *tap;
};

/* One frame onto the tap; a full tap queue drops it, as a congested link would. */
static void xe_tap_write(const struct xe_tap_ctx *c, const uint8_t *frame, size_t len)
{
	static bool logged;

	if (write(c->tap->fd, frame, len) >= 0)
		return;
	if (errno == EAGAIN) {
		c->xe->counters[XRNIC_CNT_WIRE_TX_DROPS]++;
	} else if (!logged) {
		logged = true;
		xe_log(c->xe, "writing a frame to the tap failed: %s", strerror(errno));
	}
}

/* The frames the switch lost since it was last asked. */
static void xe_tap_count_lost(struct xe_dev *xe, struct xe_tap *tap)
{
	xe->counters[XRNIC_CNT_WIRE_TX_DROPS] += tap->sw.lost;
	tap->sw.lost = 0;
}

int64_t xe_tap_flush(struct xe_dev *xe, struct xe_tap *tap)
{
	int64_t now, since = tap->sw.paused_since, next;

	if (tap->sw.fd < 0)
		return -1;
	if (!xe_switch_paused(&tap->sw)) {
		xe_switch_flush(&tap->sw, 0);
		xe_tap_count_lost(xe, tap);
		return -1;
	}
	now = xe_clock(xe);
	next = xe_switch_flush(&tap->sw, now);
	xe_tap_count_lost(xe, tap);
	if (next >= 0)
		return next;
	/* The pause is over: what waited for it may go. */
	xe->counters[XRNIC_CNT_RX_PAUSE_DURATION] += (now - since) / 1000;
	xe->tx_paused = false;
	xe->work = true;
	return 0;
}

void xe_tap_xmit(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	struct xe_tap *tap = xe->wire_ctx;
	struct xe_tap_ctx c = { xe, tap };
	bool paused = xe_switch_paused(&tap->sw);

	if (tap->pcap)
		xe_pcap_frame(tap->pcap, frame, len);
	if (!xe_switch_wants(&tap->sw, frame)) {
		xe_tap_write(&c, frame, len);
		return;
	}
	switch (xe_switch_xmit(&tap->sw, frame, len)) {
	case 1:
		if (!paused) {
			xe->counters[XRNIC_CNT_RX_PAUSE]++;
			xe->tx_paused = true;
		}
		break;
	case -ENOENT:
		/* No switch port there: the frame goes on the tap after all. */
		xe_tap_write(&c, frame, len);
		break;
	case -EAGAIN:
		xe_tap_count_lost(xe, tap);
		break;
	}
}

static uint8_t *xe_tap_reserve(struct xe_dev *xe, const uint8_t *dmac, size_t len)
{
	struct xe_tap *tap = xe->wire_ctx;

	return xe_switch_reserve(&tap->sw, dmac, len);
}

static void xe_tap_commit(struct xe_dev *xe, uint8_t *frame, size_t len)
{
	struct xe_tap *tap = xe->wire_ctx;

	if (tap->pcap)
		xe_pcap_frame(tap->pcap, frame, len);
	xe_switch_commit(&tap->sw, len);
}

void xe_tap_attach(struct xe_dev *xe, struct xe_tap *tap)
{
	xe->eth_xmit = xe_tap_xmit;
	xe->eth_reserve = xe_tap_reserve;
	xe->eth_commit = xe_tap_commit;
	xe->wire_ctx = tap;
}

/* A frame from the wire: captured, then the port sorts it. */
static void xe_tap_deliver(void *ctx, const uint8_t *frame, size_t len)
{
	struct xe_tap_ctx *c = ctx;

	if (c->tap->pcap)
		xe_pcap_frame(c->tap->pcap, frame, len);
	xe_port_receive(c->xe, frame, len);
}

bool xe_tap_receive(struct xe_dev *xe, struct xe_tap *tap)
{
	static uint8_t frame[65536];
	struct xe_tap_ctx c = { xe, tap };
	unsigned int i;
	ssize_t n;

	for (i = 0; i < XE_TAP_RX_BATCH; i++) {
		n = read(tap->fd, frame, sizeof(frame));
		if (n < 0)
			break;
		xe_tap_deliver(&c, frame, n);
	}
	xe_eth_notify(xe);
	return i == XE_TAP_RX_BATCH;
}

bool xe_tap_switch_receive(struct xe_dev *xe, struct xe_tap *tap)
{
	struct xe_tap_ctx c = { xe, tap };
	bool more;

	if (tap->sw.fd < 0)
		return false;
	if (!xe_switch_recv(&tap->sw, xe_tap_deliver, &c, &more) && !tap->sw.bad)
		return false;
	/* A broken ring loses what it held: one drop for it. */
	xe->counters[XRNIC_CNT_RX_DROPPED] += tap->sw.bad;
	tap->sw.bad = 0;
	xe_eth_notify(xe);
	return more;
}
