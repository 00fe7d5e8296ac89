/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the xrdma kselftests (run inside the test VMs): xt_. */
#ifndef XRDMA_UTIL_H
#define XRDMA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define XRDMA_SYS_DEV	"/sys/class/infiniband/xrnic0"

/*
 * Read a whole (sysfs) file into @buf, NUL-terminated, one trailing newline
 * removed.  Returns the length, or -errno.
 */
ssize_t xt_read_file(const char *path, char *buf, size_t size);

/* Write @text to @path.  Returns 0 or -errno. */
int xt_write_file(const char *path, const char *text);

/* True if @path exists. */
bool xt_exists(const char *path);

/* True if the kernel log contains @needle; false if it cannot be read. */
bool xt_dmesg_contains(const char *needle);

/* Clear the kernel log ring so later checks see only new lines. */
int xt_dmesg_clear(void);

/* Run a shell command; returns its exit status, or -1. */
int xt_run(const char *cmd);

/*
 * 0 if the object counts of the first device in "rdma res" start with
 * @want (e.g. "xrnic0: pd 0 cq 0 "); -1 otherwise, the line on stderr.
 */
int xt_res_summary_is(const char *want);
/* 1 if the output of the shell command cmd has a line containing s, else 0. */
int xt_output_has(const char *cmd, const char *s);

/*
 * 0 if the XRNIC itself (its debugfs "resources", from QUERY_RESOURCES)
 * holds exactly @pd PDs and no MR, CQ, QP, MR page, SRQ or MW; -1 otherwise, what it
 * holds on stderr.
 */
int xt_device_holds_only_pds(unsigned int pd);

/* Sum of the per-CPU counts of the interrupt named @name, or -1. */
long long xt_irq_count(const char *name);

/*
 * GID 0 of port 1 of the first RDMA device (the default GID: the device's
 * own, for loopback paths) into @gid.  Returns 0 or -1.
 */
int xt_own_gid(unsigned char gid[16]);

/*
 * The XRNIC's net_device up with this guest's address (XRDMA_IP, else
 * 192.0.2.1) in @ip, its name in @ndev, and the address in the port's GID
 * table (waited for, 10 s at most).  Returns 0 or -1.
 */
int xt_port_address(char ip[16], char ndev[32]);

/*
 * A count xrdma_core's debugfs keeps (event_files, cm_ids), once it is
 * @want or 5 s passed (objects still busy go a moment later); -1 if unreadable.
 */
long xt_core_count(const char *name, long want);

/* Read one byte at @p; returns the signal that raised (SIGBUS), or 0. */
int xt_touch(volatile char *p);

/*
 * The fuzzers' random numbers: xorshift64 from the seed given last to
 * xt_seed() (not 0), so a failing run repeats with its seed.
 */
void xt_seed(uint64_t seed);
uint64_t xt_rnd(void);
/* A random number below @n. */
uint64_t xt_pick(uint64_t n);

#endif /* XRDMA_UTIL_H */
