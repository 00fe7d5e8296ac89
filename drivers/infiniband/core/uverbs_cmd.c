// SPDX-License-Identifier: GPL-2.0
/*
 * The uverbs write() command ABI of <rdma/ib_user_verbs.h>: header checks
 * as Linux makes them, then one handler per command.  The core request is
 * copied in before the file's lock is taken; handlers run with it held
 * (see uverbs_main.c), so a file's commands and its objects never race
 * each other.  REG_MR pins its memory, which may wait on page faults for
 * as long as user space likes, before it takes the lock.
 */
#include <linux/capability.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"

/* IB verbs values the ABI carries that its headers do not name. */
#define XR_LINK_LAYER_ETH	2
#define XR_ATOMIC_HCA		1	/* IB_ATOMIC_HCA */
#define XR_ACCESS_SUPPORTED	(IB_UVERBS_ACCESS_LOCAL_WRITE | \
				 IB_UVERBS_ACCESS_REMOTE_WRITE | \
				 IB_UVERBS_ACCESS_REMOTE_READ | \
				 IB_UVERBS_ACCESS_REMOTE_ATOMIC | \
				 IB_UVERBS_ACCESS_MW_BIND)
#define XR_MW_TYPE_1		1	/* IB_MW_TYPE_1 */
#define XR_MW_TYPE_2		2	/* IB_MW_TYPE_2 */
#define XR_QKEY_CONTROLLED	0x80000000u	/* IBTA 10.2.4: a privileged Q_Key */

/* Room for the largest core request of any command. */
#define XR_CMD_REQ_MAX	128

/**
 * struct xr_cmd - one command being run
 * @def: what command it is
 * @ufile: the file it came from
 * @xdev: the device (set once the file's lock is held)
 * @in: the core request in user memory (after the header)
 * @inlen: its length
 * @req: the core request, copied in before the lock
 * @resp: where the core answer goes
 * @outlen: room there
 * @udata: the driver's part
 * @is_ex: extended command (64-bit words)
 * @is_get_context: the command is GET_CONTEXT (allowed without a context)
 */
struct xr_cmd {
	const struct xr_cmd_def *def;
	struct xr_ufile *ufile;
	struct xr_device *xdev;
	const void __user *in;
	size_t inlen;
	u64 req[XR_CMD_REQ_MAX / sizeof(u64)];
	void __user *resp;
	size_t outlen;
	struct xr_udata udata;
	bool is_ex;
	bool is_get_context;
};

/* One command of the write() ABI: its handler and sizes. */
struct xr_cmd_def {
	int (*handler)(struct xr_cmd *cmd);
	u16 req_size;	/* core request, without the header */
	u16 resp_size;	/* core answer; 0: the command has none */
	bool has_udata;	/* driver data may follow */
	bool self_locking;	/* the handler takes the file's lock itself */
	enum xr_obj_type destroys;	/* xr_cmd_destroy(): the object's type */
};

/* The core request, which xr_uverbs_dispatch() copied in and checked. */
static void xr_cmd_in(struct xr_cmd *cmd, void *req, size_t size)
{
	memcpy(req, cmd->req, size);
}

/*
 * Take the file's lock for the command: the file must still have its
 * device (and not be losing it) and, except for GET_CONTEXT, a context.
 */
static int xr_cmd_lock(struct xr_cmd *cmd)
{
	struct xr_ufile *ufile = cmd->ufile;

	mutex_lock(&ufile->lock);
	cmd->xdev = ufile->xdev;
	if (!cmd->xdev || READ_ONCE(ufile->dead)) {
		mutex_unlock(&ufile->lock);
		return -EIO;
	}
	if (!ufile->has_context && !cmd->is_get_context) {
		mutex_unlock(&ufile->lock);
		return -EINVAL;
	}
	return 0;
}

static void xr_cmd_unlock(struct xr_cmd *cmd)
{
	mutex_unlock(&cmd->ufile->lock);
}

static int xr_cmd_out(struct xr_cmd *cmd, const void *resp, size_t size)
{
	if (copy_to_user(cmd->resp, resp, min(size, cmd->outlen)))
		return -EFAULT;
	return 0;
}

/* ------------------------------------------------------------ context */

static int xr_cmd_get_context(struct xr_cmd *cmd)
{
	struct ib_uverbs_get_context req;
	struct ib_uverbs_get_context_resp resp = {};
	struct xr_ufile *ufile = cmd->ufile;
	struct xr_event_file *evf;
	struct file *filp;
	int fd, ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	if (ufile->has_context)
		return -EINVAL;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	filp = xr_event_file_create(NULL, &evf);
	if (IS_ERR(filp)) {
		ret = PTR_ERR(filp);
		goto err_put_fd;
	}
	if (cmd->xdev->ops->alloc_ucontext) {
		ret = cmd->xdev->ops->alloc_ucontext(cmd->xdev, ufile,
						     &cmd->udata);
		if (ret)
			goto err_fput;
	}
	resp.async_fd = fd;
	resp.num_comp_vectors = cmd->xdev->num_comp_vectors;
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_fput;

	ufile->owner = get_task_pid(current, PIDTYPE_TGID);
	/* Event delivery reads it under the device's file-list lock. */
	mutex_lock(&ufile->udev->lock);
	ufile->async_file = evf;
	mutex_unlock(&ufile->udev->lock);
	ufile->has_context = true;
	atomic64_inc(&cmd->xdev->nr_contexts);
	fd_install(fd, filp);
	return 0;

err_fput:
	fput(filp);
	xr_event_file_put(evf);
err_put_fd:
	put_unused_fd(fd);
	return ret;
}

/* ------------------------------------------------------------ queries */

static void xr_fill_device_resp(struct xr_device *xdev,
				struct ib_uverbs_query_device_resp *r)
{
	const struct xr_device_attr *a = &xdev->attr;
	unsigned int maj = 0, min = 0, sub = 0;

	if (sscanf(xdev->fw_ver, "%u.%u.%u", &maj, &min, &sub) == 3)
		r->fw_ver = (u64)maj << 32 | min << 16 | sub;
	r->node_guid = cpu_to_be64(xdev->node_guid);
	r->sys_image_guid = cpu_to_be64(xdev->sys_image_guid);
	r->max_mr_size = a->max_mr_size;
	r->page_size_cap = a->page_size_cap;
	r->vendor_id = a->vendor_id;
	r->vendor_part_id = a->vendor_part_id;
	r->hw_ver = a->hw_ver;
	r->max_qp = a->max_qp;
	r->max_qp_wr = a->max_qp_wr;
	r->max_sge = a->max_sge;
	r->max_sge_rd = a->max_sge;
	r->max_cq = a->max_cq;
	r->max_cqe = a->max_cqe;
	r->max_mr = a->max_mr;
	r->max_pd = a->max_pd;
	r->max_ah = a->max_ah;
	r->max_srq = a->max_srq;
	r->max_srq_wr = a->max_srq ? a->max_qp_wr : 0;
	r->max_srq_sge = a->max_srq ? a->max_sge : 0;
	if (a->max_srq && xdev->ops->resize_srq)
		r->device_cap_flags |= IB_UVERBS_DEVICE_SRQ_RESIZE;
	r->max_mw = a->max_mw;
	if (a->max_mw)
		r->device_cap_flags |= IB_UVERBS_DEVICE_MEM_WINDOW |
				       IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2B;
	r->max_mcast_grp = a->max_mcast_grp;
	r->max_mcast_qp_attach = a->max_mcast_qp_attach;
	r->max_total_mcast_qp_attach = a->max_mcast_grp * a->max_mcast_qp_attach;
	r->max_qp_rd_atom = a->max_qp_rd_atom;
	r->max_res_rd_atom = a->max_qp_rd_atom * a->max_qp;
	r->max_qp_init_rd_atom = a->max_qp_rd_atom;
	/* Atomics are atomic among the device's operations, not the CPU's. */
	r->atomic_cap = XR_ATOMIC_HCA;
	r->max_pkeys = 1;
	r->local_ca_ack_delay = 15;
	r->phys_port_cnt = xdev->phys_port_cnt;
}

