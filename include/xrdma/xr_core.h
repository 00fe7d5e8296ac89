/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrdma_core: the interface between the RDMA core and its device drivers.
 *
 * A driver embeds struct xr_device at the start of its own device structure,
 * allocates it with xr_alloc_device(), fills in identity and ops, and
 * registers it.  The core owns naming, the "infiniband" sysfs class and,
 * later, the user ABI.
 */
#ifndef XR_CORE_H
#define XR_CORE_H

#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct xr_device;
struct xr_ufile;
struct xr_event_file;
struct xr_uverbs_dev;
struct xr_cm_counters;

#define XR_NODE_DESC_MAX	64
#define XR_FW_VER_MAX		32
#define XR_DEVICE_NAME_MAX	64

/**
 * struct xr_device_attr - device limits, as reported by the hardware
 * @max_mr_size: largest memory registration in bytes
 * @page_size_cap: supported page sizes, a bit per size
 * @vendor_id: IEEE vendor id
 * @vendor_part_id: vendor part number
 * @hw_ver: hardware revision
 * @max_qp: queue pairs
 * @max_qp_wr: work requests per queue
 * @max_sge: scatter/gather entries per work request
 * @max_cq: completion queues
 * @max_cqe: entries per completion queue
 * @max_mr: memory regions
 * @max_pd: protection domains
 * @max_ah: address handles
 * @max_srq: shared receive queues
 * @max_mcast_grp: multicast groups
 * @max_mcast_qp_attach: QPs attached to each
 * @max_mw: memory windows (type 1 and type 2B); 0: none
 * @timestamp_mask: the bits of a completion's timestamp; 0: none
 * @hca_core_clock: the frequency of the clock that stamps them, kHz
 * @max_qp_rd_atom: READs and atomics outstanding per QP, as requester and
 *	as responder (max_rd_atomic, max_dest_rd_atomic), at most 255
 */
struct xr_device_attr {
	u64 max_mr_size;
	u64 page_size_cap;
	u32 vendor_id;
	u32 vendor_part_id;
	u32 hw_ver;
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_sge;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_pd;
	u32 max_ah;
	u32 max_srq;
	u32 max_mcast_grp;
	u32 max_mcast_qp_attach;
	u32 max_mw;
	u64 timestamp_mask;
	u64 hca_core_clock;
	u32 max_qp_rd_atom;
};

/**
 * struct xr_port_attr - state of one port, using InfiniBand encodings
 * @state: logical state (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE)
 * @phys_state: physical state (2 Polling, 3 Disabled, 5 LinkUp)
 * @active_mtu: IB MTU code (1 = 256 ... 5 = 4096)
 * @max_mtu: IB MTU code
 * @active_speed: IB speed code (1 SDR, 2 DDR, 4 QDR, 8 FDR10, 16 FDR, ...)
 * @active_width: IB width code (1 1X, 2 4X, 4 8X, 8 12X, 16 2X)
 * @gid_tbl_len: entries in the GID table
 * @max_msg_sz: largest message in bytes
 * @port_cap_flags: IB port capability mask
 */
struct xr_port_attr {
	u8 state;
	u8 phys_state;
	u8 active_mtu;
	u8 max_mtu;
	u8 active_speed;
	u8 active_width;
	u16 gid_tbl_len;
	u32 max_msg_sz;
	u32 port_cap_flags;
};

/*
 * User object types, in the order the core destroys them on close.
 * XR_OBJ_MCAST is no object but a QP's attachment to a multicast group,
 * counted only in its user's share of the device (uobj.c).
 */
enum xr_obj_type {
	XR_OBJ_QP,
	XR_OBJ_MW,
	XR_OBJ_AH,
	XR_OBJ_SRQ,
	XR_OBJ_MR,
	XR_OBJ_CQ,
	XR_OBJ_PD,
	XR_OBJ_MCAST,
	XR_OBJ_MAX,
};

/**
 * struct xr_uobject - what every user-created object starts with
 * @ufile: the uverbs file that owns it
 * @handle: the handle user space knows it by (per file)
 * @type: enum xr_obj_type
 * @usecnt: objects that refer to this one; destroy is refused while > 0
 * @user_handle: the caller's cookie (CQ, QP), echoed in events
 * @res_id: its number in the device's resource tracking (what RDMA netlink
 *	reports): the device's number of a PD, CQ or QP; for an MR an id
 *	of its own, never a key
 */
