// SPDX-License-Identifier: GPL-2.0
/*
 * Module life cycle: xrnic, xrnic_xrdma and xrdma_core load and unload
 * cleanly, again and again, and xrdma_core refuses to load beside Linux's
 * ib_core.  The PCI function (xrnic) runs without an RDMA core; its RDMA
 * function is an auxiliary device whose driver (xrnic_xrdma) binds and
 * unbinds under open contexts.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"
#include "xrdma_verbs.h"

#define LOAD_CYCLES 20
#define LOAD_CYCLES_DEBUG 5	/* on the debug kernel, about 4 s each */

TEST(load_unload_cycles)
{
	int i, cycles = getenv("XRDMA_DEBUG_KERNEL") ? LOAD_CYCLES_DEBUG : LOAD_CYCLES;
	char buf[64];

	for (i = 0; i < cycles; i++) {
		ASSERT_EQ(0, xt_run("modprobe xrnic")) TH_LOG("cycle %d", i);
		ASSERT_LE(0, xt_read_file(XRDMA_SYS_DEV "/ports/1/state", buf,
					  sizeof(buf))) TH_LOG("cycle %d", i);
		ASSERT_STREQ("4: ACTIVE", buf);
		ASSERT_EQ(0, xt_run("modprobe -r xrnic_xrdma xrnic xrdma_core"))
			TH_LOG("cycle %d", i);
		ASSERT_FALSE(xt_exists(XRDMA_SYS_DEV)) TH_LOG("cycle %d", i);
		ASSERT_FALSE(xt_exists("/sys/class/infiniband"));
		ASSERT_FALSE(xt_exists("/sys/module/xrnic"));
		ASSERT_FALSE(xt_exists("/sys/module/xrnic_xrdma"));
		ASSERT_FALSE(xt_exists("/sys/module/xrdma_core"));
	}
	ASSERT_EQ(0, xt_run("modprobe xrnic"));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
}

TEST(core_refuses_to_load_beside_ib_core)
{
	if (xt_run("modinfo ib_core >/dev/null 2>&1"))
		SKIP(return, "ib_core is not in this VM image");
	ASSERT_EQ(0, xt_run("modprobe -r xrnic_xrdma xrnic xrdma_core"));
	ASSERT_EQ(0, xt_run("modprobe ib_core"));
	EXPECT_NE(0, xt_run("modprobe xrdma_core 2>/dev/null"));
	EXPECT_TRUE(xt_dmesg_contains("xrdma_core: Linux's ib_core is loaded"));
	EXPECT_FALSE(xt_exists("/sys/module/xrdma_core"));
	ASSERT_EQ(0, xt_run("modprobe -r ib_core"));
	ASSERT_EQ(0, xt_run("modprobe xrnic"));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
}

/*
 * A context with a PD, an MR over a page and a CQ: its file, its event
 * file in @afd; -1 if any failed.
 */
static int open_context_with_objects(int *afd)
{
	static char page[4096] __attribute__((aligned(4096)));
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_reg_mr_resp mr;
	uint32_t pd;
	int fd;

	fd = xv_open_context(afd);
	if (fd < 0)
		return -1;
	if (xv_alloc_pd(fd, &pd) ||
	    xv_reg_mr(fd, pd, page, sizeof(page), (uintptr_t)page, 0, &mr) ||
	    xv_create_cq(fd, 8, -1, 0, &cq, NULL)) {
		close(*afd);
		close(fd);
		return -1;
	}
	return fd;
}

/* The type of the next async event on @afd, or -1 if none came in 10 s. */
static int next_event(int afd)
{
	struct ib_uverbs_async_event_desc ev;
	struct pollfd pfd = { .fd = afd, .events = POLLIN };

	if (poll(&pfd, 1, 10000) != 1 || read(afd, &ev, sizeof(ev)) != sizeof(ev))
		return -1;
	return ev.event_type;
}

/* Unloading the driver under an open context: the context is cut off. */
TEST(driver_unload_with_open_context)
{
	long pinned0 = xv_vm_pinned_kb();
	uint32_t pd;
	int fd, afd;

	ASSERT_EQ(0, xt_run("modprobe xrnic"));
	fd = open_context_with_objects(&afd);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xt_run("rmmod xrnic_xrdma xrnic"));
	EXPECT_EQ(8, next_event(afd));	/* IB_EVENT_DEVICE_FATAL */
	EXPECT_EQ(-EIO, xv_alloc_pd(fd, &pd));
	EXPECT_EQ(pinned0, xv_vm_pinned_kb());
	/* The core stays while the file is open. */
	EXPECT_NE(0, xt_run("modprobe -r xrdma_core 2>/dev/null"));
	close(afd);
	close(fd);
	EXPECT_EQ(0, xt_run("modprobe -r xrdma_core"));
	ASSERT_EQ(0, xt_run("modprobe xrnic"));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
}

