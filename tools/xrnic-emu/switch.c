// SPDX-License-Identifier: GPL-2.0
/* The switch between the XRNICs of one host: see switch.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "frame.h"
#include "switch.h"
#include "xe.h"

/* What an event of sw->epfd is about: the port, a port it hears from or sends to. */
#define XE_SWITCH_EV_PORT	0
#define XE_SWITCH_EV_IN		1
#define XE_SWITCH_EV_OUT	(XE_SWITCH_EV_IN + XE_SWITCH_PEERS)

/* The abstract address of the port of mac on switch name; its length. */
static socklen_t xe_switch_addr(struct sockaddr_un *a, const char *name, const uint8_t *mac)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* sun_path[0] stays 0: the abstract namespace, one per network namespace. */
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
		     "xrnic-switch/%s/%02x%02x%02x%02x%02x%02x", name,
		     mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

static int xe_switch_watch(struct xe_switch *sw, int fd, uint32_t what)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.u32 = what };

	return epoll_ctl(sw->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int xe_switch_open(struct xe_switch *sw, const char *name, const uint8_t *mac)
{
	struct sockaddr_un a;
	unsigned int i;
	socklen_t len;
	int err;

	memset(sw, 0, sizeof(*sw));
	sw->fd = -1;
	sw->epfd = -1;
	for (i = 0; i < XE_SWITCH_PEERS; i++) {
		sw->out[i].fd = -1;
		sw->out[i].ring.fd = -1;
		sw->in[i].fd = -1;
		sw->in[i].ring.fd = -1;
	}
	sw->mark_bytes = XE_SWITCH_MARK_BYTES;
	if (!*name || strlen(name) > XE_SWITCH_NAME_MAX)
		return -EINVAL;
	memcpy(sw->name, name, strlen(name) + 1);
	sw->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sw->epfd < 0)
		return -errno;
	sw->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sw->fd < 0) {
		err = -errno;
		goto err_close_epfd;
	}
	len = xe_switch_addr(&a, name, mac);
	if (bind(sw->fd, (struct sockaddr *)&a, len) || listen(sw->fd, 2 * XE_SWITCH_PEERS)) {
		err = -errno;
		goto err_close_fd;
	}
	err = xe_switch_watch(sw, sw->fd, XE_SWITCH_EV_PORT);
	if (err)
		goto err_close_fd;
	return 0;

err_close_fd:
	close(sw->fd);
	sw->fd = -1;
err_close_epfd:
	close(sw->epfd);
	sw->epfd = -1;
	return err;
}

static void xe_switch_out_close(struct xe_switch_out *o)
{
	xe_swring_close(&o->ring);
	close(o->fd);
	o->fd = -1;
	o->kick = false;
}

static void xe_switch_in_close(struct xe_switch_in *in)
{
	xe_swring_close(&in->ring);
	close(in->fd);
	in->fd = -1;
}

void xe_switch_close(struct xe_switch *sw)
{
	unsigned int i;

	for (i = 0; i < XE_SWITCH_PEERS; i++) {
		if (sw->out[i].fd >= 0)
			xe_switch_out_close(&sw->out[i]);
		if (sw->in[i].fd >= 0)
			xe_switch_in_close(&sw->in[i]);
	}
	if (sw->fd >= 0)
		close(sw->fd);
	sw->fd = -1;
	if (sw->epfd >= 0)
		close(sw->epfd);
	sw->epfd = -1;
	free(sw->held);
	sw->held = NULL;
	sw->held_count = 0;
}

int xe_switch_lossless(struct xe_switch *sw)
{
	if (!sw->held)
		sw->held = calloc(XE_SWITCH_HELD, sizeof(*sw->held));
	return sw->held ? 0 : -ENOMEM;
}

bool xe_switch_wants(const struct xe_switch *sw, const uint8_t *dst)
{
	unsigned int i;

	if (sw->fd < 0 || (dst[0] & 1))		/* no switch; multicast, broadcast */
		return false;
	/* The clock is read only for a destination that had no port. */
	for (i = 0; i < XE_SWITCH_ABSENT; i++)
		if (sw->absent[i].until && !memcmp(sw->absent[i].mac, dst, 6))
			return sw->absent[i].until <= xe_now_ns();
	return true;
}

