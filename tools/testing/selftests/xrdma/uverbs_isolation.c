// SPDX-License-Identifier: GPL-2.0
/*
 * One user of /dev/infiniband/uverbs0 cannot disturb another: a file is
 * written only with the credentials that opened it, a close unmaps nobody
 * else's rings, completion channels belong to their file and die with it,
 * and a command stuck in a page fault delays no one else (reporting, event
 * delivery, other opens).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"
#include "xrdma_verbs.h"

#define EVENT_FILES	"/sys/kernel/debug/xrdma_core/event_files"
#define IB_EVENT_PORT_ACTIVE	9
#define IB_EVENT_PORT_ERR	10

/* Run @fn in a child process; returns its exit status (or 128 + signal). */
static int in_child(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
				   128 + WTERMSIG(status);
}

static long event_files(void)
{
	char buf[32];

	if (xt_read_file(EVENT_FILES, buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/* ------------------------------------------------- who may write a file */

static int alloc_pd_on(void *arg)
{
	uint32_t pd;

	return xv_alloc_pd(*(int *)arg, &pd) == -EACCES ? 0 : 1;
}

static int alloc_pd_after_setuid(void *arg __attribute__((unused)))
{
	uint32_t pd;
	int fd = xv_open_context(NULL);

	if (fd < 0 || xv_alloc_pd(fd, &pd))
		return 1;
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 2;
	return xv_alloc_pd(fd, &pd) == -EACCES ? 0 : 3;
}

/* As Linux's ib_safe_file_access(): only the opener's credentials write. */
TEST(write_needs_the_openers_credentials)
{
	uint32_t pd;
	int fd;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	/* A child (other credentials, same file) is refused ... */
	EXPECT_EQ(0, in_child(alloc_pd_on, &fd));
	/* ... and so is the opener once its credentials changed. */
	EXPECT_EQ(0, in_child(alloc_pd_after_setuid, NULL));
	/* The opener itself still works, and a refused write left nothing. */
	EXPECT_EQ(0, xv_alloc_pd(fd, &pd));
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 1 "));
	close(fd);
}

/* ----------------------------------------------- mappings are per file */

static int open_and_close(void *arg __attribute__((unused)))
{
	int fd = open(XV_DEV, O_RDWR);

	if (fd < 0)
		return 1;
	close(fd);
	return 0;
}

/* A page every context shares maps read-only, and cannot be made writable. */
static void check_read_only_page(struct __test_metadata *_metadata, int fd, __u64 key)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	ASSERT_NE(0, key);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, key));
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, key);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, xt_touch(p));
	EXPECT_EQ(-1, mprotect(p, page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, page);
}

/* The device's status page and the driver's clock page. */
TEST(status_and_clock_pages_map_read_only)
{
	struct ib_uverbs_get_context_resp resp;
	struct xrnic_alloc_ucontext_resp drv;
	int fd;

	fd = open(XV_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_get_context(fd, &resp, &drv));
	close(resp.async_fd);
	check_read_only_page(_metadata, fd, drv.status_mmap_key);
	check_read_only_page(_metadata, fd, drv.clock_mmap_key);
	close(fd);
}

static __u64 clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

/*
 * The clock page holds a reading of the device clock with the kernel's
 * clocks at that moment, taken again every second: its times are recent
 * (bounded by how late a loaded machine runs the driver's work), its
 * sequence count even, and a second reading 2.5 s later is a newer one
 * in which the device clock moved as the monotonic clock did.
 */
