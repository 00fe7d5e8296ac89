// SPDX-License-Identifier: GPL-2.0
/*
 * The /sys/class/infiniband/<device> attributes, in the format of Linux's
 * RDMA core so that existing tools read them unchanged.  Port attributes are
 * read from the hardware on every access, as Linux does.
 */
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "core_priv.h"

static struct xr_device *to_xr(struct device *dev)
{
	return container_of(dev, struct xr_device, dev);
}

static ssize_t print_guid(char *buf, u64 guid)
{
	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (u16)(guid >> 48), (u16)(guid >> 32),
			  (u16)(guid >> 16), (u16)guid);
}

static ssize_t node_type_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "1: CA\n");
}
static DEVICE_ATTR_RO(node_type);

static ssize_t node_guid_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return print_guid(buf, to_xr(dev)->node_guid);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t sys_image_guid_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return print_guid(buf, to_xr(dev)->sys_image_guid);
}
static DEVICE_ATTR_RO(sys_image_guid);

static ssize_t fw_ver_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", to_xr(dev)->fw_ver);
}
static DEVICE_ATTR_RO(fw_ver);

/* node_desc is read and written without a lock, as in Linux: it is text. */
static ssize_t node_desc_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%.64s\n", to_xr(dev)->node_desc);
}

static ssize_t node_desc_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct xr_device *xdev = to_xr(dev);
	size_t len = min_t(size_t, count, XR_NODE_DESC_MAX - 1);

	if (len && buf[len - 1] == '\n')
		len--;
	memset(xdev->node_desc, 0, sizeof(xdev->node_desc));
	memcpy(xdev->node_desc, buf, len);
	return count;
}
static DEVICE_ATTR_RW(node_desc);

static struct attribute *xr_dev_attrs[] = {
	&dev_attr_node_type.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_sys_image_guid.attr,
	&dev_attr_fw_ver.attr,
	&dev_attr_node_desc.attr,
	NULL,
};

static const struct attribute_group xr_dev_group = {
	.attrs = xr_dev_attrs,
};

const struct attribute_group *xr_dev_groups[] = {
	&xr_dev_group,
	NULL,
};

/*
 * One directory per port: /sys/class/infiniband/<dev>/ports/<n>/, with the
 * GID attribute directories gid_attrs/{types,ndevs}/ in a child.
 */
struct xr_port {
	struct kobject kobj;
	struct kobject gid_attrs;
	struct xr_device *xdev;
	u32 port_num;
};

/* @index: the entry a GID file shows; unused by the other files */
struct xr_port_attribute {
	struct attribute attr;
	ssize_t (*show)(struct xr_port *port, u32 index,
			const struct xr_port_attr *pa, char *buf);
	u32 index;
};

static ssize_t xr_port_attr_show(struct kobject *kobj, struct attribute *attr,
				 char *buf)
{
	struct xr_port_attribute *pattr =
		container_of(attr, struct xr_port_attribute, attr);
	struct xr_port *port = container_of(kobj, struct xr_port, kobj);
	struct xr_port_attr pa = {};
	int ret;

	ret = xr_query_port(port->xdev, port->port_num, &pa);
	if (ret)
		return ret;
	return pattr->show(port, pattr->index, &pa, buf);
}

static const struct sysfs_ops xr_port_sysfs_ops = {
	.show = xr_port_attr_show,
};

/* gid_attrs/: the same attributes, one directory down. */
static ssize_t xr_gid_attrs_show(struct kobject *kobj, struct attribute *attr,
				 char *buf)
{
	struct xr_port *port = container_of(kobj, struct xr_port, gid_attrs);

	return xr_port_attr_show(&port->kobj, attr, buf);
}

static const struct sysfs_ops xr_gid_attrs_sysfs_ops = {
	.show = xr_gid_attrs_show,
};

