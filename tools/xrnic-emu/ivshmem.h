/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ivshmem server side of QEMU's ivshmem-doorbell device: the device
 * model is peer 0, the one QEMU client is peer 1.
 */
#ifndef XE_IVSHMEM_H
#define XE_IVSHMEM_H

#include <stdint.h>

#include <xrnic/xrnic_regs.h>

#define XE_IVSHMEM_PROTOCOL	0
#define XE_IVSHMEM_SERVER_PEER	XRNIC_DEVICE_PEER
#define XE_IVSHMEM_CLIENT_PEER	1

struct xe_ivshmem {
	const char *path;		/* socket path, NULL until bound */
	int listen_fd;
	int client_fd;			/* -1 until a client is connected */
	int shm_fd;
	uint8_t *bar2;			/* XRNIC_BAR2_SIZE bytes */
	unsigned int nvec;
	int db_fd[XRNIC_MAX_VECTORS];	/* ours: readable when the guest rings */
	int irq_fd[XRNIC_MAX_VECTORS];	/* the client's: MSI-X to the guest */
};

/* Create BAR2 and the eventfds; returns 0 or a negative errno. */
int xe_ivshmem_init(struct xe_ivshmem *iv, unsigned int nvec);
/* Replace a stale socket at path and listen; returns 0 or a negative errno. */
int xe_ivshmem_listen(struct xe_ivshmem *iv, const char *path);
/* Accept the client and hand it BAR2 and the eventfds; 0 or a negative errno. */
int xe_ivshmem_accept(struct xe_ivshmem *iv);
/* Accept a connection and close it at once. */
void xe_ivshmem_refuse(struct xe_ivshmem *iv);
/* Raise MSI-X vector vec in the guest; 0 or a negative errno. */
int xe_ivshmem_raise(struct xe_ivshmem *iv, unsigned int vec);
/* Close everything and remove the socket file. */
void xe_ivshmem_close(struct xe_ivshmem *iv);

#endif /* XE_IVSHMEM_H */
