// SPDX-License-Identifier: GPL-2.0
/*
 * The NLDEV client of RDMA netlink (netlink.c has the socket), as far as
 * iproute2's "rdma" tool and libibverbs' device discovery use it: devices,
 * ports, the system settings, counters, the character device and the
 * resource dumps from resource tracking (restrack.c).
 *
 * The netlink message type is RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op) and the
 * attributes follow.  The answers have the shape Linux's ib_core gives for
 * a RoCE device without a netdev.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/types.h>
#include <linux/kdev_t.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <uapi/rdma/ib_user_ioctl_verbs.h>
#include <uapi/rdma/rdma_netlink.h>
#include <uapi/rdma/rdma_user_cm.h>

#include "core_priv.h"

#define XR_NL_CHARDEV_TYPE_MAX	16

/*
 * Serialises the command handlers, so that a rename never runs while a
 * handler reads the device name.
 */
static DEFINE_MUTEX(xr_nl_mutex);

static const struct nla_policy xr_nl_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME]	= { .type = NLA_NUL_STRING,
					    .len = XR_DEVICE_NAME_MAX - 1 },
	[RDMA_NLDEV_ATTR_PORT_INDEX]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_DIM]	= { .type = NLA_U8 },
	[RDMA_NLDEV_NET_NS_FD]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE]	= { .type = NLA_NUL_STRING,
					    .len = XR_NL_CHARDEV_TYPE_MAX - 1 },
	[RDMA_NLDEV_ATTR_RES_LQPN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CQN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_MRN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_PDN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_RES]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_MODE]	= { .type = NLA_U32 },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK] = { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE] = { .type = NLA_U8 },
};

/*
 * Unknown attributes are ignored, as Linux does for this protocol, but
 * attributes of the wrong size and trailing bytes are errors (reported in
 * the answer rather than in the kernel log).
 */
static int xr_nl_parse(const struct nlmsghdr *nlh, struct nlattr **tb,
		       struct netlink_ext_ack *extack)
{
	return __nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, xr_nl_policy,
			     NL_VALIDATE_STRICT_ATTRS | NL_VALIDATE_TRAILING,
			     extack);
}

static struct xr_device *xr_nl_get_dev(struct nlattr **tb,
				       struct netlink_ext_ack *extack)
{
	struct xr_device *xdev;

	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		NL_SET_ERR_MSG(extack, "device index is missing");
		return ERR_PTR(-EINVAL);
	}
	xdev = xr_device_get_by_index(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	if (!xdev) {
		NL_SET_ERR_MSG(extack, "no device with this index");
		return ERR_PTR(-ENODEV);
	}
	return xdev;
}

/* The port named by the request: 0 if none, or -EINVAL if out of range. */
static int xr_nl_get_port(struct nlattr **tb, struct xr_device *xdev,
			  bool required, struct netlink_ext_ack *extack)
{
	u32 port;

	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		if (!required)
			return 0;
		NL_SET_ERR_MSG(extack, "port index is missing");
		return -EINVAL;
	}
	port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (!port || port > xdev->phys_port_cnt) {
		NL_SET_ERR_MSG(extack, "no such port");
		return -EINVAL;
	}
	return port;
}

static struct nlmsghdr *xr_nl_put_hdr(struct sk_buff *skb, u32 portid,
				      u32 seq, u32 op, int flags)
{
	return nlmsg_put(skb, portid, seq, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op),
			 0, flags);
}

static int xr_nl_put_u64(struct sk_buff *skb, int type, u64 value)
{
	return nla_put_u64_64bit(skb, type, value, RDMA_NLDEV_ATTR_PAD);
}

static int xr_nl_put_handle(struct sk_buff *skb, struct xr_device *xdev)
{
	if (nla_put_u32(skb, RDMA_NLDEV_ATTR_DEV_INDEX, xdev->index) ||
	    nla_put_string(skb, RDMA_NLDEV_ATTR_DEV_NAME, xr_name(xdev)))
		return -EMSGSIZE;
	return 0;
}

/* RDMA_NLDEV_CMD_GET: one device. */
static int xr_nl_fill_dev(struct sk_buff *skb, struct xr_device *xdev,
			  u32 port)
{
	if (xr_nl_put_handle(skb, xdev) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_PORT_INDEX, xdev->phys_port_cnt) ||
	    xr_nl_put_u64(skb, RDMA_NLDEV_ATTR_CAP_FLAGS, 0))
		return -EMSGSIZE;
	if (xdev->fw_ver[0] &&
	    nla_put_string(skb, RDMA_NLDEV_ATTR_FW_VERSION, xdev->fw_ver))
		return -EMSGSIZE;
	if (xr_nl_put_u64(skb, RDMA_NLDEV_ATTR_NODE_GUID, xdev->node_guid) ||
	    xr_nl_put_u64(skb, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
			  xdev->sys_image_guid) ||
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, RDMA_NODE_IB_CA) ||
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_DEV_DIM, 0) ||
	    nla_put_string(skb, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce"))
		return -EMSGSIZE;
	return 0;
}

/*
 * RDMA_NLDEV_CMD_PORT_GET: one port.  A RoCE port, so, like Linux, no
 * IB-only attributes (LID, SM LID, LMC, capability mask); its net_device
 * if it has one.
 */
static int xr_nl_fill_port(struct sk_buff *skb, struct xr_device *xdev,
			   u32 port)
{
	struct xr_port_attr attr = {};
	struct net_device *ndev;
	int ret;

	ret = xr_query_port(xdev, port, &attr);
	if (ret)
		return ret;
	if (xr_nl_put_handle(skb, xdev) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_PORT_INDEX, port) ||
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_PORT_STATE, attr.state) ||
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, attr.phys_state))
		return -EMSGSIZE;
	ndev = xr_port_netdev(xdev, port);
	if (!ndev)
		return 0;
	ret = 0;
	if (nla_put_u32(skb, RDMA_NLDEV_ATTR_NDEV_INDEX, ndev->ifindex) ||
	    nla_put_string(skb, RDMA_NLDEV_ATTR_NDEV_NAME, ndev->name))
		ret = -EMSGSIZE;
	dev_put(ndev);
	return ret;
}

