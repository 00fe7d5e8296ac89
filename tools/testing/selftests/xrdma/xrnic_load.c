// SPDX-License-Identifier: GPL-2.0
/*
 * Module life cycle: xrnic and xrdma_core load and unload cleanly, again
 * and again, and xrdma_core refuses to load beside Linux's ib_core.
 */
#include <stdio.h>

#include "kselftest_harness.h"
#include "xrdma_util.h"

#define LOAD_CYCLES 20

TEST(load_unload_cycles)
{
	char buf[64];
	int i;

	for (i = 0; i < LOAD_CYCLES; i++) {
		ASSERT_EQ(0, xr_run("modprobe xrnic")) TH_LOG("cycle %d", i);
		ASSERT_LE(0, xr_read_file(XRDMA_SYS_DEV "/ports/1/state", buf,
					  sizeof(buf))) TH_LOG("cycle %d", i);
		ASSERT_STREQ("4: ACTIVE", buf);
		ASSERT_EQ(0, xr_run("modprobe -r xrnic xrdma_core"))
			TH_LOG("cycle %d", i);
		ASSERT_FALSE(xr_exists(XRDMA_SYS_DEV)) TH_LOG("cycle %d", i);
		ASSERT_FALSE(xr_exists("/sys/class/infiniband"));
		ASSERT_FALSE(xr_exists("/sys/module/xrnic"));
		ASSERT_FALSE(xr_exists("/sys/module/xrdma_core"));
	}
	ASSERT_EQ(0, xr_run("modprobe xrnic"));
	EXPECT_TRUE(xr_exists(XRDMA_SYS_DEV));
}

TEST(core_refuses_to_load_beside_ib_core)
{
	if (xr_run("modinfo ib_core >/dev/null 2>&1"))
		SKIP(return, "ib_core is not in this VM image");
	ASSERT_EQ(0, xr_run("modprobe -r xrnic xrdma_core"));
	ASSERT_EQ(0, xr_run("modprobe ib_core"));
	EXPECT_NE(0, xr_run("modprobe xrdma_core 2>/dev/null"));
	EXPECT_TRUE(xr_dmesg_contains("xrdma_core: Linux's ib_core is loaded"));
	EXPECT_FALSE(xr_exists("/sys/module/xrdma_core"));
	ASSERT_EQ(0, xr_run("modprobe -r ib_core"));
	ASSERT_EQ(0, xr_run("modprobe xrnic"));
	EXPECT_TRUE(xr_exists(XRDMA_SYS_DEV));
}

TEST_HARNESS_MAIN
