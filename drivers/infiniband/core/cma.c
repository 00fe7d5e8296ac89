// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA connection manager's identities, as Linux's rdma_cm keeps them
 * for RoCE.  An id is an IP endpoint in a port space (RDMA_PS_TCP for RC,
 * RDMA_PS_UDP and RDMA_PS_IPOIB for UD, RDMA_PS_IB for either) bound to an
 * address and a port of that space.  It resolves a destination address to
 * the RDMA device, the source and destination GIDs and the next hop that
 * reach it (the IP route and the neighbour table, through the net_device
 * of an XRNIC port), then a route (one path: the MTU of the port, the hop
 * limit of the IP route); it listens, connects over IB CM (cm.c: REQ for
 * RC, SIDR for UD) and joins IP multicast groups.
 *
 * Locking: xr_cm_id.lock serialises an id's operations and its work and
 * protects what the id holds; events go to the id's handler under it, and
 * none once xr_cm_destroy_id() set DESTROYING.  xr_cma_lock protects the
 * list of ids, the port spaces, every id's @src while it is bound to a
 * port and every id's @xdev; it is taken under an id's lock, never the
 * other way round.  The work holds no lock while it waits for a neighbour.
 */
#include <asm/unaligned.h>
#include <linux/inetdevice.h>
#include <linux/random.h>
#include <net/addrconf.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <net/route.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_cm.h>

#include "core_priv.h"

#define XR_CMA_UDP_QKEY		0x01234567	/* Linux's RDMA_UDP_QKEY */

/**
 * struct xr_cm_bind - a port of a port space and the ids bound to it
 * @ps: the port space
 * @port: the port, host order
 * @owners: the ids (struct xr_cm_id.bind_node)
 */
struct xr_cm_bind {
	u16 ps;
	u16 port;
	struct hlist_head owners;
};

static DEFINE_MUTEX(xr_cma_lock);	/* see the top of the file */
static LIST_HEAD(xr_cma_ids);	/* in creation order: by @idn */
static u32 xr_cma_next_idn;
static DEFINE_XARRAY(xr_cma_ps_tcp);
static DEFINE_XARRAY(xr_cma_ps_udp);
static DEFINE_XARRAY(xr_cma_ps_ipoib);
static DEFINE_XARRAY(xr_cma_ps_ib);
static struct workqueue_struct *xr_cma_wq;
/* Ids not yet freed, for the leak checks of debugfs "cm_ids". */
static atomic64_t xr_cma_ids_alive = ATOMIC64_INIT(0);

/**
 * xr_cma_ids_live - how many RDMA CM ids exist
 *
 * Return: ids created and not yet freed.
 */
u64 xr_cma_ids_live(void)
{
	return atomic64_read(&xr_cma_ids_alive);
}

static struct xarray *xr_cma_ps(u16 ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return &xr_cma_ps_tcp;
	case RDMA_PS_UDP:
		return &xr_cma_ps_udp;
	case RDMA_PS_IPOIB:
		return &xr_cma_ps_ipoib;
	default:
		return &xr_cma_ps_ib;
	}
}

/* ------------------------------------------------------------ addresses */