static const char *port_state_name(u8 state)
{
	static const char * const names[] = {
		[0] = "NOP", [1] = "DOWN", [2] = "INIT", [3] = "ARMED",
		[4] = "ACTIVE", [5] = "ACTIVE_DEFER",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "UNKNOWN";
}

static const char *port_phys_state_name(u8 state)
{
	static const char * const names[] = {
		[1] = "Sleep", [2] = "Polling", [3] = "Disabled",
		[4] = "PortConfigurationTraining", [5] = "LinkUp",
		[6] = "LinkErrorRecovery", [7] = "Phy Test",
	};

	return state < ARRAY_SIZE(names) && names[state] ? names[state] :
							     "<unknown>";
}

static ssize_t state_show(struct xr_port *port, u32 index, const struct xr_port_attr *pa,
			  char *buf)
{
	return sysfs_emit(buf, "%u: %s\n", pa->state,
			  port_state_name(pa->state));
}

static ssize_t phys_state_show(struct xr_port *port, u32 index,
			       const struct xr_port_attr *pa, char *buf)
{
	return sysfs_emit(buf, "%u: %s\n", pa->phys_state,
			  port_phys_state_name(pa->phys_state));
}

static ssize_t link_layer_show(struct xr_port *port, u32 index,
			       const struct xr_port_attr *pa, char *buf)
{
	return sysfs_emit(buf, "Ethernet\n");
}

/* Lane rate in units of 0.1 Gb/s per IB speed code, as Linux prints it. */
static ssize_t rate_show(struct xr_port *port, u32 index, const struct xr_port_attr *pa,
			 char *buf)
{
	static const struct {
		u8 code;
		unsigned int tenths;
		const char *name;
	} speeds[] = {
		{ 1, 25, " SDR" }, { 2, 50, " DDR" }, { 4, 100, " QDR" },
		{ 8, 100, " FDR10" }, { 16, 140, " FDR" }, { 32, 250, " EDR" },
		{ 64, 500, " HDR" }, { 128, 1000, " NDR" },
	};
	unsigned int lanes, i, rate;

	switch (pa->active_width) {
	case 1:
		lanes = 1;
		break;
	case 2:
		lanes = 4;
		break;
	case 4:
		lanes = 8;
		break;
	case 8:
		lanes = 12;
		break;
	case 16:
		lanes = 2;
		break;
	default:
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(speeds); i++) {
		if (speeds[i].code != pa->active_speed)
			continue;
		rate = speeds[i].tenths * lanes;
		return sysfs_emit(buf, "%u%s Gb/sec (%uX%s)\n", rate / 10,
				  rate % 10 ? ".5" : "", lanes, speeds[i].name);
	}
	return -EINVAL;
}

static ssize_t zero_show(struct xr_port *port, u32 index, const struct xr_port_attr *pa,
			 char *buf)
{
	return sysfs_emit(buf, "0\n");
}

static ssize_t zero_hex_show(struct xr_port *port, u32 index,
			     const struct xr_port_attr *pa, char *buf)
{
	return sysfs_emit(buf, "0x0\n");
}

static ssize_t cap_mask_show(struct xr_port *port, u32 index,
			     const struct xr_port_attr *pa, char *buf)
{
	return sysfs_emit(buf, "0x%08x\n", pa->port_cap_flags);
}

#define XR_PORT_ATTR(_name, _show)					\
	static struct xr_port_attribute xr_port_attr_##_name = {	\
		.attr = { .name = #_name, .mode = 0444 },		\
		.show = _show,						\
	}

XR_PORT_ATTR(state, state_show);
XR_PORT_ATTR(phys_state, phys_state_show);
XR_PORT_ATTR(link_layer, link_layer_show);
XR_PORT_ATTR(rate, rate_show);
XR_PORT_ATTR(cap_mask, cap_mask_show);
/* RoCE ports have no LID and no subnet manager. */
XR_PORT_ATTR(lid, zero_hex_show);
XR_PORT_ATTR(sm_lid, zero_hex_show);
XR_PORT_ATTR(sm_sl, zero_show);
XR_PORT_ATTR(lid_mask_count, zero_show);

/* ports/<n>/pkeys/0: the P_Key table has the default partition only. */
static ssize_t pkey_show(struct xr_port *port, u32 index, const struct xr_port_attr *pa,
			 char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", XR_DEFAULT_PKEY);
}

static struct xr_port_attribute xr_pkey_attr_0 = {
	.attr = { .name = "0", .mode = 0444 },
	.show = pkey_show,
};

static struct attribute *xr_pkey_attrs[] = {
	&xr_pkey_attr_0.attr,
	NULL,
};

static const struct attribute_group xr_pkeys_group = {
	.name = "pkeys",
	.attrs = xr_pkey_attrs,
};

/* ports/<n>/gids/<i> and gid_attrs/{types,ndevs}/<i>: one file per entry. */
#define XR_GID_FILES	16

struct xr_gid_attribute {
	struct xr_port_attribute pattr;
	char name[4];
};

static ssize_t gid_show(struct xr_port *port, u32 index, const struct xr_port_attr *pa,
			char *buf)
{
	u8 gid[16] = {};

	/* An empty entry reads as zeroes, as in Linux. */
	xr_query_gid(port->xdev, port->port_num, index, gid, NULL);
	return sysfs_emit(buf, "%pI6\n", gid);
}

static ssize_t gid_type_show(struct xr_port *port, u32 index,
			     const struct xr_port_attr *pa, char *buf)
{
	u8 gid[16];
	int ret;

	ret = xr_query_gid(port->xdev, port->port_num, index, gid, NULL);
	if (ret)
		return ret;
	return sysfs_emit(buf, "RoCE v2\n");
}

/* An empty entry, or one without a net_device, fails to read, as in Linux. */
static ssize_t gid_ndev_show(struct xr_port *port, u32 index,
			     const struct xr_port_attr *pa, char *buf)
{
	char name[IFNAMSIZ];
	u8 gid[16];
	int ret;

	ret = xr_query_gid(port->xdev, port->port_num, index, gid, name);
	if (ret)
		return ret;
	if (!*name)
		return -EINVAL;
	return sysfs_emit(buf, "%s\n", name);
}

static struct xr_gid_attribute xr_gid_attrs[3][XR_GID_FILES];
static struct attribute *xr_gid_attr_ptrs[3][XR_GID_FILES + 1];

static const struct attribute_group xr_gids_group = {
	.name = "gids",
	.attrs = xr_gid_attr_ptrs[0],
};

static const struct attribute_group xr_gid_types_group = {
	.name = "types",
	.attrs = xr_gid_attr_ptrs[1],
};

static const struct attribute_group xr_gid_ndevs_group = {
	.name = "ndevs",
	.attrs = xr_gid_attr_ptrs[2],
};

static const struct attribute_group *xr_gid_attrs_groups[] = {
	&xr_gid_types_group,
	&xr_gid_ndevs_group,
	NULL,
};

/*
 * IB CM's counters, as Linux 6.1's: ports/<n>/cm_tx_msgs/req and the rest
 * (cm.c counts; xr_sysfs_init() fills the tables).
 */
static const char * const xr_cm_msg_names[XR_CM_MSG_KINDS] = {
	"req", "mra", "rej", "rep", "rtu", "dreq", "drep", "sidr_req", "sidr_rep", "lap", "apr",
};

static const char * const xr_cm_group_names[XR_CM_COUNTER_GROUPS] = {
	"cm_tx_msgs", "cm_tx_retries", "cm_rx_msgs", "cm_rx_duplicates",
};

static struct xr_port_attribute xr_cm_attrs[XR_CM_COUNTER_GROUPS][XR_CM_MSG_KINDS];
static struct attribute *xr_cm_attr_list[XR_CM_COUNTER_GROUPS][XR_CM_MSG_KINDS + 1];
static struct attribute_group xr_cm_groups[XR_CM_COUNTER_GROUPS];

static ssize_t cm_counter_show(struct xr_port *port, u32 index, const struct xr_port_attr *pa,
			       char *buf)
{
	return sysfs_emit(buf, "%ld\n", xr_ibcm_counter(port->xdev, port->port_num,
						       index / XR_CM_MSG_KINDS,
						       index % XR_CM_MSG_KINDS));
}

/**
 * xr_sysfs_init - fill in the GID and CM counter file tables, once at module load
 */
void xr_sysfs_init(void)
{
	static ssize_t (*const shows[3])(struct xr_port *, u32,
					 const struct xr_port_attr *, char *) = {
		gid_show, gid_type_show, gid_ndev_show,
	};
	struct xr_gid_attribute *a;
	int t, i;

	for (t = 0; t < 3; t++) {
		for (i = 0; i < XR_GID_FILES; i++) {
			a = &xr_gid_attrs[t][i];
			snprintf(a->name, sizeof(a->name), "%d", i);
			sysfs_attr_init(&a->pattr.attr);
			a->pattr.attr.name = a->name;
			a->pattr.attr.mode = 0444;
			a->pattr.show = shows[t];
			a->pattr.index = i;
			xr_gid_attr_ptrs[t][i] = &a->pattr.attr;
		}
	}
	for (t = 0; t < XR_CM_COUNTER_GROUPS; t++) {
		for (i = 0; i < XR_CM_MSG_KINDS; i++) {
			sysfs_attr_init(&xr_cm_attrs[t][i].attr);
			xr_cm_attrs[t][i].attr.name = xr_cm_msg_names[i];
			xr_cm_attrs[t][i].attr.mode = 0444;
			xr_cm_attrs[t][i].show = cm_counter_show;
			xr_cm_attrs[t][i].index = t * XR_CM_MSG_KINDS + i;
			xr_cm_attr_list[t][i] = &xr_cm_attrs[t][i].attr;
		}
		xr_cm_groups[t].name = xr_cm_group_names[t];
		xr_cm_groups[t].attrs = xr_cm_attr_list[t];
	}
}

static struct attribute *xr_port_attrs[] = {
	&xr_port_attr_state.attr,
	&xr_port_attr_phys_state.attr,
	&xr_port_attr_link_layer.attr,
	&xr_port_attr_rate.attr,
	&xr_port_attr_cap_mask.attr,
	&xr_port_attr_lid.attr,
	&xr_port_attr_sm_lid.attr,
	&xr_port_attr_sm_sl.attr,
	&xr_port_attr_lid_mask_count.attr,
	NULL,
};

static const struct attribute_group xr_port_group = {
	.attrs = xr_port_attrs,
};

static const struct attribute_group *xr_port_groups[] = {
	&xr_port_group,
	&xr_gids_group,
	&xr_pkeys_group,
	&xr_cm_groups[XR_CM_TX_MSGS],
	&xr_cm_groups[XR_CM_TX_RETRIES],
	&xr_cm_groups[XR_CM_RX_MSGS],
	&xr_cm_groups[XR_CM_RX_DUPLICATES],
	NULL,
};

static void xr_port_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct xr_port, kobj));
}

