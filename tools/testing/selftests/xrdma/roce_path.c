// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 paths on a segment (the ethernet layer runs it in a guest with
 * peers): moving a QP to RTR resolves the destination GID's Ethernet
 * address through the kernel's neighbour table, ARP for an IPv4-mapped GID
 * and neighbour discovery for an IPv6 one, as Linux's rdma_addr does; an
 * address nobody answers for fails the transition, boundedly; an empty
 * source GID is refused.  The peer is XRDMA_PEER (a host name) with
 * Ethernet address XRDMA_PEER_MAC.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"

FIXTURE(path) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	const char *peer, *peer_mac;
	struct in_addr peer_ip;
};

FIXTURE_SETUP(path)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct addrinfo hints = { .ai_family = AF_INET }, *ai;
	struct ibv_device **list = ibv_get_device_list(NULL);

	ASSERT_NE(NULL, list);
	ASSERT_NE(NULL, list[0]);
	self->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	ASSERT_NE(NULL, self->ctx);
	ASSERT_NE(NULL, self->pd = ibv_alloc_pd(self->ctx));
	ASSERT_NE(NULL, self->cq = ibv_create_cq(self->ctx, 8, NULL, NULL, 0));
	init.send_cq = init.recv_cq = self->cq;
	ASSERT_NE(NULL, self->qp = ibv_create_qp(self->pd, &init));
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	self->peer = getenv("XRDMA_PEER");
	self->peer_mac = getenv("XRDMA_PEER_MAC");
	ASSERT_NE(NULL, self->peer) TH_LOG("XRDMA_PEER not set");
	ASSERT_NE(NULL, self->peer_mac) TH_LOG("XRDMA_PEER_MAC not set");
	ASSERT_EQ(0, getaddrinfo(self->peer, NULL, &hints, &ai));
	self->peer_ip = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
	freeaddrinfo(ai);
}

FIXTURE_TEARDOWN(path)
{
	if (self->qp)
		ibv_destroy_qp(self->qp);
	if (self->cq)
		ibv_destroy_cq(self->cq);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

/* INIT -> RTR towards dgid; returns ibv_modify_qp()'s errno (0: done). */
static int to_rtr(struct ibv_qp *qp, const union ibv_gid *dgid, uint8_t sgid_index)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = 0x123,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *dgid, .sgid_index = sgid_index,
				      .hop_limit = 64 } },
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

static union ibv_gid v4_gid(struct in_addr ip)
{
	union ibv_gid g = { };

	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	memcpy(&g.raw[12], &ip, 4);
	return g;
}

/* fe80::/64 with the EUI-64 of mac (aa:bb:cc:dd:ee:ff), the peer's own. */
static int ll_gid(const char *mac, union ibv_gid *g)
{
	unsigned int m[6];

	if (sscanf(mac, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		return -1;
	memset(g, 0, sizeof(*g));
	g->raw[0] = 0xfe;
	g->raw[1] = 0x80;
	g->raw[8] = m[0] ^ 2;
	g->raw[9] = m[1];
	g->raw[10] = m[2];
	g->raw[11] = 0xff;
	g->raw[12] = 0xfe;
	g->raw[13] = m[3];
	g->raw[14] = m[4];
	g->raw[15] = m[5];
	return 0;
}

/* True when `ip neigh` knows addr with lladdr mac. */
static bool neigh_has(const char *addr, const char *mac)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "ip neigh show %s | grep -qi 'lladdr %s'", addr, mac);
	return xt_run(cmd) == 0;
}

TEST_F(path, rtr_resolves_an_ipv4_gid_through_arp)
{
	union ibv_gid g = v4_gid(self->peer_ip);
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &self->peer_ip, ip, sizeof(ip));
	ASSERT_EQ(0, xt_run("ip neigh flush all"));
	ASSERT_FALSE(neigh_has(ip, self->peer_mac));
	EXPECT_EQ(0, to_rtr(self->qp, &g, 0));
	EXPECT_TRUE(neigh_has(ip, self->peer_mac)) TH_LOG("no ARP entry for %s", ip);
}

TEST_F(path, rtr_resolves_an_ipv6_gid_through_neighbour_discovery)
{
	char ip[INET6_ADDRSTRLEN];
	union ibv_gid g;

	ASSERT_EQ(0, ll_gid(self->peer_mac, &g));
	inet_ntop(AF_INET6, g.raw, ip, sizeof(ip));
	ASSERT_EQ(0, xt_run("ip -6 neigh flush all"));
	EXPECT_EQ(0, to_rtr(self->qp, &g, 0));
	EXPECT_TRUE(neigh_has(ip, self->peer_mac)) TH_LOG("no ND entry for %s", ip);
}

TEST_F(path, rtr_to_an_address_nobody_answers_for_fails)
{
	struct in_addr nobody = self->peer_ip;
	union ibv_gid g;

	/* .250 on the same /24: no guest has it.  ARP gives up. */
	((uint8_t *)&nobody)[3] = 250;
	g = v4_gid(nobody);
	EXPECT_EQ(EHOSTUNREACH, to_rtr(self->qp, &g, 0));
	/* The QP stayed in INIT and can still go to RTR. */
	g = v4_gid(self->peer_ip);
	EXPECT_EQ(0, to_rtr(self->qp, &g, 0));
}

TEST_F(path, rtr_with_an_empty_source_gid_is_refused)
{
	union ibv_gid g = v4_gid(self->peer_ip);

	EXPECT_EQ(EINVAL, to_rtr(self->qp, &g, 15));
}

TEST_F(path, rtr_to_an_own_gid_needs_no_neighbour)
{
	union ibv_gid g;

	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, 0, &g));
	EXPECT_EQ(0, to_rtr(self->qp, &g, 0));
}

TEST_HARNESS_MAIN