/* RDMA_NLDEV_CMD_RES_GET: how many objects of each kind a device has. */
#define XR_NL_CTX	-2
#define XR_NL_CM_ID	-3
static const struct {
	const char *name;
	int type;	/* enum xr_obj_type, XR_NL_CTX or XR_NL_CM_ID */
} xr_nl_summary[] = {
	{ "pd", XR_OBJ_PD },
	{ "cq", XR_OBJ_CQ },
	{ "qp", XR_OBJ_QP },
	{ "cm_id", XR_NL_CM_ID },
	{ "mr", XR_OBJ_MR },
	{ "ctx", XR_NL_CTX },
	{ "srq", XR_OBJ_SRQ },
};

static int xr_nl_fill_res_summary(struct sk_buff *skb, struct xr_device *xdev,
				  u32 port)
{
	struct nlattr *table, *entry;
	u64 curr;
	int i;

	if (xr_nl_put_handle(skb, xdev))
		return -EMSGSIZE;
	table = nla_nest_start_noflag(skb, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(xr_nl_summary); i++) {
		curr = 0;
		if (xr_nl_summary[i].type >= 0)
			curr = atomic64_read(&xdev->res_count[xr_nl_summary[i].type]);
		else if (xr_nl_summary[i].type == XR_NL_CTX)
			curr = atomic64_read(&xdev->nr_contexts);
		else
			curr = xr_cma_res_count(xdev);
		entry = nla_nest_start_noflag(skb,
					      RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
		if (!entry)
			goto err_cancel;
		if (nla_put_string(skb, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME,
				   xr_nl_summary[i].name) ||
		    xr_nl_put_u64(skb, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR,
				  curr)) {
			nla_nest_cancel(skb, entry);
			goto err_cancel;
		}
		nla_nest_end(skb, entry);
	}
	nla_nest_end(skb, table);
	return 0;

err_cancel:
	nla_nest_cancel(skb, table);
	return -EMSGSIZE;
}

/* The hardware counters of @xdev, in a new array to kfree(). */
static u64 *xr_nl_query_stats(struct xr_device *xdev)
{
	const struct xr_device_ops *ops = xdev->ops;
	u64 *values;
	int ret;

	if (!ops->query_stats || !ops->counter_names || !ops->num_counters)
		return ERR_PTR(-EOPNOTSUPP);
	values = kcalloc(ops->num_counters, sizeof(*values), GFP_KERNEL);
	if (!values)
		return ERR_PTR(-ENOMEM);
	ret = ops->query_stats(xdev, values);
	if (ret) {
		kfree(values);
		return ERR_PTR(ret);
	}
	return values;
}

/*
 * RDMA_NLDEV_CMD_STAT_GET: the device's hardware counters.  They count for
 * the whole device; each port reports the same values.
 */
static int xr_nl_fill_stats(struct sk_buff *skb, struct xr_device *xdev,
			    u32 port)
{
	const struct xr_device_ops *ops = xdev->ops;
	struct nlattr *table, *entry;
	u64 *values;
	int ret = -EMSGSIZE;
	u32 i;

	values = xr_nl_query_stats(xdev);
	if (IS_ERR(values))
		return PTR_ERR(values);
	if (xr_nl_put_handle(skb, xdev) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		goto out_free;
	table = nla_nest_start_noflag(skb, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table)
		goto out_free;
	for (i = 0; i < ops->num_counters; i++) {
		entry = nla_nest_start_noflag(skb,
					      RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		if (!entry)
			goto err_cancel;
		if (nla_put_string(skb, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
				   ops->counter_names[i]) ||
		    xr_nl_put_u64(skb, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
				  values[i])) {
			nla_nest_cancel(skb, entry);
			goto err_cancel;
		}
		nla_nest_end(skb, entry);
	}
	nla_nest_end(skb, table);
	ret = 0;
	goto out_free;

err_cancel:
	nla_nest_cancel(skb, table);
out_free:
	kfree(values);
	return ret;
}

/*
 * RDMA_NLDEV_CMD_STAT_GET with RDMA_NLDEV_ATTR_STAT_MODE: the QP counter
 * mode.  xrdma has no per-QP counters, so the mode is always "none".
 */
static int xr_nl_fill_stat_mode(struct sk_buff *skb, struct xr_device *xdev,
				u32 port)
{
	if (xr_nl_put_handle(skb, xdev) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_PORT_INDEX, port) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_NONE))
		return -EMSGSIZE;
	return 0;
}

/* Answer a request with one message filled by @fill. */
/* Writes the attributes of a reply about @xdev (and @port, if not 0). */
typedef int xr_nl_fill_fn(struct sk_buff *skb, struct xr_device *xdev, u32 port);

static int xr_nl_reply(struct sk_buff *in, const struct nlmsghdr *req, u32 op,
		       struct xr_device *xdev, u32 port, xr_nl_fill_fn *fill)
{
	struct nlmsghdr *nlh;
	struct sk_buff *msg;
	int ret;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	nlh = xr_nl_put_hdr(msg, NETLINK_CB(in).portid, req->nlmsg_seq, op, 0);
	if (!nlh) {
		ret = -EMSGSIZE;
		goto err_free;
	}
	ret = fill(msg, xdev, port);
	if (ret)
		goto err_free;
	nlmsg_end(msg, nlh);
	return xr_nl_unicast(msg, NETLINK_CB(in).portid);

err_free:
	nlmsg_free(msg);
	return ret;
}

/*
 * Answer a GET for the device the request names (and its port, with
 * @per_port) with one message that @fill writes.
 */
static int xr_nl_reply_dev(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct nlattr **tb, struct netlink_ext_ack *extack,
			   u32 op, bool per_port, xr_nl_fill_fn *fill)
{
	struct xr_device *xdev;
	int ret = 0;

	xdev = xr_nl_get_dev(tb, extack);
	if (IS_ERR(xdev))
		return PTR_ERR(xdev);
	if (per_port)
		ret = xr_nl_get_port(tb, xdev, true, extack);
	if (!per_port || ret > 0)
		ret = xr_nl_reply(skb, nlh, op, xdev, ret, fill);
	xr_device_put(xdev);
	return ret;
}

static int xr_nl_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct nlattr **tb, struct netlink_ext_ack *extack)
{
	return xr_nl_reply_dev(skb, nlh, tb, extack, RDMA_NLDEV_CMD_GET, false,
			       xr_nl_fill_dev);
}