static int xr_cmd_query_device(struct xr_cmd *cmd)
{
	struct ib_uverbs_query_device_resp resp = {};
	struct ib_uverbs_query_device req;

	xr_cmd_in(cmd, &req, sizeof(req));
	xr_fill_device_resp(cmd->xdev, &resp);
	return xr_cmd_out(cmd, &resp, sizeof(resp));
}

static int xr_cmd_ex_query_device(struct xr_cmd *cmd)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct ib_uverbs_ex_query_device req;

	xr_cmd_in(cmd, &req, sizeof(req));
	if (req.comp_mask || req.reserved)
		return -EINVAL;
	xr_fill_device_resp(cmd->xdev, &resp.base);
	resp.timestamp_mask = cmd->xdev->attr.timestamp_mask;
	resp.hca_core_clock = cmd->xdev->attr.hca_core_clock;
	resp.response_length = min(cmd->outlen, sizeof(resp));
	return xr_cmd_out(cmd, &resp, sizeof(resp));
}

static int xr_cmd_query_port(struct xr_cmd *cmd)
{
	struct ib_uverbs_query_port_resp resp = {};
	struct ib_uverbs_query_port req;
	struct xr_port_attr pa = {};
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	if (req.port_num < 1 || req.port_num > cmd->xdev->phys_port_cnt)
		return -EINVAL;
	ret = xr_query_port(cmd->xdev, req.port_num, &pa);
	if (ret)
		return ret;
	resp.port_cap_flags = pa.port_cap_flags;
	resp.max_msg_sz = pa.max_msg_sz;
	resp.gid_tbl_len = pa.gid_tbl_len;
	resp.pkey_tbl_len = 1;
	resp.state = pa.state;
	resp.max_mtu = pa.max_mtu;
	resp.active_mtu = pa.active_mtu;
	resp.max_vl_num = 1;
	resp.active_width = pa.active_width;
	resp.active_speed = pa.active_speed;
	resp.phys_state = pa.phys_state;
	resp.link_layer = XR_LINK_LAYER_ETH;
	return xr_cmd_out(cmd, &resp, sizeof(resp));
}

/* ----------------------------------------------------------------- PD */

static int xr_cmd_alloc_pd(struct xr_cmd *cmd)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ib_uverbs_alloc_pd req;
	struct xr_pd *pd;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	pd = kzalloc(sizeof(*pd), GFP_KERNEL_ACCOUNT);
	if (!pd)
		return -ENOMEM;
	ret = cmd->xdev->ops->alloc_pd(cmd->xdev, pd);
	if (ret)
		goto err_free;
	ret = xr_uobj_add(cmd->ufile, &pd->uobj, XR_OBJ_PD, pd->pdn);
	if (ret)
		goto err_dealloc;
	resp.pd_handle = pd->uobj.handle;
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_del;
	return 0;

err_del:
	xr_uobj_del(cmd->ufile, &pd->uobj);
err_dealloc:
	cmd->xdev->ops->dealloc_pd(cmd->xdev, pd);
err_free:
	kfree(pd);
	return ret;
}

/* ----------------------------------------------------------------- MR */

