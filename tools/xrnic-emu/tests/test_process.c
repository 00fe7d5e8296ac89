// SPDX-License-Identifier: GPL-2.0
/*
 * Process tests: run the real xrnic-emu (path in $XRNIC_EMU) and play QEMU's
 * part: connect, take BAR2 and the eventfds, ring doorbells, wait for MSI-X.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include <xrnic/xrnic_regs.h>
#include <xrnic/xrnic_admin.h>

#define RAM_SIZE	(1 << 20)
#define AQ_GPA		0x1000
#define ACQ_GPA		0x2000
#define AENQ_GPA	0x3000
#define DEPTH		4
#define TIMEOUT_MS	10000

struct emu {
	pid_t pid;
	char dir[64];
	char sock[128];
	char ram[128];
	char log[128];
	char err[128];
};

struct client {
	int sock;
	unsigned int nvec;
	uint8_t *bar2;
	int db[XRNIC_MAX_VECTORS];
	int irq[XRNIC_MAX_VECTORS];
};

static const char *emu_path(void)
{
	const char *p = getenv("XRNIC_EMU");

	return p ? p : "build/xrnic-emu";
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The whole of a small file as a string (static buffer). */
static const char *slurp(const char *path)
{
	static char buf[65536];
	ssize_t n = 0;
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Has pid exited?  Leaves it to be reaped by wait_exit(). */
static bool exited(pid_t pid)
{
	siginfo_t si = { .si_pid = 0 };

	return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid;
}

/* Wait for text in the log of pid, as long as pid runs. */
static bool wait_for_text(const char *path, const char *text, pid_t pid)
{
	int64_t end = now_ms() + TIMEOUT_MS;

	while (!strstr(slurp(path), text)) {
		if (now_ms() > end || exited(pid))
			return false;
		usleep(5000);
	}
	return true;
}

/* Exit status of pid, or -1 if it is still running after the timeout. */
static int wait_exit(pid_t pid)
{
	int64_t end = now_ms() + TIMEOUT_MS;
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ms() > end)
			return -1;
		usleep(5000);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void emu_paths(struct emu *e)
{
	strcpy(e->dir, "/tmp/xe-test-XXXXXX");
	if (!mkdtemp(e->dir))
		abort();
	snprintf(e->sock, sizeof(e->sock), "%s/sock", e->dir);
	snprintf(e->ram, sizeof(e->ram), "%s/ram", e->dir);
	snprintf(e->log, sizeof(e->log), "%s/log", e->dir);
	snprintf(e->err, sizeof(e->err), "%s/stderr", e->dir);
}

/* Run xrnic-emu with args (NULL-terminated), stdout and stderr to e->err. */
static pid_t emu_spawn(struct emu *e, const char *const *args)
{
	const char *argv[32] = { emu_path() };
	pid_t pid;
	int i, fd;

	for (i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	pid = fork();
	if (pid == 0) {
		fd = open(e->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	return pid;
}

/* Start xrnic-emu on a fresh guest RAM file; extra options may follow. */
static bool emu_start(struct emu *e, const char *o1, const char *v1, const char *o2,
		      const char *v2)
{
	const char *args[] = { "--socket", e->sock, "--guest-ram", e->ram, "--log", e->log,
			       o1, v1, o2, v2, NULL };
	int fd = open(e->ram, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, RAM_SIZE))
		return false;
	close(fd);
	unlink(e->log);		/* wait for this run's line */
	e->pid = emu_spawn(e, args);
	return e->pid > 0 && wait_for_text(e->log, "listening on ", e->pid);
}

static void emu_cleanup(struct emu *e)
{
	if (e->pid > 0 && waitpid(e->pid, NULL, WNOHANG) == 0) {
		kill(e->pid, SIGKILL);
		waitpid(e->pid, NULL, 0);
	}
	unlink(e->sock);
	unlink(e->ram);
	unlink(e->log);
	unlink(e->err);
	rmdir(e->dir);
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, path);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		close(s);
		return -1;
	}
	return s;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, TIMEOUT_MS) == 1;
}

