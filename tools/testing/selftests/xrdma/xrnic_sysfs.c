// SPDX-License-Identifier: GPL-2.0
/*
 * The XRNIC comes up through a real PCI probe and shows the identity its
 * device model was started with under /sys/class/infiniband; its
 * congestion control parameters are read and set in debugfs, as mlx5's.
 *
 * Expects the xrnic module loaded and the VM runner's environment:
 * XRDMA_GUID, XRDMA_FW (the identity given to the device model).
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
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

/* Each congestion control parameter's file, and mlx5's default. */
static const struct {
	const char *name;
	unsigned int dflt;
} cc_params[] = {
	{ "np_enable", 1 }, { "rp_enable", 1 },
	{ "np_min_time_between_cnps", 4 }, { "np_cnp_dscp", 48 },
	{ "rp_initial_alpha_value", 1023 }, { "rp_dce_tcp_g", 1019 },
	{ "rp_dce_tcp_rtt", 1 }, { "rp_rate_reduce_monitor_period", 4 },
	{ "rp_rate_to_set_on_first_cnp", 0 }, { "rp_min_dec_fac", 50 },
	{ "rp_min_rate", 1 }, { "rp_time_reset", 300 }, { "rp_byte_reset", 32767 },
	{ "rp_threshold", 1 }, { "rp_max_rate", 0 }, { "rp_ai_rate", 5 },
	{ "rp_hai_rate", 50 },
};

/* The path of parameter @name of the one XRNIC, in @path. */
static int cc_path(const char *name, char *path, size_t size)
{
	glob_t g;
	int ret = -1;

	if (!glob("/sys/kernel/debug/xrnic/*/cc_params", 0, NULL, &g) && g.gl_pathc == 1) {
		snprintf(path, size, "%s/%s", g.gl_pathv[0], name);
		ret = 0;
	}
	globfree(&g);
	return ret;
}

/* Parameter @name's value, or -1. */
static long cc_read(const char *name)
{
	char path[PATH_MAX], buf[32];

	if (cc_path(name, path, sizeof(path)) || xt_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 0);
}

/* Write @text to parameter @name: 0 or -errno. */
static int cc_write(const char *name, const char *text)
{
	char path[PATH_MAX];

	if (cc_path(name, path, sizeof(path)))
		return -ENOENT;
	return xt_write_file(path, text);
}

TEST(cc_params_show_mlx5s_defaults)
{
	unsigned int i;
	long v;

	for (i = 0; i < sizeof(cc_params) / sizeof(cc_params[0]); i++) {
		v = cc_read(cc_params[i].name);
		EXPECT_EQ(cc_params[i].dflt, v) TH_LOG("parameter %u", i);
	}
}

/* A value in range is the device's at once; one outside changes nothing. */
TEST(cc_params_take_values_in_their_range_only)
{
	EXPECT_EQ(0, cc_write("rp_ai_rate", "7"));
	EXPECT_EQ(7, cc_read("rp_ai_rate"));
	EXPECT_EQ(0, cc_write("rp_ai_rate", "0x10\n"));
	EXPECT_EQ(16, cc_read("rp_ai_rate"));
	EXPECT_EQ(0, cc_write("rp_threshold", "31"));
	EXPECT_EQ(31, cc_read("rp_threshold"));
	EXPECT_EQ(-EINVAL, cc_write("rp_threshold", "32"));
	EXPECT_EQ(-EINVAL, cc_write("rp_threshold", "0"));
	EXPECT_EQ(31, cc_read("rp_threshold"));
	EXPECT_EQ(-EINVAL, cc_write("np_enable", "2"));
	EXPECT_EQ(-EINVAL, cc_write("np_cnp_dscp", "64"));
	EXPECT_EQ(-EINVAL, cc_write("rp_min_dec_fac", "101"));
	EXPECT_EQ(-EINVAL, cc_write("rp_ai_rate", "fast"));
	EXPECT_EQ(-EINVAL, cc_write("rp_ai_rate", "-1"));
	EXPECT_EQ(-ERANGE, cc_write("rp_ai_rate", "4294967296"));
	EXPECT_EQ(16, cc_read("rp_ai_rate"));
	EXPECT_EQ(0, cc_write("rp_ai_rate", "5"));
	EXPECT_EQ(0, cc_write("rp_threshold", "1"));
	EXPECT_EQ(5, cc_read("rp_ai_rate"));
	EXPECT_EQ(1, cc_read("rp_threshold"));
}

TEST_HARNESS_MAIN
