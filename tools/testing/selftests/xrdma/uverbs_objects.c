// SPDX-License-Identifier: GPL-2.0
/*
 * User objects through the uverbs ABI: protection domains, memory
 * registration (pinning, keys, limits), completion queues and channels,
 * RC, UC and UD queue pairs and their state machines, SRQs, address handles, teardown on close and on
 * kill -9, and isolation between processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"
#include "xrdma_verbs.h"

#define MiB (1024UL * 1024)

FIXTURE(ctx) {
	int fd;
	uint32_t pd;
};

FIXTURE_SETUP(ctx)
{
	self->fd = xv_open_context(NULL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, xv_alloc_pd(self->fd, &self->pd));
}

FIXTURE_TEARDOWN(ctx)
{
	close(self->fd);
}

TEST_F(ctx, pd_lifecycle)
{
	uint32_t pd2;

	ASSERT_EQ(0, xv_alloc_pd(self->fd, &pd2));
	EXPECT_NE(self->pd, pd2);
	EXPECT_EQ(0, xv_dealloc_pd(self->fd, pd2));
	EXPECT_EQ(-EINVAL, xv_dealloc_pd(self->fd, pd2));	/* double */
	EXPECT_EQ(-EINVAL, xv_dealloc_pd(self->fd, 12345));	/* unknown */
}

TEST_F(ctx, mr_keys_and_pinning)
{
	struct ib_uverbs_reg_mr_resp mr1, mr2;
	long pinned0 = xv_vm_pinned_kb();
	char *buf;

	buf = mmap(NULL, MiB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_LE(0, pinned0);
	/* Inline page list (one page) and chained (256 pages). */
	ASSERT_EQ(0, xv_reg_mr(self->fd, self->pd, buf + 100, 200,
			       (uintptr_t)buf + 100, IB_UVERBS_ACCESS_LOCAL_WRITE,
			       &mr1));
	ASSERT_EQ(0, xv_reg_mr(self->fd, self->pd, buf, MiB, (uintptr_t)buf,
			       IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE |
			       IB_UVERBS_ACCESS_REMOTE_READ, &mr2));
	EXPECT_EQ(pinned0 + 4 + 1024, xv_vm_pinned_kb());
	EXPECT_EQ(mr1.lkey, mr1.rkey);
	EXPECT_NE(mr1.lkey >> 8, mr2.lkey >> 8);
	EXPECT_NE(0, mr1.lkey >> 8);
	/* A PD with an MR cannot go. */
	EXPECT_EQ(-EBUSY, xv_dealloc_pd(self->fd, self->pd));
	ASSERT_EQ(0, xv_dereg_mr(self->fd, mr1.mr_handle));
	EXPECT_EQ(-EINVAL, xv_dereg_mr(self->fd, mr1.mr_handle));
	/* Reusing the index gives a new key byte. */
	ASSERT_EQ(0, xv_reg_mr(self->fd, self->pd, buf, 4096, (uintptr_t)buf,
			       0, &mr1));
	ASSERT_EQ(0, xv_dereg_mr(self->fd, mr1.mr_handle));
	ASSERT_EQ(0, xv_dereg_mr(self->fd, mr2.mr_handle));
	EXPECT_EQ(pinned0, xv_vm_pinned_kb());
	EXPECT_EQ(0, xv_dealloc_pd(self->fd, self->pd));
	munmap(buf, MiB);
}

TEST_F(ctx, mr_key_byte_changes_on_index_reuse)
{
	struct ib_uverbs_reg_mr_resp a, b;
	static char page[4096] __attribute__((aligned(4096)));

	ASSERT_EQ(0, xv_reg_mr(self->fd, self->pd, page, 4096,
			       (uintptr_t)page, 0, &a));
	ASSERT_EQ(0, xv_dereg_mr(self->fd, a.mr_handle));
	ASSERT_EQ(0, xv_reg_mr(self->fd, self->pd, page, 4096,
			       (uintptr_t)page, 0, &b));
	EXPECT_EQ(a.lkey >> 8, b.lkey >> 8);
	EXPECT_NE(a.lkey & 0xff, b.lkey & 0xff);
	ASSERT_EQ(0, xv_dereg_mr(self->fd, b.mr_handle));
}

TEST_F(ctx, mr_bad_arguments)
{
	struct ib_uverbs_reg_mr_resp mr;
	static char page[8192] __attribute__((aligned(4096)));
	uintptr_t p = (uintptr_t)page;

	/* Remote write or atomic needs local write. */
	EXPECT_EQ(-EINVAL, xv_reg_mr(self->fd, self->pd, page, 4096, p,
				     IB_UVERBS_ACCESS_REMOTE_WRITE, &mr));
	EXPECT_EQ(-EINVAL, xv_reg_mr(self->fd, self->pd, page, 4096, p,
				     IB_UVERBS_ACCESS_REMOTE_ATOMIC, &mr));
	/* Unknown access bits (on-demand paging and the like). */
	EXPECT_EQ(-EOPNOTSUPP, xv_reg_mr(self->fd, self->pd, page, 4096, p,
					 1 << 12, &mr));
	/* Zero length, wrapping range, iova with another page offset. */
	EXPECT_EQ(-EINVAL, xv_reg_mr(self->fd, self->pd, page, 0, p, 0, &mr));
	EXPECT_EQ(-EINVAL, xv_reg_mr(self->fd, self->pd, page, -4096UL, p, 0,
				     &mr));
	EXPECT_EQ(-EINVAL, xv_reg_mr(self->fd, self->pd, page, 4096, p + 8, 0,
				     &mr));
	/* Unknown PD, unmapped memory. */
	EXPECT_EQ(-EINVAL, xv_reg_mr(self->fd, 999, page, 4096, p, 0, &mr));
	EXPECT_EQ(-EFAULT, xv_reg_mr(self->fd, self->pd, (void *)4096, 4096,
				     4096, 0, &mr));
	/* Larger than the device allows. */
	EXPECT_EQ(-EINVAL, xv_reg_mr(self->fd, self->pd, page, 1UL << 40, p,
				     0, &mr));
	EXPECT_EQ(0, xv_dealloc_pd(self->fd, self->pd));
}

TEST_F(ctx, mr_over_memlock_limit)
{
	char *buf = mmap(NULL, MiB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, buf);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		struct ib_uverbs_reg_mr_resp mr;
		uint32_t pd;
		int fd;

		/* Without CAP_IPC_LOCK the limit holds. */
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setuid(65534))
			_exit(10);
		fd = xv_open_context(NULL);
		if (fd < 0 || xv_alloc_pd(fd, &pd))
			_exit(11);
		if (xv_reg_mr(fd, pd, buf, MiB, (uintptr_t)buf, 0, &mr) !=
		    -ENOMEM)
			_exit(12);
		if (xv_vm_pinned_kb() != 0)
			_exit(13);
		/* Within the limit it works. */
		if (xv_reg_mr(fd, pd, buf, 32 * 1024, (uintptr_t)buf, 0, &mr))
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	munmap(buf, MiB);
}

