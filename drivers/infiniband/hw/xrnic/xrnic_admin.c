// SPDX-License-Identifier: GPL-2.0
/*
 * Admin queue engine: submission and completion rings in host memory with
 * phase bits, polled during bring-up and interrupt driven afterwards.  A
 * command that gets no completion within admin_timeout_ms marks the device
 * dead; every later command then fails at once with -EIO.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/module.h>

#include "xrnic.h"

static unsigned int admin_timeout_ms = 3000;
module_param(admin_timeout_ms, uint, 0644);
MODULE_PARM_DESC(admin_timeout_ms,
		 "Time the device has to complete an admin command before it is declared dead (ms, at least 100, default 3000)");

static unsigned int xrnic_admin_timeout_ms(void)
{
	return max(READ_ONCE(admin_timeout_ms), 100U);
}

#define XRNIC_AQ_MASK	(XRNIC_AQ_DEPTH - 1)

/**
 * xrnic_admin_init - allocate the admin rings
 * @xn: the device
 *
 * The rings are handed to the device by the bring-up code in xrnic_main.c.
 *
 * Return: 0 or -ENOMEM.
 */
int xrnic_admin_init(struct xrnic_dev *xn)
{
	struct xrnic_admin *aq = &xn->admin;
	struct device *dma = &xn->pdev->dev;

	aq->sq = dma_alloc_coherent(dma, XRNIC_AQ_DEPTH * sizeof(*aq->sq),
				    &aq->sq_dma, GFP_KERNEL);
	if (!aq->sq)
		return -ENOMEM;
	aq->cq = dma_alloc_coherent(dma, XRNIC_AQ_DEPTH * sizeof(*aq->cq),
				    &aq->cq_dma, GFP_KERNEL);
	if (!aq->cq)
		goto err_free_sq;
	mutex_init(&aq->lock);
	init_completion(&aq->done);
	return 0;

err_free_sq:
	dma_free_coherent(dma, XRNIC_AQ_DEPTH * sizeof(*aq->sq), aq->sq,
			  aq->sq_dma);
	return -ENOMEM;
}

/**
 * xrnic_admin_destroy - free the admin rings
 * @xn: the device, reset if it could be (see xrnic_dma.c)
 */
void xrnic_admin_destroy(struct xrnic_dev *xn)
{
	struct xrnic_admin *aq = &xn->admin;

	xrnic_dma_free(xn, aq->cq, aq->cq_dma,
		       XRNIC_AQ_DEPTH * sizeof(*aq->cq), true);
	xrnic_dma_free(xn, aq->sq, aq->sq_dma,
		       XRNIC_AQ_DEPTH * sizeof(*aq->sq), true);
	mutex_destroy(&aq->lock);
}

/**
 * xrnic_admin_set_irq_mode - switch between polled and interrupt completions
 * @xn: the device
 * @on: true once the admin interrupt handler is installed
 */
void xrnic_admin_set_irq_mode(struct xrnic_dev *xn, bool on)
{
	struct xrnic_admin *aq = &xn->admin;
	u32 ctl = XRNIC_AQ_CTL_ENABLE;

	mutex_lock(&aq->lock);
	if (on)
		ctl |= XRNIC_AQ_CTL_ACQ_IRQ | XRNIC_AQ_CTL_AENQ_IRQ;
	xrnic_wr(xn, XRNIC_REG_AQ_CTL, ctl);
	aq->irq_mode = on;
	mutex_unlock(&aq->lock);
}

/**
 * xrnic_is_dead - has the device stopped answering?
 * @xn: the device
 *
 * Return: true after xrnic_mark_dead().
 */
bool xrnic_is_dead(struct xrnic_dev *xn)
{
	return READ_ONCE(xn->admin.dead);
}
EXPORT_SYMBOL_NS_GPL(xrnic_is_dead, XRNIC);

/**
 * xrnic_mark_dead - stop talking to a device that no longer answers
 * @xn: the device
 * @why: what showed it, for the log
 *
 * Logs once, with the device's own status, wakes a waiting command, holds
 * the memory the device was given until it completes a reset, and has the
 * fatal work reset it and disconnect the device's users.
 */
void xrnic_mark_dead(struct xrnic_dev *xn, const char *why)
{
	if (xchg(&xn->admin.dead, true))
		return;
	xrnic_dma_unsafe(xn);
	dev_err(&xn->pdev->dev,
		"device marked dead: %s (DEV_STS %#x, fatal reason %u); admin commands now fail with -EIO\n",
		why, xrnic_rd(xn, XRNIC_REG_DEV_STS),
		xrnic_rd(xn, XRNIC_REG_FATAL_REASON));
	complete(&xn->admin.done);
	/* The core takes locks our caller may hold: tell it from a worker. */
	schedule_work(&xn->fatal_work);
}

/*
 * The errno of each admin status.  -EIO is not among them: the core reads
 * it as "the device is gone".  An unknown status is the device's fault.
 */
