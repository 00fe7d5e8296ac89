// SPDX-License-Identifier: GPL-2.0
/*
 * The data path through the public verbs API (Debian's libibverbs with our
 * provider): two RC QPs of one process connected to each other on xrnic0
 * (and one on an SRQ),
 * so that every byte goes through the device.  Data is checked byte for
 * byte; error statuses are those of the IB spec; the data path makes no
 * system call.
 */
#include <errno.h>
#include <pthread.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <infiniband/verbs.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"

#define BUF_SIZE	(16 << 20)
#define SLACK		64		/* room to misalign buffers */
#define POLL_SECONDS	20		/* a completion that takes longer is lost */

FIXTURE(loop) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	uint8_t *src, *dst;
	struct ibv_mr *src_mr, *dst_mr;
};

static struct ibv_context *open_xrnic(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "xrnic0"))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* RESET -> INIT -> RTR -> RTS, connected to dest_qpn on the same GID. */
static int connect_qp(struct ibv_qp *qp, uint32_t dest_qpn, uint8_t rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	union ibv_gid gid;

	if (ibv_query_gid(qp->context, 1, 0, &gid) ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;		/* 0.01 ms */
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 10;
	a.retry_cnt = 2;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq, int sq_sig_all)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.sq_sig_all = sq_sig_all,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 6,
			 .max_recv_sge = 6, .max_inline_data = 64 },
	};

	return ibv_create_qp(pd, &init);
}

FIXTURE_SETUP(loop)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	int i;

	self->ctx = open_xrnic();
	ASSERT_NE(NULL, self->ctx);
	ASSERT_NE(NULL, self->pd = ibv_alloc_pd(self->ctx));
	ASSERT_NE(NULL, self->cq = ibv_create_cq(self->ctx, 256, NULL, NULL, 0));
	for (i = 0; i < 2; i++)
		ASSERT_NE(NULL, self->qp[i] = make_qp(self->pd, self->cq, 0));
	ASSERT_EQ(0, connect_qp(self->qp[0], self->qp[1]->qp_num, 0));
	ASSERT_EQ(0, connect_qp(self->qp[1], self->qp[0]->qp_num, 0));
	self->src = malloc(BUF_SIZE + SLACK);
	self->dst = malloc(BUF_SIZE + SLACK);
	ASSERT_TRUE(self->src && self->dst);
	ASSERT_NE(NULL, self->src_mr = ibv_reg_mr(self->pd, self->src, BUF_SIZE + SLACK, access));
	ASSERT_NE(NULL, self->dst_mr = ibv_reg_mr(self->pd, self->dst, BUF_SIZE + SLACK, access));
}

FIXTURE_TEARDOWN(loop)
{
	int i;

	if (self->src_mr)
		ibv_dereg_mr(self->src_mr);
	if (self->dst_mr)
		ibv_dereg_mr(self->dst_mr);
	for (i = 0; i < 2; i++)
		if (self->qp[i])
			ibv_destroy_qp(self->qp[i]);
	if (self->cq)
		ibv_destroy_cq(self->cq);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
	free(self->src);
	free(self->dst);
}

/* Poll one completion, bounded in time; -1 if none came. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	time_t end = time(NULL) + POLL_SECONDS;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1 ? 0 : -1;
	} while (time(NULL) < end);
	return -1;
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 131 + seed);
}

static const size_t sizes[] = {
	0, 1, 63, 64, 65, 4095, 4096, 4097, 1 << 20, 16 << 20,
};

/* One opcode of every size, at an odd offset on both sides. */
static int transfer(struct _test_data_loop *self, enum ibv_wr_opcode op, size_t len,
		    unsigned int seed, struct __test_metadata *_metadata)
{
	uint8_t *src = self->src + 3, *dst = self->dst + 5;
	struct ibv_sge sge = { (uintptr_t)src, len, self->src_mr->lkey };
	struct ibv_sge rsge = { (uintptr_t)dst, len, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(seed),
	}, *bad;
	struct ibv_wc wc;
	bool recv = op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
		    op == IBV_WR_RDMA_WRITE_WITH_IMM;

	fill(src, len, seed);
	memset(dst, 0xee, len + 1);
	if (op == IBV_WR_RDMA_READ) {
		/* READ brings the remote (dst MR) into the local (src MR) buffer. */
		fill(dst, len, seed);
		memset(src, 0xee, len + 1);
		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = self->dst_mr->rkey;
	} else if (op != IBV_WR_SEND && op != IBV_WR_SEND_WITH_IMM) {
		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = self->dst_mr->rkey;
	}
	if (recv && ibv_post_recv(self->qp[1], &rwr, &bad_r))
		return -1;
	if (ibv_post_send(self->qp[0], &wr, &bad))
		return -1;
	if (recv) {
		if (poll_one(self->cq, &wc))
			return -1;
		EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
		EXPECT_EQ(2, wc.wr_id);
		EXPECT_EQ(len, wc.byte_len);
		EXPECT_EQ(self->qp[1]->qp_num, wc.qp_num);
		if (op != IBV_WR_SEND) {
			EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_IMM);
			EXPECT_EQ(htobe32(seed), wc.imm_data);
		}
		EXPECT_EQ(op == IBV_WR_RDMA_WRITE_WITH_IMM ? IBV_WC_RECV_RDMA_WITH_IMM :
							     IBV_WC_RECV, wc.opcode);
	}
	if (poll_one(self->cq, &wc))
		return -1;
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(1, wc.wr_id);
	if (op == IBV_WR_RDMA_READ) {
		EXPECT_EQ(0, memcmp(src, dst, len));
		EXPECT_EQ(0xee, src[len]);		/* not one byte more */
	} else {
		EXPECT_EQ(0, memcmp(src, dst, len));
		EXPECT_EQ(0xee, dst[len]);
	}
	return 0;
}

#define EVERY_SIZE(op)							\
	do {								\
		size_t i;						\
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)	\
			ASSERT_EQ(0, transfer(self, op, sizes[i], i, _metadata)) \
				TH_LOG("%zu bytes", sizes[i]);		\
	} while (0)

TEST_F(loop, send_of_every_size)
{
	EVERY_SIZE(IBV_WR_SEND);
}

TEST_F(loop, send_with_imm_of_every_size)
{
	EVERY_SIZE(IBV_WR_SEND_WITH_IMM);
}

TEST_F(loop, rdma_write_of_every_size)
{
	EVERY_SIZE(IBV_WR_RDMA_WRITE);
}

TEST_F(loop, rdma_write_with_imm_of_every_size)
{
	EVERY_SIZE(IBV_WR_RDMA_WRITE_WITH_IMM);
}

TEST_F(loop, rdma_read_of_every_size)
{
	EVERY_SIZE(IBV_WR_RDMA_READ);
}

/* Six SGEs of different lengths gathered, scattered into three. */
/* One counter of `rdma statistic`, or -1. */
static long long device_counter(const char *name)
{
	char cmd[128], line[4096], *p;
	long long v = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma statistic show link xrnic0/1");
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, name);
		if (p && p[strlen(name)] == ' ')
			v = strtoll(p + strlen(name) + 1, NULL, 10);
	}
	pclose(f);
	return v;
}

/*
 * A 1 MiB WRITE at path MTU 4096 is 256 packets and 8 ACKs (one every 32
 * packets), as the device's own counters show: nothing else moves while
 * the test runs.
 */
TEST_F(loop, messages_go_as_packets_of_the_path_mtu)
{
	long long tx0 = device_counter("tx_packets"), rx0 = device_counter("rx_packets");

	ASSERT_LE(0, tx0);
	ASSERT_EQ(0, transfer(self, IBV_WR_RDMA_WRITE, 1 << 20, 7, _metadata));
	EXPECT_EQ(tx0 + 264, device_counter("tx_packets"));
	EXPECT_EQ(rx0 + 264, device_counter("rx_packets"));
	ASSERT_EQ(0, transfer(self, IBV_WR_RDMA_READ, 1 << 20, 8, _metadata));
	EXPECT_EQ(tx0 + 264 + 257, device_counter("tx_packets"));	/* a request, 256 responses */
}