/*
 * Remember that dst has no port: in its own slot, or the one that expires
 * first.  On the host's clock, as xe_switch_wants() reads it.
 */
static void xe_switch_absent(struct xe_switch *sw, const uint8_t *dst)
{
	unsigned int i, slot = 0;

	for (i = 0; i < XE_SWITCH_ABSENT; i++) {
		if (!memcmp(sw->absent[i].mac, dst, 6)) {
			slot = i;
			break;
		}
		if (sw->absent[i].until < sw->absent[slot].until)
			slot = i;
	}
	memcpy(sw->absent[slot].mac, dst, 6);
	sw->absent[slot].until = xe_now_ns() + XE_SWITCH_RETRY_NS;
}

/* Connect o to the port of dst and give it a new ring: 0 or a negative errno. */
static int xe_switch_connect(struct xe_switch *sw, struct xe_switch_out *o, unsigned int slot,
			     const uint8_t *dst)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c = { };
	struct iovec iov = { .iov_base = XE_SWITCH_OFFER, .iov_len = strlen(XE_SWITCH_OFFER) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = c.buf, .msg_controllen = sizeof(c.buf) };
	struct sockaddr_un a;
	socklen_t alen = xe_switch_addr(&a, sw->name, dst);
	int err;

	o->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (o->fd < 0)
		return -errno;
	if (connect(o->fd, (struct sockaddr *)&a, alen)) {
		err = -errno;
		goto err_close_fd;
	}
	err = xe_swring_create(&o->ring);
	if (err)
		goto err_close_fd;
	c.h.cmsg_level = SOL_SOCKET;
	c.h.cmsg_type = SCM_RIGHTS;
	c.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&c.h), &o->ring.fd, sizeof(int));
	if (sendmsg(o->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		err = -errno;
		goto err_close_ring;
	}
	err = xe_switch_watch(sw, o->fd, XE_SWITCH_EV_OUT + slot);
	if (err)
		goto err_close_ring;
	memcpy(o->mac, dst, 6);
	return 0;

err_close_ring:
	xe_swring_close(&o->ring);
err_close_fd:
	close(o->fd);
	o->fd = -1;
	return err;
}

/* The port dst has on the switch, connected now if need be; NULL: none (remembered). */
static struct xe_switch_out *xe_switch_out(struct xe_switch *sw, const uint8_t *dst)
{
	struct xe_switch_out *o, *free_slot = NULL;
	unsigned int i;

	for (i = 0; i < XE_SWITCH_PEERS; i++) {
		o = &sw->out[i];
		if (o->fd < 0) {
			if (!free_slot)
				free_slot = o;
		} else if (!memcmp(o->mac, dst, 6)) {
			return o;
		}
	}
	/* Refused, not listening, or no slot left: the tap for a while. */
	if (!free_slot || xe_switch_connect(sw, free_slot, free_slot - sw->out, dst)) {
		xe_switch_absent(sw, dst);
		return NULL;
	}
	return free_slot;
}

/*
 * Room in o's ring for a frame of len bytes (sw->reserved, for
 * xe_switch_commit()): the frame's place, NULL and -ENOSPC the ring is
 * full, or -EPROTO the receiver broke it (o is closed).
 */
static uint8_t *xe_switch_room(struct xe_switch *sw, struct xe_switch_out *o, size_t len,
			       int *err)
{
	int64_t queued = xe_swring_queued(&o->ring);
	uint8_t *p;

	if (queued < 0) {
		xe_switch_out_close(o);
		*err = -EPROTO;
		return NULL;
	}
	p = xe_swring_reserve(&o->ring, queued, len);
	if (!p) {
		*err = -ENOSPC;
		return NULL;
	}
	sw->reserved = o;
	sw->reserved_queued = queued;
	return p;
}

