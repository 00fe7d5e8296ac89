// SPDX-License-Identifier: GPL-2.0
/*
 * The XRNIC's Ethernet function as a net_device: one TX and one RX ring of
 * descriptors (START_ETH), NAPI on the Ethernet vector, carrier from the
 * port's link events, ethtool.  Frames are copied through fixed buffers
 * the device was given once per open, so that everything the device may
 * touch is one allocation the driver can hold if it stops answering.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>

#include "xrnic.h"

#define XRNIC_ETH_TX_DEPTH	64
#define XRNIC_ETH_RX_DEPTH	128
#define XRNIC_ETH_NAPI_WEIGHT	64
/* TX ring in the first page, RX ring in the second, the record after it. */
#define XRNIC_ETH_RING_BYTES	(2 * XRNIC_PAGE_SIZE)
#define XRNIC_ETH_DB_OFF	(XRNIC_PAGE_SIZE + \
				 XRNIC_ETH_RX_DEPTH * XRNIC_ETH_DESC_SIZE)

static_assert(XRNIC_ETH_TX_DEPTH * XRNIC_ETH_DESC_SIZE <= XRNIC_PAGE_SIZE);
static_assert(XRNIC_ETH_DB_OFF + sizeof(struct xrnic_eth_db) <=
	      XRNIC_ETH_RING_BYTES);

/**
 * struct xrnic_eth - the net_device's private data
 * @xn: its device
 * @netdev: itself
 * @napi: TX reclaim and RX, on the Ethernet vector
 * @vector: the MSI-X vector the device raises for it
 * @irq_name: its name in /proc/interrupts, with an own vector
 * @rings: TX ring, RX ring and doorbell record (XRNIC_ETH_RING_BYTES)
 * @rings_dma: bus address of @rings
 * @bufs: XRNIC_ETH_TX_DEPTH TX then XRNIC_ETH_RX_DEPTH RX buffers
 * @bufs_dma: bus address of @bufs
 * @buf_size: bytes a buffer, from the MTU at open
 * @tx_pi: descriptors queued; written by ndo_start_xmit only
 * @tx_cc: descriptors reclaimed; written by NAPI only
 * @rx_cc: frames taken; NAPI only (the RX producer index is @rx_cc + depth)
 * @arm: the last arm value written
 * @started: the device runs the rings (open succeeded, stop not yet)
 * @stall_work: asks the device whether it is alive after a TX stall
 */
struct xrnic_eth {
	struct xrnic_dev *xn;
	struct net_device *netdev;
	struct napi_struct napi;
	u16 vector;
	char irq_name[32];
	void *rings;
	dma_addr_t rings_dma;
	u8 *bufs;
	dma_addr_t bufs_dma;
	u32 buf_size;
	u32 tx_pi;
	u32 tx_cc;
	u32 rx_cc;
	u32 arm;
	bool started;
	struct work_struct stall_work;
};

static struct xrnic_eth_desc *xrnic_eth_tx(struct xrnic_eth *eth, u32 i)
{
	return (struct xrnic_eth_desc *)eth->rings + (i & (XRNIC_ETH_TX_DEPTH - 1));
}

static struct xrnic_eth_desc *xrnic_eth_rx(struct xrnic_eth *eth, u32 i)
{
	return (struct xrnic_eth_desc *)(eth->rings + XRNIC_PAGE_SIZE) +
	       (i & (XRNIC_ETH_RX_DEPTH - 1));
}

static struct xrnic_eth_db *xrnic_eth_db(struct xrnic_eth *eth)
{
	return eth->rings + XRNIC_ETH_DB_OFF;
}

/* Buffer n: TX slots first, then RX slots. */
static u8 *xrnic_eth_buf(struct xrnic_eth *eth, u32 n, dma_addr_t *dma)
{
	*dma = eth->bufs_dma + (dma_addr_t)n * eth->buf_size;
	return eth->bufs + (size_t)n * eth->buf_size;
}

static size_t xrnic_eth_bufs_bytes(struct xrnic_eth *eth)
{
	return (size_t)(XRNIC_ETH_TX_DEPTH + XRNIC_ETH_RX_DEPTH) * eth->buf_size;
}

static u32 xrnic_eth_tx_free(struct xrnic_eth *eth)
{
	return XRNIC_ETH_TX_DEPTH - (READ_ONCE(eth->tx_pi) - READ_ONCE(eth->tx_cc));
}

