// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the switch between device models (switch.c) and of its
 * rings (swring.c), port to port in one process: the frames, the order,
 * the doorbell, lossless mode's pauses, and what a port does with a peer
 * that breaks the rules.  The devices' traffic over it is test_wire's.
 * No VM.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "xe_fixture.h"
#include "switch.h"

#define MAC(n)	{ 2, 0, 0, 0, 0, n }

static const uint8_t mx[6] = MAC(1), my[6] = MAC(2), mz[6] = MAC(3);

/* Three ports of a switch of the test's own. */
FIXTURE(ports) {
	struct xe_switch *x, *y, *z;
};

FIXTURE_SETUP(ports)
{
	char name[32];

	self->x = calloc(1, sizeof(*self->x));
	self->y = calloc(1, sizeof(*self->y));
	self->z = calloc(1, sizeof(*self->z));
	ASSERT_TRUE(self->x && self->y && self->z);
	snprintf(name, sizeof(name), "test-switch-%d", getpid());
	ASSERT_EQ(0, xe_switch_open(self->x, name, mx));
	ASSERT_EQ(0, xe_switch_open(self->y, name, my));
	ASSERT_EQ(0, xe_switch_open(self->z, name, mz));
}

FIXTURE_TEARDOWN(ports)
{
	xe_switch_close(self->x);
	xe_switch_close(self->y);
	xe_switch_close(self->z);
	free(self->x);
	free(self->y);
	free(self->z);
}

/* A frame of len bytes (at least 16) to dst: its tag in bytes 12..15. */
static int send_one(struct xe_switch *x, const uint8_t *dst, uint32_t tag, size_t len)
{
	static uint8_t f[XE_SWRING_FRAME_MAX];

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 12, &tag, 4);
	f[len - 1] = tag;
	return xe_switch_xmit(x, f, len);
}

/* The tags of the frames a port took, in order. */
struct seen {
	unsigned int n;
	uint32_t tag[1 << 18];
	bool bad;		/* a frame not as send_one() made it */
};

static void see(void *ctx, const uint8_t *frame, size_t len)
{
	struct seen *s = ctx;
	uint32_t tag;

	memcpy(&tag, frame + 12, 4);
	if (len < 16 || frame[len - 1] != (uint8_t)tag)
		s->bad = true;
	if (s->n < ARRAY_SIZE(s->tag))
		s->tag[s->n++] = tag;
}

/* Everything waiting at port p, into s (emptied first); how many. */
static unsigned int take_all(struct xe_switch *p, struct seen *s)
{
	bool more = true;

	s->n = 0;
	s->bad = false;
	xe_switch_events(p);
	while (more)
		xe_switch_recv(p, see, s, &more);
	return s->n;
}

/* Frames of len bytes from x to dst until one does not go in; how many did. */
static unsigned int fill(struct xe_switch *x, const uint8_t *dst, size_t len, int *last)
{
	unsigned int n = 0;

	while ((*last = send_one(x, dst, n, len)) == 0)
		n++;
	return n;
}

TEST_F(ports, frames_arrive_whole_and_in_order_across_the_rings_end)
{
	static struct seen s;
	unsigned int i, k, sent = 0;
	bool ordered = true;

	/* Odd sizes, so that records run past the ring's end, several times over. */
	for (k = 0; k < 6; k++) {
		for (i = 0; i < 1000; i++)
			ASSERT_EQ(0, send_one(self->x, my, sent + i, 1000 + (sent + i) % 3001));
		xe_switch_flush(self->x, 0);
		ASSERT_EQ(1000, take_all(self->y, &s));
		for (i = 0; i < s.n; i++)
			ordered &= s.tag[i] == sent + i;
		sent += 1000;
	}
	EXPECT_TRUE(ordered);
	EXPECT_FALSE(s.bad);
	EXPECT_EQ(0, self->x->lost);
	EXPECT_EQ(0, self->y->bad);
	/* Through one ring, far more bytes than it holds. */
	EXPECT_LT(XE_SWRING_SIZE, sent * 2500);
}