static bool xr_sa_zero(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static bool xr_sa_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ipv4_is_loopback(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
	return ipv6_addr_loopback(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/*
 * Any address, as Linux's rdma_cm counts it: the wildcard or a loopback
 * address.  Bound, it takes no device; a listener on it takes every device
 * and every destination address.
 */
static bool xr_sa_any(const struct sockaddr *sa)
{
	return xr_sa_zero(sa) || xr_sa_loopback(sa);
}

static u16 xr_sa_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

static void xr_sa_set_port(struct sockaddr *sa, u16 port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

/* Whether @a and @b are the same address (their ports aside). */
static bool xr_sa_same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

/* The RoCE v2 GID of an IP address: IPv4-mapped, or the IPv6 address. */
static void xr_sa_gid(const struct sockaddr *sa, u8 gid[16])
{
	if (sa->sa_family == AF_INET) {
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)sa)->sin_addr.s_addr,
				       (struct in6_addr *)gid);
		return;
	}
	memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/**
 * xr_sockaddr_size - the size of an address of a family the RDMA CM takes
 * @family: AF_INET or AF_INET6
 *
 * Return: the size of its struct sockaddr_in or _in6, or 0 for another.
 */
size_t xr_sockaddr_size(sa_family_t family)
{
	switch (family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return 0;
	}
}

/* The net_device that has local address @sa, with a reference, or NULL. */
static struct net_device *xr_cma_addr_dev(struct net *net, const struct sockaddr *sa)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;
	struct net_device *ndev;

	if (sa->sa_family == AF_INET)
		return ip_dev_find(net, ((const struct sockaddr_in *)sa)->sin_addr.s_addr);
	if (sin6->sin6_scope_id) {
		ndev = dev_get_by_index(net, sin6->sin6_scope_id);
		if (ndev && !ipv6_chk_addr(net, &sin6->sin6_addr, ndev, 1)) {
			dev_put(ndev);
			ndev = NULL;
		}
		return ndev;
	}
	rcu_read_lock();
	ndev = ipv6_dev_find(net, &sin6->sin6_addr, NULL);
	dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}

/*
 * The RDMA device (with a reference) and port whose net_device is @ndev,
 * or with @ndev NULL the first device (loopback addresses take any).
 */
static struct xr_device *xr_cma_dev_of_netdev(struct net_device *ndev, u32 *port)
{
	unsigned long index = 0;
	struct xr_device *xdev;
	struct net_device *pnd;
	bool match;
	u32 p;

	while ((xdev = xr_device_get_next(&index))) {
		for (p = 1; p <= xdev->phys_port_cnt; p++) {
			pnd = xr_port_netdev(xdev, p);
			match = pnd && (!ndev || pnd == ndev);
			dev_put(pnd);
			if (match) {
				*port = p;
				return xdev;
			}
		}
		xr_device_put(xdev);
		index++;
	}
	return NULL;
}

/* ------------------------------------------------------------ the device */

/*
 * Bind @id to port @port of @xdev, whose reference it takes over: refused
 * once the device's unregistration began (xr_cma_remove_device() then has
 * seen every id it must tell).
 */
static int xr_cma_attach(struct xr_cm_id *id, struct xr_device *xdev, u32 port)
{
	int ret = 0;

	mutex_lock(&xr_cma_lock);
	if (!READ_ONCE(xdev->registered)) {
		ret = -ENODEV;
	} else {
		id->xdev = xdev;
		id->port = port;
	}
	mutex_unlock(&xr_cma_lock);
	if (ret)
		xr_device_put(xdev);
	return ret;
}

static void xr_cma_detach(struct xr_cm_id *id)
{
	struct xr_device *xdev;

	mutex_lock(&xr_cma_lock);
	xdev = id->xdev;
	id->xdev = NULL;
	mutex_unlock(&xr_cma_lock);
	if (xdev)
		xr_device_put(xdev);
}

/*
 * The device, port and source GID of @id's bound address (not any): the
 * device of the net_device that has it.
 */
static int xr_cma_acquire_dev(struct xr_cm_id *id)
{
	const struct sockaddr *src = (const struct sockaddr *)&id->src;
	struct net_device *ndev;
	struct xr_device *xdev;
	u32 port;
	int idx;

	ndev = xr_cma_addr_dev(id->net, src);
	if (!ndev)
		return -EADDRNOTAVAIL;
	xdev = xr_cma_dev_of_netdev(ndev, &port);
	dev_put(ndev);
	if (!xdev)
		return -ENODEV;
	xr_sa_gid(src, id->sgid);
	idx = xr_find_gid(xdev, port, id->sgid);
	if (idx < 0) {
		xr_device_put(xdev);
		return -EADDRNOTAVAIL;
	}
	id->sgid_index = idx;
	return xr_cma_attach(id, xdev, port);
}

/* ------------------------------------------------------------ port spaces */

/* Whether @id may share @b's port with its owners (Linux's cma_check_port()). */
static int xr_cma_check_port(struct xr_cm_bind *b, struct xr_cm_id *id, bool reuseaddr)
{
	const struct sockaddr *addr = (const struct sockaddr *)&id->src;
	const struct sockaddr *cur_addr;
	struct xr_cm_id *cur;

	lockdep_assert_held(&xr_cma_lock);
	hlist_for_each_entry(cur, &b->owners, bind_node) {
		if (cur == id)
			continue;
		if (reuseaddr && cur->reuseaddr)
			continue;
		cur_addr = (const struct sockaddr *)&cur->src;
		if (id->afonly && cur->afonly && addr->sa_family != cur_addr->sa_family)
			continue;
		if (xr_sa_any(addr) || xr_sa_any(cur_addr))
			return -EADDRNOTAVAIL;
		if (xr_sa_same_addr(addr, cur_addr))
			return -EADDRINUSE;
	}
	return 0;
}

static int xr_cma_new_bind(struct xarray *ps, struct xr_cm_id *id, u16 port)
{
	struct xr_cm_bind *b;
	int ret;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->ps = id->ps;
	b->port = port;
	ret = xa_insert(ps, port, b, GFP_KERNEL);
	if (ret) {
		kfree(b);
		return ret == -EBUSY ? -EADDRINUSE : ret;
	}
	hlist_add_head(&id->bind_node, &b->owners);
	id->bind = b;
	xr_sa_set_port((struct sockaddr *)&id->src, port);
	return 0;
}

/* A free port of the local port range, as Linux's cma_alloc_any_port(). */
static int xr_cma_any_port(struct xarray *ps, struct xr_cm_id *id)
{
	int low, high, remaining;
	u32 rover;

	inet_get_local_port_range(id->net, &low, &high);
	remaining = high - low + 1;
	rover = low + get_random_u32() % remaining;
	for (; remaining > 0; remaining--) {
		if (!xa_load(ps, rover) && !inet_is_local_reserved_port(id->net, rover))
			return xr_cma_new_bind(ps, id, rover);
		rover = rover < high ? rover + 1 : low;
	}
	return -EADDRNOTAVAIL;
}

/* Give @id the port of its address (any free one for 0) in its port space. */
static int xr_cma_get_port(struct xr_cm_id *id)
{
	u16 port = xr_sa_port((const struct sockaddr *)&id->src);
	struct xarray *ps = xr_cma_ps(id->ps);
	struct xr_cm_bind *b;
	int ret;

	if (port && port < PROT_SOCK && !ns_capable(id->net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;
	mutex_lock(&xr_cma_lock);
	if (!port) {
		ret = xr_cma_any_port(ps, id);
		goto out;
	}
	b = xa_load(ps, port);
	if (!b) {
		ret = xr_cma_new_bind(ps, id, port);
		goto out;
	}
	ret = xr_cma_check_port(b, id, id->reuseaddr);
	if (!ret) {
		hlist_add_head(&id->bind_node, &b->owners);
		id->bind = b;
	}
out:
	mutex_unlock(&xr_cma_lock);
	return ret;
}

static void xr_cma_put_port(struct xr_cm_id *id)
{
	struct xr_cm_bind *b = id->bind;

	if (!b)
		return;
	mutex_lock(&xr_cma_lock);
	hlist_del(&id->bind_node);
	if (hlist_empty(&b->owners)) {
		xa_erase(xr_cma_ps(b->ps), b->port);
		kfree(b);
	}
	id->bind = NULL;
	mutex_unlock(&xr_cma_lock);
}

/* Change @id's bound address (its port stays): others check against it. */
static void xr_cma_set_src(struct xr_cm_id *id, const struct sockaddr *src)
{
	u16 port = xr_sa_port((const struct sockaddr *)&id->src);

	mutex_lock(&xr_cma_lock);
	memcpy(&id->src, src, xr_sockaddr_size(src->sa_family));
	xr_sa_set_port((struct sockaddr *)&id->src, port);
	mutex_unlock(&xr_cma_lock);
}

/* ------------------------------------------------------------ the ids */

static void xr_cma_release(struct kref *ref)
{
	struct xr_cm_id *id = container_of(ref, struct xr_cm_id, ref);

	put_pid(id->owner);
	put_net(id->net);
	kfree(id);
	atomic64_dec(&xr_cma_ids_alive);
}

static void xr_cma_put(struct xr_cm_id *id)
{
	kref_put(&id->ref, xr_cma_release);
}

static int xr_cma_deliver(struct xr_cm_id *id, const struct xr_cm_event *ev)
{
	lockdep_assert_held(&id->lock);
	return id->state != XR_CM_DESTROYING ? id->handler(id, ev) : 0;
}

static void xr_cma_event(struct xr_cm_id *id, u32 event, int status)
{
	struct xr_cm_event ev = { .event = event, .status = status };

	xr_cma_deliver(id, &ev);
}

static void xr_cma_work(struct work_struct *work);

/**
 * xr_cm_create_id - a new RDMA CM identity
 * @net: the network namespace its addresses live in
 * @handler: called with each of its events
 * @context: the caller's, kept in the id
 * @ps: its port space (RDMA_PS_TCP, _UDP, _IPOIB or _IB)
 * @qp_type: IB_QPT_RC or IB_QPT_UD, as the port space allows
 *
 * Return: the id in IDLE, or an ERR_PTR: -EINVAL for a port space or QP
 * type it cannot have, -ENOMEM.
 */
struct xr_cm_id *xr_cm_create_id(struct net *net, xr_cm_handler handler, void *context,
				 u16 ps, u8 qp_type)
{
	struct xr_cm_id *id;

	switch (ps) {
	case RDMA_PS_TCP:
		if (qp_type != IB_UVERBS_QPT_RC)
			return ERR_PTR(-EINVAL);
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		if (qp_type != IB_UVERBS_QPT_UD)
			return ERR_PTR(-EINVAL);
		break;
	case RDMA_PS_IB:
		if (qp_type != IB_UVERBS_QPT_RC && qp_type != IB_UVERBS_QPT_UD)
			return ERR_PTR(-EINVAL);
		break;
	default:
		return ERR_PTR(-EINVAL);
	}
	id = kzalloc(sizeof(*id), GFP_KERNEL_ACCOUNT);
	if (!id)
		return ERR_PTR(-ENOMEM);
	atomic64_inc(&xr_cma_ids_alive);
	kref_init(&id->ref);
	mutex_init(&id->lock);
	INIT_WORK(&id->work, xr_cma_work);
	INIT_LIST_HEAD(&id->mc_list);
	id->state = XR_CM_IDLE;
	id->net = get_net(net);
	id->ps = ps;
	id->qp_type = qp_type;
	id->handler = handler;
	id->context = context;
	id->owner = get_task_pid(current, PIDTYPE_TGID);
	mutex_lock(&xr_cma_lock);
	id->idn = xr_cma_next_idn++;
	list_add_tail(&id->list, &xr_cma_ids);
	mutex_unlock(&xr_cma_lock);
	return id;
}

/**
 * struct xr_cm_mc - a multicast group a UD id joined
 * @list: in the id's @mc_list (under its lock)
 * @mgid: the group's GID: its IPv6 address, an IPv4 one IPv4-mapped (as
 *	Linux's for RoCE v2)
 * @ifindex: the net_device that joined the group's IP address, or 0 (a
 *	send-only join)
 */
struct xr_cm_mc {
	struct list_head list;
	u8 mgid[16];
	int ifindex;
};

/* Leave @mc's IP group and free it (the id's lock not held: the RTNL is taken). */
static void xr_cma_mc_free(struct net *net, struct xr_cm_mc *mc)
{
	struct net_device *ndev;

	if (mc->ifindex) {
		ndev = dev_get_by_index(net, mc->ifindex);
		if (ndev) {
			xr_mcast_ip(ndev, mc->mgid, false);
			dev_put(ndev);
		}
	}
	kfree(mc);
}

/**
 * xr_cm_destroy_id - destroy an RDMA CM identity
 * @id: the id, which its creator must not use any more
 *
 * Its handler is not called once this began; its port and device are
 * given back.
 *
 * Context: process context; waits for its work to end.
 */
void xr_cm_destroy_id(struct xr_cm_id *id)
{
	struct xr_cm_mc *mc, *next;
	struct xr_ibcm *cm;
	LIST_HEAD(groups);

	mutex_lock(&id->lock);
	id->state = XR_CM_DESTROYING;
	cm = id->ibcm;
	id->ibcm = NULL;
	xr_cma_detach(id);
	list_splice_init(&id->mc_list, &groups);
	mutex_unlock(&id->lock);
	list_for_each_entry_safe(mc, next, &groups, list)
		xr_cma_mc_free(id->net, mc);
	/* Its handler takes the id's lock: without it. */
	if (cm)
		xr_ibcm_destroy(cm);
	if (cancel_work_sync(&id->work))
		xr_cma_put(id);		/* the reference the queued work held */
	xr_cma_put_port(id);
	mutex_lock(&xr_cma_lock);
	list_del(&id->list);
	mutex_unlock(&xr_cma_lock);
	xr_cma_put(id);
}

/* Bind @id in IDLE to @addr (an address of this host, or any). */
static int xr_cma_bind(struct xr_cm_id *id, const struct sockaddr *addr)
{
	size_t len = xr_sockaddr_size(addr->sa_family);
	int ret;

	lockdep_assert_held(&id->lock);
	if (!len)
		return -EAFNOSUPPORT;
	if (id->state != XR_CM_IDLE)
		return -EINVAL;
	memset(&id->src, 0, sizeof(id->src));
	memcpy(&id->src, addr, len);
	/* AFONLY: IPv4 ids always, IPv6 as the namespace's bindv6only says. */
	if (!id->afonly_set)
		id->afonly = addr->sa_family == AF_INET || id->net->ipv6.sysctl.bindv6only;
	if (!xr_sa_any(addr)) {
		ret = xr_cma_acquire_dev(id);
		if (ret)
			return ret;
	}
	ret = xr_cma_get_port(id);
	if (ret) {
		xr_cma_detach(id);
		return ret;
	}
	id->state = XR_CM_ADDR_BOUND;
	return 0;
}

/**
 * xr_cm_bind_addr - bind an id to a local address and port
 * @id: an id in IDLE
 * @addr: AF_INET or AF_INET6; a wildcard or loopback address binds to no
 *	device, a port 0 to a free port of the local port range
 *
 * Return: 0, -EAFNOSUPPORT, -EINVAL (not IDLE), -EADDRNOTAVAIL (not an
 * address of this host, or a wildcard where the port is taken), -ENODEV
 * (no RDMA device on its interface), -EADDRINUSE, -EACCES (a port below
 * 1024 without CAP_NET_BIND_SERVICE).
 */
int xr_cm_bind_addr(struct xr_cm_id *id, const struct sockaddr *addr)
{
	int ret;

	mutex_lock(&id->lock);
	ret = xr_cma_bind(id, addr);
	mutex_unlock(&id->lock);
	return ret;
}

/**
 * struct xr_cma_path - what address resolution finds
 * @xdev: the RDMA device (a reference)
 * @port: its port
 * @src: the source address the IP route takes
 * @sgid: its GID
 * @sgid_index: its entry in the port's GID table
 * @dgid: the destination's GID
 * @dmac: the next hop's Ethernet address
 * @hop_limit: of the IP route
 * @ifindex: the route's net_device (0: a loopback destination)
 */
struct xr_cma_path {
	struct xr_device *xdev;
	u32 port;
	struct sockaddr_storage src;
	u8 sgid[16];
	u8 sgid_index;
	u8 dgid[16];
	u8 dmac[ETH_ALEN];
	u8 hop_limit;
	int ifindex;
};

/*
 * The IP route from @src (any: the route's choice) to @dst: the interface
 * it leaves by, or for a local destination the one that has it (held),
 * the source address and the hop limit.
 */
static int xr_cma_route(struct net *net, const struct sockaddr *src, const struct sockaddr *dst,
			struct net_device **ndev, struct xr_cma_path *p)
{
	const struct sockaddr_in6 *d6 = (const struct sockaddr_in6 *)dst;
	const struct sockaddr_in *d4 = (const struct sockaddr_in *)dst;
	struct dst_entry *de;
	struct rtable *rt;
	bool local;

	memset(&p->src, 0, sizeof(p->src));
	if (dst->sa_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&p->src;
		struct flowi4 fl4 = {
			.daddr = d4->sin_addr.s_addr,
			.saddr = ((const struct sockaddr_in *)src)->sin_addr.s_addr,
		};

		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return -ENETUNREACH;
		local = rt->rt_type == RTN_LOCAL;
		*ndev = local ? ip_dev_find(net, fl4.daddr) : rt->dst.dev;
		if (!local)
			dev_hold(*ndev);
		p->hop_limit = ip4_dst_hoplimit(&rt->dst);
		ip_rt_put(rt);
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = fl4.saddr;
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&p->src;
		struct flowi6 fl6 = {
			.daddr = d6->sin6_addr,
			.saddr = ((const struct sockaddr_in6 *)src)->sin6_addr,
			.flowi6_oif = d6->sin6_scope_id,
		};
		int err;

		de = ip6_route_output(net, NULL, &fl6);
		err = de->error;
		if (!err && ipv6_addr_any(&fl6.saddr))
			err = ipv6_dev_get_saddr(net, ip6_dst_idev(de)->dev, &fl6.daddr, 0,
						 &fl6.saddr);
		if (err) {
			dst_release(de);
			return -ENETUNREACH;
		}
		local = de->dev->flags & IFF_LOOPBACK;
		*ndev = local ? xr_cma_addr_dev(net, dst) : de->dev;
		if (!local)
			dev_hold(*ndev);
		p->hop_limit = ip6_dst_hoplimit(de);
		dst_release(de);
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = fl6.saddr;
		s6->sin6_scope_id = d6->sin6_scope_id;
	}
	return *ndev ? 0 : -ENETUNREACH;
}

/*
 * Resolve @dst as seen from @src: the route, the device of its interface,
 * the GIDs and the next hop (which may take up to 3 s).  A loopback
 * destination is the device's own default GID, as Linux makes it.
 */
static int xr_cma_resolve(struct net *net, const struct sockaddr *src,
			  const struct sockaddr *dst, struct xr_cma_path *p)
{
	struct net_device *ndev = NULL;
	int idx, ret;

	if (xr_sa_loopback(dst)) {
		memcpy(&p->src, dst, xr_sockaddr_size(dst->sa_family));
		p->xdev = xr_cma_dev_of_netdev(NULL, &p->port);
		if (!p->xdev)
			return -ENODEV;
		p->hop_limit = 64;
		p->sgid_index = 0;
		ret = xr_query_gid(p->xdev, p->port, 0, p->sgid, NULL);
		memcpy(p->dgid, p->sgid, 16);
	} else {
		ret = xr_cma_route(net, src, dst, &ndev, p);
		if (ret)
			return ret;
		p->xdev = xr_cma_dev_of_netdev(ndev, &p->port);
		p->ifindex = ndev->ifindex;
		dev_put(ndev);
		if (!p->xdev)
			return -ENODEV;
		xr_sa_gid((const struct sockaddr *)&p->src, p->sgid);
		xr_sa_gid(dst, p->dgid);
		idx = xr_find_gid(p->xdev, p->port, p->sgid);
		ret = idx < 0 ? -EADDRNOTAVAIL : 0;
		p->sgid_index = idx;
	}
	if (!ret)
		ret = xr_resolve_dmac(p->xdev, p->port, p->sgid_index, p->dgid, p->dmac);
	if (ret) {
		xr_device_put(p->xdev);
		p->xdev = NULL;
	}
	return ret;
}

/* Take the resolution's result into @id; -ENODEV if it left @id's device. */
static int xr_cma_addr_resolved(struct xr_cm_id *id, struct xr_cma_path *p)
{
	int ret;

	if (id->xdev) {
		ret = id->xdev == p->xdev && id->port == p->port &&
		      !memcmp(id->sgid, p->sgid, 16) ? 0 : -ENODEV;
		xr_device_put(p->xdev);
		if (ret)
			return ret;
	} else {
		ret = xr_cma_attach(id, p->xdev, p->port);
		if (ret)
			return ret;
		memcpy(id->sgid, p->sgid, 16);
		id->sgid_index = p->sgid_index;
		xr_cma_set_src(id, (const struct sockaddr *)&p->src);
	}
	memcpy(id->dgid, p->dgid, 16);
	ether_addr_copy(id->dmac, p->dmac);
	id->hop_limit = p->hop_limit;
	id->ifindex = p->ifindex;
	return 0;
}

static void xr_cma_resolve_work(struct xr_cm_id *id)
{
	struct sockaddr_storage src, dst;
	struct xr_cma_path p = {};
	int ret;

	src = id->src;
	dst = id->dst;
	mutex_unlock(&id->lock);
	ret = xr_cma_resolve(id->net, (struct sockaddr *)&src, (struct sockaddr *)&dst, &p);
	mutex_lock(&id->lock);
	if (id->state != XR_CM_ADDR_QUERY) {
		if (p.xdev)
			xr_device_put(p.xdev);
		return;
	}
	if (!ret)
		ret = xr_cma_addr_resolved(id, &p);
	id->state = ret ? XR_CM_ADDR_BOUND : XR_CM_ADDR_RESOLVED;
	xr_cma_event(id, ret ? XR_CM_EVENT_ADDR_ERROR : XR_CM_EVENT_ADDR_RESOLVED, ret);
}

/* The route of RoCE: one path over the port, the MTU of its net_device. */
static void xr_cma_route_work(struct xr_cm_id *id)
{
	struct xr_port_attr attr;
	int ret = -ENODEV;

	if (id->xdev)
		ret = xr_query_port(id->xdev, id->port, &attr);
	if (!ret) {
		id->mtu = attr.active_mtu;
		id->route_resolved = true;
		id->neigh_watch = true;
	}
	id->state = ret ? XR_CM_ADDR_RESOLVED : XR_CM_ROUTE_RESOLVED;
	xr_cma_event(id, ret ? XR_CM_EVENT_ROUTE_ERROR : XR_CM_EVENT_ROUTE_RESOLVED, ret);
}

static void xr_cma_work(struct work_struct *work)
{
	struct xr_cm_id *id = container_of(work, struct xr_cm_id, work);

	mutex_lock(&id->lock);
	if (id->state == XR_CM_ADDR_QUERY)
		xr_cma_resolve_work(id);
	else if (id->state == XR_CM_ROUTE_QUERY)
		xr_cma_route_work(id);
	mutex_unlock(&id->lock);
	xr_cma_put(id);
}

static void xr_cma_queue(struct xr_cm_id *id)
{
	kref_get(&id->ref);
	if (!queue_work(xr_cma_wq, &id->work))
		xr_cma_put(id);
}

/**
 * xr_cm_resolve_addr - find the device, GIDs and next hop of a destination
 * @id: an id in IDLE (then bound to @src, or to any address of @dst's
 *	family) or ADDR_BOUND
 * @src: a source address, or NULL
 * @dst: the destination, AF_INET or AF_INET6
 *
 * ADDR_RESOLVED (or ADDR_ERROR with its errno) follows as an event.
 *
 * Return: 0 when resolution started, -EAFNOSUPPORT, -EINVAL (another
 * state, or @dst of another family than the bound address), or a bind's
 * errno.
 */
int xr_cm_resolve_addr(struct xr_cm_id *id, const struct sockaddr *src,
		       const struct sockaddr *dst)
{
	struct sockaddr_storage any = { .ss_family = dst->sa_family };
	size_t len = xr_sockaddr_size(dst->sa_family);
	int ret = 0;

	if (!len || xr_sa_zero(dst))
		return len ? -EINVAL : -EAFNOSUPPORT;
	mutex_lock(&id->lock);
	if (id->state == XR_CM_IDLE) {
		if (src && !xr_sockaddr_size(src->sa_family))
			src = NULL;
		ret = xr_cma_bind(id, src ?: (const struct sockaddr *)&any);
	} else if (id->state != XR_CM_ADDR_BOUND) {
		ret = -EINVAL;
	}
	if (!ret && id->src.ss_family != dst->sa_family)
		ret = -EINVAL;
	if (!ret) {
		memset(&id->dst, 0, sizeof(id->dst));
		memcpy(&id->dst, dst, len);
		id->state = XR_CM_ADDR_QUERY;
		xr_cma_queue(id);
	}
	mutex_unlock(&id->lock);
	return ret;
}

/**
 * xr_cm_resolve_route - the route to a resolved destination
 * @id: an id in ADDR_RESOLVED
 *
 * ROUTE_RESOLVED (or ROUTE_ERROR) follows as an event.
 *
 * Return: 0 when resolution started, -EINVAL in another state.
 */
int xr_cm_resolve_route(struct xr_cm_id *id)
{
	int ret = 0;

	mutex_lock(&id->lock);
	if (id->state == XR_CM_ADDR_RESOLVED) {
		id->state = XR_CM_ROUTE_QUERY;
		xr_cma_queue(id);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&id->lock);
	return ret;
}

/**
 * xr_cm_listen - let an id take connection requests
 * @id: an id in ADDR_BOUND, or IDLE (then bound to any IPv4 address and a
 *	free port), or LISTEN already
 *
 * A port shared with REUSEADDR may have one listener only.  How many
 * requests may wait is the owner's to say (its handler refuses more with
 * -ENOMEM: ucma.c's backlog).
 *
 * Return: 0, -EINVAL (another state), -EADDRINUSE, or a bind's errno.
 */
int xr_cm_listen(struct xr_cm_id *id)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	int ret = 0;

	mutex_lock(&id->lock);
	if (id->state == XR_CM_LISTEN)
		goto out;
	if (id->state == XR_CM_IDLE)
		ret = xr_cma_bind(id, (const struct sockaddr *)&any);
	else if (id->state != XR_CM_ADDR_BOUND)
		ret = -EINVAL;
	if (ret)
		goto out;
	if (id->reuseaddr) {
		mutex_lock(&xr_cma_lock);
		ret = xr_cma_check_port(id->bind, id, false);
		if (!ret)
			id->reuseaddr = false;
		mutex_unlock(&xr_cma_lock);
		if (ret)
			goto out;
	}
	id->state = XR_CM_LISTEN;
out:
	mutex_unlock(&id->lock);
	return ret;
}

/**
 * xr_cm_set_tos - the IP type of service of an id's connections
 * @id: the id
 * @tos: the TOS byte
 *
 * Return: 0.
 */
int xr_cm_set_tos(struct xr_cm_id *id, u8 tos)
{
	mutex_lock(&id->lock);
	id->tos = tos;
	id->tos_set = true;
	mutex_unlock(&id->lock);
	return 0;
}

/**
 * xr_cm_set_reuseaddr - let an id share its port (RDMA_OPTION_ID_REUSEADDR)
 * @id: the id: IDLE, or turning it on in any state but LISTEN
 * @on: share or not
 *
 * Return: 0 or -EINVAL.
 */
int xr_cm_set_reuseaddr(struct xr_cm_id *id, bool on)
{
	int ret = -EINVAL;

	mutex_lock(&id->lock);
	if ((on && id->state != XR_CM_LISTEN) || id->state == XR_CM_IDLE) {
		mutex_lock(&xr_cma_lock);
		id->reuseaddr = on;
		mutex_unlock(&xr_cma_lock);
		ret = 0;
	}
	mutex_unlock(&id->lock);
	return ret;
}

/**
 * xr_cm_set_afonly - whether an IPv6 id takes IPv4 too (RDMA_OPTION_ID_AFONLY)
 * @id: the id, IDLE or ADDR_BOUND
 * @on: its own family only
 *
 * Return: 0 or -EINVAL.
 */
int xr_cm_set_afonly(struct xr_cm_id *id, bool on)
{
	int ret = -EINVAL;

	mutex_lock(&id->lock);
	if (id->state == XR_CM_IDLE || id->state == XR_CM_ADDR_BOUND) {
		mutex_lock(&xr_cma_lock);
		id->afonly = on;
		id->afonly_set = true;
		mutex_unlock(&xr_cma_lock);
		ret = 0;
	}
	mutex_unlock(&id->lock);
	return ret;
}

/**
 * xr_cm_set_ack_timeout - the local ACK timeout of an RC id's QP
 *	(RDMA_OPTION_ID_ACK_TIMEOUT), in place of the connection's
 * @id: an RC id
 * @timeout: IBTA exponent: 4.096 us * 2^@timeout (0: infinite)
 *
 * Return: 0, or -EINVAL for a UD id or an exponent above 31.
 */
int xr_cm_set_ack_timeout(struct xr_cm_id *id, u8 timeout)
{
	if (id->qp_type != IB_UVERBS_QPT_RC || timeout > 31)
		return -EINVAL;
	mutex_lock(&id->lock);
	id->ack_timeout = timeout;
	id->ack_timeout_set = true;
	mutex_unlock(&id->lock);
	return 0;
}

/**
 * xr_cm_init_qp_attr - the attributes that move an id's QP to a state
 * @id: an id bound to a device
 * @attr: in: @attr->qp_state; out: the rest
 *
 * INIT takes the port, its P_Key, and an RC QP's access flags (none
 * before the connection, which brings the peer's wishes: remote writes,
 * and reads and atomics when it may issue them) or a UD QP's Q_Key
 * (RDMA_UDP_QKEY, as Linux gives the UDP and IB port spaces).  RC's RTR and
 * RTS come from the connection (xr_ibcm_qp_attr()), RTS's ACK timeout from
 * xr_cm_set_ack_timeout() when it was set.
 *
 * Return: 0, or -EINVAL (no device, no connection yet, an IPoIB Q_Key).
 */
int xr_cm_init_qp_attr(struct xr_cm_id *id, struct xr_cm_qp_attr *attr)
{
	struct xr_ibcm *cm = NULL;
	int ack_timeout = -1;
	int ret = 0;

	mutex_lock(&id->lock);
	if (!id->xdev || (id->qp_type == IB_UVERBS_QPT_UD && id->ps == RDMA_PS_IPOIB)) {
		mutex_unlock(&id->lock);
		return -EINVAL;
	}
	attr->pkey_index = 0;
	attr->port_num = id->port;
	cm = id->ibcm;
	if (cm)
		xr_ibcm_get(cm);
	if (id->ack_timeout_set)
		ack_timeout = id->ack_timeout;
	mutex_unlock(&id->lock);

	if (id->qp_type == IB_UVERBS_QPT_UD) {
		attr->mask = XR_QP_STATE | XR_QP_PKEY_INDEX | XR_QP_PORT | XR_QP_QKEY;
		attr->qkey = XR_CMA_UDP_QKEY;
		goto out;
	}
	/* The connection's: taken without the id's lock (its events take it). */
	if (cm)
		ret = xr_ibcm_qp_attr(cm, &attr->qp);
	switch (attr->qp_state) {
	case XR_QPS_INIT:
		attr->mask = XR_QP_STATE | XR_QP_PKEY_INDEX | XR_QP_PORT | XR_QP_ACCESS_FLAGS;
		attr->qp_access_flags = 0;
		if (cm && !ret)
			attr->qp_access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE |
				(attr->qp.responder_resources ? IB_UVERBS_ACCESS_REMOTE_READ |
				 IB_UVERBS_ACCESS_REMOTE_ATOMIC : 0);
		ret = 0;
		break;
	case XR_QPS_RTR:
		if (!cm && !ret)
			ret = -EINVAL;
		attr->mask = XR_QP_STATE | XR_QP_AV | XR_QP_PATH_MTU | XR_QP_DEST_QPN |
			     XR_QP_RQ_PSN | XR_QP_MAX_DEST_RD_ATOMIC | XR_QP_MIN_RNR_TIMER;
		break;
	case XR_QPS_RTS:
		if (!cm && !ret)
			ret = -EINVAL;
		attr->mask = XR_QP_STATE | XR_QP_SQ_PSN | XR_QP_TIMEOUT | XR_QP_RETRY_CNT |
			     XR_QP_RNR_RETRY | XR_QP_MAX_QP_RD_ATOMIC;
		if (ack_timeout >= 0)
			attr->qp.ack_timeout = ack_timeout;	/* the owner's, as Linux */
		break;
	default:
		ret = -EINVAL;
	}
out:
	if (cm)
		xr_ibcm_put(cm);
	return ret;
}

/* Linux's rdma_cm constants: IBTA time exponents and the REQ's retries. */
#define XR_CMA_CM_RESPONSE_TIMEOUT	20
#define XR_CMA_MAX_CM_RETRIES		15
#define XR_CMA_PACKET_LIFE_TIME		16
#define XR_CMA_HDR_LEN			36	/* struct cma_hdr */

/*
 * The RDMA CM's header in a REQ's private data, as Linux's cma_format_hdr()
 * writes it: version 0, the IP version in the high nibble, the source
 * port, then source and destination addresses (IPv4 in the last 4 bytes).
 */
static void xr_cma_hdr(const struct xr_cm_id *id, u8 *h)
{
	const struct sockaddr *src = (const struct sockaddr *)&id->src;
	const struct sockaddr *dst = (const struct sockaddr *)&id->dst;

	memset(h, 0, XR_CMA_HDR_LEN);
	h[1] = (src->sa_family == AF_INET ? 4 : 6) << 4;
	put_unaligned_be16(xr_sa_port(src), h + 2);
	if (src->sa_family == AF_INET) {
		memcpy(h + 4 + 12, &((const struct sockaddr_in *)src)->sin_addr, 4);
		memcpy(h + 20 + 12, &((const struct sockaddr_in *)dst)->sin_addr, 4);
	} else {
		memcpy(h + 4, &((const struct sockaddr_in6 *)src)->sin6_addr, 16);
		memcpy(h + 20, &((const struct sockaddr_in6 *)dst)->sin6_addr, 16);
	}
}

/* A UD id's address vector to @dgid (a service or a group), under its lock. */
static void xr_cma_ud_ah(const struct xr_cm_id *id, const u8 *dgid, u8 hop_limit,
			 struct xr_cm_event *ev)
{
	memcpy(ev->ah.dgid, dgid, 16);
	ev->ah.sgid_index = id->sgid_index;
	ev->ah.hop_limit = hop_limit;
	ev->ah.traffic_class = id->tos;
}

/* What its IB CM connection tells an id (from the CM's work, under its lock). */
static void xr_cma_ibcm_handler(void *context, const struct xr_cm_event *ev)
{
	struct xr_cm_id *id = context;
	struct xr_cm_event e;

	mutex_lock(&id->lock);
	/*
	 * As Linux: a rejected or unreachable id stays in CONNECT (its owner
	 * destroys it), a connected one too; a disconnected one is in
	 * DISCONNECT, and hears TIMEWAIT_EXIT there (its QP may be used
	 * again).
	 */
	if (ev->event == XR_CM_EVENT_TIMEWAIT_EXIT) {
		if (id->state == XR_CM_DISCONNECT)
			xr_cma_deliver(id, ev);
	} else if (ev->event == XR_CM_EVENT_DISCONNECTED &&
	    (id->state == XR_CM_CONNECT || id->state == XR_CM_DISCONNECT)) {
		id->state = XR_CM_DISCONNECT;
		xr_cma_deliver(id, ev);
	} else if (id->state == XR_CM_CONNECT && id->qp_type == IB_UVERBS_QPT_UD &&
		   ev->event == XR_CM_EVENT_ESTABLISHED && ev->qkey != XR_CMA_UDP_QKEY) {
		/* As Linux: a Q_Key other than the one the id's QP took. */
		xr_cma_event(id, XR_CM_EVENT_ADDR_ERROR, -EINVAL);
	} else if (id->state == XR_CM_CONNECT && id->qp_type == IB_UVERBS_QPT_UD &&
		   ev->event == XR_CM_EVENT_ESTABLISHED) {
		/* The service's address vector: the id's route, as Linux's. */
		e = *ev;
		xr_cma_ud_ah(id, id->dgid, id->hop_limit, &e);
		xr_cma_deliver(id, &e);
	} else if (id->state == XR_CM_CONNECT) {
		xr_cma_deliver(id, ev);
	}
	mutex_unlock(&id->lock);
}

/**
 * xr_cm_connect - ask the destination of an id for a connection, or a UD
 *	id for the destination's service
 * @id: an id in ROUTE_RESOLVED
 * @cp: the QP and its parameters, up to 56 bytes of private data (a UD
 *	id's: 180, and only those)
 *
 * Sends IB CM's REQ (a UD id's: SIDR_REQ) to the service of the
 * destination's port in the id's port space.  Its end comes as an event:
 * REJECTED (the reason in status, the REJ's private data) or UNREACHABLE
 * (no answer after the retries; for SIDR also the SIDR_REP's status).
 * Accepted connections (REP, RTU) come next; a UD id gets ESTABLISHED with
 * the service's QP and Q_Key.
 *
 * Return: 0 when the request left, -EINVAL (another state, private data
 * too long), or the send's errno.
 */
int xr_cm_connect(struct xr_cm_id *id, const struct xr_cm_conn_param *cp)
{
	u8 pdata[XR_CMA_HDR_LEN + RDMA_MAX_PRIVATE_DATA];
	struct xr_ibcm_req req = {};
	struct xr_device *xdev;
	struct xr_ibcm *cm;

	bool ud = id->qp_type == IB_UVERBS_QPT_UD;

	mutex_lock(&id->lock);
	if (id->state != XR_CM_ROUTE_RESOLVED ||
	    cp->private_data_len > (ud ? XR_IBCM_SIDR_REQ_PRIVATE_LEN : XR_IBCM_REQ_PRIVATE_LEN) -
				   XR_CMA_HDR_LEN) {
		mutex_unlock(&id->lock);
		return -EINVAL;
	}
	xr_cma_hdr(id, pdata);
	memcpy(pdata + XR_CMA_HDR_LEN, cp->private_data, cp->private_data_len);
	req = (struct xr_ibcm_req){
		.port = id->port,
		.ah = {
			.sgid_index = id->sgid_index, .hop_limit = id->hop_limit,
			.traffic_class = id->tos, .remote_qpn = 1, .remote_qkey = XR_GSI_QKEY,
		},
		.service_id = (u64)id->ps << 16 | xr_sa_port((const struct sockaddr *)&id->dst),
		.qpn = cp->qp_num,
		.starting_psn = get_random_u32() & 0xffffff,
		.responder_resources = cp->responder_resources,
		.initiator_depth = cp->initiator_depth,
		.flow_control = cp->flow_control,
		.retry_count = min_t(u8, cp->retry_count, 7),
		.rnr_retry_count = min_t(u8, cp->rnr_retry_count, 7),
		.srq = cp->srq,
		.mtu = id->mtu,
		.packet_life_time = XR_CMA_PACKET_LIFE_TIME,
		.remote_cm_response_timeout = XR_CMA_CM_RESPONSE_TIMEOUT,
		.local_cm_response_timeout = XR_CMA_CM_RESPONSE_TIMEOUT,
		.max_cm_retries = XR_CMA_MAX_CM_RETRIES,
		.private_data = pdata,
		.private_data_len = XR_CMA_HDR_LEN + cp->private_data_len,
	};
	memcpy(req.ah.dgid, id->dgid, 16);
	ether_addr_copy(req.ah.dmac, id->dmac);
	memcpy(req.sgid, id->sgid, 16);
	id->state = XR_CM_CONNECT;
	id->qp_num = cp->qp_num;
	/* Ours while the id's lock is not held (the device may be going). */
	xdev = id->xdev;
	refcount_inc(&xdev->users);
	mutex_unlock(&id->lock);

	/*
	 * Without the id's lock: the connection's events take it under the
	 * connection's.  Only this file's commands destroy the id, and they
	 * wait for this one.
	 */
	if (ud)
		cm = xr_ibcm_sidr_req(xdev, &req, xr_cma_ibcm_handler, id);
	else
		cm = xr_ibcm_connect(xdev, &req, xr_cma_ibcm_handler, id);
	xr_device_put(xdev);
	mutex_lock(&id->lock);
	if (IS_ERR(cm)) {
		if (id->state == XR_CM_CONNECT)
			id->state = XR_CM_ROUTE_RESOLVED;
		mutex_unlock(&id->lock);
		return PTR_ERR(cm);
	}
	if (id->state == XR_CM_CONNECT) {
		id->ibcm = cm;
		cm = NULL;
	}
	mutex_unlock(&id->lock);
	/* The device went meanwhile: the attempt goes too. */
	if (cm)
		xr_ibcm_destroy(cm);
	return 0;
}

/* The id's connection with a reference, if it is in @state: taken without the id's lock. */
static struct xr_ibcm *xr_cma_ibcm(struct xr_cm_id *id, enum xr_cm_state state)
{
	struct xr_ibcm *cm = NULL;

	mutex_lock(&id->lock);
	if (id->state == state && id->ibcm) {
		cm = id->ibcm;
		xr_ibcm_get(cm);
	}
	mutex_unlock(&id->lock);
	return cm;
}

/**
 * xr_cm_accept - the passive side accepts a connection request; the active
 *	side, once the REP came and its QP is ready, completes the connection
 * @id: an id in CONNECT
 * @cp: the passive side's QP and its parameters, up to 196 bytes of
 *	private data (the active side's are not used)
 *
 * The passive side gets ESTABLISHED when the RTU comes.  A UD id's request
 * is answered at once with the QP and RDMA_UDP_QKEY (SIDR_REP), up to 136
 * bytes of private data.
 *
 * Return: 0, or -EINVAL (no connection in that stage, private data too
 * long).
 */
int xr_cm_accept(struct xr_cm_id *id, const struct xr_cm_conn_param *cp)
{
	struct xr_ibcm *cm = xr_cma_ibcm(id, XR_CM_CONNECT);
	struct xr_ibcm_rep rep;
	int ret;

	if (!cm)
		return -EINVAL;
	if (id->passive) {
		mutex_lock(&id->lock);
		id->qp_num = cp->qp_num;
		mutex_unlock(&id->lock);
	}
	if (id->qp_type == IB_UVERBS_QPT_UD) {
		ret = !id->passive ? -EINVAL :
		      xr_ibcm_sidr_rep(cm, XR_SIDR_SUCCESS, cp->qp_num, XR_CMA_UDP_QKEY,
				       cp->private_data, cp->private_data_len);
	} else if (!id->passive) {
		ret = xr_ibcm_send_rtu(cm);
	} else {
		rep = (struct xr_ibcm_rep){
			.qpn = cp->qp_num,
			.responder_resources = cp->responder_resources,
			.initiator_depth = cp->initiator_depth, .flow_control = cp->flow_control,
			.rnr_retry_count = min_t(u8, cp->rnr_retry_count, 7), .srq = cp->srq,
			.private_data = cp->private_data, .private_data_len = cp->private_data_len,
		};
		ret = xr_ibcm_accept(cm, &rep);
	}
	xr_ibcm_put(cm);
	return ret;
}

/**
 * xr_cm_reject - the passive side refuses a connection request
 * @id: an id of a request, in CONNECT
 * @reason: the IBTA rejection reason (a UD id's SIDR_REP says "rejected")
 * @pdata: up to 148 bytes for the peer (a UD id's: 136)
 * @len: their length
 *
 * Return: 0 or -EINVAL.
 */
int xr_cm_reject(struct xr_cm_id *id, u16 reason, const void *pdata, u8 len)
{
	struct xr_ibcm *cm = xr_cma_ibcm(id, XR_CM_CONNECT);
	int ret;

	if (!cm)
		return -EINVAL;
	if (!id->passive)
		ret = -EINVAL;
	else if (id->qp_type == IB_UVERBS_QPT_UD)
		ret = xr_ibcm_sidr_rep(cm, XR_SIDR_REJECT, 0, 0, pdata, len);
	else
		ret = xr_ibcm_reject(cm, reason, pdata, len);
	xr_ibcm_put(cm);
	return ret;
}

/**
 * xr_cm_disconnect - end a connection (DREQ)
 * @id: an id that asked for or took a connection
 *
 * DISCONNECTED follows when the peer answers, or after the retries.  As
 * Linux's rdma_disconnect(), it succeeds whatever state the connection is
 * in: only an established one sends a DREQ; one that is being set up,
 * was refused or is ending already has nothing to send (so both ends may
 * call it, in either order).
 *
 * Return: 0, or -EINVAL for an id that never asked for or took a
 * connection.
 */
int xr_cm_disconnect(struct xr_cm_id *id)
{
	struct xr_ibcm *cm = NULL;
	int ret = 0;

	mutex_lock(&id->lock);
	if (id->state != XR_CM_CONNECT && id->state != XR_CM_DISCONNECT)
		ret = -EINVAL;
	else if (id->ibcm)
		cm = id->ibcm;
	if (cm)
		xr_ibcm_get(cm);
	mutex_unlock(&id->lock);
	if (!cm)
		return ret;
	if (!xr_ibcm_disconnect(cm)) {
		mutex_lock(&id->lock);
		if (id->state == XR_CM_CONNECT)
			id->state = XR_CM_DISCONNECT;
		mutex_unlock(&id->lock);
	}
	xr_ibcm_put(cm);
	return 0;
}

/* enum ib_event_type: what rdma_notify() passes. */
#define XR_IB_EVENT_COMM_EST	4
#define XR_IB_EVENT_LID_CHANGE	11

/**
 * xr_cm_notify - an event of an id's QP that its connection needs (rdma_notify)
 * @id: the id
 * @event: IB_EVENT_COMM_EST: the passive side's QP received before the RTU
 *	came (established, as if it came); IB_EVENT_LID_CHANGE: nothing to do
 *
 * Return: 0 (also for an id with no connection, as Linux), -EISCONN
 * (established already), or -EINVAL (another event or state).
 */
int xr_cm_notify(struct xr_cm_id *id, u32 event)
{
	struct xr_ibcm *cm = xr_cma_ibcm(id, XR_CM_CONNECT);
	int ret;

	if (!cm)
		return 0;
	switch (event) {
	case XR_IB_EVENT_COMM_EST:
		ret = id->qp_type == IB_UVERBS_QPT_RC ? xr_ibcm_establish(cm) : -EINVAL;
		break;
	case XR_IB_EVENT_LID_CHANGE:
		ret = 0;
		break;
	default:
		ret = -EINVAL;
	}
	xr_ibcm_put(cm);
	return ret;
}

/*
 * Whether listener @l takes a REQ (@qp_type RC) or SIDR_REQ (UD) for
 * @service_id to @dst (its header's) on @xdev.
 */
static bool xr_cma_listens(const struct xr_cm_id *l, struct xr_device *xdev, u8 qp_type,
			   u64 service_id, const struct sockaddr *dst)
{
	const struct sockaddr *src = (const struct sockaddr *)&l->src;

	if (l->state != XR_CM_LISTEN || l->qp_type != qp_type ||
	    ((u64)l->ps << 16 | xr_sa_port(src)) != service_id || (l->xdev && l->xdev != xdev))
		return false;
	if (xr_sa_any(src))
		return !l->afonly || src->sa_family == dst->sa_family;
	return xr_sa_same_addr(src, dst);
}

/*
 * The addresses of a REQ's RDMA CM header (Linux's struct cma_hdr): the
 * requester's as @src, the one it asked for as @dst; -EINVAL for a header
 * of another version.
 */
static int xr_cma_hdr_addrs(const u8 *h, struct sockaddr_storage *src,
			    struct sockaddr_storage *dst)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)src, *d6 = (struct sockaddr_in6 *)dst;
	struct sockaddr_in *s4 = (struct sockaddr_in *)src, *d4 = (struct sockaddr_in *)dst;

	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if (h[0] != 0)
		return -EINVAL;
	switch (h[1] >> 4) {
	case 4:
		s4->sin_family = AF_INET;
		d4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, h + 4 + 12, 4);
		memcpy(&d4->sin_addr, h + 20 + 12, 4);
		s4->sin_port = *(const __be16 *)(h + 2);
		return 0;
	case 6:
		s6->sin6_family = AF_INET6;
		d6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, h + 4, 16);
		memcpy(&d6->sin6_addr, h + 20, 16);
		s6->sin6_port = *(const __be16 *)(h + 2);
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * xr_cma_req - a connection request came: give it to a listener
 * @xdev: the device it came in on
 * @cm: its IB CM connection (REQ_RCVD or SIDR_REQ_RCVD), which the new id
 *	takes over
 * @r: the REQ or SIDR_REQ (for a UD listener)
 *
 * A listener of the service (the port space and port in the service ID)
 * bound to the address the requester asked for, or to a wildcard, gets
 * CONNECT_REQUEST on a new id in CONNECT, whose addresses are the
 * request's, with the requester's private data after the RDMA CM header.
 *
 * Return: 0 (the new id owns @cm), or -ENOENT when nobody listens (the CM
 * rejects it) or -ENOMEM.
 */