static netdev_tx_t xrnic_eth_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct xrnic_eth *eth = netdev_priv(netdev);
	struct xrnic_eth_desc *d;
	dma_addr_t dma;
	u8 *buf;

	if (!eth->started || skb->len > eth->buf_size ||
	    skb->len < XRNIC_ETH_HLEN) {
		netdev->stats.tx_dropped++;
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	if (unlikely(!xrnic_eth_tx_free(eth))) {
		netif_stop_queue(netdev);
		return NETDEV_TX_BUSY;
	}
	buf = xrnic_eth_buf(eth, eth->tx_pi & (XRNIC_ETH_TX_DEPTH - 1), &dma);
	skb_copy_bits(skb, 0, buf, skb->len);
	d = xrnic_eth_tx(eth, eth->tx_pi);
	d->addr = cpu_to_le64(dma);
	d->buf_len = cpu_to_le16(skb->len);
	d->frame_len = 0;
	d->status = 0;
	netdev->stats.tx_packets++;
	netdev->stats.tx_bytes += skb->len;
	dev_consume_skb_any(skb);
	/* The descriptor and the frame before the index. */
	dma_wmb();
	WRITE_ONCE(eth->tx_pi, eth->tx_pi + 1);
	WRITE_ONCE(xrnic_eth_db(eth)->tx_pi, cpu_to_le32(eth->tx_pi));

	if (!xrnic_eth_tx_free(eth)) {
		netif_stop_queue(netdev);
		/* Pairs with the barrier in xrnic_eth_reclaim(). */
		smp_mb();
		if (xrnic_eth_tx_free(eth))
			netif_start_queue(netdev);
	}
	if (!netdev_xmit_more() || netif_queue_stopped(netdev))
		xrnic_doorbell(eth->xn, eth->vector);
	return NETDEV_TX_OK;
}

/* Take back the TX descriptors the device completed. */
static void xrnic_eth_reclaim(struct xrnic_eth *eth)
{
	struct net_device *netdev = eth->netdev;
	u32 pi = READ_ONCE(eth->tx_pi), cc = eth->tx_cc;
	u8 status;

	while (cc != pi) {
		status = READ_ONCE(xrnic_eth_tx(eth, cc)->status);
		if (!(status & XRNIC_ETH_DONE))
			break;
		if (status & XRNIC_ETH_ERR)
			netdev->stats.tx_errors++;
		cc++;
	}
	if (cc == eth->tx_cc)
		return;
	WRITE_ONCE(eth->tx_cc, cc);
	/* Pairs with the barrier in xrnic_eth_xmit(). */
	smp_mb();
	if (netif_queue_stopped(netdev) && xrnic_eth_tx_free(eth))
		netif_wake_queue(netdev);
}

/* Give RX buffer slot n to the device again, with index rx_cc + depth. */
static void xrnic_eth_post_rx(struct xrnic_eth *eth, u32 n)
{
	struct xrnic_eth_desc *d = xrnic_eth_rx(eth, n);
	dma_addr_t dma;

	xrnic_eth_buf(eth, XRNIC_ETH_TX_DEPTH + (n & (XRNIC_ETH_RX_DEPTH - 1)), &dma);
	d->addr = cpu_to_le64(dma);
	d->buf_len = cpu_to_le16(eth->buf_size);
	d->frame_len = 0;
	d->status = 0;
}

static int xrnic_eth_receive(struct xrnic_eth *eth, int budget)
{
	struct net_device *netdev = eth->netdev;
	struct xrnic_eth_desc *d;
	struct sk_buff *skb;
	int done = 0;
	dma_addr_t dma;
	u32 len;
	u8 *buf;

	while (done < budget) {
		d = xrnic_eth_rx(eth, eth->rx_cc);
		if (!(READ_ONCE(d->status) & XRNIC_ETH_DONE))
			break;
		dma_rmb();	/* the rest only after DONE */
		len = le16_to_cpu(d->frame_len);
		buf = xrnic_eth_buf(eth, XRNIC_ETH_TX_DEPTH +
				    (eth->rx_cc & (XRNIC_ETH_RX_DEPTH - 1)), &dma);
		if ((d->status & XRNIC_ETH_ERR) || len < XRNIC_ETH_HLEN ||
		    len > eth->buf_size) {
			netdev->stats.rx_errors++;
		} else {
			skb = napi_alloc_skb(&eth->napi, len);
			if (skb) {
				skb_put_data(skb, buf, len);
				skb->protocol = eth_type_trans(skb, netdev);
				netdev->stats.rx_packets++;
				netdev->stats.rx_bytes += len;
				napi_gro_receive(&eth->napi, skb);
			} else {
				netdev->stats.rx_dropped++;
			}
		}
		xrnic_eth_post_rx(eth, eth->rx_cc);
		eth->rx_cc++;
		done++;
	}
	if (done) {
		dma_wmb();	/* the descriptors before the index */
		WRITE_ONCE(xrnic_eth_db(eth)->rx_pi,
			   cpu_to_le32(eth->rx_cc + XRNIC_ETH_RX_DEPTH));
	}
	return done;
}

