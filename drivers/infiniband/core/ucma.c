// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/infiniband/rdma_cm: the RDMA CM's user ABI (Linux's rdma_ucm, ABI
 * version 4, <rdma/rdma_user_cm.h>), which Debian's librdmacm speaks.  A
 * file holds contexts, each an RDMA CM id (cma.c) known to user space by a
 * number, and the events of its ids, which GET_EVENT hands out in order.
 * The commands check their arguments as Linux's do; a command Linux has
 * that this core cannot do yet (connecting, multicast) answers EOPNOTSUPP
 * (Linux answers ENOSYS to a command it has no handler for).
 *
 * Locking: xr_ucma_file.lock serialises the commands of a file (a context
 * is destroyed only by its file's commands and close); MIGRATE_ID takes the
 * two files' in address order.  An id's lock (cma.c) is taken under it;
 * xr_ucma_file.event_lock, which protects the file's list of contexts, its
 * events and its contexts' @uid, @events_reported and @file, is taken under
 * an id's lock (the event handler) and alone (GET_EVENT).
 * xr_ucma_ctxs' own lock protects the numbers.
 */
#include <linux/file.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>

#include "core_priv.h"

#define XR_UCMA_MAX_BACKLOG	1024	/* Linux's net.rdma_ucm.max_backlog */
#define XR_UCMA_PACKET_LIFE	16	/* a RoCE path's, as Linux gives it */
#define XR_IB_SA_EQ		2	/* path record selector: exactly */

/**
 * struct xr_ucma_file - one open /dev/infiniband/rdma_cm
 * @lock: serialises its commands
 * @ctxs: its contexts (struct xr_ucma_ctx.list)
 * @event_lock: protects @ctxs, @events and its contexts' @file, @uid and
 *	@events_reported (the event handler adds a connection request's
 *	context, under an id's lock)
 * @events: struct xr_ucma_event, oldest first
 * @wait: GET_EVENT and poll() wait here
 * @filp: the file
 */
struct xr_ucma_file {
	struct mutex lock;	/* see above */
	struct list_head ctxs;
	struct mutex event_lock;	/* see above */
	struct list_head events;
	wait_queue_head_t wait;
	struct file *filp;
};

/**
 * struct xr_ucma_ctx - an RDMA CM id of a file
 * @id: the number user space knows it by (in xr_ucma_ctxs)
 * @uid: user space's cookie, echoed in its events
 * @file: the file it belongs to (changed by MIGRATE_ID)
 * @cm_id: the RDMA CM id
 * @events_reported: events GET_EVENT handed out
 * @list: in @file->ctxs
 * @mcs: its multicast groups (struct xr_ucma_mc; under the file's lock)
 * @backlog: a listener's room for connection requests not yet read by
 *	GET_EVENT (under the file's @event_lock)
 */
struct xr_ucma_ctx {
	u32 id;
	u64 uid;
	struct xr_ucma_file *file;
	struct xr_cm_id *cm_id;
	u32 events_reported;
	struct list_head list;
	struct list_head mcs;
	int backlog;
};

/**
 * struct xr_ucma_mc - a multicast group a context joined
 * @id: the number user space knows it by (in xr_ucma_mcs)
 * @uid: user space's cookie, echoed in its events
 * @ctx: the context that joined
 * @mc: the RDMA CM's group
 * @events_reported: its events GET_EVENT handed out (under the file's
 *	@event_lock)
 * @list: in @ctx->mcs
 */
struct xr_ucma_mc {
	u32 id;
	u64 uid;
	struct xr_ucma_ctx *ctx;
	struct xr_cm_mc *mc;
	u32 events_reported;
	struct list_head list;
};

/**
 * struct xr_ucma_event - an event waiting for GET_EVENT
 * @list: in the file's @events
 * @ctx: whose (a connection request's is its listener's, as librdmacm
 *	counts it)
 * @conn_req: a connection request's new context, destroyed with the
 *	event if nobody reads it
 * @mc: a multicast event's group
 * @resp: what GET_EVENT answers
 */
struct xr_ucma_event {
	struct list_head list;
	struct xr_ucma_ctx *ctx;
	struct xr_ucma_ctx *conn_req;
	struct xr_ucma_mc *mc;
	struct rdma_ucm_event_resp resp;
};

static DEFINE_XARRAY_ALLOC(xr_ucma_ctxs);
static DEFINE_XARRAY_ALLOC(xr_ucma_mcs);
static struct miscdevice xr_ucma_misc;

/*
 * The context @id of @file, whose lock the caller holds.  Looked at under
 * the table's lock: another file's context may be freed meanwhile (after
 * it left the table), ours only by our own commands.
 */
static struct xr_ucma_ctx *xr_ucma_get(struct xr_ucma_file *file, u32 id)
{
	struct xr_ucma_ctx *ctx;

	xa_lock(&xr_ucma_ctxs);
	ctx = xa_load(&xr_ucma_ctxs, id);
	if (!ctx)
		ctx = ERR_PTR(-ENOENT);
	else if (READ_ONCE(ctx->file) != file)
		ctx = ERR_PTR(-EINVAL);
	xa_unlock(&xr_ucma_ctxs);
	return ctx;
}

/*
 * The context of a connection request's new id, in the listener's file;
 * its cookie comes with its owner's accept (the request's event carries
 * the listener's), as in Linux's ucma.
 */
static struct xr_ucma_ctx *xr_ucma_new_ctx(struct xr_ucma_ctx *listener, struct xr_cm_id *cm_id)
{
	struct xr_ucma_file *file = listener->file;
	struct xr_ucma_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return NULL;
	ctx->file = file;
	ctx->cm_id = cm_id;
	INIT_LIST_HEAD(&ctx->mcs);
	if (xa_alloc(&xr_ucma_ctxs, &ctx->id, ctx, xa_limit_31b, GFP_KERNEL)) {
		kfree(ctx);
		return NULL;
	}
	mutex_lock(&file->event_lock);
	list_add_tail(&ctx->list, &file->ctxs);
	mutex_unlock(&file->event_lock);
	return ctx;
}

/* An RC id's event as struct rdma_cm_event's conn. */
static void xr_ucma_conn_event(const struct xr_cm_event *e, struct rdma_ucm_conn_param *conn)
{
	if (e->private_data) {
		memcpy(conn->private_data, e->private_data, e->private_data_len);
		conn->private_data_len = e->private_data_len;
	}
	conn->responder_resources = e->responder_resources;
	conn->initiator_depth = e->initiator_depth;
	conn->flow_control = e->flow_control;
	conn->retry_count = e->retry_count;
	conn->rnr_retry_count = e->rnr_retry_count;
	conn->srq = e->srq;
	conn->qp_num = e->qp_num;
}

/*
 * A UD id's event as struct rdma_cm_event's ud: ESTABLISHED and
 * MULTICAST_JOIN give the service's (or group's) QP, Q_Key and address
 * vector, global, as Linux's ib_init_ah_attr_from_path() makes it for
 * RoCE (under the id's lock).
 */
static void xr_ucma_ud_param(const struct xr_cm_id *id, const struct xr_cm_event *e,
			     struct rdma_ucm_ud_param *ud)
{
	if (e->private_data) {
		memcpy(ud->private_data, e->private_data, e->private_data_len);
		ud->private_data_len = e->private_data_len;
	}
	if (e->event != XR_CM_EVENT_ESTABLISHED && e->event != XR_CM_EVENT_MULTICAST_JOIN)
		return;
	ud->qp_num = e->qp_num;
	ud->qkey = e->qkey;
	memcpy(ud->ah_attr.grh.dgid, e->ah.dgid, 16);
	ud->ah_attr.grh.sgid_index = e->ah.sgid_index;
	ud->ah_attr.grh.hop_limit = e->ah.hop_limit;
	ud->ah_attr.grh.traffic_class = e->ah.traffic_class;
	ud->ah_attr.is_global = 1;
	ud->ah_attr.port_num = id->port;
}

/* Add @n (-1: take one) to listener @l's room for requests; false: none left. */
static bool xr_ucma_backlog_add(struct xr_ucma_file *file, struct xr_ucma_ctx *l, int n)
{
	bool ok;

	mutex_lock(&file->event_lock);
	ok = l->backlog + n >= 0;
	if (ok)
		l->backlog += n;
	mutex_unlock(&file->event_lock);
	return ok;
}

/* cma.c's handler: queue the event for GET_EVENT (under the id's lock). */
static int xr_ucma_handler(struct xr_cm_id *cm_id, const struct xr_cm_event *e)
{
	struct xr_ucma_ctx *ctx = cm_id->context;
	struct xr_ucma_file *file = ctx->file;
	struct xr_ucma_event *ev;
	bool silent;

	/*
	 * As Linux's ucma: a request's new id says nothing until its owner
	 * accepted it (librdmacm knows it by its cookie only then); what
	 * happened before, such as the requester's REJ, shows when it accepts.
	 */
	mutex_lock(&file->event_lock);
	silent = !ctx->uid && e->event != XR_CM_EVENT_CONNECT_REQUEST;
	mutex_unlock(&file->event_lock);
	if (silent)
		return 0;
	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;		/* lost, as Linux's ucma loses it */
	ev->ctx = ctx;
	/*
	 * A request's event counts as its listener's; it names the new id.
	 * A listener whose backlog of unread requests is full takes none
	 * (its CM drops the REQ, and takes it when it comes again).
	 */
	if (e->event == XR_CM_EVENT_CONNECT_REQUEST) {
		if (!xr_ucma_backlog_add(file, ctx, -1)) {
			kfree(ev);
			return -ENOMEM;
		}
		ev->conn_req = xr_ucma_new_ctx(ctx, cm_id);
		if (!ev->conn_req) {
			xr_ucma_backlog_add(file, ctx, 1);
			kfree(ev);
			return -ENOMEM;
		}
		cm_id->context = ev->conn_req;
	}
	ev->resp.id = ev->conn_req ? ev->conn_req->id : ctx->id;
	ev->resp.event = e->event;
	ev->resp.status = e->status;
	if (cm_id->qp_type == IB_UVERBS_QPT_UD)
		xr_ucma_ud_param(cm_id, e, &ev->resp.param.ud);
	else
		xr_ucma_conn_event(e, &ev->resp.param.conn);
	ev->mc = e->mc_context;
	mutex_lock(&file->event_lock);
	/* A group's event carries the group's cookie, as librdmacm expects. */
	ev->resp.uid = ev->mc ? ev->mc->uid : ctx->uid;
	list_add_tail(&ev->list, &file->events);
	mutex_unlock(&file->event_lock);
	wake_up_interruptible(&file->wait);
	return 0;
}

static u32 xr_ucma_destroy(struct xr_ucma_file *file, struct xr_ucma_ctx *ctx);

/*
 * Drop @ctx's events that GET_EVENT did not hand out, with the contexts of
 * connection requests nobody read; its reported count.
 */
static u32 xr_ucma_flush_events(struct xr_ucma_file *file, struct xr_ucma_ctx *ctx)
{
	struct xr_ucma_event *ev, *next;
	LIST_HEAD(gone);
	u32 reported;

	mutex_lock(&file->event_lock);
	list_for_each_entry_safe(ev, next, &file->events, list)
		if (ev->ctx == ctx)
			list_move_tail(&ev->list, &gone);
	reported = ctx->events_reported;
	mutex_unlock(&file->event_lock);
	/* Their ids' locks come before the event lock: destroyed after it. */
	list_for_each_entry_safe(ev, next, &gone, list) {
		if (ev->conn_req)
			xr_ucma_destroy(file, ev->conn_req);
		kfree(ev);
	}
	return reported;
}

/* Drop the events of group @mc that GET_EVENT did not hand out; its reported count. */
static u32 xr_ucma_flush_mc_events(struct xr_ucma_file *file, struct xr_ucma_mc *mc)
{
	struct xr_ucma_event *ev, *next;
	u32 reported;

	mutex_lock(&file->event_lock);
	list_for_each_entry_safe(ev, next, &file->events, list) {
		if (ev->mc == mc) {
			list_del(&ev->list);
			kfree(ev);
		}
	}
	reported = mc->events_reported;
	mutex_unlock(&file->event_lock);
	return reported;
}

/* Destroy @ctx of @file (whose lock is held); its events reported. */
static u32 xr_ucma_destroy(struct xr_ucma_file *file, struct xr_ucma_ctx *ctx)
{
	struct xr_ucma_mc *mc, *next;
	u32 reported;

	xa_erase(&xr_ucma_ctxs, ctx->id);
	list_for_each_entry(mc, &ctx->mcs, list)
		xa_erase(&xr_ucma_mcs, mc->id);
	mutex_lock(&file->event_lock);
	list_del(&ctx->list);
	mutex_unlock(&file->event_lock);
	xr_cm_destroy_id(ctx->cm_id);	/* no event comes after this; its groups left */
	reported = xr_ucma_flush_events(file, ctx);
	list_for_each_entry_safe(mc, next, &ctx->mcs, list)
		kfree(mc);
	kfree(ctx);
	return reported;
}

static int xr_ucma_in(void *cmd, size_t size, const char __user *in, int in_len)
{
	if (in_len < size)
		return -EINVAL;
	return copy_from_user(cmd, in, size) ? -EFAULT : 0;
}

/* Copy in command @cmd, @size bytes, and find the context @id (in @cmd) of @file. */
static struct xr_ucma_ctx *xr_ucma_in_ctx(struct xr_ucma_file *file, void *cmd, size_t size,
					  const u32 *id, const char __user *in, int in_len)
{
	int ret = xr_ucma_in(cmd, size, in, in_len);

	return ret ? ERR_PTR(ret) : xr_ucma_get(file, *id);
}

static int xr_ucma_out(u64 response, const void *resp, size_t size)
{
	return copy_to_user(u64_to_user_ptr(response), resp, size) ? -EFAULT : 0;
}

/* ------------------------------------------------------------ commands */

static int xr_ucma_create_id(struct xr_ucma_file *file, const char __user *in, int in_len,
			     int out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct rdma_ucm_create_id cmd;
	struct xr_ucma_ctx *ctx;
	struct xr_cm_id *cm_id;
	u8 qp_type;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	/* As Linux's ucma_get_qp_type(): the port space decides but for IB. */
	switch (cmd.ps) {
	case RDMA_PS_TCP:
		qp_type = IB_UVERBS_QPT_RC;
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		qp_type = IB_UVERBS_QPT_UD;
		break;
	case RDMA_PS_IB:
		qp_type = cmd.qp_type;
		break;
	default:
		return -EINVAL;
	}
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	ctx->uid = cmd.uid;
	ctx->file = file;
	INIT_LIST_HEAD(&ctx->mcs);
	cm_id = xr_cm_create_id(current->nsproxy->net_ns, xr_ucma_handler, ctx, cmd.ps, qp_type);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto err_free;
	}
	ctx->cm_id = cm_id;
	ret = xa_alloc(&xr_ucma_ctxs, &ctx->id, ctx, xa_limit_31b, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	mutex_lock(&file->event_lock);
	list_add_tail(&ctx->list, &file->ctxs);
	mutex_unlock(&file->event_lock);
	resp.id = ctx->id;
	ret = xr_ucma_out(cmd.response, &resp, sizeof(resp));
	if (ret)
		xr_ucma_destroy(file, ctx);
	return ret;

err_destroy:
	xr_cm_destroy_id(cm_id);
err_free:
	kfree(ctx);
	return ret;
}

static int xr_ucma_destroy_id(struct xr_ucma_file *file, const char __user *in, int in_len,
			      int out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct xr_ucma_ctx *ctx;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ctx = xr_ucma_in_ctx(file, &cmd, sizeof(cmd), &cmd.id, in, in_len);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	resp.events_reported = xr_ucma_destroy(file, ctx);
	return xr_ucma_out(cmd.response, &resp, sizeof(resp));
}

/* The size of an address in a sockaddr_in6 or _storage: 0 for another family. */
static size_t xr_ucma_addr_size(const void *addr)
{
	return xr_sockaddr_size(((const struct sockaddr *)addr)->sa_family);
}

static int xr_ucma_bind_ip(struct xr_ucma_file *file, const char __user *in, int in_len,
			   int out_len)
{
	struct rdma_ucm_bind_ip cmd;
	struct xr_ucma_ctx *ctx;
	int ret;

	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	if (!xr_ucma_addr_size(&cmd.addr))
		return -EINVAL;
	ctx = xr_ucma_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return xr_cm_bind_addr(ctx->cm_id, (struct sockaddr *)&cmd.addr);
}

static int xr_ucma_bind(struct xr_ucma_file *file, const char __user *in, int in_len,
			int out_len)
{
	struct rdma_ucm_bind cmd;
	struct xr_ucma_ctx *ctx;
	int ret;

	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	if (cmd.reserved || !cmd.addr_size || cmd.addr_size != xr_ucma_addr_size(&cmd.addr))
		return -EINVAL;
	ctx = xr_ucma_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return xr_cm_bind_addr(ctx->cm_id, (struct sockaddr *)&cmd.addr);
}

static int xr_ucma_resolve_ip(struct xr_ucma_file *file, const char __user *in, int in_len,
			      int out_len)
{
	struct rdma_ucm_resolve_ip cmd;
	struct xr_ucma_ctx *ctx;
	int ret;

	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	if ((cmd.src_addr.sin6_family && !xr_ucma_addr_size(&cmd.src_addr)) ||
	    !xr_ucma_addr_size(&cmd.dst_addr))
		return -EINVAL;
	ctx = xr_ucma_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return xr_cm_resolve_addr(ctx->cm_id, cmd.src_addr.sin6_family ?
				  (struct sockaddr *)&cmd.src_addr : NULL,
				  (struct sockaddr *)&cmd.dst_addr);
}

static int xr_ucma_resolve_addr(struct xr_ucma_file *file, const char __user *in, int in_len,
				int out_len)
{
	struct rdma_ucm_resolve_addr cmd;
	struct xr_ucma_ctx *ctx;
	int ret;

	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	if (cmd.reserved || (cmd.src_size && cmd.src_size != xr_ucma_addr_size(&cmd.src_addr)) ||
	    !cmd.dst_size || cmd.dst_size != xr_ucma_addr_size(&cmd.dst_addr))
		return -EINVAL;
	ctx = xr_ucma_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return xr_cm_resolve_addr(ctx->cm_id, cmd.src_size ? (struct sockaddr *)&cmd.src_addr :
				  NULL, (struct sockaddr *)&cmd.dst_addr);
}

static int xr_ucma_resolve_route(struct xr_ucma_file *file, const char __user *in, int in_len,
				 int out_len)
{
	struct rdma_ucm_resolve_route cmd;
	struct xr_ucma_ctx *ctx;

	ctx = xr_ucma_in_ctx(file, &cmd, sizeof(cmd), &cmd.id, in, in_len);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return xr_cm_resolve_route(ctx->cm_id);
}

/* A RoCE path as struct ib_user_path_rec (Linux's ib_copy_path_rec_to_user()). */
static void xr_ucma_path(const struct xr_cm_id *id, struct ib_user_path_rec *p)
{
	memcpy(p->dgid, id->dgid, 16);
	memcpy(p->sgid, id->sgid, 16);
	p->reversible = 1;
	p->mtu = id->mtu;
	p->mtu_selector = XR_IB_SA_EQ;
	p->pkey = cpu_to_be16(0xffff);
	p->hop_limit = id->hop_limit;
	p->traffic_class = id->tos;
	p->numb_path = 1;
	p->rate_selector = XR_IB_SA_EQ;
	p->packet_life_time = XR_UCMA_PACKET_LIFE;
	p->packet_life_time_selector = XR_IB_SA_EQ;
}

static int xr_ucma_query_route(struct xr_ucma_file *file, const char __user *in, int in_len,
			       int out_len)
{
	struct rdma_ucm_query_route_resp resp = {};
	struct rdma_ucm_query cmd;
	struct xr_ucma_ctx *ctx;
	struct xr_cm_id *id;

	if (out_len < offsetof(struct rdma_ucm_query_route_resp, ibdev_index))
		return -ENOSPC;
	ctx = xr_ucma_in_ctx(file, &cmd, sizeof(cmd), &cmd.id, in, in_len);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	id = ctx->cm_id;
	mutex_lock(&id->lock);
	memcpy(&resp.src_addr, &id->src, xr_ucma_addr_size(&id->src));
	memcpy(&resp.dst_addr, &id->dst, xr_ucma_addr_size(&id->dst));
	if (id->xdev) {
		resp.node_guid = (__force u64)cpu_to_be64(id->xdev->node_guid);
		resp.ibdev_index = id->xdev->index;
		resp.port_num = id->port;
		/* Before the route: the GIDs of the addresses, as Linux. */
		if (id->route_resolved) {
			resp.num_paths = 1;
			xr_ucma_path(id, &resp.ib_route[0]);
		} else {
			memcpy(resp.ib_route[0].sgid, id->sgid, 16);
			memcpy(resp.ib_route[0].dgid, id->dgid, 16);
			resp.ib_route[0].pkey = cpu_to_be16(0xffff);
		}
	}
	mutex_unlock(&id->lock);
	return xr_ucma_out(cmd.response, &resp, min_t(size_t, out_len, sizeof(resp)));
}

static int xr_ucma_query_addr(struct xr_cm_id *id, u64 response, int out_len)
{
	struct rdma_ucm_query_addr_resp resp = {};

	if (out_len < offsetof(struct rdma_ucm_query_addr_resp, ibdev_index))
		return -ENOSPC;
	mutex_lock(&id->lock);
	resp.src_size = xr_ucma_addr_size(&id->src);
	memcpy(&resp.src_addr, &id->src, resp.src_size);
	resp.dst_size = xr_ucma_addr_size(&id->dst);
	memcpy(&resp.dst_addr, &id->dst, resp.dst_size);
	if (id->xdev) {
		resp.node_guid = (__force u64)cpu_to_be64(id->xdev->node_guid);
		resp.ibdev_index = id->xdev->index;
		resp.port_num = id->port;
		resp.pkey = 0xffff;
	}
	mutex_unlock(&id->lock);
	return xr_ucma_out(response, &resp, min_t(size_t, out_len, sizeof(resp)));
}

static int xr_ucma_query(struct xr_ucma_file *file, const char __user *in, int in_len,
			 int out_len)
{
	struct rdma_ucm_query cmd;
	struct xr_ucma_ctx *ctx;

	ctx = xr_ucma_in_ctx(file, &cmd, sizeof(cmd), &cmd.id, in, in_len);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	switch (cmd.option) {
	case RDMA_USER_CM_QUERY_ADDR:
		return xr_ucma_query_addr(ctx->cm_id, cmd.response, out_len);
	default:
		/*
		 * QUERY_PATH and QUERY_GID serve AF_IB, which this core does
		 * not take, so librdmacm uses QUERY_ROUTE instead.
		 */
		return -EOPNOTSUPP;
	}
}

static int xr_ucma_listen(struct xr_ucma_file *file, const char __user *in, int in_len,
			  int out_len)
{
	struct rdma_ucm_listen cmd;
	struct xr_ucma_ctx *ctx;

	ctx = xr_ucma_in_ctx(file, &cmd, sizeof(cmd), &cmd.id, in, in_len);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (cmd.backlog <= 0 || cmd.backlog > XR_UCMA_MAX_BACKLOG)
		cmd.backlog = XR_UCMA_MAX_BACKLOG;
	/* Before it listens, so that its first requests find the room. */
	mutex_lock(&file->event_lock);
	ctx->backlog = cmd.backlog;
	mutex_unlock(&file->event_lock);
	return xr_cm_listen(ctx->cm_id);
}

/* A connection's parameters as rdma_connect() and rdma_accept() give them. */
static void xr_ucma_conn_param(const struct rdma_ucm_conn_param *u, struct xr_cm_conn_param *cp)
{
	*cp = (struct xr_cm_conn_param){
		.private_data = u->private_data,
		.private_data_len = u->private_data_len,
		.responder_resources = u->responder_resources,
		.initiator_depth = u->initiator_depth,
		.flow_control = u->flow_control,
		.retry_count = u->retry_count,
		.rnr_retry_count = u->rnr_retry_count,
		.srq = u->srq,
		.qp_num = u->qp_num,
	};
}

static int xr_ucma_accept(struct xr_ucma_file *file, const char __user *in, int in_len,
			  int out_len)
{
	struct xr_cm_conn_param cp = {};
	struct rdma_ucm_accept cmd = {};
	struct xr_ucma_ctx *ctx;

	/* The ECE at the end is newer than the rest, as Linux allows. */
	if (in_len < offsetofend(struct rdma_ucm_accept, reserved))
		return -EINVAL;
	if (copy_from_user(&cmd, in, min_t(size_t, in_len, sizeof(cmd))))
		return -EFAULT;
	ctx = xr_ucma_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (cmd.conn_param.valid) {
		xr_ucma_conn_param(&cmd.conn_param, &cp);
		mutex_lock(&file->event_lock);
		ctx->uid = cmd.uid;
		mutex_unlock(&file->event_lock);
	}
	return xr_cm_accept(ctx->cm_id, &cp);
}

static int xr_ucma_reject(struct xr_ucma_file *file, const char __user *in, int in_len,
			  int out_len)
{
	struct rdma_ucm_reject cmd;
	struct xr_ucma_ctx *ctx;
	int ret;

	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	/* Linux's rule: the consumer's reason, or "vendor option not supported". */
	if (!cmd.reason)
		cmd.reason = XR_CM_REJ_CONSUMER_DEFINED;
	if (cmd.reason != XR_CM_REJ_CONSUMER_DEFINED && cmd.reason != XR_CM_REJ_VENDOR_OPTION)
		return -EINVAL;
	ctx = xr_ucma_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return xr_cm_reject(ctx->cm_id, cmd.reason, cmd.private_data, cmd.private_data_len);
}

static int xr_ucma_disconnect(struct xr_ucma_file *file, const char __user *in, int in_len,
			      int out_len)
{
	struct rdma_ucm_disconnect cmd;
	struct xr_ucma_ctx *ctx;

	ctx = xr_ucma_in_ctx(file, &cmd, sizeof(cmd), &cmd.id, in, in_len);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return xr_cm_disconnect(ctx->cm_id);
}

static int xr_ucma_connect(struct xr_ucma_file *file, const char __user *in, int in_len,
			   int out_len)
{
	struct rdma_ucm_connect cmd = {};
	struct xr_cm_conn_param cp;
	struct xr_ucma_ctx *ctx;

	/* The ECE at the end is newer than the rest, as Linux allows. */
	if (in_len < offsetofend(struct rdma_ucm_connect, reserved))
		return -EINVAL;
	if (copy_from_user(&cmd, in, min_t(size_t, in_len, sizeof(cmd))))
		return -EFAULT;
	if (!cmd.conn_param.valid)
		return -EINVAL;
	ctx = xr_ucma_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	xr_ucma_conn_param(&cmd.conn_param, &cp);
	return xr_cm_connect(ctx->cm_id, &cp);
}

static int xr_ucma_init_qp_attr(struct xr_ucma_file *file, const char __user *in, int in_len,
				int out_len)
{
	struct ib_uverbs_qp_attr resp = {};
	struct rdma_ucm_init_qp_attr cmd;
	struct xr_cm_qp_attr attr = {};
	struct xr_ucma_ctx *ctx;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	if (cmd.qp_state > XR_QPS_ERR)
		return -EINVAL;
	ctx = xr_ucma_get(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	attr.qp_state = cmd.qp_state;
	ret = xr_cm_init_qp_attr(ctx->cm_id, &attr);
	if (ret)
		return ret;
	resp.qp_attr_mask = attr.mask;
	resp.qp_state = attr.qp_state;
	resp.pkey_index = attr.pkey_index;
	resp.port_num = attr.port_num;
	resp.qkey = attr.qkey;
	resp.qp_access_flags = attr.qp_access_flags;
	/* RTR and RTS of an RC connection: the path to the peer, the PSNs. */
	memcpy(resp.ah_attr.grh.dgid, attr.qp.dgid, sizeof(resp.ah_attr.grh.dgid));
	resp.ah_attr.grh.flow_label = attr.qp.flow_label;
	resp.ah_attr.grh.sgid_index = attr.qp.sgid_index;
	resp.ah_attr.grh.hop_limit = attr.qp.hop_limit;
	resp.ah_attr.grh.traffic_class = attr.qp.traffic_class;
	resp.ah_attr.is_global = 1;
	resp.ah_attr.port_num = attr.port_num;
	resp.path_mtu = attr.qp.mtu;
	resp.dest_qp_num = attr.qp.dest_qpn;
	resp.rq_psn = attr.qp.rq_psn;
	resp.sq_psn = attr.qp.sq_psn;
	resp.max_dest_rd_atomic = attr.qp.responder_resources;
	resp.max_rd_atomic = attr.qp.initiator_depth;
	resp.timeout = attr.qp.ack_timeout;
	resp.retry_cnt = attr.qp.retry_count;
	resp.rnr_retry = attr.qp.rnr_retry_count;
	return xr_ucma_out(cmd.response, &resp, sizeof(resp));
}

static int xr_ucma_get_event(struct xr_ucma_file *file, const char __user *in, int in_len,
			     int out_len)
{
	struct rdma_ucm_get_event cmd;
	struct xr_ucma_event *ev;
	int ret;

	/* Old 32-bit user space leaves out the padding and the ECE, as Linux allows. */
	if (out_len < sizeof(ev->resp) - sizeof(ev->resp.reserved) - sizeof(ev->resp.ece))
		return -ENOSPC;
	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	mutex_lock(&file->event_lock);
	while (list_empty(&file->events)) {
		mutex_unlock(&file->event_lock);
		if (file->filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->wait, !list_empty(&file->events)))
			return -ERESTARTSYS;
		mutex_lock(&file->event_lock);
	}
	ev = list_first_entry(&file->events, struct xr_ucma_event, list);
	/* An event is handed out once it reached user space, never lost. */
	ret = xr_ucma_out(cmd.response, &ev->resp, min_t(size_t, out_len, sizeof(ev->resp)));
	if (!ret) {
		list_del(&ev->list);
		ev->ctx->events_reported++;
		if (ev->conn_req)
			ev->ctx->backlog++;	/* read: room for another */
		if (ev->mc)
			ev->mc->events_reported++;
		kfree(ev);
	}
	mutex_unlock(&file->event_lock);
	return ret;
}

static int xr_ucma_option(struct xr_cm_id *id, u32 name, const void __user *val, u32 len)
{
	int on;
	u8 b;

	switch (name) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (len != sizeof(u8))
			return -EINVAL;
		if (copy_from_user(&b, val, sizeof(b)))
			return -EFAULT;
		return name == RDMA_OPTION_ID_TOS ? xr_cm_set_tos(id, b) :
						    xr_cm_set_ack_timeout(id, b);
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		if (len != sizeof(int))
			return -EINVAL;
		if (copy_from_user(&on, val, sizeof(on)))
			return -EFAULT;
		return name == RDMA_OPTION_ID_REUSEADDR ? xr_cm_set_reuseaddr(id, on) :
							  xr_cm_set_afonly(id, on);
	default:
		return -EOPNOTSUPP;
	}
}

