/* SPDX-License-Identifier: GPL-2.0 */
/* xrnic: PCIe driver for the XRNIC RDMA NIC. */
#ifndef XRNIC_H
#define XRNIC_H

#include <linux/auxiliary_bus.h>
#include <linux/completion.h>
#include <linux/if_ether.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>

#include <xrnic/xrnic_admin.h>
#include <xrnic/xrnic_io.h>
#include <xrnic/xrnic_regs.h>

#define XRNIC_DRV_NAME		"xrnic"
#define XRNIC_FW_VER_MAX	32	/* "major.minor.sub" */
#define XRNIC_AQ_DEPTH		32
#define XRNIC_AENQ_DEPTH	32
/* The device's ports: one, numbered 1 (port events name it). */
#define XRNIC_PORTS		1
/* Address handles the core may hold: the device keeps none (the AV is in the WQE). */
#define XRNIC_MAX_AH		32768

/**
 * struct xrnic_admin - the admin queue: one command in flight at a time
 * @sq: submission ring, XRNIC_AQ_DEPTH entries
 * @cq: completion ring, XRNIC_AQ_DEPTH entries
 * @sq_dma: bus address of @sq
 * @cq_dma: bus address of @cq
 * @lock: serialises commands; protects @sq_pc, @cq_cc and @cmd_seq
 * @sq_pc: free-running producer index of @sq
 * @cq_cc: free-running consumer index of @cq
 * @cmd_seq: sequence number folded into command ids
 * @done: completed by the admin interrupt
 * @irq_mode: completions are signalled by MSI-X rather than polled
 * @dead: set once when the device stops answering; commands then fail fast
 */
struct xrnic_admin {
	struct xrnic_aq_entry *sq;
	struct xrnic_acq_entry *cq;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;
	struct mutex lock;	/* one command at a time */
	u32 sq_pc;
	u32 cq_cc;
	u16 cmd_seq;
	struct completion done;
	bool irq_mode;
	bool dead;
};

/**
 * struct xrnic_aenq - the asynchronous event queue
 * @ring: XRNIC_AENQ_DEPTH entries written by the device
 * @dma: bus address of @ring
 * @cc: free-running consumer index; only touched by @work
 * @work: drains the ring; scheduled by the admin interrupt
 */
struct xrnic_aenq {
	struct xrnic_aenq_entry *ring;
	dma_addr_t dma;
	u32 cc;
	struct work_struct work;
};

#define XRNIC_CEQ_DEPTH		256

/**
 * struct xrnic_ceq - the completion event queue of one MSI-X vector
 * @xn: its device
 * @ring: XRNIC_CEQ_DEPTH entries written by the device, then the doorbell
 *	record (struct xrnic_eq_db) in the same allocation
 * @dma: bus address of @ring
 * @cc: free-running consumer index; only the vector's IRQ thread uses it
 * @vector: the MSI-X vector
 * @irq_name: the name in /proc/interrupts
 */
struct xrnic_ceq {
	struct xrnic_dev *xn;
	struct xrnic_eqe *ring;
	dma_addr_t dma;
	u32 cc;
	u16 vector;
	char irq_name[32];
};

/**
 * struct xrnic_cc_file - a debugfs cc_params/ file (xrnic_debugfs.c)
 * @xn: its device
 * @param: its congestion control parameter (enum xrnic_cc_param)
 */
struct xrnic_cc_file {
	struct xrnic_dev *xn;
	u32 param;
};

struct xrnic_rdma;

/**
 * struct xrnic_rdma_events - what the PCI function tells its RDMA function
 * @comp: a completion event on CQ @cqn (from a vector's IRQ thread)
 * @async: an asynchronous event of a CQ, QP or SRQ (XRNIC_EVENT_*, @param
 *	its number)
 * @port: port @port went up or down
 * @fatal: the device stopped answering and was reset (xrnic_mark_dead())
 *
 * Each is called in a context that may sleep, never after
 * xrnic_rdma_detach() returned.
 */
struct xrnic_rdma_events {
	void (*comp)(struct xrnic_rdma *rdma, u32 cqn);
	void (*async)(struct xrnic_rdma *rdma, u16 event, u32 param);
	void (*port)(struct xrnic_rdma *rdma, u32 port, bool active);
	void (*fatal)(struct xrnic_rdma *rdma);
};

/**
 * struct xrnic_rdma - an RDMA function bound to the PCI function
 * @events: what it is told; the driver of the auxiliary device embeds this
 *	structure in its own state and finds that state with container_of()
 */
struct xrnic_rdma {
	const struct xrnic_rdma_events *events;
};