static int xr_check_access(u32 access)
{
	if (access & ~XR_ACCESS_SUPPORTED)
		return -EOPNOTSUPP;
	/* Remote write or atomic access needs local write, as in Linux. */
	if ((access & (IB_UVERBS_ACCESS_REMOTE_WRITE | IB_UVERBS_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_UVERBS_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/*
 * Runs without the file's lock at first: pinning may wait on page faults
 * (of a FUSE mapping, say) for as long as user space likes, and nobody else
 * may wait for that.  The lock is taken once the pages are pinned.
 */
static int xr_cmd_reg_mr(struct xr_cmd *cmd)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uverbs_reg_mr req;
	struct xr_device *xdev;
	struct xr_umem *umem;
	struct xr_mr *mr;
	struct xr_pd *pd;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	ret = xr_check_access(req.access_flags);
	if (ret)
		return ret;
	if ((req.start & ~PAGE_MASK) != (req.hca_va & ~PAGE_MASK) ||
	    !req.length || req.length > cmd->ufile->max_mr_size)
		return -EINVAL;
	umem = xr_umem_pin(req.start, req.length,
			   req.access_flags & (IB_UVERBS_ACCESS_LOCAL_WRITE |
					       IB_UVERBS_ACCESS_REMOTE_WRITE |
					       IB_UVERBS_ACCESS_REMOTE_ATOMIC));
	if (IS_ERR(umem))
		return PTR_ERR(umem);

	ret = xr_cmd_lock(cmd);
	if (ret)
		goto err_release;
	xdev = cmd->xdev;
	pd = xr_uobj_lookup(cmd->ufile, req.pd_handle, XR_OBJ_PD);
	if (!pd) {
		ret = -EINVAL;
		goto err_unlock;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr) {
		ret = -ENOMEM;
		goto err_unlock;
	}
	mr->pd = pd;
	mr->iova = req.hca_va;
	mr->length = req.length;
	mr->access = req.access_flags;
	mr->umem = umem;
	ret = xr_umem_map(umem, xdev->dma_device);
	if (ret)
		goto err_free;
	ret = xdev->ops->reg_mr(xdev, mr);
	if (ret)
		goto err_free;
	ret = xr_uobj_add(cmd->ufile, &mr->uobj, XR_OBJ_MR, 0);
	if (ret)
		goto err_dereg;
	resp.mr_handle = mr->uobj.handle;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_del;
	atomic_inc(&pd->uobj.usecnt);
	xr_cmd_unlock(cmd);
	return 0;

err_del:
	xr_uobj_del(cmd->ufile, &mr->uobj);
err_dereg:
	xdev->ops->dereg_mr(xdev, mr);
err_free:
	/* NULL: the driver took the pages, which the device may still use. */
	umem = mr->umem;
	kfree(mr);
err_unlock:
	xr_cmd_unlock(cmd);
err_release:
	if (umem)
		xr_umem_release(umem);
	return ret;
}

/* ----------------------------------------------------------------- MW */

static int xr_cmd_alloc_mw(struct xr_cmd *cmd)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct xr_device *xdev = cmd->xdev;
	struct ib_uverbs_alloc_mw req;
	struct xr_mw *mw;
	struct xr_pd *pd;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	pd = xr_uobj_lookup(cmd->ufile, req.pd_handle, XR_OBJ_PD);
	if (!pd)
		return -EINVAL;
	if (req.mw_type != XR_MW_TYPE_1 && req.mw_type != XR_MW_TYPE_2)
		return -EINVAL;
	if (!xdev->ops->alloc_mw)
		return -EOPNOTSUPP;
	mw = kzalloc(sizeof(*mw), GFP_KERNEL_ACCOUNT);
	if (!mw)
		return -ENOMEM;
	mw->pd = pd;
	mw->type = req.mw_type;
	ret = xdev->ops->alloc_mw(xdev, mw);
	if (ret)
		goto err_free;
	ret = xr_uobj_add(cmd->ufile, &mw->uobj, XR_OBJ_MW, 0);
	if (ret)
		goto err_dealloc;
	resp.mw_handle = mw->uobj.handle;
	resp.rkey = mw->rkey;
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_del;
	atomic_inc(&pd->uobj.usecnt);
	return 0;

err_del:
	xr_uobj_del(cmd->ufile, &mw->uobj);
err_dealloc:
	xdev->ops->dealloc_mw(xdev, mw);
err_free:
	kfree(mw);
	return ret;
}

/* ----------------------------------------------------------------- CQ */

static int xr_cmd_create_comp_channel(struct xr_cmd *cmd)
{
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct ib_uverbs_create_comp_channel req;
	struct xr_event_file *evf;
	struct file *filp;
	int fd, ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	filp = xr_event_file_create(cmd->ufile, &evf);
	if (IS_ERR(filp)) {
		ret = PTR_ERR(filp);
		goto err_put_fd;
	}
	/* The channel lives while its file is open or a CQ uses it. */
	xr_event_file_put(evf);
	resp.fd = fd;
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_fput;
	fd_install(fd, filp);
	return 0;

err_fput:
	fput(filp);
err_put_fd:
	put_unused_fd(fd);
	return ret;
}

static int xr_cmd_create_cq(struct xr_cmd *cmd)
{
	struct ib_uverbs_create_cq_resp resp = {};
	struct xr_device *xdev = cmd->xdev;
	struct ib_uverbs_create_cq req;
	struct xr_cq *cq;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	if (!req.cqe || req.cqe > xdev->attr.max_cqe ||
	    req.comp_vector >= xdev->num_comp_vectors)
		return -EINVAL;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL_ACCOUNT);
	if (!cq)
		return -ENOMEM;
	if (req.comp_channel >= 0) {
		cq->channel = xr_event_file_get_channel(req.comp_channel,
							cmd->ufile);
		if (IS_ERR(cq->channel)) {
			ret = PTR_ERR(cq->channel);
			cq->channel = NULL;
			goto err_free;
		}
	}
	cq->cqe = req.cqe;
	cq->comp_vector = req.comp_vector;
	cq->uobj.ufile = cmd->ufile;
	cq->uobj.user_handle = req.user_handle;
	ret = xdev->ops->create_cq(xdev, cq, &cmd->udata);
	if (ret)
		goto err_put_channel;
	ret = xr_uobj_add(cmd->ufile, &cq->uobj, XR_OBJ_CQ, cq->cqn);
	if (ret)
		goto err_destroy;
	resp.cq_handle = cq->uobj.handle;
	resp.cqe = cq->cqe;
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_del;
	return 0;

err_del:
	xr_uobj_del(cmd->ufile, &cq->uobj);
err_destroy:
	xdev->ops->destroy_cq(xdev, cq);
err_put_channel:
	if (cq->channel)
		xr_event_file_put(cq->channel);
err_free:
	kfree(cq);
	return ret;
}

/* ----------------------------------------------------------------- QP */

static void xr_qp_cap_to_resp(const struct xr_qp *qp,
			      struct ib_uverbs_create_qp_resp *resp)
{
	resp->max_send_wr = qp->cap.max_send_wr;
	resp->max_recv_wr = qp->cap.max_recv_wr;
	resp->max_send_sge = qp->cap.max_send_sge;
	resp->max_recv_sge = qp->cap.max_recv_sge;
	resp->max_inline_data = qp->cap.max_inline_data;
}

static int xr_cmd_create_qp(struct xr_cmd *cmd)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct xr_device *xdev = cmd->xdev;
	const struct xr_device_attr *a = &xdev->attr;
	struct ib_uverbs_create_qp req;
	struct xr_qp *qp;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	if (req.qp_type != IB_UVERBS_QPT_RC && req.qp_type != IB_UVERBS_QPT_UC &&
	    req.qp_type != IB_UVERBS_QPT_UD)
		return -EOPNOTSUPP;
	/* A queue of no entries is allowed, as Linux allows it (qperf asks it). */
	if (req.max_send_wr > a->max_qp_wr || req.max_recv_wr > a->max_qp_wr ||
	    req.max_send_sge > a->max_sge || req.max_recv_sge > a->max_sge)
		return -EINVAL;

	qp = kzalloc(sizeof(*qp), GFP_KERNEL_ACCOUNT);
	if (!qp)
		return -ENOMEM;
	INIT_LIST_HEAD(&qp->mcast_list);
	qp->pd = xr_uobj_lookup(cmd->ufile, req.pd_handle, XR_OBJ_PD);
	qp->send_cq = xr_uobj_lookup(cmd->ufile, req.send_cq_handle, XR_OBJ_CQ);
	qp->recv_cq = xr_uobj_lookup(cmd->ufile, req.recv_cq_handle, XR_OBJ_CQ);
	if (req.is_srq)
		qp->srq = xr_uobj_lookup(cmd->ufile, req.srq_handle, XR_OBJ_SRQ);
	if (!qp->pd || !qp->send_cq || !qp->recv_cq || (req.is_srq && !qp->srq)) {
		ret = -EINVAL;
		goto err_free;
	}
	qp->uobj.ufile = cmd->ufile;
	qp->uobj.user_handle = req.user_handle;
	qp->qp_type = req.qp_type;
	qp->sq_sig_all = req.sq_sig_all;
	qp->cap.max_send_wr = req.max_send_wr;
	qp->cap.max_send_sge = max_t(u32, req.max_send_sge, 1);
	/* With an SRQ the QP has no receive queue of its own. */
	if (!qp->srq) {
		qp->cap.max_recv_wr = req.max_recv_wr;
		qp->cap.max_recv_sge = max_t(u32, req.max_recv_sge, 1);
	}
	qp->cap.max_inline_data = req.max_inline_data;
	ret = xdev->ops->create_qp(xdev, qp, &cmd->udata);
	if (ret)
		goto err_free;
	ret = xr_uobj_add(cmd->ufile, &qp->uobj, XR_OBJ_QP, qp->qpn);
	if (ret)
		goto err_destroy;
	resp.qp_handle = qp->uobj.handle;
	resp.qpn = qp->qpn;
	xr_qp_cap_to_resp(qp, &resp);
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_del;
	atomic_inc(&qp->pd->uobj.usecnt);
	atomic_inc(&qp->send_cq->uobj.usecnt);
	atomic_inc(&qp->recv_cq->uobj.usecnt);
	if (qp->srq)
		atomic_inc(&qp->srq->uobj.usecnt);
	return 0;

err_del:
	xr_uobj_del(cmd->ufile, &qp->uobj);
err_destroy:
	xdev->ops->destroy_qp(xdev, qp);
err_free:
	kfree(qp);
	return ret;
}

/* One cell of the IB spec's QP state transition table. */
struct xr_qp_transition {
	bool valid;
	u32 req;
	u32 opt;
};

/*
 * The RC, UC and UD rows of the IB spec's QP state transition table (as
 * Linux's ib_modify_qp_is_ok()): which transitions exist, and for each,
 * the attributes it requires and those it allows.  Alternate paths and
 * path migration are not supported and so are not allowed.
 */
