// SPDX-License-Identifier: GPL-2.0
/*
 * A REQ flood from another node, as a misbehaving or hostile peer sends it:
 * the client forges IB CM REQs (IBTA table 106, each with a connection ID
 * of its own and the RDMA CM's IP header in its private data) and sends
 * them from a UD QP of Q_Key 0x80010000 (root only) to the server's GSI
 * QP, never answering what comes back; the server's listener does not
 * read its events meanwhile.  The server's IB CM must hold at most its
 * backlog of connections once the REQs are handled (a REQ beyond it is
 * dropped, holding nothing), one for each request the listener then reads,
 * REQs to a port nobody listens on none (a REJ answers each), and all of
 * them must be gone once the listener rejected what it got.
 *
 * Usage: cm_flood -l PORT -b BACKLOG      the server: listens on PORT of
 *                                         any address until a line or EOF
 *                                         on stdin, then checks
 *        cm_flood -c SERVER_IP -p PORT -n COUNT [-g GID_INDEX]
 *                                         the client: COUNT REQs to PORT,
 *                                         COUNT to PORT + 1
 * The client first sends one REQ and waits 2 s for an answer: a REJ says
 * nobody listens yet ("rejected", status 1; try again).  Exits 0 when all
 * went as above, 1 when not, 2 on a bad option.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "xrdma_util.h"

#define MAD_SIZE	256
#define GRH_SIZE	40
#define GSI_QKEY	0x80010000u
#define CM_REQ		0x0010
#define CM_REJ		0x0012
#define PS_TCP		0x0106		/* RDMA_PS_TCP: the service ID's port space */
#define RECVS		16

struct flood {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t *buf;		/* a MAD to send, then RECVS receive slots */
	uint8_t gid[16], peer_gid[16];
	struct in_addr me, peer;
};

static void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }

/* A REQ of connection @id for @port, laid out as Linux's ib_cm sends one. */
static void build_req(const struct flood *f, uint8_t *m, uint32_t id, uint16_t port)
{
	uint8_t *r = m + 24, *pd = r + 140;

	memset(m, 0, MAD_SIZE);
	m[0] = 1;			/* base version */
	m[1] = 0x07;			/* the CM class */
	m[2] = 2;			/* its version */
	m[3] = 0x03;			/* Send() */
	put64(m + 8, (uint64_t)0xf100d << 32 | id);
	put16(m + 16, CM_REQ);
	put32(r + 0, id);		/* local communication ID */
	put64(r + 8, (uint64_t)PS_TCP << 16 | port);
	put64(r + 16, 0x0200000000f100dull);	/* local CA GUID */
	put32(r + 32, (0x100 + id % 0x1000) << 8 | 1);	/* QPN, responder resources */
	put32(r + 36, 1);		/* initiator depth */
	r[43] = 20 << 3;		/* remote CM response timeout; RC */
	put32(r + 44, (id & 0xffffff) << 8 | 20 << 3 | 7);	/* PSN; timeout, retries */
	put16(r + 48, 0xffff);		/* P_Key */
	r[50] = 5 << 4 | 7;		/* path MTU 4096; RNR retries */
	r[51] = 15 << 4;		/* max CM retries */
	put16(r + 52, 0xffff);
	put16(r + 54, 0xffff);
	memcpy(r + 56, f->gid, 16);
	memcpy(r + 72, f->peer_gid, 16);
	r[93] = 64;			/* hop limit */
	r[95] = 14 << 3;		/* local ACK timeout */
	/* The RDMA CM's header (Linux's struct cma_hdr): version 0, IPv4. */
	pd[1] = 4 << 4;
	put16(pd + 2, 40000 + id % 20000);
	memcpy(pd + 4 + 12, &f->me, 4);
	memcpy(pd + 20 + 12, &f->peer, 4);
}