/**
 * struct xrnic_own - the device objects an RDMA function keeps for itself
 *	(a GSI QP and what it uses), which debugfs does not count as users'
 * @objs: PDs, MRs, CQs and QPs: as many of each
 * @mr_pages: the pages its MRs cover
 */
struct xrnic_own {
	u32 objs;
	u64 mr_pages;
};

/**
 * struct xrnic_adev - the RDMA function's auxiliary device
 * @adev: "xrnic.rdma.<id>" (xrdma_core) or "xrnic.ib.<id>" (Linux's
 *	ib_core) on the auxiliary bus (xrnic_aux.c)
 * @xn: its PCI function, which deletes @adev before it goes
 */
struct xrnic_adev {
	struct auxiliary_device adev;
	struct xrnic_dev *xn;
};

/**
 * struct xrnic_dev - one XRNIC PCI function
 * @pdev: the PCI function
 * @regs: BAR2 register page
 * @db: BAR0 ivshmem registers, for the doorbell
 * @num_vectors: MSI-X vectors allocated
 * @admin: admin queue
 * @aenq: async event queue
 * @irq_name: name of the admin interrupt in /proc/interrupts
 * @fatal_work: resets a device that stopped answering and tells the RDMA function
 *	(outside the admin lock)
 * @debugfs: the device's debugfs directory
 * @cc_files: what each of its cc_params/ files names
 * @ceqs: completion event queues of vectors 1 .. @num_vectors - 1
 * @num_comp_vectors: the vectors that serve completion queues
 * @db_page: bus address of the doorbell page user space maps, or 0
 * @held_lock: protects @held and @dma_unsafe
 * @held: memory the device was given and may still use (xrnic_dma.c)
 * @dma_unsafe: the device stopped answering and has not completed a reset
 *	since: it may still use memory it was given
 * @eth_vector: the Ethernet function's MSI-X vector: the last of three or
 *	more, else 0 (shared with the admin queue)
 * @link_lock: orders port events against the net_device's registration;
 *	protects @link_up and the writes of @netdev
 * @link_up: the port's link, as the last port event said
 * @netdev: the Ethernet function's net_device, once registered
 * @cache: admin answers kept for readers
 * @clock: the clock page user contexts map (xrnic_clock.c)
 * @clock_work: reads the device clock into @clock every second
 * @node_guid: the device's GUID
 * @fw_ver: its firmware version, "major.minor.sub"
 * @mac: the port's MAC address
 * @adev: the RDMA function's auxiliary device, while it exists
 * @rdma: the driver bound to @adev, which hears the device's events
 * @rdma_srcu: readers of @rdma; xrnic_rdma_detach() waits for them
 * @own: what that driver keeps for itself (debugfs)
 */
/**
 * struct xrnic_cache - admin answers kept for readers (xrnic_cache.c)
 * @lock: protects every field below; held across QUERY_STATS
 * @port_valid: @port holds QUERY_PORT's answer since the last port event
 * @port_gen: bumped by every port event
 * @port: the kept answer
 * @stats_valid: @stats holds counters read at @stats_time
 * @stats_time: jiffies of that read
 * @stats: the counters
 */
struct xrnic_cache {
	struct mutex lock;	/* protects the fields below */
	bool port_valid;
	u32 port_gen;
	struct xrnic_resp_query_port port;
	bool stats_valid;
	unsigned long stats_time;
	u64 stats[XRNIC_NUM_COUNTERS];
};

struct xrnic_clock_info;

struct xrnic_dev {
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *db;
	int num_vectors;
	struct xrnic_admin admin;
	struct xrnic_aenq aenq;
	char irq_name[32];
	struct work_struct fatal_work;
	struct dentry *debugfs;
	struct xrnic_cc_file cc_files[XRNIC_CC_NUM_PARAMS];
	struct xrnic_ceq ceqs[XRNIC_MAX_VECTORS];
	u32 num_comp_vectors;
	phys_addr_t db_page;
	struct mutex held_lock;	/* protects held and dma_unsafe */
	struct list_head held;
	bool dma_unsafe;
	u16 eth_vector;
	struct mutex link_lock;	/* protects link_up, writes of netdev */
	bool link_up;
	struct net_device *netdev;
	struct xrnic_cache cache;
	struct xrnic_clock_info *clock;
	struct delayed_work clock_work;
	u64 node_guid;
	char fw_ver[XRNIC_FW_VER_MAX];
	u8 mac[ETH_ALEN];
	struct xrnic_adev *adev;
	struct xrnic_rdma __rcu *rdma;
	struct srcu_struct rdma_srcu;
	struct xrnic_own own;
};