static const struct xr_qp_transition xr_rc_qp_table[XR_QPS_MAX][XR_QPS_MAX] = {
	[XR_QPS_RESET] = {
		[XR_QPS_RESET] = { true },
		[XR_QPS_INIT] = { true, XR_QP_PKEY_INDEX | XR_QP_PORT | XR_QP_ACCESS_FLAGS },
	},
	[XR_QPS_INIT] = {
		[XR_QPS_INIT] = { true, 0,
			       XR_QP_PKEY_INDEX | XR_QP_PORT | XR_QP_ACCESS_FLAGS },
		[XR_QPS_RTR] = { true,
			      XR_QP_AV | XR_QP_PATH_MTU | XR_QP_DEST_QPN | XR_QP_RQ_PSN |
			      XR_QP_MAX_DEST_RD_ATOMIC | XR_QP_MIN_RNR_TIMER,
			      XR_QP_ACCESS_FLAGS | XR_QP_PKEY_INDEX },
	},
	[XR_QPS_RTR] = {
		[XR_QPS_RTS] = { true,
			      XR_QP_TIMEOUT | XR_QP_RETRY_CNT | XR_QP_RNR_RETRY |
			      XR_QP_SQ_PSN | XR_QP_MAX_QP_RD_ATOMIC,
			      XR_QP_CUR_STATE | XR_QP_ACCESS_FLAGS |
			      XR_QP_MIN_RNR_TIMER },
	},
	[XR_QPS_RTS] = {
		[XR_QPS_RTS] = { true, 0,
			      XR_QP_CUR_STATE | XR_QP_ACCESS_FLAGS |
			      XR_QP_MIN_RNR_TIMER },
		[XR_QPS_SQD] = { true, 0, XR_QP_EN_SQD_ASYNC_NOTIFY },
	},
	[XR_QPS_SQD] = {
		[XR_QPS_RTS] = { true, 0,
			      XR_QP_CUR_STATE | XR_QP_ACCESS_FLAGS |
			      XR_QP_MIN_RNR_TIMER },
		[XR_QPS_SQD] = { true, 0,
			      XR_QP_AV | XR_QP_TIMEOUT | XR_QP_RETRY_CNT |
			      XR_QP_RNR_RETRY | XR_QP_MAX_QP_RD_ATOMIC |
			      XR_QP_MAX_DEST_RD_ATOMIC | XR_QP_ACCESS_FLAGS |
			      XR_QP_PKEY_INDEX | XR_QP_MIN_RNR_TIMER | XR_QP_PORT },
	},
	[XR_QPS_SQE] = {},
	[XR_QPS_ERR] = {},
};

static const struct xr_qp_transition xr_uc_qp_table[XR_QPS_MAX][XR_QPS_MAX] = {
	[XR_QPS_RESET] = {
		[XR_QPS_RESET] = { true },
		[XR_QPS_INIT] = { true, XR_QP_PKEY_INDEX | XR_QP_PORT | XR_QP_ACCESS_FLAGS },
	},
	[XR_QPS_INIT] = {
		[XR_QPS_INIT] = { true, 0,
			       XR_QP_PKEY_INDEX | XR_QP_PORT | XR_QP_ACCESS_FLAGS },
		[XR_QPS_RTR] = { true,
			      XR_QP_AV | XR_QP_PATH_MTU | XR_QP_DEST_QPN | XR_QP_RQ_PSN,
			      XR_QP_ACCESS_FLAGS | XR_QP_PKEY_INDEX },
	},
	[XR_QPS_RTR] = {
		[XR_QPS_RTS] = { true, XR_QP_SQ_PSN, XR_QP_CUR_STATE | XR_QP_ACCESS_FLAGS },
	},
	[XR_QPS_RTS] = {
		[XR_QPS_RTS] = { true, 0, XR_QP_CUR_STATE | XR_QP_ACCESS_FLAGS },
		[XR_QPS_SQD] = { true, 0, XR_QP_EN_SQD_ASYNC_NOTIFY },
	},
	[XR_QPS_SQD] = {
		[XR_QPS_RTS] = { true, 0, XR_QP_CUR_STATE | XR_QP_ACCESS_FLAGS },
		[XR_QPS_SQD] = { true, 0, XR_QP_AV | XR_QP_ACCESS_FLAGS | XR_QP_PKEY_INDEX },
	},
	[XR_QPS_SQE] = {},
	[XR_QPS_ERR] = {},
};

static const struct xr_qp_transition xr_ud_qp_table[XR_QPS_MAX][XR_QPS_MAX] = {
	[XR_QPS_RESET] = {
		[XR_QPS_RESET] = { true },
		[XR_QPS_INIT] = { true, XR_QP_PKEY_INDEX | XR_QP_PORT | XR_QP_QKEY },
	},
	[XR_QPS_INIT] = {
		[XR_QPS_INIT] = { true, 0, XR_QP_PKEY_INDEX | XR_QP_PORT | XR_QP_QKEY },
		[XR_QPS_RTR] = { true, 0, XR_QP_PKEY_INDEX | XR_QP_QKEY },
	},
	[XR_QPS_RTR] = {
		[XR_QPS_RTS] = { true, XR_QP_SQ_PSN, XR_QP_CUR_STATE | XR_QP_QKEY },
	},
	[XR_QPS_RTS] = {
		[XR_QPS_RTS] = { true, 0, XR_QP_CUR_STATE | XR_QP_QKEY },
		[XR_QPS_SQD] = { true, 0, XR_QP_EN_SQD_ASYNC_NOTIFY },
	},
	[XR_QPS_SQD] = {
		[XR_QPS_RTS] = { true, 0, XR_QP_CUR_STATE | XR_QP_QKEY },
		[XR_QPS_SQD] = { true, 0, XR_QP_PKEY_INDEX | XR_QP_QKEY },
	},
	[XR_QPS_SQE] = {},
	[XR_QPS_ERR] = {},
};

static bool xr_modify_qp_is_ok(u8 qp_type, u32 cur, u32 next, u32 mask)
{
	const struct xr_qp_transition *t;

	if (cur >= XR_QPS_MAX || next >= XR_QPS_MAX)
		return false;
	/* Any state may go to RESET or ERR, with no other attribute. */
	if (next == XR_QPS_RESET || next == XR_QPS_ERR) {
		if (!(mask & XR_QP_STATE) && cur != next)
			return false;
		return !(mask & ~(XR_QP_STATE | XR_QP_CUR_STATE));
	}
	switch (qp_type) {
	case IB_UVERBS_QPT_UD:
		t = &xr_ud_qp_table[cur][next];
		break;
	case IB_UVERBS_QPT_UC:
		t = &xr_uc_qp_table[cur][next];
		break;
	default:
		t = &xr_rc_qp_table[cur][next];
		break;
	}
	if (!t->valid || (mask & t->req) != t->req)
		return false;
	return !(mask & ~(t->req | t->opt | XR_QP_STATE));
}

