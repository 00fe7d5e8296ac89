// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA CM through Debian's librdmacm: /dev/infiniband/rdma_cm and its
 * ABI version, ids bound to the XRNIC's address and port spaces with
 * Linux's rules, address and route resolution to the device, the GIDs and
 * the path, the QP attributes librdmacm takes from the kernel, a REQ
 * nobody takes, UD services resolved with SIDR (to ourselves, over the GSI
 * QP), IP multicast groups, migrating an id to another event channel, a
 * requester or listener killed mid-handshake rejected at the other end at
 * once, and that closing, kill -9
 * and unloading the driver leave nothing behind.  Connections between
 * guests are the roce and interop layers' (rping, udaddy, ...).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"

#define UNREACHABLE	"192.0.2.254"	/* nobody on the runner's segment */
#define FOREIGN		"192.0.2.250"	/* not an address of this host */
#define NEIGHBOUR	"192.0.2.77"	/* a static neighbour entry, nobody there */
#define UDP_QKEY	0x01234567	/* the Q_Key Linux gives RDMA_PS_UDP */
#define CYCLES		1000	/* connections made and ended */
#define CYCLES_DEBUG	100	/* on the debug kernel, ten times slower */


/* The next event of @ch within @ms: its type and status, or -1. */
static int next_event(struct rdma_event_channel *ch, int ms, int *status,
		      struct rdma_cm_id **id)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int type;

	if (poll(&p, 1, ms) != 1 || rdma_get_cm_event(ch, &ev))
		return -1;
	type = ev->event;
	if (status)
		*status = ev->status;
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	return type;
}

static struct sockaddr_in ipv4(const char *ip, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

FIXTURE(cm) {
	struct rdma_event_channel *ch;
	char ip[16];
	char ndev[32];
	struct sockaddr_in me;
};

/* The XRNIC's net_device up with this guest's address, in the GID table. */
FIXTURE_SETUP(cm)
{
	ASSERT_EQ(0, xt_port_address(self->ip, self->ndev));
	self->me = ipv4(self->ip, 0);
	self->ch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->ch);
}

FIXTURE_TEARDOWN(cm)
{
	char cmd[128];

	if (self->ch)
		rdma_destroy_event_channel(self->ch);
	snprintf(cmd, sizeof(cmd), "ip addr del %s/24 dev %s 2>/dev/null", self->ip, self->ndev);
	xt_run(cmd);
}

TEST(the_abi_is_linux_rdma_ucm_version_4)
{
	struct stat st;
	char buf[16];

	ASSERT_LT(0, xt_read_file("/sys/class/misc/rdma_cm/abi_version", buf, sizeof(buf)));
	EXPECT_STREQ("4", buf);
	ASSERT_EQ(0, stat("/dev/infiniband/rdma_cm", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666, st.st_mode & 0777);
}

TEST_F(cm, an_id_bound_to_the_ports_address_reaches_the_device)
{
	struct sockaddr_in *local;
	struct rdma_cm_id *id;

	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_TCP));
	EXPECT_EQ(NULL, id->verbs);
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&self->me)) TH_LOG("%m");
	ASSERT_NE(NULL, id->verbs);
	EXPECT_STREQ("xrnic0", ibv_get_device_name(id->verbs->device));
	EXPECT_EQ(1, id->port_num);
	EXPECT_NE(0, rdma_get_src_port(id));
	local = (struct sockaddr_in *)rdma_get_local_addr(id);
	EXPECT_EQ(AF_INET, local->sin_family);
	EXPECT_EQ(self->me.sin_addr.s_addr, local->sin_addr.s_addr);
	EXPECT_EQ(0, rdma_destroy_id(id));
}

TEST_F(cm, binding_follows_linux_port_rules)
{
	struct sockaddr_in addr = self->me, foreign = ipv4(FOREIGN, 0);
	struct rdma_cm_id *a, *b, *c, *u;
	int on = 1;
	uint16_t port;

	ASSERT_EQ(0, rdma_create_id(self->ch, &a, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(self->ch, &b, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(self->ch, &c, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(self->ch, &u, NULL, RDMA_PS_UDP));
	EXPECT_EQ(-1, rdma_bind_addr(a, (struct sockaddr *)&foreign));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	ASSERT_EQ(0, rdma_bind_addr(a, (struct sockaddr *)&addr));
	port = rdma_get_src_port(a);
	addr.sin_port = port;
	/* The same address and port: in use; the wildcard on it: not available. */
	EXPECT_EQ(-1, rdma_bind_addr(b, (struct sockaddr *)&addr));
	EXPECT_EQ(EADDRINUSE, errno);
	foreign = ipv4("0.0.0.0", ntohs(port));
	EXPECT_EQ(-1, rdma_bind_addr(c, (struct sockaddr *)&foreign));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	/* Another port space has its own ports. */
	EXPECT_EQ(0, rdma_bind_addr(u, (struct sockaddr *)&addr));
	EXPECT_EQ(0, rdma_destroy_id(a));
	EXPECT_EQ(0, rdma_destroy_id(b));
	EXPECT_EQ(0, rdma_destroy_id(c));
	EXPECT_EQ(0, rdma_destroy_id(u));

	/* REUSEADDR on both shares a port, which then cannot listen. */
	ASSERT_EQ(0, rdma_create_id(self->ch, &a, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(self->ch, &b, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(self->ch, &c, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &on, sizeof(on)));
	ASSERT_EQ(0, rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &on, sizeof(on)));
	ASSERT_EQ(0, rdma_set_option(c, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &on, sizeof(on)));
	EXPECT_EQ(-1, rdma_set_option(c, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &on, 1));
	EXPECT_EQ(EINVAL, errno);
	addr.sin_port = 0;
	ASSERT_EQ(0, rdma_bind_addr(a, (struct sockaddr *)&addr));
	addr.sin_port = rdma_get_src_port(a);
	ASSERT_EQ(0, rdma_bind_addr(b, (struct sockaddr *)&addr));
	EXPECT_EQ(-1, rdma_listen(a, 4));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(0, rdma_destroy_id(b));
	EXPECT_EQ(0, rdma_listen(a, 4));
	/* A listener has its port alone. */
	EXPECT_EQ(-1, rdma_bind_addr(c, (struct sockaddr *)&addr));
	EXPECT_EQ(EADDRINUSE, errno);
	/* Once bound, an id binds no more. */
	EXPECT_EQ(-1, rdma_bind_addr(a, (struct sockaddr *)&addr));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rdma_destroy_id(a));
	EXPECT_EQ(0, rdma_destroy_id(c));
}

/* As user 65534: a port below 1024 is refused; 0 when so. */
static int privileged_port_refused(const struct sockaddr_in *me)
{
	struct sockaddr_in addr = *me;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 1;
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return 2;
	addr.sin_port = htons(1000);
	if (rdma_bind_addr(id, (struct sockaddr *)&addr) != -1 || errno != EACCES)
		return 3;
	addr.sin_port = htons(20000);
	return rdma_bind_addr(id, (struct sockaddr *)&addr) ? 4 : 0;
}

TEST_F(cm, a_port_below_1024_needs_cap_net_bind_service)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid)
		_exit(privileged_port_refused(&self->me));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Resolve @dst on @id: ADDR_RESOLVED, then ROUTE_RESOLVED; 0 when so. */
static int resolve(struct rdma_event_channel *ch, struct rdma_cm_id *id, struct sockaddr_in *dst)
{
	int status;

	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, 2000))
		return -1;
	if (next_event(ch, 10000, &status, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED || status)
		return -2;
	if (rdma_resolve_route(id, 2000))
		return -3;
	if (next_event(ch, 10000, &status, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED || status)
		return -4;
	return 0;
}

TEST_F(cm, address_and_route_resolve_to_the_device_gids_and_path)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr qinit;
	struct ibv_port_attr port;
	struct ibv_qp_attr qattr;
	struct rdma_cm_id *id;
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };

	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, resolve(self->ch, id, &self->me));
	ASSERT_NE(NULL, id->verbs);
	EXPECT_STREQ("xrnic0", ibv_get_device_name(id->verbs->device));
	ASSERT_EQ(1, id->route.num_paths);
	ASSERT_EQ(0, ibv_query_port(id->verbs, 1, &port));
	EXPECT_EQ(port.active_mtu, id->route.path_rec->mtu);
	memcpy(gid + 12, &self->me.sin_addr, 4);
	EXPECT_EQ(0, memcmp(gid, id->route.path_rec->sgid.raw, 16));
	EXPECT_EQ(0, memcmp(gid, id->route.path_rec->dgid.raw, 16));
	EXPECT_EQ(0xffff, ntohs(id->route.path_rec->pkey));
	/* librdmacm brings an RC QP to INIT with the kernel's attributes. */
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &init)) TH_LOG("%m");
	ASSERT_EQ(0, ibv_query_qp(id->qp, &qattr, IBV_QP_STATE | IBV_QP_PORT, &qinit));
	EXPECT_EQ(IBV_QPS_INIT, qattr.qp_state);
	EXPECT_EQ(1, qattr.port_num);
	rdma_destroy_qp(id);
	EXPECT_EQ(0, rdma_destroy_id(id));
}