TEST_F(loop, gather_and_scatter_lists)
{
	struct ibv_sge sge[6], rsge[3];
	struct ibv_recv_wr rwr = { .sg_list = rsge, .num_sge = 3 }, *bad_r;
	struct ibv_send_wr wr = { .sg_list = sge, .num_sge = 6, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	size_t off = 0, total = 0;
	struct ibv_wc wc;
	int i;

	fill(self->src, 100000, 9);
	for (i = 0; i < 6; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)self->src + off, 1000 * i + 7,
					   self->src_mr->lkey };
		off += 1000 * i + 7 + 100;	/* holes between them */
		total += 1000 * i + 7;
	}
	for (i = 0; i < 3; i++)
		rsge[i] = (struct ibv_sge){ (uintptr_t)self->dst + 20000 * i, 6000,
					    self->dst_mr->lkey };
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &rwr, &bad_r));
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(total, wc.byte_len);
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	/* The gathered stream, compared piece by piece. */
	{
		size_t s = 0, d = 0, n, sp = 0, dp = 0;

		while (s < 6 && d < 3) {
			n = sge[s].length - sp < rsge[d].length - dp ?
				sge[s].length - sp : rsge[d].length - dp;
			ASSERT_EQ(0, memcmp((void *)(uintptr_t)(sge[s].addr + sp),
					    (void *)(uintptr_t)(rsge[d].addr + dp), n));
			sp += n;
			dp += n;
			if (sp == sge[s].length) {
				s++;
				sp = 0;
			}
			if (dp == rsge[d].length) {
				d++;
				dp = 0;
			}
		}
		EXPECT_EQ(6, s);
	}
}

TEST_F(loop, inline_send_does_not_read_the_buffer_later)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 60, 0 /* no key needed */ };
	struct ibv_sge rsge = { (uintptr_t)self->dst, 64, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE }, *bad;
	uint8_t copy[60];
	struct ibv_wc wc;

	fill(self->src, 60, 3);
	memcpy(copy, self->src, 60);
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &rwr, &bad_r));
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad));
	memset(self->src, 0, 60);		/* the WQE holds the data */
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(0, memcmp(copy, self->dst, 60));
}

TEST_F(loop, atomics_return_the_old_value)
{
	uint64_t *remote = (uint64_t *)(self->dst + 64), *result = (uint64_t *)self->src;
	struct ibv_sge sge = { (uintptr_t)result, 8, self->src_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	*remote = 1000;
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = self->dst_mr->rkey;
	wr.wr.atomic.compare_add = 234;
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(IBV_WC_FETCH_ADD, wc.opcode);
	EXPECT_EQ(1000, *result);
	EXPECT_EQ(1234, *remote);
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 1234;
	wr.wr.atomic.swap = 5;
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_COMP_SWAP, wc.opcode);
	EXPECT_EQ(1234, *result);
	EXPECT_EQ(5, *remote);
	wr.wr.atomic.compare_add = 99;		/* no match: unchanged */
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(5, *result);
	EXPECT_EQ(5, *remote);
}

/* Unsignaled WQEs complete nothing; the signaled one after them does. */
TEST_F(loop, unsignaled_writes_complete_silently)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 16, self->src_mr->lkey };
	struct ibv_send_wr wr[5], *bad;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 5; i++) {
		wr[i] = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
			.next = i < 4 ? &wr[i + 1] : NULL,
			.send_flags = i == 4 ? IBV_SEND_SIGNALED : 0,
		};
		wr[i].wr.rdma.remote_addr = (uintptr_t)self->dst + 16 * i;
		wr[i].wr.rdma.rkey = self->dst_mr->rkey;
	}
	fill(self->src, 16, 1);
	ASSERT_EQ(0, ibv_post_send(self->qp[0], wr, &bad));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(4, wc.wr_id);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 1, &wc));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, memcmp(self->src, self->dst + 16 * i, 16));
}

/* A full send queue answers ENOMEM and names the first WR not posted. */
TEST_F(loop, full_send_queue_is_refused)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	uint32_t depth, i;

	/* No receive WQE and rnr_retry 7: the SENDs wait, filling the queue. */
	ASSERT_EQ(0, ibv_query_qp(self->qp[0], &attr, IBV_QP_CAP, &init));
	depth = init.cap.max_send_wr;
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

		ASSERT_EQ(0, ibv_modify_qp(self->qp[0], &a, IBV_QP_STATE));
		ASSERT_EQ(0, connect_qp(self->qp[0], self->qp[1]->qp_num, 7));
	}
	for (i = 0; i < depth; i++)
		ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad)) TH_LOG("WR %u", i);
	EXPECT_EQ(ENOMEM, ibv_post_send(self->qp[0], &wr, &bad));
	EXPECT_EQ(&wr, bad);
}

/* The first error moves the QP to ERR and flushes what follows. */
static void expect_error(struct _test_data_loop *self, struct ibv_send_wr *wr,
			 enum ibv_wc_status status, struct __test_metadata *_metadata)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr next = { .wr_id = 99, .sg_list = &sge, .num_sge = 1,
				    .opcode = IBV_WR_RDMA_WRITE,
				    .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct ibv_wc wc;

	next.wr.rdma.remote_addr = (uintptr_t)self->dst;
	next.wr.rdma.rkey = self->dst_mr->rkey;
	wr->next = &next;
	ASSERT_EQ(0, ibv_post_send(self->qp[0], wr, &bad));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(status, wc.status) TH_LOG("got %s", ibv_wc_status_str(wc.status));
	EXPECT_EQ(wr->wr_id, wc.wr_id);
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status);
	EXPECT_EQ(99, wc.wr_id);
	ASSERT_EQ(0, ibv_query_qp(self->qp[0], &attr, IBV_QP_STATE, &init));
	EXPECT_EQ(IBV_QPS_ERR, attr.qp_state);
}

TEST_F(loop, bad_lkey_is_a_local_protection_error)
{
	/* The key byte of another registration of that index. */
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey ^ 0x80 };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED };

	wr.wr.rdma.remote_addr = (uintptr_t)self->dst;
	wr.wr.rdma.rkey = self->dst_mr->rkey;
	expect_error(self, &wr, IBV_WC_LOC_PROT_ERR, _metadata);
}

TEST_F(loop, bad_rkey_or_bounds_is_a_remote_access_error)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED };

	struct pollfd pfd = { .fd = self->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	/* Four bytes beyond the MR's end. */
	wr.wr.rdma.remote_addr = (uintptr_t)self->dst + BUF_SIZE + SLACK - 4;
	wr.wr.rdma.rkey = self->dst_mr->rkey;
	expect_error(self, &wr, IBV_WC_REM_ACCESS_ERR, _metadata);
	/* The responder's QP went to ERR, and its owner is told. */
	ASSERT_EQ(1, poll(&pfd, 1, POLL_SECONDS * 1000));
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(IBV_EVENT_QP_ACCESS_ERR, ev.event_type);
	EXPECT_EQ(self->qp[1], ev.element.qp);
	ibv_ack_async_event(&ev);
}

TEST_F(loop, receive_too_small_fails_both_sides)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 100, self->src_mr->lkey };
	struct ibv_sge rsge = { (uintptr_t)self->dst, 99, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &rwr, &bad_r));
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_LOC_LEN_ERR, wc.status);
	EXPECT_EQ(7, wc.wr_id);
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_REM_INV_REQ_ERR, wc.status);
}

TEST_F(loop, send_without_receive_exhausts_rnr_retries)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };

	expect_error(self, &wr, IBV_WC_RNR_RETRY_EXC_ERR, _metadata);
}

/* With rnr_retry 7 the SEND waits for the receive posted later. */
TEST_F(loop, send_succeeds_after_rnr_retries)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_sge rsge = { (uintptr_t)self->dst, 8, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc;

	ASSERT_EQ(0, ibv_modify_qp(self->qp[0], &a, IBV_QP_STATE));
	ASSERT_EQ(0, connect_qp(self->qp[0], self->qp[1]->qp_num, 7));
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad));
	usleep(100000);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 1, &wc));
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &rwr, &bad_r));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
}

