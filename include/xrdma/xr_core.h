/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrdma_core: the interface between the RDMA core and its device drivers.
 *
 * A driver embeds struct xr_device at the start of its own device structure,
 * allocates it with xr_alloc_device(), fills in identity and ops, and
 * registers it.  The core owns naming, the "infiniband" sysfs class and,
 * later, the user ABI.
 */
#ifndef XR_CORE_H
#define XR_CORE_H

#include <linux/device.h>
#include <linux/types.h>

struct xr_device;

#define XR_NODE_DESC_MAX	64
#define XR_FW_VER_MAX		32
#define XR_DEVICE_NAME_MAX	64

/**
 * struct xr_device_attr - device limits, as reported by the hardware
 * @max_mr_size: largest memory registration in bytes
 * @page_size_cap: supported page sizes, a bit per size
 * @vendor_id: IEEE vendor id
 * @vendor_part_id: vendor part number
 * @hw_ver: hardware revision
 * @max_qp: queue pairs
 * @max_qp_wr: work requests per queue
 * @max_sge: scatter/gather entries per work request
 * @max_cq: completion queues
 * @max_cqe: entries per completion queue
 * @max_mr: memory regions
 * @max_pd: protection domains
 */
struct xr_device_attr {
	u64 max_mr_size;
	u64 page_size_cap;
	u32 vendor_id;
	u32 vendor_part_id;
	u32 hw_ver;
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_sge;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_pd;
};

/**
 * struct xr_port_attr - state of one port, using InfiniBand encodings
 * @state: logical state (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE)
 * @phys_state: physical state (2 Polling, 3 Disabled, 5 LinkUp)
 * @active_mtu: IB MTU code (1 = 256 ... 5 = 4096)
 * @max_mtu: IB MTU code
 * @active_speed: IB speed code (1 SDR, 2 DDR, 4 QDR, 8 FDR10, 16 FDR, ...)
 * @active_width: IB width code (1 1X, 2 4X, 4 8X, 8 12X, 16 2X)
 * @gid_tbl_len: entries in the GID table
 * @max_msg_sz: largest message in bytes
 * @port_cap_flags: IB port capability mask
 */
struct xr_port_attr {
	u8 state;
	u8 phys_state;
	u8 active_mtu;
	u8 max_mtu;
	u8 active_speed;
	u8 active_width;
	u16 gid_tbl_len;
	u32 max_msg_sz;
	u32 port_cap_flags;
};

/**
 * struct xr_device_ops - what a driver implements for the core
 * @owner: the driver's module
 * @query_device: ask the hardware for its limits
 * @query_port: ask the hardware for the state of port @port (1-based)
 *
 * The ops may sleep.  They return 0 or a negative errno; a device that has
 * died answers -EIO.
 */
struct xr_device_ops {
	struct module *owner;
	int (*query_device)(struct xr_device *xdev, struct xr_device_attr *attr);
	int (*query_port)(struct xr_device *xdev, u32 port,
			  struct xr_port_attr *attr);
};

/**
 * struct xr_device - an RDMA device known to the core
 * @dev: the class device, /sys/class/infiniband/<name>
 * @ops: the driver's operations
 * @attr: limits cached by xr_register_device() from @ops->query_device
 * @node_guid: node GUID, host byte order
 * @sys_image_guid: system image GUID, host byte order
 * @fw_ver: firmware version string
 * @node_desc: node description, settable through sysfs
 * @phys_port_cnt: number of ports, numbered from 1
 * @ports_kobj: the "ports" sysfs directory (core private)
 * @port_kobjs: one sysfs directory per port (core private)
 * @registered: set between register and unregister (core private)
 */
struct xr_device {
	struct device dev;
	const struct xr_device_ops *ops;
	struct xr_device_attr attr;
	u64 node_guid;
	u64 sys_image_guid;
	char fw_ver[XR_FW_VER_MAX];
	char node_desc[XR_NODE_DESC_MAX];
	u32 phys_port_cnt;

	struct kobject *ports_kobj;
	struct kobject **port_kobjs;
	bool registered;
};

struct xr_device *xr_alloc_device(size_t size);
void xr_dealloc_device(struct xr_device *xdev);
int xr_register_device(struct xr_device *xdev, const char *name_fmt,
		       struct device *parent);
void xr_unregister_device(struct xr_device *xdev);

static inline const char *xr_name(const struct xr_device *xdev)
{
	return dev_name(&xdev->dev);
}

#endif /* XR_CORE_H */