/*
 * A REQ over the GSI QPs, to ourselves: nobody here takes connection
 * requests yet, so the CM answers with a REJ, "invalid service ID" (8), as
 * Linux's does when nobody listens.
 */
TEST_F(cm, a_connection_request_nobody_takes_is_rejected)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1,
				      .retry_count = 7, .rnr_retry_count = 7,
				      .private_data = "hello", .private_data_len = 6 };
	struct sockaddr_in dst = self->me;
	struct rdma_cm_id *id;
	int status = -1;

	dst.sin_port = htons(7471);
	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, resolve(self->ch, id, &dst));
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &init)) TH_LOG("%m");
	ASSERT_EQ(0, rdma_connect(id, &cp)) TH_LOG("%m");
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, next_event(self->ch, 20000, &status, NULL));
	EXPECT_EQ(8, status);
	/* Connecting twice is not a state an id can be in. */
	EXPECT_EQ(-1, rdma_connect(id, &cp));
	EXPECT_EQ(EINVAL, errno);
	rdma_destroy_qp(id);
	EXPECT_EQ(0, rdma_destroy_id(id));
}

TEST_F(cm, a_ud_id_gives_its_qp_the_udp_qkey)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr qinit;
	struct ibv_qp_attr qattr;
	struct rdma_cm_id *id;

	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_UDP));
	ASSERT_EQ(0, resolve(self->ch, id, &self->me));
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &init)) TH_LOG("%m");
	ASSERT_EQ(0, ibv_query_qp(id->qp, &qattr, IBV_QP_STATE | IBV_QP_QKEY, &qinit));
	EXPECT_EQ(IBV_QPS_RTS, qattr.qp_state);
	EXPECT_EQ(UDP_QKEY, qattr.qkey);
	rdma_destroy_qp(id);
	EXPECT_EQ(0, rdma_destroy_id(id));
}

/* A UD id's event: what rdma_get_cm_event() gave, its private data's start. */
struct ud_event {
	int type;
	int status;
	struct rdma_cm_id *id;
	struct rdma_ud_param ud;
	char pdata[16];
};

static int next_ud_event(struct rdma_event_channel *ch, int ms, struct ud_event *e)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	memset(e, 0, sizeof(*e));
	if (poll(&p, 1, ms) != 1 || rdma_get_cm_event(ch, &ev))
		return -1;
	e->type = ev->event;
	e->status = ev->status;
	e->id = ev->id;
	e->ud = ev->param.ud;
	if (ev->param.ud.private_data)
		memcpy(e->pdata, ev->param.ud.private_data, sizeof(e->pdata));
	e->ud.private_data = NULL;
	rdma_ack_cm_event(ev);
	return e->type;
}

/* A UD id resolved to @dst with its QP (RTS, librdmacm's), or NULL. */
static struct rdma_cm_id *ud_id(struct rdma_event_channel *ch, struct sockaddr_in *dst)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		return NULL;
	if (resolve(ch, id, dst) || rdma_create_qp(id, NULL, &init)) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

