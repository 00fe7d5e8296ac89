/* SPDX-License-Identifier: GPL-2.0 */
/* xrdma_core internals shared between its files. */
#ifndef XR_CORE_PRIV_H
#define XR_CORE_PRIV_H

#include <linux/cdev.h>
#include <linux/etherdevice.h>
#include <linux/socket.h>
#include <linux/workqueue.h>
#include <linux/netlink.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <xrdma/xr_core.h>

#include "client.h"
#include "cm.h"

/* IB async event types (enum ib_event_type), as user space reads them. */
#define XR_EVENT_DEVICE_FATAL	8
#define XR_EVENT_PORT_ACTIVE	9
#define XR_EVENT_PORT_ERR	10

extern struct class xr_class;
extern const struct attribute_group *xr_dev_groups[];

/**
 * struct xr_uverbs_dev - /dev/infiniband/uverbsN of one device
 * @dev: the class device in "infiniband_verbs"; its refcount keeps this
 *	structure alive while files are open
 * @cdev: the character device
 * @devnum: N
 * @lock: protects @xdev and @files
 * @xdev: the RDMA device; NULL once it is unregistered
 * @files: open uverbs files (struct xr_ufile.list)
 */
struct xr_uverbs_dev {
	struct device dev;
	struct cdev cdev;
	int devnum;
	struct mutex lock;	/* protects xdev and files */
	struct xr_device *xdev;
	struct list_head files;
};

/**
 * struct xr_ufile - one open uverbs file: a process's context
 * @ref: keeps the structure; held by the open file, by each completion
 *	channel created on it, and by whoever is disassociating it
 * @udev: the uverbs device (a reference on its class device)
 * @xdev: the RDMA device; NULL once disassociated (device gone or dead)
 * @max_mr_size: the device's, for checks made before @lock is taken
 * @uid: the opener's user, charged for the file's objects
 * @list: in @udev->files
 * @dead: the device is gone: commands and mmap() fail with -EIO at once,
 *	while the objects are still being destroyed (set under @udev->lock,
 *	read anywhere)
 * @disassociating: being cut off from the device (under @udev->lock)
 * @lock: serialises commands on this file; protects everything below
 *	that has no lock of its own
 * @has_context: GET_CONTEXT succeeded
 * @objects: handle -> struct xr_uobject
 * @mmap_lock: protects @mmaps and @umaps; taken under the mm's mmap lock
 *	(mmap() and VMA callbacks run with it held)
 * @mmaps: mmap key -> struct xr_mmap_entry
 * @umaps: the VMAs that map this file (struct xr_umap)
 * @channels_lock: protects @channels
 * @channels: completion channels created on this file that are still
 *	open (struct xr_event_file.ufile_list)
 * @async_file: the context's async event file (holds a reference); set
 *	once, under @udev->lock, so that event delivery can read it there
 * @owner: the process that created the context (set with @async_file)
 */
struct xr_ufile {
	struct kref ref;
	struct xr_uverbs_dev *udev;
	struct xr_device *xdev;
	u64 max_mr_size;
	kuid_t uid;
	struct list_head list;
	bool dead;
	bool disassociating;
	struct mutex lock;	/* serialises commands; protects what follows */
	bool has_context;
	struct xarray objects;
	struct mutex mmap_lock;	/* protects mmaps and umaps */
	struct xarray mmaps;
	struct list_head umaps;
	spinlock_t channels_lock;	/* protects channels */
	struct list_head channels;
	struct xr_event_file *async_file;
	struct pid *owner;
};

/**
 * struct xr_event_file - an async event file or a completion channel
 * @lock: protects @events and @dead
 * @events: queued struct xr_event
 * @wait: readers and pollers
 * @dead: no more events will come (the device is gone)
 * @is_async: async event file (else completion channel)
 * @ufile: the uverbs file a channel was created on (a reference), which
 *	alone may attach CQs to it; NULL for an async event file
 * @ufile_list: in @ufile->channels while the channel file is open
 */
struct xr_event_file {
	spinlock_t lock;	/* protects events and dead */
	struct list_head events;
	wait_queue_head_t wait;
	bool dead;
	bool is_async;
	struct xr_ufile *ufile;
	struct list_head ufile_list;
};

/* The RDMA CM's identity states (Linux's enum rdma_cm_state, which rdma res shows). */
enum xr_cm_state {
	XR_CM_IDLE,
	XR_CM_ADDR_QUERY,
	XR_CM_ADDR_RESOLVED,
	XR_CM_ROUTE_QUERY,
	XR_CM_ROUTE_RESOLVED,
	XR_CM_CONNECT,
	XR_CM_DISCONNECT,
	XR_CM_ADDR_BOUND,
	XR_CM_LISTEN,
	XR_CM_DEVICE_REMOVAL,
	XR_CM_DESTROYING,
};