/* A QP in ERR can be reset, reconnected and used again. */
TEST_F(loop, qp_is_reusable_after_an_error_and_reset)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	expect_error(self, &wr, IBV_WC_RNR_RETRY_EXC_ERR, _metadata);
	ASSERT_EQ(0, ibv_modify_qp(self->qp[0], &a, IBV_QP_STATE));
	ASSERT_EQ(0, connect_qp(self->qp[0], self->qp[1]->qp_num, 0));
	ASSERT_EQ(0, transfer(self, IBV_WR_RDMA_WRITE, 4097, 5, _metadata));
}

/*
 * A QP takes work requests only in the states that may hold them, as the
 * IB spec says and rxe answers: receives from INIT on, sends from RTS on.
 * Before (and back in RESET, as rdma-core's pyverbs tests post), a post is
 * EINVAL with the first request named bad, and the extended API's
 * ibv_wr_complete() says EINVAL; nothing is sent.
 */
TEST_F(loop, a_qp_takes_work_only_in_the_states_that_hold_it)
{
	struct ibv_qp_init_attr_ex ex = {
		.send_cq = self->cq, .recv_cq = self->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = self->pd, .send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct ibv_recv_wr *bad_r = NULL;
	struct ibv_send_wr *bad_s = NULL;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int round;

	ASSERT_NE(NULL, qp = ibv_create_qp_ex(self->ctx, &ex));
	ASSERT_NE(NULL, qpx = ibv_qp_to_qp_ex(qp));
	for (round = 0; round < 2; round++) {
		/* RESET: new, then again after RTS. */
		EXPECT_EQ(EINVAL, ibv_post_send(qp, &swr, &bad_s)) TH_LOG("round %d", round);
		EXPECT_EQ(&swr, bad_s);
		EXPECT_EQ(EINVAL, ibv_post_recv(qp, &rwr, &bad_r)) TH_LOG("round %d", round);
		EXPECT_EQ(&rwr, bad_r);
		ibv_wr_start(qpx);
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, sge.lkey, sge.addr, sge.length);
		EXPECT_EQ(EINVAL, ibv_wr_complete(qpx)) TH_LOG("round %d", round);
		if (round)
			break;
		/* INIT: receives only. */
		ASSERT_EQ(0, ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
		bad_s = NULL;
		EXPECT_EQ(EINVAL, ibv_post_send(qp, &swr, &bad_s));
		EXPECT_EQ(&swr, bad_s);
		EXPECT_EQ(0, ibv_post_recv(qp, &rwr, &bad_r));
		ASSERT_EQ(0, ibv_modify_qp(qp, &reset, IBV_QP_STATE));
		ASSERT_EQ(0, connect_qp(qp, self->qp[1]->qp_num, 0));
		ASSERT_EQ(0, ibv_modify_qp(qp, &reset, IBV_QP_STATE));
		bad_s = NULL;
		bad_r = NULL;
	}
	usleep(100000);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
}

/* Completion events: armed, one event on the channel, acked. */
TEST_F(loop, armed_cq_delivers_one_completion_event)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(self->ctx);
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct pollfd pfd;
	struct ibv_cq *cq, *ev_cq;
	struct ibv_qp *qp[2];
	void *ev_ctx;
	struct ibv_wc wc;

	ASSERT_NE(NULL, ch);
	ASSERT_NE(NULL, cq = ibv_create_cq(self->ctx, 16, (void *)0x1234, ch, 0));
	ASSERT_NE(NULL, qp[0] = make_qp(self->pd, cq, 0));
	ASSERT_NE(NULL, qp[1] = make_qp(self->pd, cq, 0));
	ASSERT_EQ(0, connect_qp(qp[0], qp[1]->qp_num, 0));
	ASSERT_EQ(0, connect_qp(qp[1], qp[0]->qp_num, 0));
	wr.wr.rdma.remote_addr = (uintptr_t)self->dst;
	wr.wr.rdma.rkey = self->dst_mr->rkey;

	ASSERT_EQ(0, ibv_req_notify_cq(cq, 0));
	ASSERT_EQ(0, ibv_post_send(qp[0], &wr, &bad));
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, POLL_SECONDS * 1000));
	ASSERT_EQ(0, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	EXPECT_EQ(cq, ev_cq);
	EXPECT_EQ((void *)0x1234, ev_ctx);
	ibv_ack_cq_events(cq, 1);
	ASSERT_EQ(1, ibv_poll_cq(cq, 1, &wc));
	/* Not re-armed: the next completion raises no event. */
	ASSERT_EQ(0, ibv_post_send(qp[0], &wr, &bad));
	ASSERT_EQ(0, poll_one(cq, &wc));
	EXPECT_EQ(0, poll(&pfd, 1, 200));
	ibv_destroy_qp(qp[0]);
	ibv_destroy_qp(qp[1]);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

/*
 * A destroyed QP's flushed work requests leave its CQ, as mlx4's and
 * mlx5's do; what it completed stays, as do the other QP's completions, in
 * order, and the CQ goes on.  Each completion is seen in the CQ (its
 * event) before the next WR, and the CQ's ring is about to wrap, so the
 * kept ones move across its end.
 */
TEST_F(loop, a_destroyed_qps_flushed_work_requests_leave_its_cq)
{
	/* Which QP (A 0, B 1) posts WR i + 1; A is in the error state from WR 3 on. */
	static const int owner[] = { 0, 1, 0, 1, 0, 1 };
	static const uint64_t kept[] = { 1, 2, 4, 6 };
	struct ibv_comp_channel *ch = ibv_create_comp_channel(self->ctx);
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	uint32_t a_qpn, b_qpn;
	struct ibv_cq *cq, *ev_cq;
	struct ibv_qp *qp[2], *peer[2];
	struct ibv_wc wc[8];
	struct pollfd pfd;
	void *ev_ctx;
	int i, n;

	ASSERT_NE(NULL, ch);
	ASSERT_NE(NULL, cq = ibv_create_cq(self->ctx, 8, NULL, ch, 0));
	/* Each to a peer of its own (on the fixture's CQ): A's error leaves B alone. */
	for (i = 0; i < 2; i++) {
		ASSERT_NE(NULL, qp[i] = make_qp(self->pd, cq, 0));
		ASSERT_NE(NULL, peer[i] = make_qp(self->pd, self->cq, 0));
		ASSERT_EQ(0, connect_qp(qp[i], peer[i]->qp_num, 0));
		ASSERT_EQ(0, connect_qp(peer[i], qp[i]->qp_num, 0));
	}
	a_qpn = qp[0]->qp_num;
	b_qpn = qp[1]->qp_num;
	wr.wr.rdma.remote_addr = (uintptr_t)self->dst;
	wr.wr.rdma.rkey = self->dst_mr->rkey;
	/* Two slots before the ring's end. */
	for (i = 0; i < cq->cqe - 2; i++) {
		ASSERT_EQ(0, ibv_post_send(qp[1], &wr, &bad));
		ASSERT_EQ(0, poll_one(cq, &wc[0]));
	}
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	for (i = 0; i < 6; i++) {
		if (i == 2)
			ASSERT_EQ(0, ibv_modify_qp(qp[0], &err, IBV_QP_STATE));
		wr.wr_id = i + 1;
		ASSERT_EQ(0, ibv_req_notify_cq(cq, 0));
		ASSERT_EQ(0, ibv_post_send(qp[owner[i]], &wr, &bad));
		ASSERT_EQ(1, poll(&pfd, 1, POLL_SECONDS * 1000)) TH_LOG("completion %d", i + 1);
		ASSERT_EQ(0, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	}
	ibv_ack_cq_events(cq, 6);
	ASSERT_EQ(0, ibv_destroy_qp(qp[0]));
	qp[0] = NULL;
	n = ibv_poll_cq(cq, 8, wc);
	ASSERT_EQ(4, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(kept[i], wc[i].wr_id);
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		EXPECT_EQ(i ? b_qpn : a_qpn, wc[i].qp_num);
	}
	wr.wr_id = 7;
	ASSERT_EQ(0, ibv_post_send(qp[1], &wr, &bad));
	ASSERT_EQ(0, poll_one(cq, &wc[0]));
	EXPECT_EQ(7, wc[0].wr_id);
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, wc));
	ibv_destroy_qp(qp[1]);
	ibv_destroy_qp(peer[0]);
	ibv_destroy_qp(peer[1]);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

/*
 * Kernel bypass: a thread posts and polls under a seccomp filter that kills
 * it on any system call but exit, which ends it after it reports success.
 */
struct nosys {
	struct _test_data_loop *self;
	volatile int done;	/* 1: every WR completed; 2+: a failure */
};

/* A CQ armed for solicited completions stays quiet until a solicited SEND lands. */
TEST_F(loop, solicited_arm_waits_for_a_solicited_send)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(self->ctx);
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_sge rsge = { (uintptr_t)self->dst, 8, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_cq *scq, *rcq, *ev_cq;
	struct ibv_qp *qp[2];
	struct pollfd pfd;
	struct ibv_wc wc;
	void *ev_ctx;

	ASSERT_NE(NULL, ch);
	ASSERT_NE(NULL, scq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0));
	ASSERT_NE(NULL, rcq = ibv_create_cq(self->ctx, 16, NULL, ch, 0));
	ASSERT_NE(NULL, qp[0] = make_qp(self->pd, scq, 0));
	ASSERT_NE(NULL, qp[1] = make_qp(self->pd, rcq, 0));
	ASSERT_EQ(0, connect_qp(qp[0], qp[1]->qp_num, 0));
	ASSERT_EQ(0, connect_qp(qp[1], qp[0]->qp_num, 0));
	ASSERT_EQ(0, ibv_post_recv(qp[1], &rwr, &bad_r));
	ASSERT_EQ(0, ibv_post_recv(qp[1], &rwr, &bad_r));
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };

	ASSERT_EQ(0, ibv_req_notify_cq(rcq, 1));
	ASSERT_EQ(0, ibv_post_send(qp[0], &wr, &bad));
	ASSERT_EQ(0, poll_one(scq, &wc));
	ASSERT_EQ(0, poll_one(rcq, &wc));
	EXPECT_FALSE(wc.wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(0, poll(&pfd, 1, 200));		/* not solicited: no event */

	wr.send_flags |= IBV_SEND_SOLICITED;
	ASSERT_EQ(0, ibv_post_send(qp[0], &wr, &bad));
	ASSERT_EQ(1, poll(&pfd, 1, POLL_SECONDS * 1000));
	ASSERT_EQ(0, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	EXPECT_EQ(rcq, ev_cq);
	ibv_ack_cq_events(rcq, 1);
	ASSERT_EQ(0, poll_one(rcq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, poll_one(scq, &wc));
	ibv_destroy_qp(qp[0]);
	ibv_destroy_qp(qp[1]);
	EXPECT_EQ(0, ibv_destroy_cq(scq));
	EXPECT_EQ(0, ibv_destroy_cq(rcq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

static void *nosys_loop(void *arg)
{
	struct nosys *ns = arg;
	struct _test_data_loop *self = ns->self;
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
	};
	struct sock_fprog prog = { .len = 4, .filter = filter };
	struct ibv_sge sge = { (uintptr_t)self->src, 4096, self->src_mr->lkey };
	struct ibv_sge rsge = { (uintptr_t)self->dst, 4096, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int i, n, got;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		ns->done = 2;
		return NULL;
	}
	for (i = 0; i < 100 && ns->done < 2; i++) {
		if (ibv_post_recv(self->qp[1], &rwr, &bad_r) ||
		    ibv_post_send(self->qp[0], &wr, &bad))
			ns->done = 3;
		for (n = 0; n < 2 && ns->done < 2; n += got) {
			got = ibv_poll_cq(self->cq, 1, &wc);
			if (got < 0 || (got && wc.status != IBV_WC_SUCCESS))
				ns->done = 4;
		}
	}
	if (ns->done < 2)
		ns->done = 1;
	syscall(__NR_exit, 0);	/* not glibc's thread exit: it makes calls */
	return NULL;
}

TEST_F(loop, data_path_makes_no_system_call)
{
	struct nosys ns = { .self = self };
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, nosys_loop, &ns));
	ASSERT_EQ(0, pthread_join(t, NULL));
	/* 0: the thread was killed by seccomp, so it made a system call. */
	EXPECT_EQ(1, ns.done);
}

/* The extended QP's post-send API: a batch goes out whole or not at all. */
TEST_F(loop, new_post_send_api)
{
	struct ibv_qp_init_attr_ex ex = {
		.send_cq = self->cq, .recv_cq = self->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 32 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = self->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_sge rsge = { (uintptr_t)self->dst + 4096, 64, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	uint64_t *counter = (uint64_t *)(self->dst + 8192);
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int i, n;

	ASSERT_NE(NULL, qp = ibv_create_qp_ex(self->ctx, &ex));
	ASSERT_NE(NULL, qpx = ibv_qp_to_qp_ex(qp));
	ASSERT_EQ(0, connect_qp(qp, self->qp[1]->qp_num, 0));
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

		/* qp[1] now answers the new QP. */
		ASSERT_EQ(0, ibv_modify_qp(self->qp[1], &a, IBV_QP_STATE));
		ASSERT_EQ(0, connect_qp(self->qp[1], qp->qp_num, 0));
	}
	fill(self->src, 4096, 8);
	*counter = 5;
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &rwr, &bad_r));

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, self->dst_mr->rkey, (uintptr_t)self->dst);
	ibv_wr_set_sge(qpx, self->src_mr->lkey, (uintptr_t)self->src, 4096);
	qpx->wr_id = 2;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, self->src, 20);
	qpx->wr_id = 4;
	ibv_wr_atomic_fetch_add(qpx, self->dst_mr->rkey, (uintptr_t)counter, 10);
	ibv_wr_set_sge(qpx, self->src_mr->lkey, (uintptr_t)self->src + 8192, 8);
	ASSERT_EQ(0, ibv_wr_complete(qpx));
	for (n = 0, i = 0; i < 4; i++) {
		ASSERT_EQ(0, poll_one(self->cq, &wc));
		EXPECT_EQ(IBV_WC_SUCCESS, wc.status) TH_LOG("wr_id %lu", (unsigned long)wc.wr_id);
		n += wc.wr_id;
	}
	EXPECT_EQ(1 + 2 + 3 + 4, n);
	EXPECT_EQ(0, memcmp(self->src, self->dst, 4096));
	EXPECT_EQ(0, memcmp(self->src, self->dst + 4096, 20));
	EXPECT_EQ(15, *counter);

	/* An aborted batch, and one with a bad SGE count: nothing is sent. */
	ibv_wr_start(qpx);
	ibv_wr_rdma_write(qpx, self->dst_mr->rkey, (uintptr_t)self->dst);
	ibv_wr_set_sge(qpx, self->src_mr->lkey, (uintptr_t)self->src, 8);
	ibv_wr_abort(qpx);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, self->dst_mr->rkey, (uintptr_t)self->dst);
	ibv_wr_set_sge_list(qpx, 3, (struct ibv_sge[3]){});
	EXPECT_EQ(EINVAL, ibv_wr_complete(qpx));
	usleep(100000);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
}