static int xr_ucma_set_option(struct xr_ucma_file *file, const char __user *in, int in_len,
			      int out_len)
{
	struct rdma_ucm_set_option cmd;
	struct xr_ucma_ctx *ctx;

	ctx = xr_ucma_in_ctx(file, &cmd, sizeof(cmd), &cmd.id, in, in_len);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* RDMA_OPTION_IB (path records): an InfiniBand subnet's, not RoCE's. */
	if (cmd.level != RDMA_OPTION_ID)
		return -EOPNOTSUPP;
	return xr_ucma_option(ctx->cm_id, cmd.optname, u64_to_user_ptr(cmd.optval), cmd.optlen);
}

static void xr_ucma_lock_two(struct mutex *a, struct mutex *b)
{
	if (a == b) {
		mutex_lock(a);
	} else if (a < b) {
		mutex_lock(a);
		mutex_lock_nested(b, SINGLE_DEPTH_NESTING);
	} else {
		mutex_lock(b);
		mutex_lock_nested(a, SINGLE_DEPTH_NESTING);
	}
}

static void xr_ucma_unlock_two(struct mutex *a, struct mutex *b)
{
	mutex_unlock(a);
	if (a != b)
		mutex_unlock(b);
}

/*
 * MIGRATE_ID: the context @cmd.id of the file open as @cmd.fd moves, with
 * its waiting events, to the file this command is written to.
 */