/* One ivshmem message: returns 0, or -1 on EOF or error. */
static int recv_msg(int s, int64_t *val, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = val, .iov_len = sizeof(*val) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;

	*fd = -1;
	if (!readable(s) || recvmsg(s, &msg, MSG_CMSG_CLOEXEC) != sizeof(*val))
		return -1;
	*val = le64toh(*val);
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

static uint32_t rd(struct client *c, uint32_t off)
{
	return le32toh(__atomic_load_n((uint32_t *)(c->bar2 + off), __ATOMIC_ACQUIRE));
}

static void wr(struct client *c, uint32_t off, uint32_t val)
{
	__atomic_store_n((uint32_t *)(c->bar2 + off), htole32(val), __ATOMIC_RELEASE);
}

static void ring(struct client *c, unsigned int vec)
{
	uint64_t one = 1;

	if (write(c->db[vec], &one, sizeof(one)) != sizeof(one))
		abort();
}

static bool wait_reg(struct client *c, uint32_t off, uint32_t mask, uint32_t val)
{
	int64_t end = now_ms() + TIMEOUT_MS;

	while ((rd(c, off) & mask) != val) {
		if (now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

FIXTURE(emu) {
	struct emu e;
	struct client c;
};

FIXTURE_SETUP(emu)
{
	self->e.pid = -1;
	emu_paths(&self->e);
}

FIXTURE_TEARDOWN(emu)
{
	if (self->c.bar2)
		munmap(self->c.bar2, XRNIC_BAR2_SIZE);
	emu_cleanup(&self->e);
}

/* Act as QEMU: connect and take the 3 + 2N messages. */
static void handshake(struct __test_metadata *_metadata, struct client *c, const char *sock,
		      unsigned int nvec)
{
	struct stat st;
	int64_t val;
	unsigned int v;
	int fd;

	c->nvec = nvec;
	c->sock = connect_to(sock);
	ASSERT_LE(0, c->sock);
	ASSERT_EQ(0, recv_msg(c->sock, &val, &fd));
	EXPECT_EQ(0, val);			/* protocol version */
	EXPECT_EQ(-1, fd);
	ASSERT_EQ(0, recv_msg(c->sock, &val, &fd));
	EXPECT_EQ(1, val);			/* our peer id */
	EXPECT_EQ(-1, fd);
	ASSERT_EQ(0, recv_msg(c->sock, &val, &fd));
	EXPECT_EQ(-1, val);			/* shared memory */
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(XRNIC_BAR2_SIZE, st.st_size);
	c->bar2 = mmap(NULL, XRNIC_BAR2_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, c->bar2);
	close(fd);
	for (v = 0; v < 2 * nvec; v++) {
		ASSERT_EQ(0, recv_msg(c->sock, &val, &fd));
		EXPECT_EQ(v < nvec ? 0 : 1, val);
		ASSERT_LE(0, fd);
		if (v < nvec)
			c->db[v] = fd;
		else
			c->irq[v - nvec] = fd;
	}
	/* Nothing more. */
	EXPECT_EQ(-1, recv(c->sock, &val, sizeof(val), MSG_DONTWAIT));
	EXPECT_EQ(XRNIC_SIGNATURE, rd(c, XRNIC_REG_SIGNATURE));
	EXPECT_EQ(nvec, rd(c, XRNIC_REG_NUM_VECTORS));
	EXPECT_EQ(XRNIC_DEV_STS_READY, rd(c, XRNIC_REG_DEV_STS));
}

static uint64_t guid_reg(struct client *c)
{
	return rd(c, XRNIC_REG_NODE_GUID_LO) | (uint64_t)rd(c, XRNIC_REG_NODE_GUID_HI) << 32;
}

TEST_F(emu, qemu_client_gets_bar2_and_runs_query_device_with_msix)
{
	struct xrnic_aenq_entry *ev;
	struct xrnic_aq_entry *cmd;
	struct xrnic_acq_entry *cpl;
	uint64_t cnt;
	uint8_t *ram;
	int fd;

	ASSERT_TRUE(emu_start(&self->e, "--vectors", "3", "--fw-version", "2.3.45"));
	handshake(_metadata, &self->c, self->e.sock, 3);
	EXPECT_EQ(XRNIC_VERSION(1, 0), rd(&self->c, XRNIC_REG_VERSION));
	EXPECT_EQ(XRNIC_CAP_AENQ, rd(&self->c, XRNIC_REG_CAPS));
	EXPECT_EQ(XRNIC_FW_VERSION(2, 3, 45), rd(&self->c, XRNIC_REG_FW_VERSION));
	EXPECT_EQ(256, rd(&self->c, XRNIC_REG_MAX_AQ_DEPTH));
	/* Default MAC and the EUI-64 GUID made from it. */
	EXPECT_EQ(0x00005452, rd(&self->c, XRNIC_REG_MAC_LO));
	EXPECT_EQ(0x0100, rd(&self->c, XRNIC_REG_MAC_HI));
	EXPECT_EQ(0x505400fffe000001ull, guid_reg(&self->c));
	ASSERT_TRUE(wait_for_text(self->e.log, "client connected", self->e.pid));

	fd = open(self->e.ram, O_RDWR);
	ASSERT_LE(0, fd);
	ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, ram);

	wr(&self->c, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	ring(&self->c, XRNIC_VEC_ADMIN);
	ASSERT_TRUE(wait_reg(&self->c, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET, 0));
	EXPECT_EQ(XRNIC_DEV_STS_READY, rd(&self->c, XRNIC_REG_DEV_STS));

	wr(&self->c, XRNIC_REG_AQ_BASE_LO, AQ_GPA);
	wr(&self->c, XRNIC_REG_ACQ_BASE_LO, ACQ_GPA);
	wr(&self->c, XRNIC_REG_AENQ_BASE_LO, AENQ_GPA);
	wr(&self->c, XRNIC_REG_AQ_DEPTH, DEPTH);
	wr(&self->c, XRNIC_REG_AENQ_DEPTH, DEPTH);
	wr(&self->c, XRNIC_REG_AQ_CTL, XRNIC_AQ_CTL_ENABLE | XRNIC_AQ_CTL_ACQ_IRQ);
	ring(&self->c, XRNIC_VEC_ADMIN);
	ASSERT_TRUE(wait_reg(&self->c, XRNIC_REG_DEV_STS, XRNIC_DEV_STS_AQ_ENABLED,
			     XRNIC_DEV_STS_AQ_ENABLED));
	ev = (void *)(ram + AENQ_GPA);
	EXPECT_EQ(XRNIC_ENTRY_PHASE, ev->flags);
	EXPECT_EQ(XRNIC_EVENT_PORT_ACTIVE, le16toh(ev->event));
	EXPECT_EQ(1, le32toh(ev->param));

	/* A doorbell on a data-path vector is accepted and ignored. */
	ring(&self->c, 2);
	cmd = (void *)(ram + AQ_GPA);
	cmd->opcode = XRNIC_ADMIN_QUERY_DEVICE;
	cmd->cmd_id = htole16(0x1234);
	__atomic_store_n(&cmd->flags, XRNIC_ENTRY_PHASE, __ATOMIC_RELEASE);
	ring(&self->c, XRNIC_VEC_ADMIN);
	ASSERT_TRUE(readable(self->c.irq[XRNIC_VEC_ADMIN]));
	ASSERT_EQ(sizeof(cnt), read(self->c.irq[XRNIC_VEC_ADMIN], &cnt, sizeof(cnt)));
	cpl = (void *)(ram + ACQ_GPA);
	EXPECT_EQ(XRNIC_ENTRY_PHASE, __atomic_load_n(&cpl->flags, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0x1234, le16toh(cpl->cmd_id));
	EXPECT_EQ(XRNIC_STATUS_OK, cpl->status);
	EXPECT_EQ(1024, le32toh(cpl->query_device.max_qp));
	munmap(ram, RAM_SIZE);

	/* QEMU goes away: the device model exits 0 and removes its socket. */
	close(self->c.sock);
	EXPECT_EQ(0, wait_exit(self->e.pid));
	EXPECT_NE(0, access(self->e.sock, F_OK));
	EXPECT_NE(NULL, strstr(slurp(self->e.log), "client disconnected"));
}

TEST_F(emu, identity_options_reach_the_registers)
{
	ASSERT_TRUE(emu_start(&self->e, "--guid", "0123:4567:89ab:cdef", "--mac",
			      "02:11:22:33:44:55"));
	handshake(_metadata, &self->c, self->e.sock, 4);
	EXPECT_EQ(0x0123456789abcdefull, guid_reg(&self->c));
	EXPECT_EQ(0x33221102, rd(&self->c, XRNIC_REG_MAC_LO));
	EXPECT_EQ(0x5544, rd(&self->c, XRNIC_REG_MAC_HI));
	EXPECT_EQ(XRNIC_FW_VERSION(1, 0, 0), rd(&self->c, XRNIC_REG_FW_VERSION));
	EXPECT_NE(NULL, strstr(slurp(self->e.log), "guid 0123:4567:89ab:cdef"));
	close(self->c.sock);
	EXPECT_EQ(0, wait_exit(self->e.pid));
}

TEST_F(emu, guid_in_hex_and_default_guid_from_mac)
{
	ASSERT_TRUE(emu_start(&self->e, "--guid", "0xFEDCBA9876543210", NULL, NULL));
	handshake(_metadata, &self->c, self->e.sock, 4);
	EXPECT_EQ(0xfedcba9876543210ull, guid_reg(&self->c));
	close(self->c.sock);
	EXPECT_EQ(0, wait_exit(self->e.pid));

	munmap(self->c.bar2, XRNIC_BAR2_SIZE);
	ASSERT_TRUE(emu_start(&self->e, "--mac", "02:11:22:33:44:55", NULL, NULL));
	handshake(_metadata, &self->c, self->e.sock, 4);
	EXPECT_EQ(0x001122fffe334455ull, guid_reg(&self->c));
	close(self->c.sock);
	EXPECT_EQ(0, wait_exit(self->e.pid));
}

TEST_F(emu, second_client_is_refused_while_one_is_connected)
{
	int64_t val;
	int s2;

	ASSERT_TRUE(emu_start(&self->e, NULL, NULL, NULL, NULL));
	handshake(_metadata, &self->c, self->e.sock, 4);
	s2 = connect_to(self->e.sock);
	ASSERT_LE(0, s2);
	ASSERT_TRUE(readable(s2));
	EXPECT_EQ(0, recv(s2, &val, sizeof(val), 0));	/* closed, no messages */
	close(s2);
	EXPECT_TRUE(wait_for_text(self->e.log, "refused a second client", self->e.pid));

	/* The first client still drives the device. */
	wr(&self->c, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	ring(&self->c, XRNIC_VEC_ADMIN);
	EXPECT_TRUE(wait_reg(&self->c, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET, 0));
	close(self->c.sock);
	EXPECT_EQ(0, wait_exit(self->e.pid));
}

TEST_F(emu, sigusr1_and_sigusr2_take_the_link_down_and_up)
{
	ASSERT_TRUE(emu_start(&self->e, NULL, NULL, NULL, NULL));
	handshake(_metadata, &self->c, self->e.sock, 4);
	ASSERT_TRUE(wait_for_text(self->e.log, "client connected", self->e.pid));
	kill(self->e.pid, SIGUSR1);
	EXPECT_TRUE(wait_for_text(self->e.log, "port 1 link down", self->e.pid));
	kill(self->e.pid, SIGUSR2);
	EXPECT_TRUE(wait_for_text(self->e.log, "port 1 link up", self->e.pid));
	/* Still serving: it ends only when QEMU goes. */
	close(self->c.sock);
	EXPECT_EQ(0, wait_exit(self->e.pid));
}

TEST_F(emu, sigterm_exits_0_and_removes_the_socket)
{
	ASSERT_TRUE(emu_start(&self->e, NULL, NULL, NULL, NULL));
	handshake(_metadata, &self->c, self->e.sock, 4);
	kill(self->e.pid, SIGTERM);
	EXPECT_EQ(0, wait_exit(self->e.pid));
	EXPECT_NE(0, access(self->e.sock, F_OK));
	close(self->c.sock);
}

TEST_F(emu, stale_socket_is_replaced_but_other_files_are_kept)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0), fd;

	strcpy(sa.sun_path, self->e.sock);
	ASSERT_EQ(0, bind(s, (struct sockaddr *)&sa, sizeof(sa)));
	close(s);
	ASSERT_TRUE(emu_start(&self->e, NULL, NULL, NULL, NULL));
	kill(self->e.pid, SIGINT);
	EXPECT_EQ(0, wait_exit(self->e.pid));

	fd = open(self->e.sock, O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_FALSE(emu_start(&self->e, NULL, NULL, NULL, NULL));
	EXPECT_EQ(2, wait_exit(self->e.pid));
	EXPECT_NE(NULL, strstr(slurp(self->e.err), "--socket"));
	EXPECT_EQ(0, access(self->e.sock, F_OK));
}

TEST_F(emu, bad_option_values_exit_2_naming_the_option)
{
	static const char *const bad[][2] = {
		{ "--vectors", "0" }, { "--vectors", "33" }, { "--vectors", "4x" },
		{ "--vectors", "" }, { "--guid", "0123:4567:89ab" },
		{ "--guid", "0123:4567:89ab:cdeg" }, { "--guid", "0x" },
		{ "--guid", "0x12345678901234567" }, { "--guid", "123" },
		{ "--mac", "52:54:00:00:00" }, { "--mac", "52:54:00:00:00:01:02" },
		{ "--mac", "5:54:00:00:00:01" }, { "--mac", "01:00:5e:00:00:01" },
		{ "--fw-version", "1.0" }, { "--fw-version", "256.0.0" },
		{ "--fw-version", "1.256.0" }, { "--fw-version", "1.0.65536" },
		{ "--fw-version", "1.0.0.0" }, { "--fw-version", "-1.0.0" },
		{ "--guest-ram", "/nonexistent/ram" },
		{ "--tap", "" }, { "--tap", "sixteen-chars-xx" },
		{ "--tap", "xrdma-no-such" },
		{ "--faults", "" }, { "--faults", "drop=101" }, { "--faults", "drop=-1" },
		{ "--faults", "drop=5,bogus=1" }, { "--faults", "drop" }, { "--faults", "seed=-1" },
		{ "--faults", "corrupt=0.5x" },
		{ "--pcap", "" }, { "--pcap", "/tmp/no-tap.pcap" },	/* no --tap */
		{ "--switch", "" }, { "--switch", "a/b" },
		{ "--switch", "x1234567890123456789012345678901234567890123456789012345678901234" },
		{ "--switch", "fine" },					/* no --tap */
		{ "--ecn-threshold", "" }, { "--ecn-threshold", "8388609" },
		{ "--ecn-threshold", "-1" }, { "--ecn-threshold", "1k" },
		{ "--ecn-threshold", "0" },				/* no --switch */
	};
	size_t i;
	pid_t pid;

	ASSERT_TRUE(emu_start(&self->e, NULL, NULL, NULL, NULL));
	kill(self->e.pid, SIGTERM);
	ASSERT_EQ(0, wait_exit(self->e.pid));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* The bad value comes last, so it overrides a good one. */
		const char *args[] = { "--socket", self->e.sock, "--guest-ram", self->e.ram,
				       bad[i][0], bad[i][1], NULL };

		pid = emu_spawn(&self->e, args);
		EXPECT_EQ(2, wait_exit(pid)) TH_LOG("%s '%s'", bad[i][0], bad[i][1]);
		EXPECT_NE(NULL, strstr(slurp(self->e.err), bad[i][0]))
			TH_LOG("%s '%s': %s", bad[i][0], bad[i][1], slurp(self->e.err));
	}
}

TEST_F(emu, lossless_without_a_switch_exits_2_naming_it)
{
	const char *args[] = { "--socket", self->e.sock, "--guest-ram", self->e.ram,
			       "--lossless", NULL };

	ASSERT_TRUE(emu_start(&self->e, NULL, NULL, NULL, NULL));
	kill(self->e.pid, SIGTERM);
	ASSERT_EQ(0, wait_exit(self->e.pid));
	EXPECT_EQ(2, wait_exit(emu_spawn(&self->e, args)));
	EXPECT_NE(NULL, strstr(slurp(self->e.err), "--lossless needs --switch"));
}

TEST_F(emu, help_lists_every_option)
{
	static const char *const opts[] = {
		"--socket", "--guest-ram", "--vectors", "--guid", "--mac", "--fw-version",
		"--log", "--tap", "--faults", "--pcap", "--switch", "--ecn-threshold", "--lossless",
		"--version", "--help",
	};
	const char *args[] = { "--help", NULL };
	size_t i;

	const char *help;

	EXPECT_EQ(0, wait_exit(emu_spawn(&self->e, args)));
	help = slurp(self->e.err);
	for (i = 0; i < ARRAY_SIZE(opts); i++)
		EXPECT_TRUE(strstr(help, opts[i]) != NULL) TH_LOG("option %zu missing", i);
}

TEST_HARNESS_MAIN