/* The child holds a reference on its port, dropped here. */
static void xr_gid_attrs_release(struct kobject *kobj)
{
	kobject_put(&container_of(kobj, struct xr_port, gid_attrs)->kobj);
}

static struct kobj_type xr_gid_attrs_ktype = {
	.release = xr_gid_attrs_release,
	.sysfs_ops = &xr_gid_attrs_sysfs_ops,
	.default_groups = xr_gid_attrs_groups,
};

static struct kobj_type xr_port_ktype = {
	.release = xr_port_release,
	.sysfs_ops = &xr_port_sysfs_ops,
	.default_groups = xr_port_groups,
};

/**
 * xr_add_port_sysfs - create the ports/<n> directories of a device
 * @xdev: a device being registered
 *
 * Return: 0 or a negative errno; nothing is left behind on failure.
 */
int xr_add_port_sysfs(struct xr_device *xdev)
{
	struct xr_port *port;
	u32 i;
	int ret;

	xdev->port_kobjs = kcalloc(xdev->phys_port_cnt,
				   sizeof(*xdev->port_kobjs), GFP_KERNEL);
	if (!xdev->port_kobjs)
		return -ENOMEM;
	xdev->ports_kobj = kobject_create_and_add("ports", &xdev->dev.kobj);
	if (!xdev->ports_kobj) {
		ret = -ENOMEM;
		goto err_free_array;
	}
	for (i = 0; i < xdev->phys_port_cnt; i++) {
		port = kzalloc(sizeof(*port), GFP_KERNEL);
		if (!port) {
			ret = -ENOMEM;
			goto err_remove;
		}
		port->xdev = xdev;
		port->port_num = i + 1;
		ret = kobject_init_and_add(&port->kobj, &xr_port_ktype,
					   xdev->ports_kobj, "%u", i + 1);
		if (ret) {
			kobject_put(&port->kobj);
			goto err_remove;
		}
		xdev->port_kobjs[i] = &port->kobj;
		kobject_get(&port->kobj);
		ret = kobject_init_and_add(&port->gid_attrs, &xr_gid_attrs_ktype,
					   &port->kobj, "gid_attrs");
		if (ret) {
			kobject_put(&port->gid_attrs);
			goto err_remove;
		}
	}
	return 0;

err_remove:
	xr_remove_port_sysfs(xdev);
	return ret;
err_free_array:
	kfree(xdev->port_kobjs);
	xdev->port_kobjs = NULL;
	return ret;
}

/**
 * xr_remove_port_sysfs - remove what xr_add_port_sysfs() created
 * @xdev: the device
 *
 * Returns once no port attribute is being read.
 */
void xr_remove_port_sysfs(struct xr_device *xdev)
{
	struct xr_port *port;
	u32 i;

	for (i = 0; i < xdev->phys_port_cnt; i++) {
		if (!xdev->port_kobjs[i])
			continue;
		port = container_of(xdev->port_kobjs[i], struct xr_port, kobj);
		if (port->gid_attrs.state_in_sysfs) {
			kobject_del(&port->gid_attrs);
			kobject_put(&port->gid_attrs);
		}
		kobject_del(xdev->port_kobjs[i]);
		kobject_put(xdev->port_kobjs[i]);
	}
	kobject_put(xdev->ports_kobj);
	kfree(xdev->port_kobjs);
	xdev->port_kobjs = NULL;
	xdev->ports_kobj = NULL;
}