static void ud_id_destroy(struct rdma_cm_id *id)
{
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/* A SIDR_REQ for a port nobody serves: the SIDR_REP's status, "unsupported" (1). */
TEST_F(cm, a_sidr_request_nobody_serves_is_unreachable_unsupported)
{
	struct rdma_conn_param cp = { .private_data = "hello", .private_data_len = 6 };
	struct sockaddr_in dst = self->me;
	char big[181] = "";
	struct ud_event e;
	struct rdma_cm_id *id;

	dst.sin_port = htons(7472);
	id = ud_id(self->ch, &dst);
	ASSERT_NE(NULL, id);
	/* 216 bytes of SIDR_REQ private data, 36 of them the RDMA CM's header. */
	cp.private_data = big;
	cp.private_data_len = sizeof(big);
	EXPECT_EQ(-1, rdma_connect(id, &cp));
	EXPECT_EQ(EINVAL, errno);
	cp.private_data_len = sizeof(big) - 1;
	ASSERT_EQ(0, rdma_connect(id, &cp)) TH_LOG("%m");
	EXPECT_EQ(RDMA_CM_EVENT_UNREACHABLE, next_ud_event(self->ch, 20000, &e));
	EXPECT_EQ(1, e.status);
	ud_id_destroy(id);
}

/*
 * A UD service on this port and a UD id asking for it, through our own GSI
 * QP: the listener sees the request's private data, accepts with its QP,
 * and the asker gets ESTABLISHED with that QP, RDMA_UDP_QKEY, the answer's
 * private data and an address vector to the service; a second request is
 * rejected (the SIDR_REP's status 2).
 */
TEST_F(cm, a_ud_service_resolves_to_its_qp_and_qkey_through_sidr)
{
	struct rdma_conn_param ask = { .private_data = "ask", .private_data_len = 4 };
	struct rdma_conn_param answer = { .private_data = "answer", .private_data_len = 7 };
	struct sockaddr_in addr = self->me;
	struct rdma_cm_id *l, *id, *served;
	struct ibv_ah *ah;
	struct ud_event e;

	ASSERT_EQ(0, rdma_create_id(self->ch, &l, NULL, RDMA_PS_UDP));
	ASSERT_EQ(0, rdma_bind_addr(l, (struct sockaddr *)&addr));
	ASSERT_EQ(0, rdma_listen(l, 4));
	addr.sin_port = rdma_get_src_port(l);
	id = ud_id(self->ch, &addr);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(0, rdma_connect(id, &ask)) TH_LOG("%m");
	ASSERT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, next_ud_event(self->ch, 20000, &e));
	EXPECT_STREQ("ask", e.pdata);
	served = e.id;
	EXPECT_EQ(IBV_QPT_UD, served->qp_type);
	ASSERT_EQ(0, rdma_create_qp(served, NULL, &(struct ibv_qp_init_attr){
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	}));
	ASSERT_EQ(0, rdma_accept(served, &answer)) TH_LOG("%m");
	ASSERT_EQ(RDMA_CM_EVENT_ESTABLISHED, next_ud_event(self->ch, 20000, &e));
	EXPECT_EQ(id, e.id);
	EXPECT_EQ(0, e.status);
	EXPECT_EQ(served->qp->qp_num, e.ud.qp_num);
	EXPECT_EQ(UDP_QKEY, e.ud.qkey);
	EXPECT_STREQ("answer", e.pdata);
	EXPECT_EQ(1, e.ud.ah_attr.is_global);
	EXPECT_EQ(1, e.ud.ah_attr.port_num);
	EXPECT_EQ(0, memcmp(&id->route.path_rec->dgid, &e.ud.ah_attr.grh.dgid, 16));
	ah = ibv_create_ah(id->pd, &e.ud.ah_attr);
	EXPECT_NE(NULL, ah) TH_LOG("%m");
	if (ah)
		ibv_destroy_ah(ah);
	ud_id_destroy(served);
	ud_id_destroy(id);

	/* Refused by the listener's owner: UNREACHABLE with "rejected" (2). */
	id = ud_id(self->ch, &addr);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(0, rdma_connect(id, &ask));
	ASSERT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, next_ud_event(self->ch, 20000, &e));
	served = e.id;
	EXPECT_EQ(0, rdma_reject(served, NULL, 0));
	EXPECT_EQ(RDMA_CM_EVENT_UNREACHABLE, next_ud_event(self->ch, 20000, &e));
	EXPECT_EQ(2, e.status);
	EXPECT_EQ(0, rdma_destroy_id(served));
	ud_id_destroy(id);
	EXPECT_EQ(0, rdma_destroy_id(l));
}

/*
 * A UD id joins an IPv4 group as Linux's rdma_cm does for RoCE v2: at
 * once MULTICAST_JOIN, with QP 0xffffff, RDMA_UDP_QKEY and an address
 * vector to the IPv4-mapped group GID; the port's net_device joins the
 * group (/proc/net/igmp, as `ip maddr` shows it) until the id leaves it
 * or is destroyed.  A unicast address, an RC id or one whose route is
 * resolved cannot join.
 */
TEST_F(cm, a_ud_id_joins_and_leaves_an_ip_multicast_group)
{
	uint8_t mgid[16] = { [10] = 0xff, [11] = 0xff, [12] = 239, 1, 2, 5 };
	struct sockaddr_in group = ipv4("239.1.2.5", 0);
	struct rdma_cm_id *id, *rc;
	struct ud_event e;
	char joined[128];

	/* What `ip maddr` shows: the group in the kernel's IGMP table (little-endian hex). */
	snprintf(joined, sizeof(joined), "grep -q 050201EF /proc/net/igmp");
	/* As mckey: the group's address resolved from ours, then the QP. */
	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_UDP));
	ASSERT_EQ(0, rdma_resolve_addr(id, (struct sockaddr *)&self->me,
				       (struct sockaddr *)&group, 2000));
	ASSERT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, next_ud_event(self->ch, 10000, &e));
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &(struct ibv_qp_init_attr){
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	}));
	ASSERT_EQ(0, rdma_join_multicast(id, (struct sockaddr *)&group, "group")) TH_LOG("%m");
	ASSERT_EQ(RDMA_CM_EVENT_MULTICAST_JOIN, next_ud_event(self->ch, 10000, &e));
	EXPECT_EQ(0, e.status);		/* librdmacm attached the QP */
	EXPECT_EQ(id, e.id);
	EXPECT_STREQ("group", e.pdata);	/* the join's context */
	EXPECT_EQ(0xffffff, e.ud.qp_num);
	EXPECT_EQ(UDP_QKEY, e.ud.qkey);
	EXPECT_EQ(0, memcmp(mgid, e.ud.ah_attr.grh.dgid.raw, 16));
	EXPECT_EQ(1, e.ud.ah_attr.is_global);
	EXPECT_EQ(64, e.ud.ah_attr.grh.hop_limit);
	EXPECT_EQ(0, xt_run(joined));
	EXPECT_EQ(0, rdma_leave_multicast(id, (struct sockaddr *)&group)) TH_LOG("%m");
	EXPECT_NE(0, xt_run(joined));
	EXPECT_EQ(-1, rdma_join_multicast(id, (struct sockaddr *)&self->me, NULL));
	EXPECT_EQ(EINVAL, errno);
	ud_id_destroy(id);
	/*
	 * Destroyed with the group joined (no QP attached to it, which
	 * would keep the QP, as Linux has it): the group is left.
	 */
	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_UDP));
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&self->me));
	ASSERT_EQ(0, rdma_join_multicast(id, (struct sockaddr *)&group, "group"));
	ASSERT_EQ(RDMA_CM_EVENT_MULTICAST_JOIN, next_ud_event(self->ch, 10000, &e));
	EXPECT_EQ(0, xt_run(joined));
	EXPECT_EQ(0, rdma_destroy_id(id));
	EXPECT_NE(0, xt_run(joined));

	ASSERT_EQ(0, rdma_create_id(self->ch, &rc, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_bind_addr(rc, (struct sockaddr *)&self->me));
	EXPECT_EQ(-1, rdma_join_multicast(rc, (struct sockaddr *)&group, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rdma_destroy_id(rc));
	/* Nor a UD id past ADDR_RESOLVED, as Linux has it. */
	id = ud_id(self->ch, &self->me);
	ASSERT_NE(NULL, id);
	EXPECT_EQ(-1, rdma_join_multicast(id, (struct sockaddr *)&group, NULL));
	EXPECT_EQ(EINVAL, errno);
	ud_id_destroy(id);
}

/* The cm-idn of the line of `rdma res show cm_id` that has @s, or -1. */
static long cm_idn_of(const char *s)
{
	FILE *f = popen("rdma res show cm_id", "r");
	char line[512];
	long n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, s) && strstr(line, "cm-idn "))
			n = strtol(strstr(line, "cm-idn ") + 7, NULL, 10);
	pclose(f);
	return n;
}