static int xr_nl_port_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	return xr_nl_reply_dev(skb, nlh, tb, extack, RDMA_NLDEV_CMD_PORT_GET,
			       true, xr_nl_fill_port);
}

static int xr_nl_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct nlattr **tb,
			      struct netlink_ext_ack *extack)
{
	return xr_nl_reply_dev(skb, nlh, tb, extack, RDMA_NLDEV_CMD_RES_GET,
			       false, xr_nl_fill_res_summary);
}

static int xr_nl_stat_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	xr_nl_fill_fn *fill = xr_nl_fill_stats;

	if (tb[RDMA_NLDEV_ATTR_STAT_RES]) {
		/* Only "rdma statistic qp mode" is answered. */
		if (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES]) !=
		    RDMA_NLDEV_ATTR_RES_QP || !tb[RDMA_NLDEV_ATTR_STAT_MODE]) {
			NL_SET_ERR_MSG(extack, "no counters of this kind");
			return -EOPNOTSUPP;
		}
		fill = xr_nl_fill_stat_mode;
	}
	return xr_nl_reply_dev(skb, nlh, tb, extack, RDMA_NLDEV_CMD_STAT_GET,
			       true, fill);
}

/* Answer GET_CHARDEV: the device number, ABI version and name (uverbs: its driver id too). */
static int xr_nl_reply_chardev(struct sk_buff *skb, struct nlmsghdr *nlh, dev_t devt, u64 abi,
			       const char *name)
{
	struct nlmsghdr *rep;
	struct sk_buff *msg;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rep = xr_nl_put_hdr(msg, NETLINK_CB(skb).portid, nlh->nlmsg_seq,
			    RDMA_NLDEV_CMD_GET_CHARDEV, 0);
	if (!rep ||
	    (strcmp(name, "rdma_cm") &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, RDMA_DRIVER_UNKNOWN)) ||
	    xr_nl_put_u64(msg, RDMA_NLDEV_ATTR_CHARDEV, huge_encode_dev(devt)) ||
	    xr_nl_put_u64(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, abi) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME, name)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	nlmsg_end(msg, rep);
	return xr_nl_unicast(msg, NETLINK_CB(skb).portid);
}

static int xr_nl_get_chardev_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				  struct nlattr **tb,
				  struct netlink_ext_ack *extack)
{
	struct xr_device *xdev;
	char name[32];
	dev_t devt;
	int ret;

	if (!tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE]) {
		NL_SET_ERR_MSG(extack, "character device type is missing");
		return -EINVAL;
	}
	/* rdma_cm's is one for all devices (librdmacm asks without one). */
	if (!strcmp(nla_data(tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE]), "rdma_cm") &&
	    !tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return xr_nl_reply_chardev(skb, nlh, xr_ucma_chardev(), RDMA_USER_CM_ABI_VERSION,
					   "rdma_cm");
	/*
	 * Like Linux: a client that does not exist, or that has no
	 * device-independent character device, is not supported.
	 */
	if (strcmp(nla_data(tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE]), "uverbs") ||
	    !tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		NL_SET_ERR_MSG(extack, "no such character device");
		return -EOPNOTSUPP;
	}
	xdev = xr_nl_get_dev(tb, extack);
	if (IS_ERR(xdev))
		return PTR_ERR(xdev);
	ret = xr_nl_get_port(tb, xdev, false, extack);
	if (ret < 0)
		goto out_put;
	ret = xr_uverbs_chardev(xdev, &devt, name, sizeof(name));
	if (ret)
		goto out_put;
	ret = xr_nl_reply_chardev(skb, nlh, devt, xdev->ops->uverbs_abi_ver, name);
out_put:
	xr_device_put(xdev);
	return ret;
}

static int xr_nl_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct xr_device *xdev;
	int ret;

	xdev = xr_nl_get_dev(tb, extack);
	if (IS_ERR(xdev))
		return PTR_ERR(xdev);
	if (tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
		ret = xr_device_rename(xdev,
				       nla_data(tb[RDMA_NLDEV_ATTR_DEV_NAME]));
		if (ret == -EEXIST)
			NL_SET_ERR_MSG(extack, "another device has this name");
		else if (ret == -EINVAL)
			NL_SET_ERR_MSG(extack, "invalid device name");
	} else if (tb[RDMA_NLDEV_NET_NS_FD] || tb[RDMA_NLDEV_ATTR_DEV_DIM]) {
		NL_SET_ERR_MSG(extack, "not supported by xrdma");
		ret = -EOPNOTSUPP;
	} else {
		NL_SET_ERR_MSG(extack, "nothing to set");
		ret = -EINVAL;
	}
	xr_device_put(xdev);
	return ret;
}