/* Keep the attributes that a modify set, for queries and RDMA netlink. */
static void xr_qp_save_attr(struct xr_qp_attr *to,
			    const struct xr_qp_attr *from, u32 mask)
{
	to->qp_state = from->qp_state;
	if (mask & XR_QP_PATH_MTU)
		to->path_mtu = from->path_mtu;
	if (mask & XR_QP_RQ_PSN)
		to->rq_psn = from->rq_psn;
	if (mask & XR_QP_SQ_PSN)
		to->sq_psn = from->sq_psn;
	if (mask & XR_QP_DEST_QPN)
		to->dest_qp_num = from->dest_qp_num;
	if (mask & XR_QP_QKEY)
		to->qkey = from->qkey;
	if (mask & XR_QP_ACCESS_FLAGS)
		to->qp_access_flags = from->qp_access_flags;
	if (mask & XR_QP_PORT)
		to->port_num = from->port_num;
	if (mask & XR_QP_TIMEOUT)
		to->timeout = from->timeout;
	if (mask & XR_QP_RETRY_CNT)
		to->retry_cnt = from->retry_cnt;
	if (mask & XR_QP_RNR_RETRY)
		to->rnr_retry = from->rnr_retry;
	if (mask & XR_QP_MIN_RNR_TIMER)
		to->min_rnr_timer = from->min_rnr_timer;
	if (mask & XR_QP_MAX_QP_RD_ATOMIC)
		to->max_rd_atomic = from->max_rd_atomic;
	if (mask & XR_QP_MAX_DEST_RD_ATOMIC)
		to->max_dest_rd_atomic = from->max_dest_rd_atomic;
	if (mask & XR_QP_AV) {
		memcpy(to->dgid, from->dgid, sizeof(to->dgid));
		to->sgid_index = from->sgid_index;
		to->hop_limit = from->hop_limit;
		to->traffic_class = from->traffic_class;
	}
}

static int xr_cmd_modify_qp(struct xr_cmd *cmd)
{
	struct xr_device *xdev = cmd->xdev;
	struct ib_uverbs_modify_qp req;
	struct xr_qp_attr attr = {};
	u32 mask, next;
	struct xr_qp *qp;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	qp = xr_uobj_lookup(cmd->ufile, req.qp_handle, XR_OBJ_QP);
	if (!qp)
		return -EINVAL;
	mask = req.attr_mask;
	if (mask & ~XR_QP_LEGACY_MASK)
		return -EOPNOTSUPP;
	if ((mask & XR_QP_CUR_STATE) && req.cur_qp_state != qp->state)
		return -EINVAL;
	next = mask & XR_QP_STATE ? req.qp_state : qp->state;
	if (!xr_modify_qp_is_ok(qp->qp_type, qp->state, next, mask))
		return -EINVAL;

	/* Values of the attributes present, as the device expects them. */
	if ((mask & XR_QP_PORT) && req.port_num != 1)
		return -EINVAL;
	if ((mask & XR_QP_PKEY_INDEX) && req.pkey_index != 0)
		return -EINVAL;
	if ((mask & XR_QP_ACCESS_FLAGS) &&
	    (req.qp_access_flags & ~(IB_UVERBS_ACCESS_REMOTE_WRITE |
				     IB_UVERBS_ACCESS_REMOTE_READ |
				     IB_UVERBS_ACCESS_REMOTE_ATOMIC |
				     IB_UVERBS_ACCESS_LOCAL_WRITE)))
		return -EINVAL;
	if ((mask & XR_QP_PATH_MTU) && (req.path_mtu < 1 || req.path_mtu > 5))
		return -EINVAL;
	if ((mask & XR_QP_MAX_QP_RD_ATOMIC) &&
	    req.max_rd_atomic > xdev->attr.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & XR_QP_MAX_DEST_RD_ATOMIC) &&
	    req.max_dest_rd_atomic > xdev->attr.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & XR_QP_AV) &&
	    (!req.dest.is_global || req.dest.port_num > 1))
		return -EINVAL;	/* RoCE needs a GRH */
	/* A field whose bit is not in the mask is ignored, whatever it holds. */
	if ((mask & XR_QP_TIMEOUT) && req.timeout > 31)
		return -EINVAL;
	if ((mask & XR_QP_MIN_RNR_TIMER) && req.min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & XR_QP_RETRY_CNT) && req.retry_cnt > 7)
		return -EINVAL;
	if ((mask & XR_QP_RNR_RETRY) && req.rnr_retry > 7)
		return -EINVAL;
	if ((mask & XR_QP_DEST_QPN) && req.dest_qp_num > 0xffffff)
		return -EINVAL;
	/*
	 * A controlled Q_Key (bit 31; the GSI QP's 0x80010000 is one) would let
	 * a user's datagrams pass for the kernel's management traffic: only
	 * CAP_NET_RAW may set one, as Linux (6.4 on) rules.
	 */
	if ((mask & XR_QP_QKEY) && (req.qkey & XR_QKEY_CONTROLLED) && !capable(CAP_NET_RAW))
		return -EPERM;

	attr.qp_state = next;
	attr.path_mtu = req.path_mtu;
	attr.rq_psn = req.rq_psn & 0xffffff;
	attr.sq_psn = req.sq_psn & 0xffffff;
	attr.dest_qp_num = req.dest_qp_num;
	attr.qkey = req.qkey;
	attr.qp_access_flags = req.qp_access_flags & ~IB_UVERBS_ACCESS_LOCAL_WRITE;
	attr.port_num = 1;
	attr.timeout = req.timeout;
	attr.retry_cnt = req.retry_cnt;
	attr.rnr_retry = req.rnr_retry;
	attr.min_rnr_timer = req.min_rnr_timer;
	attr.max_rd_atomic = req.max_rd_atomic;
	attr.max_dest_rd_atomic = req.max_dest_rd_atomic;
	memcpy(attr.dgid, req.dest.dgid, sizeof(attr.dgid));
	attr.sgid_index = req.dest.sgid_index;
	attr.hop_limit = req.dest.hop_limit;
	attr.traffic_class = req.dest.traffic_class;
	if (mask & XR_QP_AV) {
		/* The next hop's MAC, through ARP or ND, as Linux does. */
		ret = xr_resolve_dmac(xdev, 1, attr.sgid_index, attr.dgid,
				      attr.dmac);
		if (ret)
			return ret;
	}

	ret = xdev->ops->modify_qp(xdev, qp, &attr, mask & ~XR_QP_CUR_STATE);
	if (ret)
		return ret;
	/* Under the lock that RDMA netlink reads QPs with (restrack.c). */
	xa_lock(&xdev->res[XR_OBJ_QP]);
	qp->state = next;
	xr_qp_save_attr(&qp->attr, &attr, mask);
	xa_unlock(&xdev->res[XR_OBJ_QP]);
	return 0;
}