static int xr_cma_req(struct xr_device *xdev, struct xr_ibcm *cm,
		      const struct xr_ibcm_req_rcvd *r)
{
	u8 qp_type = r->ud ? IB_UVERBS_QPT_UD : IB_UVERBS_QPT_RC;
	struct xr_cm_event ev = {
		.event = XR_CM_EVENT_CONNECT_REQUEST,
		.private_data = r->private_data + XR_CMA_HDR_LEN,
		.private_data_len = r->private_data_len - XR_CMA_HDR_LEN,
		.responder_resources = r->responder_resources,
		.initiator_depth = r->initiator_depth, .flow_control = r->flow_control,
		.retry_count = r->retry_count, .rnr_retry_count = r->rnr_retry_count,
		.srq = r->srq, .qp_num = r->qpn,
	};
	struct sockaddr_storage src, dst;
	struct xr_cm_id *l = NULL, *id;
	struct xr_ibcm_qp qp;
	struct xr_port_attr pa;
	int ret;

	if (xr_cma_hdr_addrs(r->private_data, &src, &dst) || xr_ibcm_qp_attr(cm, &qp))
		return -ENOENT;
	mutex_lock(&xr_cma_lock);
	list_for_each_entry(id, &xr_cma_ids, list) {
		if (xr_cma_listens(id, xdev, qp_type, r->service_id, (struct sockaddr *)&dst)) {
			l = id;
			kref_get(&l->ref);
			break;
		}
	}
	mutex_unlock(&xr_cma_lock);
	if (!l)
		return -ENOENT;

	mutex_lock(&l->lock);
	ret = -ENOENT;
	if (l->state != XR_CM_LISTEN)
		goto out;
	id = xr_cm_create_id(l->net, l->handler, l->context, l->ps, qp_type);
	ret = PTR_ERR_OR_ZERO(id);
	if (ret)
		goto out;
	/* The listener's process owns it, as Linux's restrack has it. */
	put_pid(id->owner);
	id->owner = get_pid(l->owner);
	mutex_lock_nested(&id->lock, SINGLE_DEPTH_NESTING);
	refcount_inc(&xdev->users);
	ret = xr_cma_attach(id, xdev, r->port);
	if (!ret)
		ret = xr_query_port(xdev, r->port, &pa);
	if (ret) {
		mutex_unlock(&id->lock);
		mutex_unlock(&l->lock);
		xr_cma_put(l);
		xr_cm_destroy_id(id);
		return ret;
	}
	/* Its addresses are the request's: ours asked for, the requester's. */
	xr_sa_set_port((struct sockaddr *)&dst, xr_sa_port((struct sockaddr *)&l->src));
	id->src = dst;
	id->dst = src;
	memcpy(id->sgid, r->sgid, 16);
	memcpy(id->dgid, r->dgid, 16);
	id->sgid_index = qp.sgid_index;
	id->hop_limit = qp.hop_limit;
	id->mtu = min_t(u8, qp.mtu, pa.active_mtu);
	id->route_resolved = true;
	id->passive = true;
	id->state = XR_CM_CONNECT;
	/* The listener's handler gives the new id its own context. */
	ret = xr_cma_deliver(id, &ev);
	if (!ret) {
		id->ibcm = cm;
		xr_ibcm_set_handler(cm, xr_cma_ibcm_handler, id);
	}
	mutex_unlock(&id->lock);
	if (ret) {
		mutex_unlock(&l->lock);
		xr_cma_put(l);
		xr_cm_destroy_id(id);
		return ret;
	}
out:
	mutex_unlock(&l->lock);
	xr_cma_put(l);
	return ret;
}