struct xr_uobject {
	struct xr_ufile *ufile;
	u32 handle;
	u32 type;
	atomic_t usecnt;
	u64 user_handle;
	u32 res_id;
};

/** struct xr_pd - protection domain; @pdn: the device's number */
struct xr_pd {
	struct xr_uobject uobj;
	u32 pdn;
};

/**
 * struct xr_mw - memory window; bound and invalidated by work requests,
 *	which only the device sees
 * @uobj: user object header
 * @pd: its protection domain
 * @type: IB_MW_TYPE_1 or IB_MW_TYPE_2
 * @rkey: its rkey when allocated (the driver's key for it)
 */
struct xr_mw {
	struct xr_uobject uobj;
	struct xr_pd *pd;
	u8 type;
	u32 rkey;
};

/**
 * struct xr_ah - address handle: where a UD work request goes
 * @uobj: user object header
 * @pd: its protection domain
 * @dgid: destination GID
 * @flow_label: IPv6 flow label
 * @sgid_index: source GID index
 * @hop_limit: IP TTL
 * @traffic_class: IP traffic class
 * @dmac: the next hop, resolved by the core from @dgid
 */
struct xr_ah {
	struct xr_uobject uobj;
	struct xr_pd *pd;
	u8 dgid[16];
	u32 flow_label;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 dmac[6];
};

/**
 * struct xr_umem - pinned user memory
 * @owning_mm: the mm charged for the pinned pages
 * @address: first user address
 * @length: bytes
 * @npages: pages pinned, from the page holding @address
 * @pages: the pinned pages
 * @dma: their bus addresses, once mapped
 * @dma_dev: the device they are mapped for, or NULL while unmapped
 * @writable: pinned for write
 */
struct xr_umem {
	struct mm_struct *owning_mm;
	u64 address;
	u64 length;
	unsigned long npages;
	struct page **pages;
	dma_addr_t *dma;
	struct device *dma_dev;
	bool writable;
};

/**
 * struct xr_mr - memory region
 * @uobj: user object header
 * @pd: its protection domain
 * @umem: the pinned memory
 * @iova: the address the MR starts at
 * @length: bytes
 * @access: IB access flags
 * @lkey: local key, from the device
 * @rkey: remote key, from the device
 */
struct xr_mr {
	struct xr_uobject uobj;
	struct xr_pd *pd;
	struct xr_umem *umem;
	u64 iova;
	u64 length;
	u32 access;
	u32 lkey;
	u32 rkey;
};

/**
 * struct xr_cq - completion queue
 * @uobj: user object header
 * @cqn: the device's number
 * @cqe: entries
 * @comp_vector: completion vector (0 .. num_comp_vectors - 1)
 * @channel: completion channel, or NULL
 * @comp_events: completion events delivered (reported at destroy)
 * @async_events: async events delivered (reported at destroy)
 * @priv: driver data
 */
struct xr_cq {
	struct xr_uobject uobj;
	u32 cqn;
	u32 cqe;
	u32 comp_vector;
	struct xr_event_file *channel;
	u32 comp_events;
	u32 async_events;
	void *priv;
};

/**
 * struct xr_srq - shared receive queue
 * @uobj: user object header
 * @srqn: the device's number
 * @pd: its protection domain
 * @max_wr: receive WQEs it holds, as granted
 * @max_sge: scatter/gather entries per WQE, as granted
 * @async_events: async events delivered (reported at destroy)
 * @priv: driver data
 */
struct xr_srq {
	struct xr_uobject uobj;
	u32 srqn;
	struct xr_pd *pd;
	u32 max_wr;
	u32 max_sge;
	u32 async_events;
	void *priv;
};

/** struct xr_qp_cap - queue sizes of a QP, as granted */
struct xr_qp_cap {
	u32 max_send_wr;
	u32 max_recv_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
};

/*
 * QP attribute mask bits and QP states: the InfiniBand verbs values, as the
 * uverbs ABI carries them (IB_QP_* and IB_QPS_* in Linux).  Drivers whose
 * hardware encodes them otherwise translate; the XRNIC's are checked equal
 * at compile time (xrnic_verbs.c).
 */