struct xr_cm_id;
struct xr_cm_bind;

/*
 * An id's event handler: called under the id's lock, never after
 * xr_cm_destroy_id() began; it may sleep but must take no id's lock.  A
 * CONNECT_REQUEST comes on a new id whose context is still the listener's:
 * the handler gives it its own, or fails (the request is then rejected and
 * the new id destroyed).  Other events' answers are ignored.
 */
typedef int (*xr_cm_handler)(struct xr_cm_id *id, const struct xr_cm_event *ev);

/**
 * struct xr_cm_id - an RDMA CM identity (cma.c)
 * @ref: held by its creator until xr_cm_destroy_id() and by pending work
 * @lock: serialises the id's operations and its work; protects every field
 *	below but @list
 * @list: in cma.c's list of ids (under xr_cma_lock)
 * @state: enum xr_cm_state
 * @net: the network namespace of its creator (a reference)
 * @ps: port space (RDMA_PS_*)
 * @qp_type: IB_QPT_RC or IB_QPT_UD
 * @src: the bound address (and port)
 * @dst: the destination address, once resolution began
 * @xdev: the RDMA device it is bound to (a reference), or NULL
 * @port: @xdev's port
 * @sgid: the source GID, once bound to a device
 * @dgid: the destination GID, once the address is resolved
 * @sgid_index: @sgid's entry in the port's GID table
 * @dmac: the next hop's Ethernet address
 * @hop_limit: of the route
 * @mtu: the path MTU (IB code), once the route is resolved
 * @route_resolved: the route is known (one path)
 * @ifindex: the net_device the address resolved through (0: loopback)
 * @neigh_watch: a route was resolved here (the active side): a new MAC of
 *	the destination's neighbour makes the id UNREACHABLE, as Linux's
 *	cma_netevent_callback() does
 * @neigh_node: in xr_cma_neigh_work()'s list while it tells the id (under
 *	xr_cma_neigh_lock)
 * @tos: the IP type of service (rdma_set_option)
 * @tos_set: @tos was set
 * @reuseaddr: RDMA_OPTION_ID_REUSEADDR
 * @afonly: RDMA_OPTION_ID_AFONLY
 * @afonly_set: @afonly was set (else the bind decides it)
 * @ack_timeout: RDMA_OPTION_ID_ACK_TIMEOUT, for its QP's RTS
 * @ack_timeout_set: @ack_timeout was set (else the connection's)
 * @bind: its entry in its port space, while bound
 * @bind_node: in @bind's owners
 * @ibcm: its IB CM connection, while connecting and connected
 * @passive: it came from a connection request (a listener's)
 * @mc_list: the multicast groups it joined (struct xr_cm_mc)
 * @idn: its number in `rdma res show cm_id` (constant)
 * @owner: the process that made it (a listener's, for a request's id), or
 *	NULL (constant; a reference)
 * @qp_num: the QP it connects, as connect and accept gave it (0: none)
 * @work: address and route resolution
 * @removal: in xr_cma_remove_device()'s list while it tells the id (the
 *	remover of the id's device alone uses it)
 * @handler: its creator's event handler
 * @context: the creator's, for @handler
 */
struct xr_cm_id {
	struct kref ref;
	struct mutex lock;	/* see above */
	struct list_head list;
	enum xr_cm_state state;
	struct net *net;
	u16 ps;
	u8 qp_type;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	struct xr_device *xdev;
	u32 port;
	u8 sgid[16];
	u8 dgid[16];
	u8 sgid_index;
	u8 dmac[ETH_ALEN];
	u8 hop_limit;
	u8 mtu;
	bool route_resolved;
	int ifindex;
	bool neigh_watch;
	struct list_head neigh_node;
	u8 tos;
	bool tos_set;
	bool reuseaddr;
	bool afonly;
	bool afonly_set;
	u8 ack_timeout;
	bool ack_timeout_set;
	struct xr_cm_bind *bind;
	struct hlist_node bind_node;
	struct xr_ibcm *ibcm;
	bool passive;
	struct list_head mc_list;
	u32 idn;
	struct pid *owner;
	u32 qp_num;
	struct work_struct work;
	struct list_head removal;
	xr_cm_handler handler;
	void *context;
};