/*
 * `rdma res show cm_id` shows the ids as Linux's nldev does (the port,
 * the QP of a connected one, the state, the port space, the owner, the
 * addresses), a listener on every device's address with no port, one id
 * by its number, and `rdma res` counts them.
 */
TEST_F(cm, rdma_res_shows_the_ids_and_counts_them)
{
	struct rdma_conn_param cp = { .private_data = "x", .private_data_len = 1 };
	struct sockaddr_in any = ipv4("0.0.0.0", 0), addr = self->me;
	struct rdma_cm_id *l, *w, *id;
	char want[160], cmd[96];
	struct ud_event e;
	long idn;

	ASSERT_EQ(0, rdma_create_id(self->ch, &w, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_bind_addr(w, (struct sockaddr *)&any));
	ASSERT_EQ(0, rdma_listen(w, 1));
	ASSERT_EQ(0, rdma_create_id(self->ch, &l, NULL, RDMA_PS_UDP));
	ASSERT_EQ(0, rdma_bind_addr(l, (struct sockaddr *)&addr));
	ASSERT_EQ(0, rdma_listen(l, 1));
	addr.sin_port = rdma_get_src_port(l);
	/* A wildcard listener has no port ("-"); the numbers are the kernel's. */
	EXPECT_EQ(1, xt_output_has("rdma res show cm_id", "link xrnic0/- cm-idn "));
	snprintf(want, sizeof(want), " state LISTEN ps TCP pid %d comm rdma_cm src-addr 0.0.0.0:%u ",
		 getpid(), ntohs(rdma_get_src_port(w)));
	EXPECT_EQ(1, xt_output_has("rdma res show cm_id", want));
	EXPECT_EQ(1, xt_output_has("rdma res show cm_id", "link xrnic0/1 cm-idn "));
	snprintf(want, sizeof(want), " state LISTEN ps UDP pid %d comm rdma_cm src-addr %s:%u ",
		 getpid(), self->ip, ntohs(addr.sin_port));
	EXPECT_EQ(1, xt_output_has("rdma res show cm_id", want));
	EXPECT_EQ(1, xt_output_has("rdma res", "cm_id 2 "));
	/* One id asked for by its number: the kernel answers for it alone. */
	idn = cm_idn_of(" ps UDP ");
	ASSERT_LE(0, idn);
	snprintf(cmd, sizeof(cmd), "rdma res show cm_id link xrnic0/1 cm-idn %ld", idn);
	EXPECT_EQ(1, xt_output_has(cmd, want));
	EXPECT_EQ(0, xt_output_has(cmd, " ps TCP "));
	snprintf(cmd, sizeof(cmd), "rdma res show cm_id link xrnic0/1 cm-idn %ld 2>&1", idn + 1000);
	EXPECT_EQ(0, xt_output_has(cmd, " state "));

	/* A UD id connected to the listener's service: its QP and the destination. */
	id = ud_id(self->ch, &addr);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(0, rdma_connect(id, &cp));
	ASSERT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, next_ud_event(self->ch, 20000, &e));
	EXPECT_EQ(0, rdma_reject(e.id, NULL, 0));
	EXPECT_EQ(0, rdma_destroy_id(e.id));
	EXPECT_EQ(RDMA_CM_EVENT_UNREACHABLE, next_ud_event(self->ch, 20000, &e));
	snprintf(want, sizeof(want),
		 "lqpn %u qp-type UD state CONNECT ps UDP pid %d comm rdma_cm src-addr %s:%u dst-addr %s:%u ",
		 id->qp->qp_num, getpid(), self->ip, ntohs(rdma_get_src_port(id)), self->ip,
		 ntohs(addr.sin_port));
	EXPECT_EQ(1, xt_output_has("rdma res show cm_id", want));
	EXPECT_EQ(1, xt_output_has("rdma res", "cm_id 3 "));
	ud_id_destroy(id);
	EXPECT_EQ(0, rdma_destroy_id(l));
	EXPECT_EQ(0, rdma_destroy_id(w));
	EXPECT_EQ(1, xt_output_has("rdma res", "cm_id 0 "));
}

static const struct ibv_qp_init_attr rc_init = {
	.qp_type = IBV_QPT_RC,
	.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
};

static struct rdma_conn_param rc_param = {
	.responder_resources = 1, .initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7,
};

