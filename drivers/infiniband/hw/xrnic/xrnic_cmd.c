// SPDX-License-Identifier: GPL-2.0
/* Typed admin commands: build the command, run it, hand back the answer. */
#include "xrnic.h"

/**
 * xrnic_cmd_query_device - read the device limits
 * @xn: the device
 * @resp: receives the device's answer
 *
 * Return: 0 or a negative errno from xrnic_admin_exec().
 */
int xrnic_cmd_query_device(struct xrnic_dev *xn,
			   struct xrnic_resp_query_device *resp)
{
	struct xrnic_aq_entry cmd = { .opcode = XRNIC_ADMIN_QUERY_DEVICE };
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*resp = cqe.query_device;
	return ret;
}

/**
 * xrnic_cmd_query_port - read the state of one port
 * @xn: the device
 * @port: port number, from 1
 * @resp: receives the device's answer
 *
 * Return: 0 or a negative errno from xrnic_admin_exec().
 */
int xrnic_cmd_query_port(struct xrnic_dev *xn, u8 port,
			 struct xrnic_resp_query_port *resp)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_QUERY_PORT,
		.query_port.port_num = port,
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*resp = cqe.query_port;
	return ret;
}
