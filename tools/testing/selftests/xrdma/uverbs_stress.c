// SPDX-License-Identifier: GPL-2.0
/*
 * Races that the debug guest kernel (KASAN, lockdep, kmemleak) makes
 * convincing: processes closing and dying while another reads "rdma res",
 * and the driver unbound while the device hangs with contexts open.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"
#include "xrdma_verbs.h"

#define TIMEOUT_PARAM	"/sys/module/xrnic/parameters/admin_timeout_ms"
#define WORKERS		4
#define ROUNDS		6
#define RES_LOOPS	25

/* Objects of every kind on a new context; returns its fd or -1. */
static int busy_context(void)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	struct ib_uverbs_reg_mr_resp mr;
	struct xrnic_create_cq_resp drv;
	static char page[4096] __attribute__((aligned(4096)));
	uint32_t pd;
	int fd = xv_open_context(NULL);

	if (fd < 0 || xv_alloc_pd(fd, &pd) ||
	    xv_reg_mr(fd, pd, page, sizeof(page), (uintptr_t)page,
		      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr) ||
	    xv_create_cq(fd, 64, -1, 0, &cq, &drv) ||
	    xv_create_qp(fd, pd, cq.cq_handle, cq.cq_handle, 8, &qp, NULL) ||
	    xv_qp_to_rts(fd, qp.qp_handle, qp.qpn))
		return -1;
	/* Keep the CQ ring mapped too. */
	if (mmap(NULL, drv.ring_size, PROT_READ, MAP_SHARED, fd,
		 drv.ring_mmap_key) == MAP_FAILED)
		return -1;
	return fd;
}

TEST(close_and_kill_while_rdma_res_runs)
{
	pid_t reader, workers[WORKERS];
	int round, i, status, ready[2];
	char c;

	reader = fork();
	ASSERT_LE(0, reader);
	if (!reader) {
		for (i = 0; i < RES_LOOPS; i++)
			if (xt_run("rdma res show qp >/dev/null && rdma res show mr >/dev/null && rdma res show cq >/dev/null && rdma res >/dev/null"))
				_exit(1);
		_exit(0);
	}
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, pipe(ready));
		for (i = 0; i < WORKERS; i++) {
			workers[i] = fork();
			ASSERT_LE(0, workers[i]);
			if (!workers[i]) {
				int fd = busy_context();

				if (fd < 0 || write(ready[1], "x", 1) != 1)
					_exit(1);
				if (i % 2) {	/* close, then exit */
					close(fd);
					_exit(0);
				}
				pause();	/* killed with objects open */
				_exit(0);
			}
		}
		for (i = 0; i < WORKERS; i++)
			ASSERT_EQ(1, read(ready[0], &c, 1));
		for (i = 0; i < WORKERS; i += 2)
			kill(workers[i], SIGKILL);
		for (i = 0; i < WORKERS; i++) {
			ASSERT_EQ(workers[i], waitpid(workers[i], &status, 0));
			EXPECT_TRUE(i % 2 ? WIFEXITED(status) &&
				    !WEXITSTATUS(status) : WIFSIGNALED(status));
		}
		close(ready[0]);
		close(ready[1]);
	}
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
}

/*
 * The device hangs (its model is stopped) while contexts are open and the
 * driver is unbound: the destroy commands of the removal time out, the
 * device is declared dead in the middle of it, the memory it was given is
 * held rather than freed, and the removal completes.  Then the device
 * resumes and binds again as new.
 */
TEST(unbind_while_the_device_hangs)
{
	char old[16], *ring;
	struct ib_uverbs_create_cq_resp cq;
	struct xrnic_create_cq_resp drv;
	int fd, child_fd, i, status;
	pid_t pid;

	ASSERT_LT(0, xt_read_file(TIMEOUT_PARAM, old, sizeof(old)));
	ASSERT_EQ(0, xt_write_file(TIMEOUT_PARAM, "300"));
	ASSERT_EQ(0, xt_dmesg_clear());
	child_fd = busy_context();
	ASSERT_LE(0, child_fd);
	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_create_cq(fd, 8, -1, 0, &cq, &drv));
	ring = mmap(NULL, drv.ring_size, PROT_READ, MAP_SHARED, fd,
		    drv.ring_mmap_key);
	ASSERT_NE(MAP_FAILED, ring);

	printf("XRDMA-HOST: stop-device\n");
	fflush(stdout);
	sleep(3);	/* ordering only: the runner acts within milliseconds */
	EXPECT_EQ(0, xt_run("rmmod xrnic_xrdma xrnic"));
	EXPECT_FALSE(xt_exists(XRDMA_SYS_DEV));
	EXPECT_TRUE(xt_dmesg_contains("device marked dead"));
	EXPECT_TRUE(xt_dmesg_contains("did not complete a reset"));
	EXPECT_EQ(-EIO, xv_destroy_cq(fd, cq.cq_handle, NULL));

	printf("XRDMA-HOST: cont-device\n");
	fflush(stdout);
	/* Bounded: the device resumes when the runner's signal lands. */
	for (i = 0; i < 10 && !xt_exists(XRDMA_SYS_DEV); i++) {
		if (i)
			sleep(1);
		xt_run("rmmod xrnic_xrdma xrnic; modprobe xrnic");
	}
	ASSERT_TRUE(xt_exists(XRDMA_SYS_DEV));
	ASSERT_EQ(0, xt_write_file(TIMEOUT_PARAM, old));
	close(child_fd);
	munmap(ring, drv.ring_size);
	close(fd);
	/* A new context on the rebound device works; nothing is left over. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(busy_context() < 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
}

TEST_HARNESS_MAIN
