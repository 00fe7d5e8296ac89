// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/xrnic/<pci address>/resources shows the
 * objects the device itself holds for users (QUERY_RESOURCES, less the
 * driver's own GSI QP), so that tests can check that nothing leaks on the
 * device side.
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
	u32 own;

	ret = xrnic_cmd_query_resources(xn, &r);
	if (ret)
		return ret;
	/* The GSI QP's PD, MR (three pages), CQ and QP. */
	own = xn->gsi.mem ? 1 : 0;
	seq_printf(s, "pd %u\nmr %u\ncq %u\nqp %u\nmr_pages %llu\nsrq %u\nmw %u\n",
		   le32_to_cpu(r.pds) - own, le32_to_cpu(r.mrs) - own, le32_to_cpu(r.cqs) - own,
		   le32_to_cpu(r.qps) - own, le64_to_cpu(r.mr_pages) - 3 * own,
		   le32_to_cpu(r.srqs), le32_to_cpu(r.mws));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xrnic_resources);

/**
 * xrnic_debugfs_add - create the debugfs directory of a device
 * @xn: the device, registered
 *
 * debugfs is for debugging: failures are not errors.
 */
void xrnic_debugfs_add(struct xrnic_dev *xn)
{
	xn->debugfs = debugfs_create_dir(pci_name(xn->pdev), xrnic_debugfs_root);
	debugfs_create_file("resources", 0400, xn->debugfs, xn,
			    &xrnic_resources_fops);
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