/* Hop limit of a RoCE v2 group's address vector: Linux's IPV6_DEFAULT_HOPLIMIT. */
#define XR_CMA_MC_HOP_LIMIT	64

/**
 * xr_cm_join_multicast - a UD id joins a multicast group (rdma_join_multicast)
 * @id: a UD id bound to a device (ADDR_BOUND or ADDR_RESOLVED)
 * @addr: the group's IP address
 * @send_only: a send-only join: the net_device does not join the group
 * @context: the caller's, in the group's event
 *
 * As Linux's rdma_cm for RoCE (no SA to ask): the group's GID is its IP
 * address, the port's net_device joins that address (IGMP or MLD) so that
 * the segment forwards the group's frames, and the id gets MULTICAST_JOIN
 * at once, with the group's Q_Key (RDMA_UDP_QKEY), QP 0xffffff and an
 * address vector to the group.  Attaching the QP is the caller's
 * (librdmacm's, on the event); the id keeps the group until
 * xr_cm_leave_multicast() or its destruction.
 *
 * Return: the group, or an ERR_PTR: -EINVAL (not a multicast address,
 * another state or type), -ENODEV, -ENOMEM, or the IP stack's errno.
 */
struct xr_cm_mc *xr_cm_join_multicast(struct xr_cm_id *id, const struct sockaddr *addr,
				      bool send_only, void *context)
{
	struct xr_cm_event ev = {
		.event = XR_CM_EVENT_MULTICAST_JOIN, .qp_num = 0xffffff,
		.qkey = XR_CMA_UDP_QKEY, .mc_context = context,
	};
	struct net_device *ndev = NULL;
	struct xr_cm_mc *mc;
	int ret = -EINVAL;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return ERR_PTR(-EINVAL);
	mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
	if (!mc)
		return ERR_PTR(-ENOMEM);
	xr_sa_gid(addr, mc->mgid);
	if (!xr_gid_is_mcast(mc->mgid))
		goto err_free;
	mutex_lock(&id->lock);
	if (id->xdev && id->qp_type == IB_UVERBS_QPT_UD &&
	    (id->state == XR_CM_ADDR_BOUND || id->state == XR_CM_ADDR_RESOLVED)) {
		ndev = xr_port_netdev(id->xdev, id->port);
		ret = ndev ? 0 : -ENODEV;
	}
	mutex_unlock(&id->lock);
	if (ret)
		goto err_free;
	/* Without the id's lock: the RTNL is taken. */
	ret = send_only ? 0 : xr_mcast_ip(ndev, mc->mgid, true);
	if (!ret && !send_only)
		mc->ifindex = ndev->ifindex;
	dev_put(ndev);
	if (ret)
		goto err_free;
	mutex_lock(&id->lock);
	if (id->state != XR_CM_ADDR_BOUND && id->state != XR_CM_ADDR_RESOLVED) {
		mutex_unlock(&id->lock);
		xr_cma_mc_free(id->net, mc);	/* destroyed or gone meanwhile */
		return ERR_PTR(-EINVAL);
	}
	list_add_tail(&mc->list, &id->mc_list);
	xr_cma_ud_ah(id, mc->mgid, XR_CMA_MC_HOP_LIMIT, &ev);
	xr_cma_deliver(id, &ev);
	mutex_unlock(&id->lock);
	return mc;

err_free:
	kfree(mc);
	return ERR_PTR(ret);
}

