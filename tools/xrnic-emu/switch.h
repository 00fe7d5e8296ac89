/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The switch between the XRNICs of one host (--switch NAME): frames from
 * one device model's port to another's travel through memory both map
 * (swring.h), one ring for each sender and receiver, where the tap and
 * the host's bridge take one system call and one trip through the network
 * stack per frame.  The frames are the same bytes either way (RoCE v2,
 * with their ICRC, or the Ethernet function's), and both ends capture them
 * the same way.
 *
 * A device model's switch port is the abstract SOCK_SEQPACKET socket
 * "xrnic-switch/NAME/<its MAC in hex>" of its network namespace, on which
 * it listens.  The first frame for a unicast destination connects to the
 * destination's port and sends its ring: one message, XE_SWITCH_OFFER,
 * with the ring's memfd (SCM_RIGHTS).  The frames then go into the ring;
 * the connection carries only the doorbell (one byte, sent when the
 * receiver sleeps) and the end of either side: a receiver that leaves
 * closes it, and the sender's next frame connects again.  A destination
 * without a port (a virtio-net guest's, a broadcast) gets its frames on
 * the tap, as does one past XE_SWITCH_PEERS (a connection that has not
 * offered its ring yet gives up its slot to a new one), and the switch
 * tries it again after XE_SWITCH_RETRY_NS.
 *
 * The switch marks congestion as a DCQCN fabric's switches do (ECN with a
 * threshold): while more than @mark_bytes of a port's frames wait unread
 * in its ring to a destination (the port's own queue at that destination),
 * every ECN-capable frame it puts there leaves marked CE.  The receiving
 * XRNIC answers with CNPs (cc.c), and the sender slows down before the
 * ring is full (the frame is lost).  The threshold is past what one QP
 * keeps unanswered (256 packets, 1 MiB at MTU 4096): one QP alone is never
 * marked, several sending to a receiver that cannot keep up are.
 *
 * Lossless mode (--lossless, off by default), as a priority that PFC
 * protects: a frame that finds its destination's ring full is not lost but
 * held, and the port pauses: for XE_SWITCH_PAUSE_NS, as long as a pause
 * frame asks, after which the switch tries what it holds again, pausing
 * once more while a ring is still full.  A paused port sends nothing new
 * (struct xe_dev.tx_paused: the requesters and the Ethernet function
 * wait); what the device must still send meanwhile (ACKs, READ responses,
 * CNPs) is held too, in order, whatever its destination: the head-of-line
 * blocking that PFC is known for.  Held frames wait in batches of up to
 * XE_SWITCH_BATCH bytes for one destination, up to XE_SWITCH_HELD of them
 * (the headroom); a frame past it is lost and counted as in the lossy
 * mode.
 */
#ifndef XE_SWITCH_H
#define XE_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swring.h"

#define XE_SWITCH_BATCH		65536
#define XE_SWITCH_NAME_MAX	64
#define XE_SWITCH_PEERS		16		/* ports one sends to; ports one hears from */
#define XE_SWITCH_ABSENT	8		/* destinations remembered without a port */
#define XE_SWITCH_RETRY_NS	1000000000LL
#define XE_SWITCH_MARK_BYTES	(4 << 20)	/* queued past this: CE (struct xe_switch) */
#define XE_SWITCH_PAUSE_NS	100000LL	/* lossless: one pause */
#define XE_SWITCH_HELD		128		/* lossless: batches held while paused */
#define XE_SWITCH_RECV_BYTES	(1 << 20)	/* what one xe_switch_recv() takes at most */
/* The offer of a ring: its first message on a connection, with the memfd. */
#define XE_SWITCH_OFFER		"xrnic-switch-ring-1"

/* Lossless mode: frames held while the port is paused, for one destination. */
struct xe_switch_held {
	uint8_t dst[6];
	size_t len;
	unsigned int frames;
	size_t ring_bytes;		/* what the frames take in a ring */
	uint8_t data[XE_SWITCH_BATCH];	/* each frame after its length (__le16) */
};

/* A port this one sends to. */
struct xe_switch_out {
	uint8_t mac[6];
	int fd;				/* the connection to its port, or -1: a free slot */
	bool kick;			/* frames published since the last flush */
	struct xe_swring ring;
};

/* A port that sends to this one. */
struct xe_switch_in {
	int fd;				/* its connection, or -1: a free slot */
	struct xe_swring ring;		/* ring.fd -1 until its offer came */
};

struct xe_switch {
	int fd;				/* this port's listening socket, or -1: no switch */
	int epfd;			/* the port and its connections: poll this */
	char name[XE_SWITCH_NAME_MAX + 1];
	size_t mark_bytes;		/* queued past this, frames leave CE */
	uint64_t lost;			/* frames lost, for the caller to count */
	uint64_t bad;			/* rings from others found broken */
	struct xe_switch_out out[XE_SWITCH_PEERS];
	struct xe_switch_in in[XE_SWITCH_PEERS];
	unsigned int next_in;		/* the ring xe_switch_recv() starts at */
	struct xe_switch_out *reserved;	/* xe_switch_reserve()'s, or NULL */
	int64_t reserved_queued;	/* what waited in its ring then */
	/* Lossless mode (xe_switch_lossless()); held is NULL in the lossy one. */
	struct xe_switch_held *held;	/* a ring of XE_SWITCH_HELD */
	unsigned int held_first, held_count;
	int64_t paused_since;		/* when the port paused (the caller's now), or 0 */
	int64_t paused_until;		/* when it tries again */
	struct {
		uint8_t mac[6];
		int64_t until;		/* no port there before this time (xe_now_ns) */
	} absent[XE_SWITCH_ABSENT];
};

/*
 * Open the port of the device whose MAC is mac on switch name (1 to
 * XE_SWITCH_NAME_MAX characters); 0 or a negative errno.
 */
int xe_switch_open(struct xe_switch *sw, const char *name, const uint8_t *mac);
void xe_switch_close(struct xe_switch *sw);

/* Lossless mode from now on; 0 or -ENOMEM. */
int xe_switch_lossless(struct xe_switch *sw);
/* True while the port is paused (lossless mode): frames are held. */
static inline bool xe_switch_paused(const struct xe_switch *sw)
{
	return sw->held_count;
}

/* True when a frame for dst should go to the switch. */
bool xe_switch_wants(const struct xe_switch *sw, const uint8_t *dst);
/*
 * Send a frame of len bytes (1 to XE_SWRING_FRAME_MAX) for which
 * xe_switch_wants() holds: 0 it is in the destination's ring; -ENOENT the
 * destination has no port (remembered; the caller sends the frame another
 * way); -EAGAIN the ring is full and the frame lost (counted in lost).
 * In lossless mode a full ring, or a pause already on, holds the frame
 * instead: 1 (a frame past the headroom is lost: -EAGAIN).
 */
int xe_switch_xmit(struct xe_switch *sw, const uint8_t *frame, size_t len);
/*
 * Room for a frame of len bytes to dst in its destination's ring, to be
 * built there and sent by xe_switch_commit(): one copy less.  NULL when
 * not (no port there, a full ring, a pause on, no switch): the caller
 * builds it elsewhere and sends it as any other frame, which judges it.
 * Nothing is sent until the commit; a reservation not committed is
 * forgotten by the next.  The frame's bytes are in memory the receiver
 * maps: what the sender does with them after building must not trust
 * them more than any received frame.
 */
uint8_t *xe_switch_reserve(struct xe_switch *sw, const uint8_t *dst, size_t len);
/* Send the frame of len bytes (at most the reserved length) built where xe_switch_reserve() said. */
void xe_switch_commit(struct xe_switch *sw, size_t len);
/*
 * After each turn of the main loop: wake the receivers that sleep on what
 * was sent; in lossless mode, paused, start the pause's clock at now and,
 * once the pause is over, send what is held, in order, until none is left
 * (the pause ends) or a ring is full again (another pause).  Returns the
 * nanoseconds until the port tries again, or -1 when it is not paused.
 */
int64_t xe_switch_flush(struct xe_switch *sw, int64_t now);

/*
 * The port or its connections have something (sw->epfd is readable):
 * take new connections and their rings, doorbells, and ends.
 */
void xe_switch_events(struct xe_switch *sw);
/*
 * Hand the frames waiting in the rings of others to fn, each once, in
 * order per ring, the rings in turn, up to XE_SWITCH_RECV_BYTES; returns
 * how many, and sets *more when more may wait.  A broken ring is closed
 * and counted in bad.  Each frame is where it lies in the ring, which its
 * sender may write: fn reads each byte once, or copies first.
 */
unsigned int xe_switch_recv(struct xe_switch *sw,
			    void (*fn)(void *ctx, const uint8_t *frame, size_t len), void *ctx,
			    bool *more);
/*
 * Before the main loop sleeps: ask to be woken by a frame (the doorbell).
 * False when a frame waits already: do not sleep.
 */
bool xe_switch_sleep(struct xe_switch *sw);
/* After it slept. */
void xe_switch_wake(struct xe_switch *sw);

#endif /* XE_SWITCH_H */