static int xr_ucma_migrate_id(struct xr_ucma_file *file, const char __user *in, int in_len,
			      int out_len)
{
	struct rdma_ucm_migrate_resp resp = {};
	struct rdma_ucm_migrate_id cmd;
	struct xr_ucma_event *ev, *next;
	struct xr_ucma_file *old;
	struct xr_ucma_ctx *ctx;
	struct fd f;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	f = fdget(cmd.fd);
	if (!f.file)
		return -ENOENT;
	if (f.file->f_op != xr_ucma_misc.fops) {
		ret = -EINVAL;
		goto out_put;
	}
	old = f.file->private_data;
	/* The caller holds its own file's lock: take the other one's too. */
	if (old != file) {
		mutex_unlock(&file->lock);
		xr_ucma_lock_two(&file->lock, &old->lock);
	}
	ctx = xr_ucma_get(old, cmd.id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_unlock;
	}
	mutex_lock(&ctx->cm_id->lock);
	xr_ucma_lock_two(&file->event_lock, &old->event_lock);
	list_for_each_entry_safe(ev, next, &old->events, list)
		if (ev->ctx == ctx)
			list_move_tail(&ev->list, &file->events);
	ctx->file = file;
	resp.events_reported = ctx->events_reported;
	list_move_tail(&ctx->list, &file->ctxs);
	xr_ucma_unlock_two(&file->event_lock, &old->event_lock);
	mutex_unlock(&ctx->cm_id->lock);
	wake_up_interruptible(&file->wait);
	ret = xr_ucma_out(cmd.response, &resp, sizeof(resp));
out_unlock:
	if (old != file)
		mutex_unlock(&old->lock);	/* the caller unlocks its own */
out_put:
	fdput(f);
	return ret;
}

