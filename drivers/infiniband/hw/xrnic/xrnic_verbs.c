// SPDX-License-Identifier: GPL-2.0
/* The operations xrdma_core calls: translate to and from admin commands. */
#include "xrnic.h"

static int xrnic_query_device(struct xr_device *xdev,
			      struct xr_device_attr *attr)
{
	struct xrnic_resp_query_device r;
	int ret;

	ret = xrnic_cmd_query_device(to_xrnic(xdev), &r);
	if (ret)
		return ret;
	attr->max_mr_size = le64_to_cpu(r.max_mr_size);
	attr->page_size_cap = le64_to_cpu(r.page_size_cap);
	attr->vendor_id = le32_to_cpu(r.vendor_id);
	attr->vendor_part_id = le32_to_cpu(r.vendor_part_id);
	attr->hw_ver = le32_to_cpu(r.hw_ver);
	attr->max_qp = le32_to_cpu(r.max_qp);
	attr->max_qp_wr = le32_to_cpu(r.max_qp_wr);
	attr->max_sge = le32_to_cpu(r.max_sge);
	attr->max_cq = le32_to_cpu(r.max_cq);
	attr->max_cqe = le32_to_cpu(r.max_cqe);
	attr->max_mr = le32_to_cpu(r.max_mr);
	attr->max_pd = le32_to_cpu(r.max_pd);
	return 0;
}

static int xrnic_query_port(struct xr_device *xdev, u32 port,
			    struct xr_port_attr *attr)
{
	struct xrnic_resp_query_port r;
	int ret;

	if (port < 1 || port > xdev->phys_port_cnt)
		return -EINVAL;
	ret = xrnic_cmd_query_port(to_xrnic(xdev), port, &r);
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
	return 0;
}

const struct xr_device_ops xrnic_dev_ops = {
	.owner = THIS_MODULE,
	.query_device = xrnic_query_device,
	.query_port = xrnic_query_port,
};
