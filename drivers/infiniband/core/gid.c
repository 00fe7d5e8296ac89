// SPDX-License-Identifier: GPL-2.0
/*
 * The GID table of a RoCE v2 port, built as Linux builds it from the
 * port's net_device (xr_set_netdev()): the default GID (fe80::/64 with the
 * EUI-64 of the MAC), then one GID per IP address of the net_device, IPv4
 * ones mapped (::ffff:a.b.c.d).  Address and net_device events anywhere
 * schedule one rescan of every port; an entry keeps its index while its
 * address stays, since QPs name their source GID by index.  A port without
 * a net_device has the default GID of the device's MAC only.  A driver
 * with a set_gid op hears of every change, as ib_core's add_gid/del_gid.
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/if_inet6.h>

#include "core_priv.h"

/* The GIDs a port should have, in the order they take free entries. */
struct xr_gid_set {
	u32 n;
	u8 gid[XR_GID_TBL_LEN][16];
};

static void xr_gid_set_add(struct xr_gid_set *set, const u8 *gid)
{
	u32 i;

	for (i = 0; i < set->n; i++)
		if (!memcmp(set->gid[i], gid, 16))
			return;
	if (set->n < XR_GID_TBL_LEN)
		memcpy(set->gid[set->n++], gid, 16);
}

static bool xr_gid_set_has(const struct xr_gid_set *set, const u8 *gid)
{
	u32 i;

	for (i = 0; i < set->n; i++)
		if (!memcmp(set->gid[i], gid, 16))
			return true;
	return false;
}

static void xr_default_gid(const u8 *mac, u8 *gid)
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	addrconf_addr_eui48(gid + 8, (const char *)mac);
}

/* The IP addresses of @ndev, as GIDs. */
static void xr_gid_set_of_netdev(struct xr_gid_set *set, struct net_device *ndev)
{
	const struct in_ifaddr *ifa;
	struct inet6_ifaddr *ifp;
	struct inet6_dev *in6_dev;
	struct in_device *in_dev;
	struct in6_addr mapped;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			ipv6_addr_set_v4mapped(ifa->ifa_address, &mapped);
			xr_gid_set_add(set, mapped.s6_addr);
		}
	}
	rcu_read_unlock();

	in6_dev = in6_dev_get(ndev);
	if (!in6_dev)
		return;
	read_lock_bh(&in6_dev->lock);
	/* Tentative ones too, as Linux: no event follows the end of DAD. */
	list_for_each_entry(ifp, &in6_dev->addr_list, if_list)
		xr_gid_set_add(set, ifp->addr.s6_addr);
	read_unlock_bh(&in6_dev->lock);
	in6_dev_put(in6_dev);
}

/* Tell the driver about entry @index of port @port (under gid_lock). */
static void xr_gid_changed(struct xr_device *xdev, u32 port, u32 index,
			   const struct xr_gid_entry *e)
{
	int ret;

	if (!xdev->ops->set_gid)
		return;
	ret = xdev->ops->set_gid(xdev, port, index, e->valid ? e->gid : NULL);
	/* A dead device (-EIO) sends nothing any more. */
	if (ret && ret != -EIO)
		dev_warn_ratelimited(&xdev->dev,
				     "port %u GID %u not given to the device: %d\n",
				     port, index, ret);
}