/* An RC id resolved to @dst with its QP, its REQ sent; or NULL. */
static struct rdma_cm_id *rc_connect(struct rdma_event_channel *ch, struct sockaddr_in *dst)
{
	struct ibv_qp_init_attr init = rc_init;
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return NULL;
	if (resolve(ch, id, dst) || rdma_create_qp(id, NULL, &init) ||
	    rdma_connect(id, &rc_param)) {
		if (id->qp)
			rdma_destroy_qp(id);
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

/* An RC listener on @ch bound to @addr (its port filled in), or NULL. */
static struct rdma_cm_id *rc_listen(struct rdma_event_channel *ch, struct sockaddr_in *addr,
				    int backlog)
{
	struct rdma_cm_id *l;

	if (!ch || rdma_create_id(ch, &l, NULL, RDMA_PS_TCP))
		return NULL;
	if (rdma_bind_addr(l, (struct sockaddr *)addr) || rdma_listen(l, backlog)) {
		rdma_destroy_id(l);
		return NULL;
	}
	addr->sin_port = rdma_get_src_port(l);
	return l;
}

static void rc_destroy(struct rdma_cm_id *id)
{
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/*
 * A connection of a new id on @ch to the listener on @lch at @addr, both
 * ends established: 0, the requester in *@c and the listener's new id in
 * *@s; or -1.
 */
static int rc_established(struct rdma_event_channel *ch, struct rdma_event_channel *lch,
			  struct sockaddr_in *addr, struct rdma_cm_id **c, struct rdma_cm_id **s)
{
	struct ibv_qp_init_attr init = rc_init;

	*c = rc_connect(ch, addr);
	if (!*c || next_event(lch, 20000, NULL, s) != RDMA_CM_EVENT_CONNECT_REQUEST ||
	    rdma_create_qp(*s, NULL, &init) || rdma_accept(*s, &rc_param) ||
	    next_event(ch, 20000, NULL, NULL) != RDMA_CM_EVENT_ESTABLISHED ||
	    next_event(lch, 20000, NULL, NULL) != RDMA_CM_EVENT_ESTABLISHED)
		return -1;
	return 0;
}

/*
 * rdma_notify(): COMM_EST on the passive side of a connection whose RTU has
 * not come (the active side's librdmacm sends it when its program reads
 * the CONNECT_RESPONSE) establishes it at once, as Linux's cm_establish();
 * once established it is EISCONN, LID_CHANGE changes nothing, another
 * event is EINVAL, and an id with no connection has nothing to be told.
 * An RC id's RDMA_OPTION_ID_ACK_TIMEOUT is its QP's at RTS; a UD id has
 * none.
 */
TEST_F(cm, notify_comm_est_and_the_ack_timeout_option)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct ibv_qp_init_attr init = rc_init, qinit;
	struct sockaddr_in addr = self->me;
	struct rdma_cm_id *l, *c, *s, *u;
	struct ibv_qp_attr qattr;
	uint8_t t = 18;

	ASSERT_NE(NULL, lch);
	l = rc_listen(lch, &addr, 1);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, rdma_create_id(self->ch, &c, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_set_option(c, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, 1));
	ASSERT_EQ(0, resolve(self->ch, c, &addr));
	EXPECT_EQ(0, rdma_notify(c, IBV_EVENT_COMM_EST));	/* no connection yet */
	ASSERT_EQ(0, rdma_create_qp(c, NULL, &init));
	ASSERT_EQ(0, rdma_connect(c, &rc_param));
	ASSERT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, next_event(lch, 20000, NULL, &s));
	init = rc_init;
	ASSERT_EQ(0, rdma_create_qp(s, NULL, &init));
	ASSERT_EQ(0, rdma_accept(s, &rc_param));
	/* The REP is out; the RTU waits until c's channel is read. */
	EXPECT_EQ(0, rdma_notify(s, IBV_EVENT_COMM_EST)) TH_LOG("%m");
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, next_event(lch, 20000, NULL, NULL));
	EXPECT_EQ(-1, rdma_notify(s, IBV_EVENT_COMM_EST));
	EXPECT_EQ(EISCONN, errno);
	EXPECT_EQ(0, rdma_notify(s, IBV_EVENT_LID_CHANGE));
	EXPECT_EQ(-1, rdma_notify(s, IBV_EVENT_QP_FATAL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, next_event(self->ch, 20000, NULL, NULL));
	ASSERT_EQ(0, ibv_query_qp(c->qp, &qattr, IBV_QP_TIMEOUT, &qinit));
	EXPECT_EQ(18, qattr.timeout);
	EXPECT_EQ(0, rdma_disconnect(c));
	EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(self->ch, 20000, NULL, NULL));
	EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(lch, 20000, NULL, NULL));
	rc_destroy(s);
	rc_destroy(c);
	EXPECT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(lch);

	ASSERT_EQ(0, rdma_create_id(self->ch, &u, NULL, RDMA_PS_UDP));
	EXPECT_EQ(-1, rdma_set_option(u, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rdma_destroy_id(u));
}

/* One of port 1's IB CM counters (Linux's ports/1/<group>/<message>), or -1. */
static long cm_counter(const char *group, const char *msg)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), XRDMA_SYS_DEV "/ports/1/%s/%s", group, msg);
	if (xt_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * A listener slow to read its request: the REQ comes again after the
 * response timeout (4.8 s) and gets an MRA (service timeout 24: 69 s), as
 * Linux's rdma_cm sends it, so the requester waits instead of sending
 * again every 4.8 s (6 s after the MRA: still one retry, not two);
 * accepted, the connection is made.  The port's counters (cm_tx_msgs,
 * cm_tx_retries, cm_rx_msgs, cm_rx_duplicates, as Linux's) count it all;
 * both ends are this port.
 */
TEST_F(cm, a_slow_listener_sends_an_mra_and_the_requester_waits)
{
	long req = cm_counter("cm_tx_msgs", "req"), retries = cm_counter("cm_tx_retries", "req");
	long mra_tx = cm_counter("cm_tx_msgs", "mra"), mra_rx = cm_counter("cm_rx_msgs", "mra");
	long dup = cm_counter("cm_rx_duplicates", "req"), rtu = cm_counter("cm_rx_msgs", "rtu");
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct ibv_qp_init_attr init = rc_init;
	struct sockaddr_in addr = self->me;
	struct rdma_cm_id *l, *c, *s;
	long n;

	ASSERT_LE(0, req);
	ASSERT_NE(NULL, lch);
	l = rc_listen(lch, &addr, 1);
	ASSERT_NE(NULL, l);
	c = rc_connect(self->ch, &addr);
	ASSERT_NE(NULL, c);
	for (n = 0; n < 200 && cm_counter("cm_rx_msgs", "mra") == mra_rx; n++)
		usleep(100000);
	ASSERT_LT(mra_rx, cm_counter("cm_rx_msgs", "mra")) TH_LOG("no MRA in 20 s");
	/* Longer than the response timeout, which would have sent it again. */
	sleep(6);
	n = cm_counter("cm_tx_retries", "req") - retries;
	EXPECT_EQ(1, n);	/* 2 without the MRA */
	EXPECT_LE(1, cm_counter("cm_rx_duplicates", "req") - dup);
	EXPECT_LE(1, cm_counter("cm_tx_msgs", "mra") - mra_tx);
	EXPECT_LE(1, cm_counter("cm_rx_msgs", "mra") - mra_rx);
	/* Every send counts, a retry too. */
	EXPECT_EQ(1 + n, cm_counter("cm_tx_msgs", "req") - req);
	ASSERT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, next_event(lch, 20000, NULL, &s));
	ASSERT_EQ(0, rdma_create_qp(s, NULL, &init));
	ASSERT_EQ(0, rdma_accept(s, &rc_param));
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, next_event(self->ch, 20000, NULL, NULL));
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, next_event(lch, 20000, NULL, NULL));
	EXPECT_EQ(1, cm_counter("cm_rx_msgs", "rtu") - rtu);
	EXPECT_EQ(0, rdma_disconnect(c));
	EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(self->ch, 20000, NULL, NULL));
	EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(lch, 20000, NULL, NULL));
	rc_destroy(s);
	rc_destroy(c);
	EXPECT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(lch);
}

/*
 * A listener with a backlog of 2 takes two requests it has not read; a
 * third REQ is dropped without an answer, as Linux drops it (its requester
 * is not rejected), even when it comes again, until the listener reads
 * one; then the REQ, sent again after the response timeout, is taken.  A
 * flood of requests waits in the requesters, not in the kernel.  Each
 * requester hears of its REJ once.
 */
