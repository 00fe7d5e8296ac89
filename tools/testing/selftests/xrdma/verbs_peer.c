// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA between two nodes, every byte checked: the same program runs on
 * both, through plain libibverbs, so either side may be any RDMA device
 * (an XRNIC, Linux's rxe).  The server listens on a TCP port, the client
 * connects; over that socket they swap their QPs' numbers, PSNs, GIDs and
 * their buffer's address and rkey, and meet between the phases.  Each
 * phase runs both ways at once on every QP:
 *
 *   send_recv  -n SENDs per QP, each carrying its QP and sequence number
 *              and a pattern; every receive checks them: each SEND arrives
 *              once and in order, with its bytes
 *   write      one RDMA WRITE of -s bytes into the peer's buffer; the peer
 *              checks every byte
 *   read       one RDMA READ of -s bytes of the peer's buffer, checked
 *   immediate  on QP 0 a SEND with immediate, then an RDMA WRITE with
 *              immediate of -s bytes: the peer's receives show both
 *              immediates, in order, and it checks every byte
 *   atomics    -a FETCH_ADDs of 1 per QP on a counter of the peer's; each
 *              side checks that the peer's adds sum exactly on its counter
 *              and that its own saw every earlier value once; then a
 *              CMP_SWAP that must succeed and one that must fail
 *   windows    on QP 0 each side binds a type 2 memory window over its
 *              exposed bytes for remote writes; the peer WRITEs -s bytes
 *              through the window's rkey (checked), then a SEND with
 *              Invalidate naming it: the receive reports the key, and the
 *              window, free again, binds anew and LOCAL_INV frees it
 *   srq        -q new RC QPs whose receives all come from one shared
 *              receive queue of SRQ_DEPTH (fewer than the SENDs in flight,
 *              so the SRQ runs dry and RNR retries follow): -n SENDs per
 *              QP (at most SRQ_SENDS), each arriving once and in order on
 *              its QP, intact
 *   ud         a UD QP each, UD_SENDS datagrams each way to an address
 *              handle of the peer's GID: each arrives once, intact, from
 *              the peer's QP, its buffer starting with the GRH that names
 *              the peer's address (an IPv4 header in the last 20 bytes
 *              for an IPv4 GID); with -l (a lossy wire) datagrams may be
 *              lost or come twice, never corrupted
 *
 * Usage: verbs_peer [-d DEV] [-g GID_INDEX] [-q QPS] [-s BYTES] [-n SENDS]
 *        [-a ADDS] [-p PORT] [-l] [SERVER]
 * Prints KTAP; exits 0 when every phase passed, 1 when one failed, 2 on a
 * bad option.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define MAX_QPS		64
#define SEND_BYTES	64		/* one SEND: qp, seq, pattern */
#define RECV_DEPTH	64		/* receives posted per QP */
#define SEND_DEPTH	64		/* SENDs in flight per QP */
#define CQ_WAIT_S	120		/* a completion that takes longer: failure */
#define SRQ_DEPTH	128		/* the srq phase's shared receive queue */
#define SRQ_SENDS	500		/* at most this many SENDs per QP in it */
#define UD_SENDS	256		/* datagrams each way in the ud phase */
#define UD_QKEY		0x11111111
#define GRH_BYTES	40		/* before a UD receive's payload */
#define UD_QUIET_S	2		/* a lossy wire: no datagram for this long ends */

struct opts {
	const char *dev, *server, *port;
	int gid_index, qps, sends, adds;
	size_t size;
	bool lossy;
};

/* What a side tells the other about itself. */
struct wire_info {
	uint32_t qpn[MAX_QPS];
	uint32_t psn[MAX_QPS];
	uint8_t gid[16];
	uint64_t addr;		/* the exposed -s bytes, then the counter */
	uint32_t rkey;
	uint32_t qps;
} __attribute__((packed));

struct node {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[MAX_QPS];
	struct ibv_mr *mr;
	struct ibv_mw *mw;	/* the windows phase's */
	uint8_t *buf;		/* see the layout below */
	size_t len;
	struct wire_info me, peer;
	int sock;
	int qps;
};

static int n_test;
static int failed;

static void result(bool ok, const char *name)
{
	printf("%s %d verbs_peer.%s\n", ok ? "ok" : "not ok", ++n_test, name);
	fflush(stdout);
	if (!ok)
		failed = 1;
}

#define FAIL(...) do { printf("# " __VA_ARGS__); printf("\n"); return false; } while (0)

/* The socket to the peer, which closes when the peer ends (a failed phase ends it). */
static int peer_sock = -1;

/*
 * Called while a wait for the peer's traffic finds nothing: every 256th
 * call, false once the peer has ended (nothing more will come from it, and
 * waiting out the time limit would keep the other side's tests waiting).
 */
static bool peer_alive(unsigned int *idle)
{
	char c;

	if (++*idle % 256)
		return true;
	return recv(peer_sock, &c, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
}

/*
 * The layout of buf (one MR): -s bytes the peer writes into and reads from,
 * the counter the peer adds to (64 bytes), -s bytes of our own (the source
 * of our WRITE, where our READ lands), then per QP its send and receive
 * slots, then per QP the FETCH_ADD result.
 */
static uint64_t *counter(struct node *n, size_t size)
{
	return (uint64_t *)(n->buf + size);
}

static uint8_t *own_data(struct node *n, size_t size)
{
	return n->buf + size + 64;
}

static uint8_t *send_slot(struct node *n, size_t size, int q)
{
	return own_data(n, size) + size + (size_t)q * (SEND_DEPTH + RECV_DEPTH) * SEND_BYTES;
}

static uint8_t *recv_slot(struct node *n, size_t size, int q, int i)
{
	return send_slot(n, size, q) + (size_t)(SEND_DEPTH + i) * SEND_BYTES;
}

static uint64_t *fetched(struct node *n, size_t size, int q)
{
	return (uint64_t *)(send_slot(n, size, MAX_QPS) + (size_t)q * 8);
}

static int full_io(int fd, void *p, size_t len, bool out)
{
	uint8_t *b = p;

	while (len) {
		ssize_t r = out ? write(fd, b, len) : read(fd, b, len);

		if (r <= 0)
			return -1;
		b += r;
		len -= r;
	}
	return 0;
}

/* Both sides reach the same point: one byte each way. */
static bool barrier(struct node *n)
{
	char c = 'b';

	return !full_io(n->sock, &c, 1, true) && !full_io(n->sock, &c, 1, false);
}

static int connect_peer(const struct opts *o)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = o->server ? 0 : AI_PASSIVE };
	struct addrinfo *ai;
	int fd, one = 1, i;

	if (getaddrinfo(o->server, o->port, &hints, &ai))
		return -1;
	for (i = 0; i < 120; i++) {
		fd = socket(ai->ai_family, ai->ai_socktype, 0);
		if (fd < 0)
			break;
		if (!o->server) {
			int c;

			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1)) {
				close(fd);
				break;
			}
			c = accept(fd, NULL, NULL);
			close(fd);
			fd = c;
			break;
		}
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
		sleep(1);	/* the server is not listening yet */
	}
	freeaddrinfo(ai);
	return fd;
}

