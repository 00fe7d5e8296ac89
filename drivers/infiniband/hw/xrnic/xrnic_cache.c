// SPDX-License-Identifier: GPL-2.0
/*
 * Answers kept so that readers cannot flood the admin queue.  Anyone may
 * read a port's attributes (sysfs, ibv_query_port) and the counters
 * (ethtool -S, rdma statistic), each once an admin command.
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