static int xr_nl_sys_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct nlattr **tb,
			      struct netlink_ext_ack *extack)
{
	struct nlmsghdr *rep;
	struct sk_buff *msg;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rep = xr_nl_put_hdr(msg, NETLINK_CB(skb).portid, nlh->nlmsg_seq,
			    RDMA_NLDEV_CMD_SYS_GET, 0);
	/* Devices are visible in every network namespace ("shared"). */
	if (!rep ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, 0) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	nlmsg_end(msg, rep);
	return xr_nl_unicast(msg, NETLINK_CB(skb).portid);
}

static int xr_nl_sys_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct nlattr **tb,
			      struct netlink_ext_ack *extack)
{
	/* Setting the mode xrdma always has is allowed. */
	if (tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] &&
	    !tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE] &&
	    nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]) == 1)
		return 0;
	NL_SET_ERR_MSG(extack, "not supported by xrdma");
	return -EOPNOTSUPP;
}

/* Dumps: what a dump request asked for, and how far the dump got. */
struct xr_nl_dump {
	unsigned long next_dev;	/* index of the next device to visit */
	u32 dev;		/* if @one_dev: the only device */
	u32 port;		/* the only port, or 0 */
	u32 pos;		/* of device @next_dev: next port, or the
				 * res_id of the next object
				 */
	bool one_dev;
	bool stat_qp;		/* STAT_GET of QP counters: there are none */
};

static_assert(sizeof(struct xr_nl_dump) <=
	      sizeof_field(struct netlink_callback, ctx));

static struct xr_nl_dump *xr_nl_dump_ctx(struct netlink_callback *cb)
{
	return (struct xr_nl_dump *)cb->ctx;
}

struct xr_nl_walk;

/**
 * struct xr_nl_res_type - how objects of one kind are reported
 * @type: their enum xr_obj_type
 * @table_attr: the nest that holds them in a dump
 * @entry_attr: the nest of one object in a dump
 * @id_attr: the attribute with the object's number (its res_id)
 * @fill: puts its attributes; returns 0, 1 to leave the object out, or
 *	-EMSGSIZE.  Called under the lock of the device's resource tracking
 *	of the type (restrack.c), so it must not sleep.
 */
struct xr_nl_res_type {
	enum xr_obj_type type;
	int table_attr;
	int entry_attr;
	int id_attr;
	int (*fill)(struct sk_buff *skb, struct xr_uobject *uobj,
		    const struct xr_nl_walk *w);
};

/* What the fill functions need besides the object. */
struct xr_nl_walk {
	struct sk_buff *skb;
	struct pid_namespace *ns;
	const struct xr_nl_res_type *rt;
	u32 port;
	bool admin;
	pid_t pid;
};

static int xr_nl_put_pid(struct sk_buff *skb, const struct xr_nl_walk *w)
{
	/* A PID of 0 means a process that is gone: say nothing. */
	if (w->pid && nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_PID, w->pid))
		return -EMSGSIZE;
	return 0;
}

static bool xr_nl_qp_has_remote(const struct xr_qp *qp)
{
	return qp->qp_type == IB_UVERBS_QPT_RC ||
	       qp->qp_type == IB_UVERBS_QPT_UC;
}

/* The fill functions return 0, 1 to leave the object out, or -EMSGSIZE. */
static int xr_nl_fill_qp(struct sk_buff *skb, struct xr_uobject *uobj,
			 const struct xr_nl_walk *w)
{
	struct xr_qp *qp = container_of(uobj, struct xr_qp, uobj);
	u32 port = qp->attr.port_num;

	if (w->port && port != w->port)
		return 1;
	if (port && nla_put_u32(skb, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -EMSGSIZE;
	if (nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_LQPN, qp->qpn))
		return -EMSGSIZE;
	if (qp->pd && nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_PDN, qp->pd->pdn))
		return -EMSGSIZE;
	if (xr_nl_put_pid(skb, w))
		return -EMSGSIZE;
	if (xr_nl_qp_has_remote(qp) &&
	    (nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_RQPN, qp->attr.dest_qp_num) ||
	     nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_RQ_PSN, qp->attr.rq_psn)))
		return -EMSGSIZE;
	if (nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_SQ_PSN, qp->attr.sq_psn))
		return -EMSGSIZE;
	/* Path migration is not supported: always "migrated" (0). */
	if (xr_nl_qp_has_remote(qp) &&
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 0))
		return -EMSGSIZE;
	if (nla_put_u8(skb, RDMA_NLDEV_ATTR_RES_TYPE, qp->qp_type) ||
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_RES_STATE, qp->state))
		return -EMSGSIZE;
	return 0;
}

static int xr_nl_fill_cq(struct sk_buff *skb, struct xr_uobject *uobj,
			 const struct xr_nl_walk *w)
{
	struct xr_cq *cq = container_of(uobj, struct xr_cq, uobj);

	if (nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_CQE, cq->cqe) ||
	    xr_nl_put_u64(skb, RDMA_NLDEV_ATTR_RES_USECNT,
			  atomic_read(&uobj->usecnt)) ||
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_DEV_DIM, 0) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_CQN, cq->cqn) ||
	    xr_nl_put_pid(skb, w))
		return -EMSGSIZE;
	return 0;
}

static int xr_nl_fill_mr(struct sk_buff *skb, struct xr_uobject *uobj,
			 const struct xr_nl_walk *w)
{
	struct xr_mr *mr = container_of(uobj, struct xr_mr, uobj);

	/* Like Linux, the keys are shown to CAP_NET_ADMIN only. */
	if (w->admin &&
	    (nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_RKEY, mr->rkey) ||
	     nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_LKEY, mr->lkey)))
		return -EMSGSIZE;
	/* The MRN is a tracking id, unrelated to the keys. */
	if (xr_nl_put_u64(skb, RDMA_NLDEV_ATTR_RES_MRLEN, mr->length) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_MRN, uobj->res_id))
		return -EMSGSIZE;
	if (mr->pd && nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_PDN, mr->pd->pdn))
		return -EMSGSIZE;
	return xr_nl_put_pid(skb, w);
}