static int post_recv(struct flood *f, int slot)
{
	struct ibv_sge sge = { .addr = (uintptr_t)f->buf + (size_t)(MAD_SIZE + GRH_SIZE) * (1 + slot),
			       .length = MAD_SIZE + GRH_SIZE, .lkey = f->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(f->qp, &wr, &bad);
}

static int setup(struct flood *f, const char *server, int gid_index)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = RECVS, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = GSI_QKEY };
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1,
				  .grh = { .sgid_index = gid_index, .hop_limit = 64 } };
	struct ibv_device **list = ibv_get_device_list(NULL);
	union ibv_gid gid;
	int i;

	if (!list || !list[0] || inet_pton(AF_INET, server, &f->peer) != 1)
		return -1;
	f->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!f->ctx || ibv_query_gid(f->ctx, 1, gid_index, &gid))
		return -1;
	memcpy(f->gid, gid.raw, 16);
	memcpy(&f->me, gid.raw + 12, 4);
	f->peer_gid[10] = f->peer_gid[11] = 0xff;
	memcpy(f->peer_gid + 12, &f->peer, 4);
	memcpy(ah.grh.dgid.raw, f->peer_gid, 16);
	f->buf = calloc(1 + RECVS, MAD_SIZE + GRH_SIZE);
	f->pd = ibv_alloc_pd(f->ctx);
	f->cq = f->pd ? ibv_create_cq(f->ctx, 2 * RECVS, NULL, NULL, 0) : NULL;
	if (!f->buf || !f->cq)
		return -1;
	f->mr = ibv_reg_mr(f->pd, f->buf, (1 + RECVS) * (MAD_SIZE + GRH_SIZE), IBV_ACCESS_LOCAL_WRITE);
	init.send_cq = init.recv_cq = f->cq;
	f->qp = f->mr ? ibv_create_qp(f->pd, &init) : NULL;
	if (!f->qp || ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(f->qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -1;
	for (i = 0; i < RECVS; i++)
		if (post_recv(f, i))
			return -1;
	f->ah = ibv_create_ah(f->pd, &ah);
	return f->ah ? 0 : -1;
}

/*
 * Wait up to @ms for a completion: a send's (1), a receive's of a MAD
 * (2, its slot in *@slot), none (0) or an error (-1).
 */
static int wait_wc(struct flood *f, int ms, int *slot)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(f->cq, 1, &wc);
		if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
			return -1;
		if (n) {
			*slot = wc.wr_id;
			return wc.opcode == IBV_WC_RECV ? 2 : 1;
		}
		usleep(1000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return 0;
}

/* Send a REQ; answers that come meanwhile are counted in *@rejs (REJs) and reposted. */
static int send_req(struct flood *f, uint32_t id, uint16_t port, int *rejs, uint16_t *reason)
{
	struct ibv_sge sge = { .addr = (uintptr_t)f->buf, .length = MAD_SIZE, .lkey = f->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = RECVS, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = f->ah, .remote_qpn = 1, .remote_qkey = GSI_QKEY },
	}, *bad;
	int slot, ret;

	build_req(f, f->buf, id, port);
	if (ibv_post_send(f->qp, &wr, &bad))
		return -1;
	while ((ret = wait_wc(f, 10000, &slot)) == 2) {
		const uint8_t *m = f->buf + (size_t)(MAD_SIZE + GRH_SIZE) * (1 + slot) + GRH_SIZE;

		if (m[1] == 0x07 && be16toh(*(const uint16_t *)(m + 16)) == CM_REJ) {
			(*rejs)++;
			*reason = be16toh(*(const uint16_t *)(m + 24 + 10));
		}
		if (post_recv(f, slot))
			return -1;
	}
	return ret == 1 ? 0 : -1;
}