TEST(clock_page_is_read_again_every_second)
{
	struct ib_uverbs_get_context_resp resp;
	struct xrnic_alloc_ucontext_resp drv;
	struct xrnic_clock_info a, b;
	long page = sysconf(_SC_PAGESIZE);
	const struct xrnic_clock_info *p;
	__u64 mono, real;
	int fd;

	fd = open(XV_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_get_context(fd, &resp, &drv));
	close(resp.async_fd);
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, drv.clock_mmap_key);
	ASSERT_NE(MAP_FAILED, p);
	do {
		a = *(volatile const struct xrnic_clock_info *)p;
	} while ((a.seq & 1) || a.seq != *(volatile const __u32 *)&p->seq);
	mono = clock_ns(CLOCK_MONOTONIC);
	real = clock_ns(CLOCK_REALTIME);
	EXPECT_NE(0, a.seq);
	EXPECT_NE(0, a.device_ns);
	EXPECT_GE(mono, a.mono_ns);
	EXPECT_GT(30000000000ull, mono - a.mono_ns);
	EXPECT_GE(real, a.real_ns);
	EXPECT_GT(30000000000ull, real - a.real_ns);
	EXPECT_GT(a.real_ns, a.mono_ns);
	usleep(2500 * 1000);
	do {
		b = *(volatile const struct xrnic_clock_info *)p;
	} while ((b.seq & 1) || b.seq != *(volatile const __u32 *)&p->seq);
	ASSERT_LT(a.seq, b.seq);
	EXPECT_GT(b.mono_ns, a.mono_ns);
	/*
	 * Both count nanoseconds: equal steps within the readings' uncertainty
	 * and 1 % (a TCG guest's clock may run a little off the host's).
	 */
	EXPECT_GE(a.err_ns + b.err_ns + (b.mono_ns - a.mono_ns) / 100,
		  llabs((long long)(b.device_ns - a.device_ns) - (long long)(b.mono_ns - a.mono_ns)));
	munmap((void *)p, page);
	close(fd);
}

TEST(another_files_close_leaves_my_ring_mapped)
{
	struct ib_uverbs_create_cq_resp cq;
	struct xrnic_create_cq_resp drv;
	char *ring;
	int fd, other;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_create_cq(fd, 8, -1, 0, &cq, &drv));
	ring = mmap(NULL, drv.ring_size, PROT_READ, MAP_SHARED, fd,
		    drv.ring_mmap_key);
	ASSERT_NE(MAP_FAILED, ring);
	ASSERT_EQ(0, xt_touch(ring));

	/* Another open of the device in this process, and in another. */
	other = xv_open_context(NULL);
	ASSERT_LE(0, other);
	close(other);
	EXPECT_EQ(0, xt_touch(ring));
	EXPECT_EQ(0, in_child(open_and_close, NULL));
	EXPECT_EQ(0, xt_touch(ring));

	munmap(ring, drv.ring_size);
	close(fd);
}

/*
 * Removing the driver zaps every mapping of the files it cuts off, also
 * the ones moved (mremap) and split (partial munmap) after mmap().
 */
TEST(removal_zaps_moved_and_split_mappings)
{
	struct ib_uverbs_create_cq_resp cq;
	struct xrnic_create_cq_resp drv;
	char *ring, *moved, *dst;
	size_t page = getpagesize();
	int fd;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_create_cq(fd, 1024, -1, 0, &cq, &drv));
	ASSERT_LE(4 * page, drv.ring_size);
	ring = mmap(NULL, drv.ring_size, PROT_READ, MAP_SHARED, fd,
		    drv.ring_mmap_key);
	ASSERT_NE(MAP_FAILED, ring);
	/* Split: a hole in the middle. */
	ASSERT_EQ(0, munmap(ring + page, page));
	/* Moved: the last part goes elsewhere. */
	dst = mmap(NULL, drv.ring_size, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	moved = mremap(ring + 2 * page, drv.ring_size - 2 * page,
		       drv.ring_size - 2 * page, MREMAP_MAYMOVE | MREMAP_FIXED,
		       dst);
	ASSERT_EQ(dst, moved);
	ASSERT_EQ(0, xt_touch(ring));
	ASSERT_EQ(0, xt_touch(moved));

	ASSERT_EQ(0, xt_run("rmmod xrnic_xrdma xrnic"));
	EXPECT_EQ(SIGBUS, xt_touch(ring));
	EXPECT_EQ(SIGBUS, xt_touch(moved));
	EXPECT_EQ(SIGBUS, xt_touch(moved + page));
	EXPECT_EQ(-EIO, xv_destroy_cq(fd, cq.cq_handle, NULL));

	munmap(ring, page);
	munmap(moved, drv.ring_size - 2 * page);
	close(fd);
	ASSERT_EQ(0, xt_run("modprobe xrnic"));
	ASSERT_TRUE(xt_exists(XRDMA_SYS_DEV));
}