/* 1 GiB of address space backed by one 2 MiB buffer mapped 512 times. */
TEST_F(ctx, mr_of_one_gib)
{
	const size_t chunk = 2 * MiB, total = 1024 * MiB;
	struct ib_uverbs_reg_mr_resp mr;
	long pinned0 = xv_vm_pinned_kb();
	int mfd = memfd_create("xrdma-gib", 0);
	char *base;
	size_t off;

	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, chunk));
	base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, base);
	for (off = 0; off < total; off += chunk)
		ASSERT_NE(MAP_FAILED, mmap(base + off, chunk, PROT_READ |
					   PROT_WRITE, MAP_SHARED | MAP_FIXED,
					   mfd, 0));
	ASSERT_EQ(0, xv_reg_mr(self->fd, self->pd, base, total,
			       (uintptr_t)base, IB_UVERBS_ACCESS_LOCAL_WRITE, &mr));
	EXPECT_EQ(pinned0 + (long)(total / 1024), xv_vm_pinned_kb());
	ASSERT_EQ(0, xv_dereg_mr(self->fd, mr.mr_handle));
	EXPECT_EQ(pinned0, xv_vm_pinned_kb());
	munmap(base, total);
	close(mfd);
}

TEST_F(ctx, cq_and_channel)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_destroy_cq_resp done;
	struct xrnic_create_cq_resp drv;
	char ev[8];
	void *ring;
	int ch;

	ch = xv_create_comp_channel(self->fd);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, xv_create_cq(self->fd, 100, ch, 0, &cq, &drv));
	EXPECT_LE(100, cq.cqe);
	/* The entries, then a page with the doorbell record. */
	EXPECT_EQ(cq.cqe * 32, drv.db_offset);
	EXPECT_EQ(drv.db_offset + 4096, drv.ring_size);
	/* The ring is mapped into the process. */
	ring = mmap(NULL, drv.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    self->fd, drv.ring_mmap_key);
	ASSERT_NE(MAP_FAILED, ring);
	EXPECT_EQ(0, ((char *)ring)[0]);
	/* No completion yet: a non-blocking read says so. */
	ASSERT_EQ(0, fcntl(ch, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(ch, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	/* Bad sizes, vector and channel. */
	EXPECT_EQ(-EINVAL, xv_create_cq(self->fd, 0, -1, 0, &cq, NULL));
	EXPECT_EQ(-EINVAL, xv_create_cq(self->fd, 1 << 30, -1, 0, &cq, NULL));
	EXPECT_EQ(-EINVAL, xv_create_cq(self->fd, 8, -1, 1000, &cq, NULL));
	EXPECT_EQ(-EBADF, xv_create_cq(self->fd, 8, self->fd, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_cq(self->fd, 8, -1, 0, &cq, NULL));
	EXPECT_EQ(0, xv_destroy_cq(self->fd, cq.cq_handle, &done));
	EXPECT_EQ(0, done.comp_events_reported);
	EXPECT_EQ(-EINVAL, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
	/* The ring stays readable after destroy while it is mapped. */
	EXPECT_EQ(0, ((char *)ring)[1]);
	munmap(ring, drv.ring_size);
	close(ch);
}

/*
 * Fields whose bits are not in attr_mask are ignored, whatever they hold:
 * libibverbs copies only the masked ones into a buffer it does not clear
 * (ibv_rc_pingpong's RTR step met garbage in timeout here).
 */
TEST_F(ctx, modify_qp_ignores_fields_not_in_the_mask)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct ib_uverbs_modify_qp m;

	ASSERT_EQ(0, xv_create_cq(self->fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp(self->fd, self->pd, cq.cq_handle,
				  cq.cq_handle, 4, &qp, NULL));
	memset(&m, 0xff, sizeof(m));
	m.qp_handle = qp.qp_handle;
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS;
	m.qp_state = IBV_QPS_INIT;
	m.pkey_index = 0;
	m.port_num = 1;
	m.qp_access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE;
	EXPECT_EQ(0, xv_modify_qp(self->fd, &m));
	memset(&m, 0xff, sizeof(m));
	m.qp_handle = qp.qp_handle;
	m.attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	m.qp_state = IBV_QPS_RTR;
	memset(&m.dest, 0, sizeof(m.dest));
	ASSERT_EQ(0, xt_own_gid(m.dest.dgid));
	m.dest.is_global = 1;
	m.dest.port_num = 1;
	m.dest.hop_limit = 1;
	m.path_mtu = 3;
	m.dest_qp_num = qp.qpn;
	m.rq_psn = 0x1234;
	m.min_rnr_timer = 12;
	/* More READs and atomics than the device keeps: refused (128 is its max). */
	m.max_dest_rd_atomic = 129;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	m.max_dest_rd_atomic = 1;
	EXPECT_EQ(0, xv_modify_qp(self->fd, &m));
	/* The same garbage is refused once its bit is in the mask. */
	m.attr_mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	m.qp_state = IBV_QPS_RTS;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.timeout = 14;
	m.max_rd_atomic = 129;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));	/* above 128 */
	m.timeout = 0xff;
	m.max_rd_atomic = 128;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));	/* timeout 255 */
	m.timeout = 14;
	EXPECT_EQ(0, xv_modify_qp(self->fd, &m));
	EXPECT_EQ(0, xv_destroy_qp(self->fd, qp.qp_handle));
	EXPECT_EQ(0, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
}

TEST_F(ctx, qp_state_machine)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct ib_uverbs_query_qp_resp q;
	struct xrnic_create_qp_resp drv;
	struct ib_uverbs_modify_qp m;
	void *sq;

	ASSERT_EQ(0, xv_create_cq(self->fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp(self->fd, self->pd, cq.cq_handle,
				  cq.cq_handle, 10, &qp, &drv));
	EXPECT_LE(2, qp.qpn);
	EXPECT_LE(10, qp.max_send_wr);
	sq = mmap(NULL, drv.sq_size, PROT_READ, MAP_SHARED, self->fd,
		  drv.sq_mmap_key);
	ASSERT_NE(MAP_FAILED, sq);
	munmap(sq, drv.sq_size);
	/* In use: neither the CQ nor the PD can go. */
	EXPECT_EQ(-EBUSY, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
	EXPECT_EQ(-EBUSY, xv_dealloc_pd(self->fd, self->pd));

	/* RESET -> RTR skips INIT: refused. */
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp.qp_handle;
	m.attr_mask = IBV_QP_STATE;
	m.qp_state = IBV_QPS_RTR;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	/* RESET -> INIT without its required attributes: refused. */
	m.qp_state = IBV_QPS_INIT;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	/* ... with an attribute that transition does not take: refused. */
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS | IBV_QP_SQ_PSN;
	m.port_num = 1;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	/* ... with a bad port: refused. */
	m.attr_mask &= ~IBV_QP_SQ_PSN;
	m.port_num = 2;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));

	ASSERT_EQ(0, xv_qp_to_rts(self->fd, qp.qp_handle, qp.qpn));
	ASSERT_EQ(0, xv_query_qp(self->fd, qp.qp_handle, &q));
	EXPECT_EQ(IBV_QPS_RTS, q.qp_state);
	EXPECT_EQ(qp.qpn, q.dest_qp_num);
	EXPECT_EQ(0x1234, q.rq_psn);
	EXPECT_EQ(0x5678, q.sq_psn);
	EXPECT_EQ(5, q.path_mtu);
	EXPECT_EQ(14, q.timeout);

	/* RTS -> INIT is not a transition. */
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp.qp_handle;
	m.attr_mask = IBV_QP_STATE;
	m.qp_state = IBV_QPS_INIT;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	/* Any state -> ERR -> RESET. */
	m.qp_state = IBV_QPS_ERR;
	EXPECT_EQ(0, xv_modify_qp(self->fd, &m));
	m.qp_state = IBV_QPS_RESET;
	EXPECT_EQ(0, xv_modify_qp(self->fd, &m));
	ASSERT_EQ(0, xv_query_qp(self->fd, qp.qp_handle, &q));
	EXPECT_EQ(IBV_QPS_RESET, q.qp_state);

	EXPECT_EQ(0, xv_destroy_qp(self->fd, qp.qp_handle));
	EXPECT_EQ(-EINVAL, xv_destroy_qp(self->fd, qp.qp_handle));
	EXPECT_EQ(0, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
}

TEST_F(ctx, qp_bad_arguments)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;

	ASSERT_EQ(0, xv_create_cq(self->fd, 16, -1, 0, &cq, NULL));
	/* A PD handle used as a CQ handle, unknown handles, huge queues. */
	EXPECT_EQ(-EINVAL, xv_create_qp(self->fd, self->pd, self->pd,
					cq.cq_handle, 4, &qp, NULL));
	EXPECT_EQ(-EINVAL, xv_create_qp(self->fd, 777, cq.cq_handle,
					cq.cq_handle, 4, &qp, NULL));
	EXPECT_EQ(-EINVAL, xv_create_qp(self->fd, self->pd, cq.cq_handle,
					cq.cq_handle, 1 << 20, &qp, NULL));
	EXPECT_EQ(0, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
}

/* UD's rows of the state table: INIT needs the Q_Key, RTS the send PSN. */
TEST_F(ctx, ud_qp_state_machine)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct ib_uverbs_query_qp_resp q;
	struct ib_uverbs_modify_qp m;

	ASSERT_EQ(0, xv_create_cq(self->fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp_of(self->fd, IBV_QPT_UD, self->pd, cq.cq_handle,
				     cq.cq_handle, 8, 8, &qp, NULL));
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp.qp_handle;
	m.qp_state = IBV_QPS_INIT;
	m.port_num = 1;
	/* RC's attributes for INIT: no Q_Key, and access flags UD has not. */
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
	m.qkey = 0x11111111;
	ASSERT_EQ(0, xv_modify_qp(self->fd, &m));
	/* RTR takes no path: an AV is refused. */
	m.qp_state = IBV_QPS_RTR;
	m.attr_mask = IBV_QP_STATE | IBV_QP_AV;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	m.attr_mask = IBV_QP_STATE;
	ASSERT_EQ(0, xv_modify_qp(self->fd, &m));
	m.qp_state = IBV_QPS_RTS;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));	/* no SQ PSN */
	m.attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_QKEY;
	m.sq_psn = 0x777;
	m.qkey = 0x22222222;
	ASSERT_EQ(0, xv_modify_qp(self->fd, &m));
	ASSERT_EQ(0, xv_query_qp(self->fd, qp.qp_handle, &q));
	EXPECT_EQ(IBV_QPS_RTS, q.qp_state);
	EXPECT_EQ(0x22222222, q.qkey);
	EXPECT_EQ(0x777, q.sq_psn);
	EXPECT_EQ(0, q.dest.is_global);
	EXPECT_EQ(0, xv_destroy_qp(self->fd, qp.qp_handle));
	EXPECT_EQ(0, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
}

