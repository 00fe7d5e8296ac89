// SPDX-License-Identifier: GPL-2.0
/*
 * The device model dies while the guest runs: the driver notices on the
 * next admin command, says so in the log, fails later commands at once,
 * and still unloads.  This test kills the device; run it last.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "xrdma_util.h"

#define STATE XRDMA_SYS_DEV "/ports/1/state"

TEST(driver_survives_device_death)
{
	char buf[64];
	ssize_t n;
	int i;

	ASSERT_LE(0, xr_read_file(STATE, buf, sizeof(buf)));
	ASSERT_FALSE(xr_dmesg_contains("device marked dead"));

	/* The VM runner kills this guest's device model when it sees this. */
	printf("XRDMA-HOST: kill-device\n");
	fflush(stdout);

	/* Until the kill lands the device still answers; bounded wait. */
	for (i = 0; i < 600; i++) {
		n = xr_read_file(STATE, buf, sizeof(buf));
		if (n < 0)
			break;
		usleep(100 * 1000);
	}
	ASSERT_EQ(-ETIMEDOUT, n) TH_LOG("first failed query: %zd", n);
	EXPECT_TRUE(xr_dmesg_contains("device marked dead"));

	/* Dead: no more waiting for the device, an immediate -EIO. */
	EXPECT_EQ(-EIO, xr_read_file(STATE, buf, sizeof(buf)));
	EXPECT_EQ(-EIO, xr_read_file(STATE, buf, sizeof(buf)));

	EXPECT_EQ(0, xr_run("modprobe -r xrnic xrdma_core"));
	EXPECT_FALSE(xr_exists(XRDMA_SYS_DEV));
	EXPECT_FALSE(xr_exists("/sys/module/xrnic"));
}

TEST_HARNESS_MAIN