/* ------------------------------------------------ completion channels */

TEST(completion_channels_are_freed_with_their_last_user)
{
	struct ib_uverbs_create_cq_resp cq;
	long base;
	int fd, ch, i;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	base = event_files();
	ASSERT_LE(1, base);	/* at least this context's async file */

	/* Create and close many: nothing piles up. */
	for (i = 0; i < 2000; i++) {
		ch = xv_create_comp_channel(fd);
		ASSERT_LE(0, ch) TH_LOG("channel %d: %d", i, ch);
		close(ch);
	}
	EXPECT_EQ(base, event_files());

	/* A CQ keeps its channel after the channel's file is closed. */
	ch = xv_create_comp_channel(fd);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, xv_create_cq(fd, 8, ch, 0, &cq, NULL));
	close(ch);
	EXPECT_EQ(base + 1, event_files());
	EXPECT_EQ(0, xv_destroy_cq(fd, cq.cq_handle, NULL));
	EXPECT_EQ(base, event_files());

	/* A channel outliving its context is freed when it is closed. */
	ch = xv_create_comp_channel(fd);
	ASSERT_LE(0, ch);
	close(fd);
	EXPECT_EQ(base, event_files());	/* the async file went, ch came */
	close(ch);
	EXPECT_EQ(base - 1, event_files());
}

TEST(completion_channel_of_another_file_is_refused)
{
	struct ib_uverbs_create_cq_resp cq;
	int a, b, ch;

	a = xv_open_context(NULL);
	b = xv_open_context(NULL);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ch = xv_create_comp_channel(a);
	ASSERT_LE(0, ch);
	/* As Linux: EBADF for a foreign channel or a descriptor that is none. */
	EXPECT_EQ(-EBADF, xv_create_cq(b, 8, ch, 0, &cq, NULL));
	EXPECT_EQ(-EBADF, xv_create_cq(b, 8, b, 0, &cq, NULL));
	EXPECT_EQ(-EBADF, xv_create_cq(b, 8, 1000, 0, &cq, NULL));
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 "));
	/* Its own file may use it. */
	EXPECT_EQ(0, xv_create_cq(a, 8, ch, 0, &cq, NULL));
	EXPECT_EQ(0, xv_destroy_cq(a, cq.cq_handle, NULL));
	close(ch);
	close(b);
	close(a);
}

/* ------------------------------------- the kernel's management Q_Keys */

/*
 * As user 65534: a UD QP's Q_Key with bit 31 set (the GSI QP's 0x80010000,
 * which remote kernels take for their connection manager's) is refused,
 * another taken; 0 when so.
 */
static int controlled_qkey_refused(void *arg __attribute__((unused)))
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct ib_uverbs_modify_qp m = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x80010000,
		.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
	};
	uint32_t pd;
	int fd;

	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 1;
	fd = xv_open_context(NULL);
	if (fd < 0 || xv_alloc_pd(fd, &pd) || xv_create_cq(fd, 16, -1, 0, &cq, NULL) ||
	    xv_create_qp_of(fd, IBV_QPT_UD, pd, cq.cq_handle, cq.cq_handle, 4, 4, &qp, NULL))
		return 2;
	m.qp_handle = qp.qp_handle;
	if (xv_modify_qp(fd, &m) != -EPERM)
		return 3;
	m.qkey = 0x7fffffff;
	if (xv_modify_qp(fd, &m))
		return 4;
	m.attr_mask = IBV_QP_QKEY;
	m.qkey = 0x80000000;
	return xv_modify_qp(fd, &m) == -EPERM ? 0 : 5;
}

TEST(a_user_cannot_take_a_controlled_qkey)
{
	EXPECT_EQ(0, in_child(controlled_qkey_refused, NULL));
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
}

