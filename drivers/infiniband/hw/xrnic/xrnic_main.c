// SPDX-License-Identifier: GPL-2.0
/*
 * PCI probe and remove for the XRNIC: claim only functions that carry the
 * XRNIC signature, reset the device, hand it the admin rings, switch the
 * admin queue to interrupts, register the Ethernet function and add the
 * RDMA function's auxiliary device (xrnic_aux.c).
 */
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/netdevice.h>

#include "xrnic.h"

static const struct pci_device_id xrnic_pci_ids[] = {
	{ PCI_DEVICE(XRNIC_PCI_VENDOR_ID, XRNIC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, xrnic_pci_ids);

/* The device's own bound for reset and queue enable, kept within reason. */
static u32 xrnic_ctl_timeout_us(struct xrnic_dev *xn)
{
	return clamp_t(u32, xrnic_rd(xn, XRNIC_REG_RESET_TIMEOUT_MS), 100,
		       10000) * USEC_PER_MSEC;
}

static int xrnic_check_signature(struct xrnic_dev *xn)
{
	u32 sig = xrnic_rd(xn, XRNIC_REG_SIGNATURE);
	u32 ver = xrnic_rd(xn, XRNIC_REG_VERSION);

	if (sig != XRNIC_SIGNATURE) {
		dev_info(&xn->pdev->dev,
			 "no XRNIC signature (%#x), leaving the device to other drivers\n",
			 sig);
		return -ENODEV;
	}
	if (XRNIC_VERSION_GET_MAJOR(ver) != XRNIC_VERSION_MAJOR) {
		dev_err(&xn->pdev->dev,
			"XRNIC interface version %u.%u is not supported (driver speaks %u.x)\n",
			XRNIC_VERSION_GET_MAJOR(ver),
			XRNIC_VERSION_GET_MINOR(ver), XRNIC_VERSION_MAJOR);
		return -ENODEV;
	}
	return 0;
}

/* Reset the device and wait, bounded, until it reports ready. */
static int xrnic_reset(struct xrnic_dev *xn)
{
	u32 ctl, sts;
	int ret;

	xrnic_wr(xn, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xrnic_doorbell(xn, XRNIC_VEC_ADMIN);
	ret = readl_poll_timeout(xn->regs + XRNIC_REG_DEV_CTL, ctl,
				 !(ctl & XRNIC_DEV_CTL_RESET), 1000,
				 xrnic_ctl_timeout_us(xn));
	if (ret) {
		dev_err(&xn->pdev->dev, "device did not complete reset in %u us\n",
			xrnic_ctl_timeout_us(xn));
		return ret;
	}
	sts = xrnic_rd(xn, XRNIC_REG_DEV_STS);
	if (!(sts & XRNIC_DEV_STS_READY)) {
		dev_err(&xn->pdev->dev, "device not ready after reset (DEV_STS %#x)\n",
			sts);
		return -EIO;
	}
	return 0;
}

/*
 * Reset the device so that it stops using host memory.  If the reset
 * completes, memory held for the device is freed; if not, the device may
 * still use what it was given, which is held from now on.
 */
static void xrnic_quiesce(struct xrnic_dev *xn)
{
	mutex_lock(&xn->admin.lock);	/* no command half submitted */
	if (xrnic_reset(xn))
		xrnic_dma_unsafe(xn);
	else
		xrnic_dma_quiesced(xn);
	mutex_unlock(&xn->admin.lock);
}

static void xrnic_wr64(struct xrnic_dev *xn, u32 reg_lo, u64 val)
{
	xrnic_wr(xn, reg_lo, lower_32_bits(val));
	xrnic_wr(xn, reg_lo + 4, upper_32_bits(val));
}

/* Give the device the admin and event rings; it starts in polled mode. */
static int xrnic_enable_admin(struct xrnic_dev *xn)
{
	u32 sts;
	int ret;

	xrnic_wr64(xn, XRNIC_REG_AQ_BASE_LO, xn->admin.sq_dma);
	xrnic_wr64(xn, XRNIC_REG_ACQ_BASE_LO, xn->admin.cq_dma);
	xrnic_wr64(xn, XRNIC_REG_AENQ_BASE_LO, xn->aenq.dma);
	xrnic_wr(xn, XRNIC_REG_AQ_DEPTH, XRNIC_AQ_DEPTH);
	xrnic_wr(xn, XRNIC_REG_AENQ_DEPTH, XRNIC_AENQ_DEPTH);
	xrnic_wr(xn, XRNIC_REG_AENQ_CI, 0);
	xrnic_wr(xn, XRNIC_REG_AQ_CTL, XRNIC_AQ_CTL_ENABLE);
	xrnic_doorbell(xn, XRNIC_VEC_ADMIN);
	ret = readl_poll_timeout(xn->regs + XRNIC_REG_DEV_STS, sts,
				 sts & (XRNIC_DEV_STS_AQ_ENABLED |
					XRNIC_DEV_STS_FATAL),
				 1000, xrnic_ctl_timeout_us(xn));
	if (ret) {
		dev_err(&xn->pdev->dev, "device did not enable the admin queue\n");
		return ret;
	}
	if (sts & XRNIC_DEV_STS_FATAL) {
		dev_err(&xn->pdev->dev,
			"device refused the admin queue, fatal reason %u\n",
			xrnic_rd(xn, XRNIC_REG_FATAL_REASON));
		return -EIO;
	}
	return 0;
}

static void xrnic_read_identity(struct xrnic_dev *xn)
{
	u32 mac_lo = xrnic_rd(xn, XRNIC_REG_MAC_LO);
	u32 mac_hi = xrnic_rd(xn, XRNIC_REG_MAC_HI);
	u32 fw = xrnic_rd(xn, XRNIC_REG_FW_VERSION);

	xn->node_guid = (u64)xrnic_rd(xn, XRNIC_REG_NODE_GUID_HI) << 32 |
			xrnic_rd(xn, XRNIC_REG_NODE_GUID_LO);
	snprintf(xn->fw_ver, sizeof(xn->fw_ver), "%u.%u.%u",
		 XRNIC_FW_MAJOR(fw), XRNIC_FW_MINOR(fw), XRNIC_FW_SUB(fw));
	xn->mac[0] = mac_lo;
	xn->mac[1] = mac_lo >> 8;
	xn->mac[2] = mac_lo >> 16;
	xn->mac[3] = mac_lo >> 24;
	xn->mac[4] = mac_hi;
	xn->mac[5] = mac_hi >> 8;
}

/*
 * The device stopped answering: reset it, so that what it was given can be
 * freed, and have the RDMA function cut its users off.
 */
static void xrnic_fatal_work(struct work_struct *work)
{
	struct xrnic_dev *xn = container_of(work, struct xrnic_dev, fatal_work);

	xrnic_eth_link(xn, false);
	xrnic_quiesce(xn);
	xrnic_rdma_fatal(xn);
}

/*
 * Reset the device and free what it was given; what a device that never
 * completes the reset was given is leaked rather than freed.  Every source
 * of admin commands and of the fatal work is gone by now.
 */
static void xrnic_stop_device(struct xrnic_dev *xn)
{
	size_t leaked;

	xrnic_aenq_stop(xn);
	cancel_work_sync(&xn->fatal_work);
	xrnic_quiesce(xn);
	xrnic_aenq_destroy(xn);
	xrnic_admin_destroy(xn);
	leaked = xrnic_dma_abandon(xn, NULL);
	if (leaked)
		dev_err(&xn->pdev->dev,
			"device did not complete a reset: leaking %zu bytes of memory it may still use\n",
			leaked);
}

/*
 * User space rings the device through the ivshmem Doorbell register: its
 * page of BAR0 is mapped into each context.  Only a page that holds BAR0
 * alone is offered (the runner's q35 layout places it so); otherwise
 * contexts get no data path.
 */
static void xrnic_find_db_page(struct xrnic_dev *xn)
{
	resource_size_t start = pci_resource_start(xn->pdev, XRNIC_DB_BAR);

	if (PAGE_ALIGNED(start) &&
	    pci_resource_len(xn->pdev, XRNIC_DB_BAR) <= PAGE_SIZE)
		xn->db_page = start;
	else
		dev_warn(&xn->pdev->dev,
			 "BAR%d is not alone in its page: no kernel-bypass doorbell\n",
			 XRNIC_DB_BAR);
}

static int xrnic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct xrnic_resp_query_port port;
	struct xrnic_dev *xn;
	u32 dma_width;
	int ret;

	xn = kzalloc(sizeof(*xn), GFP_KERNEL);
	if (!xn)
		return -ENOMEM;
	xn->pdev = pdev;
	INIT_WORK(&xn->fatal_work, xrnic_fatal_work);
	mutex_init(&xn->held_lock);
	mutex_init(&xn->link_lock);
	mutex_init(&xn->cache.lock);
	INIT_LIST_HEAD(&xn->held);
	ret = init_srcu_struct(&xn->rdma_srcu);
	if (ret)
		goto err_free;
	pci_set_drvdata(pdev, xn);

	ret = pci_enable_device_mem(pdev);
	if (ret)
		goto err_cleanup_srcu;
	ret = pci_request_regions(pdev, XRNIC_DRV_NAME);
	if (ret)
		goto err_disable_device;
	if (pci_resource_len(pdev, XRNIC_MEM_BAR) < XRNIC_PAGE_SIZE) {
		dev_info(&pdev->dev, "BAR%d too small for an XRNIC\n",
			 XRNIC_MEM_BAR);
		ret = -ENODEV;
		goto err_release_regions;
	}
	xn->regs = pci_iomap_range(pdev, XRNIC_MEM_BAR, 0, XRNIC_PAGE_SIZE);
	if (!xn->regs) {
		ret = -ENOMEM;
		goto err_release_regions;
	}
	ret = xrnic_check_signature(xn);
	if (ret)
		goto err_unmap_regs;
	xn->db = pci_iomap(pdev, XRNIC_DB_BAR, 0);
	if (!xn->db) {
		ret = -ENOMEM;
		goto err_unmap_regs;
	}
	pci_set_master(pdev);

	ret = xrnic_reset(xn);
	if (ret)
		goto err_clear_master;
	dma_width = xrnic_rd(xn, XRNIC_REG_DMA_WIDTH);
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(clamp_t(u32, dma_width,
							     32, 64)));
	if (ret)
		goto err_clear_master;
	ret = pci_alloc_irq_vectors(pdev, 1,
				    clamp_t(u32,
					    xrnic_rd(xn, XRNIC_REG_NUM_VECTORS),
					    1, XRNIC_MAX_VECTORS),
				    PCI_IRQ_MSIX);
	if (ret < 0)
		goto err_clear_master;
	xn->num_vectors = ret;
	/*
	 * Vector 0 is the admin vector; the last of three or more is the
	 * Ethernet function's; the rest serve completion queues.
	 */
	xn->eth_vector = xn->num_vectors >= 3 ? xn->num_vectors - 1 : 0;
	xn->num_comp_vectors = max(xn->num_vectors - 1 - (xn->eth_vector ? 1 : 0), 1);

	ret = xrnic_admin_init(xn);
	if (ret)
		goto err_free_vectors;
	ret = xrnic_aenq_init(xn);
	if (ret)
		goto err_admin_destroy;
	ret = xrnic_enable_admin(xn);
	if (ret)
		goto err_stop_device;
	ret = xrnic_admin_irq_request(xn);
	if (ret)
		goto err_stop_device;
	xrnic_admin_set_irq_mode(xn, true);
	ret = xrnic_ceqs_init(xn);
	if (ret)
		goto err_free_irq;
	ret = xrnic_clock_init(xn);
	if (ret)
		goto err_ceqs_destroy;
	xrnic_find_db_page(xn);

	xrnic_read_identity(xn);
	ret = xrnic_cmd_query_port(xn, 1, &port);
	if (!ret)
		ret = xrnic_eth_register(xn, xn->eth_vector,
					 le16_to_cpu(port.eth_max_mtu));
	if (ret)
		goto err_clock_destroy;
	ret = xrnic_aux_add(xn);
	if (ret)
		goto err_eth_unregister;
	xrnic_debugfs_add(xn);
	dev_info(&pdev->dev,
		 "XRNIC interface %u.%u, MAC %pM, %d MSI-X vectors, admin queue in interrupt mode, Ethernet function %s\n",
		 XRNIC_VERSION_GET_MAJOR(xrnic_rd(xn, XRNIC_REG_VERSION)),
		 XRNIC_VERSION_GET_MINOR(xrnic_rd(xn, XRNIC_REG_VERSION)),
		 xn->mac, xn->num_vectors, xn->netdev->name);
	return 0;

err_eth_unregister:
	xrnic_eth_unregister(xn);
err_clock_destroy:
	xrnic_clock_destroy(xn);
err_ceqs_destroy:
	xrnic_ceqs_destroy(xn);
err_free_irq:
	xrnic_admin_set_irq_mode(xn, false);
	xrnic_admin_irq_free(xn);
err_stop_device:
	xrnic_stop_device(xn);
	goto err_free_vectors;
err_admin_destroy:
	xrnic_admin_destroy(xn);
err_free_vectors:
	pci_free_irq_vectors(pdev);
err_clear_master:
	pci_clear_master(pdev);
	pci_iounmap(pdev, xn->db);
err_unmap_regs:
	pci_iounmap(pdev, xn->regs);
err_release_regions:
	pci_release_regions(pdev);
err_disable_device:
	pci_disable_device(pdev);
err_cleanup_srcu:
	cleanup_srcu_struct(&xn->rdma_srcu);
err_free:
	kfree(xn);
	return ret;
}

static void xrnic_remove(struct pci_dev *pdev)
{
	struct xrnic_dev *xn = pci_get_drvdata(pdev);

	/* Unbinds the RDMA function, which destroys every object it made. */
	xrnic_aux_delete(xn);
	xrnic_debugfs_remove(xn);
	xrnic_eth_unregister(xn);
	xrnic_clock_destroy(xn);
	xrnic_ceqs_destroy(xn);
	xrnic_admin_set_irq_mode(xn, false);
	xrnic_admin_irq_free(xn);
	xrnic_stop_device(xn);
	pci_free_irq_vectors(pdev);
	pci_clear_master(pdev);
	pci_iounmap(pdev, xn->db);
	pci_iounmap(pdev, xn->regs);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	cleanup_srcu_struct(&xn->rdma_srcu);
	kfree(xn);
}

static struct pci_driver xrnic_pci_driver = {
	.name = XRNIC_DRV_NAME,
	.id_table = xrnic_pci_ids,
	.probe = xrnic_probe,
	.remove = xrnic_remove,
	.shutdown = xrnic_remove,
};

static int __init xrnic_init(void)
{
	int ret;

	ret = xrnic_aux_check();
	if (ret)
		return ret;
	xrnic_debugfs_init();
	ret = pci_register_driver(&xrnic_pci_driver);
	if (ret)
		xrnic_debugfs_exit();
	return ret;
}

static void __exit xrnic_exit(void)
{
	pci_unregister_driver(&xrnic_pci_driver);
	xrnic_debugfs_exit();
}

module_init(xrnic_init);
module_exit(xrnic_exit);

MODULE_DESCRIPTION("XRNIC RDMA NIC driver");
MODULE_AUTHOR("The xrdma authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(XRDMA_VERSION);
