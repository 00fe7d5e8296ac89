// SPDX-License-Identifier: GPL-2.0
/*
 * ivshmem server protocol.  On connection the client gets, as 8-byte
 * little-endian messages with at most one fd each: the protocol version, its
 * peer id, -1 with the shared memory fd, then for each peer (the server,
 * then the client itself) its id once per vector with that vector's eventfd.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ivshmem.h"

int xe_ivshmem_init(struct xe_ivshmem *iv, unsigned int nvec)
{
	unsigned int v;
	void *p;

	memset(iv, 0, sizeof(*iv));
	iv->listen_fd = -1;
	iv->client_fd = -1;
	iv->nvec = nvec;
	for (v = 0; v < XRNIC_MAX_VECTORS; v++)
		iv->db_fd[v] = iv->irq_fd[v] = -1;

	iv->shm_fd = memfd_create("xrnic-bar2", MFD_CLOEXEC);
	if (iv->shm_fd < 0 || ftruncate(iv->shm_fd, XRNIC_BAR2_SIZE))
		return -errno;
	p = mmap(NULL, XRNIC_BAR2_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, iv->shm_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	iv->bar2 = p;
	for (v = 0; v < nvec; v++) {
		iv->db_fd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		iv->irq_fd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (iv->db_fd[v] < 0 || iv->irq_fd[v] < 0)
			return -errno;
	}
	return 0;
}

int xe_ivshmem_listen(struct xe_ivshmem *iv, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	/* Only ever remove an old socket, never some other file. */
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		if (unlink(path))
			return -errno;
	}
	iv->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (iv->listen_fd < 0 || bind(iv->listen_fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	iv->path = path;
	if (listen(iv->listen_fd, 4))
		return -errno;
	return 0;
}

static int xe_ivshmem_send(int sock, int64_t val, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	int64_t le = htole64(val);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	/* Never block: a client that does not read is a broken client. */
	if (sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) != sizeof(le))
		return -errno;
	return 0;
}

int xe_ivshmem_accept(struct xe_ivshmem *iv)
{
	unsigned int v;
	int err;

	iv->client_fd = accept4(iv->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (iv->client_fd < 0)
		return -errno;
	err = xe_ivshmem_send(iv->client_fd, XE_IVSHMEM_PROTOCOL, -1);
	if (!err)
		err = xe_ivshmem_send(iv->client_fd, XE_IVSHMEM_CLIENT_PEER, -1);
	if (!err)
		err = xe_ivshmem_send(iv->client_fd, -1, iv->shm_fd);
	for (v = 0; !err && v < iv->nvec; v++)
		err = xe_ivshmem_send(iv->client_fd, XE_IVSHMEM_SERVER_PEER, iv->db_fd[v]);
	for (v = 0; !err && v < iv->nvec; v++)
		err = xe_ivshmem_send(iv->client_fd, XE_IVSHMEM_CLIENT_PEER, iv->irq_fd[v]);
	return err;
}

void xe_ivshmem_refuse(struct xe_ivshmem *iv)
{
	int fd = accept4(iv->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

int xe_ivshmem_raise(struct xe_ivshmem *iv, unsigned int vec)
{
	uint64_t one = 1;

	if (write(iv->irq_fd[vec], &one, sizeof(one)) != sizeof(one))
		return -errno;
	return 0;
}

static void xe_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

void xe_ivshmem_close(struct xe_ivshmem *iv)
{
	unsigned int v;

	for (v = 0; v < XRNIC_MAX_VECTORS; v++) {
		xe_close(iv->db_fd[v]);
		xe_close(iv->irq_fd[v]);
	}
	xe_close(iv->client_fd);
	xe_close(iv->listen_fd);
	xe_close(iv->shm_fd);
	if (iv->bar2)
		munmap(iv->bar2, XRNIC_BAR2_SIZE);
	if (iv->path)
		unlink(iv->path);
}
