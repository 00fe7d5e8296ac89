// SPDX-License-Identifier: GPL-2.0
/* The switch between the XRNICs of one host: see switch.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "frame.h"
#include "switch.h"
#include "xe.h"

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

/* A large buffer, forced if we may (root), else as large as allowed. */
static void xe_switch_sockbuf(int fd, int force, int plain)
{
	int size = XE_SWITCH_SOCKBUF;

	if (setsockopt(fd, SOL_SOCKET, force, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, plain, &size, sizeof(size));
}

int xe_switch_open(struct xe_switch *sw, const char *name, const uint8_t *mac)
{
	struct sockaddr_un a;
	socklen_t len;
	int err;

	memset(sw, 0, sizeof(*sw));
	sw->fd = -1;
	sw->mark_bytes = XE_SWITCH_MARK_BYTES;
	if (!*name || strlen(name) > XE_SWITCH_NAME_MAX)
		return -EINVAL;
	memcpy(sw->name, name, strlen(name) + 1);
	sw->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sw->fd < 0)
		return -errno;
	xe_switch_sockbuf(sw->fd, SO_SNDBUFFORCE, SO_SNDBUF);
	xe_switch_sockbuf(sw->fd, SO_RCVBUFFORCE, SO_RCVBUF);
	len = xe_switch_addr(&a, name, mac);
	if (bind(sw->fd, (struct sockaddr *)&a, len)) {
		err = -errno;
		close(sw->fd);
		sw->fd = -1;
		return err;
	}
	return 0;
}

void xe_switch_close(struct xe_switch *sw)
{
	if (sw->fd >= 0)
		close(sw->fd);
	sw->fd = -1;
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

bool xe_switch_fits(const struct xe_switch *sw, const uint8_t *frame, size_t len)
{
	if (!sw->frames)
		return len + 2 <= XE_SWITCH_BATCH;
	return !memcmp(sw->dst, frame, 6) && sw->len + 2 + len <= XE_SWITCH_BATCH;
}

void xe_switch_add(struct xe_switch *sw, const uint8_t *frame, size_t len)
{
	if (!sw->frames)
		memcpy(sw->dst, frame, 6);
	sw->batch[sw->len] = len;
	sw->batch[sw->len + 1] = len >> 8;
	memcpy(sw->batch + sw->len + 2, frame, len);
	sw->len += 2 + len;
	sw->frames++;
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

/* Send one datagram to the port of dst: 0, -EAGAIN its queue is full, -ENOENT no port. */
static int xe_switch_sendto(struct xe_switch *sw, const uint8_t *dst, const uint8_t *buf,
			    size_t len)
{
	struct sockaddr_un a;
	socklen_t alen = xe_switch_addr(&a, sw->name, dst);

	if (sendto(sw->fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&a, alen) >= 0) {
		sw->queued_most += XE_SWITCH_COST_MOST(len);
		return 0;
	}
	if (errno == EAGAIN || errno == ENOBUFS)
		return -EAGAIN;
	/* ECONNREFUSED, ENOENT: nobody there (now). */
	return -ENOENT;
}

/* Lossless mode: hold the batch behind those held (1), or lose it: none is free (-EAGAIN). */
static int xe_switch_hold(struct xe_switch *sw, int64_t now)
{
	struct xe_switch_held *h;

	if (sw->held_count == XE_SWITCH_HELD) {
		xe_switch_empty(sw);
		return -EAGAIN;
	}
	h = &sw->held[(sw->held_first + sw->held_count) % XE_SWITCH_HELD];
	memcpy(h->dst, sw->dst, 6);
	memcpy(h->data, sw->batch, sw->len);
	h->len = sw->len;
	h->frames = sw->frames;
	if (!sw->held_count++) {
		sw->paused_since = now;
		sw->paused_until = now + XE_SWITCH_PAUSE_NS;
	}
	xe_switch_empty(sw);
	return 1;
}

int xe_switch_send(struct xe_switch *sw, int64_t now)
{
	int err;

	if (sw->held_count)		/* paused: behind what waits */
		return xe_switch_hold(sw, now);
	err = xe_switch_sendto(sw, sw->dst, sw->batch, sw->len);
	if (!err) {
		xe_switch_empty(sw);
		return 0;
	}
	if (err == -EAGAIN) {
		if (sw->held)
			return xe_switch_hold(sw, now);
		xe_switch_empty(sw);
		return -EAGAIN;
	}
	xe_switch_absent(sw, sw->dst);
	return -ENOENT;
}

int64_t xe_switch_resume(struct xe_switch *sw, int64_t now, unsigned int *lost)
{
	struct xe_switch_held *h;
	int err;

	if (!sw->held_count)
		return -1;
	if (now < sw->paused_until)
		return sw->paused_until - now;
	while (sw->held_count) {
		h = &sw->held[sw->held_first];
		err = xe_switch_sendto(sw, h->dst, h->data, h->len);
		if (err == -EAGAIN) {
			sw->paused_until = now + XE_SWITCH_PAUSE_NS;
			return XE_SWITCH_PAUSE_NS;
		}
		if (err) {
			*lost += h->frames;
			xe_switch_absent(sw, h->dst);
		}
		sw->held_first = (sw->held_first + 1) % XE_SWITCH_HELD;
		sw->held_count--;
	}
	sw->paused_since = 0;
	return -1;
}

void xe_switch_empty(struct xe_switch *sw)
{
	sw->len = 0;
	sw->frames = 0;
}

bool xe_switch_congested(struct xe_switch *sw)
{
	int n;

	if (sw->queued_most <= sw->mark_bytes)
		return false;
	/* An AF_UNIX datagram is the sender's memory until it is read. */
	if (ioctl(sw->fd, SIOCOUTQ, &n) < 0 || n < 0)
		n = 0;
	sw->queued_most = n;
	return sw->queued_most > sw->mark_bytes;
}

unsigned int xe_switch_mark_ce(struct xe_switch *sw)
{
	unsigned int marked = 0;
	size_t off = 0, n;

	/* The batch was built by xe_switch_add(): its lengths are good. */
	while (off < sw->len) {
		n = sw->batch[off] | (size_t)sw->batch[off + 1] << 8;
		marked += xe_frame_mark_ce(sw->batch + off + 2, n);
		off += 2 + n;
	}
	return marked;
}

unsigned int xe_switch_recv(struct xe_switch *sw, struct xe_switch_dgram *d, unsigned int n)
{
	struct mmsghdr m[XE_SWITCH_RECV_MOST];
	struct iovec iov[XE_SWITCH_RECV_MOST];
	unsigned int i;
	int got;

	if (n > XE_SWITCH_RECV_MOST)
		n = XE_SWITCH_RECV_MOST;
	for (i = 0; i < n; i++) {
		iov[i] = (struct iovec){ .iov_base = d[i].data, .iov_len = sizeof(d[i].data) };
		m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	got = recvmmsg(sw->fd, m, n, MSG_DONTWAIT, NULL);
	if (got <= 0)
		return 0;
	for (i = 0; i < (unsigned int)got; i++)
		d[i].len = m[i].msg_len;
	return got;
}

int xe_switch_split(const uint8_t *dgram, size_t len,
		    void (*fn)(void *ctx, const uint8_t *frame, size_t len), void *ctx)
{
	size_t off = 0, n;
	int frames = 0;

	while (off < len) {
		if (len - off < 2)
			return -1;
		n = dgram[off] | (size_t)dgram[off + 1] << 8;
		if (!n || n > len - off - 2)
			return -1;
		fn(ctx, dgram + off + 2, n);
		off += 2 + n;
		frames++;
	}
	return frames;
}