/* A QP's number and a random first PSN, for wire_info. */
static void describe_qp(struct wire_info *w, int i, const struct ibv_qp *qp)
{
	w->qpn[i] = htonl(qp->qp_num);
	w->psn[i] = htonl(((uint32_t)rand() ^ (uint32_t)i << 12) & 0xffffff);
}

static bool open_node(struct node *n, const struct opts *o)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SEND_DEPTH + 2, .max_recv_wr = RECV_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_device **list = ibv_get_device_list(NULL);
	union ibv_gid gid;
	int i;

	if (!list)
		FAIL("no RDMA devices");
	for (i = 0; list[i]; i++)
		if (!o->dev || !strcmp(ibv_get_device_name(list[i]), o->dev))
			break;
	if (list[i])
		n->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!n->ctx)
		FAIL("cannot open device %s", o->dev ? o->dev : "(first)");
	n->qps = o->qps;
	n->len = 2 * o->size + 64 + (size_t)(MAX_QPS + 1) * (SEND_DEPTH + RECV_DEPTH) * SEND_BYTES;
	n->buf = aligned_alloc(4096, (n->len + 4095) & ~4095UL);
	n->pd = ibv_alloc_pd(n->ctx);
	n->scq = ibv_create_cq(n->ctx, o->qps * (SEND_DEPTH + 2), NULL, NULL, 0);
	n->rcq = ibv_create_cq(n->ctx, o->qps * RECV_DEPTH, NULL, NULL, 0);
	if (!n->buf || !n->pd || !n->scq || !n->rcq)
		FAIL("cannot allocate PD, CQs or %zu bytes", n->len);
	memset(n->buf, 0, n->len);
	n->mr = ibv_reg_mr(n->pd, n->buf, n->len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	if (!n->mr)
		FAIL("ibv_reg_mr of %zu bytes: %s", n->len, strerror(errno));
	init.send_cq = n->scq;
	init.recv_cq = n->rcq;
	for (i = 0; i < n->qps; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT, .port_num = 1,
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_ATOMIC,
		};

		n->qp[i] = ibv_create_qp(n->pd, &init);
		if (!n->qp[i])
			FAIL("ibv_create_qp %d: %s", i, strerror(errno));
		if (ibv_modify_qp(n->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			FAIL("QP %d to INIT: %s", i, strerror(errno));
		describe_qp(&n->me, i, n->qp[i]);
	}
	if (ibv_query_gid(n->ctx, 1, o->gid_index, &gid))
		FAIL("no GID %d", o->gid_index);
	memcpy(n->me.gid, gid.raw, 16);
	n->me.addr = htobe64((uintptr_t)n->buf);
	n->me.rkey = htonl(n->mr->rkey);
	n->me.qps = htonl(n->qps);
	return true;
}

/* An RC QP in INIT to RTS, connected to QP i of the peer's wire_info. */
static bool connect_rc(struct node *n, const struct opts *o, struct ibv_qp *qp,
		       const struct wire_info *me, const struct wire_info *peer, int i)
{
	struct ibv_port_attr port;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.dest_qp_num = ntohl(peer->qpn[i]), .rq_psn = ntohl(peer->psn[i]),
		.max_dest_rd_atomic = 16, .min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .sgid_index = o->gid_index, .hop_limit = 64 } },
	};

	if (ibv_query_port(n->ctx, 1, &port))
		FAIL("ibv_query_port: %s", strerror(errno));
	a.path_mtu = port.active_mtu;
	memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		FAIL("QP %d to RTR: %s", i, strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = ntohl(me->psn[i]);
	a.max_rd_atomic = 16;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		FAIL("QP %d to RTS: %s", i, strerror(errno));
	return true;
}

/* Swap wire_info with the peer: the same number of QPs on both sides. */
static bool swap_info(struct node *n, const struct wire_info *me, struct wire_info *peer)
{
	if (full_io(n->sock, (void *)me, sizeof(*me), true) ||
	    full_io(n->sock, peer, sizeof(*peer), false))
		FAIL("the peer went away");
	if (peer->qps != me->qps)
		FAIL("the peer has %u QPs, this side %u", ntohl(peer->qps), ntohl(me->qps));
	return true;
}

static bool connect_qps(struct node *n, const struct opts *o)
{
	int i;

	if (!swap_info(n, &n->me, &n->peer))
		return false;
	for (i = 0; i < n->qps; i++)
		if (!connect_rc(n, o, n->qp[i], &n->me, &n->peer, i))
			return false;
	return barrier(n);
}

