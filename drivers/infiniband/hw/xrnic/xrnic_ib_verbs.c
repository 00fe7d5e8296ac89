// SPDX-License-Identifier: GPL-2.0
/*
 * The XRNIC's verbs on Linux's ib_core: the device and its port, their
 * GID table (ib_core's own, from the net_device, written to the device),
 * user contexts with the pages the provider maps (the doorbell page, the
 * status page, the clock page; xrnic_ib_mmap.c), and protection domains.
 * Queues are in xrnic_ib_queues.c, memory regions in xrnic_ib_mr.c.  The
 * provider is the one that runs on xrdma_core.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/xrnic-abi.h>

#include "xrnic_ib.h"

static int xrnic_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
				 struct ib_udata *udata)
{
	struct xrnic_dev *xn = ib_to_xrnic(ibdev);
	struct xrnic_resp_query_device r;
	unsigned int maj = 0, min = 0, sub = 0;
	int ret;

	if (udata->inlen || udata->outlen)
		return -EINVAL;
	ret = xrnic_cmd_query_device(xn, &r);
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	if (sscanf(xn->fw_ver, "%u.%u.%u", &maj, &min, &sub) == 3)
		attr->fw_ver = (u64)maj << 32 | min << 16 | sub;
	attr->sys_image_guid = cpu_to_be64(xn->node_guid);
	attr->max_mr_size = le64_to_cpu(r.max_mr_size);
	attr->page_size_cap = le64_to_cpu(r.page_size_cap);
	attr->vendor_id = le32_to_cpu(r.vendor_id);
	attr->vendor_part_id = le32_to_cpu(r.vendor_part_id);
	attr->hw_ver = le32_to_cpu(r.hw_ver);
	attr->max_qp = le32_to_cpu(r.max_qp);
	attr->max_qp_wr = le32_to_cpu(r.max_qp_wr);
	attr->max_send_sge = le16_to_cpu(r.max_sge);
	attr->max_recv_sge = le16_to_cpu(r.max_sge);
	attr->max_sge_rd = le16_to_cpu(r.max_sge);
	attr->max_cq = le32_to_cpu(r.max_cq);
	attr->max_cqe = le32_to_cpu(r.max_cqe);
	attr->max_mr = le32_to_cpu(r.max_mr);
	attr->max_pd = le32_to_cpu(r.max_pd);
	attr->max_qp_rd_atom = min_t(u32, le16_to_cpu(r.max_qp_rd_atom), U8_MAX);
	attr->max_qp_init_rd_atom = attr->max_qp_rd_atom;
	attr->max_res_rd_atom = attr->max_qp_rd_atom * attr->max_qp;
	/* Atomic among the device's operations, not the CPU's. */
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = XRNIC_MAX_AH;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	attr->timestamp_mask = XRNIC_CLOCK_MASK;
	attr->hca_core_clock = XRNIC_CLOCK_KHZ;
	return 0;
}

static int xrnic_ib_query_port(struct ib_device *ibdev, u32 port, struct ib_port_attr *attr)
{
	struct xrnic_resp_query_port r;
	int ret;

	ret = xrnic_port_attrs(ib_to_xrnic(ibdev), &r);
	if (ret)
		return ret;
	attr->state = r.state;
	attr->phys_state = r.phys_state;
	attr->active_mtu = r.active_mtu;
	attr->max_mtu = r.max_mtu;
	attr->active_speed = r.active_speed;
	attr->active_width = r.active_width;
	attr->gid_tbl_len = le16_to_cpu(r.gid_tbl_len);
	attr->max_msg_sz = le32_to_cpu(r.max_msg_sz);
	attr->port_cap_flags = le32_to_cpu(r.port_cap_flags);
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	return 0;
}

/* RoCE v2 only, as rxe: ib_core makes one GID per address, of that type. */
static int xrnic_ib_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *imm)
{
	struct ib_port_attr attr = {};
	int ret;

	ret = ib_query_port(ibdev, port, &attr);
	if (ret)
		return ret;
	imm->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	imm->gid_tbl_len = attr.gid_tbl_len;
	imm->pkey_tbl_len = attr.pkey_tbl_len;
	imm->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer xrnic_ib_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int xrnic_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void xrnic_ib_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%s", ib_to_xrnic(ibdev)->fw_ver);
}

/* ib_core's GID table, written to the device's, which the device sends from. */
static int xrnic_ib_add_gid(const struct ib_gid_attr *attr, void **context)
{
	return xrnic_cmd_set_gid(ib_to_xrnic(attr->device), attr->port_num,
				 attr->index, attr->gid.raw);
}

static int xrnic_ib_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return xrnic_cmd_set_gid(ib_to_xrnic(attr->device), attr->port_num,
				 attr->index, NULL);
}