TEST_F(cm, a_full_backlog_leaves_a_request_to_come_again)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct sockaddr_in addr = self->me;
	struct rdma_cm_id *l, *c[3], *req, *id;
	int i, e, status, waited, rejected = 0, requests = 0;
	bool heard[3] = {};

	ASSERT_NE(NULL, lch);
	l = rc_listen(lch, &addr, 2);
	ASSERT_NE(NULL, l);
	for (i = 0; i < 3; i++) {
		c[i] = rc_connect(self->ch, &addr);
		ASSERT_NE(NULL, c[i]) TH_LOG("requester %d: %m", i);
	}
	/* The listener, the three requesters and two requests: no third. */
	EXPECT_EQ(6, xt_core_count("cm_ids", 6));
	/* Past the response timeout (4.8 s): the third REQ came again, and went. */
	sleep(6);
	EXPECT_EQ(6, xt_core_count("cm_ids", 6));
	EXPECT_EQ(-1, next_event(self->ch, 0, NULL, NULL));	/* nobody rejected */
	/*
	 * Reject every request until each requester has heard so (60 s at
	 * most).  A REQ sent again as the REJ of its request was on its way
	 * comes as a request of its own, as on Linux; its REJ finds that
	 * requester rejected already and changes nothing.
	 */
	for (waited = 0; rejected < 3 && waited < 60000; waited += 200) {
		if (next_event(lch, 100, NULL, &req) == RDMA_CM_EVENT_CONNECT_REQUEST) {
			EXPECT_EQ(0, rdma_reject(req, NULL, 0));
			EXPECT_EQ(0, rdma_destroy_id(req));
			requests++;
		}
		while ((e = next_event(self->ch, 100, &status, &id)) != -1) {
			EXPECT_EQ(RDMA_CM_EVENT_REJECTED, e);
			EXPECT_EQ(28, status);		/* consumer defined */
			for (i = 0; i < 3; i++) {
				if (id != c[i])
					continue;
				EXPECT_FALSE(heard[i]) TH_LOG("requester %d rejected twice", i);
				heard[i] = true;
				rejected++;
			}
		}
	}
	EXPECT_EQ(3, rejected)
		TH_LOG("requests %d; REJs sent %ld, received %ld", requests,
		       cm_counter("cm_tx_msgs", "rej"), cm_counter("cm_rx_msgs", "rej"));
	EXPECT_LE(3, requests);
	TH_LOG("the listener read %d requests for the 3 requesters", requests);
	for (i = 0; i < 3; i++)
		rc_destroy(c[i]);
	EXPECT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(lch);
	EXPECT_EQ(0, xt_core_count("cm_ids", 0));
	EXPECT_EQ(0, xt_core_count("cm_connections", 0));
}

/* How many REJs port 1's IB CM received (Linux's per-port CM counter). */
static long rejs_received(void)
{
	char buf[32];

	if (xt_read_file("/sys/class/infiniband/xrnic0/ports/1/cm_rx_msgs/rej", buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * A requester killed with its REQ unanswered: its IB CM sends a REJ
 * "timeout" (4) naming itself by its CA GUID, as Linux's cm_destroy_id()
 * does, which ends the listener's request at once, not after the REP's
 * retries (about 72 s).  As Linux's ucma, the request's id, not accepted
 * yet, reports nothing (librdmacm would not know it); accepting it fails.
 */
TEST_F(cm, a_requester_killed_mid_handshake_ends_the_request_at_once)
{
	struct rdma_conn_param cp = rc_param;
	struct sockaddr_in addr = self->me;
	struct rdma_cm_id *l, *req = NULL;
	int pipefd[2], type, wstatus, i;
	long rejs;
	char c;
	pid_t pid;

	l = rc_listen(self->ch, &addr, 1);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rdma_event_channel *ch = rdma_create_event_channel();
		struct rdma_cm_id *id;

		/* No QP: the device's context is the parent's. */
		cp.qp_num = 0x123;
		if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) || resolve(ch, id, &addr) ||
		    rdma_connect(id, &cp) || write(pipefd[1], "c", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	type = read(pipefd[0], &c, 1) == 1 ? next_event(self->ch, 20000, NULL, &req) : -1;
	close(pipefd[0]);
	rejs = rejs_received();
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &wstatus, 0));
	ASSERT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, type);
	for (i = 0; i < 50 && rejs_received() == rejs; i++)
		usleep(100000);
	EXPECT_EQ(rejs + 1, rejs_received());
	EXPECT_EQ(-1, next_event(self->ch, 1000, NULL, NULL));
	cp.qp_num = 0x456;
	EXPECT_EQ(-1, rdma_accept(req, &cp));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rdma_destroy_id(req));
	EXPECT_EQ(0, rdma_destroy_id(l));
	EXPECT_EQ(0, xt_core_count("cm_ids", 0));
	EXPECT_EQ(0, xt_core_count("cm_connections", 0));
}

/* The child's listener: its port to @fd, then a byte once it accepted. */
static int accept_then_pause(int fd, const struct sockaddr_in *me)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct ibv_qp_init_attr init = rc_init;
	struct sockaddr_in addr = *me;
	struct rdma_cm_id *l, *req;

	l = rc_listen(ch, &addr, 1);
	if (!l || write(fd, &addr.sin_port, sizeof(addr.sin_port)) != sizeof(addr.sin_port))
		return 1;
	if (next_event(ch, 20000, NULL, &req) != RDMA_CM_EVENT_CONNECT_REQUEST ||
	    rdma_create_qp(req, NULL, &init) || rdma_accept(req, &rc_param) ||
	    write(fd, "a", 1) != 1)
		return 2;
	pause();
	return 0;
}

/*
 * A listener killed after accepting (its REP unanswered): its IB CM sends
 * a REJ "consumer defined" (28), as Linux's cm_destroy_id() does, and the
 * requester, whose REP came (its CONNECT_RESPONSE waits to be read) but
 * which has not sent its RTU, is REJECTED at once.  The requester has no
 * QP, so that reading CONNECT_RESPONSE does not make librdmacm send the
 * RTU.
 */