/**
 * xr_cm_leave_multicast - an id leaves a group it joined
 * @id: the id
 * @mc: what xr_cm_join_multicast() gave; freed
 */
void xr_cm_leave_multicast(struct xr_cm_id *id, struct xr_cm_mc *mc)
{
	mutex_lock(&id->lock);
	list_del(&mc->list);
	mutex_unlock(&id->lock);
	xr_cma_mc_free(id->net, mc);
}

/*
 * Whether `rdma res show cm_id` of @xdev shows @id: bound to it, or
 * listening on every device (as Linux's per-device listeners); under
 * xr_cma_lock or the id's lock.
 */
static bool xr_cma_res_of(const struct xr_cm_id *id, const struct xr_device *xdev)
{
	return id->xdev == xdev || (!id->xdev && READ_ONCE(id->state) == XR_CM_LISTEN);
}

/**
 * xr_cma_res_next - the id `rdma res show cm_id` shows next for a device
 * @xdev: the device
 * @idn: the lowest number to look at
 * @r: out: what it shows
 *
 * Context: process context; takes xr_cma_lock and the id's lock.
 * Return: 0, or -ENOENT when no id from @idn on is the device's.
 */
int xr_cma_res_next(struct xr_device *xdev, u32 idn, struct xr_cm_res *r)
{
	struct xr_cm_id *id, *found;
	bool shown;

	for (;;) {
		found = NULL;
		mutex_lock(&xr_cma_lock);
		list_for_each_entry(id, &xr_cma_ids, list) {
			if (id->idn >= idn && xr_cma_res_of(id, xdev)) {
				found = id;
				kref_get(&found->ref);
				break;
			}
		}
		mutex_unlock(&xr_cma_lock);
		if (!found)
			return -ENOENT;
		mutex_lock(&found->lock);
		shown = found->state != XR_CM_DESTROYING && xr_cma_res_of(found, xdev);
		if (shown) {
			*r = (struct xr_cm_res){
				.idn = found->idn, .port = found->xdev ? found->port : 0,
				.qp_num = found->qp_num, .qp_type = found->qp_type,
				.ps = found->ps, .state = found->state,
				.src = found->src, .dst = found->dst,
				.owner = get_pid(found->owner),
			};
		}
		mutex_unlock(&found->lock);
		idn = found->idn + 1;
		xr_cma_put(found);
		if (shown)
			return 0;
		if (!idn)
			return -ENOENT;	/* past the last number */
	}
}

