/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * XRNIC hardware interface: PCI identity and the BAR2 register block.
 *
 * Shared by the xrnic driver and the xrnic-emu device model; this is the
 * one definition of the register map.  Documentation/xrnic-hw.rst is the
 * prose specification.  All registers are 32-bit little-endian; 64-bit
 * values are split into _LO/_HI halves.
 */
#ifndef XRNIC_REGS_H
#define XRNIC_REGS_H

/* PCI function: QEMU ivshmem-doorbell. */
#define XRNIC_PCI_VENDOR_ID		0x1af4
#define XRNIC_PCI_DEVICE_ID		0x1110
#define XRNIC_DB_BAR			0	/* ivshmem registers: doorbell */
#define XRNIC_MEM_BAR			2	/* device memory: registers, status */

/* ivshmem BAR0 register used to ring the device: (peer << 16) | vector. */
#define XRNIC_IVSHMEM_DOORBELL		0x0c
#define XRNIC_DEVICE_PEER		0	/* the device model is peer 0 */

/* MSI-X / doorbell vectors. */
#define XRNIC_VEC_ADMIN			0	/* admin queue, AENQ, reset */
#define XRNIC_MAX_VECTORS		32

/* "XRNC" read as a little-endian u32. */
#define XRNIC_SIGNATURE			0x434e5258
#define XRNIC_VERSION_MAJOR		1
#define XRNIC_VERSION_MINOR		0
#define XRNIC_VERSION(maj, min)		(((maj) << 16) | (min))
#define XRNIC_VERSION_GET_MAJOR(v)	((v) >> 16)
#define XRNIC_VERSION_GET_MINOR(v)	((v) & 0xffff)

/*
 * BAR2 layout: the register page, then the status page, which the driver
 * maps read-only into every context (struct xrnic_dev_status, xrnic_io.h).
 */
#define XRNIC_PAGE_SIZE			4096
#define XRNIC_BAR2_REGS_OFF		0
#define XRNIC_BAR2_STATUS_OFF		XRNIC_PAGE_SIZE
#define XRNIC_BAR2_SIZE			(1024 * 1024)

/* Register offsets in the register page.  RO: device writes, driver reads. */
#define XRNIC_REG_SIGNATURE		0x00	/* RO XRNIC_SIGNATURE */
#define XRNIC_REG_VERSION		0x04	/* RO XRNIC_VERSION() */
#define XRNIC_REG_CAPS			0x08	/* RO XRNIC_CAP_* */
#define XRNIC_REG_DMA_WIDTH		0x0c	/* RO DMA address bits */
#define XRNIC_REG_NUM_VECTORS		0x10	/* RO doorbell/MSI-X vectors */
#define XRNIC_REG_RESET_TIMEOUT_MS	0x14	/* RO longest reset, ms */
#define XRNIC_REG_MAX_AQ_DEPTH		0x18	/* RO admin queue entries */
#define XRNIC_REG_FW_VERSION		0x1c	/* RO XRNIC_FW_VERSION() */
#define XRNIC_REG_NODE_GUID_LO		0x20	/* RO */
#define XRNIC_REG_NODE_GUID_HI		0x24	/* RO */
#define XRNIC_REG_MAC_LO		0x28	/* RO MAC bytes 0..3 */
#define XRNIC_REG_MAC_HI		0x2c	/* RO MAC bytes 4..5 */
#define XRNIC_REG_DEV_CTL		0x30	/* RW XRNIC_DEV_CTL_* */
#define XRNIC_REG_DEV_STS		0x34	/* RO XRNIC_DEV_STS_* */
#define XRNIC_REG_FATAL_REASON		0x38	/* RO XRNIC_FATAL_* */
#define XRNIC_REG_AQ_BASE_LO		0x40	/* RW admin submission ring */
#define XRNIC_REG_AQ_BASE_HI		0x44
#define XRNIC_REG_ACQ_BASE_LO		0x48	/* RW admin completion ring */
#define XRNIC_REG_ACQ_BASE_HI		0x4c
#define XRNIC_REG_AENQ_BASE_LO		0x50	/* RW async event ring */
#define XRNIC_REG_AENQ_BASE_HI		0x54
#define XRNIC_REG_AQ_DEPTH		0x58	/* RW entries in AQ and ACQ */
#define XRNIC_REG_AENQ_DEPTH		0x5c	/* RW entries in AENQ */
#define XRNIC_REG_AQ_CTL		0x60	/* RW XRNIC_AQ_CTL_* */
#define XRNIC_REG_AENQ_CI		0x64	/* RW driver's AENQ consumer index */
#define XRNIC_REG_AENQ_DROPPED		0x68	/* RO events lost to a full AENQ */
#define XRNIC_REG_BLOCK_SIZE		0x80	/* bytes of the register block */

#define XRNIC_FW_VERSION(maj, min, sub)	(((maj) << 24) | ((min) << 16) | (sub))
#define XRNIC_FW_MAJOR(v)		((v) >> 24)
#define XRNIC_FW_MINOR(v)		(((v) >> 16) & 0xff)
#define XRNIC_FW_SUB(v)			((v) & 0xffff)

/* XRNIC_REG_CAPS */
#define XRNIC_CAP_AENQ			(1u << 0)

/*
 * XRNIC_REG_DEV_CTL.  The driver sets RESET and rings the admin vector; the
 * device drops all state, sets DEV_STS.READY and then clears RESET.
 */
#define XRNIC_DEV_CTL_RESET		(1u << 0)

/* XRNIC_REG_DEV_STS */
#define XRNIC_DEV_STS_READY		(1u << 0)
#define XRNIC_DEV_STS_FATAL		(1u << 1)
#define XRNIC_DEV_STS_AQ_ENABLED	(1u << 2)

/* XRNIC_REG_FATAL_REASON */
#define XRNIC_FATAL_NONE		0
#define XRNIC_FATAL_BAD_AQ_CONFIG	1	/* ring base, alignment or depth */
#define XRNIC_FATAL_DMA			2	/* ring address outside RAM */

/*
 * XRNIC_REG_AQ_CTL.  Writing ENABLE and ringing the admin vector makes the
 * device validate and latch the ring registers; it then sets
 * DEV_STS.AQ_ENABLED (or DEV_STS.FATAL).  ACQ_IRQ and AENQ_IRQ make the
 * device raise MSI-X vector XRNIC_VEC_ADMIN after writing a completion or an
 * event; without them the driver polls.
 */
#define XRNIC_AQ_CTL_ENABLE		(1u << 0)
#define XRNIC_AQ_CTL_ACQ_IRQ		(1u << 1)
#define XRNIC_AQ_CTL_AENQ_IRQ		(1u << 2)

/* Ring bases must be aligned to this; depths are powers of two. */
#define XRNIC_RING_ALIGN		XRNIC_PAGE_SIZE
#define XRNIC_MIN_RING_DEPTH		2
#define XRNIC_MAX_AENQ_DEPTH		256

#endif /* XRNIC_REGS_H */