static int client(const char *server, uint16_t port, int count, int gid_index)
{
	struct flood f = {};
	uint16_t reason = 0;
	int i, slot, rejs = 0;

	if (setup(&f, server, gid_index)) {
		perror("cm_flood: setup");
		return 1;
	}
	/* One REQ first: a REJ within 2 s says nobody listens yet. */
	if (send_req(&f, 1, port, &rejs, &reason))
		return 1;
	while (!rejs && wait_wc(&f, 2000, &slot) == 2) {
		rejs++;
		reason = be16toh(*(const uint16_t *)(f.buf + (size_t)(MAD_SIZE + GRH_SIZE) *
						      (1 + slot) + GRH_SIZE + 24 + 10));
	}
	if (rejs) {
		printf("cm_flood: REQ rejected (reason %u): nobody listens yet\n", reason);
		return 1;
	}
	rejs = 0;
	for (i = 0; i < count; i++)
		if (send_req(&f, 2 + i, port, &rejs, &reason) ||
		    send_req(&f, 2 + count + i, port + 1, &rejs, &reason)) {
			printf("cm_flood: send %d failed\n", i);
			return 1;
		}
	printf("# %d REQs to port %u and %d to port %u sent, %d REJs seen\n", count, port, count,
	       port + 1, rejs);
	return 0;
}

static long connections(void)
{
	char buf[32];

	if (xt_read_file("/sys/kernel/debug/xrdma_core/cm_connections", buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * The connections more than base once the flood's REQs are all handled:
 * the count the same for a second (at most 30 s).
 */
static long settled(long base)
{
	long last = connections(), now;
	int same = 0, i;

	for (i = 0; i < 300 && same < 10; i++) {
		usleep(100000);
		now = connections();
		same = now == last ? same + 1 : 0;
		last = now;
	}
	return last - base;
}

static int server(uint16_t port, int backlog)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct pollfd in = { .fd = 0, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *req;
	/* Once the connections of earlier tests left TIMEWAIT (or 5 s). */
	long base = xt_core_count("cm_connections", 0), most = base, now, held;
	int requests = 0;
	char line[64];

	if (!ch || base < 0 || rdma_create_id(ch, &l, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l, (struct sockaddr *)&any) || rdma_listen(l, backlog)) {
		perror("cm_flood: listen");
		return 1;
	}
	/* The flood comes; nobody reads the listener's events meanwhile. */
	while (poll(&in, 1, 100) == 0) {
		now = connections();
		most = now > most ? now : most;
	}
	if (read(0, line, sizeof(line)) < 0)
		return 1;
	/*
	 * What the IB CM holds once every REQ was handled: the backlog at
	 * most.  While REQs are handled (several at once: the MAD workqueue
	 * is unbound) each has its connection until it is taken or dropped,
	 * so the peak seen during the flood is printed, not judged.
	 */
	held = settled(base);
	fcntl(ch->fd, F_SETFL, O_NONBLOCK);
	while (!rdma_get_cm_event(ch, &ev)) {
		req = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ? ev->id : NULL;
		rdma_ack_cm_event(ev);
		if (req) {
			requests++;
			rdma_reject(req, NULL, 0);
			rdma_destroy_id(req);
		}
	}
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
	now = xt_core_count("cm_connections", base);
	printf("# backlog %d: %ld connections held after the flood, %d requests taken, "
	       "at most %ld connections more during it, %ld more at the end\n",
	       backlog, held, requests, most - base, now - base);
	return requests >= 1 && requests <= backlog && held == requests && now == base ? 0 : 1;
}

int main(int argc, char **argv)
{
	int c, count = 0, backlog = 0, gid_index = 1;
	const char *peer = NULL;
	long port = 0;

	while ((c = getopt(argc, argv, "l:b:c:p:n:g:")) != -1) {
		switch (c) {
		case 'l':
		case 'p':
			port = strtol(optarg, NULL, 10);
			break;
		case 'b':
			backlog = atoi(optarg);
			break;
		case 'c':
			peer = optarg;
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (port < 1 || port > 65534 || (peer ? count < 1 : backlog < 1)) {
		fprintf(stderr, "usage: cm_flood -l PORT -b BACKLOG | -c SERVER_IP -p PORT -n COUNT [-g GID_INDEX]\n");
		return 2;
	}
	return peer ? client(peer, port, count, gid_index) : server(port, backlog);
}