/**
 * xr_cma_res_count - how many ids `rdma res show cm_id` shows for a device
 * @xdev: the device
 *
 * Return: the count.
 */
u64 xr_cma_res_count(struct xr_device *xdev)
{
	struct xr_cm_id *id;
	u64 n = 0;

	mutex_lock(&xr_cma_lock);
	list_for_each_entry(id, &xr_cma_ids, list)
		n += xr_cma_res_of(id, xdev);
	mutex_unlock(&xr_cma_lock);
	return n;
}

/*
 * A device is going (its unregistration began: no id binds to it any
 * more): its ids let go of it.  Each id bound to it gets DEVICE_REMOVAL
 * and is left with no device, in DEVICE_REMOVAL; its owner destroys it.
 * Takes every such id's lock.
 */
static void xr_cma_remove_device(struct xr_device *xdev)
{
	struct xr_cm_id *id, *next;
	LIST_HEAD(gone);

	mutex_lock(&xr_cma_lock);
	list_for_each_entry(id, &xr_cma_ids, list) {
		if (id->xdev == xdev) {
			kref_get(&id->ref);
			list_add_tail(&id->removal, &gone);
		}
	}
	mutex_unlock(&xr_cma_lock);
	list_for_each_entry_safe(id, next, &gone, removal) {
		struct xr_ibcm *cm = NULL;

		mutex_lock(&id->lock);
		if (id->xdev == xdev && id->state != XR_CM_DESTROYING) {
			cm = id->ibcm;
			id->ibcm = NULL;
			xr_cma_detach(id);
			id->state = XR_CM_DEVICE_REMOVAL;
			xr_cma_event(id, XR_CM_EVENT_DEVICE_REMOVAL, 0);
		}
		mutex_unlock(&id->lock);
		/* The attempt holds the device: gone before unregistration waits. */
		if (cm)
			xr_ibcm_destroy(cm);
		list_del(&id->removal);
		xr_cma_put(id);
	}
}