/* Bring one port's table in line with its net_device. */
static void xr_gid_resync(struct xr_device *xdev, struct xr_port_gids *pg)
{
	u32 port = pg - xdev->port_gids + 1;
	struct xr_gid_set *set;
	u8 gid[16];
	u32 i, j;

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return;
	mutex_lock(&xdev->gid_lock);
	if (pg->netdev && pg->netdev->reg_state != NETREG_REGISTERED) {
		netdev_put(pg->netdev, &pg->tracker);
		pg->netdev = NULL;
	}
	xr_default_gid(pg->netdev ? pg->netdev->dev_addr : xdev->mac, gid);
	xr_gid_set_add(set, gid);
	if (pg->netdev)
		xr_gid_set_of_netdev(set, pg->netdev);

	for (i = 0; i < XR_GID_TBL_LEN; i++)
		if (pg->entry[i].valid && !xr_gid_set_has(set, pg->entry[i].gid)) {
			pg->entry[i].valid = false;
			xr_gid_changed(xdev, port, i, &pg->entry[i]);
		}
	for (j = 0; j < set->n; j++) {
		for (i = 0; i < XR_GID_TBL_LEN; i++)
			if (pg->entry[i].valid &&
			    !memcmp(pg->entry[i].gid, set->gid[j], 16))
				break;
		if (i < XR_GID_TBL_LEN)
			continue;
		for (i = 0; i < XR_GID_TBL_LEN && pg->entry[i].valid; i++)
			;
		if (i == XR_GID_TBL_LEN) {
			dev_warn_ratelimited(&xdev->dev, "GID table full: %pI6 left out\n",
					     set->gid[j]);
			continue;
		}
		memcpy(pg->entry[i].gid, set->gid[j], 16);
		pg->entry[i].valid = true;
		xr_gid_changed(xdev, port, i, &pg->entry[i]);
	}
	mutex_unlock(&xdev->gid_lock);
	kfree(set);
}

/*
 * The devices with GID tables, from xr_gid_table_init() to
 * xr_gid_table_destroy(): a rescan reaches every one of them, and a table
 * is not freed while a rescan uses it.
 */
static DEFINE_MUTEX(xr_gid_devices_lock);	/* protects xr_gid_devices */
static LIST_HEAD(xr_gid_devices);

static void xr_gid_rescan(struct work_struct *work)
{
	struct xr_device *xdev;
	u32 p;

	mutex_lock(&xr_gid_devices_lock);
	list_for_each_entry(xdev, &xr_gid_devices, gid_list)
		for (p = 0; p < xdev->phys_port_cnt; p++)
			xr_gid_resync(xdev, &xdev->port_gids[p]);
	mutex_unlock(&xr_gid_devices_lock);
}

static DECLARE_WORK(xr_gid_rescan_work, xr_gid_rescan);

/**
 * xr_gid_table_init - give a device being registered its GID tables
 * @xdev: the device
 *
 * Return: 0 or -ENOMEM.
 */
int xr_gid_table_init(struct xr_device *xdev)
{
	u32 p;

	xdev->port_gids = kcalloc(xdev->phys_port_cnt, sizeof(*xdev->port_gids),
				  GFP_KERNEL);
	if (!xdev->port_gids)
		return -ENOMEM;
	mutex_init(&xdev->gid_lock);
	mutex_lock(&xr_gid_devices_lock);
	for (p = 0; p < xdev->phys_port_cnt; p++)
		xr_gid_resync(xdev, &xdev->port_gids[p]);
	list_add_tail(&xdev->gid_list, &xr_gid_devices);
	mutex_unlock(&xr_gid_devices_lock);
	return 0;
}

/**
 * xr_gid_table_destroy - free a device's GID tables
 * @xdev: an unregistered device, whose ports have no net_device any more
 */
void xr_gid_table_destroy(struct xr_device *xdev)
{
	u32 p;

	mutex_lock(&xr_gid_devices_lock);
	list_del(&xdev->gid_list);
	mutex_unlock(&xr_gid_devices_lock);
	for (p = 0; p < xdev->phys_port_cnt; p++)
		if (xdev->port_gids[p].netdev)
			netdev_put(xdev->port_gids[p].netdev,
				   &xdev->port_gids[p].tracker);
	kfree(xdev->port_gids);
	xdev->port_gids = NULL;
}