uint8_t *xe_switch_reserve(struct xe_switch *sw, const uint8_t *dst, size_t len)
{
	struct xe_switch_out *o;
	int err;

	sw->reserved = NULL;
	if (sw->held_count || !xe_switch_wants(sw, dst))
		return NULL;
	o = xe_switch_out(sw, dst);
	return o ? xe_switch_room(sw, o, len, &err) : NULL;
}

void xe_switch_commit(struct xe_switch *sw, size_t len)
{
	struct xe_switch_out *o = sw->reserved;
	uint8_t *frame = xe_swring_commit(&o->ring, len);

	/* This port's queue at the destination is long: congestion marked (DCQCN). */
	if ((size_t)sw->reserved_queued > sw->mark_bytes)
		xe_frame_mark_ce(frame, len);
	xe_swring_publish(&o->ring);
	o->kick = true;
	sw->reserved = NULL;
}

/*
 * Put a frame into o's ring and publish it, marked CE when more than
 * mark_bytes waited there: 0, -ENOSPC the ring is full, -EPROTO the
 * receiver broke it (o is closed).
 */
static int xe_switch_put(struct xe_switch *sw, struct xe_switch_out *o, const uint8_t *frame,
			 size_t len)
{
	uint8_t *p;
	int err;

	p = xe_switch_room(sw, o, len, &err);
	if (!p)
		return err;
	memcpy(p, frame, len);
	xe_switch_commit(sw, len);
	return 0;
}

/* Lossless mode: hold a frame behind those held (1), or lose it: no room (-EAGAIN). */
static int xe_switch_hold(struct xe_switch *sw, const uint8_t *frame, size_t len)
{
	struct xe_switch_held *h = NULL;

	if (sw->held_count)
		h = &sw->held[(sw->held_first + sw->held_count - 1) % XE_SWITCH_HELD];
	if (!h || memcmp(h->dst, frame, 6) || h->len + 2 + len > XE_SWITCH_BATCH) {
		if (sw->held_count == XE_SWITCH_HELD || 2 + len > XE_SWITCH_BATCH) {
			sw->lost++;
			return -EAGAIN;
		}
		h = &sw->held[(sw->held_first + sw->held_count++) % XE_SWITCH_HELD];
		memcpy(h->dst, frame, 6);
		h->len = 0;
		h->frames = 0;
		h->ring_bytes = 0;
	}
	h->data[h->len] = len;
	h->data[h->len + 1] = len >> 8;
	memcpy(h->data + h->len + 2, frame, len);
	h->len += 2 + len;
	h->frames++;
	h->ring_bytes += XE_SWRING_RECORD(len);
	return 1;
}

int xe_switch_xmit(struct xe_switch *sw, const uint8_t *frame, size_t len)
{
	struct xe_switch_out *o;
	int err;

	if (sw->held_count)		/* paused: behind what waits */
		return xe_switch_hold(sw, frame, len);
	o = xe_switch_out(sw, frame);
	if (!o)
		return -ENOENT;
	err = xe_switch_put(sw, o, frame, len);
	if (!err)
		return 0;
	if (err == -ENOSPC && sw->held)
		return xe_switch_hold(sw, frame, len);
	sw->lost++;
	return -EAGAIN;
}

/* Lossless mode: put a held batch into o's ring, all of it (0) or none (-ENOSPC). */
static int xe_switch_put_held(struct xe_switch *sw, struct xe_switch_out *o,
			      const struct xe_switch_held *h)
{
	int64_t queued = xe_swring_queued(&o->ring);
	size_t off = 0, n;
	int err;

	if (queued >= 0 && (uint64_t)queued + h->ring_bytes > XE_SWRING_SIZE)
		return -ENOSPC;
	/* The batch was built by xe_switch_hold(): its lengths are good. */
	while (off < h->len) {
		n = h->data[off] | (size_t)h->data[off + 1] << 8;
		err = xe_switch_put(sw, o, h->data + off + 2, n);
		if (err)		/* broken while we wrote: the rest is lost */
			return err;
		off += 2 + n;
	}
	return 0;
}