/* One completion from cq, waiting at most CQ_WAIT_S; false on error. */
static bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	time_t end = time(NULL) + CQ_WAIT_S;
	unsigned int idle = 0;
	int r;

	while (!(r = ibv_poll_cq(cq, 1, wc))) {
		if (time(NULL) > end)
			FAIL("no completion within %d s", CQ_WAIT_S);
		if (!peer_alive(&idle))
			FAIL("the peer went away");
		usleep(20);
	}
	if (r < 0)
		FAIL("ibv_poll_cq: %d", r);
	if (wc->status != IBV_WC_SUCCESS)
		FAIL("completion %s (wr_id %#llx, opcode %d)", ibv_wc_status_str(wc->status),
		     (unsigned long long)wc->wr_id, wc->opcode);
	return true;
}

static bool post_recv(struct node *n, size_t size, int q, int i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)recv_slot(n, size, q, i),
			       .length = SEND_BYTES, .lkey = n->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)q << 32 | i, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return !ibv_post_recv(n->qp[q], &wr, &bad);
}

static bool post_send(struct node *n, int q, enum ibv_wr_opcode op, void *local,
		      uint32_t len, uint64_t raddr, uint64_t add, uint64_t swap,
		      uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)local, .length = len, .lkey = n->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				  .opcode = op, .send_flags = IBV_SEND_SIGNALED }, *bad;
	int r;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = ntohl(n->peer.rkey);
		wr.wr.atomic.compare_add = add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = ntohl(n->peer.rkey);
	}
	/* An immediate is its wr_id's low 32 bits. */
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl((uint32_t)wr_id);
	r = ibv_post_send(n->qp[q], &wr, &bad);
	if (r)
		printf("# ibv_post_send (opcode %d) on QP %d: %s\n", op, q, strerror(r));
	return !r;
}

static void fill_send(uint8_t *p, int q, uint32_t seq)
{
	int i;

	memcpy(p, &q, 4);
	memcpy(p + 4, &seq, 4);
	for (i = 8; i < SEND_BYTES; i++)
		p[i] = (uint8_t)(seq * 7 + i + q);
}

/* -n SENDs per QP each way; every receive in order, once, intact. */
static bool send_recv(struct node *n, const struct opts *o)
{
	uint32_t sent[MAX_QPS] = {}, done[MAX_QPS] = {}, got[MAX_QPS] = {};
	long total = (long)o->sends * n->qps, recvd = 0, completed = 0;
	time_t end = time(NULL) + CQ_WAIT_S;
	uint8_t want[SEND_BYTES];
	unsigned int idle = 0;
	struct ibv_wc wc;
	int q, i;

	for (q = 0; q < n->qps; q++)
		for (i = 0; i < RECV_DEPTH; i++)
			if (!post_recv(n, o->size, q, i))
				FAIL("ibv_post_recv failed");
	if (!barrier(n))
		FAIL("the peer went away");
	while (recvd < total || completed < total) {
		if (time(NULL) > end)
			FAIL("%ld of %ld SENDs completed, %ld received, none for %d s", completed,
			     total, recvd, CQ_WAIT_S);
		if (!peer_alive(&idle))
			FAIL("the peer went away: %ld of %ld SENDs completed, %ld received",
			     completed, total, recvd);
		for (q = 0; q < n->qps; q++) {
			while (sent[q] < (uint32_t)o->sends && sent[q] - done[q] < SEND_DEPTH) {
				uint8_t *p = send_slot(n, o->size, q) + (sent[q] % SEND_DEPTH) * SEND_BYTES;

				fill_send(p, q, sent[q]);
				if (!post_send(n, q, IBV_WR_SEND, p, SEND_BYTES, 0, 0, 0, q))
					return false;
				sent[q]++;
			}
		}
		if (ibv_poll_cq(n->scq, 1, &wc) > 0) {
			if (wc.status != IBV_WC_SUCCESS)
				FAIL("SEND completed with %s", ibv_wc_status_str(wc.status));
			done[wc.wr_id]++;
			completed++;
			end = time(NULL) + CQ_WAIT_S;
		}
		if (recvd < total && ibv_poll_cq(n->rcq, 1, &wc) > 0) {
			uint8_t *p;

			if (wc.status != IBV_WC_SUCCESS)
				FAIL("receive completed with %s", ibv_wc_status_str(wc.status));
			q = wc.wr_id >> 32;
			i = (uint32_t)wc.wr_id;
			p = recv_slot(n, o->size, q, i);
			fill_send(want, q, got[q]);
			if (wc.byte_len != SEND_BYTES || memcmp(p, want, SEND_BYTES)) {
				uint32_t seq;

				memcpy(&seq, p + 4, 4);
				FAIL("QP %d: receive %u holds SEND %u (%u bytes)", q, got[q], seq,
				     wc.byte_len);
			}
			got[q]++;
			recvd++;
			end = time(NULL) + CQ_WAIT_S;
			if (!post_recv(n, o->size, q, i))
				FAIL("ibv_post_recv failed");
		}
	}
	printf("# %ld SENDs each way on %d QPs, all once and in order\n", total, n->qps);
	return barrier(n);
}

static uint8_t pattern(size_t i, int side)
{
	return (uint8_t)(i * 131 + (i >> 12) + side * 0x5a);
}

/* A byte of buf that is not the writer's pattern; -1 if none. */
static long first_wrong(const uint8_t *buf, size_t size, int side)
{
	size_t i;

	for (i = 0; i < size; i++)
		if (buf[i] != pattern(i, side))
			return (long)i;
	return -1;
}

/* WRITE -s bytes of our pattern into the peer's exposed bytes on QP 0;
 * the peer checks them. */
static bool write_phase(struct node *n, const struct opts *o, int side)
{
	uint8_t *src = own_data(n, o->size);
	struct ibv_wc wc;
	size_t i;
	long bad;

	for (i = 0; i < o->size; i++)
		src[i] = pattern(i, side);
	memset(n->buf, 0, o->size);
	if (!barrier(n))
		FAIL("the peer went away");
	if (!post_send(n, 0, IBV_WR_RDMA_WRITE, src, o->size, be64toh(n->peer.addr), 0, 0, 1) ||
	    !poll_one(n->scq, &wc) || !barrier(n))
		FAIL("RDMA WRITE of %zu bytes failed", o->size);
	bad = first_wrong(n->buf, o->size, !side);
	if (bad >= 0)
		FAIL("byte %ld of %zu written by the peer is %#x, not %#x", bad, o->size,
		     n->buf[bad], pattern(bad, !side));
	printf("# %zu bytes written each way, all checked\n", o->size);
	return barrier(n);
}