static int xr_cmd_query_qp(struct xr_cmd *cmd)
{
	struct ib_uverbs_query_qp_resp resp = {};
	struct ib_uverbs_query_qp req;
	struct xr_qp_attr attr = {};
	struct xr_qp *qp;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	qp = xr_uobj_lookup(cmd->ufile, req.qp_handle, XR_OBJ_QP);
	if (!qp)
		return -EINVAL;
	ret = cmd->xdev->ops->query_qp(cmd->xdev, qp, &attr);
	if (ret)
		return ret;
	if (qp->qp_type != IB_UVERBS_QPT_UD) {
		memcpy(resp.dest.dgid, attr.dgid, sizeof(attr.dgid));
		resp.dest.sgid_index = attr.sgid_index;
		resp.dest.hop_limit = attr.hop_limit;
		resp.dest.traffic_class = attr.traffic_class;
		resp.dest.is_global = 1;
		resp.dest.port_num = attr.port_num;
	}
	resp.qkey = attr.qkey;
	resp.max_send_wr = qp->cap.max_send_wr;
	resp.max_recv_wr = qp->cap.max_recv_wr;
	resp.max_send_sge = qp->cap.max_send_sge;
	resp.max_recv_sge = qp->cap.max_recv_sge;
	resp.max_inline_data = qp->cap.max_inline_data;
	resp.rq_psn = attr.rq_psn;
	resp.sq_psn = attr.sq_psn;
	resp.dest_qp_num = attr.dest_qp_num;
	resp.qp_access_flags = attr.qp_access_flags;
	resp.qp_state = attr.qp_state;
	resp.cur_qp_state = attr.qp_state;
	resp.path_mtu = attr.path_mtu;
	resp.max_rd_atomic = attr.max_rd_atomic;
	resp.max_dest_rd_atomic = attr.max_dest_rd_atomic;
	resp.min_rnr_timer = attr.min_rnr_timer;
	resp.port_num = attr.port_num;
	resp.timeout = attr.timeout;
	resp.retry_cnt = attr.retry_cnt;
	resp.rnr_retry = attr.rnr_retry;
	resp.sq_sig_all = qp->sq_sig_all;
	return xr_cmd_out(cmd, &resp, sizeof(resp));
}

/* ---------------------------------------------------------------- SRQ */

static int xr_cmd_create_srq(struct xr_cmd *cmd)
{
	struct ib_uverbs_create_srq_resp resp = {};
	struct xr_device *xdev = cmd->xdev;
	struct ib_uverbs_create_srq req;
	struct xr_srq *srq;
	struct xr_pd *pd;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	if (!xdev->ops->create_srq)
		return -EOPNOTSUPP;
	pd = xr_uobj_lookup(cmd->ufile, req.pd_handle, XR_OBJ_PD);
	if (!pd)
		return -EINVAL;
	/* As Linux: a limit is set with MODIFY_SRQ, never at creation. */
	if (!req.max_wr || req.max_wr > xdev->attr.max_qp_wr ||
	    req.max_sge > xdev->attr.max_sge)
		return -EINVAL;
	srq = kzalloc(sizeof(*srq), GFP_KERNEL_ACCOUNT);
	if (!srq)
		return -ENOMEM;
	srq->pd = pd;
	srq->max_wr = req.max_wr;
	srq->max_sge = max_t(u32, req.max_sge, 1);
	srq->uobj.ufile = cmd->ufile;
	srq->uobj.user_handle = req.user_handle;
	ret = xdev->ops->create_srq(xdev, srq, &cmd->udata);
	if (ret)
		goto err_free;
	ret = xr_uobj_add(cmd->ufile, &srq->uobj, XR_OBJ_SRQ, srq->srqn);
	if (ret)
		goto err_destroy;
	resp.srq_handle = srq->uobj.handle;
	resp.max_wr = srq->max_wr;
	resp.max_sge = srq->max_sge;
	resp.srqn = srq->srqn;
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_del;
	atomic_inc(&pd->uobj.usecnt);
	return 0;

err_del:
	xr_uobj_del(cmd->ufile, &srq->uobj);
err_destroy:
	xdev->ops->destroy_srq(xdev, srq);
err_free:
	kfree(srq);
	return ret;
}

#define XR_SRQ_MAX_WR	1	/* IB_SRQ_MAX_WR */
#define XR_SRQ_LIMIT	2	/* IB_SRQ_LIMIT */

/*
 * As rxe: a new size first (the driver answers the new ring through the
 * request's driver data), then the limit, checked against the new size.
 */
static int xr_cmd_modify_srq(struct xr_cmd *cmd)
{
	struct xr_device *xdev = cmd->xdev;
	struct ib_uverbs_modify_srq req;
	struct xr_srq *srq;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	srq = xr_uobj_lookup(cmd->ufile, req.srq_handle, XR_OBJ_SRQ);
	if (!srq)
		return -EINVAL;
	if (req.attr_mask & ~(XR_SRQ_MAX_WR | XR_SRQ_LIMIT))
		return -EINVAL;
	if (req.attr_mask & XR_SRQ_MAX_WR) {
		if (!xdev->ops->resize_srq)
			return -EOPNOTSUPP;
		if (!req.max_wr || req.max_wr > xdev->attr.max_qp_wr)
			return -EINVAL;
		if ((req.attr_mask & XR_SRQ_LIMIT) && req.srq_limit >= req.max_wr)
			return -EINVAL;
		ret = xdev->ops->resize_srq(xdev, srq, req.max_wr, &cmd->udata);
		if (ret)
			return ret;
	}
	if (!(req.attr_mask & XR_SRQ_LIMIT))
		return 0;
	if (req.srq_limit >= srq->max_wr)
		return -EINVAL;
	return xdev->ops->modify_srq(xdev, srq, req.srq_limit);
}

static int xr_cmd_query_srq(struct xr_cmd *cmd)
{
	struct ib_uverbs_query_srq_resp resp = {};
	struct ib_uverbs_query_srq req;
	struct xr_srq *srq;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	srq = xr_uobj_lookup(cmd->ufile, req.srq_handle, XR_OBJ_SRQ);
	if (!srq)
		return -EINVAL;
	ret = cmd->xdev->ops->query_srq(cmd->xdev, srq, &resp.srq_limit);
	if (ret)
		return ret;
	resp.max_wr = srq->max_wr;
	resp.max_sge = srq->max_sge;
	return xr_cmd_out(cmd, &resp, sizeof(resp));
}

/* ----------------------------------------------------------- multicast */

/* ATTACH_MCAST and DETACH_MCAST: the QP's GID filter, as ib_uverbs. */
static int xr_cmd_mcast(struct xr_cmd *cmd, bool attach)
{
	struct ib_uverbs_attach_mcast req;
	struct xr_qp *qp;

	BUILD_BUG_ON(sizeof(req) != sizeof(struct ib_uverbs_detach_mcast));
	xr_cmd_in(cmd, &req, sizeof(req));
	qp = xr_uobj_lookup(cmd->ufile, req.qp_handle, XR_OBJ_QP);
	if (!qp)
		return -EINVAL;
	if (!cmd->xdev->ops->attach_mcast)
		return -EOPNOTSUPP;
	if (!attach)
		return xr_mcast_detach(cmd->xdev, qp, req.gid);
	if (qp->qp_type != IB_UVERBS_QPT_UD || !xr_gid_is_mcast(req.gid))
		return -EINVAL;
	return xr_mcast_attach(cmd->xdev, qp, req.gid);
}

static int xr_cmd_attach_mcast(struct xr_cmd *cmd)
{
	return xr_cmd_mcast(cmd, true);
}

static int xr_cmd_detach_mcast(struct xr_cmd *cmd)
{
	return xr_cmd_mcast(cmd, false);
}

/* ----------------------------------------------------------------- AH */

/*
 * As Linux's ib_uverbs: a RoCE address needs a GRH with a source GID of
 * the port's table; the next hop's MAC is resolved here, as for an RC
 * QP's path, and answered to the driver's library, which puts the whole
 * address vector into each work request.
 */
