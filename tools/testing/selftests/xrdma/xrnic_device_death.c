// SPDX-License-Identifier: GPL-2.0
/*
 * The device model dies while the guest runs and a process has a context
 * open: the driver notices on the next admin command and says so in the
 * log; the process gets a fatal event, its objects are released (but the
 * pages of its MRs stay pinned, as the device might still write them), its
 * commands fail with EIO and its mappings no longer reach the device; and
 * the modules still unload once it closes.  Or it dies while the driver is
 * being removed.  This test kills the device; run it last.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"
#include "xrdma_verbs.h"

#define STATE XRDMA_SYS_DEV "/ports/1/state"
#define IB_EVENT_DEVICE_FATAL 8

/*
 * Guests of a run take turns (XRDMA_VM_INDEX): odd ones kill the device
 * while it is in use, even ones while its driver is being removed.
 */
static bool my_turn(int parity)
{
	const char *i = getenv("XRDMA_VM_INDEX");

	return (i ? atoi(i) : 1) % 2 == parity;
}

TEST(driver_and_users_survive_device_death)
{
	struct ib_uverbs_async_event_desc ev;
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_reg_mr_resp mr;
	struct xrnic_create_cq_resp drv;
	long pinned0 = xv_vm_pinned_kb();
	struct pollfd pfd;
	char buf[64], *ring;
	static char page[4096] __attribute__((aligned(4096)));
	uint32_t pd;
	int fd, afd, i;

	if (!my_turn(1))
		SKIP(return, "even guests kill the device during removal");
	ASSERT_LE(0, xt_read_file(STATE, buf, sizeof(buf)));
	ASSERT_EQ(0, xt_dmesg_clear());
	fd = xv_open_context(&afd);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_alloc_pd(fd, &pd));
	ASSERT_EQ(0, xv_reg_mr(fd, pd, page, sizeof(page), (uintptr_t)page,
			       IB_UVERBS_ACCESS_LOCAL_WRITE, &mr));
	ASSERT_EQ(0, xv_create_cq(fd, 8, -1, 0, &cq, &drv));
	ring = mmap(NULL, drv.ring_size, PROT_READ, MAP_SHARED, fd,
		    drv.ring_mmap_key);
	ASSERT_NE(MAP_FAILED, ring);
	ASSERT_EQ(0, xt_touch(ring));
	EXPECT_EQ(pinned0 + 4, xv_vm_pinned_kb());

	/* The VM runner kills this guest's device model when it sees this. */
	printf("XRDMA-HOST: kill-device\n");
	fflush(stdout);

	/*
	 * Until the kill lands the device still answers; bounded wait.  Root's
	 * counter reads reach the device each time (the port's state is kept
	 * until a port event, and would not notice).
	 */
	for (i = 0; i < 600; i++) {
		if (xt_run("rdma statistic show link xrnic0/1 >/dev/null 2>&1"))
			break;
		usleep(100 * 1000);
	}
	ASSERT_GT(600, i) TH_LOG("the device still answers 60 s after the kill");
	EXPECT_TRUE(xt_dmesg_contains("timed out after"));
	EXPECT_TRUE(xt_dmesg_contains("device marked dead"));

	/* Dead: no more waiting for the device, an immediate -EIO. */
	EXPECT_EQ(-EIO, xt_read_file(STATE, buf, sizeof(buf)));
	EXPECT_EQ(-EIO, xt_read_file(STATE, buf, sizeof(buf)));

	/* The context hears about it ... */
	pfd.fd = afd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 20000));
	ASSERT_EQ(sizeof(ev), read(afd, &ev, sizeof(ev)));
	EXPECT_EQ(IB_EVENT_DEVICE_FATAL, ev.event_type);
	/* ... then reads fail instead of blocking forever. */
	EXPECT_EQ(-1, read(afd, &ev, sizeof(ev)));
	EXPECT_EQ(EIO, errno);
	/* Its commands fail at once ... */
	EXPECT_EQ(-EIO, xv_alloc_pd(fd, &pd));
	EXPECT_EQ(-EIO, xv_dealloc_pd(fd, pd));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, drv.ring_size, PROT_READ, MAP_SHARED,
				   fd, drv.ring_mmap_key));
	/* ... and soon its ring is unmapped ... */
	for (i = 0; i < 200 && xt_touch(ring) != SIGBUS; i++)
		usleep(100 * 1000);
	EXPECT_EQ(SIGBUS, xt_touch(ring));
	/*
	 * ... but its MR's page stays pinned: a device that never completed
	 * a reset may still write it, so it must not go to anyone else.
	 */
	EXPECT_EQ(pinned0 + 4, xv_vm_pinned_kb());
	/* No new contexts on a dead device. */
	EXPECT_EQ(-EIO, xv_open_context(NULL));

	/* The driver goes while the file is open; the core once it is closed. */
	EXPECT_EQ(0, xt_run("rmmod xrnic_xrdma xrnic"));
	EXPECT_FALSE(xt_exists(XRDMA_SYS_DEV));
	/* It leaks the page for good, and says so. */
	EXPECT_TRUE(xt_dmesg_contains("leaking"));
	EXPECT_EQ(pinned0 + 4, xv_vm_pinned_kb());
	EXPECT_NE(0, xt_run("modprobe -r xrdma_core 2>/dev/null"));
	munmap(ring, drv.ring_size);
	close(afd);
	close(fd);
	EXPECT_EQ(0, xt_run("modprobe -r xrdma_core"));
	EXPECT_FALSE(xt_exists("/sys/module/xrdma_core"));
}

/* The device dies while its driver is removed with contexts open. */
TEST(device_killed_during_driver_removal)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct xrnic_create_cq_resp drv;
	int fd, i, status;
	char *ring;
	uint32_t pd;
	pid_t pid;

	if (!my_turn(0))
		SKIP(return, "odd guests kill the device while it is in use");
	ASSERT_EQ(0, xt_write_file("/sys/module/xrnic/parameters/admin_timeout_ms",
				   "300"));
	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_alloc_pd(fd, &pd));
	/* Many objects, so that the removal takes a while. */
	for (i = 0; i < 40; i++) {
		ASSERT_EQ(0, xv_create_cq(fd, 8, -1, 0, &cq, &drv));
		ASSERT_EQ(0, xv_create_qp(fd, pd, cq.cq_handle, cq.cq_handle,
					  4, &qp, NULL));
	}
	ring = mmap(NULL, drv.ring_size, PROT_READ, MAP_SHARED, fd,
		    drv.ring_mmap_key);
	ASSERT_NE(MAP_FAILED, ring);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(xt_run("rmmod xrnic_xrdma xrnic") ? 1 : 0);
	printf("XRDMA-HOST: kill-device\n");
	fflush(stdout);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_FALSE(xt_exists(XRDMA_SYS_DEV));
	EXPECT_EQ(-EIO, xv_alloc_pd(fd, &pd));
	EXPECT_EQ(SIGBUS, xt_touch(ring));
	munmap(ring, drv.ring_size);
	close(fd);
	EXPECT_EQ(0, xt_run("modprobe -r xrdma_core"));
	EXPECT_FALSE(xt_exists("/sys/module/xrdma_core"));
}

TEST_HARNESS_MAIN