static void xrnic_ib_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct xrnic_ib_ucontext *uc = container_of(ibuc, struct xrnic_ib_ucontext, ibuc);

	rdma_user_mmap_entry_remove(uc->clock);
	rdma_user_mmap_entry_remove(uc->status);
	rdma_user_mmap_entry_remove(uc->db);
}

/*
 * The context's sizes and pages, as on xrdma_core: data doorbells ring
 * vector 1 (or the admin vector of a one-vector device).
 */
static int xrnic_ib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct xrnic_ib_ucontext *uc = container_of(ibuc, struct xrnic_ib_ucontext, ibuc);
	struct xrnic_dev *xn = ib_to_xrnic(ibuc->device);
	struct xrnic_alloc_ucontext_resp resp = {
		.sqe_size = XRNIC_SQE_SIZE,
		.rqe_size = XRNIC_RQE_SIZE,
		.cqe_size = XRNIC_CQE_SIZE,
		.max_inline = XRNIC_MAX_INLINE,
		.db_offset = XRNIC_IVSHMEM_DOORBELL,
		.db_value = XRNIC_DEVICE_PEER << 16 | (xn->num_vectors > 1),
	};
	struct rdma_user_mmap_entry *e;
	int ret;

	if (xn->db_page) {
		e = xrnic_ib_mmap_add(ibuc, xn->db_page, true, false, &resp.db_mmap_key);
		if (IS_ERR(e)) {
			ret = PTR_ERR(e);
			goto err;
		}
		uc->db = e;
	}
	e = xrnic_ib_mmap_add(ibuc, pci_resource_start(xn->pdev, XRNIC_MEM_BAR) +
			      XRNIC_BAR2_STATUS_OFF, true, true, &resp.status_mmap_key);
	if (IS_ERR(e)) {
		ret = PTR_ERR(e);
		goto err;
	}
	uc->status = e;
	e = xrnic_ib_mmap_add(ibuc, virt_to_phys(xn->clock), false, true,
			      &resp.clock_mmap_key);
	if (IS_ERR(e)) {
		ret = PTR_ERR(e);
		goto err;
	}
	uc->clock = e;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err;
	return 0;

err:
	xrnic_ib_dealloc_ucontext(ibuc);
	return ret;
}

/* ib_core zaps the context's mappings itself when the device goes. */
static void xrnic_ib_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int xrnic_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct xrnic_ib_pd *pd = container_of(ibpd, struct xrnic_ib_pd, ibpd);

	return xrnic_cmd_alloc_pd(ib_to_xrnic(ibpd->device), &pd->pdn);
}

/* A dead device keeps nothing: the PD is gone with it. */
static int xrnic_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct xrnic_ib_pd *pd = container_of(ibpd, struct xrnic_ib_pd, ibpd);
	struct xrnic_dev *xn = ib_to_xrnic(ibpd->device);
	int ret;

	ret = xrnic_cmd_dealloc_pd(xn, pd->pdn);
	return xrnic_is_dead(xn) ? 0 : ret;
}

const struct ib_device_ops xrnic_ib_ops = {
	.owner = THIS_MODULE,
	.uverbs_abi_ver = XRNIC_UVERBS_ABI_VERSION,

	.add_gid = xrnic_ib_add_gid,
	.alloc_pd = xrnic_ib_alloc_pd,
	.alloc_ucontext = xrnic_ib_alloc_ucontext,
	.create_cq = xrnic_ib_create_cq,
	.create_qp = xrnic_ib_create_qp,
	.dealloc_pd = xrnic_ib_dealloc_pd,
	.dealloc_ucontext = xrnic_ib_dealloc_ucontext,
	.del_gid = xrnic_ib_del_gid,
	.dereg_mr = xrnic_ib_dereg_mr,
	.destroy_cq = xrnic_ib_destroy_cq,
	.destroy_qp = xrnic_ib_destroy_qp,
	.disassociate_ucontext = xrnic_ib_disassociate_ucontext,
	.get_dev_fw_str = xrnic_ib_fw_str,
	.get_link_layer = xrnic_ib_link_layer,
	.get_port_immutable = xrnic_ib_port_immutable,
	.mmap = xrnic_ib_mmap,
	.mmap_free = xrnic_ib_mmap_free,
	.modify_qp = xrnic_ib_modify_qp,
	.query_device = xrnic_ib_query_device,
	.query_pkey = xrnic_ib_query_pkey,
	.query_port = xrnic_ib_query_port,
	.query_qp = xrnic_ib_query_qp,
	.reg_user_mr = xrnic_ib_reg_user_mr,

	INIT_RDMA_OBJ_SIZE(ib_cq, xrnic_ib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, xrnic_ib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, xrnic_ib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, xrnic_ib_ucontext, ibuc),
};