static int xr_nl_fill_pd(struct sk_buff *skb, struct xr_uobject *uobj,
			 const struct xr_nl_walk *w)
{
	struct xr_pd *pd = container_of(uobj, struct xr_pd, uobj);

	/* There is no local DMA key: 0, as Linux shows for user PDs. */
	if (w->admin && nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY, 0))
		return -EMSGSIZE;
	if (xr_nl_put_u64(skb, RDMA_NLDEV_ATTR_RES_USECNT,
			  atomic_read(&uobj->usecnt)) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_PDN, pd->pdn) ||
	    xr_nl_put_pid(skb, w))
		return -EMSGSIZE;
	return 0;
}

static int xr_nl_fill_srq(struct sk_buff *skb, struct xr_uobject *uobj,
			  const struct xr_nl_walk *w)
{
	struct xr_srq *srq = container_of(uobj, struct xr_srq, uobj);
	struct nlattr *qps;

	/* A basic SRQ (IB_SRQT_BASIC, 0): no XRC domain, no CQ of its own. */
	if (nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_SRQN, srq->srqn) ||
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_RES_TYPE, 0) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_PDN, srq->pd->pdn) ||
	    xr_nl_put_pid(skb, w))
		return -EMSGSIZE;
	/*
	 * The QPs on it, which iproute2 requires, as a table; left empty:
	 * filling it would take the QPs' tracking lock inside the SRQs'.
	 */
	qps = nla_nest_start_noflag(skb, RDMA_NLDEV_ATTR_RES_QP);
	if (!qps)
		return -EMSGSIZE;
	nla_nest_end(skb, qps);
	return 0;
}

/*
 * Like Linux, objects of processes in other PID namespaces are not shown.
 * Sets w->pid to the owner's PID as seen from the caller (0 if gone).
 */
static bool xr_nl_visible(struct xr_uobject *uobj, struct xr_nl_walk *w)
{
	struct pid *owner = uobj->ufile->owner;

	if (owner && ns_of_pid(owner) != w->ns)
		return false;
	w->pid = owner ? pid_nr_ns(owner, w->ns) : 0;
	return true;
}

static const struct xr_nl_res_type xr_nl_res_types[] = {
	[RDMA_NLDEV_CMD_RES_QP_GET] = { XR_OBJ_QP, RDMA_NLDEV_ATTR_RES_QP,
		RDMA_NLDEV_ATTR_RES_QP_ENTRY, RDMA_NLDEV_ATTR_RES_LQPN,
		xr_nl_fill_qp },
	[RDMA_NLDEV_CMD_RES_CQ_GET] = { XR_OBJ_CQ, RDMA_NLDEV_ATTR_RES_CQ,
		RDMA_NLDEV_ATTR_RES_CQ_ENTRY, RDMA_NLDEV_ATTR_RES_CQN,
		xr_nl_fill_cq },
	[RDMA_NLDEV_CMD_RES_MR_GET] = { XR_OBJ_MR, RDMA_NLDEV_ATTR_RES_MR,
		RDMA_NLDEV_ATTR_RES_MR_ENTRY, RDMA_NLDEV_ATTR_RES_MRN,
		xr_nl_fill_mr },
	[RDMA_NLDEV_CMD_RES_PD_GET] = { XR_OBJ_PD, RDMA_NLDEV_ATTR_RES_PD,
		RDMA_NLDEV_ATTR_RES_PD_ENTRY, RDMA_NLDEV_ATTR_RES_PDN,
		xr_nl_fill_pd },
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = { XR_OBJ_SRQ, RDMA_NLDEV_ATTR_RES_SRQ,
		RDMA_NLDEV_ATTR_RES_SRQ_ENTRY, RDMA_NLDEV_ATTR_RES_SRQN,
		xr_nl_fill_srq },
};

/*
 * RDMA_NLDEV_CMD_RES_{QP,CQ,MR,PD,SRQ}_GET for one object, named by its number:
 * the object's attributes follow the device's, without nests (as Linux).
 */
static int xr_nl_res_obj_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct nlattr **tb,
			      struct netlink_ext_ack *extack)
{
	u32 op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct xr_nl_res_type *rt = &xr_nl_res_types[op];
	struct xr_nl_walk w = {
		.ns = task_active_pid_ns(current),
		.rt = rt,
		.admin = netlink_capable(skb, CAP_NET_ADMIN),
	};
	struct xr_uobject *uobj;
	struct xr_device *xdev;
	struct nlmsghdr *rep;
	struct xarray *xa;
	u32 id;
	int ret;

	if (!tb[rt->id_attr]) {
		NL_SET_ERR_MSG(extack, "object number is missing");
		return -EINVAL;
	}
	id = nla_get_u32(tb[rt->id_attr]);
	xdev = xr_nl_get_dev(tb, extack);
	if (IS_ERR(xdev))
		return PTR_ERR(xdev);
	ret = xr_nl_get_port(tb, xdev, false, extack);
	if (ret < 0)
		goto out_put;
	w.port = ret;

	w.skb = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!w.skb) {
		ret = -ENOMEM;
		goto out_put;
	}
	rep = xr_nl_put_hdr(w.skb, NETLINK_CB(skb).portid, nlh->nlmsg_seq, op,
			    0);
	if (!rep || xr_nl_put_handle(w.skb, xdev)) {
		ret = -EMSGSIZE;
		goto err_free;
	}
	xa = &xdev->res[rt->type];
	xa_lock(xa);
	uobj = xa_load(xa, id);
	ret = uobj && xr_nl_visible(uobj, &w) ? rt->fill(w.skb, uobj, &w) : 1;
	xa_unlock(xa);
	if (ret) {
		if (ret > 0) {
			NL_SET_ERR_MSG(extack, "no such object");
			ret = -ENOENT;
		}
		goto err_free;
	}
	nlmsg_end(w.skb, rep);
	ret = xr_nl_unicast(w.skb, NETLINK_CB(skb).portid);
	goto out_put;