#define XR_QP_STATE		BIT(0)
#define XR_QP_CUR_STATE		BIT(1)
#define XR_QP_EN_SQD_ASYNC_NOTIFY	BIT(2)
#define XR_QP_ACCESS_FLAGS	BIT(3)
#define XR_QP_PKEY_INDEX	BIT(4)
#define XR_QP_PORT		BIT(5)
#define XR_QP_QKEY		BIT(6)
#define XR_QP_AV		BIT(7)
#define XR_QP_PATH_MTU		BIT(8)
#define XR_QP_TIMEOUT		BIT(9)
#define XR_QP_RETRY_CNT		BIT(10)
#define XR_QP_RNR_RETRY		BIT(11)
#define XR_QP_RQ_PSN		BIT(12)
#define XR_QP_MAX_QP_RD_ATOMIC	BIT(13)
#define XR_QP_ALT_PATH		BIT(14)
#define XR_QP_MIN_RNR_TIMER	BIT(15)
#define XR_QP_SQ_PSN		BIT(16)
#define XR_QP_MAX_DEST_RD_ATOMIC	BIT(17)
#define XR_QP_PATH_MIG_STATE	BIT(18)
#define XR_QP_CAP		BIT(19)
#define XR_QP_DEST_QPN		BIT(20)
#define XR_QP_LEGACY_MASK	(BIT(21) - 1)

enum xr_qp_state {
	XR_QPS_RESET, XR_QPS_INIT, XR_QPS_RTR, XR_QPS_RTS, XR_QPS_SQD,
	XR_QPS_SQE, XR_QPS_ERR, XR_QPS_MAX
};

/**
 * struct xr_qp_attr - QP attributes (the subset of ib_qp_attr xrdma uses)
 * @qp_state: IB QP state
 * @path_mtu: IB MTU code
 * @rq_psn: receive PSN
 * @sq_psn: send PSN
 * @dest_qp_num: remote QP number
 * @qkey: the Q_Key of a UD QP
 * @qp_access_flags: IB remote access flags
 * @port_num: port (1)
 * @timeout: local ACK timeout exponent
 * @retry_cnt: transport retries
 * @rnr_retry: RNR retries
 * @min_rnr_timer: RNR NAK timer code
 * @max_rd_atomic: outstanding reads/atomics as requester
 * @max_dest_rd_atomic: outstanding reads/atomics as responder
 * @dgid: destination GID
 * @sgid_index: source GID index
 * @hop_limit: IP TTL
 * @traffic_class: IP traffic class
 * @dmac: the path's next hop, resolved by the core from @dgid (AV)
 */
struct xr_qp_attr {
	u8 qp_state;
	u8 path_mtu;
	u32 rq_psn;
	u32 sq_psn;
	u32 dest_qp_num;
	u32 qkey;
	u32 qp_access_flags;
	u8 port_num;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 dgid[16];
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 dmac[6];
};

/**
 * struct xr_qp - queue pair
 * @uobj: user object header
 * @qpn: the device's number
 * @pd: protection domain
 * @send_cq: CQ of the send queue
 * @recv_cq: CQ of the receive queue
 * @srq: the SRQ it receives from, or NULL (its own receive queue)
 * @mcast_list: the multicast groups it is attached to (struct xr_mcast;
 *	under its file's lock)
 * @qp_type: IB QP type (RC or UD)
 * @state: current IB state
 * @sq_sig_all: every send work request is signalled
 * @cap: queue sizes
 * @attr: attributes set by modify so far (with @state, updated under the
 *	QP resource-tracking lock, so that RDMA netlink reads them whole)
 * @async_events: async events delivered (reported at destroy)
 * @priv: driver data
 */
struct xr_qp {
	struct xr_uobject uobj;
	u32 qpn;
	struct xr_pd *pd;
	struct xr_cq *send_cq;
	struct xr_cq *recv_cq;
	struct xr_srq *srq;
	struct list_head mcast_list;
	u8 qp_type;
	u8 state;
	bool sq_sig_all;
	struct xr_qp_cap cap;
	struct xr_qp_attr attr;
	u32 async_events;
	void *priv;
};

/**
 * struct xr_udata - driver-specific part of a command and of its answer
 * @inbuf: user pointer to the request's driver data
 * @inlen: its length
 * @outbuf: user pointer where the driver's answer goes
 * @outlen: room there
 */
struct xr_udata {
	const void __user *inbuf;
	size_t inlen;
	void __user *outbuf;
	size_t outlen;
};

/* A management datagram (IBTA 13.4): 256 bytes, its 24-byte header first. */
#define XR_MAD_SIZE		256