/* What the sender's ring held while its receiver took a frame. */
struct held {
	const struct xe_swring *r;
	int64_t queued;
	const uint8_t *frame;
};

static void hold(void *ctx, const uint8_t *frame, size_t len)
{
	struct held *h = ctx;

	(void)len;
	h->queued = xe_swring_queued(h->r);
	h->frame = frame;
}

/* The receiver reads a frame where it lies; its space is free only after. */
TEST_F(ports, a_frame_is_taken_in_the_ring_and_its_space_handed_back_after)
{
	struct held h = { 0 };
	const uint8_t *in;
	unsigned int i;
	bool more;

	ASSERT_EQ(0, send_one(self->x, my, 7, 100));
	xe_switch_flush(self->x, 0);
	xe_switch_events(self->y);
	h.r = &self->x->out[0].ring;
	ASSERT_EQ(XE_SWRING_RECORD(100), xe_swring_queued(h.r));
	ASSERT_EQ(1, xe_switch_recv(self->y, hold, &h, &more));
	EXPECT_EQ(XE_SWRING_RECORD(100), h.queued);
	/* What the receiver saw lies in the ring, not in a copy. */
	for (i = 0; i < XE_SWITCH_PEERS && self->y->in[i].ring.fd < 0; i++)
		;
	ASSERT_GT(XE_SWITCH_PEERS, i);
	in = self->y->in[i].ring.data;
	EXPECT_TRUE(h.frame >= in && h.frame < in + 2 * XE_SWRING_SIZE);
	EXPECT_EQ(0, xe_swring_queued(h.r));
}

TEST_F(ports, a_full_ring_loses_the_frame_and_counts_it)
{
	static struct seen s;
	unsigned int n;
	int last;

	n = fill(self->x, my, 4096, &last);
	EXPECT_EQ(-EAGAIN, last);
	EXPECT_EQ(1, self->x->lost);
	EXPECT_EQ(XE_SWRING_SIZE / XE_SWRING_RECORD(4096), n);
	/* Others' rings are not full. */
	EXPECT_EQ(0, send_one(self->x, mz, 7, 60));
	EXPECT_EQ(n, take_all(self->y, &s));
	EXPECT_EQ(1, take_all(self->z, &s));
	/* Room again once read. */
	EXPECT_EQ(0, send_one(self->x, my, 8, 60));
}

TEST_F(ports, a_receiver_that_left_gets_no_more_frames_and_a_new_one_gets_a_new_ring)
{
	static struct seen s;
	char name[32];

	ASSERT_EQ(0, send_one(self->x, my, 1, 60));
	ASSERT_EQ(1, take_all(self->y, &s));
	/* y leaves: x hears of it on its connection and forgets the ring. */
	xe_switch_close(self->y);
	xe_switch_events(self->x);
	EXPECT_EQ(-1, self->x->out[0].fd);
	/* Absent for a while: its frames go another way (the tap). */
	EXPECT_FALSE(xe_switch_wants(self->x, my));
	/* A new y: once the while is over, x connects to it. */
	snprintf(name, sizeof(name), "test-switch-%d", getpid());
	ASSERT_EQ(0, xe_switch_open(self->y, name, my));
	self->x->absent[0].until = 1;
	EXPECT_TRUE(xe_switch_wants(self->x, my));
	EXPECT_EQ(0, send_one(self->x, my, 2, 60));
	ASSERT_EQ(1, take_all(self->y, &s));
	EXPECT_EQ(2, s.tag[0]);
}

TEST_F(ports, a_destination_without_a_port_is_refused_and_remembered)
{
	static const uint8_t nobody[6] = MAC(9);

	EXPECT_TRUE(xe_switch_wants(self->x, nobody));
	EXPECT_EQ(-ENOENT, send_one(self->x, nobody, 1, 60));
	EXPECT_FALSE(xe_switch_wants(self->x, nobody));
	EXPECT_EQ(0, self->x->lost);
}

