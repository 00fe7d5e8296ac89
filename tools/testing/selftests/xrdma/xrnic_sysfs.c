// SPDX-License-Identifier: GPL-2.0
/*
 * The XRNIC comes up through a real PCI probe and shows the identity its
 * device model was started with under /sys/class/infiniband.
 *
 * Expects the xrnic module loaded and the VM runner's environment:
 * XRDMA_GUID, XRDMA_FW (the identity given to the device model).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"

static void read_attr(struct __test_metadata *_metadata, const char *attr,
		      char *buf, size_t size)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", XRDMA_SYS_DEV, attr);
	ASSERT_LE(0, xt_read_file(path, buf, size)) TH_LOG("read %s", path);
}

#define EXPECT_ATTR(attr, want) do {					\
		char _v[256];						\
		read_attr(_metadata, attr, _v, sizeof(_v));		\
		EXPECT_STREQ(want, _v) TH_LOG("%s", attr);		\
	} while (0)

TEST(device_is_an_xrnic_pci_function)
{
	char buf[PATH_MAX];
	ssize_t n;

	read_attr(_metadata, "device/vendor", buf, sizeof(buf));
	EXPECT_STREQ("0x1af4", buf);
	read_attr(_metadata, "device/device", buf, sizeof(buf));
	EXPECT_STREQ("0x1110", buf);
	n = readlink(XRDMA_SYS_DEV "/device/driver", buf, sizeof(buf) - 1);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	EXPECT_STREQ("xrnic", strrchr(buf, '/') + 1);
}

TEST(identity_matches_device_model)
{
	const char *guid = getenv("XRDMA_GUID");
	const char *fw = getenv("XRDMA_FW");

	ASSERT_NE(NULL, guid) TH_LOG("XRDMA_GUID not set by the VM runner");
	ASSERT_NE(NULL, fw) TH_LOG("XRDMA_FW not set by the VM runner");
	EXPECT_ATTR("node_guid", guid);
	EXPECT_ATTR("sys_image_guid", guid);
	EXPECT_ATTR("fw_ver", fw);
	EXPECT_ATTR("node_type", "1: CA");
}

TEST(port_attributes_come_from_query_port)
{
	EXPECT_ATTR("ports/1/state", "4: ACTIVE");
	EXPECT_ATTR("ports/1/phys_state", "5: LinkUp");
	EXPECT_ATTR("ports/1/link_layer", "Ethernet");
	EXPECT_ATTR("ports/1/rate", "10 Gb/sec (1X QDR)");
	EXPECT_ATTR("ports/1/cap_mask", "0x00010000");
	EXPECT_ATTR("ports/1/lid", "0x0");
	/* The P_Key table ibv_query_pkey() reads: the default partition only. */
	EXPECT_ATTR("ports/1/pkeys/0", "0xffff");
	EXPECT_FALSE(xt_exists(XRDMA_SYS_DEV "/ports/1/pkeys/1"));
	EXPECT_FALSE(xt_exists(XRDMA_SYS_DEV "/ports/2"));
}

TEST(node_desc_is_writable)
{
	char old[128], buf[128];

	read_attr(_metadata, "node_desc", old, sizeof(old));
	ASSERT_EQ(0, xt_write_file(XRDMA_SYS_DEV "/node_desc", "xrdma test node\n"));
	read_attr(_metadata, "node_desc", buf, sizeof(buf));
	EXPECT_STREQ("xrdma test node", buf);
	ASSERT_EQ(0, xt_write_file(XRDMA_SYS_DEV "/node_desc", old));
}

TEST(admin_queue_runs_in_interrupt_mode)
{
	long long before, after;
	int i;

	before = xt_irq_count("xrnic-admin");
	ASSERT_LE(0, before) TH_LOG("no xrnic-admin line in /proc/interrupts");
	/* Root's counter reads are QUERY_STATS commands each (port reads are kept). */
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, xt_run("rdma statistic show link xrnic0/1 >/dev/null"));
	after = xt_irq_count("xrnic-admin");
	/*
	 * A polled admin queue raises no interrupt at all.  (Not one per
	 * command: the driver may see a completion before its interrupt
	 * arrives, and interrupts that QEMU has not delivered yet coalesce.)
	 */
	EXPECT_LT(before, after);
}

TEST(port_up_reported_by_async_event)
{
	EXPECT_TRUE(xt_dmesg_contains("port 1 active"));
}

/* A second ivshmem function without the XRNIC signature is not claimed. */
TEST(foreign_ivshmem_device_left_alone)
{
	int ivshmem = 0, claimed = 0, unclaimed = 0;
	char path[PATH_MAX], buf[64], link[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	dir = opendir("/sys/bus/pci/devices");
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 d->d_name);
		if (xt_read_file(path, buf, sizeof(buf)) < 0 ||
		    strcmp(buf, "0x1af4"))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 d->d_name);
		if (xt_read_file(path, buf, sizeof(buf)) < 0 ||
		    strcmp(buf, "0x1110"))
			continue;
		ivshmem++;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver",
			 d->d_name);
		if (readlink(path, link, sizeof(link)) > 0)
			claimed++;
		else
			unclaimed++;
	}
	closedir(dir);
	if (ivshmem < 2)
		SKIP(return, "no second ivshmem device (run with --extra-ivshmem)");
	EXPECT_EQ(1, claimed);
	EXPECT_EQ(ivshmem - 1, unclaimed);
	EXPECT_TRUE(xt_dmesg_contains("no XRNIC signature"));
}

TEST_HARNESS_MAIN