/**
 * struct xr_gsi_ah - where a MAD goes: a RoCE v2 address and QP (GSI QPs: 1)
 * @dgid: the destination GID
 * @dmac: the next hop's Ethernet address
 * @sgid_index: the source GID's entry in the port's table
 * @hop_limit: IP hop limit (TTL)
 * @traffic_class: IP traffic class (TOS)
 * @flow_label: IPv6 flow label (20 bits)
 * @remote_qpn: the destination QP
 * @remote_qkey: its Q_Key (GSI: 0x80010000)
 */
struct xr_gsi_ah {
	u8 dgid[16];
	u8 dmac[6];
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	u32 remote_qpn;
	u32 remote_qkey;
};

/**
 * struct xr_gsi_wc - where a MAD a port's GSI QP received came from
 * @sgid: the sender's GID (the source address of its GRH)
 * @dgid: the GID it was sent to (ours)
 * @src_qp: the sending QP
 */
struct xr_gsi_wc {
	u8 sgid[16];
	u8 dgid[16];
	u32 src_qp;
};

/**
 * struct xr_device_ops - what a driver implements for the core
 * @owner: the driver's module
 * @query_device: ask the hardware for its limits
 * @query_port: ask the hardware for the state of port @port (1-based)
 *
 * @alloc_ucontext: a process opened a context (@ufile); fill its driver
 *	answer, and offer its device memory with xr_mmap_insert_io() and
 *	its pages with xr_mmap_insert()
 * @alloc_pd: allocate @pd->pdn
 * @dealloc_pd: free it
 * @reg_mr: register @mr->umem; set @mr->lkey and @mr->rkey.  On failure
 *	the driver may take @mr->umem as @dereg_mr may
 * @dereg_mr: unregister.  When the device may still use the pages (it
 *	stopped answering), the driver may take @mr->umem and set it to NULL:
 *	it then releases it with xr_umem_release() once the device is done,
 *	or keeps the pages pinned for ever with xr_umem_abandon().  -EBUSY:
 *	memory windows are bound to it; nothing changed, the MR stays
 * @alloc_mw: allocate a memory window of @mw->type in @mw->pd; set @mw->rkey
 * @dealloc_mw: unbind and free it
 * @create_cq: create @cq with @cq->cqe entries; may answer in @udata
 * @destroy_cq: destroy it
 * @create_qp: create @qp with @qp->cap; may answer in @udata
 * @modify_qp: apply the attributes of @attr named by @mask (IB_QP_* bits)
 * @query_qp: read the QP's attributes from the device
 * @destroy_qp: destroy it
 * @create_srq: create @srq with @srq->max_wr and @srq->max_sge (rounding
 *	them up as it grants them); may answer in @udata
 * @modify_srq: arm the SRQ's limit (0: disarm)
 * @resize_srq: optional: move @srq to a ring of at least @max_wr WQEs,
 *	keeping those posted, and set @srq->max_wr as granted; the driver
 *	data of the request in @udata says where the new ring goes
 * @query_srq: read the SRQ's armed limit
 * @destroy_srq: destroy it
 * @create_ah: optional: answer the new address handle @ah in @udata (the
 *	device may keep no state for it: the core destroys it alone)
 * @attach_mcast: UD @qp joins the multicast group of @gid (the core
 *	attaches a QP to a group once)
 * @detach_mcast: it leaves the group
 * @set_gid: optional: entry @index of port @port's GID table is now @gid,
 *	or empty (@gid NULL); called under the core's GID lock whenever the
 *	table changes, so that the device sends from the GIDs users see
 * @query_stats: read @num_counters hardware counters into @values
 * @gsi_send: optional: send @len bytes of a MAD from port @port's GSI QP
 *	to @ah at once (0), or -EAGAIN when its queue is full, -EIO when the
 *	device is dead; a driver with a GSI QP hands what it receives to
 *	xr_gsi_recv()
 * @counter_names: names of the hardware counters
 * @num_counters: how many there are
 * @uverbs_abi_ver: version of the driver-specific uverbs data
 *
 * The ops may sleep.  They return 0 or a negative errno; a device that has
 * died answers -EIO.  Destroy operations always release what the driver
 * holds, even when the device does not answer.
 */