TEST_F(ports, a_sleeping_receiver_gets_a_doorbell_and_an_awake_one_none)
{
	struct pollfd p = { .fd = self->y->epfd, .events = POLLIN };
	static struct seen s;

	/* The first frame connects: y has news either way. */
	ASSERT_EQ(0, send_one(self->x, my, 1, 60));
	ASSERT_EQ(1, take_all(self->y, &s));
	/* Awake (it polls its rings): no doorbell. */
	ASSERT_EQ(0, send_one(self->x, my, 2, 60));
	xe_switch_flush(self->x, 0);
	EXPECT_EQ(0, poll(&p, 1, 0));
	EXPECT_EQ(1, take_all(self->y, &s));
	/* Asleep: the frame rings. */
	EXPECT_TRUE(xe_switch_sleep(self->y));
	ASSERT_EQ(0, send_one(self->x, my, 3, 60));
	xe_switch_flush(self->x, 0);
	EXPECT_EQ(1, poll(&p, 1, 0));
	xe_switch_wake(self->y);
	EXPECT_EQ(1, take_all(self->y, &s));
	EXPECT_EQ(0, poll(&p, 1, 0));	/* the doorbell was taken */
	/* A frame that came before it slept: it does not sleep. */
	ASSERT_EQ(0, send_one(self->x, my, 4, 60));
	EXPECT_FALSE(xe_switch_sleep(self->y));
	EXPECT_EQ(1, take_all(self->y, &s));
}

/*
 * Head-of-line blocking: a paused port (lossless mode) holds its frames
 * for every destination behind the one whose ring was full, and sends
 * them in order once the pause is over and the ring has room; past
 * XE_SWITCH_HELD batches held, a frame is lost.  The clock is the test's.
 */
TEST_F(ports, a_paused_port_holds_every_destination_behind_the_full_one)
{
	unsigned int n, i, j, k, got = 0;
	static struct seen s;
	int64_t t = 1000000000;
	bool ordered = true;
	int last;

	ASSERT_EQ(0, xe_switch_lossless(self->x));
	/* y reads nothing: its ring fills, then x pauses. */
	n = fill(self->x, my, 4096, &last);
	ASSERT_EQ(1, last);
	EXPECT_TRUE(xe_switch_paused(self->x));
	/* z's frame waits behind y's, though z's ring is empty. */
	EXPECT_EQ(1, send_one(self->x, mz, 200, 60));
	EXPECT_EQ(XE_SWITCH_PAUSE_NS, xe_switch_flush(self->x, t));
	EXPECT_EQ(0, take_all(self->z, &s));
	/* y reads what it has; x tries again only once its pause is over. */
	EXPECT_EQ(n, take_all(self->y, &s));
	EXPECT_EQ(1, xe_switch_flush(self->x, t + XE_SWITCH_PAUSE_NS - 1));
	EXPECT_EQ(0, take_all(self->y, &s));
	EXPECT_EQ(0, take_all(self->z, &s));
	EXPECT_EQ(-1, xe_switch_flush(self->x, t + XE_SWITCH_PAUSE_NS));
	EXPECT_FALSE(xe_switch_paused(self->x));
	EXPECT_EQ(0, self->x->lost);
	EXPECT_EQ(1, take_all(self->y, &s));
	EXPECT_EQ(n, s.tag[0]);
	EXPECT_EQ(1, take_all(self->z, &s));
	EXPECT_EQ(200, s.tag[0]);
	/* Still full at the end of a pause: another one. */
	n = fill(self->x, my, 4096, &last);
	ASSERT_EQ(1, last);
	t += 2 * XE_SWITCH_PAUSE_NS;
	EXPECT_EQ(XE_SWITCH_PAUSE_NS, xe_switch_flush(self->x, t));
	EXPECT_EQ(XE_SWITCH_PAUSE_NS, xe_switch_flush(self->x, t + XE_SWITCH_PAUSE_NS));
	/* The headroom: XE_SWITCH_HELD batches held (these frames fill one each), the next lost. */
	for (i = 0; i <= XE_SWITCH_HELD && (last = send_one(self->x, my, 10000 + i, 40000)) == 1;
	     i++)
		;
	EXPECT_EQ(-EAGAIN, last);
	EXPECT_EQ(XE_SWITCH_HELD, self->x->held_count);
	EXPECT_EQ(1, self->x->lost);
	/* All the rest, in order, once y reads and the pauses end. */
	for (k = 0; k < 1000 && (xe_switch_paused(self->x) || k < 2); k++) {
		take_all(self->y, &s);
		for (j = 0; j < s.n; j++)
			ordered &= s.tag[j] == (got < n + 1 ? got : 10000 + got - n - 1), got++;
		xe_switch_flush(self->x, t + (k + 2) * XE_SWITCH_PAUSE_NS);
	}
	EXPECT_FALSE(xe_switch_paused(self->x));
	EXPECT_TRUE(ordered);
	EXPECT_EQ(n + 1 + i, got);
	EXPECT_EQ(1, self->x->lost);
	EXPECT_FALSE(s.bad);
}