/* READ the peer's exposed bytes (its pattern) on QP 0 and check them. */
static bool read_phase(struct node *n, const struct opts *o, int side)
{
	uint8_t *into = own_data(n, o->size);
	struct ibv_wc wc;
	size_t i;
	long bad;

	for (i = 0; i < o->size; i++)
		n->buf[i] = pattern(i, side);
	memset(into, 0, o->size);
	if (!barrier(n))
		FAIL("the peer went away");
	if (!post_send(n, 0, IBV_WR_RDMA_READ, into, o->size, be64toh(n->peer.addr), 0, 0, 2) ||
	    !poll_one(n->scq, &wc))
		FAIL("RDMA READ of %zu bytes failed", o->size);
	bad = first_wrong(into, o->size, !side);
	if (bad >= 0)
		FAIL("byte %ld of %zu read from the peer is %#x, not %#x", bad, o->size,
		     into[bad], pattern(bad, !side));
	printf("# %zu bytes read each way, all checked\n", o->size);
	return barrier(n);
}

/*
 * The next receive on QP 0: op with immediate imm and len bytes, and for
 * a SEND the bytes want in its slot; then the receive is posted again.
 */
static bool recv_imm(struct node *n, const struct opts *o, enum ibv_wc_opcode op,
		     uint32_t imm, uint32_t len, const uint8_t *want)
{
	struct ibv_wc wc;
	int q, i;

	if (!poll_one(n->rcq, &wc))
		return false;
	q = wc.wr_id >> 32;
	i = (uint32_t)wc.wr_id;
	if (wc.opcode != op || !(wc.wc_flags & IBV_WC_WITH_IMM) || ntohl(wc.imm_data) != imm ||
	    wc.byte_len != len)
		FAIL("receive: opcode %d, flags %#x, immediate %#x, %u bytes; not %d, %#x, %u",
		     wc.opcode, wc.wc_flags, ntohl(wc.imm_data), wc.byte_len, op, imm, len);
	if (want && memcmp(recv_slot(n, o->size, q, i), want, SEND_BYTES))
		FAIL("the SEND with immediate arrived with other bytes");
	return post_recv(n, o->size, q, i);
}