struct xr_device_ops {
	struct module *owner;
	int (*query_device)(struct xr_device *xdev, struct xr_device_attr *attr);
	int (*query_port)(struct xr_device *xdev, u32 port,
			  struct xr_port_attr *attr);
	int (*alloc_ucontext)(struct xr_device *xdev, struct xr_ufile *ufile,
			      struct xr_udata *udata);
	int (*alloc_pd)(struct xr_device *xdev, struct xr_pd *pd);
	int (*dealloc_pd)(struct xr_device *xdev, struct xr_pd *pd);
	int (*reg_mr)(struct xr_device *xdev, struct xr_mr *mr);
	int (*dereg_mr)(struct xr_device *xdev, struct xr_mr *mr);
	int (*alloc_mw)(struct xr_device *xdev, struct xr_mw *mw);
	int (*dealloc_mw)(struct xr_device *xdev, struct xr_mw *mw);
	int (*create_cq)(struct xr_device *xdev, struct xr_cq *cq,
			 struct xr_udata *udata);
	int (*destroy_cq)(struct xr_device *xdev, struct xr_cq *cq);
	int (*create_qp)(struct xr_device *xdev, struct xr_qp *qp,
			 struct xr_udata *udata);
	int (*modify_qp)(struct xr_device *xdev, struct xr_qp *qp,
			 const struct xr_qp_attr *attr, u32 mask);
	int (*query_qp)(struct xr_device *xdev, struct xr_qp *qp,
			struct xr_qp_attr *attr);
	int (*destroy_qp)(struct xr_device *xdev, struct xr_qp *qp);
	int (*create_srq)(struct xr_device *xdev, struct xr_srq *srq,
			  struct xr_udata *udata);
	int (*modify_srq)(struct xr_device *xdev, struct xr_srq *srq, u32 limit);
	int (*resize_srq)(struct xr_device *xdev, struct xr_srq *srq, u32 max_wr,
			  struct xr_udata *udata);
	int (*query_srq)(struct xr_device *xdev, struct xr_srq *srq, u32 *limit);
	int (*destroy_srq)(struct xr_device *xdev, struct xr_srq *srq);
	int (*create_ah)(struct xr_device *xdev, struct xr_ah *ah,
			 struct xr_udata *udata);
	int (*attach_mcast)(struct xr_device *xdev, struct xr_qp *qp, const u8 *gid);
	int (*detach_mcast)(struct xr_device *xdev, struct xr_qp *qp, const u8 *gid);
	int (*set_gid)(struct xr_device *xdev, u32 port, u32 index,
		       const u8 *gid);
	int (*query_stats)(struct xr_device *xdev, u64 *values);
	int (*gsi_send)(struct xr_device *xdev, u32 port, const struct xr_gsi_ah *ah,
			const void *mad, size_t len);
	const char * const *counter_names;
	u32 num_counters;
	u32 uverbs_abi_ver;
};

/* The one entry of a port's P_Key table: the default partition, full member. */
#define XR_DEFAULT_PKEY		0xffff

/* Entries in a port's GID table. */
#define XR_GID_TBL_LEN		16

/**
 * struct xr_gid_entry - one entry of a port's GID table
 * @gid: the GID, network order
 * @valid: the entry holds a GID
 */
struct xr_gid_entry {
	u8 gid[16];
	bool valid;
};

/**
 * struct xr_port_gids - a port's net_device and GID table (core private)
 * @netdev: the port's Ethernet function (xr_set_netdev()), or NULL
 * @tracker: the reference on @netdev
 * @entry: the table
 */
struct xr_port_gids {
	struct net_device *netdev;
	netdevice_tracker tracker;
	struct xr_gid_entry entry[XR_GID_TBL_LEN];
};

/**
 * struct xr_device - an RDMA device known to the core
 * @dev: the class device, /sys/class/infiniband/<name>
 * @name: its name, kept in step with @dev's under the registry lock
 * @ops: the driver's operations
 * @attr: limits cached by xr_register_device() from @ops->query_device
 * @node_guid: node GUID, host byte order
 * @sys_image_guid: system image GUID, host byte order
 * @fw_ver: firmware version string
 * @node_desc: node description, settable through sysfs
 * @phys_port_cnt: number of ports, numbered from 1
 * @mac: the ports' Ethernet address; the default GID derives from it
 * @dma_device: the device that DMA mappings are made for (the PCI function)
 * @num_comp_vectors: completion interrupt vectors
 * @index: number in the core's registry, stable while registered
 * @ports_kobj: the "ports" sysfs directory (core private)
 * @port_kobjs: one sysfs directory per port (core private)
 * @uverbs: the uverbs character device (core private)
 * @res_count: live user objects per enum xr_obj_type (core private)
 * @res: resource tracking: res_id -> struct xr_uobject per enum xr_obj_type;
 *	each xarray's lock also protects what RDMA netlink reads of its
 *	objects, so that reporting never waits for a command (core private)
 * @res_next_id: next MR res_id to try (core private)
 * @user_lock: protects @user_usage (core private)
 * @user_usage: UID -> the objects that user holds here (core private)
 * @nr_contexts: open user contexts (core private)
 * @users: the registration plus lookups in progress (core private)
 * @users_done: completed when @users drops to zero (core private)
 * @registered: set between register and unregister (core private)
 * @dead: the device stopped answering (core private)
 * @clients_lock: held to read by whoever tells the clients of an event,
 *	to write while @clients_ready changes (core private)
 * @clients_ready: every client added and none removed yet (core private)
 * @gid_lock: protects @port_gids (core private)
 * @port_gids: per port, its net_device and GID table (core private)
 * @gid_list: on gid.c's list of devices with GID tables (core private)
 * @cm_counters: per port, IB CM's message counters (core private; freed
 *	with the device)
 */