/* A raw connection to port p, as any process of the network namespace could make. */
static int raw_connect(const uint8_t *mac)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), n;

	n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1,
		     "xrnic-switch/test-switch-%d/%02x%02x%02x%02x%02x%02x", getpid(),
		     mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path) +
			      1 + n))
		return -1;
	return fd;
}

/* Send msg with nfds (0 to 2) fds on a raw connection. */
static int raw_send_fds(int c, const char *msg, size_t len, const int *fds, unsigned int nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} u = { };
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds) {
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		u.h.cmsg_level = SOL_SOCKET;
		u.h.cmsg_type = SCM_RIGHTS;
		u.h.cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(&u.h), fds, nfds * sizeof(int));
	}
	return sendmsg(c, &m, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* Send msg with fd (or none: -1) on a raw connection. */
static int raw_send(int c, const char *msg, size_t len, int fd)
{
	return raw_send_fds(c, msg, len, &fd, fd >= 0);
}

/* True when the other end closed the raw connection c (unread: a reset). */
static bool closed(int c)
{
	char b;
	ssize_t n = recv(c, &b, 1, MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* True when y closed the raw connection c (and holds no ring, from it or another). */
static bool refused(struct xe_switch *y, int c)
{
	unsigned int i;

	xe_switch_events(y);
	for (i = 0; i < XE_SWITCH_PEERS; i++)
		if (y->in[i].ring.fd >= 0)
			return false;
	return closed(c);
}

/* How many fds this process has open. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static int memfd(size_t size, unsigned int seals)
{
	int fd = memfd_create("test", MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, size) || (seals && fcntl(fd, F_ADD_SEALS, seals)))
		return -1;
	return fd;
}

TEST_F(ports, a_port_refuses_an_offer_that_breaks_the_protocol)
{
	const size_t size = XE_SWRING_HDR + XE_SWRING_SIZE;
	const char *offer = XE_SWITCH_OFFER;
	int c, fd, p[2], two[2], fds;

	ASSERT_EQ(0, pipe(p));
	/* Not a memfd. */
	ASSERT_LE(0, c = raw_connect(my));
	ASSERT_EQ(0, raw_send(c, offer, strlen(offer), p[0]));
	EXPECT_TRUE(refused(self->y, c));
	close(c);
	/* A memfd whose size is not sealed: it could shrink under the mapping. */
	ASSERT_LE(0, c = raw_connect(my));
	ASSERT_LE(0, fd = memfd(size, 0));
	ASSERT_EQ(0, raw_send(c, offer, strlen(offer), fd));
	EXPECT_TRUE(refused(self->y, c));
	close(fd);
	close(c);
	/* Sealed, but not the ring's size. */
	ASSERT_LE(0, c = raw_connect(my));
	ASSERT_LE(0, fd = memfd(XE_SWRING_HDR + 4096, F_SEAL_SHRINK | F_SEAL_GROW));
	ASSERT_EQ(0, raw_send(c, offer, strlen(offer), fd));
	EXPECT_TRUE(refused(self->y, c));
	close(fd);
	close(c);
	/* A good memfd with another message. */
	ASSERT_LE(0, c = raw_connect(my));
	ASSERT_LE(0, fd = memfd(size, F_SEAL_SHRINK | F_SEAL_GROW));
	ASSERT_EQ(0, raw_send(c, "xrnic-switch-ring-2", strlen(offer), fd));
	EXPECT_TRUE(refused(self->y, c));
	close(c);
	/* The offer's message with more after it: longer than any offer. */
	ASSERT_LE(0, c = raw_connect(my));
	ASSERT_EQ(0, raw_send(c, XE_SWITCH_OFFER "-and-more", strlen(offer) + 9, fd));
	EXPECT_TRUE(refused(self->y, c));
	close(c);
	/* Two good fds with the offer: one ring, one fd; neither is kept. */
	ASSERT_LE(0, c = raw_connect(my));
	ASSERT_LE(0, two[0] = memfd(size, F_SEAL_SHRINK | F_SEAL_GROW));
	two[1] = fd;
	fds = open_fds();
	ASSERT_EQ(0, raw_send_fds(c, offer, strlen(offer), two, 2));
	EXPECT_TRUE(refused(self->y, c));
	EXPECT_EQ(fds, open_fds());
	close(two[0]);
	close(c);
	/* A doorbell before any offer. */
	ASSERT_LE(0, c = raw_connect(my));
	ASSERT_EQ(0, raw_send(c, "", 1, -1));
	EXPECT_TRUE(refused(self->y, c));
	close(c);
	/* A second offer on a connection that has its ring. */
	ASSERT_LE(0, c = raw_connect(my));
	ASSERT_EQ(0, raw_send(c, offer, strlen(offer), fd));
	xe_switch_events(self->y);
	EXPECT_LE(0, self->y->in[0].ring.fd);
	ASSERT_EQ(0, raw_send(c, offer, strlen(offer), fd));
	EXPECT_TRUE(refused(self->y, c));
	close(fd);
	close(c);
	close(p[0]);
	close(p[1]);
	/* Through it all, the port still works. */
	EXPECT_EQ(0, send_one(self->x, my, 5, 60));
	EXPECT_EQ(0, self->y->bad);
}

TEST_F(ports, a_port_takes_no_more_senders_than_it_has_slots)
{
	int c[XE_SWITCH_PEERS + 1], i, fd;
	const char *offer = XE_SWITCH_OFFER;

	ASSERT_LE(0, fd = memfd(XE_SWRING_HDR + XE_SWRING_SIZE, F_SEAL_SHRINK | F_SEAL_GROW));
	for (i = 0; i <= XE_SWITCH_PEERS; i++) {
		ASSERT_LE(0, c[i] = raw_connect(my));
		ASSERT_EQ(0, raw_send(c[i], offer, strlen(offer), fd));
	}
	xe_switch_events(self->y);
	for (i = 0; i < XE_SWITCH_PEERS; i++)
		EXPECT_LE(0, self->y->in[i].ring.fd);
	/* The one past the slots is closed: its sender uses the tap. */
	EXPECT_TRUE(closed(c[XE_SWITCH_PEERS]));
	for (i = 0; i <= XE_SWITCH_PEERS; i++)
		close(c[i]);
	close(fd);
	/* Their ends free the slots. */
	xe_switch_events(self->y);
	for (i = 0; i < XE_SWITCH_PEERS; i++)
		EXPECT_EQ(-1, self->y->in[i].fd);
}

/*
 * Connections that never offer a ring (a hostile local process) take
 * every slot: a real sender's connection takes one of theirs, and its
 * frames go through its ring.
 */
TEST_F(ports, connections_without_an_offer_give_their_slots_to_senders)
{
	static struct seen s;
	int c[XE_SWITCH_PEERS], i, gone = 0;

	for (i = 0; i < XE_SWITCH_PEERS; i++)
		ASSERT_LE(0, c[i] = raw_connect(my));
	xe_switch_events(self->y);
	for (i = 0; i < XE_SWITCH_PEERS; i++)
		ASSERT_LE(0, self->y->in[i].fd);
	ASSERT_EQ(0, send_one(self->x, my, 9, 60));
	EXPECT_EQ(1, take_all(self->y, &s));
	EXPECT_EQ(9, s.tag[0]);
	for (i = 0; i < XE_SWITCH_PEERS; i++) {
		gone += closed(c[i]);
		close(c[i]);
	}
	EXPECT_EQ(1, gone);
}

/*
 * A sender that writes a record the ring cannot hold (here x's own ring,
 * changed behind its back): the receiver takes the good frames before it,
 * then closes that ring and counts it; the sender's next frame gets a new
 * one.
 */
TEST_F(ports, a_ring_with_a_bad_record_is_closed_and_counted)
{
	static const uint32_t bad_len[] = { 0, XE_SWRING_FRAME_MAX + 1, 4096 };
	static struct seen s;
	struct xe_swring *r;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(bad_len); k++) {
		ASSERT_EQ(0, send_one(self->x, my, 1, 60));
		r = &self->x->out[0].ring;
		/* The next record: a length that is 0, too long, or past prod. */
		memcpy(r->data + (r->idx & (XE_SWRING_SIZE - 1)), &bad_len[k], 4);
		__atomic_store_n(&r->hdr->prod, r->idx + 64, __ATOMIC_RELEASE);
		EXPECT_EQ(1, take_all(self->y, &s));
		EXPECT_EQ(k + 1, self->y->bad);
		/* x hears the end, and starts again. */
		xe_switch_events(self->x);
		EXPECT_EQ(-1, self->x->out[0].fd);
	}
	/* A prod further ahead than the ring holds. */
	ASSERT_EQ(0, send_one(self->x, my, 2, 60));
	r = &self->x->out[0].ring;
	__atomic_store_n(&r->hdr->prod, r->idx + XE_SWRING_SIZE + 8, __ATOMIC_RELEASE);
	EXPECT_EQ(0, take_all(self->y, &s));
	EXPECT_EQ(4, self->y->bad);
}

/*
 * A receiver that writes an impossible cons (past prod, or further behind
 * than the ring holds): the sender closes that ring, loses the frame and
 * counts it; nothing is written out of bounds.
 */
TEST_F(ports, a_ring_with_an_impossible_cons_is_closed_by_the_sender)
{
	static struct seen s;
	struct xe_swring *r;

	ASSERT_EQ(0, send_one(self->x, my, 1, 60));
	ASSERT_EQ(1, take_all(self->y, &s));
	r = &self->x->out[0].ring;
	__atomic_store_n(&r->hdr->cons, r->idx + 8, __ATOMIC_RELEASE);
	EXPECT_EQ(-EAGAIN, send_one(self->x, my, 2, 60));
	EXPECT_EQ(1, self->x->lost);
	EXPECT_EQ(-1, self->x->out[0].fd);
	/* The same connection is gone; a new one works. */
	EXPECT_EQ(0, send_one(self->x, my, 3, 60));
	ASSERT_EQ(1, take_all(self->y, &s));
	EXPECT_EQ(3, s.tag[0]);
	r = &self->x->out[0].ring;
	__atomic_store_n(&r->hdr->cons, r->idx - XE_SWRING_SIZE - 8, __ATOMIC_RELEASE);
	EXPECT_EQ(-EAGAIN, send_one(self->x, my, 4, 60));
	EXPECT_EQ(2, self->x->lost);
}

TEST_HARNESS_MAIN
