// SPDX-License-Identifier: GPL-2.0
/* Small helpers shared by the xrdma kselftests (run inside the test VMs). */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <glob.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xrdma_util.h"

#define SYSLOG_ACTION_READ_ALL	3
#define SYSLOG_ACTION_CLEAR	5
#define SYSLOG_ACTION_SIZE_BUFFER 10

ssize_t xt_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}

int xt_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	return (size_t)n == len ? 0 : -EIO;
}

bool xt_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool xt_dmesg_contains(const char *needle)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	bool found = false;
	char *buf;
	int n;

	if (size <= 0)
		return false;
	buf = malloc(size + 1);
	if (!buf)
		return false;
	n = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
	if (n >= 0) {
		buf[n] = '\0';
		found = strstr(buf, needle) != NULL;
	}
	free(buf);
	return found;
}

int xt_dmesg_clear(void)
{
	return klogctl(SYSLOG_ACTION_CLEAR, NULL, 0) < 0 ? -errno : 0;
}

int xt_run(const char *cmd)
{
	int status = system(cmd);

	if (status < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

long long xt_irq_count(const char *name)
{
	char line[1024], *p, *end;
	long long total = -1, v;
	FILE *f;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, name))
			continue;
		p = strchr(line, ':');
		if (!p)
			break;
		total = 0;
		for (p++;; p = end) {
			v = strtoll(p, &end, 10);
			if (end == p)
				break;
			total += v;
		}
		break;
	}
	fclose(f);
	return total;
}

int xt_res_summary_is(const char *want)
{
	char line[256] = "";
	FILE *res = popen("rdma res 2>&1", "r");

	if (!res)
		return -1;
	if (!fgets(line, sizeof(line), res))
		line[0] = 0;
	pclose(res);
	if (strncmp(line, "0: ", 3) || strncmp(line + 3, want, strlen(want))) {
		fprintf(stderr, "# rdma res: %s", line);
		return -1;
	}
	return 0;
}

int xt_output_has(const char *cmd, const char *s)
{
	char line[512];
	FILE *out = popen(cmd, "r");
	int found = 0;

	if (!out)
		return 0;
	while (fgets(line, sizeof(line), out))
		found |= strstr(line, s) != NULL;
	pclose(out);
	return found;
}

int xt_device_holds_only_pds(unsigned int pd)
{
	char buf[256], want[128];
	glob_t g;
	int ret = -1;

	if (glob("/sys/kernel/debug/xrnic/*/resources", 0, NULL, &g))
		return -1;
	if (g.gl_pathc == 1 && xt_read_file(g.gl_pathv[0], buf, sizeof(buf)) > 0) {
		snprintf(want, sizeof(want),
			 "pd %u\nmr 0\ncq 0\nqp 0\nmr_pages 0\nsrq 0\nmw 0", pd);
		ret = strcmp(buf, want) ? -1 : 0;
		if (ret)
			fprintf(stderr, "# device holds: %s\n", buf);
	}
	globfree(&g);
	return ret;
}

static sigjmp_buf xt_fault_jmp;

static void xt_on_sigbus(int sig)
{
	siglongjmp(xt_fault_jmp, sig);
}

int xt_touch(volatile char *p)
{
	struct sigaction sa = { .sa_handler = xt_on_sigbus }, old;
	int sig;

	sigaction(SIGBUS, &sa, &old);
	sig = sigsetjmp(xt_fault_jmp, 1);
	if (!sig)
		(void)*p;
	sigaction(SIGBUS, &old, NULL);
	return sig;
}

int xt_own_gid(unsigned char gid[16])
{
	char text[64];
	glob_t g;
	int ret = -1;

	if (glob("/sys/class/infiniband/*/ports/1/gids/0", 0, NULL, &g))
		return -1;
	if (xt_read_file(g.gl_pathv[0], text, sizeof(text)) > 0 &&
	    inet_pton(AF_INET6, text, gid) == 1)
		ret = 0;
	globfree(&g);
	return ret;
}

int xt_port_address(char ip[16], char ndev[32])
{
	const char *env = getenv("XRDMA_IP");
	struct in_addr a;
	const uint8_t *b = (const uint8_t *)&a;
	char cmd[192];
	int i;

	snprintf(ip, 16, "%s", env && *env ? env : "192.0.2.1");
	if (inet_pton(AF_INET, ip, &a) != 1 ||
	    xt_read_file(XRDMA_SYS_DEV "/ports/1/gid_attrs/ndevs/0", ndev, 32) <= 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "ip link set %s up && { ip addr add %s/24 dev %s 2>/dev/null; true; }",
		 ndev, ip, ndev);
	if (xt_run(cmd))
		return -1;
	/* The GID table follows the address within moments. */
	snprintf(cmd, sizeof(cmd), "grep -qi ':ffff:%02x%02x:%02x%02x$' %s/ports/1/gids/*",
		 b[0], b[1], b[2], b[3], XRDMA_SYS_DEV);
	for (i = 0; i < 100 && xt_run(cmd); i++)
		usleep(100000);
	return i < 100 ? 0 : -1;
}

long xt_core_count(const char *name, long want)
{
	char path[128], buf[32];
	long n = -1;
	int i;

	snprintf(path, sizeof(path), "/sys/kernel/debug/xrdma_core/%s", name);
	for (i = 0; i < 50; i++) {
		if (xt_read_file(path, buf, sizeof(buf)) < 0)
			return -1;
		n = strtol(buf, NULL, 10);
		if (n == want)
			break;
		usleep(100000);
	}
	return n;
}

static uint64_t xt_rnd_state = 1;

void xt_seed(uint64_t seed)
{
	xt_rnd_state = seed;
}

uint64_t xt_rnd(void)
{
	xt_rnd_state ^= xt_rnd_state << 13;
	xt_rnd_state ^= xt_rnd_state >> 7;
	xt_rnd_state ^= xt_rnd_state << 17;
	return xt_rnd_state;
}

uint64_t xt_pick(uint64_t n)
{
	return xt_rnd() % n;
}