static uint64_t realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static uint64_t raw_clock_ns(struct ibv_context *ctx)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	if (ibv_query_rt_values_ex(ctx, &v) || v.comp_mask != IBV_VALUES_MASK_RAW_CLOCK)
		return 0;
	return v.raw_clock.tv_nsec;
}

/* One signaled WRITE on @qp; its completion's two timestamps after @delay_us. */
static int stamped_write(struct _test_data_loop *self, struct ibv_qp *qp,
			 struct ibv_cq_ex *cqx, useconds_t delay_us, uint32_t *ts,
			 uint64_t *wall)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 64, self->src_mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)self->dst, self->dst_mr->rkey },
	}, *bad;
	struct ibv_poll_cq_attr attr = {};
	time_t end;
	int ret;

	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	usleep(delay_us);
	end = time(NULL) + POLL_SECONDS;
	while ((ret = ibv_start_poll(cqx, &attr)) == ENOENT && time(NULL) < end)
		;
	if (ret)
		return -1;
	ret = cqx->status == IBV_WC_SUCCESS && cqx->wr_id == 7 ? 0 : -1;
	*ts = (uint32_t)ibv_wc_read_completion_ts(cqx);
	*wall = ibv_wc_read_completion_wallclock_ns(cqx);
	ibv_end_poll(cqx);
	return ret;
}