struct xr_device {
	struct device dev;
	char name[XR_DEVICE_NAME_MAX];
	const struct xr_device_ops *ops;
	struct xr_device_attr attr;
	u64 node_guid;
	u64 sys_image_guid;
	char fw_ver[XR_FW_VER_MAX];
	char node_desc[XR_NODE_DESC_MAX];
	u32 phys_port_cnt;
	u8 mac[6];
	struct device *dma_device;
	u32 num_comp_vectors;
	u32 index;

	struct kobject *ports_kobj;
	struct kobject **port_kobjs;
	struct xr_uverbs_dev *uverbs;
	atomic64_t res_count[XR_OBJ_MAX];
	struct xarray res[XR_OBJ_MAX];
	u32 res_next_id;
	struct mutex user_lock;	/* protects user_usage */
	struct xarray user_usage;
	atomic64_t nr_contexts;
	refcount_t users;
	struct completion users_done;
	bool registered;
	bool dead;
	struct rw_semaphore clients_lock;	/* protects clients_ready */
	bool clients_ready;
	struct mutex gid_lock;	/* protects port_gids */
	struct xr_port_gids *port_gids;
	struct list_head gid_list;
	struct xr_cm_counters *cm_counters;
};

struct xr_device *xr_alloc_device(size_t size);
void xr_dealloc_device(struct xr_device *xdev);
int xr_register_device(struct xr_device *xdev, const char *name_fmt,
		       struct device *parent);
void xr_unregister_device(struct xr_device *xdev);
void xr_device_fatal(struct xr_device *xdev);
void xr_port_event(struct xr_device *xdev, u32 port, bool active);
int xr_set_netdev(struct xr_device *xdev, u32 port, struct net_device *ndev);

int xr_copy_to_udata(struct xr_udata *udata, const void *src, size_t len);
int xr_copy_from_udata(void *dst, struct xr_udata *udata, size_t len);
int xr_mmap_insert(struct xr_ufile *ufile, void *cpu_addr, size_t size,
		   bool read_only, u64 *key);
void xr_mmap_remove(struct xr_ufile *ufile, u64 key);
void xr_umem_release(struct xr_umem *umem);
void xr_umem_abandon(struct xr_umem *umem);
int xr_mmap_insert_io(struct xr_ufile *ufile, phys_addr_t io_addr,
		      size_t size, bool read_only, u64 *key);
void xr_cq_comp_event(struct xr_cq *cq);
void xr_gsi_recv(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc, const void *mad,
		 size_t len);

/* Async events of one object: the IB_EVENT_* values (struct ib_event). */
enum xr_obj_event {
	XR_EVENT_CQ_ERR		= 0,
	XR_EVENT_QP_FATAL	= 1,
	XR_EVENT_QP_REQ_ERR	= 2,
	XR_EVENT_QP_ACCESS_ERR	= 3,
	XR_EVENT_SRQ_LIMIT_REACHED	= 15,
	XR_EVENT_QP_LAST_WQE_REACHED	= 16,
};

void xr_cq_async_event(struct xr_cq *cq, enum xr_obj_event event);
void xr_qp_async_event(struct xr_qp *qp, enum xr_obj_event event);
void xr_srq_async_event(struct xr_srq *srq, enum xr_obj_event event);

/*
 * The device's name.  Unlike dev_name(), this buffer is never freed, so a
 * reader that races a rename sees a name, old or new, but no freed memory.
 */
static inline const char *xr_name(const struct xr_device *xdev)
{
	return xdev->name;
}

#endif /* XR_CORE_H */