/* ----------------------------------------- a user's share of a device */

#define USER_SHARE "/sys/module/xrdma_core/parameters/user_share"

/*
 * As user @uid: allocate PDs until refused, write how many to @hold_fd and
 * hold them until killed; returns -1 on failure.
 */
static int pds_until_refused(uid_t uid, int hold_fd)
{
	uint32_t pd;
	int fd, n = 0, ret;

	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	fd = xv_open_context(NULL);
	if (fd < 0)
		return -1;
	while (!(ret = xv_alloc_pd(fd, &pd)))
		n++;
	if (ret != -EAGAIN)
		return -1;
	if (write(hold_fd, &n, sizeof(n)) != sizeof(n))
		return -1;
	pause();
	return n;
}

TEST(one_user_gets_a_share_of_the_device)
{
	struct ib_uverbs_query_device_resp dev;
	int fd, share, pipefd[2], n, i, status;
	uint32_t pd;
	pid_t pid, other;
	char buf[16];

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_query_device(fd, &dev));
	ASSERT_LT(0, xt_read_file(USER_SHARE, buf, sizeof(buf)));
	share = atoi(buf);
	ASSERT_LT(0, share);
	ASSERT_GT(100, share);

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(pds_until_refused(65534, pipefd[1]) < 0);
	ASSERT_EQ(sizeof(n), read(pipefd[0], &n, sizeof(n)));
	EXPECT_EQ(dev.max_pd * share / 100, n);
	/* Another user, and a user with CAP_SYS_RESOURCE, still get PDs. */
	other = fork();
	ASSERT_LE(0, other);
	if (!other) {
		int ofd;

		if (setresgid(65533, 65533, 65533) ||
		    setresuid(65533, 65533, 65533))
			_exit(1);
		ofd = xv_open_context(NULL);
		_exit(ofd < 0 || xv_alloc_pd(ofd, &pd));
	}
	ASSERT_EQ(other, waitpid(other, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, xv_alloc_pd(fd, &pd));

	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
}

/*
 * As user @uid: a UD QP attaches to groups ff0e::1:N until refused, writes
 * how many to @hold_fd and holds them until killed; returns -1 on failure.
 */
static int groups_until_refused(uid_t uid, int hold_fd)
{
	uint8_t gid[16] = { 0xff, 0x0e, [13] = 1 };
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	uint32_t pd;
	int fd, n = 0, ret;

	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	fd = xv_open_context(NULL);
	if (fd < 0 || xv_alloc_pd(fd, &pd) || xv_create_cq(fd, 16, -1, 0, &cq, NULL) ||
	    xv_create_qp_of(fd, IBV_QPT_UD, pd, cq.cq_handle, cq.cq_handle, 4, 4, &qp, NULL))
		return -1;
	do {
		gid[15] = n;
		ret = xv_mcast(fd, true, qp.qp_handle, gid);
	} while (!ret && ++n < 255);
	if (ret != -EAGAIN)
		return -1;
	if (write(hold_fd, &n, sizeof(n)) != sizeof(n))
		return -1;
	pause();
	return n;
}

