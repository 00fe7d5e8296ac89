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

/* Who a frame is for, as xe_switch_split()'s callbacks see it. */
struct xe_tap_ctx {
	struct xe_dev *xe;
	struct xe_tap *tap;
};

/* One frame onto the tap; a full tap queue drops it, as a congested link would. */
static void xe_tap_write(void *ctx, const uint8_t *frame, size_t len)
{
	struct xe_tap_ctx *c = ctx;
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

/* Send the switch's batch, if any; in lossless mode it may pause the port. */
static void xe_tap_flush_batch(struct xe_dev *xe, struct xe_tap *tap, int64_t now)
{
	struct xe_tap_ctx c = { xe, tap };
	unsigned int frames = tap->sw.frames;
	bool paused = xe_switch_paused(&tap->sw);

	if (!frames)
		return;
	/* This port's queue in the switch is long: congestion marked (DCQCN). */
	if (xe_switch_congested(&tap->sw))
		xe_switch_mark_ce(&tap->sw);
	switch (xe_switch_send(&tap->sw, now)) {
	case 1:
		if (!paused) {
			xe->counters[XRNIC_CNT_RX_PAUSE]++;
			xe->tx_paused = true;
		}
		break;
	case -EAGAIN:
		xe->counters[XRNIC_CNT_WIRE_TX_DROPS] += frames;
		break;
	case -ENOENT:
		/* No switch port there: the frames go on the tap after all. */
		xe_switch_split(tap->sw.batch, tap->sw.len, xe_tap_write, &c);
		xe_switch_empty(&tap->sw);
		break;
	}
}

int64_t xe_tap_flush(struct xe_dev *xe, struct xe_tap *tap)
{
	int64_t now, since = tap->sw.paused_since;
	unsigned int lost = 0;
	bool resumed = false;

	if (!tap->sw.frames && !xe_switch_paused(&tap->sw))
		return -1;
	now = xe_clock(xe);
	if (xe_switch_paused(&tap->sw) && xe_switch_resume(&tap->sw, now, &lost) < 0) {
		/* The pause is over: what waited for it may go. */
		xe->counters[XRNIC_CNT_RX_PAUSE_DURATION] += (now - since) / 1000;
		xe->tx_paused = false;
		xe->work = true;
		resumed = true;
	}
	xe->counters[XRNIC_CNT_WIRE_TX_DROPS] += lost;
	xe_tap_flush_batch(xe, tap, now);
	if (xe_switch_paused(&tap->sw))
		return tap->sw.paused_until > now ? tap->sw.paused_until - now : 0;
	return resumed ? 0 : -1;
}

void xe_tap_xmit(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	struct xe_tap *tap = xe->wire_ctx;
	struct xe_tap_ctx c = { xe, tap };

	if (tap->pcap)
		xe_pcap_frame(tap->pcap, frame, len);
	if (!xe_switch_wants(&tap->sw, frame)) {
		xe_tap_write(&c, frame, len);
		return;
	}
	if (!xe_switch_fits(&tap->sw, frame, len))
		xe_tap_flush_batch(xe, tap, xe_clock(xe));
	xe_switch_add(&tap->sw, frame, len);
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
	static struct xe_switch_dgram d[XE_SWITCH_RECV_MOST];
	struct xe_tap_ctx c = { xe, tap };
	unsigned int i, n;

	n = xe_switch_recv(&tap->sw, d, XE_SWITCH_RECV_MOST);
	for (i = 0; i < n; i++)
		/* The good frames before a malformed rest were delivered. */
		if (xe_switch_split(d[i].data, d[i].len, xe_tap_deliver, &c) < 0)
			xe->counters[XRNIC_CNT_RX_DROPPED]++;
	xe_eth_notify(xe);
	return n == XE_SWITCH_RECV_MOST;
}