static inline u32 xrnic_rd(struct xrnic_dev *xn, u32 reg)
{
	return readl(xn->regs + reg);
}

static inline void xrnic_wr(struct xrnic_dev *xn, u32 reg, u32 val)
{
	writel(val, xn->regs + reg);
}

/* Wake the device: a doorbell carries no data besides the vector. */
/**
 * xrnic_ring_next - the entry at a consumer index, once the device wrote it
 * @ring: the ring's first entry
 * @entry_size: bytes an entry
 * @flags_off: where in an entry its flags byte (with the phase bit) is
 * @depth: entries, a power of two
 * @cc: the free-running consumer index
 *
 * The one way the driver consumes the rings the device publishes (the
 * ACQ, the AENQ, the completion event queues): the phase bit of lap
 * @cc / @depth says the entry is new, and the body is read only after it.
 *
 * Return: the entry, or NULL if the device has not written it yet.
 */
static inline void *xrnic_ring_next(void *ring, size_t entry_size,
				    size_t flags_off, u32 depth, u32 cc)
{
	u8 *e = (u8 *)ring + (size_t)(cc & (depth - 1)) * entry_size;

	if ((READ_ONCE(e[flags_off]) & XRNIC_ENTRY_PHASE) !=
	    xrnic_entry_phase(cc, depth))
		return NULL;
	dma_rmb();	/* read the body only after the phase bit */
	return e;
}

static inline void xrnic_doorbell(struct xrnic_dev *xn, u32 vector)
{
	writel((XRNIC_DEVICE_PEER << 16) | vector,
	       xn->db + XRNIC_IVSHMEM_DOORBELL);
}

/* xrnic_admin.c */
int xrnic_admin_init(struct xrnic_dev *xn);
void xrnic_admin_destroy(struct xrnic_dev *xn);
void xrnic_admin_set_irq_mode(struct xrnic_dev *xn, bool on);
int xrnic_admin_exec(struct xrnic_dev *xn, struct xrnic_aq_entry *cmd,
		     struct xrnic_acq_entry *resp);
void xrnic_mark_dead(struct xrnic_dev *xn, const char *why);
bool xrnic_is_dead(struct xrnic_dev *xn);

/* xrnic_dma.c */
void xrnic_dma_free(struct xrnic_dev *xn, void *cpu, dma_addr_t dma,
		    size_t size, bool coherent);
/**
 * struct xrnic_held_ops - how memory the device may use, which is not the
 *	driver's own allocation, is given back (xrnic_dma_hold())
 * @release: the device completed a reset: give it back
 * @abandon: the device never did: keep it from everyone for ever
 * @bytes: how much it is, for the message
 */
struct xrnic_held_ops {
	void (*release)(void *obj);
	void (*abandon)(void *obj);
	size_t (*bytes)(void *obj);
};

bool xrnic_dma_hold(struct xrnic_dev *xn, void *obj, const struct xrnic_held_ops *ops);
void xrnic_dma_unsafe(struct xrnic_dev *xn);
void xrnic_dma_quiesced(struct xrnic_dev *xn);
size_t xrnic_dma_abandon(struct xrnic_dev *xn, const struct xrnic_held_ops *ops);

/* xrnic_eq.c */
int xrnic_aenq_init(struct xrnic_dev *xn);
void xrnic_aenq_stop(struct xrnic_dev *xn);
void xrnic_aenq_destroy(struct xrnic_dev *xn);
int xrnic_admin_irq_request(struct xrnic_dev *xn);
void xrnic_admin_irq_free(struct xrnic_dev *xn);
int xrnic_ceqs_init(struct xrnic_dev *xn);
void xrnic_ceqs_destroy(struct xrnic_dev *xn);

/* xrnic_cache.c */
int xrnic_port_attrs(struct xrnic_dev *xn, struct xrnic_resp_query_port *resp);
void xrnic_port_changed(struct xrnic_dev *xn);
int xrnic_read_stats(struct xrnic_dev *xn, u64 *values);
extern const char * const xrnic_counter_names[XRNIC_NUM_COUNTERS];

/* xrnic_cmd.c */
int xrnic_cmd_query_device(struct xrnic_dev *xn,
			   struct xrnic_resp_query_device *resp);
int xrnic_cmd_query_port(struct xrnic_dev *xn, u8 port,
			 struct xrnic_resp_query_port *resp);
int xrnic_cmd_alloc_pd(struct xrnic_dev *xn, u32 *pdn);
int xrnic_cmd_dealloc_pd(struct xrnic_dev *xn, u32 pdn);
int xrnic_cmd_reg_mr(struct xrnic_dev *xn, const struct xrnic_cmd_reg_mr *reg,
		     u32 *lkey, u32 *rkey);
