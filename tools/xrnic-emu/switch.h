/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The switch between the XRNICs of one host (--switch NAME): frames from
 * one device model's port to another's travel in batches, up to
 * XE_SWITCH_BATCH bytes of frames in one AF_UNIX datagram, where the tap
 * and the host's bridge take one system call and one trip through the
 * network stack per frame.  The frames are the same bytes either way
 * (RoCE v2, with their ICRC, or the Ethernet function's), and both ends
 * capture them the same way.
 *
 * A device model's switch port is the abstract socket
 * "xrnic-switch/NAME/<its MAC in hex>" of its network namespace.  A
 * datagram holds frames one after another, each after its length as an
 * __le16.  A frame goes to the switch when its destination MAC is unicast
 * and has a switch port; a destination without one (a virtio-net guest's,
 * a broadcast) gets its frames on the tap, one at a time as before, and
 * the switch tries it again after XE_SWITCH_RETRY_NS.
 *
 * The switch marks congestion as a DCQCN fabric's switches do (ECN with a
 * threshold): while more than @mark_bytes of a port's datagrams wait unread
 * at the ports they went to (the port's own queue in the switch), every
 * ECN-capable frame of its next datagram leaves marked CE.  The receiving
 * XRNIC answers with CNPs (cc.c), and the sender slows down before the
 * queue overflows (-EAGAIN: the datagram is lost).  The threshold is past
 * what one QP keeps unanswered (256 packets, 1 MiB at MTU 4096): one QP
 * alone is never marked, several sending to a receiver that cannot keep
 * up are.
 *
 * Lossless mode (--lossless, off by default), as a priority that PFC
 * protects: a datagram that finds its destination's queue full is not
 * lost but held, and the port pauses: for XE_SWITCH_PAUSE_NS, as long as
 * a pause frame asks, after which the switch tries the datagram again,
 * pausing once more while the queue is still full.  A paused port sends
 * nothing new (struct xe_dev.tx_paused: the requesters and the Ethernet
 * function wait); what the device must still send meanwhile (ACKs, READ
 * responses, CNPs) waits behind the held datagrams, in order, whatever its
 * destination: the head-of-line blocking that PFC is known for.  Up to
 * XE_SWITCH_HELD datagrams are held (the headroom); one past it is lost
 * and counted as in the lossy mode.
 */
#ifndef XE_SWITCH_H
#define XE_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XE_SWITCH_BATCH		65536
#define XE_SWITCH_NAME_MAX	64
#define XE_SWITCH_ABSENT	8		/* destinations remembered without a port */
#define XE_SWITCH_RETRY_NS	1000000000LL
#define XE_SWITCH_SOCKBUF	(8 << 20)	/* bytes one port may have queued at others */
#define XE_SWITCH_MARK_BYTES	(4 << 20)	/* queued past this: CE (struct xe_switch) */
#define XE_SWITCH_PAUSE_NS	100000LL	/* lossless: one pause */
#define XE_SWITCH_HELD		128		/* lossless: datagrams held while paused */
#define XE_SWITCH_RECV_MOST	16		/* datagrams one xe_switch_recv() takes */
/* The most memory the kernel charges for a datagram of len bytes. */
#define XE_SWITCH_COST_MOST(len)	(2 * (len) + 8192)

/* Lossless mode: a datagram held while the port is paused. */
struct xe_switch_held {
	uint8_t dst[6];
	size_t len;
	unsigned int frames;
	uint8_t data[XE_SWITCH_BATCH];
};

struct xe_switch {
	int fd;				/* this port's socket, or -1: no switch */
	char name[XE_SWITCH_NAME_MAX + 1];
	uint8_t dst[6];			/* the batch's destination */
	size_t len;			/* bytes in batch */
	unsigned int frames;		/* frames in batch */
	size_t mark_bytes;		/* queued past this, frames leave CE */
	size_t queued_most;		/* the most that can be queued (xe_switch_congested) */
	/* Lossless mode (xe_switch_lossless()); held is NULL in the lossy one. */
	struct xe_switch_held *held;	/* a ring of XE_SWITCH_HELD */
	unsigned int held_first, held_count;
	int64_t paused_since;		/* when the port paused (the caller's now), or 0 */
	int64_t paused_until;		/* when it tries again */
	struct {
		uint8_t mac[6];
		int64_t until;		/* no port there before this time (xe_now_ns) */
	} absent[XE_SWITCH_ABSENT];
	uint8_t batch[XE_SWITCH_BATCH];
};

/*
 * Open the port of the device whose MAC is mac on switch name (1 to
 * XE_SWITCH_NAME_MAX characters); 0 or a negative errno.
 */
int xe_switch_open(struct xe_switch *sw, const char *name, const uint8_t *mac);
void xe_switch_close(struct xe_switch *sw);

/* Lossless mode from now on; 0 or -ENOMEM. */
int xe_switch_lossless(struct xe_switch *sw);
/* True while the port is paused (lossless mode): datagrams are held. */
static inline bool xe_switch_paused(const struct xe_switch *sw)
{
	return sw->held_count;
}

/* True when a frame for dst should go to the switch. */
bool xe_switch_wants(const struct xe_switch *sw, const uint8_t *dst);
/* True when the frame fits in the batch, which is for the same destination. */
bool xe_switch_fits(const struct xe_switch *sw, const uint8_t *frame, size_t len);
/* Append a frame for which xe_switch_fits() holds. */
void xe_switch_add(struct xe_switch *sw, const uint8_t *frame, size_t len);

/*
 * Send the batch to its destination and empty it: 0 sent, -EAGAIN the
 * destination's queue is full (the frames are lost, as on a congested
 * link), -ENOENT it has no port (remembered; the caller sends the frames
 * another way before the batch is emptied, see xe_switch_split()).  In
 * lossless mode a full queue, or a pause already on, holds the batch
 * instead: 1; -EAGAIN only when XE_SWITCH_HELD are held already.
 */
int xe_switch_send(struct xe_switch *sw, int64_t now);
/*
 * Lossless mode, paused: once the pause is over, send the held datagrams
 * in order until none is left (the pause ends) or a queue is full again
 * (another pause).  A held datagram whose destination has no port any
 * more is lost: *lost counts its frames.  Returns the nanoseconds until
 * the port tries again, or -1 when it is not paused (any more).
 */
int64_t xe_switch_resume(struct xe_switch *sw, int64_t now, unsigned int *lost);
void xe_switch_empty(struct xe_switch *sw);

/*
 * True while more than mark_bytes of this port's datagrams wait unread at
 * other ports (their memory, as the kernel counts it: a little more than
 * the frames).  The kernel is asked (SIOCOUTQ, a system call) only when
 * that can be so: since it was last asked, the queue grew by no more than
 * what was sent, each datagram counted at XE_SWITCH_COST_MOST.
 */
bool xe_switch_congested(struct xe_switch *sw);
/* Mark every ECN-capable frame of the batch CE; how many were. */
unsigned int xe_switch_mark_ce(struct xe_switch *sw);

/* A datagram received. */
struct xe_switch_dgram {
	size_t len;
	uint8_t data[XE_SWITCH_BATCH];
};

/*
 * Receive up to n (at most XE_SWITCH_RECV_MOST) of the datagrams waiting
 * at this port into d[0] to d[n - 1], in one system call; how many (0:
 * none waits).
 */
unsigned int xe_switch_recv(struct xe_switch *sw, struct xe_switch_dgram *d, unsigned int n);

/*
 * Hand each frame of a datagram to fn, in order.  Returns the number of
 * frames, or -1 after the good ones when the rest is malformed (a length
 * of 0 or past the end).
 */
int xe_switch_split(const uint8_t *dgram, size_t len,
		    void (*fn)(void *ctx, const uint8_t *frame, size_t len), void *ctx);

#endif /* XE_SWITCH_H */