static bool xrnic_eth_pending(struct xrnic_eth *eth)
{
	return (READ_ONCE(xrnic_eth_rx(eth, eth->rx_cc)->status) & XRNIC_ETH_DONE) ||
	       (eth->tx_cc != READ_ONCE(eth->tx_pi) &&
		(READ_ONCE(xrnic_eth_tx(eth, eth->tx_cc)->status) & XRNIC_ETH_DONE));
}

/* Ask for the next interrupt; see struct xrnic_eth_db. */
static void xrnic_eth_arm(struct xrnic_eth *eth)
{
	eth->arm++;
	WRITE_ONCE(xrnic_eth_db(eth)->arm, cpu_to_le32(eth->arm));
	/* The arm word before the rings are looked at again. */
	mb();
}

static int xrnic_eth_poll(struct napi_struct *napi, int budget)
{
	struct xrnic_eth *eth = container_of(napi, struct xrnic_eth, napi);
	int done;

	xrnic_eth_reclaim(eth);
	done = xrnic_eth_receive(eth, budget);
	if (done < budget && napi_complete_done(napi, done)) {
		xrnic_eth_arm(eth);
		if (xrnic_eth_pending(eth))
			napi_schedule(napi);
	}
	return done;
}

static irqreturn_t xrnic_eth_irq(int irq, void *data)
{
	struct xrnic_eth *eth = data;

	napi_schedule(&eth->napi);
	return IRQ_HANDLED;
}

/**
 * xrnic_eth_admin_vector - an interrupt on vector 0, which it may share
 * @xn: the device
 */
void xrnic_eth_admin_vector(struct xrnic_dev *xn)
{
	struct net_device *netdev = READ_ONCE(xn->netdev);
	struct xrnic_eth *eth = netdev ? netdev_priv(netdev) : NULL;

	if (eth && eth->vector == XRNIC_VEC_ADMIN)
		napi_schedule(&eth->napi);
}

static void xrnic_eth_free_rings(struct xrnic_eth *eth)
{
	struct xrnic_dev *xn = eth->xn;

	/* Held instead if the device stopped answering (xrnic_dma.c). */
	xrnic_dma_free(xn, eth->bufs, eth->bufs_dma, xrnic_eth_bufs_bytes(eth),
		       true);
	xrnic_dma_free(xn, eth->rings, eth->rings_dma, XRNIC_ETH_RING_BYTES,
		       true);
	eth->bufs = NULL;
	eth->rings = NULL;
}

static int xrnic_eth_open(struct net_device *netdev)
{
	struct xrnic_eth *eth = netdev_priv(netdev);
	struct device *dev = &eth->xn->pdev->dev;
	struct xrnic_cmd_start_eth start = {};
	u32 i;
	int ret;

	eth->buf_size = ALIGN(netdev->mtu + XRNIC_ETH_OVERHEAD, 64);
	eth->rings = dma_alloc_coherent(dev, XRNIC_ETH_RING_BYTES,
					&eth->rings_dma, GFP_KERNEL);
	if (!eth->rings)
		return -ENOMEM;
	eth->bufs = dma_alloc_coherent(dev, xrnic_eth_bufs_bytes(eth),
				       &eth->bufs_dma, GFP_KERNEL);
	if (!eth->bufs) {
		dma_free_coherent(dev, XRNIC_ETH_RING_BYTES, eth->rings,
				  eth->rings_dma);
		return -ENOMEM;
	}
	eth->tx_pi = 0;
	eth->tx_cc = 0;
	eth->rx_cc = 0;
	for (i = 0; i < XRNIC_ETH_RX_DEPTH; i++)
		xrnic_eth_post_rx(eth, i);
	xrnic_eth_db(eth)->rx_pi = cpu_to_le32(XRNIC_ETH_RX_DEPTH);
	eth->arm = 1;
	xrnic_eth_db(eth)->arm = cpu_to_le32(eth->arm);

	start.tx_ring = cpu_to_le64(eth->rings_dma);
	start.rx_ring = cpu_to_le64(eth->rings_dma + XRNIC_PAGE_SIZE);
	start.db_addr = cpu_to_le64(eth->rings_dma + XRNIC_ETH_DB_OFF);
	start.tx_depth = cpu_to_le32(XRNIC_ETH_TX_DEPTH);
	start.rx_depth = cpu_to_le32(XRNIC_ETH_RX_DEPTH);
	start.vector = cpu_to_le16(eth->vector);
	napi_enable(&eth->napi);
	ret = xrnic_cmd_start_eth(eth->xn, &start);
	if (ret) {
		napi_disable(&eth->napi);
		xrnic_eth_free_rings(eth);
		return ret;
	}
	eth->started = true;
	netif_start_queue(netdev);
	return 0;
}