err_free:
	nlmsg_free(w.skb);
out_put:
	xr_device_put(xdev);
	return ret;
}

/*
 * One message with the objects of one device, from res_id dump->pos on.
 * Like Linux, a device without objects gets no message.  Return: 0 when
 * the device is done, -EMSGSIZE when the skb is full (dump->pos says where
 * to resume).
 */
static int xr_nl_dump_res(struct sk_buff *skb, struct netlink_callback *cb,
			  struct xr_device *xdev, u32 op)
{
	const struct xr_nl_res_type *rt = &xr_nl_res_types[op];
	struct xr_nl_dump *dump = xr_nl_dump_ctx(cb);
	struct xr_nl_walk w = {
		.skb = skb,
		.ns = task_active_pid_ns(current),
		.rt = rt,
		.port = dump->port,
		.admin = netlink_capable(cb->skb, CAP_NET_ADMIN),
	};
	struct xarray *xa = &xdev->res[rt->type];
	struct xr_uobject *uobj;
	struct nlattr *table, *entry;
	struct nlmsghdr *nlh;
	unsigned long id;
	u32 filled = 0;
	int ret = 0;

	nlh = xr_nl_put_hdr(skb, NETLINK_CB(cb->skb).portid,
			    cb->nlh->nlmsg_seq, op, NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	if (xr_nl_put_handle(skb, xdev))
		goto err_cancel;
	table = nla_nest_start_noflag(skb, rt->table_attr);
	if (!table)
		goto err_cancel;
	xa_lock(xa);
	xa_for_each_start(xa, id, uobj, dump->pos) {
		if (!xr_nl_visible(uobj, &w))
			continue;
		entry = nla_nest_start_noflag(skb, rt->entry_attr);
		ret = entry ? rt->fill(skb, uobj, &w) : -EMSGSIZE;
		if (ret) {
			if (entry)
				nla_nest_cancel(skb, entry);
			if (ret < 0) {
				dump->pos = id;	/* resume here */
				break;
			}
			ret = 0;
			continue;
		}
		nla_nest_end(skb, entry);
		filled++;
	}
	xa_unlock(xa);
	if (!filled) {
		nlmsg_cancel(skb, nlh);
		return ret;
	}
	nla_nest_end(skb, table);
	nlmsg_end(skb, nlh);
	return ret;

err_cancel:
	nlmsg_cancel(skb, nlh);
	return -EMSGSIZE;
}

/* One message per port of the device, from port dump->pos on. */
static int xr_nl_dump_ports(struct sk_buff *skb, struct netlink_callback *cb,
			    struct xr_device *xdev, u32 op, xr_nl_fill_fn *fill)
{
	struct xr_nl_dump *dump = xr_nl_dump_ctx(cb);
	struct nlmsghdr *nlh;
	u32 port;
	int ret;

	for (port = max(dump->pos, 1U); port <= xdev->phys_port_cnt; port++) {
		if (dump->port && port != dump->port)
			continue;
		nlh = xr_nl_put_hdr(skb, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, op, NLM_F_MULTI);
		if (!nlh) {
			ret = -EMSGSIZE;
		} else {
			ret = fill(skb, xdev, port);
			if (ret)
				nlmsg_cancel(skb, nlh);
			else
				nlmsg_end(skb, nlh);
		}
		if (ret == -EMSGSIZE) {
			dump->pos = port;
			return ret;
		}
		/* A port the device cannot report on is left out. */
	}
	return 0;
}

/* One RDMA CM id, as Linux's fill_res_cm_id_entry() puts it. */
static int xr_nl_fill_cm_id(struct sk_buff *skb, const struct xr_cm_res *r, pid_t pid)
{
	if ((r->port && nla_put_u32(skb, RDMA_NLDEV_ATTR_PORT_INDEX, r->port)) ||
	    (r->qp_num && (nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_LQPN, r->qp_num) ||
			   nla_put_u8(skb, RDMA_NLDEV_ATTR_RES_TYPE, r->qp_type))) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_PS, r->ps) ||
	    nla_put_u8(skb, RDMA_NLDEV_ATTR_RES_STATE, r->state) ||
	    (r->src.ss_family &&
	     nla_put(skb, RDMA_NLDEV_ATTR_RES_SRC_ADDR, sizeof(r->src), &r->src)) ||
	    (r->dst.ss_family &&
	     nla_put(skb, RDMA_NLDEV_ATTR_RES_DST_ADDR, sizeof(r->dst), &r->dst)) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_CM_IDN, r->idn) ||
	    (pid && nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_PID, pid)))
		return -EMSGSIZE;
	return 0;
}

/*
 * RDMA_NLDEV_CMD_RES_CM_ID_GET of one device: its RDMA CM ids (cma.c)
 * visible in the caller's PID namespace, from the id numbered dump->pos.
 */