TEST_F(cm, a_listener_killed_after_accepting_rejects_the_requester_at_once)
{
	struct pollfd rep = { .fd = self->ch->fd, .events = POLLIN };
	struct rdma_conn_param cp = rc_param;
	struct sockaddr_in addr = self->me;
	int pipefd[2], type = -1, wstatus, status = -1;
	struct rdma_cm_id *c = NULL;
	char a;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[0]);
		_exit(accept_then_pause(pipefd[1], &self->me));
	}
	close(pipefd[1]);
	cp.qp_num = 0x123;
	if (read(pipefd[0], &addr.sin_port, sizeof(addr.sin_port)) == sizeof(addr.sin_port) &&
	    !rdma_create_id(self->ch, &c, NULL, RDMA_PS_TCP) && !resolve(self->ch, c, &addr) &&
	    !rdma_connect(c, &cp) && read(pipefd[0], &a, 1) == 1 && poll(&rep, 1, 5000) == 1)
		type = 0;
	close(pipefd[0]);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &wstatus, 0));
	ASSERT_EQ(0, type) TH_LOG("not accepted");
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_RESPONSE, next_event(self->ch, 0, NULL, NULL));
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, next_event(self->ch, 5000, &status, NULL));
	EXPECT_EQ(28, status);		/* consumer defined */
	EXPECT_EQ(0, rdma_destroy_id(c));
	EXPECT_EQ(0, xt_core_count("cm_ids", 0));
	EXPECT_EQ(0, xt_core_count("cm_connections", 0));
}

/*
 * A loopback address is any address to the RDMA CM, as on Linux (whose
 * cma_any_addr() counts it so): bound, it has no device; a wildcard on its
 * port is not available; listening, it takes a request to the port's own
 * address.  libfabric's verbs provider listens on localhost.
 */
TEST_F(cm, a_loopback_address_binds_to_no_device_and_listens_on_every_one)
{
	struct sockaddr_in lo = ipv4("127.0.0.1", 0), any = ipv4("0.0.0.0", 0);
	struct sockaddr_in dst = self->me;
	struct rdma_cm_id *l, *w, *c, *req;

	l = rc_listen(self->ch, &lo, 4);
	ASSERT_NE(NULL, l) TH_LOG("%m");
	EXPECT_EQ(NULL, l->verbs);
	ASSERT_EQ(0, rdma_create_id(self->ch, &w, NULL, RDMA_PS_TCP));
	any.sin_port = lo.sin_port;
	EXPECT_EQ(-1, rdma_bind_addr(w, (struct sockaddr *)&any));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	EXPECT_EQ(0, rdma_destroy_id(w));
	dst.sin_port = lo.sin_port;
	c = rc_connect(self->ch, &dst);
	ASSERT_NE(NULL, c) TH_LOG("%m");
	ASSERT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, next_event(self->ch, 20000, NULL, &req));
	ASSERT_NE(NULL, req->verbs);
	EXPECT_STREQ("xrnic0", ibv_get_device_name(req->verbs->device));
	EXPECT_EQ(0, rdma_reject(req, NULL, 0));
	EXPECT_EQ(0, rdma_destroy_id(req));
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, next_event(self->ch, 20000, NULL, NULL));
	rc_destroy(c);
	EXPECT_EQ(0, rdma_destroy_id(l));
}

/*
 * 1000 RC connections (100 on the debug kernel) made, established and
 * ended through our own GSI QP leave no RDMA CM id and no IB CM connection
 * behind (the debug kernel's kmemleak checks the memory after the tests).
 */
TEST_F(cm, connect_and_disconnect_cycles_leave_nothing)
{
	int i, cycles = getenv("XRDMA_DEBUG_KERNEL") ? CYCLES_DEBUG : CYCLES;
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct sockaddr_in addr = self->me;
	struct rdma_cm_id *l, *c, *s;

	ASSERT_NE(NULL, lch);
	l = rc_listen(lch, &addr, 4);
	ASSERT_NE(NULL, l);
	for (i = 0; i < cycles; i++) {
		ASSERT_EQ(0, rc_established(self->ch, lch, &addr, &c, &s)) TH_LOG("cycle %d: %m", i);
		ASSERT_EQ(0, rdma_disconnect(c));
		ASSERT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(self->ch, 20000, NULL, NULL));
		ASSERT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(lch, 20000, NULL, NULL));
		rc_destroy(s);
		rc_destroy(c);
	}
	EXPECT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(lch);
	EXPECT_EQ(0, xt_core_count("cm_ids", 0));
	EXPECT_EQ(0, xt_core_count("cm_connections", 0));
}

/*
 * As Linux's rdma_cm: a disconnected id whose owner keeps it hears
 * TIMEWAIT_EXIT once the packets still on the path are dead (IB CM's
 * TIMEWAIT, the QP's local ACK timeout: about 0.5 s here), on both sides;
 * then its QP may be used again.
 */
TEST_F(cm, a_disconnected_id_hears_timewait_exit)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct sockaddr_in addr = self->me;
	struct rdma_cm_id *l, *c, *s;

	ASSERT_NE(NULL, lch);
	l = rc_listen(lch, &addr, 1);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, rc_established(self->ch, lch, &addr, &c, &s));
	/* Nothing before the disconnection. */
	EXPECT_EQ(-1, next_event(self->ch, 1000, NULL, NULL));
	ASSERT_EQ(0, rdma_disconnect(c));
	ASSERT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(self->ch, 20000, NULL, NULL));
	ASSERT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(lch, 20000, NULL, NULL));
	EXPECT_EQ(RDMA_CM_EVENT_TIMEWAIT_EXIT, next_event(self->ch, 20000, NULL, NULL));
	EXPECT_EQ(RDMA_CM_EVENT_TIMEWAIT_EXIT, next_event(lch, 20000, NULL, &s));
	/* Once. */
	EXPECT_EQ(-1, next_event(self->ch, 1000, NULL, NULL));
	rc_destroy(s);
	rc_destroy(c);
	EXPECT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(lch);
	EXPECT_EQ(0, xt_core_count("cm_ids", 0));
	EXPECT_EQ(0, xt_core_count("cm_connections", 0));
}

/*
 * As Linux's rdma_disconnect(): an id that never asked for a connection
 * is refused (EINVAL); one that did succeeds whatever its connection's
 * state: established (its DREQ goes), disconnected by the peer (so both
 * ends may call it, in either order, as rdma-core's pyverbs tests do), or
 * gone already.  Before, the second end's call failed with EINVAL.
 */
TEST_F(cm, rdma_disconnect_answers_as_linux_in_every_state)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct sockaddr_in addr = self->me, dst = self->me;
	struct rdma_cm_id *l, *c, *s, *r;

	ASSERT_NE(NULL, lch);
	l = rc_listen(lch, &addr, 1);
	ASSERT_NE(NULL, l);
	/* Resolved (librdmacm refuses an id with no device by itself). */
	ASSERT_EQ(0, rdma_create_id(self->ch, &r, NULL, RDMA_PS_TCP));
	dst.sin_port = addr.sin_port;
	ASSERT_EQ(0, resolve(self->ch, r, &dst));
	EXPECT_EQ(-1, rdma_disconnect(r));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rdma_destroy_id(r));

	ASSERT_EQ(0, rc_established(self->ch, lch, &addr, &c, &s));
	ASSERT_EQ(0, rdma_disconnect(c));
	ASSERT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(lch, 20000, NULL, NULL));
	/* The peer, told of it, ends its side too. */
	EXPECT_EQ(0, rdma_disconnect(s)) TH_LOG("%m");
	ASSERT_EQ(RDMA_CM_EVENT_DISCONNECTED, next_event(self->ch, 20000, NULL, NULL));
	/* And again, on both ends of a connection that has ended. */
	EXPECT_EQ(0, rdma_disconnect(c)) TH_LOG("%m");
	EXPECT_EQ(0, rdma_disconnect(s)) TH_LOG("%m");
	rc_destroy(s);
	rc_destroy(c);
	EXPECT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(lch);
	EXPECT_EQ(0, xt_core_count("cm_ids", 0));
	EXPECT_EQ(0, xt_core_count("cm_connections", 0));
}

