/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrnic-emu: the XRNIC device model.  This header holds the device state and
 * the interface of the core (registers, admin queue, AENQ, logging), which
 * knows nothing of ivshmem: it sees BAR2 as a buffer, guest RAM through
 * struct xe_guest_mem and raises interrupts through a callback.
 */
#ifndef XE_H
#define XE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <endian.h>

#include <xrnic/xrnic_regs.h>
#include <xrnic/xrnic_admin.h>

#include "guest_mem.h"

/* Device limits reported by QUERY_DEVICE. */
#define XE_MAX_QP		1024
#define XE_MAX_QP_WR		4096
#define XE_MAX_SGE		16
#define XE_MAX_CQ		1024
#define XE_MAX_CQE		65536
#define XE_MAX_MR		4096
#define XE_MAX_PD		1024
#define XE_HW_VER		1
#define XE_MAX_MR_SIZE		(1ull << 40)
#define XE_PAGE_SIZE_CAP	0x1000ull

/* Port attributes reported by QUERY_PORT; the device has one port. */
#define XE_PORT_NUM		1
#define XE_PORT_MTU		5		/* IB_MTU_4096 */
#define XE_PORT_SPEED		4		/* QDR */
#define XE_PORT_WIDTH		1		/* 1X */
#define XE_PORT_GID_TBL_LEN	16
#define XE_PORT_MAX_MSG_SZ	(1u << 31)
#define XE_PORT_CAP_FLAGS	0x00010000u

/* Constant register values. */
#define XE_DMA_WIDTH		48
#define XE_RESET_TIMEOUT_MS	1000
#define XE_MAX_AQ_DEPTH		256

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/* Rejected-command log lines allowed per second. */
#define XE_REJECT_LOG_LIMIT	100

struct xe_identity {
	uint64_t guid;
	uint8_t mac[6];
	uint32_t fw_version;		/* XRNIC_FW_VERSION() */
	unsigned int num_vectors;
};

/* A latched ring: host view of guest memory, depth a power of two. */
struct xe_ring {
	uint8_t *host;
	uint32_t depth;
};

struct xe_dev {
	/* Set up by the creator before xe_dev_init(). */
	uint8_t *bar2;			/* XRNIC_BAR2_SIZE bytes, shared */
	struct xe_guest_mem mem;
	FILE *log;
	struct xe_identity id;
	void (*raise_irq)(struct xe_dev *xe, unsigned int vec);
	void *irq_ctx;			/* for raise_irq */

	/* Device-private state; RO registers are written from it. */
	uint32_t sts;			/* XRNIC_DEV_STS_* */
	uint32_t aenq_dropped;
	bool aq_enabled;
	struct xe_ring aq, acq, aenq;
	uint32_t aq_ci;			/* free-running indexes */
	uint32_t acq_pi;
	uint32_t aenq_pi;

	/* Rejected-command log rate limit. */
	int64_t reject_window;		/* CLOCK_MONOTONIC second */
	unsigned int reject_count;
};

/* regs.c */
uint32_t xe_reg_read(const struct xe_dev *xe, uint32_t off);
void xe_reg_write(struct xe_dev *xe, uint32_t off, uint32_t val);
void xe_dev_init(struct xe_dev *xe);
void xe_doorbell(struct xe_dev *xe, unsigned int vec);

/* admin.c */
void xe_admin_process(struct xe_dev *xe);

/* aenq.c */
void xe_aenq_post(struct xe_dev *xe, uint16_t event, uint32_t param, uint64_t data);

/* log.c */
void xe_log(struct xe_dev *xe, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xe_log_reject(struct xe_dev *xe, const struct xrnic_aq_entry *e, const char *why);

#endif /* XE_H */