/**
 * xr_set_netdev - name the net_device of a port, or none
 * @xdev: a registered device
 * @port: the port, from 1
 * @ndev: its Ethernet function, or NULL
 *
 * The port's GID table follows @ndev's addresses from now on, and RDMA
 * netlink reports it.  A driver clears it before it unregisters @ndev.
 *
 * Return: 0 or -EINVAL for a port that does not exist.
 */
int xr_set_netdev(struct xr_device *xdev, u32 port, struct net_device *ndev)
{
	struct xr_port_gids *pg;

	if (port < 1 || port > xdev->phys_port_cnt)
		return -EINVAL;
	pg = &xdev->port_gids[port - 1];
	mutex_lock(&xdev->gid_lock);
	if (pg->netdev)
		netdev_put(pg->netdev, &pg->tracker);
	pg->netdev = ndev;
	if (ndev)
		netdev_hold(ndev, &pg->tracker, GFP_KERNEL);
	mutex_unlock(&xdev->gid_lock);
	xr_gid_resync(xdev, pg);
	return 0;
}
EXPORT_SYMBOL_GPL(xr_set_netdev);

/**
 * xr_query_gid - read one entry of a port's GID table
 * @xdev: the device
 * @port: port number, from 1
 * @index: entry, 0 .. XR_GID_TBL_LEN - 1
 * @gid: out: the GID, 16 bytes in network order
 * @ndev_name: out, if not NULL: the entry's net_device, or "" for none
 *
 * Return: 0, or -EINVAL for an empty entry or an index beyond the table.
 */
int xr_query_gid(struct xr_device *xdev, u32 port, u32 index, u8 gid[16],
		 char ndev_name[IFNAMSIZ])
{
	struct xr_port_gids *pg;
	int ret = -EINVAL;

	if (port < 1 || port > xdev->phys_port_cnt || index >= XR_GID_TBL_LEN)
		return -EINVAL;
	pg = &xdev->port_gids[port - 1];
	mutex_lock(&xdev->gid_lock);
	if (pg->entry[index].valid) {
		memcpy(gid, pg->entry[index].gid, 16);
		if (ndev_name)
			strscpy(ndev_name, pg->netdev ? pg->netdev->name : "",
				IFNAMSIZ);
		ret = 0;
	}
	mutex_unlock(&xdev->gid_lock);
	return ret;
}

/**
 * xr_find_gid - the index of a GID in a port's table
 * @xdev: the device
 * @port: port number, from 1
 * @gid: the GID, 16 bytes in network order
 *
 * Context: process context; takes gid_lock once.
 *
 * Return: the index of the valid entry of port @port that holds @gid, or
 * -ENOENT.
 */
int xr_find_gid(struct xr_device *xdev, u32 port, const u8 *gid)
{
	struct xr_port_gids *pg;
	int found = -ENOENT;
	u32 i;

	if (port < 1 || port > xdev->phys_port_cnt)
		return -ENOENT;
	pg = &xdev->port_gids[port - 1];
	mutex_lock(&xdev->gid_lock);
	for (i = 0; i < XR_GID_TBL_LEN && found < 0; i++)
		if (pg->entry[i].valid && !memcmp(pg->entry[i].gid, gid, 16))
			found = i;
	mutex_unlock(&xdev->gid_lock);
	return found;
}

/**
 * xr_gid_is_local - whether a GID is in a port's table
 * @xdev: the device
 * @port: port number, from 1
 * @gid: the GID, 16 bytes in network order
 *
 * Return: true when a valid entry of port @port holds @gid.
 */
bool xr_gid_is_local(struct xr_device *xdev, u32 port, const u8 *gid)
{
	return xr_find_gid(xdev, port, gid) >= 0;
}

/**
 * xr_port_netdev - the net_device of a port, with a reference
 * @xdev: the device
 * @port: port number, from 1
 *
 * Return: the net_device (dev_put() it), or NULL.
 */
struct net_device *xr_port_netdev(struct xr_device *xdev, u32 port)
{
	struct net_device *ndev = NULL;