/*
 * The extended CQ stamps each completion with the device clock and, from
 * the driver's clock page, the wall clock; ibv_query_rt_values_ex() reads
 * the device clock now.  Each lies between readings taken before the post
 * and after the poll, give or take SLOP (how far off the driver's last
 * reading of the device clock can be on a loaded machine: half its admin
 * round trip); a clock
 * misread is off by far more (a wrap is 4.3 s, a unit a factor of 1000).
 * A completion read 3 s late, past half the 32-bit timestamp's range, is
 * still placed in the past.
 */
#define SLOP	1000000000ull	/* 1 s: a loaded guest's admin round trip, halved, stays below */

TEST_F(loop, extended_cq_stamps_completions_with_the_device_and_the_wall_clock)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC, .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_values_ex bad_mask = { .comp_mask = 1u << 7 };
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct ibv_device_attr_ex dev;
	uint64_t raw0, raw1, w0, w1, wall;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp;
	uint32_t ts;

	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &dev));
	EXPECT_EQ(0xffffffffull, dev.completion_timestamp_mask);
	EXPECT_EQ(1000000, dev.hca_core_clock);		/* kHz: nanoseconds */
	EXPECT_EQ(EINVAL, ibv_query_rt_values_ex(self->ctx, &bad_mask));

	ASSERT_NE(NULL, cqx = ibv_create_cq_ex(self->ctx, &ca));
	init.send_cq = init.recv_cq = ibv_cq_ex_to_cq(cqx);
	ASSERT_NE(NULL, qp = ibv_create_qp(self->pd, &init));
	ASSERT_EQ(0, connect_qp(qp, self->qp[1]->qp_num, 0));
	ASSERT_EQ(0, ibv_modify_qp(self->qp[1], &reset, IBV_QP_STATE));
	ASSERT_EQ(0, connect_qp(self->qp[1], qp->qp_num, 0));

	w0 = realtime_ns();
	raw0 = raw_clock_ns(self->ctx);
	ASSERT_NE(0, raw0);
	ASSERT_EQ(0, stamped_write(self, qp, cqx, 0, &ts, &wall));
	raw1 = raw_clock_ns(self->ctx);
	w1 = realtime_ns();
	EXPECT_LE(raw0, raw1);
	EXPECT_GE(raw1 - raw0 + 2 * SLOP, (uint32_t)(ts - (uint32_t)(raw0 - SLOP)))
		TH_LOG("timestamp %u, raw clock %llu .. %llu", ts,
		       (unsigned long long)raw0, (unsigned long long)raw1);
	EXPECT_LE(w0 - SLOP, wall);
	EXPECT_GE(w1 + SLOP, wall) TH_LOG("wall clock %llu, now %llu .. %llu",
					  (unsigned long long)wall,
					  (unsigned long long)w0, (unsigned long long)w1);

	w0 = realtime_ns();
	ASSERT_EQ(0, stamped_write(self, qp, cqx, 3000000, &ts, &wall));
	w1 = realtime_ns();
	EXPECT_LE(w0 - SLOP, wall);
	EXPECT_GE(w1 + SLOP, wall) TH_LOG("read 3 s late: wall clock %llu, now %llu .. %llu",
					  (unsigned long long)wall,
					  (unsigned long long)w0, (unsigned long long)w1);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)));
}

/* More completions than the CQ holds: the CQ's owner hears of the overrun. */
TEST_F(loop, cq_overrun_is_reported)
{
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct pollfd pfd = { .fd = self->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	struct ibv_qp *qp[2];
	struct ibv_cq *cq;
	int i;

	ASSERT_NE(NULL, cq = ibv_create_cq(self->ctx, 2, NULL, NULL, 0));
	ASSERT_EQ(2, cq->cqe);
	ASSERT_NE(NULL, qp[0] = make_qp(self->pd, cq, 0));
	ASSERT_NE(NULL, qp[1] = make_qp(self->pd, self->cq, 0));
	ASSERT_EQ(0, connect_qp(qp[0], qp[1]->qp_num, 0));
	ASSERT_EQ(0, connect_qp(qp[1], qp[0]->qp_num, 0));
	wr.wr.rdma.remote_addr = (uintptr_t)self->dst;
	wr.wr.rdma.rkey = self->dst_mr->rkey;
	for (i = 0; i < 4; i++)		/* never polled */
		ASSERT_EQ(0, ibv_post_send(qp[0], &wr, &bad));
	ASSERT_EQ(1, poll(&pfd, 1, POLL_SECONDS * 1000));
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(IBV_EVENT_CQ_ERR, ev.event_type);
	EXPECT_EQ(cq, ev.element.cq);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(0, ibv_destroy_qp(qp[0]));
	EXPECT_EQ(0, ibv_destroy_qp(qp[1]));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* 128 connected pairs at once, each moving its own data. */
TEST_F(loop, many_qps_at_once)
{
	enum { PAIRS = 128 };
	struct ibv_qp *qp[2 * PAIRS];
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int i, done = 0;

	ASSERT_NE(NULL, cq = ibv_create_cq(self->ctx, 4 * PAIRS, NULL, NULL, 0));
	for (i = 0; i < 2 * PAIRS; i++)
		ASSERT_NE(NULL, qp[i] = make_qp(self->pd, cq, 1)) TH_LOG("QP %d", i);
	for (i = 0; i < 2 * PAIRS; i++)
		ASSERT_EQ(0, connect_qp(qp[i], qp[i ^ 1]->qp_num, 0));
	fill(self->src, PAIRS * 1024, 4);
	for (i = 0; i < PAIRS; i++) {
		struct ibv_sge sge = { (uintptr_t)self->src + i * 1024, 1024,
				       self->src_mr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE }, *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)self->dst + i * 1024;
		wr.wr.rdma.rkey = self->dst_mr->rkey;
		ASSERT_EQ(0, ibv_post_send(qp[2 * i], &wr, &bad));
	}
	while (done < PAIRS) {
		ASSERT_EQ(0, poll_one(cq, &wc));
		EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
		done++;
	}
	EXPECT_EQ(0, memcmp(self->src, self->dst, PAIRS * 1024));
	for (i = 0; i < 2 * PAIRS; i++)
		ASSERT_EQ(0, ibv_destroy_qp(qp[i]));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/*
 * Post a WRITE with immediate of len bytes within src that cannot finish
 * (QP 1 has no receive WQE and QP 0 retries RNR for ever), then n WQEs of
 * op, len bytes each, into dst (WRITE: its rkey; READ from src: its lkey),
 * which wait behind it.  wr_ids 0 .. n.
 */
static int post_stalled(struct _test_data_loop *self, enum ibv_wr_opcode op, int n, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)self->src, len, self->src_mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int i;

	wr.wr.rdma.remote_addr = (uintptr_t)self->src + len;
	wr.wr.rdma.rkey = self->src_mr->rkey;
	if (ibv_post_send(self->qp[0], &wr, &bad))
		return -1;
	wr.opcode = op;
	if (op == IBV_WR_RDMA_READ) {
		sge = (struct ibv_sge){ (uintptr_t)self->dst, len, self->dst_mr->lkey };
		wr.wr.rdma.remote_addr = (uintptr_t)self->src;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)self->dst;
		wr.wr.rdma.rkey = self->dst_mr->rkey;
	}
	for (i = 1; i <= n; i++) {
		wr.wr_id = i;
		if (ibv_post_send(self->qp[0], &wr, &bad))
			return -1;
	}
	return 0;
}

/*
 * Deregister the MR that queued WRITEs (its rkey) or READs (its lkey) land
 * in, while they are certainly in flight (behind a WRITE stalled on RNR):
 * once ibv_dereg_mr() returns, the device never writes its pages again.
 * Then the stall ends; the stalled WQE succeeds, the first WQE on the MR
 * fails with an access error and the rest are flushed.
 */
