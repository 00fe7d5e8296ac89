// SPDX-License-Identifier: GPL-2.0
/*
 * The Ethernet address of a RoCE v2 path, as Linux's rdma_addr finds it:
 * the destination GID is an IP address (IPv4-mapped or IPv6), routed out
 * of the port's net_device, and the next hop's MAC comes from the kernel's
 * neighbour table, asking ARP or neighbour discovery and waiting a bounded
 * time when it is not known yet.  A GID of the port itself needs no
 * neighbour: it is the port's own MAC (loopback).
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/sched/signal.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/neighbour.h>
#include <net/route.h>

#include "core_priv.h"

/* How long a path may wait for ARP or ND, and how often it looks. */
#define XR_RESOLVE_TIMEOUT_MS	3000
#define XR_RESOLVE_POLL_MS	10

/* The route from @ndev to @dgid: its dst, or an ERR_PTR. */
static struct dst_entry *xr_route(struct net_device *ndev, const struct in6_addr *dgid)
{
	struct flowi6 fl6 = { .flowi6_oif = ndev->ifindex, .daddr = *dgid };
	struct dst_entry *dst;
	struct rtable *rt;

	if (ipv6_addr_v4mapped(dgid)) {
		rt = ip_route_output(dev_net(ndev), dgid->s6_addr32[3], 0, 0,
				     ndev->ifindex);
		if (IS_ERR(rt))
			return ERR_CAST(rt);
		dst = &rt->dst;
	} else {
		dst = ip6_route_output(dev_net(ndev), NULL, &fl6);
		if (dst->error) {
			int err = dst->error;

			dst_release(dst);
			return ERR_PTR(err);
		}
	}
	if (dst->dev != ndev) {
		dst_release(dst);
		return ERR_PTR(-ENETUNREACH);
	}
	return dst;
}

/* Wait, bounded, until @n has a valid address; ask for it once. */
static int xr_neigh_wait(struct neighbour *n, u8 *dmac)
{
	unsigned int waited;
	u8 state;

	for (waited = 0; ; waited += XR_RESOLVE_POLL_MS) {
		read_lock_bh(&n->lock);
		state = n->nud_state;
		if (state & NUD_VALID)
			memcpy(dmac, n->ha, ETH_ALEN);
		read_unlock_bh(&n->lock);
		if (state & NUD_VALID)
			return 0;
		if (waited && (state & NUD_FAILED))
			return -EHOSTUNREACH;
		if (waited >= XR_RESOLVE_TIMEOUT_MS)
			return -EHOSTUNREACH;
		if (fatal_signal_pending(current))
			return -EINTR;
		if (!waited)
			neigh_event_send(n, NULL);
		msleep(XR_RESOLVE_POLL_MS);
	}
}

/**
 * xr_resolve_dmac - the next hop's Ethernet address for a path
 * @xdev: the device
 * @port: its port, from 1
 * @sgid_index: the path's source GID, which must be in the port's table
 * @dgid: the destination GID
 * @dmac: out: the Ethernet address
 *
 * Context: process context; may sleep up to XR_RESOLVE_TIMEOUT_MS.
 *
 * Return: 0, -EINVAL for an empty source GID, -ENODEV when the port has
 * no net_device, -EHOSTUNREACH or -ENETUNREACH when there is no route or
 * no neighbour answers, or -EINTR.
 */
int xr_resolve_dmac(struct xr_device *xdev, u32 port, u8 sgid_index,
		    const u8 *dgid, u8 dmac[ETH_ALEN])
{
	struct net_device *ndev;
	struct dst_entry *dst;
	struct neighbour *n;
	struct in6_addr daddr;
	u8 sgid[16];
	int ret;

	if (xr_query_gid(xdev, port, sgid_index, sgid, NULL))
		return -EINVAL;
	ndev = xr_port_netdev(xdev, port);
	if (!ndev)
		return -ENODEV;
	if (xr_gid_is_local(xdev, port, dgid)) {
		ether_addr_copy(dmac, ndev->dev_addr);
		ret = 0;
		goto out;
	}
	memcpy(daddr.s6_addr, dgid, 16);
	/* A group's frames go to its IP multicast MAC: no route, no neighbour. */
	if (xr_gid_is_mcast(dgid)) {
		if (ipv6_addr_v4mapped(&daddr))
			ip_eth_mc_map(daddr.s6_addr32[3], dmac);
		else
			ipv6_eth_mc_map(&daddr, dmac);
		ret = 0;
		goto out;
	}
	dst = xr_route(ndev, &daddr);
	if (IS_ERR(dst)) {
		ret = PTR_ERR(dst) == -ENETUNREACH ? -ENETUNREACH : -EHOSTUNREACH;
		goto out;
	}
	n = ipv6_addr_v4mapped(&daddr) ?
		dst_neigh_lookup(dst, &daddr.s6_addr32[3]) :
		dst_neigh_lookup(dst, &daddr);
	if (n) {
		ret = xr_neigh_wait(n, dmac);
		neigh_release(n);
	} else {
		ret = -EHOSTUNREACH;
	}
	dst_release(dst);
out:
	dev_put(ndev);
	return ret;
}