static struct xr_client xr_cma_client = {
	.name = "rdma_cm",
	.remove = xr_cma_remove_device,
};

/* ------------------------------------------- a neighbour's new MAC */

/**
 * struct xr_cma_neigh - a neighbour update, from the notifier to the work
 * @work: on xr_cma_wq
 * @net: the neighbour's namespace, compared only
 * @ifindex: its net_device
 * @addr: its IP address (the port is 0)
 * @ha: its MAC now
 */
struct xr_cma_neigh {
	struct work_struct work;
	struct net *net;
	int ifindex;
	struct sockaddr_storage addr;
	u8 ha[ETH_ALEN];
};

/* Serialises xr_cma_neigh_work(), the only user of xr_cm_id.neigh_node. */
static DEFINE_MUTEX(xr_cma_neigh_lock);

/* The id's destination is @n's neighbour, which now has another MAC. */
static bool xr_cma_neigh_moved(const struct xr_cm_id *id, const struct xr_cma_neigh *n)
{
	return id->neigh_watch && net_eq(id->net, n->net) && id->ifindex == n->ifindex &&
	       xr_sa_same_addr((const struct sockaddr *)&id->dst,
			       (const struct sockaddr *)&n->addr) &&
	       !ether_addr_equal(id->dmac, n->ha);
}

