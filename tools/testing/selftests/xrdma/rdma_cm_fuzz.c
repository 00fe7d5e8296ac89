// SPDX-License-Identifier: GPL-2.0
/*
 * Random /dev/infiniband/rdma_cm commands: mostly well-formed requests of
 * every command with fields from small sets (ids that exist, this guest's
 * address, wildcards, loopback, multicast groups, a neighbour nobody
 * answers), now and then random bytes, wrong sizes and bad answer
 * pointers, on two files, from a process that then exits or is killed with
 * ids bound, listening and resolving.  The kernel must answer each (the VM runner fails the run on
 * any oops, BUG or WARNING) and free every id afterwards (debugfs cm_ids).
 * The seed is fixed so a failure repeats; XRDMA_FUZZ_SEED picks another.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"

#define FUZZ_ROUNDS	20000


/* An address the commands take: ours, a wildcard, loopback, a group, or anything. */
static void fuzz_addr(void *p, const struct sockaddr_in *me)
{
	struct sockaddr_in6 *s6 = p;
	struct sockaddr_in *s4 = p;

	switch (xt_pick(7)) {
	case 5:
		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(0xef010200 + xt_pick(4));	/* 239.1.2.x */
		break;
	case 0:
		*s4 = *me;
		s4->sin_port = htons(xt_pick(4) ? 0 : 18000 + xt_pick(8));
		break;
	case 1:
		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		s4->sin_port = htons(18000 + xt_pick(8));
		break;
	case 2:
		memset(s6, 0, sizeof(*s6));
		s6->sin6_family = AF_INET6;
		s6->sin6_addr.s6_addr[15] = xt_pick(2);	/* :: or ::1 */
		break;
	case 3:
		*s4 = *me;
		s4->sin_addr.s_addr ^= htonl(xt_pick(4));	/* a neighbour, maybe nobody */
		break;
	default:
		for (size_t i = 0; i < sizeof(*s6); i++)
			((uint8_t *)p)[i] = xt_rnd();
		s4->sin_family = xt_pick(3) ? (xt_pick(2) ? AF_INET : AF_INET6) : xt_rnd();
	}
}

/*
 * One command: a well-formed request of a random command with fields from
 * small sets (ids that exist, our address, answers in @scratch), or now
 * and then random bytes, wrong sizes, or an answer pointer that is bad.
 */