static int xrnic_eth_stop(struct net_device *netdev)
{
	struct xrnic_eth *eth = netdev_priv(netdev);
	int ret;

	/* A restart at a new MTU that failed left nothing to stop. */
	if (!eth->started)
		return 0;
	eth->started = false;
	/* Under the TX lock: a transmit under way ends before the rings go. */
	netif_tx_disable(netdev);
	ret = xrnic_cmd_stop_eth(eth->xn);
	if (ret)
		netdev_warn(netdev, "STOP_ETH failed (%d): buffers are held\n",
			    ret);
	napi_disable(&eth->napi);
	xrnic_eth_free_rings(eth);
	return 0;
}

/* Rings are sized by the MTU: a running interface restarts on them. */
static int xrnic_eth_change_mtu(struct net_device *netdev, int mtu)
{
	bool running = netif_running(netdev);
	int ret;

	if (running)
		xrnic_eth_stop(netdev);
	netdev->mtu = mtu;
	if (!running)
		return 0;
	ret = xrnic_eth_open(netdev);
	if (ret)
		netdev_err(netdev, "cannot restart at MTU %d: %d\n", mtu, ret);
	return ret;
}

/*
 * A device that stopped completing TX may have died: only an admin command
 * can tell (one that times out marks it dead, and the fatal work takes the
 * carrier away).
 */
static void xrnic_eth_stall_work(struct work_struct *work)
{
	struct xrnic_eth *eth = container_of(work, struct xrnic_eth, stall_work);
	struct xrnic_resp_query_port port;
	int ret;

	ret = xrnic_cmd_query_port(eth->xn, 1, &port);
	if (ret)
		netdev_err(eth->netdev, "device does not answer after a TX stall (%d)\n",
			   ret);
}

static void xrnic_eth_tx_timeout(struct net_device *netdev, unsigned int txq)
{
	struct xrnic_eth *eth = netdev_priv(netdev);

	netdev_warn(netdev, "TX stalled: %u descriptors queued, %u reclaimed\n",
		    READ_ONCE(eth->tx_pi), READ_ONCE(eth->tx_cc));
	schedule_work(&eth->stall_work);
}

static const struct net_device_ops xrnic_netdev_ops = {
	.ndo_open = xrnic_eth_open,
	.ndo_stop = xrnic_eth_stop,
	.ndo_start_xmit = xrnic_eth_xmit,
	.ndo_change_mtu = xrnic_eth_change_mtu,
	.ndo_tx_timeout = xrnic_eth_tx_timeout,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_set_mac_address = eth_mac_addr,
};

static void xrnic_eth_get_drvinfo(struct net_device *netdev,
				  struct ethtool_drvinfo *info)
{
	struct xrnic_eth *eth = netdev_priv(netdev);

	strscpy(info->driver, XRNIC_DRV_NAME, sizeof(info->driver));
	strscpy(info->fw_version, eth->xn->fw_ver,
		sizeof(info->fw_version));
	strscpy(info->bus_info, pci_name(eth->xn->pdev), sizeof(info->bus_info));
}

static int xrnic_eth_get_link_ksettings(struct net_device *netdev,
					struct ethtool_link_ksettings *cmd)
{
	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	/* The port's rate: IB QDR, 1X. */
	cmd->base.speed = netif_carrier_ok(netdev) ? SPEED_10000 : SPEED_UNKNOWN;
	cmd->base.duplex = netif_carrier_ok(netdev) ? DUPLEX_FULL : DUPLEX_UNKNOWN;
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static int xrnic_eth_get_sset_count(struct net_device *netdev, int sset)
{
	return sset == ETH_SS_STATS ? XRNIC_NUM_COUNTERS : -EOPNOTSUPP;
}

static void xrnic_eth_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < XRNIC_NUM_COUNTERS; i++)
		ethtool_sprintf(&data, "%s", xrnic_counter_names[i]);
}

