// SPDX-License-Identifier: GPL-2.0
/* The port's wire on a tap device: see tap.h. */
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

void xe_tap_xmit(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	static bool logged;
	struct xe_tap *tap = xe->wire_ctx;

	/* A full tap queue drops the frame, as a congested link would. */
	if (write(tap->fd, frame, len) < 0) {
		if (errno != EAGAIN && !logged) {
			logged = true;
			xe_log(xe, "writing a frame to the tap failed: %s", strerror(errno));
		}
		return;
	}
	if (tap->pcap)
		xe_pcap_frame(tap->pcap, frame, len);
}

void xe_tap_receive(struct xe_dev *xe, struct xe_tap *tap)
{
	static uint8_t frame[65536];
	unsigned int i;
	ssize_t n;

	for (i = 0; i < XE_TAP_RX_BATCH; i++) {
		n = read(tap->fd, frame, sizeof(frame));
		if (n < 0)
			break;
		if (tap->pcap)
			xe_pcap_frame(tap->pcap, frame, n);
		xe_port_receive(xe, frame, n);
	}
	xe_eth_notify(xe);
}