static int fuzz_command(int fd, int other, uint8_t *scratch, const struct sockaddr_in *me)
{
	union {
		struct rdma_ucm_create_id create;
		struct rdma_ucm_destroy_id destroy;
		struct rdma_ucm_bind_ip bind_ip;
		struct rdma_ucm_bind bind;
		struct rdma_ucm_resolve_ip resolve_ip;
		struct rdma_ucm_resolve_addr resolve_addr;
		struct rdma_ucm_resolve_route route;
		struct rdma_ucm_query query;
		struct rdma_ucm_listen listen;
		struct rdma_ucm_init_qp_attr init;
		struct rdma_ucm_get_event event;
		struct rdma_ucm_set_option option;
		struct rdma_ucm_migrate_id migrate;
		struct rdma_ucm_join_ip_mcast join_ip;
		struct rdma_ucm_join_mcast join;
		uint8_t raw[512];
	} b;
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		uint8_t body[sizeof(b)];
	} w;
	uint64_t resp = (uintptr_t)scratch + 64 * xt_pick(16);
	uint32_t cmd = xt_pick(28), id = xt_pick(10);
	size_t len = sizeof(b.raw);

	memset(&b, 0, sizeof(b));
	if (!xt_pick(10))
		resp = xt_pick(2) ? 0 : 0x1000;	/* nothing mapped there */
	switch (cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		b.create = (struct rdma_ucm_create_id){
			.uid = xt_rnd(), .response = resp, .qp_type = xt_pick(2) ? 2 : 4,
			.ps = (const uint16_t[]){ RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB,
						  RDMA_PS_IPOIB, 0, 0x1234 }[xt_pick(6)],
		};
		len = sizeof(b.create);
		break;
	case RDMA_USER_CM_CMD_DESTROY_ID:
		b.destroy = (struct rdma_ucm_destroy_id){ .response = resp, .id = id };
		len = sizeof(b.destroy);
		break;
	case RDMA_USER_CM_CMD_BIND_IP:
		b.bind_ip.response = resp;
		b.bind_ip.id = id;
		fuzz_addr(&b.bind_ip.addr, me);
		len = sizeof(b.bind_ip);
		break;
	case RDMA_USER_CM_CMD_BIND:
		b.bind.id = id;
		fuzz_addr(&b.bind.addr, me);
		b.bind.addr_size = b.bind.addr.ss_family == AF_INET6 ? 28 : xt_pick(8) ? 16 : xt_pick(200);
		len = sizeof(b.bind);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_IP:
		fuzz_addr(&b.resolve_ip.src_addr, me);
		if (xt_pick(2))
			b.resolve_ip.src_addr.sin6_family = 0;
		fuzz_addr(&b.resolve_ip.dst_addr, me);
		b.resolve_ip.id = id;
		b.resolve_ip.timeout_ms = xt_pick(3000);
		len = sizeof(b.resolve_ip);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_ADDR:
		b.resolve_addr.id = id;
		fuzz_addr(&b.resolve_addr.src_addr, me);
		fuzz_addr(&b.resolve_addr.dst_addr, me);
		b.resolve_addr.src_size = xt_pick(2) ? 0 : 16;
		b.resolve_addr.dst_size = b.resolve_addr.dst_addr.ss_family == AF_INET6 ? 28 : 16;
		len = sizeof(b.resolve_addr);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_ROUTE:
		b.route = (struct rdma_ucm_resolve_route){ .id = id, .timeout_ms = xt_pick(3000) };
		len = sizeof(b.route);
		break;
	case RDMA_USER_CM_CMD_QUERY_ROUTE:
	case RDMA_USER_CM_CMD_QUERY:
		b.query = (struct rdma_ucm_query){ .response = resp, .id = id, .option = xt_pick(4) };
		len = sizeof(b.query);
		break;
	case RDMA_USER_CM_CMD_LISTEN:
		b.listen = (struct rdma_ucm_listen){ .id = id, .backlog = xt_rnd() };
		len = sizeof(b.listen);
		break;
	case RDMA_USER_CM_CMD_INIT_QP_ATTR:
		b.init = (struct rdma_ucm_init_qp_attr){ .response = resp, .id = id,
							 .qp_state = xt_pick(9) };
		len = sizeof(b.init);
		break;
	case RDMA_USER_CM_CMD_GET_EVENT:
		b.event.response = resp;
		len = sizeof(b.event);
		break;
	case RDMA_USER_CM_CMD_SET_OPTION:
		*(int *)scratch = xt_pick(2);
		b.option = (struct rdma_ucm_set_option){
			.optval = xt_pick(8) ? (uintptr_t)scratch : 8, .id = id, .level = xt_pick(3),
			.optname = xt_pick(5), .optlen = (const uint32_t[]){ 1, 4, 0, 99 }[xt_pick(4)],
		};
		len = sizeof(b.option);
		break;
	case RDMA_USER_CM_CMD_MIGRATE_ID:
		b.migrate = (struct rdma_ucm_migrate_id){
			.response = resp, .id = id,
			.fd = (const int[]){ fd, other, 0, 1000 }[xt_pick(4)],
		};
		len = sizeof(b.migrate);
		break;
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
		b.join_ip.response = resp;
		b.join_ip.uid = xt_rnd();
		b.join_ip.id = id;
		fuzz_addr(&b.join_ip.addr, me);
		len = sizeof(b.join_ip);
		break;
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		b.join = (struct rdma_ucm_join_mcast){
			.response = resp, .uid = xt_rnd(), .id = id, .join_flags = xt_pick(3),
		};
		fuzz_addr(&b.join.addr, me);
		b.join.addr_size = b.join.addr.ss_family == AF_INET6 ? 28 : xt_pick(8) ? 16 : xt_pick(200);
		len = sizeof(b.join);
		break;
	case RDMA_USER_CM_CMD_LEAVE_MCAST:
		b.destroy = (struct rdma_ucm_destroy_id){ .response = resp, .id = id };
		len = sizeof(b.destroy);
		break;
	default:
		for (size_t i = 0; i < sizeof(b.raw); i++)
			b.raw[i] = xt_rnd();
		len = xt_pick(sizeof(b.raw));
	}
	w.hdr.cmd = xt_pick(20) ? cmd : xt_rnd();
	w.hdr.in = xt_pick(10) ? len : xt_pick(sizeof(b.raw));
	w.hdr.out = xt_pick(10) ? 512 : xt_pick(64);
	memcpy(w.body, &b, sizeof(b));
	len = xt_pick(20) ? sizeof(w.hdr) + w.hdr.in : xt_pick(sizeof(w));
	/* Any answer is fine; the kernel must just give one. */
	return write(fd, &w, len < sizeof(w) ? len : sizeof(w)) >= 0;
}

/*
 * 20000 random commands on two files, from a process that is then killed
 * (with ids bound, listening and resolving): the kernel answers each (the
 * VM runner fails on any oops or BUG), and every id is gone afterwards.
 */
TEST(random_commands_break_nothing_and_leave_nothing)
{
	const char *seed = getenv("XRDMA_FUZZ_SEED");
	struct sockaddr_in me = { .sin_family = AF_INET };
	long before = xt_core_count("cm_ids", 0);
	char ip[16], ndev[32], cmd[96];
	int status, i, done = 0;
	pid_t pid;

	ASSERT_LE(0, before);
	ASSERT_EQ(0, xt_port_address(ip, ndev));
	inet_pton(AF_INET, ip, &me.sin_addr);
	xt_seed(seed ? strtoull(seed, NULL, 0) : 0x5eed0c1a);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint8_t *scratch = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_NONBLOCK);
		int other = open("/dev/infiniband/rdma_cm", O_RDWR | O_NONBLOCK);

		if (scratch == MAP_FAILED || fd < 0 || other < 0)
			_exit(1);
		for (i = 0; i < FUZZ_ROUNDS; i++)
			done += fuzz_command(i % 4 ? fd : other, i % 4 ? other : fd, scratch, &me);
		printf("# %d of %d commands succeeded\n", done, FUZZ_ROUNDS);
		fflush(stdout);
		/* Half the time it exits, half the time it is killed. */
		if (xt_pick(2))
			_exit(0);
		kill(getpid(), SIGKILL);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* Ids resolving a neighbour go when their work ends (3 s at most). */
	EXPECT_EQ(before, xt_core_count("cm_ids", before));
	snprintf(cmd, sizeof(cmd), "ip addr del %s/24 dev %s", ip, ndev);
	xt_run(cmd);
}

TEST_HARNESS_MAIN