static int xr_cmd_create_ah(struct xr_cmd *cmd)
{
	struct ib_uverbs_create_ah_resp resp = {};
	struct xr_device *xdev = cmd->xdev;
	struct ib_uverbs_create_ah req;
	const struct ib_uverbs_global_route *grh = &req.attr.grh;
	struct xr_ah *ah;
	struct xr_pd *pd;
	int ret;

	xr_cmd_in(cmd, &req, sizeof(req));
	pd = xr_uobj_lookup(cmd->ufile, req.pd_handle, XR_OBJ_PD);
	if (!pd)
		return -EINVAL;
	if (req.attr.port_num < 1 || req.attr.port_num > xdev->phys_port_cnt ||
	    !req.attr.is_global || grh->sgid_index >= XR_GID_TBL_LEN)
		return -EINVAL;
	ah = kzalloc(sizeof(*ah), GFP_KERNEL_ACCOUNT);
	if (!ah)
		return -ENOMEM;
	ah->pd = pd;
	memcpy(ah->dgid, grh->dgid, sizeof(ah->dgid));
	/* Only its 20 bits count: UCX passes ~0 on purpose, Linux takes it. */
	ah->flow_label = grh->flow_label & 0xfffff;
	ah->sgid_index = grh->sgid_index;
	ah->hop_limit = grh->hop_limit;
	ah->traffic_class = grh->traffic_class;
	ah->uobj.user_handle = req.user_handle;
	ret = xr_resolve_dmac(xdev, req.attr.port_num, ah->sgid_index, ah->dgid,
			      ah->dmac);
	if (ret)
		goto err_free;
	if (xdev->ops->create_ah) {
		ret = xdev->ops->create_ah(xdev, ah, &cmd->udata);
		if (ret)
			goto err_free;
	}
	ret = xr_uobj_add(cmd->ufile, &ah->uobj, XR_OBJ_AH, 0);
	if (ret)
		goto err_free;
	resp.ah_handle = ah->uobj.handle;
	ret = xr_cmd_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_del;
	atomic_inc(&pd->uobj.usecnt);
	return 0;

err_del:
	xr_uobj_del(cmd->ufile, &ah->uobj);
err_free:
	kfree(ah);
	return ret;
}

/* ----------------------------------------------------------- destroy */

/*
 * Each destroy request is the object's handle, after the answer's address
 * in those that answer (DESTROY_CQ, _QP and _SRQ).
 */
static_assert(offsetof(struct ib_uverbs_dealloc_pd, pd_handle) == 0);
static_assert(offsetof(struct ib_uverbs_dereg_mr, mr_handle) == 0);
static_assert(offsetof(struct ib_uverbs_dealloc_mw, mw_handle) == 0);
static_assert(offsetof(struct ib_uverbs_destroy_ah, ah_handle) == 0);
static_assert(offsetof(struct ib_uverbs_destroy_cq, cq_handle) == sizeof(u64));
static_assert(offsetof(struct ib_uverbs_destroy_qp, qp_handle) == sizeof(u64));
static_assert(offsetof(struct ib_uverbs_destroy_srq, srq_handle) == sizeof(u64));
/* A QP's and an SRQ's answer: the async events reported. */
static_assert(sizeof(struct ib_uverbs_destroy_qp_resp) == sizeof(u32));
static_assert(sizeof(struct ib_uverbs_destroy_srq_resp) == sizeof(u32));

/*
 * DEALLOC_PD, DEREG_MR, DEALLOC_MW, DESTROY_CQ, DESTROY_QP, DESTROY_SRQ and
 * DESTROY_AH: one path for every kind of object (xr_uobj_destroy()), as
 * Linux's uverbs_destroy_uobject().
 */
static int xr_cmd_destroy(struct xr_cmd *cmd)
{
	const struct xr_cmd_def *def = cmd->def;
	struct ib_uverbs_destroy_cq_resp cq_resp;
	struct xr_destroy d;
	u32 handle;
	int ret;

	memcpy(&handle, (u8 *)cmd->req + (def->resp_size ? sizeof(u64) : 0), sizeof(handle));
	ret = xr_uobj_destroy(cmd->ufile, handle, def->destroys, &d);
	if (ret || !def->resp_size)
		return ret;
	if (def->destroys == XR_OBJ_CQ) {
		cq_resp.comp_events_reported = d.comp_events;
		cq_resp.async_events_reported = d.async_events;
		return xr_cmd_out(cmd, &cq_resp, sizeof(cq_resp));
	}
	return xr_cmd_out(cmd, &d.async_events, sizeof(d.async_events));
}

/* ---------------------------------------------------------- dispatch */

#define CMD(_name, _handler, _req, _resp, _udata)			\
	[IB_USER_VERBS_CMD_##_name] = { _handler, sizeof(_req), _resp,	\
					_udata }
/* A destroy command, with the type of object it destroys. */
#define DESTROY(_name, _req, _resp, _type)				\
	[IB_USER_VERBS_CMD_##_name] = { xr_cmd_destroy, sizeof(_req), _resp, \
					false, .destroys = _type }

static const struct xr_cmd_def xr_cmds[] = {
	CMD(GET_CONTEXT, xr_cmd_get_context, struct ib_uverbs_get_context,
	    sizeof(struct ib_uverbs_get_context_resp), true),
	CMD(QUERY_DEVICE, xr_cmd_query_device, struct ib_uverbs_query_device,
	    sizeof(struct ib_uverbs_query_device_resp), false),
	CMD(QUERY_PORT, xr_cmd_query_port, struct ib_uverbs_query_port,
	    sizeof(struct ib_uverbs_query_port_resp), false),
	CMD(ALLOC_PD, xr_cmd_alloc_pd, struct ib_uverbs_alloc_pd,
	    sizeof(struct ib_uverbs_alloc_pd_resp), true),
	DESTROY(DEALLOC_PD, struct ib_uverbs_dealloc_pd, 0, XR_OBJ_PD),
	[IB_USER_VERBS_CMD_REG_MR] = {
		xr_cmd_reg_mr, sizeof(struct ib_uverbs_reg_mr),
		sizeof(struct ib_uverbs_reg_mr_resp), true,
		.self_locking = true },
	DESTROY(DEREG_MR, struct ib_uverbs_dereg_mr, 0, XR_OBJ_MR),
	CMD(ALLOC_MW, xr_cmd_alloc_mw, struct ib_uverbs_alloc_mw,
	    sizeof(struct ib_uverbs_alloc_mw_resp), true),
	DESTROY(DEALLOC_MW, struct ib_uverbs_dealloc_mw, 0, XR_OBJ_MW),
	CMD(CREATE_COMP_CHANNEL, xr_cmd_create_comp_channel,
	    struct ib_uverbs_create_comp_channel,
	    sizeof(struct ib_uverbs_create_comp_channel_resp), false),
	CMD(CREATE_CQ, xr_cmd_create_cq, struct ib_uverbs_create_cq,
	    sizeof(struct ib_uverbs_create_cq_resp), true),
	DESTROY(DESTROY_CQ, struct ib_uverbs_destroy_cq,
		sizeof(struct ib_uverbs_destroy_cq_resp), XR_OBJ_CQ),
	CMD(CREATE_QP, xr_cmd_create_qp, struct ib_uverbs_create_qp,
	    sizeof(struct ib_uverbs_create_qp_resp), true),
	CMD(QUERY_QP, xr_cmd_query_qp, struct ib_uverbs_query_qp,
	    sizeof(struct ib_uverbs_query_qp_resp), true),
	CMD(MODIFY_QP, xr_cmd_modify_qp, struct ib_uverbs_modify_qp, 0, true),
	DESTROY(DESTROY_QP, struct ib_uverbs_destroy_qp,
		sizeof(struct ib_uverbs_destroy_qp_resp), XR_OBJ_QP),
	CMD(CREATE_AH, xr_cmd_create_ah, struct ib_uverbs_create_ah,
	    sizeof(struct ib_uverbs_create_ah_resp), true),
	DESTROY(DESTROY_AH, struct ib_uverbs_destroy_ah, 0, XR_OBJ_AH),
	CMD(ATTACH_MCAST, xr_cmd_attach_mcast, struct ib_uverbs_attach_mcast, 0, false),
	CMD(DETACH_MCAST, xr_cmd_detach_mcast, struct ib_uverbs_detach_mcast, 0, false),
	CMD(CREATE_SRQ, xr_cmd_create_srq, struct ib_uverbs_create_srq,
	    sizeof(struct ib_uverbs_create_srq_resp), true),
	CMD(MODIFY_SRQ, xr_cmd_modify_srq, struct ib_uverbs_modify_srq, 0, true),
	CMD(QUERY_SRQ, xr_cmd_query_srq, struct ib_uverbs_query_srq,
	    sizeof(struct ib_uverbs_query_srq_resp), true),
	DESTROY(DESTROY_SRQ, struct ib_uverbs_destroy_srq,
		sizeof(struct ib_uverbs_destroy_srq_resp), XR_OBJ_SRQ),
};

