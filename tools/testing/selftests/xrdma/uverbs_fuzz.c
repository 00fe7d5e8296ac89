// SPDX-License-Identifier: GPL-2.0
/*
 * Random uverbs commands: mostly well-formed headers around random bodies,
 * random handles, sizes, masks and states, and answer pointers that are
 * sometimes bad, from a process that then exits or is killed.  The kernel
 * must answer each with a result or an errno (the VM runner fails the run on
 * any oops, BUG or WARNING), and everything must be released afterwards.
 * The seed is fixed so a failure repeats; XRDMA_FUZZ_SEED picks another.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xrdma_harness.h"
#include "xrdma_util.h"
#include "xrdma_verbs.h"

#define ROUNDS		30000
#define SCRATCH		(1024 * 1024)

static const uint32_t commands[] = {
	IB_USER_VERBS_CMD_GET_CONTEXT, IB_USER_VERBS_CMD_QUERY_DEVICE,
	IB_USER_VERBS_CMD_QUERY_PORT, IB_USER_VERBS_CMD_ALLOC_PD,
	IB_USER_VERBS_CMD_DEALLOC_PD, IB_USER_VERBS_CMD_REG_MR,
	IB_USER_VERBS_CMD_DEREG_MR, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
	IB_USER_VERBS_CMD_CREATE_CQ, IB_USER_VERBS_CMD_DESTROY_CQ,
	IB_USER_VERBS_CMD_CREATE_QP, IB_USER_VERBS_CMD_QUERY_QP,
	IB_USER_VERBS_CMD_MODIFY_QP, IB_USER_VERBS_CMD_DESTROY_QP,
	IB_USER_VERBS_CMD_POST_SEND, IB_USER_VERBS_CMD_CREATE_SRQ,
};

/* A plausible value for a 32-bit field: small, a handle, or anything. */
static uint32_t field32(void)
{
	switch (xt_pick(4)) {
	case 0:
		return xt_pick(8);
	case 1:
		return xt_pick(64);
	case 2:
		return 1u << xt_pick(32);
	default:
		return xt_rnd();
	}
}

/* One random command; returns nothing: any answer is acceptable. */
static void one_command(int fd, char *scratch, char *answer)
{
	union {
		uint64_t u64[64];
		uint32_t u32[128];
		uint8_t u8[512];
	} body;
	struct ib_uverbs_cmd_hdr hdr;
	char buf[sizeof(hdr) + sizeof(body)];
	size_t len, i;
	uint32_t cmd;

	cmd = commands[xt_pick(sizeof(commands) / sizeof(commands[0]))];
	len = 8 * (1 + xt_pick(24));
	for (i = 0; i < len / 4; i++)
		body.u32[i] = field32();
	/* Answer pointer: usually good, sometimes bad. */
	body.u64[0] = xt_pick(8) ? (uintptr_t)answer : xt_rnd();
	if (cmd == IB_USER_VERBS_CMD_REG_MR) {
		body.u64[1] = (uintptr_t)scratch + xt_pick(SCRATCH);
		body.u64[2] = xt_pick(4) ? xt_pick(SCRATCH) : xt_rnd();
		body.u64[3] = xt_pick(2) ? body.u64[1] : xt_rnd();
		body.u32[9] &= 0x1f;	/* access flags */
	}
	if (cmd == IB_USER_VERBS_CMD_MODIFY_QP && len >= 112)
		body.u8[108] = xt_pick(8);	/* qp_state */
	if (xt_pick(16) == 0) {
		/* An extended command around the same body. */
		struct ib_uverbs_ex_cmd_hdr ex = {
			.response = xt_pick(4) ? (uintptr_t)answer : 0,
			.provider_in_words = xt_pick(3),
			.provider_out_words = xt_pick(3),
		};

		if (len < sizeof(ex) + 8)
			len = sizeof(ex) + 8;
		hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | xt_pick(4);
		hdr.in_words = (len - sizeof(ex)) / 8 - ex.provider_in_words;
		hdr.out_words = xt_pick(40);
		memcpy(buf, &hdr, sizeof(hdr));
		memcpy(buf + sizeof(hdr), &ex, sizeof(ex));
		memcpy(buf + sizeof(hdr) + sizeof(ex), &body, len - sizeof(ex));
		(void)!write(fd, buf, sizeof(hdr) + len);
		return;
	}
	hdr.command = cmd;
	hdr.in_words = (sizeof(hdr) + len) / 4 + (xt_pick(8) ? 0 : xt_pick(3));
	hdr.out_words = xt_pick(8) ? 64 : xt_pick(80);
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), &body, len);
	(void)!write(fd, buf, sizeof(hdr) + len);
	if (xt_pick(64) == 0) {
		void *p = mmap(NULL, 4096 * (1 + xt_pick(64)), PROT_READ,
			       MAP_SHARED, fd, 4096 * xt_pick(32));

		if (p != MAP_FAILED)
			(void)*(volatile char *)p;
	}
}

static void fuzz_child(unsigned int rounds)
{
	char *scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *answer = malloc(4096);
	struct ib_uverbs_get_context_resp ctx;
	unsigned int i;
	int fd;

	if (scratch == MAP_FAILED || !answer)
		_exit(1);
	fd = open(XV_DEV, O_RDWR);
	if (fd < 0 || xv_get_context(fd, &ctx, NULL))
		_exit(2);
	for (i = 0; i < rounds; i++)
		one_command(fd, scratch, answer);
	_exit(0);
}

static uint64_t seed(void)
{
	const char *s = getenv("XRDMA_FUZZ_SEED");

	return s ? strtoull(s, NULL, 0) : 0x5eed0f1bd0e5ULL;
}

TEST(random_commands_then_exit)
{
	int status;
	pid_t pid;

	xt_seed(seed());
	TH_LOG("seed %#llx", (unsigned long long)seed());
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		fuzz_child(ROUNDS);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* A fault on a zapped or short mapping is allowed; nothing else. */
	if (WIFSIGNALED(status)) {
		EXPECT_EQ(SIGBUS, WTERMSIG(status));
	} else {
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
	EXPECT_EQ(0, xt_device_holds_only_pds(0));
}

TEST(random_commands_then_kill_9)
{
	int status, round;
	pid_t pid;

	xt_seed(seed() + 1);
	for (round = 0; round < 4; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			fuzz_child(1u << 30);
		usleep(100 * 1000 * (1 + round));
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status));
		EXPECT_EQ(0, xt_res_summary_is("xrnic0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 "));
		EXPECT_EQ(0, xt_device_holds_only_pds(0));
	}
}

TEST_HARNESS_MAIN
