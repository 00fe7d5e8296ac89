/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * XRNIC hardware interface: admin queue (AQ), admin completion queue (ACQ)
 * and asynchronous event notification queue (AENQ) entry formats.
 *
 * Shared by the xrnic driver and the xrnic-emu device model.  All rings live
 * in host (guest) memory; fields are little-endian; every structure has a
 * fixed size checked below.
 */
#ifndef XRNIC_ADMIN_H
#define XRNIC_ADMIN_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

#define XRNIC_AQ_ENTRY_SIZE		64
#define XRNIC_ACQ_ENTRY_SIZE		64
#define XRNIC_AENQ_ENTRY_SIZE		16
#define XRNIC_ADMIN_DATA_SIZE		56

/*
 * Entry ownership: the producer writes the body, then flips the phase bit of
 * the flags byte.  The phase bit of the first lap is 1, and it alternates on
 * every wrap of the ring, so an entry is valid when its phase bit equals
 * ((index / depth) & 1) ^ 1 for the consumer's free-running index.
 */
#define XRNIC_ENTRY_PHASE		(1u << 0)

/* The phase bit an entry carries when it is valid at free-running @index. */
static inline __u8 xrnic_entry_phase(__u32 index, __u32 depth)
{
	return ((index / depth) & 1) ^ 1;
}

/* Admin opcodes */
enum xrnic_admin_opcode {
	XRNIC_ADMIN_QUERY_DEVICE	= 1,
	XRNIC_ADMIN_QUERY_PORT		= 2,
};

/* Admin completion status */
enum xrnic_admin_status {
	XRNIC_STATUS_OK			= 0,
	XRNIC_STATUS_BAD_OPCODE		= 1,	/* unknown opcode */
	XRNIC_STATUS_MALFORMED		= 2,	/* reserved bits or flags set */
	XRNIC_STATUS_BAD_PARAM		= 3,	/* a field is out of range */
	XRNIC_STATUS_BAD_ADDRESS	= 4,	/* a DMA address is outside RAM */
	XRNIC_STATUS_NO_RESOURCES	= 5,
};

/* QUERY_PORT: port numbers start at 1. */
struct xrnic_cmd_query_port {
	__u8	port_num;
	__u8	reserved[55];
};

/* Submission entry: the command body is opcode specific. */
struct xrnic_aq_entry {
	__u8	opcode;
	__u8	flags;		/* XRNIC_ENTRY_PHASE; other bits must be 0 */
	__le16	cmd_id;		/* echoed in the completion */
	__le32	reserved;
	union {
		__u8 data[XRNIC_ADMIN_DATA_SIZE];
		struct xrnic_cmd_query_port query_port;
	};
};

struct xrnic_resp_query_device {
	__le32	max_qp;
	__le32	max_qp_wr;
	__le32	max_sge;
	__le32	max_cq;
	__le32	max_cqe;
	__le32	max_mr;
	__le32	max_pd;
	__le32	vendor_id;
	__le32	vendor_part_id;
	__le32	hw_ver;
	__le64	max_mr_size;
	__le64	page_size_cap;
};

/* Port states and physical states use the InfiniBand encodings. */
enum xrnic_port_state {
	XRNIC_PORT_DOWN		= 1,
	XRNIC_PORT_INIT		= 2,
	XRNIC_PORT_ARMED	= 3,
	XRNIC_PORT_ACTIVE	= 4,
};

enum xrnic_port_phys_state {
	XRNIC_PORT_PHYS_POLLING		= 2,
	XRNIC_PORT_PHYS_DISABLED	= 3,
	XRNIC_PORT_PHYS_LINK_UP		= 5,
};

struct xrnic_resp_query_port {
	__u8	state;		/* enum xrnic_port_state */
	__u8	phys_state;	/* enum xrnic_port_phys_state */
	__u8	active_mtu;	/* IB MTU code: 1=256 .. 5=4096 */
	__u8	max_mtu;
	__u8	active_speed;	/* IB speed code (1=SDR .. 64=HDR) */
	__u8	active_width;	/* IB width code (1=1X, 2=4X, ...) */
	__le16	gid_tbl_len;
	__le32	max_msg_sz;
	__le32	port_cap_flags;
	__u8	reserved[40];
};

/* Completion entry */
struct xrnic_acq_entry {
	__le16	cmd_id;
	__u8	status;		/* enum xrnic_admin_status */
	__u8	flags;		/* XRNIC_ENTRY_PHASE */
	__le32	reserved;
	union {
		__u8 data[XRNIC_ADMIN_DATA_SIZE];
		struct xrnic_resp_query_device query_device;
		struct xrnic_resp_query_port query_port;
	};
};

/* Asynchronous events */
enum xrnic_aenq_event {
	XRNIC_EVENT_PORT_ACTIVE	= 1,	/* param: port number */
	XRNIC_EVENT_PORT_DOWN	= 2,	/* param: port number */
	XRNIC_EVENT_FATAL	= 3,	/* param: XRNIC_FATAL_* */
};

struct xrnic_aenq_entry {
	__le16	event;		/* enum xrnic_aenq_event */
	__u8	flags;		/* XRNIC_ENTRY_PHASE */
	__u8	reserved;
	__le32	param;
	__le64	data;
};

static_assert(sizeof(struct xrnic_cmd_query_port) == XRNIC_ADMIN_DATA_SIZE,
	      "query_port command size");
static_assert(sizeof(struct xrnic_aq_entry) == XRNIC_AQ_ENTRY_SIZE,
	      "AQ entry size");
static_assert(sizeof(struct xrnic_resp_query_device) == XRNIC_ADMIN_DATA_SIZE,
	      "query_device response size");
static_assert(sizeof(struct xrnic_resp_query_port) == XRNIC_ADMIN_DATA_SIZE,
	      "query_port response size");
static_assert(sizeof(struct xrnic_acq_entry) == XRNIC_ACQ_ENTRY_SIZE,
	      "ACQ entry size");
static_assert(sizeof(struct xrnic_aenq_entry) == XRNIC_AENQ_ENTRY_SIZE,
	      "AENQ entry size");

#endif /* XRNIC_ADMIN_H */
