// SPDX-License-Identifier: GPL-2.0
/*
 * The uverbs character device and its write() command ABI: device files,
 * header checks, contexts, queries, and the errors Linux gives for bad
 * commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"
#include "xrdma_verbs.h"

TEST(uverbs_device_files)
{
	char buf[64], want[64];
	struct stat st;

	ASSERT_LE(0, xt_read_file("/sys/class/infiniband_verbs/abi_version",
				  buf, sizeof(buf)));
	EXPECT_STREQ("6", buf);
	ASSERT_LE(0, xt_read_file("/sys/class/infiniband_verbs/uverbs0/ibdev",
				  buf, sizeof(buf)));
	EXPECT_STREQ("xrnic0", buf);
	ASSERT_LE(0, xt_read_file("/sys/class/infiniband_verbs/uverbs0/abi_version",
				  buf, sizeof(buf)));
	EXPECT_EQ(XRNIC_UVERBS_ABI_VERSION, atoi(buf));
	ASSERT_EQ(0, stat(XV_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666, st.st_mode & 0777);
	ASSERT_LE(0, xt_read_file("/sys/class/infiniband_verbs/uverbs0/dev",
				  buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	EXPECT_STREQ(want, buf);
}

TEST(ioctl_abi_answers_enotty)
{
	int fd = open(XV_DEV, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, RDMA_VERBS_IOCTL, NULL));
	EXPECT_EQ(ENOTTY, errno);
	close(fd);
}

TEST(context_first_and_only_once)
{
	struct ib_uverbs_get_context_resp resp;
	struct xrnic_alloc_ucontext_resp drv;
	struct pollfd pfd;
	uint32_t pd;
	int fd;

	fd = open(XV_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	/* Nothing but GET_CONTEXT before a context exists. */
	EXPECT_EQ(-EINVAL, xv_alloc_pd(fd, &pd));
	ASSERT_EQ(0, xv_get_context(fd, &resp, &drv));
	EXPECT_EQ(256, drv.sqe_size);
	EXPECT_LE(1, resp.num_comp_vectors);
	EXPECT_EQ(-EINVAL, xv_get_context(fd, &resp, NULL));
	/* The async event file: nothing to read yet. */
	pfd.fd = resp.async_fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, fcntl(resp.async_fd, F_SETFL, O_NONBLOCK));
	char ev[16];

	EXPECT_EQ(-1, read(resp.async_fd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(-1, read(resp.async_fd, ev, 8));
	EXPECT_EQ(EINVAL, errno);
	close(resp.async_fd);
	close(fd);
}

TEST(header_checks_as_linux)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ib_uverbs_alloc_pd req = { .response = (uintptr_t)&resp };
	struct ib_uverbs_cmd_hdr hdr;
	char buf[64];
	int fd;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	/* Shorter than a header. */
	EXPECT_EQ(-1, write(fd, buf, 4));
	EXPECT_EQ(EINVAL, errno);
	/* in_words that disagree with the write() size. */
	hdr.command = IB_USER_VERBS_CMD_ALLOC_PD;
	hdr.in_words = 10;
	hdr.out_words = sizeof(resp) / 4;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), &req, sizeof(req));
	EXPECT_EQ(-1, write(fd, buf, sizeof(hdr) + sizeof(req)));
	EXPECT_EQ(EINVAL, errno);
	/* A request shorter than the command's structure. */
	EXPECT_EQ(-ENOSPC, xv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &req, 4,
				  NULL, 0, sizeof(resp)));
	/* No room for the answer. */
	EXPECT_EQ(-ENOSPC, xv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &req,
				  sizeof(req), NULL, 0, 0));
	/* Unknown commands, extended or not; stray command bits. */
	EXPECT_EQ(-EOPNOTSUPP, xv_cmd(fd, IB_USER_VERBS_CMD_POST_SEND, &req,
				      sizeof(req), NULL, 0, 0));
	EXPECT_EQ(-EOPNOTSUPP, xv_cmd(fd, 0xff, &req, sizeof(req), NULL, 0,
				      0));
	EXPECT_EQ(-EINVAL, xv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD | 0x100, &req,
				  sizeof(req), NULL, 0, sizeof(resp)));
	/* An answer pointer that is not mapped: EFAULT, nothing created. */
	req.response = 8;
	EXPECT_EQ(-EFAULT, xv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &req,
				  sizeof(req), NULL, 0, sizeof(resp)));
	close(fd);
}