static const int xrnic_status_errno[] = {
	[XRNIC_STATUS_OK]		= 0,
	[XRNIC_STATUS_BAD_OPCODE]	= -EOPNOTSUPP,
	[XRNIC_STATUS_MALFORMED]	= -EINVAL,
	[XRNIC_STATUS_BAD_PARAM]	= -EINVAL,
	[XRNIC_STATUS_BAD_ADDRESS]	= -EFAULT,
	[XRNIC_STATUS_NO_RESOURCES]	= -ENOMEM,
	[XRNIC_STATUS_BUSY]		= -EBUSY,
	[XRNIC_STATUS_BAD_STATE]	= -EINVAL,
	[XRNIC_STATUS_NOT_FOUND]	= -ENOENT,
};

static int xrnic_status_to_errno(u8 status)
{
	return status < ARRAY_SIZE(xrnic_status_errno) ?
	       xrnic_status_errno[status] : -EPROTO;
}

/* The completion at the consumer index, if the device has written it. */
static struct xrnic_acq_entry *xrnic_admin_next_cqe(struct xrnic_admin *aq)
{
	return xrnic_ring_next(aq->cq, sizeof(*aq->cq),
			       offsetof(struct xrnic_acq_entry, flags),
			       XRNIC_AQ_DEPTH, aq->cq_cc);
}

/* Wait, bounded by admin_timeout_ms, for the completion of the last command. */
static struct xrnic_acq_entry *xrnic_admin_wait(struct xrnic_dev *xn)
{
	struct xrnic_admin *aq = &xn->admin;
	unsigned long deadline = jiffies +
				msecs_to_jiffies(xrnic_admin_timeout_ms());
	struct xrnic_acq_entry *cqe;

	for (;;) {
		if (aq->irq_mode)
			reinit_completion(&aq->done);
		cqe = xrnic_admin_next_cqe(aq);
		if (cqe || xrnic_is_dead(xn) || time_after(jiffies, deadline))
			return cqe;
		if (aq->irq_mode)
			wait_for_completion_timeout(&aq->done,
						    max_t(long, 1,
							  deadline - jiffies));
		else
			usleep_range(20, 100);
	}
}

/**
 * xrnic_admin_exec - run one admin command and wait for its completion
 * @xn: the device
 * @cmd: the command; opcode and body filled in, the rest is set here
 * @resp: receives the completion
 *
 * Context: process context; sleeps.
 * Return: 0, the errno that the completion status maps to, -ETIMEDOUT when
 * the device did not answer in time, or -EIO once the device is dead.
 */
int xrnic_admin_exec(struct xrnic_dev *xn, struct xrnic_aq_entry *cmd,
		     struct xrnic_acq_entry *resp)
{
	struct xrnic_admin *aq = &xn->admin;
	struct xrnic_aq_entry *sqe;
	struct xrnic_acq_entry *cqe;
	u16 cmd_id;
	int ret;

	mutex_lock(&aq->lock);
	if (xrnic_is_dead(xn)) {
		ret = -EIO;
		goto out_unlock;
	}

	cmd_id = aq->cmd_seq++;
	sqe = &aq->sq[aq->sq_pc & XRNIC_AQ_MASK];
	cmd->flags = 0;
	cmd->cmd_id = cpu_to_le16(cmd_id);
	cmd->reserved = 0;
	memcpy(sqe, cmd, sizeof(*sqe));
	dma_wmb();	/* the body is visible before the phase bit */
	WRITE_ONCE(sqe->flags, xrnic_entry_phase(aq->sq_pc, XRNIC_AQ_DEPTH));
	aq->sq_pc++;
	xrnic_doorbell(xn, XRNIC_VEC_ADMIN);

	cqe = xrnic_admin_wait(xn);
	if (!cqe) {
		if (xrnic_is_dead(xn)) {
			ret = -EIO;
		} else {
			dev_err(&xn->pdev->dev,
				"admin command %u (opcode %u) timed out after %u ms\n",
				cmd_id, cmd->opcode, xrnic_admin_timeout_ms());
			xrnic_mark_dead(xn, "admin command timeout");
			ret = -ETIMEDOUT;
		}
		goto out_unlock;
	}
	memcpy(resp, cqe, sizeof(*resp));
	aq->cq_cc++;
	if (le16_to_cpu(resp->cmd_id) != cmd_id) {
		dev_err(&xn->pdev->dev,
			"admin completion for command %u, expected %u\n",
			le16_to_cpu(resp->cmd_id), cmd_id);
		xrnic_mark_dead(xn, "admin completion out of order");
		ret = -EIO;
		goto out_unlock;
	}
	ret = xrnic_status_to_errno(resp->status);
	if (ret)
		dev_dbg(&xn->pdev->dev, "admin command %u (opcode %u): status %u\n",
			cmd_id, cmd->opcode, resp->status);
out_unlock:
	mutex_unlock(&aq->lock);
	return ret;
}
