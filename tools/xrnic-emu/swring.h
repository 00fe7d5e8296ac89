/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The switch's ring (switch.h): the frames one device model's port sends
 * to another's, in memory both processes map.  One ring per sender and
 * receiver: the sender is its only producer, the receiver its only
 * consumer, and no system call moves a frame.
 *
 * The memory is a memfd sealed at its size: a header page, then
 * XE_SWRING_SIZE bytes of data that each side maps twice, back to back,
 * so that a record running past the end goes on at the start without a
 * seam.  A record is the frame's length (a uint32_t of this host), the
 * frame, and padding to 8 bytes.  prod and cons count bytes since the
 * ring was made and never wrap (64 bits).  The producer writes only prod,
 * the consumer only cons and sleeping; the consumer maps the data
 * read-only.
 *
 * Each side treats what the other writes as hostile.  A cons that would
 * put more than the ring holds between the two, a prod likewise, or a
 * record whose length is 0, past XE_SWRING_FRAME_MAX or past prod,
 * breaks the ring (-EPROTO: its owner closes it).  The consumer reads a
 * frame where it lies and hands its space back after: the record's length
 * is read once, and whoever takes the frame copies its headers before
 * parsing them (xe_port_receive()), so that a producer changing the bytes
 * meanwhile changes no more than the data it sends.
 *
 * Sleeping (the doorbell, as virtio's notification suppression): a
 * consumer about to sleep sets sleeping, then looks at prod once more
 * (xe_swring_sleep()); a producer that published looks at sleeping after
 * (xe_swring_sleeping()) and, when set, wakes the consumer another way
 * (switch.c: one message on their connection).  Full barriers between
 * each side's store and load: one of the two always sees the other.
 */
#ifndef XE_SWRING_H
#define XE_SWRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XE_SWRING_SIZE		(8u << 20)	/* bytes of records; a power of 2 */
#define XE_SWRING_HDR		4096u		/* the header page */
#define XE_SWRING_FRAME_MAX	65535u		/* a frame's largest length */
/* The bytes a record of a frame of len bytes takes. */
#define XE_SWRING_RECORD(len)	((4 + (size_t)(len) + 7) & ~(size_t)7)

/* The shared header; each side's fields in a cache line of their own. */
struct xe_swring_hdr {
	uint64_t prod;			/* producer: bytes published */
	uint8_t pad0[56];
	uint64_t cons;			/* consumer: bytes taken */
	uint32_t sleeping;		/* consumer: asleep, wake me */
	uint8_t pad1[52];
};

struct xe_swring {
	int fd;				/* the memfd, or -1: no ring */
	struct xe_swring_hdr *hdr;
	uint8_t *data;			/* 2 * XE_SWRING_SIZE: the same bytes twice */
	uint64_t idx;			/* the producer's prod, or the consumer's cons */
};

/* Producer: make a new ring; 0 or a negative errno.  Its fd goes to the consumer. */
int xe_swring_create(struct xe_swring *r);
/*
 * Consumer: map the ring of fd (received from the producer), which must
 * be a memfd of the ring's size whose size is sealed; takes fd either way.
 * 0 or a negative errno (-EINVAL: not such a memfd).
 */
int xe_swring_attach(struct xe_swring *r, int fd);
/* Unmap and close; a ring of fd -1 is left alone. */
void xe_swring_close(struct xe_swring *r);

/*
 * Producer: the bytes published and not yet taken, or -EPROTO when the
 * consumer's cons is impossible.
 */
int64_t xe_swring_queued(const struct xe_swring *r);
/*
 * Producer: where a frame of len (1 to XE_SWRING_FRAME_MAX) bytes goes,
 * for the caller to write it there, or NULL: no room.  queued is what
 * xe_swring_queued() returned (not negative).  Nothing is put until
 * xe_swring_commit(); a reservation not committed is forgotten.
 */
uint8_t *xe_swring_reserve(struct xe_swring *r, uint64_t queued, size_t len);
/*
 * Producer: put the frame of len bytes (at most the reserved length)
 * written where xe_swring_reserve() said, not yet published; returns it.
 */
uint8_t *xe_swring_commit(struct xe_swring *r, size_t len);
/* Producer: let the consumer see what was put. */
void xe_swring_publish(struct xe_swring *r);
/* Producer, after publishing: true when the consumer sleeps and must be woken. */
bool xe_swring_sleeping(const struct xe_swring *r);

/*
 * Consumer: the next frame, where it lies in the ring (*frame), until
 * xe_swring_done().  Returns its length, 0 when none waits, or -EPROTO (a
 * broken ring: nothing more can be taken from it).
 */
int xe_swring_peek(struct xe_swring *r, const uint8_t **frame);
/* Consumer: hand back the space of the frame of len bytes xe_swring_peek() gave. */
void xe_swring_done(struct xe_swring *r, size_t len);
/* Consumer: about to sleep; false when a frame waits (and it is awake again). */
bool xe_swring_sleep(struct xe_swring *r);
/* Consumer: awake. */
void xe_swring_wake(struct xe_swring *r);

#endif /* XE_SWRING_H */
