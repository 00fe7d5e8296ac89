// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA netlink: the NETLINK_RDMA kernel socket and the dispatch of requests
 * to their client.  The one client served is NLDEV (nldev.c).  The socket
 * exists in the initial network namespace only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <uapi/rdma/rdma_netlink.h>

#include "core_priv.h"

/* Opening a NETLINK_RDMA socket loads this module, as it loads ib_core. */
MODULE_ALIAS_NET_PF_PROTO(PF_NETLINK, NETLINK_RDMA);

static struct sock *xr_nls;

/**
 * xr_nl_unicast - send an answer to the socket that asked
 * @skb: the answer; consumed
 * @portid: the asker's port id
 *
 * Return: 0 or a negative errno.
 */
int xr_nl_unicast(struct sk_buff *skb, u32 portid)
{
	return nlmsg_unicast(xr_nls, skb, portid);
}

static int xr_nl_rcv_msg(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	if (RDMA_NL_GET_CLIENT(nlh->nlmsg_type) != RDMA_NL_NLDEV) {
		NL_SET_ERR_MSG(extack, "only the NLDEV client is served");
		return -EINVAL;
	}
	return xr_nldev_rcv_msg(skb, nlh, extack);
}

static void xr_nl_rcv(struct sk_buff *skb)
{
	netlink_rcv_skb(skb, xr_nl_rcv_msg);
}

/**
 * xr_nl_init - create the NETLINK_RDMA kernel socket
 *
 * Return: 0, or -EBUSY if the socket cannot be created (another module,
 * such as Linux's ib_core, owns the protocol, or memory is short).
 */
int xr_nl_init(void)
{
	struct netlink_kernel_cfg cfg = {
		.input = xr_nl_rcv,
	};

	xr_nls = netlink_kernel_create(&init_net, NETLINK_RDMA, &cfg);
	if (!xr_nls) {
		pr_err("cannot create the NETLINK_RDMA socket; is another RDMA core (ib_core) using the protocol?\n");
		return -EBUSY;
	}
	return 0;
}

/**
 * xr_nl_exit - release the NETLINK_RDMA kernel socket
 */
void xr_nl_exit(void)
{
	netlink_kernel_release(xr_nls);
}
