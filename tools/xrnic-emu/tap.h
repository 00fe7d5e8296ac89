/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The port's wire: a Linux tap device (IFF_TAP, no packet information)
 * that the runner put on the guests' Ethernet segment, one frame per
 * read() and write(); and with --switch, the switch between the XRNICs of
 * the host (switch.h), which takes the frames for the ports it has.
 */
#ifndef XE_TAP_H
#define XE_TAP_H

#include <stdio.h>

#include "switch.h"
#include "xe.h"

/* The port's end of the wire. */
struct xe_tap {
	int fd;			/* the tap, or -1 */
	FILE *pcap;		/* --pcap: every frame both ways (pcap.h), or NULL */
	struct xe_switch sw;	/* --switch, or sw.fd -1 */
};

/*
 * Attach to the existing tap device name (never create one); returns its
 * fd or a negative errno.
 */
int xe_tap_open(const char *name);
/*
 * Make tap xe's wire (xe_dev.eth_xmit, eth_reserve, eth_commit, wire_ctx).
 * A frame for the switch goes into its destination's ring at once (or is
 * held while the port is paused); one the device can build in the ring
 * (eth_reserve) is.
 */
void xe_tap_attach(struct xe_dev *xe, struct xe_tap *tap);
/* xe_dev.eth_xmit of a tap. */
void xe_tap_xmit(struct xe_dev *xe, const uint8_t *frame, size_t len);
/*
 * After each turn of the main loop: wake the switch's receivers that sleep
 * on this turn's frames; in lossless mode, paused, send what was held once
 * the pause is over.  Sets xe->tx_paused.  Returns the nanoseconds until
 * it must be called again (0: the pause just ended and the device has
 * work), or -1.
 */
int64_t xe_tap_flush(struct xe_dev *xe, struct xe_tap *tap);
/*
 * Hand the frames waiting on the tap (a batch of them) to the device; true
 * when the batch was full, so that more may wait.
 */
bool xe_tap_receive(struct xe_dev *xe, struct xe_tap *tap);
/* The same for the frames waiting in the switch's rings to this port. */
bool xe_tap_switch_receive(struct xe_dev *xe, struct xe_tap *tap);

#endif /* XE_TAP_H */