/**
 * struct xr_cm_conn_param - what rdma_connect() gives (struct rdma_conn_param)
 * @private_data: for the peer
 * @private_data_len: its length
 * @responder_resources: RDMA READs and atomics the QP takes at once
 * @initiator_depth: those it issues at once
 * @flow_control: end-to-end flow control
 * @retry_count: the transport's retries
 * @rnr_retry_count: its RNR retries
 * @srq: the QP receives from an SRQ
 * @qp_num: the QP
 */
struct xr_cm_conn_param {
	const void *private_data;
	u8 private_data_len;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 srq;
	u32 qp_num;
};

/**
 * struct xr_cm_qp_attr - the QP attributes a transition of an id's QP takes
 * @mask: IB_QP_* bits of the attributes set below
 * @qp_state: the state asked for
 * @pkey_index: of the port's P_Key
 * @port_num: the id's port
 * @qkey: a UD QP's Q_Key
 * @qp_access_flags: an RC QP's remote access
 * @qp: RTR's and RTS's (an RC connection's)
 */
struct xr_cm_qp_attr {
	u32 mask;
	u32 qp_state;
	u16 pkey_index;
	u8 port_num;
	u32 qkey;
	u32 qp_access_flags;
	struct xr_ibcm_qp qp;
};

/* cma.c */
size_t xr_sockaddr_size(sa_family_t family);
u64 xr_cma_ids_live(void);
int xr_cma_init(void);
void xr_cma_exit(void);
struct xr_cm_id *xr_cm_create_id(struct net *net, xr_cm_handler handler, void *context,
				 u16 ps, u8 qp_type);
void xr_cm_destroy_id(struct xr_cm_id *id);
int xr_cm_bind_addr(struct xr_cm_id *id, const struct sockaddr *addr);
int xr_cm_resolve_addr(struct xr_cm_id *id, const struct sockaddr *src,
		       const struct sockaddr *dst);
int xr_cm_resolve_route(struct xr_cm_id *id);
int xr_cm_listen(struct xr_cm_id *id);
int xr_cm_set_tos(struct xr_cm_id *id, u8 tos);
int xr_cm_set_reuseaddr(struct xr_cm_id *id, bool on);
int xr_cm_set_afonly(struct xr_cm_id *id, bool on);
int xr_cm_set_ack_timeout(struct xr_cm_id *id, u8 timeout);
int xr_cm_notify(struct xr_cm_id *id, u32 event);
int xr_cm_init_qp_attr(struct xr_cm_id *id, struct xr_cm_qp_attr *attr);
int xr_cm_connect(struct xr_cm_id *id, const struct xr_cm_conn_param *cp);
int xr_cm_accept(struct xr_cm_id *id, const struct xr_cm_conn_param *cp);
int xr_cm_reject(struct xr_cm_id *id, u16 reason, const void *pdata, u8 len);
int xr_cm_disconnect(struct xr_cm_id *id);

/**
 * struct xr_cm_res - what `rdma res show cm_id` shows of an id
 * @idn: its number
 * @port: its port, or 0 (a listener on every device)
 * @qp_num: its QP, or 0
 * @qp_type: IB_QPT_RC or IB_QPT_UD
 * @ps: its port space
 * @state: enum xr_cm_state (Linux's enum rdma_cm_state)
 * @src: its address, AF_UNSPEC when it has none
 * @dst: its destination's
 * @owner: the process that made it, or NULL (a reference: put_pid())
 */
struct xr_cm_res {
	u32 idn;
	u32 port;
	u32 qp_num;
	u8 qp_type;
	u16 ps;
	u8 state;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	struct pid *owner;
};

int xr_cma_res_next(struct xr_device *xdev, u32 idn, struct xr_cm_res *r);
u64 xr_cma_res_count(struct xr_device *xdev);
struct xr_cm_mc;
struct xr_cm_mc *xr_cm_join_multicast(struct xr_cm_id *id, const struct sockaddr *addr,
				      bool send_only, void *context);
void xr_cm_leave_multicast(struct xr_cm_id *id, struct xr_cm_mc *mc);

/* ucma.c */
int xr_ucma_init(void);
void xr_ucma_exit(void);
dev_t xr_ucma_chardev(void);

/* device.c */
int xr_device_init(void);
void xr_device_exit(void);
struct xr_device *xr_device_get_by_index(u32 index);
struct xr_device *xr_device_get_next(unsigned long *index);
struct xr_device *xr_device_get_by_name(const char *name);
void xr_device_put(struct xr_device *xdev);
int xr_device_rename(struct xr_device *xdev, const char *name);

/* sysfs.c */
void xr_sysfs_init(void);
int xr_add_port_sysfs(struct xr_device *xdev);
void xr_remove_port_sysfs(struct xr_device *xdev);