/* The largest core requests fit the copy in struct xr_cmd. */
static_assert(sizeof(struct ib_uverbs_modify_qp) <= XR_CMD_REQ_MAX);
static_assert(sizeof(struct ib_uverbs_create_qp) <= XR_CMD_REQ_MAX);
static_assert(sizeof(struct ib_uverbs_create_ah) <= XR_CMD_REQ_MAX);

static const struct xr_cmd_def xr_ex_cmds[] = {
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = {
		xr_cmd_ex_query_device,
		sizeof(struct ib_uverbs_ex_query_device),
		offsetof(struct ib_uverbs_ex_query_device_resp, odp_caps),
		false },
};

/* Header checks of a classic (non-extended) command, as Linux makes them. */
static int xr_cmd_setup(struct xr_cmd *cmd, const struct xr_cmd_def *def,
			const struct ib_uverbs_cmd_hdr *hdr,
			const char __user *buf, size_t count)
{
	u64 response = 0;

	if (hdr->in_words * 4 != count)
		return -EINVAL;
	if (count < sizeof(*hdr) + def->req_size)
		return -ENOSPC;
	if (hdr->out_words * 4 < def->resp_size)
		return -ENOSPC;
	cmd->in = buf + sizeof(*hdr);
	cmd->inlen = def->req_size;
	if (def->resp_size) {
		/* Commands with an answer start with its user address. */
		if (get_user(response, (const u64 __user *)cmd->in))
			return -EFAULT;
		cmd->resp = u64_to_user_ptr(response);
		cmd->outlen = def->resp_size;
	}
	if (def->has_udata) {
		cmd->udata.inbuf = cmd->in + def->req_size;
		cmd->udata.inlen = count - sizeof(*hdr) - def->req_size;
		if (def->resp_size) {
			cmd->udata.outbuf = cmd->resp + def->resp_size;
			cmd->udata.outlen = hdr->out_words * 4 - def->resp_size;
		}
	}
	return 0;
}

/* Header checks of an extended command, as Linux makes them. */
static int xr_cmd_setup_ex(struct xr_cmd *cmd, const struct xr_cmd_def *def,
			   const struct ib_uverbs_cmd_hdr *hdr,
			   const char __user *buf, size_t count)
{
	struct ib_uverbs_ex_cmd_hdr ex;

	if (count < sizeof(*hdr) + sizeof(ex))
		return -EINVAL;
	if (copy_from_user(&ex, buf + sizeof(*hdr), sizeof(ex)))
		return -EFAULT;
	count -= sizeof(*hdr) + sizeof(ex);
	if ((hdr->in_words + ex.provider_in_words) * 8 != count)
		return -EINVAL;
	if (hdr->in_words * 8 < def->req_size)
		return -ENOSPC;
	if (ex.cmd_hdr_reserved)
		return -EINVAL;
	if (ex.response) {
		if (!hdr->out_words && !ex.provider_out_words)
			return -EINVAL;
		if (hdr->out_words * 8 < def->resp_size)
			return -ENOSPC;
	} else if (hdr->out_words || ex.provider_out_words) {
		return -EINVAL;
	}
	cmd->is_ex = true;
	cmd->in = buf + sizeof(*hdr) + sizeof(ex);
	cmd->inlen = hdr->in_words * 8;
	cmd->resp = u64_to_user_ptr(ex.response);
	cmd->outlen = hdr->out_words * 8;
	cmd->udata.inbuf = cmd->in + cmd->inlen;
	cmd->udata.inlen = ex.provider_in_words * 8;
	cmd->udata.outbuf = cmd->resp + cmd->outlen;
	cmd->udata.outlen = ex.provider_out_words * 8;
	return 0;
}

/**
 * xr_uverbs_dispatch - run one write() command
 * @ufile: the file written to
 * @buf: the command, starting with struct ib_uverbs_cmd_hdr
 * @count: its length
 *
 * Return: @count on success or a negative errno: -EINVAL for a malformed
 * header or a command before GET_CONTEXT, -ENOSPC for a short request or
 * answer buffer, -EOPNOTSUPP for an unknown command, -EIO once the device
 * is gone, or what the command returned.
 */
ssize_t xr_uverbs_dispatch(struct xr_ufile *ufile, const char __user *buf,
			   size_t count)
{
	const struct xr_cmd_def *def = NULL;
	struct ib_uverbs_cmd_hdr hdr;
	struct xr_cmd cmd = { .ufile = ufile };
	u32 op;
	int ret;

	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			    IB_USER_VERBS_CMD_COMMAND_MASK))
		return -EINVAL;
	op = hdr.command & IB_USER_VERBS_CMD_COMMAND_MASK;
	if (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		if (op < ARRAY_SIZE(xr_ex_cmds))
			def = &xr_ex_cmds[op];
	} else if (op < ARRAY_SIZE(xr_cmds)) {
		def = &xr_cmds[op];
	}
	if (!def || !def->handler)
		return -EOPNOTSUPP;

	if (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		ret = xr_cmd_setup_ex(&cmd, def, &hdr, buf, count);
	else
		ret = xr_cmd_setup(&cmd, def, &hdr, buf, count);
	if (ret)
		return ret;

	/* Copy the request in now: no fault while the file's lock is held. */
	if (WARN_ON_ONCE(def->req_size > sizeof(cmd.req)))
		return -EINVAL;
	if (copy_from_user(cmd.req, cmd.in, def->req_size))
		return -EFAULT;
	if (cmd.is_ex && cmd.inlen > def->req_size) {
		/* An extended command's extra bytes must be 0. */
		ret = check_zeroed_user(cmd.in + def->req_size,
					cmd.inlen - def->req_size);
		if (ret < 0)
			return ret;
		if (!ret)
			return -EOPNOTSUPP;
	}
	cmd.def = def;
	cmd.is_get_context = def->handler == xr_cmd_get_context;

	if (def->self_locking) {
		ret = def->handler(&cmd);
	} else {
		ret = xr_cmd_lock(&cmd);
		if (!ret) {
			ret = def->handler(&cmd);
			xr_cmd_unlock(&cmd);
		}
	}
	return ret ? ret : count;
}
