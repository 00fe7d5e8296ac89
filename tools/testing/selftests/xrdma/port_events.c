// SPDX-License-Identifier: GPL-2.0
/*
 * The port's link goes down and comes back (the VM runner signals the
 * device model): the device reports it through its event queue, the driver
 * passes it on, and every open context reads IB_EVENT_PORT_ERR and then
 * IB_EVENT_PORT_ACTIVE on its async event file, while sysfs, QUERY_PORT and
 * the rdma tool show the port's state.
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

#define IB_EVENT_PORT_ACTIVE	9
#define IB_EVENT_PORT_ERR	10

/* Ask the VM runner for @req, then read one async event (bounded wait). */
static int request_and_read_event(int afd, const char *req,
				  struct ib_uverbs_async_event_desc *ev)
{
	struct pollfd pfd = { .fd = afd, .events = POLLIN };

	printf("XRDMA-HOST: %s\n", req);
	fflush(stdout);
	if (poll(&pfd, 1, 20000) != 1)
		return -ETIMEDOUT;
	return read(afd, ev, sizeof(*ev)) == sizeof(*ev) ? 0 : -errno;
}

static int rdma_link_says(const char *want)
{
	char line[256] = "";
	FILE *f = popen("rdma link 2>&1", "r");

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	pclose(f);
	return strstr(line, want) != NULL;
}

TEST(link_down_and_up_reach_every_context)
{
	struct ib_uverbs_async_event_desc ev;
	struct ib_uverbs_query_port_resp port;
	char buf[64];
	int fd, afd, fd2, afd2;

	fd = xv_open_context(&afd);
	ASSERT_LE(0, fd);
	fd2 = xv_open_context(&afd2);
	ASSERT_LE(0, fd2);
	ASSERT_LE(0, xt_read_file(XRDMA_SYS_DEV "/ports/1/state", buf,
				  sizeof(buf)));
	ASSERT_STREQ("4: ACTIVE", buf);

	ASSERT_EQ(0, request_and_read_event(afd, "link-down", &ev));
	EXPECT_EQ(IB_EVENT_PORT_ERR, ev.event_type);
	EXPECT_EQ(1, ev.element);
	ASSERT_EQ(sizeof(ev), read(afd2, &ev, sizeof(ev)));
	EXPECT_EQ(IB_EVENT_PORT_ERR, ev.event_type);
	ASSERT_LE(0, xt_read_file(XRDMA_SYS_DEV "/ports/1/state", buf,
				  sizeof(buf)));
	EXPECT_STREQ("1: DOWN", buf);
	ASSERT_LE(0, xt_read_file(XRDMA_SYS_DEV "/ports/1/phys_state", buf,
				  sizeof(buf)));
	EXPECT_STREQ("2: Polling", buf);
	ASSERT_EQ(0, xv_query_port(fd, 1, &port));
	EXPECT_EQ(1, port.state);
	EXPECT_TRUE(rdma_link_says("state DOWN physical_state POLLING"));
	EXPECT_TRUE(xt_dmesg_contains("port 1 down"));

	ASSERT_EQ(0, request_and_read_event(afd, "link-up", &ev));
	EXPECT_EQ(IB_EVENT_PORT_ACTIVE, ev.event_type);
	EXPECT_EQ(1, ev.element);
	ASSERT_EQ(sizeof(ev), read(afd2, &ev, sizeof(ev)));
	EXPECT_EQ(IB_EVENT_PORT_ACTIVE, ev.event_type);
	ASSERT_LE(0, xt_read_file(XRDMA_SYS_DEV "/ports/1/state", buf,
				  sizeof(buf)));
	EXPECT_STREQ("4: ACTIVE", buf);
	EXPECT_TRUE(rdma_link_says("state ACTIVE physical_state LINK_UP"));
	close(afd2);
	close(fd2);
	close(afd);
	close(fd);
}

TEST_HARNESS_MAIN