/* SEND and WRITE with immediate on QP 0, each way: both arrive, in order, intact. */
static bool imm_phase(struct node *n, const struct opts *o, int side)
{
	uint32_t mine = 0x1e000000 | side << 8, theirs = 0x1e000000 | !side << 8;
	uint8_t *src = own_data(n, o->size), *msg = send_slot(n, o->size, 0);
	uint8_t want[SEND_BYTES];
	struct ibv_wc wc;
	size_t i;

	/* The receives the SENDs left posted take both. */
	for (i = 0; i < o->size; i++)
		src[i] = pattern(i, side) ^ 0xa5;
	memset(n->buf, 0, o->size);
	fill_send(msg, 0, mine);
	fill_send(want, 0, theirs);
	if (!barrier(n))
		FAIL("the peer went away");
	if (!post_send(n, 0, IBV_WR_SEND_WITH_IMM, msg, SEND_BYTES, 0, 0, 0, mine | 1) ||
	    !post_send(n, 0, IBV_WR_RDMA_WRITE_WITH_IMM, src, o->size, be64toh(n->peer.addr),
		       0, 0, mine | 2) ||
	    !poll_one(n->scq, &wc) || !poll_one(n->scq, &wc))
		FAIL("SEND or RDMA WRITE with immediate failed");
	if (!recv_imm(n, o, IBV_WC_RECV, theirs | 1, SEND_BYTES, want) ||
	    !recv_imm(n, o, IBV_WC_RECV_RDMA_WITH_IMM, theirs | 2, o->size, NULL))
		return false;
	for (i = 0; i < o->size; i++)
		if (n->buf[i] != (uint8_t)(pattern(i, !side) ^ 0xa5))
			FAIL("byte %zu of %zu written with immediate by the peer is %#x", i,
			     o->size, n->buf[i]);
	printf("# a SEND and a %zu-byte WRITE with immediate each way, all checked\n", o->size);
	return barrier(n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* -a FETCH_ADDs per QP on the peer's counter; then two CMP_SWAPs. */
static bool atomics(struct node *n, const struct opts *o)
{
	long total = (long)o->adds * n->qps, i, posted = 0;
	uint64_t *seen = calloc(total ? total : 1, sizeof(*seen));
	uint64_t raddr = be64toh(n->peer.addr) + o->size;
	struct ibv_wc wc;
	int q;

	if (!seen)
		FAIL("no memory");
	*counter(n, o->size) = 0;
	if (!barrier(n))
		goto fail_peer;
	/* One atomic in flight per QP: its result slot is the QP's. */
	for (q = 0; q < n->qps; q++)
		if (!post_send(n, q, IBV_WR_ATOMIC_FETCH_AND_ADD, fetched(n, o->size, q), 8,
			       raddr, 1, 0, q))
			goto fail;
	posted = n->qps;
	for (i = 0; i < total; i++) {
		if (!poll_one(n->scq, &wc))
			goto fail;
		q = wc.wr_id;
		seen[i] = *fetched(n, o->size, q);
		if (posted < total) {
			if (!post_send(n, q, IBV_WR_ATOMIC_FETCH_AND_ADD, fetched(n, o->size, q),
				       8, raddr, 1, 0, q))
				goto fail;
			posted++;
		}
	}
	if (!barrier(n))
		goto fail_peer;
	if (*counter(n, o->size) != (uint64_t)total) {
		printf("# the peer's %ld FETCH_ADDs left our counter at %llu\n", total,
		       (unsigned long long)*counter(n, o->size));
		goto fail;
	}
	/* The values we fetched are 0 .. total-1, each once. */
	qsort(seen, total, sizeof(*seen), cmp_u64);
	for (i = 0; i < total; i++)
		if (seen[i] != (uint64_t)i) {
			printf("# fetched values: %ld-th is %llu\n", i,
			       (unsigned long long)seen[i]);
			goto fail;
		}
	/* Both checked their counters: swap total -> 7 succeeds (returns
	 * total), 8 -> 9 fails (returns 7). */
	if (!barrier(n))
		goto fail_peer;
	if (!post_send(n, 0, IBV_WR_ATOMIC_CMP_AND_SWP, fetched(n, o->size, 0), 8, raddr,
		       total, 7, 0) || !poll_one(n->scq, &wc) ||
	    *fetched(n, o->size, 0) != (uint64_t)total) {
		printf("# CMP_SWAP %ld -> 7 returned %llu\n", total,
		       (unsigned long long)*fetched(n, o->size, 0));
		goto fail;
	}
	if (!post_send(n, 0, IBV_WR_ATOMIC_CMP_AND_SWP, fetched(n, o->size, 0), 8, raddr,
		       8, 9, 0) || !poll_one(n->scq, &wc) || *fetched(n, o->size, 0) != 7) {
		printf("# CMP_SWAP 8 -> 9 returned %llu, not 7\n",
		       (unsigned long long)*fetched(n, o->size, 0));
		goto fail;
	}
	if (!barrier(n))
		goto fail_peer;
	if (*counter(n, o->size) != 7) {
		printf("# the peer's CMP_SWAPs left our counter at %llu, not 7\n",
		       (unsigned long long)*counter(n, o->size));
		goto fail;
	}
	free(seen);
	printf("# %ld FETCH_ADDs each way summed exactly; CMP_SWAP swapped once\n", total);
	return barrier(n);
fail_peer:
	printf("# the peer went away\n");
fail:
	free(seen);
	return false;
}

/* Post wr on QP 0 and wait for its completion, which must succeed. */
static bool post_wait(struct node *n, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int r = ibv_post_send(n->qp[0], wr, &bad);

	if (r)
		FAIL("%s: ibv_post_send: %s", what, strerror(r));
	if (!poll_one(n->scq, &wc))
		FAIL("%s failed", what);
	return true;
}

/* Bind our type 2 window over the exposed -s bytes, remote writes only. */
static bool bind_window(struct node *n, const struct opts *o)
{
	struct ibv_send_wr wr = {
		.wr_id = 3, .opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { .mw = n->mw, .rkey = ibv_inc_rkey(n->mw->rkey),
			     .bind_info = { .mr = n->mr, .addr = (uintptr_t)n->buf,
					    .length = o->size,
					    .mw_access_flags = IBV_ACCESS_REMOTE_WRITE } },
	};

	if (!post_wait(n, &wr, "BIND_MW"))
		return false;
	/* A type 2 window's key is the user's to keep (IBTA 10.6.7.2.2). */
	n->mw->rkey = wr.bind_mw.rkey;
	return true;
}

/*
 * Type 2 memory windows, each way on QP 0: WRITE through the peer's
 * window, SEND with Invalidate, the window bound again and LOCAL_INV.
 */
static bool window_phase(struct node *n, const struct opts *o, int side)
{
	uint8_t *src = own_data(n, o->size), *msg = send_slot(n, o->size, 0);
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = o->size, .lkey = n->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 4, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED };
	uint32_t mine, theirs;
	struct ibv_wc wc;
	size_t i;

	for (i = 0; i < o->size; i++)
		src[i] = pattern(i, side) ^ 0x3c;
	memset(n->buf, 0, o->size);
	n->mw = ibv_alloc_mw(n->pd, IBV_MW_TYPE_2);
	if (!n->mw)
		FAIL("ibv_alloc_mw type 2: %s", strerror(errno));
	if (!bind_window(n, o))
		return false;
	mine = htonl(n->mw->rkey);
	if (full_io(n->sock, &mine, 4, true) || full_io(n->sock, &theirs, 4, false))
		FAIL("the peer went away");
	theirs = ntohl(theirs);
	if (theirs == ntohl(n->peer.rkey))
		FAIL("the peer's window has its MR's rkey %#x", theirs);
	wr.wr.rdma.remote_addr = be64toh(n->peer.addr);
	wr.wr.rdma.rkey = theirs;
	if (!post_wait(n, &wr, "RDMA WRITE through the peer's window") || !barrier(n))
		return false;
	for (i = 0; i < o->size; i++)
		if (n->buf[i] != (uint8_t)(pattern(i, !side) ^ 0x3c))
			FAIL("byte %zu of %zu written through our window is %#x", i, o->size,
			     n->buf[i]);
	/* The receives the earlier phases left posted take the SEND. */
	fill_send(msg, 0, 0x1f000000);
	sge = (struct ibv_sge){ .addr = (uintptr_t)msg, .length = SEND_BYTES,
				.lkey = n->mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 5, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND_WITH_INV,
				   .send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = theirs };
	if (!post_wait(n, &wr, "SEND with Invalidate") || !poll_one(n->rcq, &wc))
		return false;
	/*
	 * rxe (Linux 6.1, rdma-core 44) hands user space the kernel's
	 * IB_WC_WITH_INVALIDATE (1 << 2) where IBV_WC_WITH_INV (1 << 3) is
	 * meant: its provider copies the kernel's completion as it is.
	 */
	if (!strncmp(ibv_get_device_name(n->ctx->device), "rxe", 3) && (wc.wc_flags & 4))
		wc.wc_flags |= IBV_WC_WITH_INV;
	if (wc.opcode != IBV_WC_RECV || !(wc.wc_flags & IBV_WC_WITH_INV) ||
	    wc.invalidated_rkey != n->mw->rkey || wc.byte_len != SEND_BYTES)
		FAIL("receive: opcode %d, flags %#x, invalidated %#x, %u bytes; not %#x",
		     wc.opcode, wc.wc_flags, wc.invalidated_rkey, wc.byte_len, n->mw->rkey);
	if (!post_recv(n, o->size, wc.wr_id >> 32, (uint32_t)wc.wr_id))
		FAIL("ibv_post_recv failed");
	/* Only a free type 2 window binds. */
	if (!bind_window(n, o))
		FAIL("the window the peer invalidated does not bind again");
	wr = (struct ibv_send_wr){ .wr_id = 6, .opcode = IBV_WR_LOCAL_INV,
				   .send_flags = IBV_SEND_SIGNALED,
				   .invalidate_rkey = n->mw->rkey };
	if (!post_wait(n, &wr, "LOCAL_INV") || !bind_window(n, o))
		return false;
	if (ibv_dealloc_mw(n->mw))
		FAIL("ibv_dealloc_mw: %s", strerror(errno));
	n->mw = NULL;
	printf("# a %zu-byte WRITE through a type 2 window and a SEND with Invalidate each way\n",
	       o->size);
	return barrier(n);
}

/* A phase's own CQs and memory (registered for local writes). */
struct phase_mem {
	struct ibv_cq *scq, *rcq;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static bool phase_mem_get(struct node *n, struct phase_mem *m, int send_cqe, int recv_cqe,
			  size_t len)
{
	m->scq = ibv_create_cq(n->ctx, send_cqe, NULL, NULL, 0);
	m->rcq = ibv_create_cq(n->ctx, recv_cqe, NULL, NULL, 0);
	if (!m->scq || !m->rcq)
		FAIL("cannot create the phase's CQs: %s", strerror(errno));
	m->buf = calloc(1, len);
	m->mr = m->buf ? ibv_reg_mr(n->pd, m->buf, len, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!m->mr)
		FAIL("cannot register %zu bytes: %s", len, strerror(errno));
	return true;
}

static void phase_mem_put(struct phase_mem *m)
{
	if (m->mr)
		ibv_dereg_mr(m->mr);
	free(m->buf);
	if (m->rcq)
		ibv_destroy_cq(m->rcq);
	if (m->scq)
		ibv_destroy_cq(m->scq);
}

static bool post_srq_recv(struct ibv_srq *srq, struct phase_mem *m, int i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)m->buf + (size_t)i * SEND_BYTES,
			       .length = SEND_BYTES, .lkey = m->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return !ibv_post_srq_recv(srq, &wr, &bad);
}

/* The srq phase's traffic: -n SENDs per QP each way, every receive checked. */
static bool srq_traffic(struct node *n, const struct opts *o, struct ibv_qp **qp,
			struct ibv_srq *srq, struct phase_mem *m)
{
	uint32_t sent[MAX_QPS] = {}, done[MAX_QPS] = {}, got[MAX_QPS] = {};
	uint32_t sends = o->sends < SRQ_SENDS ? o->sends : SRQ_SENDS;
	long total = (long)sends * n->qps, recvd = 0, completed = 0;
	uint8_t want[SEND_BYTES], *p;
	time_t end = time(NULL) + CQ_WAIT_S;
	unsigned int idle = 0;
	struct ibv_wc wc;
	int q, i;

	for (i = 0; i < SRQ_DEPTH; i++)
		if (!post_srq_recv(srq, m, i))
			FAIL("ibv_post_srq_recv failed");
	if (!barrier(n))
		FAIL("the peer went away");
	while (recvd < total || completed < total) {
		if (time(NULL) > end)
			FAIL("%ld of %ld SENDs completed, %ld received within %d s", completed,
			     total, recvd, CQ_WAIT_S);
		if (!peer_alive(&idle))
			FAIL("the peer went away: %ld of %ld SENDs completed, %ld received",
			     completed, total, recvd);
		for (q = 0; q < n->qps; q++) {
			while (sent[q] < sends && sent[q] - done[q] < SEND_DEPTH) {
				struct ibv_sge sge;
				struct ibv_send_wr wr = { .wr_id = q, .sg_list = &sge, .num_sge = 1,
							  .opcode = IBV_WR_SEND,
							  .send_flags = IBV_SEND_SIGNALED }, *bad;

				p = m->buf + (size_t)(SRQ_DEPTH + q * SEND_DEPTH +
						      sent[q] % SEND_DEPTH) * SEND_BYTES;
				sge = (struct ibv_sge){ (uintptr_t)p, SEND_BYTES, m->mr->lkey };
				fill_send(p, q, sent[q]);
				if (ibv_post_send(qp[q], &wr, &bad))
					FAIL("ibv_post_send on SRQ QP %d failed", q);
				sent[q]++;
			}
		}
		if (ibv_poll_cq(m->scq, 1, &wc) > 0) {
			if (wc.status != IBV_WC_SUCCESS)
				FAIL("SEND completed with %s", ibv_wc_status_str(wc.status));
			done[wc.wr_id]++;
			completed++;
		}
		if (recvd < total && ibv_poll_cq(m->rcq, 1, &wc) > 0) {
			if (wc.status != IBV_WC_SUCCESS)
				FAIL("receive completed with %s", ibv_wc_status_str(wc.status));
			for (q = 0; q < n->qps && qp[q]->qp_num != wc.qp_num; q++)
				;
			if (q == n->qps || wc.wr_id >= SRQ_DEPTH)
				FAIL("a receive of QP %u, wr_id %llu", wc.qp_num,
				     (unsigned long long)wc.wr_id);
			p = m->buf + wc.wr_id * SEND_BYTES;
			fill_send(want, q, got[q]);
			if (wc.byte_len != SEND_BYTES || memcmp(p, want, SEND_BYTES)) {
				uint32_t seq;

				memcpy(&seq, p + 4, 4);
				FAIL("SRQ QP %d: receive %u holds SEND %u (%u bytes)", q, got[q],
				     seq, wc.byte_len);
			}
			got[q]++;
			recvd++;
			if (!post_srq_recv(srq, m, wc.wr_id))
				FAIL("ibv_post_srq_recv failed");
		}
	}
	printf("# %ld SENDs each way on %d QPs sharing a %d-deep SRQ, all once and in order\n",
	       total, n->qps, SRQ_DEPTH);
	return true;
}

/* -q new RC QPs on one SRQ each side, connected to the peer's. */
static bool srq_phase(struct node *n, const struct opts *o)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = SRQ_DEPTH, .max_sge = 1 } };
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SEND_DEPTH, .max_send_sge = 1 },
	};
	struct wire_info me = { .qps = htonl(n->qps) }, peer;
	struct ibv_qp *qp[MAX_QPS] = {};
	struct ibv_srq *srq = NULL;
	struct phase_mem m = {};
	bool ok = false;
	int q;

	memcpy(me.gid, n->me.gid, 16);
	if (!phase_mem_get(n, &m, n->qps * SEND_DEPTH, SRQ_DEPTH,
			   (size_t)(SRQ_DEPTH + n->qps * SEND_DEPTH) * SEND_BYTES))
		goto out;
	srq = ibv_create_srq(n->pd, &sa);
	if (!srq) {
		printf("# ibv_create_srq: %s\n", strerror(errno));
		goto out;
	}
	init.send_cq = m.scq;
	init.recv_cq = m.rcq;
	init.srq = srq;
	for (q = 0; q < n->qps; q++) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

		qp[q] = ibv_create_qp(n->pd, &init);
		if (!qp[q] || ibv_modify_qp(qp[q], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
			printf("# SRQ QP %d: %s\n", q, strerror(errno));
			goto out;
		}
		describe_qp(&me, q, qp[q]);
	}
	if (!swap_info(n, &me, &peer))
		goto out;
	for (q = 0; q < n->qps; q++)
		if (!connect_rc(n, o, qp[q], &me, &peer, q))
			goto out;
	ok = srq_traffic(n, o, qp, srq, &m) && barrier(n);