static void dereg_under_traffic(struct _test_data_loop *self, enum ibv_wr_opcode op,
				struct __test_metadata *_metadata)
{
	const int n = 32;
	const size_t len = 1 << 20;
	struct ibv_sge rsge = { (uintptr_t)self->src + 2 * len, 8, self->src_mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 100, .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_wc wc;
	int i;

	ASSERT_EQ(0, ibv_modify_qp(self->qp[0], &(struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET },
				   IBV_QP_STATE));
	ASSERT_EQ(0, connect_qp(self->qp[0], self->qp[1]->qp_num, 7));	/* RNR for ever */
	fill(self->src, len, 9);
	ASSERT_EQ(0, post_stalled(self, op, n, len));
	usleep(100000);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 1, &wc));		/* nothing has finished */
	ASSERT_EQ(0, ibv_dereg_mr(self->dst_mr));
	self->dst_mr = NULL;
	memset(self->dst, 0x11, len);
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &rwr, &bad_r));	/* the stall ends */
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(100, wc.wr_id);				/* QP 1's receive */
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	for (i = 0; i <= n; i++) {
		ASSERT_EQ(0, poll_one(self->cq, &wc)) TH_LOG("completion %d of %d", i, n + 1);
		EXPECT_EQ(i, wc.wr_id);
		if (i == 0) {
			EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
		} else if (i == 1) {
			EXPECT_EQ(op == IBV_WR_RDMA_READ ? IBV_WC_LOC_PROT_ERR : IBV_WC_REM_ACCESS_ERR,
				  wc.status);
		} else {
			EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status);
		}
	}
	for (i = 0; i < (int)len; i++)
		if (self->dst[i] != 0x11)
			break;
	EXPECT_EQ((int)len, i) TH_LOG("byte %d written after DEREG_MR returned", i);
}

TEST_F(loop, dereg_mr_stops_writes_into_it)
{
	dereg_under_traffic(self, IBV_WR_RDMA_WRITE, _metadata);
}

TEST_F(loop, dereg_mr_stops_reads_into_it)
{
	dereg_under_traffic(self, IBV_WR_RDMA_READ, _metadata);
}

/* The CPU time (ticks) and context switches of a process, from /proc. */
static int proc_cpu(pid_t pid, long long *ticks, long long *switches)
{
	char path[64], line[512], *p;
	long long ut, st, v;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(line, ')');		/* after the command name */
	for (i = 0; p && i < 12; i++)	/* fields 3..14: utime is the 14th */
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, "%lld %lld", &ut, &st) != 2)
		return -1;
	*ticks = ut + st;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*switches = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1)
			*switches += v;
	fclose(f);
	return 0;
}

static long long comp_irqs(void)
{
	char name[32];
	long long total = 0, n;
	int v;

	for (v = 1; v < 8; v++) {
		snprintf(name, sizeof(name), "xrnic-comp%d@", v);
		n = xt_irq_count(name);
		if (n > 0)
			total += n;
	}
	return total;
}

struct target_info {
	uint32_t qpn, rkey;
	uint64_t addr;
};

/*
 * The target of one-sided operations: a process with an MR over shared
 * memory and a QP, which tells the initiator where they are and then
 * sleeps in read() until told to go.
 */
static int one_sided_target(int to_parent, int from_parent, uint8_t *buf, size_t len)
{
	struct ibv_context *ctx = open_xrnic();
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	struct ibv_qp *qp = cq ? make_qp(pd, cq, 0) : NULL;
	struct ibv_mr *mr = qp ? ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) : NULL;
	struct target_info me;
	uint32_t peer;
	char go;

	if (!mr || read(from_parent, &peer, sizeof(peer)) != sizeof(peer) ||
	    connect_qp(qp, peer, 0))
		return 1;
	me = (struct target_info){ qp->qp_num, mr->rkey, (uintptr_t)buf };
	if (write(to_parent, &me, sizeof(me)) != sizeof(me))
		return 1;
	if (read(from_parent, &go, 1) != 1)
		return 1;
	return 0;
}

/*
 * The target of RDMA WRITEs and READs spends nothing: its process's CPU
 * time and context switches, and the interrupts of every completion
 * vector, do not move while 64 MiB go each way through its memory.
 */
