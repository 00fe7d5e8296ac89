// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA netlink: iproute2's unmodified "rdma" tool and libibverbs' device
 * discovery work with xrdma_core, and malformed NETLINK_RDMA requests get
 * error answers.
 *
 * Expects the xrnic module loaded and the VM runner's environment:
 * XRDMA_GUID, XRDMA_FW (the identity given to the device model).
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"
#include "xrdma_verbs.h"

#define OUT_MAX		(256 * 1024)

/* Run @cmd with sh; its stdout (and stderr if the command says 2>&1). */
static char *run_out(const char *cmd, int *status)
{
	char *buf = calloc(1, OUT_MAX);
	size_t len = 0, n;
	FILE *f;
	int st;

	if (!buf)
		return NULL;
	f = popen(cmd, "r");
	if (!f) {
		free(buf);
		return NULL;
	}
	while (len < OUT_MAX - 1 &&
	       (n = fread(buf + len, 1, OUT_MAX - 1 - len, f)) > 0)
		len += n;
	st = pclose(f);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

/* True if @needle occurs in the output of @cmd, which must succeed. */
#define EXPECT_OUTPUT(cmd, needle) do {					\
		int _st;						\
		char *_o = run_out(cmd, &_st);				\
		ASSERT_NE(NULL, _o);					\
		EXPECT_EQ(0, _st) TH_LOG("%s failed: %s", cmd, _o);	\
		EXPECT_NE(NULL, strstr(_o, needle))			\
			TH_LOG("'%s' not in output of %s:\n%s",		\
			       needle, cmd, _o);			\
		free(_o);						\
	} while (0)