/* Lossless mode, paused: send what is held; see xe_switch_flush(). */
static int64_t xe_switch_resume(struct xe_switch *sw, int64_t now)
{
	struct xe_switch_held *h;
	struct xe_switch_out *o;
	int err;

	if (!sw->paused_since) {
		sw->paused_since = now;
		sw->paused_until = now + XE_SWITCH_PAUSE_NS;
	}
	if (now < sw->paused_until)
		return sw->paused_until - now;
	while (sw->held_count) {
		h = &sw->held[sw->held_first];
		o = xe_switch_out(sw, h->dst);
		err = o ? xe_switch_put_held(sw, o, h) : -ENOENT;
		if (err == -ENOSPC) {
			sw->paused_until = now + XE_SWITCH_PAUSE_NS;
			return XE_SWITCH_PAUSE_NS;
		}
		/* Its destination left the switch, or broke its ring. */
		if (err)
			sw->lost += h->frames;
		sw->held_first = (sw->held_first + 1) % XE_SWITCH_HELD;
		sw->held_count--;
	}
	sw->paused_since = 0;
	return -1;
}

int64_t xe_switch_flush(struct xe_switch *sw, int64_t now)
{
	int64_t next = sw->held_count ? xe_switch_resume(sw, now) : -1;
	struct xe_switch_out *o;
	unsigned int i;

	for (i = 0; i < XE_SWITCH_PEERS; i++) {
		o = &sw->out[i];
		if (!o->kick)
			continue;
		o->kick = false;
		/* The doorbell; a full socket has one waiting already. */
		if (xe_swring_sleeping(&o->ring) &&
		    send(o->fd, "", 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno == EPIPE)
			xe_switch_out_close(o);
	}
	return next;
}

/*
 * The fd a message carried: -1 none, or -EPROTO when it carried more
 * than one (every one closed: a hostile sender leaks none into us).
 */
static int xe_switch_one_fd(struct msghdr *m)
{
	struct cmsghdr *h;
	int fd = -1, got, i, n = 0;

	for (h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		for (i = 0; (i + 1) * sizeof(int) <= h->cmsg_len - CMSG_LEN(0); i++) {
			memcpy(&got, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
			if (n++)
				close(got);
			else
				fd = got;
		}
	}
	if (n > 1 || (m->msg_flags & MSG_CTRUNC)) {
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	return fd;
}

/*
 * Messages from a port that sends to this one: its ring's offer first,
 * then doorbells, which only woke us.  False when the connection is over:
 * it ended, or it broke the protocol.
 */
static bool xe_switch_in_read(struct xe_switch_in *in)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	char buf[sizeof(XE_SWITCH_OFFER)];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m;
	ssize_t n;
	int fd;

	for (;;) {
		m = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = c.buf, .msg_controllen = sizeof(c.buf) };
		n = recvmsg(in->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		fd = xe_switch_one_fd(&m);
		if (fd == -EPROTO)
			return false;
		if (fd < 0) {
			/* A doorbell, or the end (a sender sends nothing empty). */
			if (!n || in->ring.fd < 0)
				return false;
			continue;
		}
		/* One offer, as the protocol has it; the attach takes the fd. */
		if (in->ring.fd >= 0 || (m.msg_flags & MSG_TRUNC) ||
		    (size_t)n != strlen(XE_SWITCH_OFFER) || memcmp(buf, XE_SWITCH_OFFER, n)) {
			close(fd);
			return false;
		}
		if (xe_swring_attach(&in->ring, fd))
			return false;
	}
}

/*
 * A free slot for a new connection, or XE_SWITCH_PEERS: none.  With every
 * slot taken, one whose connection has sent no offer yet is closed for it
 * (a sender offers at once): connections that never offer cannot keep the
 * port's slots from the senders that do.
 */
static unsigned int xe_switch_free_in(struct xe_switch *sw)
{
	unsigned int i;

	for (i = 0; i < XE_SWITCH_PEERS; i++)
		if (sw->in[i].fd < 0)
			return i;
	for (i = 0; i < XE_SWITCH_PEERS; i++) {
		if (sw->in[i].ring.fd < 0) {
			xe_switch_in_close(&sw->in[i]);
			return i;
		}
	}
	return XE_SWITCH_PEERS;
}

/* A new connection: a port that will send to this one. */
static void xe_switch_accept(struct xe_switch *sw)
{
	unsigned int i;
	int fd;

	while ((fd = accept4(sw->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		i = xe_switch_free_in(sw);
		if (i == XE_SWITCH_PEERS || xe_switch_watch(sw, fd, XE_SWITCH_EV_IN + i)) {
			close(fd);	/* the sender finds it closed and uses the tap */
			continue;
		}
		sw->in[i].fd = fd;
		/* Its offer is likely there already. */
		if (!xe_switch_in_read(&sw->in[i]))
			xe_switch_in_close(&sw->in[i]);
	}
}

void xe_switch_events(struct xe_switch *sw)
{
	struct epoll_event ev[1 + 2 * XE_SWITCH_PEERS];
	int n, i;
	uint32_t what;

	n = epoll_wait(sw->epfd, ev, 1 + 2 * XE_SWITCH_PEERS, 0);
	for (i = 0; i < n; i++) {
		what = ev[i].data.u32;
		if (what == XE_SWITCH_EV_PORT) {
			xe_switch_accept(sw);
		} else if (what < XE_SWITCH_EV_OUT) {
			if (sw->in[what - XE_SWITCH_EV_IN].fd >= 0 &&
			    !xe_switch_in_read(&sw->in[what - XE_SWITCH_EV_IN]))
				xe_switch_in_close(&sw->in[what - XE_SWITCH_EV_IN]);
		} else if (sw->out[what - XE_SWITCH_EV_OUT].fd >= 0) {
			/*
			 * A receiver sends nothing: it left (its frames are
			 * lost), or had no room for us.  The tap for a while.
			 */
			xe_switch_absent(sw, sw->out[what - XE_SWITCH_EV_OUT].mac);
			xe_switch_out_close(&sw->out[what - XE_SWITCH_EV_OUT]);
		}
	}
}

unsigned int xe_switch_recv(struct xe_switch *sw,
			    void (*fn)(void *ctx, const uint8_t *frame, size_t len), void *ctx,
			    bool *more)
{
	const uint8_t *frame;
	unsigned int frames = 0, i, k;
	size_t bytes = 0;
	bool progress;
	int n;

	*more = false;
	do {
		progress = false;
		for (k = 0; k < XE_SWITCH_PEERS; k++) {
			i = (sw->next_in + k) % XE_SWITCH_PEERS;
			if (sw->in[i].ring.fd < 0)
				continue;
			n = xe_swring_peek(&sw->in[i].ring, &frame);
			if (n < 0) {
				sw->bad++;
				xe_switch_in_close(&sw->in[i]);
				continue;
			}
			if (!n)
				continue;
			fn(ctx, frame, n);
			xe_swring_done(&sw->in[i].ring, n);
			frames++;
			progress = true;
			bytes += n;
			if (bytes >= XE_SWITCH_RECV_BYTES) {
				/* The next call starts with the next ring. */
				sw->next_in = (i + 1) % XE_SWITCH_PEERS;
				*more = true;
				return frames;
			}
		}
	} while (progress);
	return frames;
}

bool xe_switch_sleep(struct xe_switch *sw)
{
	unsigned int i;

	for (i = 0; i < XE_SWITCH_PEERS; i++) {
		if (sw->in[i].ring.fd >= 0 && !xe_swring_sleep(&sw->in[i].ring)) {
			xe_switch_wake(sw);
			return false;
		}
	}
	return true;
}

void xe_switch_wake(struct xe_switch *sw)
{
	unsigned int i;

	for (i = 0; i < XE_SWITCH_PEERS; i++)
		if (sw->in[i].ring.fd >= 0)
			xe_swring_wake(&sw->in[i].ring);
}