/* gid.c */
int xr_gid_init(void);
void xr_gid_exit(void);
int xr_gid_table_init(struct xr_device *xdev);
void xr_gid_table_destroy(struct xr_device *xdev);
int xr_query_gid(struct xr_device *xdev, u32 port, u32 index, u8 gid[16],
		 char ndev_name[IFNAMSIZ]);
int xr_find_gid(struct xr_device *xdev, u32 port, const u8 *gid);
bool xr_gid_is_local(struct xr_device *xdev, u32 port, const u8 *gid);
struct net_device *xr_port_netdev(struct xr_device *xdev, u32 port);
int xr_query_port(struct xr_device *xdev, u32 port, struct xr_port_attr *attr);

/* addr.c */
int xr_resolve_dmac(struct xr_device *xdev, u32 port, u8 sgid_index,
		    const u8 *dgid, u8 dmac[ETH_ALEN]);

/* mcast.c */
bool xr_gid_is_mcast(const u8 *gid);
int xr_mcast_ip(struct net_device *ndev, const u8 *gid, bool join);
int xr_mcast_attach(struct xr_device *xdev, struct xr_qp *qp, const u8 *gid);
int xr_mcast_detach(struct xr_device *xdev, struct xr_qp *qp, const u8 *gid);
void xr_mcast_detach_all(struct xr_device *xdev, struct xr_qp *qp);

/* uverbs_main.c */
int xr_uverbs_init(void);
void xr_uverbs_exit(void);
int xr_uverbs_chardev(struct xr_device *xdev, dev_t *devt, char *name,
		      size_t len);

/* uverbs_cmd.c */
ssize_t xr_uverbs_dispatch(struct xr_ufile *ufile, const char __user *buf,
			   size_t count);

/* ufile.c */
void xr_ufile_put(struct xr_ufile *ufile);

/* share.c */
int xr_user_charge(struct xr_ufile *ufile, enum xr_obj_type type);
void xr_user_uncharge(struct xr_ufile *ufile, enum xr_obj_type type);

/* uobj.c */
void *xr_uobj_lookup(struct xr_ufile *ufile, u32 handle, enum xr_obj_type type);
int xr_uobj_add(struct xr_ufile *ufile, struct xr_uobject *uobj,
		enum xr_obj_type type, u32 res_id);
void xr_uobj_del(struct xr_ufile *ufile, struct xr_uobject *uobj);

/**
 * struct xr_destroy - one object's destruction
 * @by_user: a command asked for it (else its file is closing)
 * @comp_events: out: the completion events reported for a CQ
 * @async_events: out: the async events reported for a CQ, QP or SRQ
 */
struct xr_destroy {
	bool by_user;
	u32 comp_events;
	u32 async_events;
};

int xr_uobj_destroy(struct xr_ufile *ufile, u32 handle, enum xr_obj_type type,
		    struct xr_destroy *d);
void xr_ufile_destroy_objects(struct xr_ufile *ufile);

/* events.c */
struct file *xr_event_file_create(struct xr_ufile *channel_of,
				  struct xr_event_file **evf);
struct xr_event_file *xr_event_file_get_channel(int fd,
						struct xr_ufile *ufile);
void xr_event_file_put(struct xr_event_file *evf);
void xr_event_kill_channels(struct xr_ufile *ufile);
u64 xr_event_files_live(void);
void xr_event_queue(struct xr_event_file *evf, u64 element, u32 event_type,
		    u32 *counter);
void xr_event_file_kill(struct xr_event_file *evf);
void xr_event_flush(struct xr_event_file *evf, u32 *counter);

/* umem.c */
struct xr_umem *xr_umem_pin(u64 addr, u64 length, bool writable);
int xr_umem_map(struct xr_umem *umem, struct device *dma_dev);

/* restrack.c */
void xr_restrack_init(struct xr_device *xdev);
void xr_restrack_destroy(struct xr_device *xdev);
int xr_restrack_add(struct xr_device *xdev, struct xr_uobject *uobj, u32 id);
void xr_restrack_del(struct xr_device *xdev, struct xr_uobject *uobj);

/* netlink.c */
int xr_nl_init(void);
void xr_nl_exit(void);
int xr_nl_unicast(struct sk_buff *skb, u32 portid);
typedef int (*xr_nl_rcv_t)(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack);
int xr_nl_register(unsigned int client, xr_nl_rcv_t rcv);
void xr_nl_unregister(unsigned int client);

/* nldev.c */
int xr_nldev_init(void);
void xr_nldev_exit(void);

#endif /* XR_CORE_PRIV_H */