	if (port < 1 || port > xdev->phys_port_cnt)
		return NULL;
	mutex_lock(&xdev->gid_lock);
	ndev = xdev->port_gids[port - 1].netdev;
	if (ndev)
		dev_hold(ndev);
	mutex_unlock(&xdev->gid_lock);
	return ndev;
}

/* RoCE v2 headers around a payload: IP (IPv6's GRH), UDP, BTH, the longest extensions, ICRC. */
#define XR_ROCE_OVERHEAD	(40 + 8 + 12 + 4 + 28 + 4)

/* The largest IB MTU code whose packets fit a net_device MTU (as Linux's iboe_get_mtu()). */
static u8 xr_mtu_of_netdev(unsigned int mtu)
{
	unsigned int room = mtu > XR_ROCE_OVERHEAD ? mtu - XR_ROCE_OVERHEAD : 0;
	u8 code = 5;	/* 4096 */

	while (code > 1 && (128u << code) > room)
		code--;
	return code;
}

/**
 * xr_query_port - a port's attributes, its active MTU within its net_device's
 * @xdev: the device
 * @port: port number, from 1
 * @attr: filled in
 *
 * The driver reports what the port can do; its RoCE packets must also fit
 * the MTU of the net_device they leave through, so the active MTU is the
 * smaller of the two, as Linux's RoCE drivers report it (256 at least).
 *
 * Return: 0, or the driver's error.
 */
int xr_query_port(struct xr_device *xdev, u32 port, struct xr_port_attr *attr)
{
	struct net_device *ndev;
	int ret;

	ret = xdev->ops->query_port(xdev, port, attr);
	if (ret)
		return ret;
	ndev = xr_port_netdev(xdev, port);
	if (ndev) {
		attr->active_mtu = min(attr->active_mtu, xr_mtu_of_netdev(READ_ONCE(ndev->mtu)));
		dev_put(ndev);
	}
	return 0;
}

static int xr_gid_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UNREGISTER:
	case NETDEV_UP:
	case NETDEV_CHANGEADDR:
	case NETDEV_CHANGENAME:
		schedule_work(&xr_gid_rescan_work);
		break;
	}
	return NOTIFY_DONE;
}

/* IPv4 (blocking) and IPv6 (atomic) address events: NETDEV_UP, _DOWN. */
static int xr_gid_addr_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	if (event == NETDEV_UP || event == NETDEV_DOWN)
		schedule_work(&xr_gid_rescan_work);
	return NOTIFY_DONE;
}

static struct notifier_block xr_gid_netdev_nb = {
	.notifier_call = xr_gid_netdev_event,
};

static struct notifier_block xr_gid_inet_nb = {
	.notifier_call = xr_gid_addr_event,
};

static struct notifier_block xr_gid_inet6_nb = {
	.notifier_call = xr_gid_addr_event,
};

/**
 * xr_gid_init - follow net_device and address events
 *
 * Return: 0 or a negative errno.
 */
int xr_gid_init(void)
{
	int ret;

	ret = register_netdevice_notifier(&xr_gid_netdev_nb);
	if (ret)
		return ret;
	ret = register_inetaddr_notifier(&xr_gid_inet_nb);
	if (ret)
		goto err_netdev;
	ret = register_inet6addr_notifier(&xr_gid_inet6_nb);
	if (ret)
		goto err_inet;
	return 0;

err_inet:
	unregister_inetaddr_notifier(&xr_gid_inet_nb);
err_netdev:
	unregister_netdevice_notifier(&xr_gid_netdev_nb);
	return ret;
}

/**
 * xr_gid_exit - stop following events
 */
void xr_gid_exit(void)
{
	unregister_inet6addr_notifier(&xr_gid_inet6_nb);
	unregister_inetaddr_notifier(&xr_gid_inet_nb);
	unregister_netdevice_notifier(&xr_gid_netdev_nb);
	flush_work(&xr_gid_rescan_work);
}