TEST_F(loop, one_sided_target_spends_no_cpu)
{
	const size_t len = 1 << 20;
	int down[2], up[2], i, status;
	long long t0, s0, t1, s1, irq0;
	struct target_info peer;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc;
	uint8_t *shared;
	pid_t pid;

	shared = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	memset(shared, 0, len);
	ASSERT_EQ(0, pipe(down));
	ASSERT_EQ(0, pipe(up));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(one_sided_target(up[1], down[0], shared, len));
	ASSERT_EQ(sizeof(uint32_t), write(down[1], &self->qp[0]->qp_num, sizeof(uint32_t)));
	ASSERT_EQ(sizeof(peer), read(up[0], &peer, sizeof(peer)));
	/* Reconnect QP 0 to the target's QP. */
	ASSERT_EQ(0, ibv_modify_qp(self->qp[0], &(struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET },
				   IBV_QP_STATE));
	ASSERT_EQ(0, connect_qp(self->qp[0], peer.qpn, 0));
	usleep(100000);			/* the target is asleep in read() */
	ASSERT_EQ(0, proc_cpu(pid, &t0, &s0));
	irq0 = comp_irqs();

	fill(self->src, len, 4);
	wr.wr.rdma.remote_addr = peer.addr;
	wr.wr.rdma.rkey = peer.rkey;
	for (i = 0; i < 128; i++) {
		wr.opcode = i % 2 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
		sge = (struct ibv_sge){ (uintptr_t)(i % 2 ? self->dst : self->src), len,
					i % 2 ? self->dst_mr->lkey : self->src_mr->lkey };
		wr.wr_id = i;
		wr.send_flags = IBV_SEND_SIGNALED;
		ASSERT_EQ(0, ibv_post_send(self->qp[0], &wr, &bad));
		ASSERT_EQ(0, poll_one(self->cq, &wc));
		ASSERT_EQ(IBV_WC_SUCCESS, wc.status) TH_LOG("WQE %d", i);
	}
	ASSERT_EQ(0, proc_cpu(pid, &t1, &s1));
	EXPECT_EQ(0, memcmp(shared, self->src, len));
	EXPECT_EQ(0, memcmp(self->dst, self->src, len));
	EXPECT_EQ(t0, t1) TH_LOG("the target ran %lld ticks", t1 - t0);
	EXPECT_EQ(s0, s1) TH_LOG("the target was switched %lld times", s1 - s0);
	EXPECT_EQ(irq0, comp_irqs());
	ASSERT_EQ(1, write(down[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	munmap(shared, len);
}

/*
 * kill -9 of a process in the middle of transfers: nothing is left on the
 * device or in the core, and its pins go with it.
 */
TEST(killed_mid_transfer_leaves_nothing)
{
	int status, round;
	pid_t pid;

	for (round = 0; round < 3; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct ibv_context *ctx = open_xrnic();
			struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
			struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
			struct ibv_qp *a = cq ? make_qp(pd, cq, 1) : NULL;
			struct ibv_qp *b = a ? make_qp(pd, cq, 1) : NULL;
			uint8_t *buf = malloc(4 << 20);
			struct ibv_mr *mr = b && buf ? ibv_reg_mr(pd, buf, 4 << 20,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
			struct ibv_sge sge;
			struct ibv_send_wr wr = { .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
						  .sg_list = &sge }, *bad;
			struct ibv_wc wc[16];

			if (!mr || connect_qp(a, b->qp_num, 0) || connect_qp(b, a->qp_num, 0))
				_exit(1);
			sge = (struct ibv_sge){ (uintptr_t)buf, 2 << 20, mr->lkey };
			wr.wr.rdma.remote_addr = (uintptr_t)buf + (2 << 20);
			wr.wr.rdma.rkey = mr->rkey;
			for (;;) {	/* keep the send queue busy until killed */
				ibv_post_send(a, &wr, &bad);
				ibv_poll_cq(cq, 16, wc);
			}
		}
		usleep(300000 + 200000 * round);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("the child failed to set up: 0x%x",
							 status);
		EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
		EXPECT_EQ(0, xt_device_holds_only_pds(0));
	}
}

/* A WRITE of len bytes from src to va under rkey on qp[0]: its status. */
static int write_status(struct _test_data_loop *self, uint32_t rkey, uint64_t va, uint32_t len,
			enum ibv_wr_opcode op)
{
	struct ibv_sge sge = { (uintptr_t)self->src, len, self->src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = va;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(self->qp[0], &wr, &bad) || poll_one(self->cq, &wc))
		return -1;
	return wc.status;
}

/* Post one work request on qp and return its completion (status -1: none). */
static struct ibv_wc post_one(struct _test_data_loop *self, struct ibv_qp *qp,
			      struct ibv_send_wr *wr)
{
	struct ibv_wc wc = { .status = -1 };
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (!ibv_post_send(qp, wr, &bad) && poll_one(self->cq, &wc))
		wc.status = -1;
	return wc;
}

/*
 * A type 1 window bound with ibv_bind_mw() over an MR that has no remote
 * rights of its own: remote WRITEs reach exactly its range, its old rkey
 * nothing, the MR cannot go while it is bound, and it is unbound by a bind
 * of length 0.
 */
TEST_F(loop, a_type_1_memory_window_grants_its_range_until_unbound)
{
	struct ibv_device_attr_ex attr;
	uint8_t *win = self->dst + 4096;
	struct ibv_mw_bind bind = {
		.wr_id = 5, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .addr = (uintptr_t)win, .length = 256,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
	};
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t old;

	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &attr));
	EXPECT_TRUE(attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW);
	EXPECT_TRUE(attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	EXPECT_LT(0, attr.orig_attr.max_mw);
	ASSERT_NE(NULL, mr = ibv_reg_mr(self->pd, self->dst, 1 << 20,
					IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND));
	ASSERT_NE(NULL, mw = ibv_alloc_mw(self->pd, IBV_MW_TYPE_1));
	bind.bind_info.mr = mr;
	old = mw->rkey;
	ASSERT_EQ(0, ibv_bind_mw(self->qp[1], mw, &bind));
	EXPECT_EQ(ibv_inc_rkey(old), mw->rkey);
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(IBV_WC_BIND_MW, wc.opcode);
	EXPECT_EQ(5, wc.wr_id);

	fill(self->src, 256, 7);
	memset(self->dst, 0, 8192);
	EXPECT_EQ(IBV_WC_SUCCESS, write_status(self, mw->rkey, (uintptr_t)win, 256,
					       IBV_WR_RDMA_WRITE));
	EXPECT_EQ(0, memcmp(win, self->src, 256));
	EXPECT_EQ(0, win[256]);
	EXPECT_EQ(0, win[-1]);
	EXPECT_EQ(EBUSY, ibv_dereg_mr(mr));
	/* Unbound (length 0): its rkey opens nothing any more. */
	bind.bind_info = (struct ibv_mw_bind_info){};
	old = mw->rkey;
	ASSERT_EQ(0, ibv_bind_mw(self->qp[1], mw, &bind));
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, write_status(self, old, (uintptr_t)win, 8,
						      IBV_WR_RDMA_WRITE));
	EXPECT_EQ(0, ibv_dealloc_mw(mw));
}

/*
 * A type 2 window, bound by a BIND_MW work request of the QP remote
 * requests arrive on: WRITEs and READs within its rights, a SEND with Invalidate that frees it (the
 * receiver's completion names the key), LOCAL_INV, and a bind the rules
 * refuse (an MR without MW_BIND) failing with MW_BIND_ERR.
 */
TEST_F(loop, a_type_2_memory_window_serves_its_qp_until_invalidated)
{
	struct ibv_sge rsge = { (uintptr_t)self->dst, 64, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_sge sge = { (uintptr_t)self->src, 8, self->src_mr->lkey };
	uint8_t *win = self->dst + 8192;
	struct ibv_send_wr wr = { .wr_id = 4, .opcode = IBV_WR_BIND_MW };
	struct ibv_mw_bind_info info = { .addr = (uintptr_t)win, .length = 128,
					 .mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
							    IBV_ACCESS_REMOTE_READ };
	struct ibv_mr *mr, *plain;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t key;

	ASSERT_NE(NULL, mr = ibv_reg_mr(self->pd, self->dst, 1 << 20,
					IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND));
	ASSERT_NE(NULL, mw = ibv_alloc_mw(self->pd, IBV_MW_TYPE_2));
	EXPECT_EQ(EINVAL, ibv_bind_mw(self->qp[1], mw, &(struct ibv_mw_bind){}));
	info.mr = mr;
	key = ibv_inc_rkey(mw->rkey);
	wr.bind_mw = (typeof(wr.bind_mw)){ .mw = mw, .rkey = key, .bind_info = info };
	wc = post_one(self, self->qp[1], &wr);
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(IBV_WC_BIND_MW, wc.opcode);
	mw->rkey = key;

	fill(self->src, 128, 9);
	memset(win, 0, 128);
	EXPECT_EQ(IBV_WC_SUCCESS, write_status(self, key, (uintptr_t)win, 128,
					       IBV_WR_RDMA_WRITE));
	EXPECT_EQ(0, memcmp(win, self->src, 128));
	memset(self->src, 0, 128);
	EXPECT_EQ(IBV_WC_SUCCESS, write_status(self, key, (uintptr_t)win, 128,
					       IBV_WR_RDMA_READ));
	EXPECT_EQ(0, memcmp(win, self->src, 128));

	/* SEND with Invalidate. */
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &rwr, &bad_r));
	wr = (struct ibv_send_wr){ .wr_id = 6, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND_WITH_INV, .invalidate_rkey = key };
	wc = post_one(self, self->qp[0], &wr);
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(3, wc.wr_id);		/* the receive completes first */
	EXPECT_EQ(IBV_WC_RECV, wc.opcode);
	EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_INV);
	EXPECT_EQ(key, wc.invalidated_rkey);
	ASSERT_EQ(0, poll_one(self->cq, &wc));
	EXPECT_EQ(6, wc.wr_id);
	EXPECT_EQ(IBV_WC_SEND, wc.opcode);

	/* Free again: bound once more, then LOCAL_INV. */
	key = ibv_inc_rkey(key);
	wr = (struct ibv_send_wr){ .wr_id = 7, .opcode = IBV_WR_BIND_MW,
				   .bind_mw = { .mw = mw, .rkey = key, .bind_info = info } };
	EXPECT_EQ(IBV_WC_SUCCESS, post_one(self, self->qp[1], &wr).status);
	mw->rkey = key;
	wr = (struct ibv_send_wr){ .wr_id = 8, .opcode = IBV_WR_LOCAL_INV,
				   .invalidate_rkey = key };
	wc = post_one(self, self->qp[1], &wr);
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(IBV_WC_LOCAL_INV, wc.opcode);
	EXPECT_EQ(0, ibv_dereg_mr(mr));

	/* An MR without MW_BIND: the bind fails, and the QP with it. */
	ASSERT_NE(NULL, plain = ibv_reg_mr(self->pd, self->dst, 4096, IBV_ACCESS_LOCAL_WRITE));
	info.mr = plain;
	info.addr = (uintptr_t)self->dst;
	wr = (struct ibv_send_wr){ .wr_id = 10, .opcode = IBV_WR_BIND_MW,
				   .bind_mw = { .mw = mw, .rkey = ibv_inc_rkey(key),
						.bind_info = info } };
	EXPECT_EQ(IBV_WC_MW_BIND_ERR, post_one(self, self->qp[1], &wr).status);
	EXPECT_EQ(0, ibv_dereg_mr(plain));
	EXPECT_EQ(0, ibv_dealloc_mw(mw));
}