out:
	for (q = 0; q < n->qps; q++)
		if (qp[q])
			ibv_destroy_qp(qp[q]);
	if (srq)
		ibv_destroy_srq(srq);
	phase_mem_put(&m);
	return ok;
}

/* The GRH of a RoCE v2 datagram names gid as its source. */
static bool grh_from(const uint8_t *grh, const uint8_t *gid)
{
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

	/* An IPv4 header in the last 20 bytes; its source address at 12. */
	if (!memcmp(gid, v4_mapped, 12))
		return grh[20] >> 4 == 4 && !memcmp(grh + 20 + 12, gid + 12, 4);
	return grh[0] >> 4 == 6 && !memcmp(grh + 8, gid, 16);
}

/* One UD receive: from the peer's QP, through its GRH, an intact datagram @seq. */
static bool ud_check(const struct ibv_wc *wc, const uint8_t *slot, uint32_t peer_qpn,
		     const uint8_t *peer_gid, uint32_t *seq_out)
{
	uint8_t want[SEND_BYTES];
	uint32_t seq;

	if (wc->status != IBV_WC_SUCCESS)
		FAIL("UD receive completed with %s", ibv_wc_status_str(wc->status));
	if (!(wc->wc_flags & IBV_WC_GRH) || wc->src_qp != peer_qpn ||
	    wc->byte_len != GRH_BYTES + SEND_BYTES)
		FAIL("UD receive: flags %#x, source QP %#x, %u bytes; not GRH, %#x, %d",
		     wc->wc_flags, wc->src_qp, wc->byte_len, peer_qpn, GRH_BYTES + SEND_BYTES);
	if (!grh_from(slot, peer_gid))
		FAIL("UD receive: the GRH does not name the peer's address");
	memcpy(&seq, slot + GRH_BYTES + 4, 4);
	fill_send(want, 0x75, seq);
	if (seq >= UD_SENDS || memcmp(slot + GRH_BYTES, want, SEND_BYTES))
		FAIL("UD receive: datagram %u corrupted", seq);
	*seq_out = seq;
	return true;
}

