// SPDX-License-Identifier: GPL-2.0
/*
 * Answers kept so that readers cannot flood the admin queue.  Anyone may
 * read a port's attributes (sysfs, ibv_query_port) and the counters
 * (ethtool -S, rdma statistic), each once an admin command; and the
 * counters' names.
 *
 * QUERY_PORT's answer changes only with the link, and the device announces
 * every change with an event: the answer is kept until the next port event,
 * for everyone.  A read that raced with an event does not keep what it read.
 *
 * The counters change all the time: a reader with CAP_NET_ADMIN reads the
 * device, others get values at most XRNIC_STATS_MAX_AGE old (the last read
 * of anyone), so that unprivileged readers cost at most one QUERY_STATS a
 * second however many they are.
 */
#include <linux/capability.h>
#include <linux/jiffies.h>

#include "xrnic.h"

#define XRNIC_STATS_MAX_AGE	HZ

/**
 * xrnic_port_attrs - QUERY_PORT's answer for port 1, from the device once per port event
 * @xn: the device
 * @resp: out: the answer
 *
 * Context: process context; sleeps.
 *
 * Return: 0, -EIO once the device is dead, or the errno of the command.
 */
int xrnic_port_attrs(struct xrnic_dev *xn, struct xrnic_resp_query_port *resp)
{
	struct xrnic_cache *c = &xn->cache;
	u32 gen;
	int ret;

	if (xrnic_is_dead(xn))
		return -EIO;
	mutex_lock(&c->lock);
	if (c->port_valid) {
		*resp = c->port;
		mutex_unlock(&c->lock);
		return 0;
	}
	gen = c->port_gen;
	mutex_unlock(&c->lock);
	ret = xrnic_cmd_query_port(xn, 1, resp);
	if (ret)
		return ret;
	mutex_lock(&c->lock);
	if (c->port_gen == gen) {
		c->port = *resp;
		c->port_valid = true;
	}
	mutex_unlock(&c->lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(xrnic_port_attrs, XRNIC);

/**
 * xrnic_port_changed - forget the kept QUERY_PORT answer
 * @xn: the device
 *
 * Called for every port event, before anyone is told of it.
 *
 * Context: process context; sleeps.
 */
void xrnic_port_changed(struct xrnic_dev *xn)
{
	mutex_lock(&xn->cache.lock);
	xn->cache.port_valid = false;
	xn->cache.port_gen++;
	mutex_unlock(&xn->cache.lock);
}

/**
 * xrnic_read_stats - the device's counters, fresh for CAP_NET_ADMIN
 * @xn: the device
 * @values: out: XRNIC_NUM_COUNTERS counters, in enum xrnic_counter order
 *
 * Readers without CAP_NET_ADMIN get the last values read, if they are at
 * most XRNIC_STATS_MAX_AGE old.  Readers queue on one mutex, so those that
 * come together send one command.
 *
 * Context: process context; sleeps.
 *
 * Return: 0, -EIO once the device is dead, or the errno of QUERY_STATS.
 */
int xrnic_read_stats(struct xrnic_dev *xn, u64 *values)
{
	struct xrnic_cache *c = &xn->cache;
	int ret = 0;

	if (xrnic_is_dead(xn))
		return -EIO;
	mutex_lock(&c->lock);
	if (capable(CAP_NET_ADMIN) || !c->stats_valid ||
	    time_after(jiffies, c->stats_time + XRNIC_STATS_MAX_AGE)) {
		ret = xrnic_cmd_query_stats(xn, c->stats);
		c->stats_valid = !ret;
		c->stats_time = jiffies;
	}
	if (!ret)
		memcpy(values, c->stats, sizeof(c->stats));
	mutex_unlock(&c->lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_read_stats, XRNIC);

/* The device's counters by name: rdma statistic and ethtool -S. */
const char * const xrnic_counter_names[XRNIC_NUM_COUNTERS] = {
	[XRNIC_CNT_ADMIN_COMMANDS] = "admin_commands",
	[XRNIC_CNT_ADMIN_ERRORS] = "admin_errors",
	[XRNIC_CNT_TX_PACKETS] = "tx_packets",
	[XRNIC_CNT_RX_PACKETS] = "rx_packets",
	[XRNIC_CNT_TX_BYTES] = "tx_bytes",
	[XRNIC_CNT_RX_BYTES] = "rx_bytes",
	[XRNIC_CNT_RX_DROPPED] = "rx_dropped",
	[XRNIC_CNT_RX_DUPLICATES] = "rx_duplicates",
	[XRNIC_CNT_RNR_NAKS_SENT] = "rnr_naks_sent",
	[XRNIC_CNT_SEQ_NAKS_SENT] = "seq_naks_sent",
	[XRNIC_CNT_RETRANSMITS] = "retransmits",
	[XRNIC_CNT_DOORBELLS] = "doorbells",
	[XRNIC_CNT_POLLED] = "polled",
	[XRNIC_CNT_RX_ICRC_ERRORS] = "rx_icrc_errors",
	[XRNIC_CNT_ETH_TX_FRAMES] = "eth_tx_frames",
	[XRNIC_CNT_ETH_TX_BYTES] = "eth_tx_bytes",
	[XRNIC_CNT_ETH_RX_FRAMES] = "eth_rx_frames",
	[XRNIC_CNT_ETH_RX_BYTES] = "eth_rx_bytes",
	[XRNIC_CNT_ETH_TX_BAD_DESC] = "eth_tx_bad_desc",
	[XRNIC_CNT_ETH_TX_LINK_DOWN] = "eth_tx_link_down",
	[XRNIC_CNT_ETH_RX_TOO_SHORT] = "eth_rx_too_short",
	[XRNIC_CNT_ETH_RX_TOO_LONG] = "eth_rx_too_long",
	[XRNIC_CNT_ETH_RX_NO_BUFFER] = "eth_rx_no_buffer",
	[XRNIC_CNT_ETH_RX_BAD_DESC] = "eth_rx_bad_desc",
	[XRNIC_CNT_INJECTED_DROPS] = "injected_drops",
	[XRNIC_CNT_INJECTED_DUPS] = "injected_dups",
	[XRNIC_CNT_INJECTED_REORDERS] = "injected_reorders",
	[XRNIC_CNT_INJECTED_CORRUPTS] = "injected_corrupts",
	[XRNIC_CNT_WIRE_TX_DROPS] = "wire_tx_drops",
	/* As Linux's rxe and mlx5 name them. */
	[XRNIC_CNT_ACK_TIMEOUTS] = "local_ack_timeout_err",
	[XRNIC_CNT_SEQ_NAKS_RCVD] = "packet_seq_err",
	[XRNIC_CNT_RX_QKEY_VIOLATIONS] = "rx_qkey_violations",
	[XRNIC_CNT_RX_PKEY_VIOLATIONS] = "rx_pkey_violations",
	/* DCQCN, as mlx5 names them. */
	[XRNIC_CNT_NP_ECN_MARKED_ROCE_PACKETS] = "np_ecn_marked_roce_packets",
	[XRNIC_CNT_NP_CNP_SENT] = "np_cnp_sent",
	[XRNIC_CNT_RP_CNP_HANDLED] = "rp_cnp_handled",
	[XRNIC_CNT_RP_CNP_IGNORED] = "rp_cnp_ignored",
	/* The switch's lossless mode, as mlx5's per-priority pause counters. */
	[XRNIC_CNT_RX_PAUSE] = "rx_pause",
	[XRNIC_CNT_RX_PAUSE_DURATION] = "rx_pause_duration",
};
EXPORT_SYMBOL_NS_GPL(xrnic_counter_names, XRNIC);