static int xr_nl_dump_cm_ids(struct sk_buff *skb, struct netlink_callback *cb,
			     struct xr_device *xdev, u32 op)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct xr_nl_dump *dump = xr_nl_dump_ctx(cb);
	struct nlattr *table, *entry;
	struct nlmsghdr *nlh;
	struct xr_cm_res r;
	u32 filled = 0;
	int ret = 0;

	nlh = xr_nl_put_hdr(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, op,
			    NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	table = xr_nl_put_handle(skb, xdev) ? NULL :
		nla_nest_start_noflag(skb, RDMA_NLDEV_ATTR_RES_CM_ID);
	if (!table) {
		nlmsg_cancel(skb, nlh);
		return -EMSGSIZE;
	}
	while (!xr_cma_res_next(xdev, dump->pos, &r)) {
		if ((!dump->port || r.port == dump->port) &&
		    (!r.owner || ns_of_pid(r.owner) == ns)) {
			entry = nla_nest_start_noflag(skb, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);
			ret = entry ? xr_nl_fill_cm_id(skb, &r, pid_nr_ns(r.owner, ns)) : -EMSGSIZE;
			if (ret) {
				if (entry)
					nla_nest_cancel(skb, entry);
				put_pid(r.owner);
				break;		/* resume at this one */
			}
			nla_nest_end(skb, entry);
			filled++;
		}
		put_pid(r.owner);
		dump->pos = r.idn + 1;
		if (!dump->pos)
			break;
	}
	if (!filled) {
		nlmsg_cancel(skb, nlh);
		return ret;
	}
	nla_nest_end(skb, table);
	nlmsg_end(skb, nlh);
	return ret;
}

/* RDMA_NLDEV_CMD_RES_CM_ID_GET of one id: `rdma res show cm_id cm-idn N`. */
static int xr_nl_cm_id_doit(struct sk_buff *skb, struct nlmsghdr *nlh, struct nlattr **tb,
			    struct netlink_ext_ack *extack)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct xr_cm_res r = { .owner = NULL };
	struct xr_device *xdev;
	struct sk_buff *msg;
	struct nlmsghdr *rep;
	u32 idn;
	int ret;

	if (!tb[RDMA_NLDEV_ATTR_RES_CM_IDN]) {
		NL_SET_ERR_MSG(extack, "object number is missing");
		return -EINVAL;
	}
	idn = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_CM_IDN]);
	xdev = xr_nl_get_dev(tb, extack);
	if (IS_ERR(xdev))
		return PTR_ERR(xdev);
	ret = xr_nl_get_port(tb, xdev, false, extack);
	if (ret < 0)
		goto out_put;
	if (xr_cma_res_next(xdev, idn, &r) || r.idn != idn ||
	    (r.owner && ns_of_pid(r.owner) != ns)) {
		NL_SET_ERR_MSG(extack, "no such object");
		ret = -ENOENT;
		goto out_put;
	}
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out_put;
	}
	rep = xr_nl_put_hdr(msg, NETLINK_CB(skb).portid, nlh->nlmsg_seq,
			    RDMA_NLDEV_CMD_RES_CM_ID_GET, 0);
	if (!rep || xr_nl_put_handle(msg, xdev) ||
	    xr_nl_fill_cm_id(msg, &r, pid_nr_ns(r.owner, ns))) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto out_put;
	}
	nlmsg_end(msg, rep);
	ret = xr_nl_unicast(msg, NETLINK_CB(skb).portid);
out_put:
	put_pid(r.owner);
	xr_device_put(xdev);
	return ret;
}

/* The part of a dump that concerns one device; see xr_nl_dump(). */
static int xr_nl_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			  struct xr_device *xdev, u32 op)
{
	struct nlmsghdr *nlh;
	xr_nl_fill_fn *fill;

	switch (op) {
	case RDMA_NLDEV_CMD_GET:
		fill = xr_nl_fill_dev;
		break;
	case RDMA_NLDEV_CMD_RES_GET:
		fill = xr_nl_fill_res_summary;
		break;
	case RDMA_NLDEV_CMD_PORT_GET:
		return xr_nl_dump_ports(skb, cb, xdev, op, xr_nl_fill_port);
	case RDMA_NLDEV_CMD_STAT_GET:
		if (xr_nl_dump_ctx(cb)->stat_qp)
			return 0;
		return xr_nl_dump_ports(skb, cb, xdev, op, xr_nl_fill_stats);
	case RDMA_NLDEV_CMD_RES_CM_ID_GET:
		return xr_nl_dump_cm_ids(skb, cb, xdev, op);
	default:
		/* Kinds of objects xrdma never has: ctx */
		if (op >= ARRAY_SIZE(xr_nl_res_types) ||
		    !xr_nl_res_types[op].fill)
			return 0;
		return xr_nl_dump_res(skb, cb, xdev, op);
	}

	nlh = xr_nl_put_hdr(skb, NETLINK_CB(cb->skb).portid,
			    cb->nlh->nlmsg_seq, op, NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	if (fill(skb, xdev, 0)) {
		nlmsg_cancel(skb, nlh);
		return -EMSGSIZE;
	}
	nlmsg_end(skb, nlh);
	return 0;
}

static int xr_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct xr_nl_dump *dump = xr_nl_dump_ctx(cb);
	u32 op = RDMA_NL_GET_OP(cb->nlh->nlmsg_type);
	struct xr_device *xdev;
	int ret = 0;

	mutex_lock(&xr_nl_mutex);
	for (;;) {
		xdev = xr_device_get_next(&dump->next_dev);
		if (!xdev)
			break;
		if (dump->one_dev && xdev->index != dump->dev) {
			xr_device_put(xdev);
			break;
		}
		ret = xr_nl_dump_dev(skb, cb, xdev, op);
		xr_device_put(xdev);
		if (ret)
			break;
		dump->next_dev++;
		dump->pos = 0;
	}
	mutex_unlock(&xr_nl_mutex);
	/* A full skb is sent and the dump goes on; other errors end it. */
	if (ret && ret != -EMSGSIZE)
		return ret;
	return skb->len;
}

