// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/xrnic/<pci address>/resources shows the
 * objects the device itself holds for users (QUERY_RESOURCES, less what
 * the RDMA function keeps for itself: its GSI QP), so that tests can check
 * that nothing leaks on the device side.  cc_params/ holds a file per congestion control (DCQCN)
 * parameter, as mlx5's debugfs cc_params/ (its names; np_enable and
 * rp_enable are ours): reading asks the device (QUERY_CC), writing a
 * number sets it for every QP (SET_CC; EINVAL outside its range).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "xrnic.h"

static struct dentry *xrnic_debugfs_root;

static int xrnic_resources_show(struct seq_file *s, void *unused)
{
	struct xrnic_resp_query_resources r;
	int ret;

	struct xrnic_dev *xn = s->private;
	u64 own_pages = READ_ONCE(xn->own.mr_pages);
	u32 own = READ_ONCE(xn->own.objs);

	ret = xrnic_cmd_query_resources(xn, &r);
	if (ret)
		return ret;
	seq_printf(s, "pd %u\nmr %u\ncq %u\nqp %u\nmr_pages %llu\nsrq %u\nmw %u\n",
		   le32_to_cpu(r.pds) - own, le32_to_cpu(r.mrs) - own, le32_to_cpu(r.cqs) - own,
		   le32_to_cpu(r.qps) - own, le64_to_cpu(r.mr_pages) - own_pages,
		   le32_to_cpu(r.srqs), le32_to_cpu(r.mws));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xrnic_resources);

/* By enum xrnic_cc_param. */
static const char *const xrnic_cc_names[XRNIC_CC_NUM_PARAMS] = {
	[XRNIC_CC_NP_ENABLE] = "np_enable",
	[XRNIC_CC_RP_ENABLE] = "rp_enable",
	[XRNIC_CC_NP_MIN_TIME_BETWEEN_CNPS] = "np_min_time_between_cnps",
	[XRNIC_CC_NP_CNP_DSCP] = "np_cnp_dscp",
	[XRNIC_CC_RP_INITIAL_ALPHA_VALUE] = "rp_initial_alpha_value",
	[XRNIC_CC_RP_DCE_TCP_G] = "rp_dce_tcp_g",
	[XRNIC_CC_RP_DCE_TCP_RTT] = "rp_dce_tcp_rtt",
	[XRNIC_CC_RP_RATE_REDUCE_MONITOR_PERIOD] = "rp_rate_reduce_monitor_period",
	[XRNIC_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = "rp_rate_to_set_on_first_cnp",
	[XRNIC_CC_RP_MIN_DEC_FAC] = "rp_min_dec_fac",
	[XRNIC_CC_RP_MIN_RATE] = "rp_min_rate",
	[XRNIC_CC_RP_TIME_RESET] = "rp_time_reset",
	[XRNIC_CC_RP_BYTE_RESET] = "rp_byte_reset",
	[XRNIC_CC_RP_THRESHOLD] = "rp_threshold",
	[XRNIC_CC_RP_MAX_RATE] = "rp_max_rate",
	[XRNIC_CC_RP_AI_RATE] = "rp_ai_rate",
	[XRNIC_CC_RP_HAI_RATE] = "rp_hai_rate",
};

static ssize_t xrnic_cc_read(struct file *f, char __user *buf, size_t count, loff_t *pos)
{
	struct xrnic_cc_file *cf = f->private_data;
	char line[12];
	int ret;
	u32 v;

	ret = xrnic_cmd_query_cc(cf->xn, cf->param, &v);
	if (ret)
		return ret;
	ret = scnprintf(line, sizeof(line), "%u\n", v);
	return simple_read_from_buffer(buf, count, pos, line, ret);
}

static ssize_t xrnic_cc_write(struct file *f, const char __user *buf, size_t count,
			      loff_t *pos)
{
	struct xrnic_cc_file *cf = f->private_data;
	int ret;
	u32 v;

	ret = kstrtou32_from_user(buf, count, 0, &v);
	if (ret)
		return ret;
	ret = xrnic_cmd_set_cc(cf->xn, cf->param, v);
	return ret ? ret : count;
}

static const struct file_operations xrnic_cc_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = xrnic_cc_read,
	.write = xrnic_cc_write,
	.llseek = default_llseek,
};

/**
 * xrnic_debugfs_add - create the debugfs directory of a device
 * @xn: the device, registered
 *
 * debugfs is for debugging: failures are not errors.
 */
void xrnic_debugfs_add(struct xrnic_dev *xn)
{
	struct dentry *cc;
	u32 i;

	xn->debugfs = debugfs_create_dir(pci_name(xn->pdev), xrnic_debugfs_root);
	debugfs_create_file("resources", 0400, xn->debugfs, xn,
			    &xrnic_resources_fops);
	cc = debugfs_create_dir("cc_params", xn->debugfs);
	for (i = 0; i < XRNIC_CC_NUM_PARAMS; i++) {
		xn->cc_files[i] = (struct xrnic_cc_file){ .xn = xn, .param = i };
		debugfs_create_file(xrnic_cc_names[i], 0600, cc, &xn->cc_files[i],
				    &xrnic_cc_fops);
	}
}

/**
 * xrnic_debugfs_remove - remove it; waits for readers in progress
 * @xn: the device
 */
void xrnic_debugfs_remove(struct xrnic_dev *xn)
{
	debugfs_remove_recursive(xn->debugfs);
}

/**
 * xrnic_debugfs_init - create /sys/kernel/debug/xrnic
 */
void xrnic_debugfs_init(void)
{
	xrnic_debugfs_root = debugfs_create_dir(XRNIC_DRV_NAME, NULL);
}

/**
 * xrnic_debugfs_exit - remove /sys/kernel/debug/xrnic
 */
void xrnic_debugfs_exit(void)
{
	debugfs_remove_recursive(xrnic_debugfs_root);
}
