// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA netlink: the NETLINK_RDMA kernel socket and the dispatch of requests
 * to the client each is for.  Clients register their handler here (as
 * Linux's rdma_nl_register()); the one client served is NLDEV (nldev.c).
 * The socket exists in the initial network namespace only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/rwsem.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <uapi/rdma/rdma_netlink.h>

#include "core_priv.h"

/* Opening a NETLINK_RDMA socket loads this module, as it loads ib_core. */
MODULE_ALIAS_NET_PF_PROTO(PF_NETLINK, NETLINK_RDMA);

static struct sock *xr_nls;

/*
 * The handler of each client.  Written under xr_nl_clients_sem held for
 * write; a request is served under it held for read, so that a client
 * that unregisters is called no more once xr_nl_unregister() returns.
 */
static DECLARE_RWSEM(xr_nl_clients_sem);
static xr_nl_rcv_t xr_nl_clients[RDMA_NL_NUM_CLIENTS];

/**
 * xr_nl_register - serve one client's requests with a handler
 * @client: the client (RDMA_NL_NLDEV, ...)
 * @rcv: its handler, called with each request of that client
 *
 * Return: 0, -EINVAL for a client out of range, or -EBUSY if it has one.
 */
int xr_nl_register(unsigned int client, xr_nl_rcv_t rcv)
{
	int ret = 0;

	if (client >= RDMA_NL_NUM_CLIENTS)
		return -EINVAL;
	down_write(&xr_nl_clients_sem);
	if (xr_nl_clients[client])
		ret = -EBUSY;
	else
		xr_nl_clients[client] = rcv;
	up_write(&xr_nl_clients_sem);
	return ret;
}

/**
 * xr_nl_unregister - stop serving a client's requests
 * @client: the client xr_nl_register() was given
 *
 * Waits for a request of that client being served to return.
 */
void xr_nl_unregister(unsigned int client)
{
	if (client >= RDMA_NL_NUM_CLIENTS)
		return;
	down_write(&xr_nl_clients_sem);
	xr_nl_clients[client] = NULL;
	up_write(&xr_nl_clients_sem);
}

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
	unsigned int client = RDMA_NL_GET_CLIENT(nlh->nlmsg_type);
	int ret = -EINVAL;

	down_read(&xr_nl_clients_sem);
	if (client < RDMA_NL_NUM_CLIENTS && xr_nl_clients[client])
		ret = xr_nl_clients[client](skb, nlh, extack);
	else
		NL_SET_ERR_MSG(extack, "no such RDMA netlink client is served");
	up_read(&xr_nl_clients_sem);
	return ret;
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
