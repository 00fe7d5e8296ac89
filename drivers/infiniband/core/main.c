// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core module entry: refuses to share the machine with Linux's RDMA
 * core, then sets up the device registry and its sysfs class.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/namei.h>

#include "core_priv.h"

/*
 * Linux's ib_core and ib_uverbs own the same sysfs classes, character
 * device names and NETLINK_RDMA protocol that xrdma_core provides.  Both
 * cannot be loaded at once; say so clearly instead of failing later with a
 * duplicate-name warning from sysfs.
 */
static int xr_check_linux_rdma_core(void)
{
	static const char * const mods[] = { "ib_core", "ib_uverbs" };
	char path[64];
	struct path p;
	int i;

	for (i = 0; i < ARRAY_SIZE(mods); i++) {
		snprintf(path, sizeof(path), "/sys/module/%s", mods[i]);
		if (kern_path(path, LOOKUP_FOLLOW, &p))
			continue;
		path_put(&p);
		pr_err("xrdma_core: Linux's %s is loaded; it owns the infiniband class, /dev/infiniband and NETLINK_RDMA that xrdma_core provides. Unload it first (modprobe -r %s)\n",
		       mods[i], mods[i]);
		return -EBUSY;
	}
	return 0;
}

/*
 * /sys/kernel/debug/xrdma_core/event_files: the async event files and
 * completion channels that exist, cm_ids: the RDMA CM ids, and
 * cm_connections: IB CM's connections, so that tests can check none is
 * leaked.
 */
static struct dentry *xr_debugfs;

static int xr_event_files_get(void *data, u64 *val)
{
	*val = xr_event_files_live();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(xr_event_files_fops, xr_event_files_get, NULL,
			 "%llu\n");

static int xr_cm_ids_get(void *data, u64 *val)
{
	*val = xr_cma_ids_live();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(xr_cm_ids_fops, xr_cm_ids_get, NULL, "%llu\n");

static int xr_cm_connections_get(void *data, u64 *val)
{
	*val = xr_ibcm_live();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(xr_cm_connections_fops, xr_cm_connections_get, NULL, "%llu\n");

static int __init xr_core_init(void)
{
	int ret;

	ret = xr_check_linux_rdma_core();
	if (ret)
		return ret;
	xr_sysfs_init();
	ret = xr_device_init();
	if (ret)
		return ret;
	ret = xr_uverbs_init();
	if (ret)
		goto err_device_exit;
	ret = xr_nl_init();
	if (ret)
		goto err_uverbs_exit;
	ret = xr_nldev_init();
	if (ret)
		goto err_nl_exit;
	ret = xr_gid_init();
	if (ret)
		goto err_nldev_exit;
	ret = xr_mad_init();
	if (ret)
		goto err_gid_exit;
	ret = xr_ibcm_init();
	if (ret)
		goto err_mad_exit;
	ret = xr_cma_init();
	if (ret)
		goto err_ibcm_exit;
	ret = xr_ucma_init();
	if (ret)
		goto err_cma_exit;
	/* debugfs is for debugging: failures are not errors. */
	xr_debugfs = debugfs_create_dir("xrdma_core", NULL);
	debugfs_create_file_unsafe("event_files", 0400, xr_debugfs, NULL,
				   &xr_event_files_fops);
	debugfs_create_file_unsafe("cm_ids", 0400, xr_debugfs, NULL, &xr_cm_ids_fops);
	debugfs_create_file_unsafe("cm_connections", 0400, xr_debugfs, NULL,
				   &xr_cm_connections_fops);
	return 0;

err_cma_exit:
	xr_cma_exit();
err_ibcm_exit:
	xr_ibcm_exit();
err_mad_exit:
	xr_mad_exit();
err_gid_exit:
	xr_gid_exit();
err_nldev_exit:
	xr_nldev_exit();
err_nl_exit:
	xr_nl_exit();
err_uverbs_exit:
	xr_uverbs_exit();
err_device_exit:
	xr_device_exit();
	return ret;
}

static void __exit xr_core_exit(void)
{
	debugfs_remove_recursive(xr_debugfs);
	xr_ucma_exit();
	xr_cma_exit();
	xr_ibcm_exit();
	xr_mad_exit();
	xr_gid_exit();
	xr_nldev_exit();
	xr_nl_exit();
	xr_uverbs_exit();
	xr_device_exit();
}

module_init(xr_core_init);
module_exit(xr_core_exit);

MODULE_DESCRIPTION("xrdma RDMA core");
MODULE_AUTHOR("The xrdma authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(XRDMA_VERSION);