/* The device's own counters; zeros if it does not answer. */
static void xrnic_eth_get_stats(struct net_device *netdev,
				struct ethtool_stats *stats, u64 *data)
{
	struct xrnic_eth *eth = netdev_priv(netdev);

	if (xrnic_read_stats(eth->xn, data))
		memset(data, 0, XRNIC_NUM_COUNTERS * sizeof(*data));
}

static const struct ethtool_ops xrnic_ethtool_ops = {
	.get_drvinfo = xrnic_eth_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = xrnic_eth_get_link_ksettings,
	.get_sset_count = xrnic_eth_get_sset_count,
	.get_strings = xrnic_eth_get_strings,
	.get_ethtool_stats = xrnic_eth_get_stats,
};

/**
 * xrnic_eth_link - the port's link went up or down
 * @xn: the device
 * @up: its new state
 *
 * Called for every port event, before and after the net_device exists:
 * the carrier follows the last one (@xn->link_lock orders them).
 */
void xrnic_eth_link(struct xrnic_dev *xn, bool up)
{
	mutex_lock(&xn->link_lock);
	xn->link_up = up;
	if (xn->netdev) {
		if (up)
			netif_carrier_on(xn->netdev);
		else
			netif_carrier_off(xn->netdev);
	}
	mutex_unlock(&xn->link_lock);
}

/**
 * xrnic_eth_register - create the device's net_device
 * @xn: the device, with its admin queue in interrupt mode
 * @vector: the MSI-X vector of the Ethernet function (0: shared with admin)
 * @max_mtu: the largest MTU the device reports
 *
 * Return: 0 or a negative errno; nothing is left behind on failure.
 */
int xrnic_eth_register(struct xrnic_dev *xn, u16 vector, u16 max_mtu)
{
	struct net_device *netdev;
	struct xrnic_eth *eth;
	int ret;

	netdev = alloc_etherdev(sizeof(*eth));
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, &xn->pdev->dev);
	eth = netdev_priv(netdev);
	eth->xn = xn;
	eth->netdev = netdev;
	eth->vector = vector;
	INIT_WORK(&eth->stall_work, xrnic_eth_stall_work);
	netdev->netdev_ops = &xrnic_netdev_ops;
	netdev->ethtool_ops = &xrnic_ethtool_ops;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = max_t(u16, max_mtu, ETH_MIN_MTU);
	netdev->watchdog_timeo = 5 * HZ;
	eth_hw_addr_set(netdev, xn->mac);
	netif_napi_add_weight(netdev, &eth->napi, xrnic_eth_poll,
			      XRNIC_ETH_NAPI_WEIGHT);
	netif_carrier_off(netdev);

	if (vector != XRNIC_VEC_ADMIN) {
		snprintf(eth->irq_name, sizeof(eth->irq_name), "xrnic-eth@%s",
			 pci_name(xn->pdev));
		ret = request_irq(pci_irq_vector(xn->pdev, vector),
				  xrnic_eth_irq, 0, eth->irq_name, eth);
		if (ret)
			goto err_free_netdev;
	}
	ret = register_netdev(netdev);
	if (ret)
		goto err_free_irq;
	mutex_lock(&xn->link_lock);
	WRITE_ONCE(xn->netdev, netdev);
	if (xn->link_up)
		netif_carrier_on(netdev);
	mutex_unlock(&xn->link_lock);
	return 0;

err_free_irq:
	if (vector != XRNIC_VEC_ADMIN)
		free_irq(pci_irq_vector(xn->pdev, vector), eth);
err_free_netdev:
	netif_napi_del(&eth->napi);
	free_netdev(netdev);
	return ret;
}

/**
 * xrnic_eth_unregister - remove the device's net_device
 * @xn: the device
 *
 * Closes it first if it is up.
 */
void xrnic_eth_unregister(struct xrnic_dev *xn)
{
	struct net_device *netdev = xn->netdev;
	struct xrnic_eth *eth;

	if (!netdev)
		return;
	eth = netdev_priv(netdev);
	unregister_netdev(netdev);
	/* Closed: the TX watchdog is stopped and schedules no more. */
	cancel_work_sync(&eth->stall_work);
	mutex_lock(&xn->link_lock);
	WRITE_ONCE(xn->netdev, NULL);
	mutex_unlock(&xn->link_lock);
	if (eth->vector != XRNIC_VEC_ADMIN)
		free_irq(pci_irq_vector(xn->pdev, eth->vector), eth);
	else	/* the admin handler may still be looking at it */
		synchronize_irq(pci_irq_vector(xn->pdev, XRNIC_VEC_ADMIN));
	netif_napi_del(&eth->napi);
	free_netdev(netdev);
}
