// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast for UD QPs (ibv_attach_mcast), as Linux's ib_attach_mcast: the
 * group's GID must be a multicast address and the QP a UD one; attaching
 * twice is no error.  For RoCE the port's net_device also joins the
 * group's IP address (IGMP or MLD, shown by `ip maddr`), so that the
 * segment forwards the group's frames to the port.  The IP stack counts
 * joins, so each attachment joins once and leaves once.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "core_priv.h"

/**
 * struct xr_mcast - one group a QP is attached to
 * @list: in the QP's mcast_list
 * @gid: the group's GID, network order
 * @ifindex: the net_device that joined the group's address, or 0
 */
struct xr_mcast {
	struct list_head list;
	u8 gid[16];
	int ifindex;
};

/**
 * xr_gid_is_mcast - a GID that names a multicast group
 * @gid: the GID, network order
 *
 * Return: true for ff00::/8 and for IPv4-mapped 224.0.0.0/4 (as Linux's
 * rdma_is_multicast_addr()).
 */
bool xr_gid_is_mcast(const u8 *gid)
{
	struct in6_addr a;

	memcpy(a.s6_addr, gid, sizeof(a.s6_addr));
	if (ipv6_addr_v4mapped(&a))
		return ipv4_is_multicast(a.s6_addr32[3]);
	return ipv6_addr_is_multicast(&a);
}

/**
 * xr_mcast_ip - a net_device joins (or leaves) the IP address of a group
 * @ndev: the net_device
 * @gid: the group's GID (IPv4-mapped for an IPv4 group)
 * @join: join, else leave
 *
 * Context: takes the RTNL.
 * Return: 0, or -ENODEV when @ndev has no IPv4 (or IPv6) device, or the IP
 * stack's errno.
 */
int xr_mcast_ip(struct net_device *ndev, const u8 *gid, bool join)
{
	struct in_device *in_dev;
	struct in6_addr a;
	int ret = 0;

	memcpy(a.s6_addr, gid, sizeof(a.s6_addr));
	rtnl_lock();
	if (!ipv6_addr_v4mapped(&a)) {
		ret = join ? ipv6_dev_mc_inc(ndev, &a) : ipv6_dev_mc_dec(ndev, &a);
	} else {
		in_dev = __in_dev_get_rtnl(ndev);
		if (!in_dev)
			ret = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, a.s6_addr32[3]);
		else
			ip_mc_dec_group(in_dev, a.s6_addr32[3]);
	}
	rtnl_unlock();
	return ret;
}

/**
 * xr_mcast_attach - attach a UD QP to a multicast group
 * @xdev: the device
 * @qp: the QP, whose file's lock the caller holds
 * @gid: the group's multicast GID
 *
 * Return: 0 (also when already attached) or a negative errno.
 */
int xr_mcast_attach(struct xr_device *xdev, struct xr_qp *qp, const u8 *gid)
{
	struct net_device *ndev;
	struct xr_mcast *m;
	int ret;

	list_for_each_entry(m, &qp->mcast_list, list)
		if (!memcmp(m->gid, gid, sizeof(m->gid)))
			return 0;
	ret = xr_user_charge(qp->uobj.ufile, XR_OBJ_MCAST);
	if (ret)
		return ret;
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	memcpy(m->gid, gid, sizeof(m->gid));
	ret = xdev->ops->attach_mcast(xdev, qp, gid);
	if (ret)
		goto err_free;
	ndev = xr_port_netdev(xdev, 1);
	if (ndev) {
		ret = xr_mcast_ip(ndev, gid, true);
		if (!ret)
			m->ifindex = ndev->ifindex;
		dev_put(ndev);
		if (ret)
			goto err_detach;
	}
	list_add_tail(&m->list, &qp->mcast_list);
	return 0;

err_detach:
	xdev->ops->detach_mcast(xdev, qp, gid);
err_free:
	kfree(m);
err_uncharge:
	xr_user_uncharge(qp->uobj.ufile, XR_OBJ_MCAST);
	return ret;
}

/* Detach @qp from the group of @m and free @m; the device's answer. */
static int xr_mcast_del(struct xr_device *xdev, struct xr_qp *qp, struct xr_mcast *m)
{
	struct net_device *ndev;
	int ret;

	ret = xdev->ops->detach_mcast(xdev, qp, m->gid);
	/* The join was the port's net_device's: leave only if it still is. */
	ndev = xr_port_netdev(xdev, 1);
	if (ndev) {
		if (m->ifindex == ndev->ifindex)
			xr_mcast_ip(ndev, m->gid, false);
		dev_put(ndev);
	}
	list_del(&m->list);
	kfree(m);
	xr_user_uncharge(qp->uobj.ufile, XR_OBJ_MCAST);
	return ret;
}

/**
 * xr_mcast_detach - detach a UD QP from a multicast group
 * @xdev: the device
 * @qp: the QP, whose file's lock the caller holds
 * @gid: the group's GID
 *
 * Return: 0, -EINVAL when the QP is not attached to it, or the device's
 * errno (the QP is detached all the same).
 */
int xr_mcast_detach(struct xr_device *xdev, struct xr_qp *qp, const u8 *gid)
{
	struct xr_mcast *m;

	list_for_each_entry(m, &qp->mcast_list, list)
		if (!memcmp(m->gid, gid, sizeof(m->gid)))
			return xr_mcast_del(xdev, qp, m);
	return -EINVAL;
}

/**
 * xr_mcast_detach_all - detach a QP that is being destroyed from every group
 * @xdev: the device
 * @qp: the QP, whose file's lock the caller holds
 */
void xr_mcast_detach_all(struct xr_device *xdev, struct xr_qp *qp)
{
	struct xr_mcast *m, *next;

	list_for_each_entry_safe(m, next, &qp->mcast_list, list)
		xr_mcast_del(xdev, qp, m);
}