/* Our UD_SENDS datagrams to the peer, each completed. */
static bool ud_send_all(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t peer_qpn,
			struct phase_mem *m)
{
	uint32_t sent = 0, done = 0;
	time_t end = time(NULL) + CQ_WAIT_S;
	struct ibv_wc wc;

	while (done < UD_SENDS) {
		if (time(NULL) > end)
			FAIL("%u of %d UD SENDs completed within %d s", done, UD_SENDS, CQ_WAIT_S);
		while (sent < UD_SENDS && sent - done < SEND_DEPTH) {
			uint8_t *p = m->buf + (size_t)UD_SENDS * (GRH_BYTES + SEND_BYTES) +
				     (sent % SEND_DEPTH) * SEND_BYTES;
			struct ibv_sge sge = { (uintptr_t)p, SEND_BYTES, m->mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = sent, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.ud = { .ah = ah, .remote_qpn = peer_qpn, .remote_qkey = UD_QKEY },
			}, *bad;

			fill_send(p, 0x75, sent);
			if (ibv_post_send(qp, &wr, &bad))
				FAIL("UD ibv_post_send failed");
			sent++;
		}
		if (ibv_poll_cq(m->scq, 1, &wc) > 0) {
			if (wc.status != IBV_WC_SUCCESS)
				FAIL("UD SEND completed with %s", ibv_wc_status_str(wc.status));
			done++;
		}
	}
	return true;
}

/*
 * The peer's datagrams, once both sides sent theirs: all of them, or on a
 * lossy wire those that come before UD_QUIET_S without one.
 */