typedef int (*xr_ucma_cmd)(struct xr_ucma_file *file, const char __user *in, int in_len,
			   int out_len);

/* NOTIFY: an event of the id's QP its connection needs (rdma_notify()). */
static int xr_ucma_notify(struct xr_ucma_file *file, const char __user *in, int in_len,
			  int out_len)
{
	struct rdma_ucm_notify cmd;
	struct xr_ucma_ctx *ctx;

	ctx = xr_ucma_in_ctx(file, &cmd, sizeof(cmd), &cmd.id, in, in_len);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return xr_cm_notify(ctx->cm_id, cmd.event);
}

/* Linux's command numbers. */
/*
 * Join @addr (@addr_size bytes, as its family needs) for @ctx's id; the
 * group's number in @response.  As Linux's ucma_process_join().
 */
static int xr_ucma_join(struct xr_ucma_file *file, u32 id, u64 uid, u64 response,
			const struct sockaddr *addr, u16 addr_size, bool send_only)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct xr_ucma_ctx *ctx;
	struct xr_ucma_mc *mc;
	struct xr_cm_mc *cm_mc;
	int ret;

	if (!addr_size || addr_size != xr_ucma_addr_size(addr))
		return -EINVAL;
	ctx = xr_ucma_get(file, id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
	if (!mc)
		return -ENOMEM;
	mc->uid = uid;
	mc->ctx = ctx;
	ret = xa_alloc(&xr_ucma_mcs, &mc->id, NULL, xa_limit_31b, GFP_KERNEL);
	if (ret)
		goto err_free;
	cm_mc = xr_cm_join_multicast(ctx->cm_id, addr, send_only, mc);
	if (IS_ERR(cm_mc)) {
		ret = PTR_ERR(cm_mc);
		goto err_erase;
	}
	mc->mc = cm_mc;
	resp.id = mc->id;
	ret = xr_ucma_out(response, &resp, sizeof(resp));
	if (ret) {
		xr_cm_leave_multicast(ctx->cm_id, cm_mc);
		xr_ucma_flush_mc_events(file, mc);
		goto err_erase;
	}
	xa_store(&xr_ucma_mcs, mc->id, mc, GFP_KERNEL);
	list_add_tail(&mc->list, &ctx->mcs);
	return 0;

err_erase:
	xa_erase(&xr_ucma_mcs, mc->id);
err_free:
	kfree(mc);
	return ret;
}