int xrnic_reg_mr_pages(struct xrnic_dev *xn, struct xrnic_cmd_reg_mr *reg,
		       const dma_addr_t *pages, unsigned long npages, u32 *lkey, u32 *rkey);
int xrnic_cmd_dereg_mr(struct xrnic_dev *xn, u32 lkey);
int xrnic_cmd_create_cq(struct xrnic_dev *xn,
			const struct xrnic_cmd_create_cq *create, u32 *cqn);
int xrnic_cmd_create_eq(struct xrnic_dev *xn, const struct xrnic_cmd_eq *create);
int xrnic_cmd_destroy_eq(struct xrnic_dev *xn, u16 vector);
int xrnic_cmd_destroy_cq(struct xrnic_dev *xn, u32 cqn);
int xrnic_cmd_create_qp(struct xrnic_dev *xn,
			const struct xrnic_cmd_create_qp *create, u32 *qpn);
int xrnic_cmd_modify_qp(struct xrnic_dev *xn, const struct xrnic_qp_attr *attr);
int xrnic_cmd_query_qp(struct xrnic_dev *xn, u32 qpn,
		       struct xrnic_qp_attr *attr);
int xrnic_cmd_destroy_qp(struct xrnic_dev *xn, u32 qpn);
int xrnic_cmd_create_srq(struct xrnic_dev *xn,
			 const struct xrnic_cmd_create_srq *create, u32 *srqn);
int xrnic_cmd_resize_srq(struct xrnic_dev *xn,
			 const struct xrnic_cmd_resize_srq *resize);
int xrnic_cmd_srq(struct xrnic_dev *xn, u8 opcode, u32 srqn, u32 limit,
		  u32 *limit_out);
int xrnic_cmd_alloc_mw(struct xrnic_dev *xn, u32 pdn, u8 type, u32 *rkey);
int xrnic_cmd_dealloc_mw(struct xrnic_dev *xn, u32 rkey);
int xrnic_cmd_mcast(struct xrnic_dev *xn, u8 opcode, u32 qpn, const u8 *gid);
int xrnic_cmd_query_stats(struct xrnic_dev *xn, u64 *values);
int xrnic_cmd_query_resources(struct xrnic_dev *xn,
			      struct xrnic_resp_query_resources *res);

int xrnic_cmd_start_eth(struct xrnic_dev *xn,
			const struct xrnic_cmd_start_eth *start);
int xrnic_cmd_stop_eth(struct xrnic_dev *xn);
int xrnic_cmd_set_gid(struct xrnic_dev *xn, u8 port, u8 index, const u8 *gid);
int xrnic_cmd_query_cc(struct xrnic_dev *xn, u32 param, u32 *value);
int xrnic_cmd_set_cc(struct xrnic_dev *xn, u32 param, u32 value);
int xrnic_cmd_query_clock(struct xrnic_dev *xn, u64 *now_ns);

/* xrnic_eth.c */
int xrnic_eth_register(struct xrnic_dev *xn, u16 vector, u16 max_mtu);
void xrnic_eth_unregister(struct xrnic_dev *xn);
void xrnic_eth_link(struct xrnic_dev *xn, bool up);
void xrnic_eth_admin_vector(struct xrnic_dev *xn);

/* xrnic_clock.c */
int xrnic_clock_init(struct xrnic_dev *xn);
void xrnic_clock_destroy(struct xrnic_dev *xn);

/* xrnic_aux.c */
int xrnic_aux_check(void);
int xrnic_aux_add(struct xrnic_dev *xn);
void xrnic_aux_delete(struct xrnic_dev *xn);
void xrnic_rdma_attach(struct xrnic_dev *xn, struct xrnic_rdma *rdma);
void xrnic_rdma_detach(struct xrnic_dev *xn);
void xrnic_rdma_comp(struct xrnic_dev *xn, u32 cqn);
void xrnic_rdma_async(struct xrnic_dev *xn, u16 event, u32 param);
void xrnic_rdma_port(struct xrnic_dev *xn, u32 port, bool active);
void xrnic_rdma_fatal(struct xrnic_dev *xn);

static inline struct xrnic_dev *xrnic_from_adev(struct auxiliary_device *adev)
{
	return container_of(adev, struct xrnic_adev, adev)->xn;
}

/* xrnic_debugfs.c */
void xrnic_debugfs_add(struct xrnic_dev *xn);
void xrnic_debugfs_remove(struct xrnic_dev *xn);
void xrnic_debugfs_init(void);
void xrnic_debugfs_exit(void);

#endif /* XRNIC_H */
