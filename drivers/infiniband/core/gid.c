// SPDX-License-Identifier: GPL-2.0
/*
 * The GID table of a RoCE port.  Today it holds the default GID only: the
 * link-local address fe80::/64 with the EUI-64 interface id of the port's
 * MAC, type RoCE v2, at index 0, as Linux builds it for every RoCE port.
 * The entries from the Ethernet function's IP addresses come with it.
 */
#include <linux/errno.h>
#include <linux/string.h>

#include "core_priv.h"

/**
 * xr_query_gid - read one entry of a port's GID table
 * @xdev: the device
 * @port: port number, from 1
 * @index: entry, 0 .. the port's gid_tbl_len - 1
 * @gid: out: the GID, 16 bytes in network order
 *
 * Return: 0, or -EINVAL for an empty entry or an index beyond the table.
 */
int xr_query_gid(struct xr_device *xdev, u32 port, u32 index, u8 gid[16])
{
	const u8 *mac = xdev->mac;

	if (port < 1 || port > xdev->phys_port_cnt || index != 0)
		return -EINVAL;
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = mac[0] ^ 2;
	gid[9] = mac[1];
	gid[10] = mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = mac[3];
	gid[14] = mac[4];
	gid[15] = mac[5];
	return 0;
}