static int xr_ucma_join_ip_mcast(struct xr_ucma_file *file, const char __user *in, int in_len,
				 int out_len)
{
	struct rdma_ucm_join_ip_mcast cmd;
	int ret;

	if (out_len < sizeof(struct rdma_ucm_create_id_resp))
		return -ENOSPC;
	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	return xr_ucma_join(file, cmd.id, cmd.uid, cmd.response, (struct sockaddr *)&cmd.addr,
			    xr_ucma_addr_size(&cmd.addr), false);
}

static int xr_ucma_join_mcast(struct xr_ucma_file *file, const char __user *in, int in_len,
			      int out_len)
{
	struct rdma_ucm_join_mcast cmd;
	int ret;

	if (out_len < sizeof(struct rdma_ucm_create_id_resp))
		return -ENOSPC;
	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	if (cmd.join_flags != RDMA_MC_JOIN_FLAG_FULLMEMBER &&
	    cmd.join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return -EINVAL;
	return xr_ucma_join(file, cmd.id, cmd.uid, cmd.response, (struct sockaddr *)&cmd.addr,
			    cmd.addr_size,
			    cmd.join_flags == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER);
}

/* LEAVE_MCAST: the group's events reported, which librdmacm waits for. */
static int xr_ucma_leave_mcast(struct xr_ucma_file *file, const char __user *in, int in_len,
			       int out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct xr_ucma_mc *mc;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = xr_ucma_in(&cmd, sizeof(cmd), in, in_len);
	if (ret)
		return ret;
	/* Under the table's lock, as xr_ucma_get(). */
	xa_lock(&xr_ucma_mcs);
	mc = xa_load(&xr_ucma_mcs, cmd.id);
	if (!mc)
		ret = -ENOENT;
	else if (READ_ONCE(mc->ctx->file) != file)
		ret = -EINVAL;
	else
		__xa_erase(&xr_ucma_mcs, cmd.id);
	xa_unlock(&xr_ucma_mcs);
	if (ret)
		return ret;
	list_del(&mc->list);
	xr_cm_leave_multicast(mc->ctx->cm_id, mc->mc);
	resp.events_reported = xr_ucma_flush_mc_events(file, mc);
	kfree(mc);
	return xr_ucma_out(cmd.response, &resp, sizeof(resp));
}

static const xr_ucma_cmd xr_ucma_cmds[] = {
	[RDMA_USER_CM_CMD_CREATE_ID]	= xr_ucma_create_id,
	[RDMA_USER_CM_CMD_DESTROY_ID]	= xr_ucma_destroy_id,
	[RDMA_USER_CM_CMD_BIND_IP]	= xr_ucma_bind_ip,
	[RDMA_USER_CM_CMD_RESOLVE_IP]	= xr_ucma_resolve_ip,
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = xr_ucma_resolve_route,
	[RDMA_USER_CM_CMD_QUERY_ROUTE]	= xr_ucma_query_route,
	[RDMA_USER_CM_CMD_CONNECT]	= xr_ucma_connect,
	[RDMA_USER_CM_CMD_ACCEPT]	= xr_ucma_accept,
	[RDMA_USER_CM_CMD_REJECT]	= xr_ucma_reject,
	[RDMA_USER_CM_CMD_DISCONNECT]	= xr_ucma_disconnect,
	[RDMA_USER_CM_CMD_LISTEN]	= xr_ucma_listen,
	[RDMA_USER_CM_CMD_INIT_QP_ATTR]	= xr_ucma_init_qp_attr,
	[RDMA_USER_CM_CMD_GET_EVENT]	= xr_ucma_get_event,
	[RDMA_USER_CM_CMD_SET_OPTION]	= xr_ucma_set_option,
	[RDMA_USER_CM_CMD_NOTIFY]	= xr_ucma_notify,
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = xr_ucma_join_ip_mcast,
	[RDMA_USER_CM_CMD_LEAVE_MCAST]	= xr_ucma_leave_mcast,
	[RDMA_USER_CM_CMD_MIGRATE_ID]	= xr_ucma_migrate_id,
	[RDMA_USER_CM_CMD_QUERY]	= xr_ucma_query,
	[RDMA_USER_CM_CMD_BIND]		= xr_ucma_bind,
	[RDMA_USER_CM_CMD_RESOLVE_ADDR]	= xr_ucma_resolve_addr,
	[RDMA_USER_CM_CMD_JOIN_MCAST]	= xr_ucma_join_mcast,
};

static ssize_t xr_ucma_write(struct file *filp, const char __user *buf, size_t len,
			     loff_t *pos)
{
	struct xr_ucma_file *file = filp->private_data;
	struct rdma_ucm_cmd_hdr hdr;
	u32 cmd;
	int ret;

	/* Commands write answers into the caller's memory: the opener's credentials only. */
	if (filp->f_cred != current_cred()) {
		pr_err_once("xrdma_core: process %d (%s) wrote to an rdma_cm file opened with other credentials; refused (EACCES)\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}
	if (len < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.cmd >= ARRAY_SIZE(xr_ucma_cmds))
		return -EINVAL;
	cmd = array_index_nospec(hdr.cmd, ARRAY_SIZE(xr_ucma_cmds));
	if (hdr.in + sizeof(hdr) > len)
		return -EINVAL;
	if (!xr_ucma_cmds[cmd])
		return -EOPNOTSUPP;	/* GET_OPTION: Linux has none either */
	/* GET_EVENT waits for events, not for the file's other commands. */
	if (cmd == RDMA_USER_CM_CMD_GET_EVENT)
		return xr_ucma_get_event(file, buf + sizeof(hdr), hdr.in, hdr.out) ?: len;
	mutex_lock(&file->lock);
	ret = xr_ucma_cmds[cmd](file, buf + sizeof(hdr), hdr.in, hdr.out);
	mutex_unlock(&file->lock);
	return ret ?: len;
}

static __poll_t xr_ucma_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct xr_ucma_file *file = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &file->wait, wait);
	mutex_lock(&file->event_lock);
	if (!list_empty(&file->events))
		mask = EPOLLIN | EPOLLRDNORM;
	mutex_unlock(&file->event_lock);
	return mask;
}

static int xr_ucma_open(struct inode *inode, struct file *filp)
{
	struct xr_ucma_file *file;

	file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);
	if (!file)
		return -ENOMEM;
	mutex_init(&file->lock);
	INIT_LIST_HEAD(&file->ctxs);
	mutex_init(&file->event_lock);
	INIT_LIST_HEAD(&file->events);
	init_waitqueue_head(&file->wait);
	file->filp = filp;
	filp->private_data = file;
	return stream_open(inode, filp);
}