/* Check the request of a dump before it starts, so errors are acked. */
static int xr_nl_dump_start(struct netlink_callback *cb)
{
	struct xr_nl_dump *dump = xr_nl_dump_ctx(cb);
	u32 op = RDMA_NL_GET_OP(cb->nlh->nlmsg_type);
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct xr_device *xdev;
	int ret;

	ret = xr_nl_parse(cb->nlh, tb, cb->extack);
	if (ret)
		return ret;
	if (op == RDMA_NLDEV_CMD_STAT_GET && tb[RDMA_NLDEV_ATTR_STAT_RES]) {
		if (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES]) !=
		    RDMA_NLDEV_ATTR_RES_QP) {
			NL_SET_ERR_MSG(cb->extack, "no counters of this kind");
			return -EOPNOTSUPP;
		}
		dump->stat_qp = true;
	}
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX] && !tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		NL_SET_ERR_MSG(cb->extack, "port index without device index");
		return -EINVAL;
	}
	/* Only dumps of ports and objects can be limited. */
	if (op == RDMA_NLDEV_CMD_GET || op == RDMA_NLDEV_CMD_RES_GET ||
	    !tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return 0;
	xdev = xr_nl_get_dev(tb, cb->extack);
	if (IS_ERR(xdev))
		return PTR_ERR(xdev);
	ret = xr_nl_get_port(tb, xdev, false, cb->extack);
	if (ret >= 0) {
		dump->one_dev = true;
		dump->dev = xdev->index;
		dump->next_dev = xdev->index;
		dump->port = ret;
		ret = 0;
	}
	xr_device_put(xdev);
	return ret;
}

/**
 * struct xr_nl_cmd - how an NLDEV command is served
 * @doit: answers a single request, called with xr_nl_mutex held
 * @dump: the command can be dumped (xr_nl_dump())
 * @admin: the sender needs CAP_NET_ADMIN
 */
struct xr_nl_cmd {
	int (*doit)(struct sk_buff *skb, struct nlmsghdr *nlh,
		    struct nlattr **tb, struct netlink_ext_ack *extack);
	bool dump;
	bool admin;
};

static const struct xr_nl_cmd xr_nl_cmds[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = { .doit = xr_nl_get_doit, .dump = true },
	[RDMA_NLDEV_CMD_SET] = { .doit = xr_nl_set_doit, .admin = true },
	[RDMA_NLDEV_CMD_PORT_GET] = { .doit = xr_nl_port_get_doit,
				      .dump = true },
	[RDMA_NLDEV_CMD_SYS_GET] = { .doit = xr_nl_sys_get_doit },
	[RDMA_NLDEV_CMD_SYS_SET] = { .doit = xr_nl_sys_set_doit,
				     .admin = true },
	[RDMA_NLDEV_CMD_RES_GET] = { .doit = xr_nl_res_get_doit,
				     .dump = true },
	[RDMA_NLDEV_CMD_RES_QP_GET] = { .doit = xr_nl_res_obj_doit,
					.dump = true },
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = { .doit = xr_nl_cm_id_doit, .dump = true },
	[RDMA_NLDEV_CMD_RES_CQ_GET] = { .doit = xr_nl_res_obj_doit,
					.dump = true },
	[RDMA_NLDEV_CMD_RES_MR_GET] = { .doit = xr_nl_res_obj_doit,
					.dump = true },
	[RDMA_NLDEV_CMD_RES_PD_GET] = { .doit = xr_nl_res_obj_doit,
					.dump = true },
	[RDMA_NLDEV_CMD_RES_CTX_GET] = { .dump = true },
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = { .doit = xr_nl_res_obj_doit,
					 .dump = true },
	[RDMA_NLDEV_CMD_GET_CHARDEV] = { .doit = xr_nl_get_chardev_doit },
	[RDMA_NLDEV_CMD_STAT_GET] = { .doit = xr_nl_stat_get_doit,
				      .dump = true },
};

/*
 * One NLDEV request (@nlh of client RDMA_NL_NLDEV): 0, a negative errno for
 * the ack, or -EINTR once a dump started.
 */
static int xr_nldev_rcv_msg(struct sk_buff *skb, struct nlmsghdr *nlh,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	u32 op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct xr_nl_cmd *cmd;
	int ret;

	cmd = op < ARRAY_SIZE(xr_nl_cmds) ? &xr_nl_cmds[op] : NULL;
	if (!cmd || (!cmd->doit && !cmd->dump)) {
		NL_SET_ERR_MSG(extack, "command not supported");
		return -EOPNOTSUPP;
	}
	if (cmd->admin && !netlink_capable(skb, CAP_NET_ADMIN))
		return -EPERM;

	if (nlh->nlmsg_flags & NLM_F_DUMP) {
		struct netlink_dump_control c = {
			.start = xr_nl_dump_start,
			.dump = xr_nl_dump,
		};

		if (!cmd->dump) {
			NL_SET_ERR_MSG(extack, "command cannot be dumped");
			return -EOPNOTSUPP;
		}
		/* -EINTR on success: the dump ends with NLMSG_DONE, no ack. */
		return netlink_dump_start(skb->sk, skb, nlh, &c);
	}

	if (!cmd->doit) {
		NL_SET_ERR_MSG(extack, "command can only be dumped");
		return -EOPNOTSUPP;
	}
	ret = xr_nl_parse(nlh, tb, extack);
	if (ret)
		return ret;
	mutex_lock(&xr_nl_mutex);
	ret = cmd->doit(skb, nlh, tb, extack);
	mutex_unlock(&xr_nl_mutex);
	return ret;
}

/**
 * xr_nldev_init - serve the NLDEV client of RDMA netlink
 *
 * Return: 0 or a negative errno from xr_nl_register().
 */
int xr_nldev_init(void)
{
	return xr_nl_register(RDMA_NL_NLDEV, xr_nldev_rcv_msg);
}

/**
 * xr_nldev_exit - stop serving the NLDEV client
 */
void xr_nldev_exit(void)
{
	xr_nl_unregister(RDMA_NL_NLDEV);
}