static bool ud_receive_all(const struct opts *o, struct phase_mem *m, uint32_t peer_qpn,
			   const uint8_t *peer_gid)
{
	bool seen[UD_SENDS] = {};
	int got = 0, twice = 0;
	time_t end = time(NULL) + (o->lossy ? UD_QUIET_S : CQ_WAIT_S);
	struct ibv_wc wc;
	uint32_t seq;

	while (got < UD_SENDS && time(NULL) <= end) {
		if (ibv_poll_cq(m->rcq, 1, &wc) <= 0) {
			usleep(20);
			continue;
		}
		if (wc.wr_id >= UD_SENDS)
			FAIL("a UD receive with wr_id %llu", (unsigned long long)wc.wr_id);
		if (!ud_check(&wc, m->buf + wc.wr_id * (GRH_BYTES + SEND_BYTES), peer_qpn,
			      peer_gid, &seq))
			return false;
		if (seen[seq]) {
			if (!o->lossy)
				FAIL("UD datagram %u arrived twice", seq);
			twice++;
		} else {
			seen[seq] = true;
			got++;
		}
		if (o->lossy)
			end = time(NULL) + UD_QUIET_S;
	}
	if (got < UD_SENDS && (!o->lossy || !got))
		FAIL("%d of %d UD datagrams arrived", got, UD_SENDS);
	printf("# %d of %d UD datagrams each way arrived intact through their GRH%s\n", got,
	       UD_SENDS, twice ? " (some twice: a duplicating wire)" : "");
	return true;
}

/* A UD QP each side and an address handle of the peer's GID. */
static bool ud_phase(struct node *n, const struct opts *o)
{
	const size_t slot = GRH_BYTES + SEND_BYTES;
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = SEND_DEPTH, .max_recv_wr = UD_SENDS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_ah_attr ah_attr = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = o->gid_index, .hop_limit = 64 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = UD_QKEY };
	struct wire_info me = { .qps = htonl(1) }, peer;
	struct ibv_qp *qp = NULL;
	struct ibv_ah *ah = NULL;
	struct phase_mem m = {};
	bool ok = false;
	int i;

	memcpy(me.gid, n->me.gid, 16);
	if (!phase_mem_get(n, &m, SEND_DEPTH, UD_SENDS, UD_SENDS * slot + SEND_DEPTH * SEND_BYTES))
		goto out;
	init.send_cq = m.scq;
	init.recv_cq = m.rcq;
	qp = ibv_create_qp(n->pd, &init);
	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				 IBV_QP_QKEY)) {
		printf("# UD QP to INIT: %s\n", strerror(errno));
		goto out;
	}
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) {
		printf("# UD QP to RTR: %s\n", strerror(errno));
		goto out;
	}
	describe_qp(&me, 0, qp);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = ntohl(me.psn[0]);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
		printf("# UD QP to RTS: %s\n", strerror(errno));
		goto out;
	}
	if (!swap_info(n, &me, &peer))
		goto out;
	memcpy(ah_attr.grh.dgid.raw, peer.gid, 16);
	ah = ibv_create_ah(n->pd, &ah_attr);
	if (!ah) {
		printf("# ibv_create_ah to the peer: %s\n", strerror(errno));
		goto out;
	}
	for (i = 0; i < UD_SENDS; i++) {
		struct ibv_sge sge = { (uintptr_t)m.buf + i * slot, slot, m.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(qp, &wr, &bad)) {
			printf("# UD ibv_post_recv failed\n");
			goto out;
		}
	}
	/* Every receive is posted on both sides before the first datagram. */
	ok = barrier(n) && ud_send_all(qp, ah, ntohl(peer.qpn[0]), &m) && barrier(n) &&
	     ud_receive_all(o, &m, ntohl(peer.qpn[0]), peer.gid) && barrier(n);
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (qp)
		ibv_destroy_qp(qp);
	phase_mem_put(&m);
	return ok;
}

static void usage(void)
{
	fprintf(stderr, "usage: verbs_peer [-d DEV] [-g GID_INDEX] [-q QPS 1..%d] [-s BYTES]\n"
		"                  [-n SENDS] [-a ADDS] [-p PORT] [-l] [SERVER]\n", MAX_QPS);
	exit(2);
}

static long number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < min || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct opts o = { .port = "18600", .gid_index = 1, .qps = 1, .sends = 1000,
			  .adds = 1000, .size = 1 << 20 };
	struct node n = { .sock = -1 };
	int c, side;

	while ((c = getopt(argc, argv, "d:g:q:s:n:a:p:l")) != -1) {
		switch (c) {
		case 'd': o.dev = optarg; break;
		case 'g': o.gid_index = number(optarg, 0, 255); break;
		case 'q': o.qps = number(optarg, 1, MAX_QPS); break;
		case 's': o.size = number(optarg, 8, 1L << 30); break;
		case 'n': o.sends = number(optarg, 0, 100000000); break;
		case 'a': o.adds = number(optarg, 0, 1000000); break;
		case 'p': o.port = optarg; break;
		case 'l': o.lossy = true; break;
		default: usage();
		}
	}
	if (argc - optind > 1)
		usage();
	o.server = optind < argc ? argv[optind] : NULL;
	side = o.server != NULL;
	srand(getpid() ^ time(NULL));
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..9\n");
	n.sock = connect_peer(&o);
	peer_sock = n.sock;
	result(n.sock >= 0 && open_node(&n, &o) && connect_qps(&n, &o), "connect");
	if (!failed)
		result(send_recv(&n, &o), "send_recv");
	/* A phase that failed leaves the peer waiting: stop (closing the socket
	 * ends the peer's wait too) and say which phases did not run. */
	if (!failed)
		result(write_phase(&n, &o, side), "write");
	if (!failed)
		result(read_phase(&n, &o, side), "read");
	if (!failed)
		result(imm_phase(&n, &o, side), "immediate");
	if (!failed)
		result(atomics(&n, &o), "atomics");
	if (!failed)
		result(window_phase(&n, &o, side), "windows");
	if (!failed)
		result(srq_phase(&n, &o), "srq");
	if (!failed)
		result(ud_phase(&n, &o), "ud");
	for (c = n_test; c < 9; c++)
		printf("not ok %d verbs_peer.%s # not run: an earlier phase failed\n", c + 1,
		       (const char *[]){ "", "send_recv", "write", "read", "immediate",
				   "atomics", "windows", "srq", "ud" }[c]);
	return failed;
}