TEST_F(cm, an_address_nobody_answers_is_an_addr_error)
{
	struct sockaddr_in dst = ipv4(UNREACHABLE, 0);
	struct rdma_cm_id *id;
	int status = 0;

	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000));
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_ERROR, next_event(self->ch, 20000, &status, NULL));
	EXPECT_EQ(-EHOSTUNREACH, status);
	/* Back to ADDR_BOUND: it may try again. */
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&self->me, 2000));
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, next_event(self->ch, 10000, &status, NULL));
	EXPECT_EQ(0, status);
	EXPECT_EQ(0, rdma_destroy_id(id));
}

/*
 * NEIGHBOUR's entry in the neighbour table, permanent, with MAC
 * 02:00:00:00:00:@last (busybox's arp: SIOCSARP, a neighbour update).
 */
static int set_neighbour(const char *ndev, int last)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "arp -i %s -s %s 02:00:00:00:00:%02x", ndev, NEIGHBOUR, last);
	return xt_run(cmd);
}

/*
 * As Debian's Linux 6.1 (cma_netevent_callback()): an id whose route was
 * resolved hears UNREACHABLE (-ETIMEDOUT) when the neighbour it goes to
 * takes another MAC; the same MAC again, or an id that only resolved the
 * address, hears nothing.  ADDR_CHANGE is Linux's for a bonding failover
 * alone, which an XRNIC's net_device never has.
 */
TEST_F(cm, a_route_whose_neighbour_takes_another_mac_is_unreachable)
{
	struct sockaddr_in dst = ipv4(NEIGHBOUR, 0);
	struct rdma_cm_id *id, *addr_only, *evid = NULL;
	char cmd[128];
	int status = 0;

	ASSERT_EQ(0, set_neighbour(self->ndev, 0x77));
	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(self->ch, &addr_only, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, resolve(self->ch, id, &dst));
	ASSERT_EQ(0, rdma_resolve_addr(addr_only, NULL, (struct sockaddr *)&dst, 2000));
	ASSERT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, next_event(self->ch, 10000, &status, NULL));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, set_neighbour(self->ndev, 0x77));
	EXPECT_EQ(-1, next_event(self->ch, 1000, NULL, NULL));
	ASSERT_EQ(0, set_neighbour(self->ndev, 0x78));
	EXPECT_EQ(RDMA_CM_EVENT_UNREACHABLE, next_event(self->ch, 10000, &status, &evid));
	EXPECT_EQ(-ETIMEDOUT, status);
	EXPECT_EQ(id, evid);
	EXPECT_EQ(-1, next_event(self->ch, 1000, NULL, NULL));
	EXPECT_EQ(0, rdma_destroy_id(id));
	EXPECT_EQ(0, rdma_destroy_id(addr_only));
	/* Nobody left to tell. */
	ASSERT_EQ(0, set_neighbour(self->ndev, 0x79));
	EXPECT_EQ(-1, next_event(self->ch, 1000, NULL, NULL));
	snprintf(cmd, sizeof(cmd), "arp -i %s -d %s", self->ndev, NEIGHBOUR);
	EXPECT_EQ(0, xt_run(cmd));
}

TEST_F(cm, a_migrated_id_reports_on_its_new_channel)
{
	struct rdma_event_channel *ch2 = rdma_create_event_channel();
	struct rdma_cm_id *id, *evid = NULL;
	int status = -1;

	ASSERT_NE(NULL, ch2);
	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&self->me, 2000));
	ASSERT_EQ(0, rdma_migrate_id(id, ch2));
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, next_event(ch2, 10000, &status, &evid));
	EXPECT_EQ(0, status);
	EXPECT_EQ(id, evid);
	EXPECT_EQ(-1, next_event(self->ch, 0, NULL, NULL));
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch2);
}

/*
 * Killed with ids bound and one waiting for a neighbour: the kernel frees
 * the ids and their ports (the port binds again at once).
 */
TEST_F(cm, kill_9_gives_the_ids_ports_back)
{
	struct sockaddr_in dst = ipv4(UNREACHABLE, 0), addr = self->me;
	struct rdma_cm_id *id;
	int pipefd[2], status;
	uint16_t port = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rdma_event_channel *ch = rdma_create_event_channel();
		struct rdma_cm_id *a, *b;

		if (!ch || rdma_create_id(ch, &a, NULL, RDMA_PS_TCP) ||
		    rdma_create_id(ch, &b, NULL, RDMA_PS_TCP) ||
		    rdma_bind_addr(a, (struct sockaddr *)&addr) ||
		    rdma_resolve_addr(b, NULL, (struct sockaddr *)&dst, 2000))
			_exit(1);
		port = rdma_get_src_port(a);
		if (write(pipefd[1], &port, sizeof(port)) != sizeof(port))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(sizeof(port), read(pipefd[0], &port, sizeof(port)));
	close(pipefd[0]);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_TCP));
	addr.sin_port = port;
	EXPECT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&addr)) TH_LOG("%m");
	/* The child's ids are gone (one waited for its neighbour): ours is left. */
	EXPECT_EQ(1, xt_core_count("cm_ids", 1));
	EXPECT_EQ(0, rdma_destroy_id(id));
	EXPECT_EQ(0, xt_core_count("cm_ids", 0));
}

/* Last: the driver goes (and comes back) while an id is bound to its device. */
TEST_F(cm, unloading_the_driver_tells_its_ids_and_does_not_wait_for_them)
{
	struct rdma_cm_id *id;

	ASSERT_EQ(0, rdma_create_id(self->ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&self->me));
	ASSERT_EQ(0, xt_run("rmmod xrnic_xrdma xrnic"));
	EXPECT_EQ(RDMA_CM_EVENT_DEVICE_REMOVAL, next_event(self->ch, 10000, NULL, NULL));
	EXPECT_EQ(0, rdma_destroy_id(id));
	ASSERT_EQ(0, xt_run("modprobe xrnic"));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
}

TEST_HARNESS_MAIN