/* The device's 64 multicast groups: one user may fill only its share. */
TEST(one_user_gets_a_share_of_the_multicast_groups)
{
	uint8_t gid[16] = { 0xff, 0x0e, [13] = 2 };
	struct ib_uverbs_query_device_resp dev;
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	int fd, share, pipefd[2], n, i, status;
	uint32_t pd;
	pid_t pid;
	char buf[16];

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_query_device(fd, &dev));
	ASSERT_LT(0, xt_read_file(USER_SHARE, buf, sizeof(buf)));
	share = atoi(buf);
	ASSERT_LT(0, share);
	ASSERT_GT(100, share);

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(groups_until_refused(65534, pipefd[1]) < 0);
	close(pipefd[1]);	/* a child that failed ends the read */
	ASSERT_EQ(sizeof(n), read(pipefd[0], &n, sizeof(n)));
	EXPECT_EQ(dev.max_mcast_grp * share / 100, n);
	/* Others still find groups (root is exempt, as from every share). */
	ASSERT_EQ(0, xv_alloc_pd(fd, &pd));
	ASSERT_EQ(0, xv_create_cq(fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp_of(fd, IBV_QPT_UD, pd, cq.cq_handle, cq.cq_handle, 4, 4,
				     &qp, NULL));
	for (i = 0; i < 16; i++) {
		gid[15] = i;
		ASSERT_EQ(0, xv_mcast(fd, true, qp.qp_handle, gid));
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(pipefd[0]);
	close(fd);
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
}

/* ------------------------------------- a stuck command stalls nobody */

struct stuck_reg {
	int fd;
	uint32_t pd;
	char *mem;		/* the MR */
	char *answer;		/* where the answer goes: userfaultfd memory */
	int ret;
};

static void *reg_mr_thread(void *arg)
{
	struct stuck_reg *r = arg;
	struct ib_uverbs_reg_mr req = {
		.response = (uintptr_t)r->answer,
		.start = (uintptr_t)r->mem, .length = 4096,
		.hca_va = (uintptr_t)r->mem, .pd_handle = r->pd,
		.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE,
	};

	r->ret = xv_cmd(r->fd, IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req),
			NULL, 0, sizeof(struct ib_uverbs_reg_mr_resp));
	return NULL;
}

/* The next async event on @afd within 20 s, or -1. */
static int next_event(int afd)
{
	struct ib_uverbs_async_event_desc ev;
	struct pollfd p = { .fd = afd, .events = POLLIN };

	if (poll(&p, 1, 20000) != 1 || read(afd, &ev, sizeof(ev)) != sizeof(ev))
		return -1;
	return ev.event_type;
}

/*
 * A command whose page fault does not complete (REG_MR answering into
 * userfaultfd memory: the fault waits until this test resolves it, as a
 * FUSE mapping whose daemon hangs would) holds its own file only:
 * meanwhile "rdma res" answers, the device opens and closes, and another
 * context gets its port events.
 */
TEST(stuck_command_stalls_nobody)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_zeropage zero = {};
	static char page[4096] __attribute__((aligned(4096)));
	struct stuck_reg r = { .mem = page };
	size_t len = 4096;
	struct pollfd p;
	pthread_t thread;
	int uffd, other, afd;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, uffd) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	r.answer = mmap(NULL, len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.answer);
	reg.range.start = (uintptr_t)r.answer;
	reg.range.len = len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	r.fd = xv_open_context(NULL);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, xv_alloc_pd(r.fd, &r.pd));
	other = xv_open_context(&afd);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, pthread_create(&thread, NULL, reg_mr_thread, &r));

	/* The command is now stuck in a page fault, its file locked. */
	p.fd = uffd;
	p.events = POLLIN;
	ASSERT_EQ(1, poll(&p, 1, 20000));

	/* Everything else goes on (the bounds only catch a hang). */
	EXPECT_EQ(0, xt_run("timeout -s KILL 20 rdma res show mr >/dev/null"));
	EXPECT_EQ(0, xt_run("timeout -s KILL 20 rdma res show pd >/dev/null"));
	EXPECT_EQ(0, xt_run("timeout -s KILL 20 rdma res >/dev/null"));
	EXPECT_EQ(0, in_child(open_and_close, NULL));
	printf("XRDMA-HOST: link-down\n");
	fflush(stdout);
	EXPECT_EQ(IB_EVENT_PORT_ERR, next_event(afd));
	printf("XRDMA-HOST: link-up\n");
	fflush(stdout);
	EXPECT_EQ(IB_EVENT_PORT_ACTIVE, next_event(afd));

	/* Resolve the fault: the command completes. */
	zero.range.start = (uintptr_t)r.answer;
	zero.range.len = len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_ZEROPAGE, &zero));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, r.ret);
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 1 cq 0 qp 0 cm_id 0 mr 1 "));
	close(other);
	close(afd);
	close(r.fd);
	close(uffd);
	munmap(r.answer, len);
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
}

TEST_HARNESS_MAIN