static unsigned int count_str(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

TEST(dev_show)
{
	const char *guid = getenv("XRDMA_GUID");
	const char *fw = getenv("XRDMA_FW");
	char want[256];

	ASSERT_NE(NULL, guid) TH_LOG("XRDMA_GUID not set by the VM runner");
	ASSERT_NE(NULL, fw) TH_LOG("XRDMA_FW not set by the VM runner");
	snprintf(want, sizeof(want),
		 "xrnic0: node_type ca fw %s node_guid %s sys_image_guid %s",
		 fw, guid, guid);
	/* A dump of all devices, then a request for one. */
	EXPECT_OUTPUT("rdma dev", want);
	EXPECT_OUTPUT("rdma dev show xrnic0", want);
}

TEST(dev_show_json)
{
	const char *guid = getenv("XRDMA_GUID");
	const char *fw = getenv("XRDMA_FW");
	char want[128];

	ASSERT_NE(NULL, guid);
	ASSERT_NE(NULL, fw);
	EXPECT_OUTPUT("rdma -j dev", "\"ifname\":\"xrnic0\"");
	EXPECT_OUTPUT("rdma -j dev", "\"node_type\":\"ca\"");
	snprintf(want, sizeof(want), "\"fw\":\"%s\"", fw);
	EXPECT_OUTPUT("rdma -j dev", want);
	snprintf(want, sizeof(want), "\"node_guid\":\"%s\"", guid);
	EXPECT_OUTPUT("rdma -j dev", want);
}

TEST(link_show)
{
	EXPECT_OUTPUT("rdma link", "link xrnic0/1 state ACTIVE physical_state LINK_UP");
	EXPECT_OUTPUT("rdma link show xrnic0/1",
		      "link xrnic0/1 state ACTIVE physical_state LINK_UP");
	EXPECT_OUTPUT("rdma link show xrnic0/1", " netdev eth");
	EXPECT_NE(0, xt_run("rdma link show xrnic0/2 2>/dev/null"));
}

TEST(sys_show)
{
	EXPECT_OUTPUT("rdma sys", "netns shared");
	EXPECT_OUTPUT("rdma sys", "copy-on-fork on");
}

static long long admin_commands(struct __test_metadata *_metadata)
{
	const char *key = "admin_commands ";
	long long v = -1;
	char *o, *p;
	int st;

	o = run_out("rdma statistic show", &st);
	if (!o)
		return -1;
	EXPECT_EQ(0, st);
	EXPECT_NE(NULL, strstr(o, "link xrnic0/1 ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "admin_errors ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "tx_packets ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "rx_bytes ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "rx_dropped ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "retransmits ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "doorbells ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "polled ")) TH_LOG("%s", o);
	p = strstr(o, key);
	if (p)
		v = strtoll(p + strlen(key), NULL, 10);
	free(o);
	return v;
}

TEST(statistic_show)
{
	long long first, second;

	first = admin_commands(_metadata);
	ASSERT_LE(0, first);
	/* Reading the counters is an admin command itself. */
	second = admin_commands(_metadata);
	EXPECT_LT(first, second);
	EXPECT_OUTPUT("rdma statistic show link xrnic0/1", "admin_commands ");
	/* No per-QP counters: an empty list, and mode "auto off". */
	EXPECT_EQ(0, xt_run("rdma statistic qp show"));
	EXPECT_OUTPUT("rdma statistic qp mode", "qp auto off");
}

/* Reading the port's attributes a hundred times is not a hundred admin commands. */
TEST(port_attributes_are_read_from_the_device_once_per_port_event)
{
	long long first, second;
	char buf[64];
	int i;

	first = admin_commands(_metadata);
	ASSERT_LE(0, first);
	for (i = 0; i < 100; i++)
		ASSERT_LE(0, xt_read_file(XRDMA_SYS_DEV "/ports/1/state", buf, sizeof(buf)));
	second = admin_commands(_metadata);
	/* The second read's own QUERY_STATS, and room for a GID the kernel sets meanwhile. */
	EXPECT_GT(first + 10, second) TH_LOG("%lld admin commands for 100 reads", second - first);
}

/* The name of xrnic0's net_device, from its PCI function's net/ directory. */
static int xrnic_ifname(char name[IFNAMSIZ])
{
	DIR *d = opendir(XRDMA_SYS_DEV "/device/net");
	struct dirent *e;
	int ret = -1;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strlen(e->d_name) < IFNAMSIZ) {
			strcpy(name, e->d_name);
			ret = 0;
			break;
		}
	closedir(d);
	return ret;
}

/* ioctl(SIOCETHTOOL) on @ifname with @cmd as its data. */
static int ethtool_ioctl(const char *ifname, void *cmd)
{
	struct ifreq ifr = { .ifr_data = cmd };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (fd < 0)
		return -1;
	strcpy(ifr.ifr_name, ifname);
	ret = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	return ret;
}

/* "admin_commands" of ethtool -S on @ifname, as any user reads it; -1 on error. */
static long long ethtool_admin_commands(const char *ifname)
{
	struct {
		struct ethtool_sset_info hdr;
		__u32 len;
	} info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_STATS } };
	struct ethtool_gstrings *names = NULL;
	struct ethtool_stats *stats = NULL;
	long long v = -1;
	__u32 i, n;

	if (ethtool_ioctl(ifname, &info) || !(info.hdr.sset_mask & (1ull << ETH_SS_STATS)))
		return -1;
	n = info.len;
	names = calloc(1, sizeof(*names) + n * ETH_GSTRING_LEN);
	stats = calloc(1, sizeof(*stats) + n * sizeof(__u64));
	if (!names || !stats)
		goto out;
	*names = (struct ethtool_gstrings){ .cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_STATS, .len = n };
	*stats = (struct ethtool_stats){ .cmd = ETHTOOL_GSTATS, .n_stats = n };
	if (ethtool_ioctl(ifname, names) || ethtool_ioctl(ifname, stats))
		goto out;
	for (i = 0; i < n; i++)
		if (!strncmp((char *)names->data + i * ETH_GSTRING_LEN, "admin_commands",
			     ETH_GSTRING_LEN))
			v = stats->data[i];
out:
	free(names);
	free(stats);
	return v;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * As nobody: three reads within half a second cross at most one refresh
 * of the kept counters (two of them are equal, where each read from the
 * device would count itself), and a read 1.2 s later is fresh.
 */
static int unprivileged_stats_reads(const char *ifname)
{
	long long a, b, c, d;
	double t0;
	int tries;

	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 1;
	for (tries = 0; tries < 10; tries++) {
		t0 = now_s();
		a = ethtool_admin_commands(ifname);
		b = ethtool_admin_commands(ifname);
		c = ethtool_admin_commands(ifname);
		if (a < 0 || b < 0 || c < 0)
			return 2;
		if (now_s() - t0 < 0.5)
			break;
	}
	if (tries == 10)
		return 3;
	if (a != b && b != c)
		return 4;
	usleep(1200 * 1000);
	d = ethtool_admin_commands(ifname);
	return d > c ? 0 : 5;
}

/* Readers without CAP_NET_ADMIN share one QUERY_STATS a second (root's read fresh: statistic_show). */
TEST(unprivileged_counter_reads_share_one_device_read_a_second)
{
	char ifname[IFNAMSIZ];
	int status;
	pid_t pid;

	ASSERT_EQ(0, xrnic_ifname(ifname));
	ASSERT_LE(0, ethtool_admin_commands(ifname));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(unprivileged_stats_reads(ifname));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	/* 2: a read failed; 3: never 3 reads in 0.5 s; 4: no read shared; 5: not fresh after 1.2 s. */
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST(res_summary_when_idle)
{
	char *o;
	int st;

	EXPECT_OUTPUT("rdma res",
		      "xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 srq 0");
	o = run_out("rdma res show pd", &st);
	ASSERT_NE(NULL, o);
	EXPECT_EQ(0, st);
	EXPECT_EQ(NULL, strstr(o, "pdn")) TH_LOG("%s", o);
	free(o);
}

TEST(dev_rename)
{
	ASSERT_EQ(0, xt_run("rdma dev set xrnic0 name xrtest"));
	EXPECT_TRUE(xt_exists("/sys/class/infiniband/xrtest"));
	EXPECT_FALSE(xt_exists("/sys/class/infiniband/xrnic0"));
	EXPECT_OUTPUT("rdma dev", "xrtest: node_type ca");
	EXPECT_OUTPUT("rdma link", "link xrtest/1 state ACTIVE");
	/* The same name again is not an error (as in Linux). */
	EXPECT_EQ(0, xt_run("rdma dev set xrtest name xrtest"));
	/* Names sysfs cannot hold, or that are too long, are refused. */
	EXPECT_NE(0, xt_run("rdma dev set xrtest name a/b 2>/dev/null"));
	EXPECT_NE(0, xt_run("rdma dev set xrtest name 'a b' 2>/dev/null"));
	EXPECT_NE(0, xt_run("rdma dev set xrtest name "
			    "x123456789012345678901234567890123456789012345678901234567890123"
			    " 2>/dev/null"));
	EXPECT_TRUE(xt_exists("/sys/class/infiniband/xrtest"));
	ASSERT_EQ(0, xt_run("rdma dev set xrtest name xrnic0"));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
	EXPECT_FALSE(xt_exists("/sys/class/infiniband/xrtest"));
	EXPECT_OUTPUT("rdma dev", "xrnic0: node_type ca");
}

/* libibverbs finds the device through RDMA_NLDEV_CMD_GET_CHARDEV. */
TEST(libibverbs_discovery)
{
	char *o;
	int st;

	if (xt_run("command -v ibv_devices >/dev/null"))
		SKIP(return, "ibv_devices is not in this VM image");
	o = run_out("IBV_SHOW_WARNINGS=1 ibv_devices 2>&1", &st);
	ASSERT_NE(NULL, o);
	/* Our provider (libxrnic-rdmav34.so, in every VM image) claims it. */
	EXPECT_EQ(0, st);
	EXPECT_NE(NULL, strstr(o, "    xrnic0          \t"))
		TH_LOG("ibv_devices said:\n%s", o);
	EXPECT_EQ(NULL, strstr(o, "no userspace device-specific driver"))
		TH_LOG("ibv_devices said:\n%s", o);
	free(o);
}

/* Raw NETLINK_RDMA requests, for what the rdma tool never sends. */
struct nl_req {
	struct nlmsghdr h;
	char attrs[512];
};

static void nl_init(struct nl_req *r, int op, int flags)
{
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = NLMSG_HDRLEN;
	r->h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	r->h.nlmsg_flags = NLM_F_REQUEST | flags;
	r->h.nlmsg_seq = 1;
}

static void nl_put(struct nl_req *r, int type, const void *data, int len)
{
	struct nlattr *a = (void *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void nl_put_u32(struct nl_req *r, int type, __u32 v)
{
	nl_put(r, type, &v, sizeof(v));
}

static void nl_put_str(struct nl_req *r, int type, const char *s)
{
	nl_put(r, type, s, strlen(s) + 1);
}

/*
 * Send @r and read the first answer into @buf.  Return: the negative errno
 * of an error answer, 0 for an ack, or the answer's message type.
 */
static int nl_xfer(int fd, struct nl_req *r, char *buf, size_t size)
{
	struct nlmsghdr *h = (void *)buf;
	ssize_t n;

	if (send(fd, r, r->h.nlmsg_len, 0) != (ssize_t)r->h.nlmsg_len)
		return -1000;
	n = recv(fd, buf, size, 0);
	if (n < (ssize_t)NLMSG_HDRLEN || !NLMSG_OK(h, n))
		return -1001;
	if (h->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	return h->nlmsg_type;
}

static struct nlattr *nl_attr(char *buf, int type)
{
	struct nlmsghdr *h = (void *)buf;
	int left = h->nlmsg_len - NLMSG_HDRLEN;
	struct nlattr *a = (void *)((char *)h + NLMSG_HDRLEN);

	while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= left) {
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		left -= NLA_ALIGN(a->nla_len);
		a = (void *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

static int nl_open(void)
{
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static __u32 dev_index(struct __test_metadata *_metadata, int fd)
{
	char buf[8192];
	struct nl_req r;
	struct nlattr *a;

	nl_init(&r, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	EXPECT_EQ(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
		  nl_xfer(fd, &r, buf, sizeof(buf)));
	a = nl_attr(buf, RDMA_NLDEV_ATTR_DEV_INDEX);
	if (!a)
		return ~0u;
	return *(__u32 *)((char *)a + NLA_HDRLEN);
}

TEST(netlink_get_chardev)
{
	int type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV);
	char buf[8192];
	struct nl_req r;
	struct nlattr *a;
	struct stat st;
	__u64 v;
	__u32 idx;
	int fd;

	fd = nl_open();
	ASSERT_LE(0, fd);
	idx = dev_index(_metadata, fd);
	close(fd);
	fd = nl_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, stat(XV_DEV, &st));

	nl_init(&r, RDMA_NLDEV_CMD_GET_CHARDEV, 0);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	nl_put_str(&r, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
	ASSERT_EQ(type, nl_xfer(fd, &r, buf, sizeof(buf)));
	a = nl_attr(buf, RDMA_NLDEV_ATTR_CHARDEV_NAME);
	ASSERT_NE(NULL, a);
	EXPECT_STREQ("uverbs0", (char *)a + NLA_HDRLEN);
	a = nl_attr(buf, RDMA_NLDEV_ATTR_CHARDEV);
	ASSERT_NE(NULL, a);
	memcpy(&v, (char *)a + NLA_HDRLEN, sizeof(v));
	/* huge_encode_dev() */
	EXPECT_EQ(major(st.st_rdev), (v >> 8) & 0xfff);
	EXPECT_EQ(minor(st.st_rdev), (v & 0xff) | ((v >> 12) & 0xfff00));
	a = nl_attr(buf, RDMA_NLDEV_ATTR_CHARDEV_ABI);
	ASSERT_NE(NULL, a);
	memcpy(&v, (char *)a + NLA_HDRLEN, sizeof(v));
	EXPECT_EQ(1, v);
	a = nl_attr(buf, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID);
	ASSERT_NE(NULL, a);

	/* No other character devices, and no device-less uverbs. */
	nl_init(&r, RDMA_NLDEV_CMD_GET_CHARDEV, 0);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	nl_put_str(&r, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "umad");
	EXPECT_EQ(-EOPNOTSUPP, nl_xfer(fd, &r, buf, sizeof(buf)));
	nl_init(&r, RDMA_NLDEV_CMD_GET_CHARDEV, 0);
	nl_put_str(&r, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
	EXPECT_EQ(-EOPNOTSUPP, nl_xfer(fd, &r, buf, sizeof(buf)));
	close(fd);
}

TEST(netlink_bad_requests)
{
	char buf[8192];
	struct nl_req r;
	__u8 byte = 0;
	__u32 idx;
	int fd;

	fd = nl_open();
	ASSERT_LE(0, fd);
	idx = dev_index(_metadata, fd);
	close(fd);
	fd = nl_open();
	ASSERT_LE(0, fd);

	/* A device request without a device, or with one that is not there. */
	nl_init(&r, RDMA_NLDEV_CMD_GET, NLM_F_ACK);
	EXPECT_EQ(-EINVAL, nl_xfer(fd, &r, buf, sizeof(buf)));
	nl_init(&r, RDMA_NLDEV_CMD_GET, NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 12345);
	EXPECT_EQ(-ENODEV, nl_xfer(fd, &r, buf, sizeof(buf)));
	/* The same for a dump, which must fail before it starts. */
	nl_init(&r, RDMA_NLDEV_CMD_RES_PD_GET, NLM_F_DUMP | NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 12345);
	EXPECT_EQ(-ENODEV, nl_xfer(fd, &r, buf, sizeof(buf)));
	/* An attribute of the wrong size. */
	nl_init(&r, RDMA_NLDEV_CMD_GET, NLM_F_ACK);
	nl_put(&r, RDMA_NLDEV_ATTR_DEV_INDEX, &byte, 1);
	EXPECT_GT(0, nl_xfer(fd, &r, buf, sizeof(buf)));
	/* A string without its NUL. */
	nl_init(&r, RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	nl_put(&r, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", 6);
	EXPECT_EQ(-EINVAL, nl_xfer(fd, &r, buf, sizeof(buf)));
	/* An attribute longer than the message. */
	nl_init(&r, RDMA_NLDEV_CMD_GET, NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	((struct nlattr *)r.attrs)->nla_len = 200;
	EXPECT_GT(0, nl_xfer(fd, &r, buf, sizeof(buf)));
	/* Ports that do not exist. */
	nl_init(&r, RDMA_NLDEV_CMD_PORT_GET, NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_PORT_INDEX, 0);
	EXPECT_EQ(-EINVAL, nl_xfer(fd, &r, buf, sizeof(buf)));
	nl_init(&r, RDMA_NLDEV_CMD_STAT_GET, NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_PORT_INDEX, 2);
	EXPECT_EQ(-EINVAL, nl_xfer(fd, &r, buf, sizeof(buf)));
	/* Commands that are not served, and other clients. */
	nl_init(&r, RDMA_NLDEV_CMD_NEWLINK, NLM_F_ACK);
	EXPECT_EQ(-EOPNOTSUPP, nl_xfer(fd, &r, buf, sizeof(buf)));
	nl_init(&r, 1000, NLM_F_ACK);
	EXPECT_EQ(-EOPNOTSUPP, nl_xfer(fd, &r, buf, sizeof(buf)));
	nl_init(&r, RDMA_NLDEV_CMD_SYS_GET, NLM_F_DUMP | NLM_F_ACK);
	EXPECT_EQ(-EOPNOTSUPP, nl_xfer(fd, &r, buf, sizeof(buf)));
	nl_init(&r, RDMA_NLDEV_CMD_RES_CTX_GET, NLM_F_ACK);
	EXPECT_EQ(-EOPNOTSUPP, nl_xfer(fd, &r, buf, sizeof(buf)));
	/* A single object without its number, or one that is not there. */
	nl_init(&r, RDMA_NLDEV_CMD_RES_QP_GET, NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	EXPECT_EQ(-EINVAL, nl_xfer(fd, &r, buf, sizeof(buf)));
	nl_init(&r, RDMA_NLDEV_CMD_RES_PD_GET, NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_RES_PDN, 0xfffffff);
	EXPECT_EQ(-ENOENT, nl_xfer(fd, &r, buf, sizeof(buf)));
	nl_init(&r, 0, NLM_F_ACK);
	r.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_IWCM, 0);
	EXPECT_EQ(-EINVAL, nl_xfer(fd, &r, buf, sizeof(buf)));
	/* Settings xrdma does not have. */
	nl_init(&r, RDMA_NLDEV_CMD_SET, NLM_F_ACK);
	nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	nl_put(&r, RDMA_NLDEV_ATTR_DEV_DIM, &byte, 1);
	EXPECT_EQ(-EOPNOTSUPP, nl_xfer(fd, &r, buf, sizeof(buf)));
	EXPECT_NE(0, xt_run("rdma sys set netns exclusive 2>/dev/null"));
	EXPECT_EQ(0, xt_run("rdma sys set netns shared"));
	close(fd);
}

/* Renaming needs CAP_NET_ADMIN; reading does not. */
TEST(netlink_rename_needs_cap_net_admin)
{
	char buf[8192];
	struct nl_req r;
	pid_t pid;
	__u32 idx;
	int fd, status;

	fd = nl_open();
	ASSERT_LE(0, fd);
	idx = dev_index(_metadata, fd);
	close(fd);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct data[2] = {};
		int err;

		/* Nothing effective, nothing permitted. */
		if (syscall(SYS_capset, &hdr, data))
			_exit(2);
		fd = nl_open();
		if (fd < 0)
			_exit(3);
		nl_init(&r, RDMA_NLDEV_CMD_SET, NLM_F_ACK);
		nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
		nl_put_str(&r, RDMA_NLDEV_ATTR_DEV_NAME, "xrpwned");
		err = nl_xfer(fd, &r, buf, sizeof(buf));
		if (err != -EPERM)
			_exit(4);
		nl_init(&r, RDMA_NLDEV_CMD_GET, 0);
		nl_put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
		err = nl_xfer(fd, &r, buf, sizeof(buf));
		_exit(err == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					      RDMA_NLDEV_CMD_GET) ? 0 : 5);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
}

#define MANY_PDS	300

TEST(res_objects_show_up)
{
	struct ib_uverbs_reg_mr_resp mr_resp[1];
	struct ib_uverbs_create_cq_resp cq_resp;
	struct ib_uverbs_create_qp_resp qp_resp[1], ud_resp;
	struct ib_uverbs_create_srq_resp srq_resp;
	char want[128], cmd[128], *o;
	uint32_t pd, mrn;
	void *mem;
	int fd, i, st;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_alloc_pd(fd, &pd));
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	ASSERT_EQ(0, xv_reg_mr(fd, pd, mem, 4096, (uintptr_t)mem,
			       IB_UVERBS_ACCESS_LOCAL_WRITE, &mr_resp[0]));
	ASSERT_EQ(0, xv_create_cq(fd, 16, -1, 0, &cq_resp, NULL));
	ASSERT_EQ(0, xv_create_qp(fd, pd, cq_resp.cq_handle,
				  cq_resp.cq_handle, 4, &qp_resp[0], NULL));
	ASSERT_EQ(0, xv_create_qp_of(fd, IBV_QPT_UD, pd, cq_resp.cq_handle, cq_resp.cq_handle,
				     4, 4, &ud_resp, NULL));
	ASSERT_EQ(0, xv_create_srq(fd, pd, 4, 1, &srq_resp, NULL));

	EXPECT_OUTPUT("rdma res", "xrnic0: pd 1 cq 1 qp 2 cm_id 0 mr 1 ctx 1 srq 1");
	snprintf(want, sizeof(want), "lqpn %u type UD state RESET", ud_resp.qpn);
	EXPECT_OUTPUT("rdma res show qp", want);
	snprintf(want, sizeof(want), "srqn %u type BASIC", srq_resp.srqn);
	EXPECT_OUTPUT("rdma res show srq", want);
	snprintf(cmd, sizeof(cmd), "rdma res show srq srqn %u 2>/dev/null", srq_resp.srqn);
	EXPECT_OUTPUT(cmd, "comm rdma_tool");
	snprintf(want, sizeof(want), "pid %d ", getpid());
	EXPECT_OUTPUT("rdma res show pd", want);
	EXPECT_OUTPUT("rdma res show pd", "dev xrnic0 ");
	EXPECT_OUTPUT("rdma res show pd", "comm rdma_tool");
	EXPECT_OUTPUT("rdma res show mr", want);
	EXPECT_OUTPUT("rdma res show mr", "mrlen 4096 ");
	snprintf(want, sizeof(want), "lkey 0x%x ", mr_resp[0].lkey);
	EXPECT_OUTPUT("rdma res show mr", want);
	EXPECT_OUTPUT("rdma res show cq", "dev xrnic0 ");
	snprintf(want, sizeof(want), "pid %d ", getpid());
	EXPECT_OUTPUT("rdma res show cq", want);
	snprintf(want, sizeof(want), "lqpn %u ", qp_resp[0].qpn);
	EXPECT_OUTPUT("rdma res show qp", want);
	EXPECT_OUTPUT("rdma res show qp", "type RC state RESET");
	EXPECT_OUTPUT("rdma res show qp link xrnic0", "type RC state RESET");
	/* One object, asked for by its number. */
	snprintf(cmd, sizeof(cmd), "rdma res show qp lqpn %u 2>/dev/null",
		 qp_resp[0].qpn);
	snprintf(want, sizeof(want), "lqpn %u rqpn 0 type RC state RESET",
		 qp_resp[0].qpn);
	EXPECT_OUTPUT(cmd, want);
	/* The MRN is a tracking number, not a key, and finds the MR. */
	o = run_out("rdma -j res show mr", &st);
	ASSERT_NE(NULL, o);
	ASSERT_NE(NULL, strstr(o, "\"mrn\":"));
	mrn = strtoul(strstr(o, "\"mrn\":") + 6, NULL, 10);
	free(o);
	EXPECT_NE(mr_resp[0].lkey, mrn);
	EXPECT_NE(mr_resp[0].rkey, mrn);
	snprintf(cmd, sizeof(cmd), "rdma res show mr mrn %u", mrn);
	EXPECT_OUTPUT(cmd, "mrlen 4096 ");

	/* Enough objects for a dump of several parts. */
	for (i = 1; i < MANY_PDS; i++)
		ASSERT_EQ(0, xv_alloc_pd(fd, &pd)) TH_LOG("PD %d", i);
	snprintf(want, sizeof(want), "xrnic0: pd %d cq 1", MANY_PDS);
	EXPECT_OUTPUT("rdma res", want);
	o = run_out("rdma res show pd", &st);
	ASSERT_NE(NULL, o);
	EXPECT_EQ(0, st);
	snprintf(want, sizeof(want), "pid %d ", getpid());
	EXPECT_EQ(MANY_PDS, count_str(o, want));
	free(o);
	o = run_out("rdma -j res show pd", &st);
	ASSERT_NE(NULL, o);
	EXPECT_EQ(0, st);
	EXPECT_EQ(MANY_PDS, count_str(o, "\"pdn\":"));
	free(o);

	/* Closing the file destroys everything. */
	close(fd);
	munmap(mem, 4096);
	EXPECT_OUTPUT("rdma res",
		      "xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 srq 0");
}

/* Output of @cmd run by an unprivileged user (nobody, no capabilities). */
static char *run_out_unprivileged(const char *cmd)
{
	char *o = NULL;
	int pipefd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return NULL;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (!pid) {
		dup2(pipefd[1], 1);
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(1);
	}
	close(pipefd[1]);
	o = calloc(1, OUT_MAX);
	while (o && len < OUT_MAX - 1 &&
	       (n = read(pipefd[0], o + len, OUT_MAX - 1 - len)) > 0)
		len += n;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		free(o);
		return NULL;
	}
	return o;
}

/* Keys of MRs are shown to CAP_NET_ADMIN only, as Linux does. */
TEST(mr_keys_hidden_from_unprivileged_users)
{
	struct ib_uverbs_reg_mr_resp mr;
	char want[64], *o;
	uint32_t pd;
	void *mem;
	int fd;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_alloc_pd(fd, &pd));
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	ASSERT_EQ(0, xv_reg_mr(fd, pd, mem, 4096, (uintptr_t)mem,
			       IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE,
			       &mr));
	snprintf(want, sizeof(want), "rkey 0x%x", mr.rkey);
	EXPECT_OUTPUT("rdma res show mr", want);

	o = run_out_unprivileged("rdma res show mr; rdma -j res show mr");
	ASSERT_NE(NULL, o);
	EXPECT_NE(NULL, strstr(o, "mrlen 4096")) TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(o, "key")) TH_LOG("%s", o);
	snprintf(want, sizeof(want), "\"mrn\":%u,", mr.lkey);
	EXPECT_EQ(NULL, strstr(o, want)) TH_LOG("%s", o);
	snprintf(want, sizeof(want), "\"mrn\":%u,", mr.rkey);
	EXPECT_EQ(NULL, strstr(o, want)) TH_LOG("%s", o);
	free(o);
	close(fd);
	munmap(mem, 4096);
}

/* What MODIFY_QP set shows in "rdma res", and a port filter finds it. */
TEST(qp_attributes_show_in_rdma_res)
{
	struct ib_uverbs_create_cq_resp cq;
	struct ib_uverbs_create_qp_resp qp;
	char want[128];
	uint32_t pd;
	int fd;

	fd = xv_open_context(NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xv_alloc_pd(fd, &pd));
	ASSERT_EQ(0, xv_create_cq(fd, 16, -1, 0, &cq, NULL));
	ASSERT_EQ(0, xv_create_qp(fd, pd, cq.cq_handle, cq.cq_handle, 4, &qp,
				  NULL));
	ASSERT_EQ(0, xv_qp_to_rts(fd, qp.qp_handle, qp.qpn));
	snprintf(want, sizeof(want), "link xrnic0/1 lqpn %u rqpn %u type RC state RTS",
		 qp.qpn, qp.qpn);
	EXPECT_OUTPUT("rdma res show qp link xrnic0/1", want);
	EXPECT_OUTPUT("rdma res show qp", "rq-psn 4660 sq-psn 22136");
	close(fd);
}

/* Opening a NETLINK_RDMA socket loads xrdma_core (module alias). */
TEST(netlink_autoloads_core)
{
	ASSERT_EQ(0, xt_run("modprobe -r xrnic_xrdma xrnic xrdma_core"));
	ASSERT_FALSE(xt_exists("/sys/module/xrdma_core"));
	EXPECT_EQ(0, xt_run("rdma dev >/dev/null"));
	EXPECT_TRUE(xt_exists("/sys/module/xrdma_core"));
	ASSERT_EQ(0, xt_run("modprobe xrnic"));
	EXPECT_TRUE(xt_exists(XRDMA_SYS_DEV));
	EXPECT_OUTPUT("rdma link", "link xrnic0/1 state ACTIVE");
}

TEST_HARNESS_MAIN