/* A window bound to an MR dies with its process; the MR is not left behind. */
TEST(killed_with_a_bound_window_leaves_nothing)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ibv_context *ctx = open_xrnic();
		struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
		struct ibv_qp *a = cq ? make_qp(pd, cq, 1) : NULL;
		struct ibv_qp *b = a ? make_qp(pd, cq, 1) : NULL;
		uint8_t *buf = malloc(1 << 16);
		struct ibv_mr *mr = b && buf ? ibv_reg_mr(pd, buf, 1 << 16,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND) : NULL;
		struct ibv_mw *t1 = mr ? ibv_alloc_mw(pd, IBV_MW_TYPE_1) : NULL;
		struct ibv_mw *t2 = t1 ? ibv_alloc_mw(pd, IBV_MW_TYPE_2) : NULL;
		struct ibv_mw_bind bind = {
			.bind_info = { .mr = mr, .addr = (uintptr_t)buf, .length = 4096,
				       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
		};
		struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW }, *bad;
		struct ibv_wc wc;
		int n = 0;

		if (!t2 || connect_qp(a, b->qp_num, 0) || connect_qp(b, a->qp_num, 0) ||
		    ibv_bind_mw(a, t1, &bind))
			_exit(1);
		wr.bind_mw = (typeof(wr.bind_mw)){ .mw = t2, .rkey = ibv_inc_rkey(t2->rkey),
						   .bind_info = bind.bind_info };
		if (ibv_post_send(b, &wr, &bad))
			_exit(1);
		while (n < 2 && poll_one(cq, &wc) == 0 && wc.status == IBV_WC_SUCCESS)
			n++;
		_exit(n == 2 ? 0 : 2);	/* everything left for the kernel */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("child: 0x%x", status);
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
}

/* The next async event of ctx within 10 s, acknowledged: its type, or -1. */
static int next_async_event(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&p, 1, 10000) != 1 || ibv_get_async_event(ctx, ev))
		return -1;
	ibv_ack_async_event(ev);
	return ev->event_type;
}

/*
 * An SRQ feeding a QP: WQEs taken in order, the limit's one event when
 * fewer are left, LAST_WQE_REACHED when the QP enters ERR, the SRQ busy
 * while a QP uses it, and no receive queue of the QP's own.
 */
TEST_F(loop, srq_feeds_a_qp_and_reports_its_limit_and_the_last_wqe)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_sge sge = { (uintptr_t)self->src, 64, self->src_mr->lkey };
	struct ibv_sge rsge = { (uintptr_t)self->dst, 4096, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_init_attr init = {
		.send_cq = self->cq, .recv_cq = self->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ibv_srq_attr attr = { .srq_limit = 3 };
	struct ibv_async_event ev;
	struct ibv_qp *qp, *rqp;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	int i, n;

	ASSERT_NE(NULL, srq = ibv_create_srq(self->pd, &sa));
	EXPECT_LE(8, sa.attr.max_wr);
	init.srq = srq;
	ASSERT_NE(NULL, rqp = ibv_create_qp(self->pd, &init));
	EXPECT_EQ(0, init.cap.max_recv_wr);
	qp = self->qp[0];
	ASSERT_EQ(0, ibv_modify_qp(qp, &err, IBV_QP_STATE));
	err.qp_state = IBV_QPS_RESET;
	ASSERT_EQ(0, ibv_modify_qp(qp, &err, IBV_QP_STATE));
	ASSERT_EQ(0, connect_qp(qp, rqp->qp_num, 7));
	ASSERT_EQ(0, connect_qp(rqp, qp->qp_num, 7));
	EXPECT_EQ(EINVAL, ibv_post_recv(rqp, &rwr, &bad_r));	/* no RQ of its own */
	for (i = 0; i < 4; i++) {
		rwr.wr_id = 100 + i;
		ASSERT_EQ(0, ibv_post_srq_recv(srq, &rwr, &bad_r));
	}
	ASSERT_EQ(0, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	memset(&attr, 0, sizeof(attr));
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(3, attr.srq_limit);
	for (i = 0; i < 2; i++) {
		wr.wr_id = i;
		ASSERT_EQ(0, ibv_post_send(qp, &wr, &bad));
		for (n = 0; n < 2; n++) {
			ASSERT_EQ(0, poll_one(self->cq, &wc));
			EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
			if (wc.opcode == IBV_WC_RECV) {
				EXPECT_EQ(100 + i, wc.wr_id);
				EXPECT_EQ(rqp->qp_num, wc.qp_num);
			}
		}
	}
	/* 2 left, fewer than 3: one event, and the limit is disarmed. */
	ASSERT_EQ(IBV_EVENT_SRQ_LIMIT_REACHED, next_async_event(self->ctx, &ev));
	EXPECT_EQ(srq, ev.element.srq);
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(0, attr.srq_limit);
	err.qp_state = IBV_QPS_ERR;
	ASSERT_EQ(0, ibv_modify_qp(rqp, &err, IBV_QP_STATE));
	ASSERT_EQ(IBV_EVENT_QP_LAST_WQE_REACHED, next_async_event(self->ctx, &ev));
	EXPECT_EQ(rqp, ev.element.qp);
	EXPECT_EQ(EBUSY, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_destroy_qp(rqp));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

/*
 * ibv_modify_srq() with IBV_SRQ_MAX_WR while WQEs are posted: the device
 * says it can, a size below the WQEs posted is refused and changes
 * nothing, a bigger one keeps every WQE in order and takes as many more as
 * it grants, and shrinking again works while they fit.
 */
TEST_F(loop, an_srq_resized_with_wqes_posted_keeps_them_in_order)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_sge sge = { (uintptr_t)self->src, 64, self->src_mr->lkey };
	struct ibv_sge rsge = { (uintptr_t)self->dst, 4096, self->dst_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp_init_attr init = {
		.send_cq = self->cq, .recv_cq = self->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ibv_device_attr dev;
	struct ibv_srq_attr attr;
	struct ibv_qp *qp, *rqp;
	struct ibv_srq *srq;
	uint64_t next = 100;
	struct ibv_wc wc;
	int i, n;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &dev));
	EXPECT_TRUE(dev.device_cap_flags & IBV_DEVICE_SRQ_RESIZE);
	ASSERT_NE(NULL, srq = ibv_create_srq(self->pd, &sa));
	init.srq = srq;
	ASSERT_NE(NULL, rqp = ibv_create_qp(self->pd, &init));
	qp = self->qp[0];
	ASSERT_EQ(0, ibv_modify_qp(qp, &reset, IBV_QP_STATE));
	ASSERT_EQ(0, connect_qp(qp, rqp->qp_num, 7));
	ASSERT_EQ(0, connect_qp(rqp, qp->qp_num, 7));
	for (i = 0; i < 3; i++) {
		rwr.wr_id = 100 + i;
		ASSERT_EQ(0, ibv_post_srq_recv(srq, &rwr, &bad_r));
	}
	attr = (struct ibv_srq_attr){ .max_wr = 2 };
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
	attr.max_wr = 64;
	ASSERT_EQ(0, ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(64, attr.max_wr);
	for (i = 3; i < 64; i++) {
		rwr.wr_id = 100 + i;
		ASSERT_EQ(0, ibv_post_srq_recv(srq, &rwr, &bad_r)) TH_LOG("WQE %d", i);
	}
	EXPECT_EQ(ENOMEM, ibv_post_srq_recv(srq, &rwr, &bad_r));
	/* Shrinking to 8 with 64 posted: refused; after 60 are taken: granted. */
	for (i = 0; i < 64; i++) {
		if (i == 4) {
			attr.max_wr = 8;
			EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
		}
		if (i == 60)
			ASSERT_EQ(0, ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
		wr.wr_id = i;
		ASSERT_EQ(0, ibv_post_send(qp, &wr, &bad));
		for (n = 0; n < 2; n++) {
			ASSERT_EQ(0, poll_one(self->cq, &wc));
			ASSERT_EQ(IBV_WC_SUCCESS, wc.status) TH_LOG("SEND %d", i);
			if (wc.opcode == IBV_WC_RECV)
				EXPECT_EQ(next++, wc.wr_id);
		}
	}
	EXPECT_EQ(164, next);
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(8, attr.max_wr);
	/* The shrunk ring takes 8 and no more. */
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, ibv_post_srq_recv(srq, &rwr, &bad_r));
	EXPECT_EQ(ENOMEM, ibv_post_srq_recv(srq, &rwr, &bad_r));
	EXPECT_EQ(0, ibv_destroy_qp(rqp));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

TEST_HARNESS_MAIN