/*
 * SRQs: sizes checked and rounded, the ring mappable, the limit below the
 * size, a resize checked (its answer's address, the size, the armed limit)
 * and its new ring mappable, busy while a QP uses it, released with the
 * file.
 */
TEST_F(ctx, shared_receive_queues)
{
	struct ib_uverbs_create_srq_resp srq, srq2;
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct ib_uverbs_query_srq_resp q;
	struct xrnic_resize_srq_resp rs;
	struct xrnic_create_srq_resp drv;
	struct ib_uverbs_create_qp req = {};
	void *ring;

	EXPECT_EQ(-EINVAL, xv_create_srq(self->fd, self->pd, 0, 1, &srq, NULL));
	EXPECT_EQ(-EINVAL, xv_create_srq(self->fd, self->pd, 1 << 20, 1, &srq, NULL));
	EXPECT_EQ(-EINVAL, xv_create_srq(self->fd, self->pd, 8, 7, &srq, NULL));
	EXPECT_EQ(-EINVAL, xv_create_srq(self->fd, 777, 8, 1, &srq, NULL));
	ASSERT_EQ(0, xv_create_srq(self->fd, self->pd, 10, 2, &srq, &drv));
	EXPECT_EQ(16, srq.max_wr);
	EXPECT_EQ(2, srq.max_sge);
	EXPECT_LE(1, srq.srqn);
	ring = mmap(NULL, drv.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		    drv.ring_mmap_key);
	ASSERT_NE(MAP_FAILED, ring);
	munmap(ring, drv.ring_size);
	EXPECT_EQ(-EBUSY, xv_dealloc_pd(self->fd, self->pd));
	EXPECT_EQ(-EINVAL, xv_modify_srq(self->fd, srq.srq_handle, IBV_SRQ_LIMIT, 0, 16));
	EXPECT_EQ(0, xv_modify_srq(self->fd, srq.srq_handle, IBV_SRQ_LIMIT, 0, 15));
	EXPECT_EQ(-EINVAL, xv_modify_srq(self->fd, self->pd, IBV_SRQ_LIMIT, 0, 1));
	EXPECT_EQ(-EINVAL, xv_modify_srq(self->fd, srq.srq_handle, 4, 0, 0));
	/* Resizing: no driver data, an answer nowhere, sizes out of range. */
	EXPECT_EQ(-EINVAL, xv_modify_srq(self->fd, srq.srq_handle, IBV_SRQ_MAX_WR, 32, 0));
	EXPECT_EQ(-EFAULT, xv_resize_srq(self->fd, srq.srq_handle, IBV_SRQ_MAX_WR, 32, 0, 8));
	EXPECT_EQ(-EINVAL, xv_resize_srq(self->fd, srq.srq_handle, IBV_SRQ_MAX_WR, 0, 0,
					 (uintptr_t)&rs));
	EXPECT_EQ(-EINVAL, xv_resize_srq(self->fd, srq.srq_handle, IBV_SRQ_MAX_WR, 1 << 20, 0,
					 (uintptr_t)&rs));
	/* Not above the armed limit (15), nor a new limit not below the new size. */
	EXPECT_EQ(-EINVAL, xv_resize_srq(self->fd, srq.srq_handle, IBV_SRQ_MAX_WR, 8, 0,
					 (uintptr_t)&rs));
	EXPECT_EQ(-EINVAL, xv_resize_srq(self->fd, srq.srq_handle,
					 IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT, 32, 32, (uintptr_t)&rs));
	ASSERT_EQ(0, xv_query_srq(self->fd, srq.srq_handle, &q));
	EXPECT_EQ(16, q.max_wr);
	EXPECT_EQ(15, q.srq_limit);
	/* 20 granted as 32, with a limit armed in the same command. */
	ASSERT_EQ(0, xv_resize_srq(self->fd, srq.srq_handle, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT, 20,
				   19, (uintptr_t)&rs));
	EXPECT_EQ(32, rs.max_wr);
	EXPECT_NE(drv.ring_mmap_key, rs.ring_mmap_key);
	ring = mmap(NULL, rs.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		    rs.ring_mmap_key);
	ASSERT_NE(MAP_FAILED, ring);
	munmap(ring, rs.ring_size);
	/* The old ring's key is withdrawn. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, drv.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				   self->fd, drv.ring_mmap_key));
	ASSERT_EQ(0, xv_query_srq(self->fd, srq.srq_handle, &q));
	EXPECT_EQ(32, q.max_wr);
	EXPECT_EQ(19, q.srq_limit);

	/* A QP on it; on another file's handle, or a PD's: refused. */
	ASSERT_EQ(0, xv_create_cq(self->fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp(self->fd, self->pd, cq.cq_handle, cq.cq_handle, 4, &qp, NULL));
	EXPECT_EQ(0, xv_destroy_qp(self->fd, qp.qp_handle));
	req = (struct ib_uverbs_create_qp){
		.pd_handle = self->pd, .send_cq_handle = cq.cq_handle,
		.recv_cq_handle = cq.cq_handle, .srq_handle = self->pd, .is_srq = 1,
		.max_send_wr = 4, .max_send_sge = 1, .qp_type = IBV_QPT_RC,
	};
	EXPECT_EQ(-EINVAL, xv_create_qp_req(self->fd, &req, &qp, NULL));
	req.srq_handle = srq.srq_handle;
	ASSERT_EQ(0, xv_create_qp_req(self->fd, &req, &qp, NULL));
	EXPECT_EQ(0, qp.max_recv_wr);
	EXPECT_EQ(-EBUSY, xv_destroy_srq(self->fd, srq.srq_handle));
	EXPECT_EQ(0, xv_destroy_qp(self->fd, qp.qp_handle));
	EXPECT_EQ(0, xv_destroy_srq(self->fd, srq.srq_handle));
	EXPECT_EQ(-EINVAL, xv_destroy_srq(self->fd, srq.srq_handle));
	EXPECT_EQ(0, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
	/* One left to close goes with the file. */
	ASSERT_EQ(0, xv_create_srq(self->fd, self->pd, 4, 1, &srq2, NULL));
	close(self->fd);
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
	self->fd = xv_open_context(NULL);
	ASSERT_LE(0, self->fd);
}

/* UC's rows: RC's path, no retries, READ and atomic resources or timeout. */
TEST_F(ctx, uc_qp_state_machine)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct ib_uverbs_query_qp_resp q;
	struct ib_uverbs_modify_qp m;

	ASSERT_EQ(0, xv_create_cq(self->fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp_of(self->fd, IBV_QPT_UC, self->pd, cq.cq_handle,
				     cq.cq_handle, 8, 8, &qp, NULL));
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp.qp_handle;
	m.qp_state = IBV_QPS_INIT;
	m.port_num = 1;
	m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	ASSERT_EQ(0, xv_modify_qp(self->fd, &m));
	m.qp_state = IBV_QPS_RTR;
	m.attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC;	/* RC's */
	m.dest.is_global = 1;
	m.dest.port_num = 1;
	ASSERT_EQ(0, xt_own_gid(m.dest.dgid));
	m.path_mtu = 3;
	m.dest_qp_num = qp.qpn;
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	m.attr_mask &= ~IBV_QP_MAX_DEST_RD_ATOMIC;
	ASSERT_EQ(0, xv_modify_qp(self->fd, &m));
	m.qp_state = IBV_QPS_RTS;
	m.attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT;	/* RC's */
	EXPECT_EQ(-EINVAL, xv_modify_qp(self->fd, &m));
	m.attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	m.sq_psn = 0x42;
	ASSERT_EQ(0, xv_modify_qp(self->fd, &m));
	ASSERT_EQ(0, xv_query_qp(self->fd, qp.qp_handle, &q));
	EXPECT_EQ(IBV_QPS_RTS, q.qp_state);
	EXPECT_EQ(qp.qpn, q.dest_qp_num);
	EXPECT_EQ(3, q.path_mtu);
	EXPECT_EQ(1, q.dest.is_global);
	EXPECT_EQ(0, xv_destroy_qp(self->fd, qp.qp_handle));
	EXPECT_EQ(0, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
}

/* A queue of no entries is allowed, as in Linux (qperf creates such QPs). */
TEST_F(ctx, qp_with_an_empty_queue)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;

	ASSERT_EQ(0, xv_create_cq(self->fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp_of(self->fd, IBV_QPT_RC, self->pd, cq.cq_handle,
				     cq.cq_handle, 16, 0, &qp, NULL));
	EXPECT_EQ(0, xv_destroy_qp(self->fd, qp.qp_handle));
	ASSERT_EQ(0, xv_create_qp_of(self->fd, IBV_QPT_RC, self->pd, cq.cq_handle,
				     cq.cq_handle, 0, 16, &qp, NULL));
	EXPECT_EQ(0, xv_destroy_qp(self->fd, qp.qp_handle));
	/* A type the device has not: not supported. */
	EXPECT_EQ(-EOPNOTSUPP, xv_create_qp_of(self->fd, IBV_QPT_RAW_PACKET, self->pd, cq.cq_handle,
					       cq.cq_handle, 4, 4, &qp, NULL));
	EXPECT_EQ(0, xv_destroy_cq(self->fd, cq.cq_handle, NULL));
}

/*
 * An address handle to the port's own GID: the kernel answers the next
 * hop's MAC (the port's own); bad addresses are refused; the AH holds its
 * PD; close releases it.
 */
TEST_F(ctx, address_handles)
{
	struct ib_uverbs_create_ah_resp ah, ah2;
	struct xrnic_create_ah_resp drv;
	struct ib_uverbs_ah_attr a = { .is_global = 1, .port_num = 1 };
	char mac[32], want[32], path[128];

	ASSERT_EQ(0, xt_own_gid(a.grh.dgid));
	a.grh.hop_limit = 64;
	memset(&drv, 0xff, sizeof(drv));
	ASSERT_EQ(0, xv_create_ah(self->fd, self->pd, &a, &ah, &drv));
	ASSERT_LT(0, xt_read_file("/sys/class/infiniband/xrnic0/ports/1/gid_attrs/ndevs/0",
				  mac, sizeof(mac)));
	mac[strcspn(mac, "\n")] = 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", mac);
	ASSERT_LT(0, xt_read_file(path, mac, sizeof(mac)));
	snprintf(want, sizeof(want), "%02x:%02x:%02x:%02x:%02x:%02x", drv.dmac[0], drv.dmac[1],
		 drv.dmac[2], drv.dmac[3], drv.dmac[4], drv.dmac[5]);
	EXPECT_EQ(0, strncmp(mac, want, 17)) TH_LOG("%s, answered %s", mac, want);
	EXPECT_EQ(-EBUSY, xv_dealloc_pd(self->fd, self->pd));
	EXPECT_EQ(-EINVAL, xv_create_ah(self->fd, 777, &a, &ah2, NULL));
	a.is_global = 0;				/* RoCE needs a GRH */
	EXPECT_EQ(-EINVAL, xv_create_ah(self->fd, self->pd, &a, &ah2, NULL));
	a.is_global = 1;
	a.port_num = 2;
	EXPECT_EQ(-EINVAL, xv_create_ah(self->fd, self->pd, &a, &ah2, NULL));
	a.port_num = 1;
	a.grh.sgid_index = 15;				/* an empty GID */
	EXPECT_EQ(-EINVAL, xv_create_ah(self->fd, self->pd, &a, &ah2, NULL));
	a.grh.sgid_index = 16;				/* beyond the table */
	EXPECT_EQ(-EINVAL, xv_create_ah(self->fd, self->pd, &a, &ah2, NULL));
	/* A flow label's bits above its 20 are ignored, as Linux (UCX sets ~0). */
	a.grh.sgid_index = 0;
	a.grh.flow_label = ~0u;
	ASSERT_EQ(0, xv_create_ah(self->fd, self->pd, &a, &ah2, NULL));
	EXPECT_EQ(0, xv_destroy_ah(self->fd, ah2.ah_handle));
	a.grh.flow_label = 0;
	EXPECT_EQ(0, xv_destroy_ah(self->fd, ah.ah_handle));
	EXPECT_EQ(-EINVAL, xv_destroy_ah(self->fd, ah.ah_handle));
	EXPECT_EQ(-EINVAL, xv_destroy_ah(self->fd, self->pd));	/* a PD's handle */
	/* One left to close: it goes with the file, its PD after it. */
	a.grh.sgid_index = 0;
	ASSERT_EQ(0, xv_create_ah(self->fd, self->pd, &a, &ah, NULL));
	close(self->fd);
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
	self->fd = xv_open_context(NULL);
	ASSERT_LE(0, self->fd);
}

/*
 * Multicast, as ib_uverbs: a UD QP attaches to a multicast GID (twice is
 * no error) and the port's netdev joins the group's address, IPv4 or IPv6;
 * an RC QP, a unicast GID, another file's handle or a group not attached
 * to are refused; an attached QP cannot be destroyed; close detaches it.
 * The joins are the kernel's own (what `ip maddr` shows, from /proc/net).
 */
#define IGMP	"cat /proc/net/igmp"
#define G4_HEX	"030201EF"		/* 239.1.2.3 as igmp prints it */
#define IGMP6	"cat /proc/net/igmp6"
#define G6_HEX	"ff0e0000000000000000000000000003"
TEST_F(ctx, multicast_groups)
{
	static const uint8_t g4[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 2, 3 };
	static const uint8_t g6[16] = { 0xff, 0x0e, [15] = 3 };
	static const uint8_t u4[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 };
	struct ib_uverbs_create_qp_resp ud, rc;
	struct ib_uverbs_query_device_resp dev;
	struct ib_uverbs_create_cq_resp cq;
	int fd2;

	ASSERT_EQ(0, xv_query_device(self->fd, &dev));
	EXPECT_EQ(64, dev.max_mcast_grp);
	EXPECT_EQ(16, dev.max_mcast_qp_attach);
	EXPECT_EQ(64 * 16, dev.max_total_mcast_qp_attach);
	ASSERT_EQ(0, xv_create_cq(self->fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp_of(self->fd, IBV_QPT_UD, self->pd, cq.cq_handle, cq.cq_handle,
				     4, 4, &ud, NULL));
	ASSERT_EQ(0, xv_create_qp(self->fd, self->pd, cq.cq_handle, cq.cq_handle, 4, &rc, NULL));
	EXPECT_EQ(0, xt_output_has(IGMP, G4_HEX));
	ASSERT_EQ(0, xv_mcast(self->fd, true, ud.qp_handle, g4));
	EXPECT_EQ(0, xv_mcast(self->fd, true, ud.qp_handle, g4));
	EXPECT_EQ(1, xt_output_has(IGMP, G4_HEX));
	ASSERT_EQ(0, xv_mcast(self->fd, true, ud.qp_handle, g6));
	EXPECT_EQ(1, xt_output_has(IGMP6, G6_HEX));
	EXPECT_EQ(-EINVAL, xv_mcast(self->fd, true, rc.qp_handle, g4));
	EXPECT_EQ(-EINVAL, xv_mcast(self->fd, true, ud.qp_handle, u4));
	EXPECT_EQ(-EINVAL, xv_mcast(self->fd, true, self->pd, g4));
	EXPECT_EQ(-EINVAL, xv_mcast(self->fd, false, rc.qp_handle, g4));
	fd2 = xv_open_context(NULL);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EINVAL, xv_mcast(fd2, true, ud.qp_handle, g4));
	EXPECT_EQ(-EINVAL, xv_mcast(fd2, false, ud.qp_handle, g4));
	close(fd2);
	EXPECT_EQ(-EBUSY, xv_destroy_qp(self->fd, ud.qp_handle));
	EXPECT_EQ(0, xv_mcast(self->fd, false, ud.qp_handle, g4));
	EXPECT_EQ(-EINVAL, xv_mcast(self->fd, false, ud.qp_handle, g4));
	EXPECT_EQ(0, xt_output_has(IGMP, G4_HEX));
	EXPECT_EQ(1, xt_output_has(IGMP6, G6_HEX));
	/* Still attached to the IPv6 group: close detaches it and leaves. */
	close(self->fd);
	EXPECT_EQ(0, xt_output_has(IGMP6, G6_HEX));
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
	self->fd = xv_open_context(NULL);
	ASSERT_LE(0, self->fd);
}

/* Objects left behind are destroyed on close, and pins returned. */
static void leave_objects(struct __test_metadata *_metadata, int fd,
			  uint32_t pd, char *buf)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct ib_uverbs_reg_mr_resp mr;

	ASSERT_EQ(0, xv_reg_mr(fd, pd, buf, MiB, (uintptr_t)buf,
			       IB_UVERBS_ACCESS_LOCAL_WRITE, &mr));
	ASSERT_EQ(0, xv_create_cq(fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp(fd, pd, cq.cq_handle, cq.cq_handle, 4, &qp,
				  NULL));
}

TEST_F(ctx, close_releases_everything)
{
	char *buf = mmap(NULL, MiB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long pinned0 = xv_vm_pinned_kb();

	ASSERT_NE(MAP_FAILED, buf);
	leave_objects(_metadata, self->fd, self->pd, buf);
	EXPECT_EQ(pinned0 + 1024, xv_vm_pinned_kb());
	close(self->fd);
	EXPECT_EQ(pinned0, xv_vm_pinned_kb());
	/* The core and the device hold nothing of it any more. */
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
	self->fd = xv_open_context(NULL);
	ASSERT_LE(0, self->fd);
	munmap(buf, MiB);
}

TEST_F(ctx, kill_9_releases_everything)
{
	int pipefd[2], status;
	char line[4];
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *buf = mmap(NULL, MiB, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint32_t pd;
		int fd = xv_open_context(NULL);

		if (fd < 0 || xv_alloc_pd(fd, &pd))
			_exit(1);
		leave_objects(_metadata, fd, pd, buf);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(pipefd[0], line, 1));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	/* Nothing of the child is left: only this test's own context and PD. */
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 1 cq 0 qp 0 cm_id 0 mr 0 ctx 1 "));
	EXPECT_EQ(0, xt_device_holds_only_pds(1));
	close(pipefd[0]);
	close(pipefd[1]);
}

/* kill -9 lands at any point of big registrations: nothing is left over. */
TEST(kill_9_during_registration)
{
	const size_t total = 256 * MiB;
	int status, round;
	pid_t pid;

	for (round = 0; round < 3; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct ib_uverbs_reg_mr_resp mr;
			char *buf = mmap(NULL, total, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			uint32_t pd;
			int fd = xv_open_context(NULL);

			if (buf == MAP_FAILED || fd < 0 || xv_alloc_pd(fd, &pd))
				_exit(1);
			for (;;) {
				if (xv_reg_mr(fd, pd, buf, total,
					      (uintptr_t)buf, 0, &mr) ||
				    xv_dereg_mr(fd, mr.mr_handle))
					_exit(2);
			}
		}
		usleep(200 * 1000 + round * 150 * 1000);
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("child exited %d",
							 WEXITSTATUS(status));
		EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
		EXPECT_EQ(0, xt_device_holds_only_pds(0));
	}
}

TEST(processes_cannot_use_each_others_handles)
{
	struct ib_uverbs_ah_attr a = { .is_global = 1, .port_num = 1, .grh.hop_limit = 1 };
	struct ib_uverbs_create_srq_resp srq;
	struct ib_uverbs_create_ah_resp ah;
	uint32_t pd;
	int fd, status;
	pid_t pid;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_alloc_pd(fd, &pd));
	ASSERT_EQ(0, xv_create_srq(fd, pd, 4, 1, &srq, NULL));
	ASSERT_EQ(0, xt_own_gid(a.grh.dgid));
	ASSERT_EQ(0, xv_create_ah(fd, pd, &a, &ah, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int own = xv_open_context(NULL);

		/* The same handle numbers mean nothing in another context. */
		if (own < 0 || xv_dealloc_pd(own, pd) != -EINVAL ||
		    xv_destroy_srq(own, srq.srq_handle) != -EINVAL ||
		    xv_destroy_ah(own, ah.ah_handle) != -EINVAL ||
		    xv_modify_srq(own, srq.srq_handle, IBV_SRQ_LIMIT, 0, 1) != -EINVAL ||
		    xv_resize_srq(own, srq.srq_handle, IBV_SRQ_MAX_WR, 8, 0, 0) != -EINVAL)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, xv_destroy_ah(fd, ah.ah_handle));
	EXPECT_EQ(0, xv_destroy_srq(fd, srq.srq_handle));
	EXPECT_EQ(0, xv_dealloc_pd(fd, pd));
	close(fd);
}

TEST_HARNESS_MAIN