TEST(extended_query_device)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_ex_cmd_hdr ex;
		struct ib_uverbs_ex_query_device req;
	} c = {};
	struct ib_uverbs_ex_query_device_resp resp;
	struct ib_uverbs_query_device_resp base;
	int fd;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_query_device(fd, &base));
	c.hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
			IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
	c.hdr.in_words = sizeof(c.req) / 8;
	c.hdr.out_words = sizeof(resp) / 8;
	c.ex.response = (uintptr_t)&resp;
	memset(&resp, 0xff, sizeof(resp));
	ASSERT_EQ(sizeof(c), write(fd, &c, sizeof(c)));
	EXPECT_EQ(0, memcmp(&base, &resp.base, sizeof(base)));
	EXPECT_EQ(sizeof(resp), resp.response_length);
	/* A nonzero comp_mask or reserved header word is refused. */
	c.req.comp_mask = 1;
	EXPECT_EQ(-1, write(fd, &c, sizeof(c)));
	EXPECT_EQ(EINVAL, errno);
	c.req.comp_mask = 0;
	c.ex.cmd_hdr_reserved = 1;
	EXPECT_EQ(-1, write(fd, &c, sizeof(c)));
	EXPECT_EQ(EINVAL, errno);
	c.ex.cmd_hdr_reserved = 0;
	/* Oversized: request bytes beyond the known structure must be 0. */
	struct {
		typeof(c) c;
		uint64_t extra;
	} big = { .c = c, .extra = 0 };

	big.c.hdr.in_words++;
	EXPECT_EQ(sizeof(big), write(fd, &big, sizeof(big)));
	big.extra = 1;
	EXPECT_EQ(-1, write(fd, &big, sizeof(big)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(fd);
}

TEST(query_device_and_port_match_the_device)
{
	struct ib_uverbs_query_device_resp dev;
	struct ib_uverbs_query_port_resp port;
	char guid[32], want[32];
	uint64_t g;
	int fd;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_query_device(fd, &dev));
	g = be64toh(dev.node_guid);
	snprintf(guid, sizeof(guid), "%04x:%04x:%04x:%04x",
		 (unsigned int)(g >> 48) & 0xffff,
		 (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	ASSERT_LE(0, xt_read_file(XRDMA_SYS_DEV "/node_guid", want,
				  sizeof(want)));
	EXPECT_STREQ(want, guid);
	EXPECT_EQ(1, dev.phys_port_cnt);
	EXPECT_EQ(0x1af4, dev.vendor_id);
	EXPECT_LT(0, dev.max_qp);
	EXPECT_LT(0, dev.max_mr_size);
	/* The device's limit, which rxe shares; atomics are the HCA's. */
	EXPECT_EQ(128, dev.max_qp_rd_atom);
	EXPECT_EQ(128, dev.max_qp_init_rd_atom);
	EXPECT_EQ(128ULL * dev.max_qp, dev.max_res_rd_atom);
	EXPECT_EQ(1, dev.atomic_cap);		/* IBV_ATOMIC_HCA */
	ASSERT_EQ(0, xv_query_port(fd, 1, &port));
	EXPECT_EQ(4, port.state);		/* ACTIVE */
	EXPECT_EQ(5, port.phys_state);		/* LinkUp */
	EXPECT_EQ(2, port.link_layer);		/* Ethernet */
	EXPECT_EQ(-EINVAL, xv_query_port(fd, 0, &port));
	EXPECT_EQ(-EINVAL, xv_query_port(fd, 2, &port));
	close(fd);
}

TEST_HARNESS_MAIN