#define AUX_DRIVER	"/sys/bus/auxiliary/drivers/xrnic_xrdma.xrdma"
/* The RDMA function's auxiliary device; its number is the bus's choice. */
#define AUX_DEVICE	"/sys/bus/auxiliary/devices/xrnic.rdma.*"

/* The name of the one auxiliary device, for bind and unbind. */
static int aux_device_name(char *name, size_t size)
{
	FILE *f = popen("basename " AUX_DEVICE, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(name, size, f) && name[0] == 'x';
	pclose(f);
	if (!ok)
		return -1;
	name[strcspn(name, "\n")] = 0;
	return 0;
}

/*
 * xrnic alone (insmod: no softdep loads its RDMA function's driver) loads
 * no RDMA core, registers its net_device and adds the auxiliary device,
 * which nothing binds; loading xrnic_xrdma binds it and gives xrnic0.
 */
TEST(pci_function_runs_without_an_rdma_core)
{
	char name[64];

	ASSERT_EQ(0, xt_run("modprobe -r xrnic_xrdma xrnic xrdma_core"));
	ASSERT_EQ(0, xt_run("insmod \"$(modinfo -n xrnic)\""));
	EXPECT_FALSE(xt_exists("/sys/module/xrdma_core"));
	EXPECT_FALSE(xt_exists("/sys/module/xrnic_xrdma"));
	EXPECT_FALSE(xt_exists(XRDMA_SYS_DEV));
	EXPECT_EQ(0, xt_run("ls -d /sys/bus/pci/drivers/xrnic/*/net/* >/dev/null"));
	ASSERT_EQ(0, aux_device_name(name, sizeof(name)));
	EXPECT_EQ(0, xt_run("[ ! -e " AUX_DEVICE "/driver ]"));
	EXPECT_EQ(0, xt_run("grep -qx MODALIAS=auxiliary:xrnic.rdma " AUX_DEVICE "/uevent"));
	ASSERT_EQ(0, xt_run("modprobe xrnic_xrdma"));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
	EXPECT_EQ(0, xt_run("[ -e " AUX_DEVICE "/driver ]"));
}

/* An RDMA core xrnic does not know is refused, with a message; nothing loads. */
TEST(rdma_core_parameter_refuses_an_unknown_core)
{
	ASSERT_EQ(0, xt_run("modprobe -r xrnic_xrdma xrnic xrdma_core"));
	ASSERT_EQ(0, xt_dmesg_clear());
	EXPECT_NE(0, xt_run("modprobe xrnic rdma_core=ib 2>/dev/null"));
	EXPECT_TRUE(xt_dmesg_contains("xrnic: rdma_core=ib: not xrdma or linux"));
	EXPECT_FALSE(xt_exists("/sys/module/xrnic"));
	ASSERT_EQ(0, xt_run("modprobe xrnic rdma_core=xrdma"));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
	EXPECT_EQ(0, xt_run("[ \"$(cat /sys/module/xrnic/parameters/rdma_core)\" = xrdma ]"));
}

/*
 * Unbinding the RDMA function under an open context cuts the context off
 * as a device's removal does and leaves the Ethernet function running;
 * binding it again gives a working xrnic0.
 */
TEST(rdma_function_unbinds_and_binds_under_an_open_context)
{
	long pinned0 = xv_vm_pinned_kb();
	char name[64], buf[64];
	uint32_t pd;
	int fd, afd;

	ASSERT_EQ(0, xt_run("modprobe xrnic"));
	ASSERT_EQ(0, aux_device_name(name, sizeof(name)));
	fd = open_context_with_objects(&afd);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xt_write_file(AUX_DRIVER "/unbind", name));
	EXPECT_FALSE(xt_exists(XRDMA_SYS_DEV));
	EXPECT_EQ(8, next_event(afd));	/* IB_EVENT_DEVICE_FATAL */
	EXPECT_EQ(-EIO, xv_alloc_pd(fd, &pd));
	EXPECT_EQ(pinned0, xv_vm_pinned_kb());
	/* The Ethernet function stays. */
	EXPECT_EQ(0, xt_run("ls -d /sys/bus/pci/drivers/xrnic/*/net/* >/dev/null"));
	close(afd);
	close(fd);
	ASSERT_EQ(0, xt_write_file(AUX_DRIVER "/bind", name));
	ASSERT_LE(0, xt_read_file(XRDMA_SYS_DEV "/ports/1/state", buf, sizeof(buf)));
	EXPECT_STREQ("4: ACTIVE", buf);
	fd = xv_open_context(&afd);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, xv_alloc_pd(fd, &pd));
	close(afd);
	close(fd);
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
}

TEST_HARNESS_MAIN