/*
 * Each id whose route went to the neighbour hears UNREACHABLE, -ETIMEDOUT,
 * whatever its state but DESTROYING and DEVICE_REMOVAL, as from Linux
 * 6.1's cma_netevent_work_handler(); its owner decides what to do.
 */
static void xr_cma_neigh_work(struct work_struct *work)
{
	struct xr_cma_neigh *n = container_of(work, struct xr_cma_neigh, work);
	struct xr_cm_id *id, *next;
	LIST_HEAD(moved);

	mutex_lock(&xr_cma_neigh_lock);
	mutex_lock(&xr_cma_lock);
	list_for_each_entry(id, &xr_cma_ids, list) {
		if (xr_cma_neigh_moved(id, n)) {
			kref_get(&id->ref);
			list_add_tail(&id->neigh_node, &moved);
		}
	}
	mutex_unlock(&xr_cma_lock);
	list_for_each_entry_safe(id, next, &moved, neigh_node) {
		mutex_lock(&id->lock);
		if (id->state != XR_CM_DEVICE_REMOVAL)
			xr_cma_event(id, XR_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
		mutex_unlock(&id->lock);
		list_del(&id->neigh_node);
		xr_cma_put(id);
	}
	mutex_unlock(&xr_cma_neigh_lock);
	kfree(n);
}

/* A neighbour changed (atomic context): the ids are looked at in a work. */
static int xr_cma_netevent(struct notifier_block *nb, unsigned long event, void *ctx)
{
	struct neighbour *neigh = ctx;
	struct xr_cma_neigh *n;

	if (event != NETEVENT_NEIGH_UPDATE || neigh->dev->addr_len != ETH_ALEN ||
	    (neigh->tbl->family != AF_INET && neigh->tbl->family != AF_INET6))
		return NOTIFY_DONE;
	n = kzalloc(sizeof(*n), GFP_ATOMIC);
	if (!n)
		return NOTIFY_DONE;
	INIT_WORK(&n->work, xr_cma_neigh_work);
	n->net = dev_net(neigh->dev);
	n->ifindex = neigh->dev->ifindex;
	n->addr.ss_family = neigh->tbl->family;
	if (neigh->tbl->family == AF_INET)
		memcpy(&((struct sockaddr_in *)&n->addr)->sin_addr, neigh->primary_key, 4);
	else
		memcpy(&((struct sockaddr_in6 *)&n->addr)->sin6_addr, neigh->primary_key, 16);
	neigh_ha_snapshot(n->ha, neigh, neigh->dev);
	queue_work(xr_cma_wq, &n->work);
	return NOTIFY_DONE;
}

static struct notifier_block xr_cma_netevent_nb = {
	.notifier_call = xr_cma_netevent,
};

/**
 * xr_cma_init - start the RDMA CM
 *
 * Return: 0 or a negative errno.
 */
int xr_cma_init(void)
{
	int ret;

	/* Unbound: one id waiting for a neighbour holds up no other. */
	xr_cma_wq = alloc_workqueue("xrdma_cm", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!xr_cma_wq)
		return -ENOMEM;
	ret = xr_register_client(&xr_cma_client);
	if (ret)
		goto err_destroy_wq;
	register_netevent_notifier(&xr_cma_netevent_nb);
	xr_ibcm_listen(xr_cma_req);
	return 0;

err_destroy_wq:
	destroy_workqueue(xr_cma_wq);
	return ret;
}

/**
 * xr_cma_exit - stop the RDMA CM, with no id left
 */
void xr_cma_exit(void)
{
	xr_ibcm_listen(NULL);
	unregister_netevent_notifier(&xr_cma_netevent_nb);
	xr_unregister_client(&xr_cma_client);
	destroy_workqueue(xr_cma_wq);
}