/* Closing (and so exit or kill -9) destroys the file's ids and events. */
static int xr_ucma_release(struct inode *inode, struct file *filp)
{
	struct xr_ucma_file *file = filp->private_data;
	struct xr_ucma_ctx *ctx;

	mutex_lock(&file->lock);
	for (;;) {
		mutex_lock(&file->event_lock);
		ctx = list_first_entry_or_null(&file->ctxs, struct xr_ucma_ctx, list);
		mutex_unlock(&file->event_lock);
		if (!ctx)
			break;
		xr_ucma_destroy(file, ctx);
	}
	mutex_unlock(&file->lock);
	kfree(file);
	return 0;
}

static const struct file_operations xr_ucma_fops = {
	.owner = THIS_MODULE,
	.open = xr_ucma_open,
	.release = xr_ucma_release,
	.write = xr_ucma_write,
	.poll = xr_ucma_poll,
	.llseek = no_llseek,
};

static ssize_t abi_version_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RDMA_USER_CM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *xr_ucma_attrs[] = {
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(xr_ucma);

static struct miscdevice xr_ucma_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rdma_cm",
	.nodename = "infiniband/rdma_cm",
	.mode = 0666,
	.fops = &xr_ucma_fops,
	.groups = xr_ucma_groups,
};

/**
 * xr_ucma_chardev - the device number of /dev/infiniband/rdma_cm
 *
 * Return: it.
 */
dev_t xr_ucma_chardev(void)
{
	return xr_ucma_misc.this_device->devt;
}

/**
 * xr_ucma_init - create /dev/infiniband/rdma_cm
 *
 * Return: 0, or misc_register()'s errno (-EBUSY: Linux's rdma_ucm has it).
 */
int xr_ucma_init(void)
{
	return misc_register(&xr_ucma_misc);
}

/**
 * xr_ucma_exit - remove /dev/infiniband/rdma_cm, with no file open
 */
void xr_ucma_exit(void)
{
	misc_deregister(&xr_ucma_misc);
}
