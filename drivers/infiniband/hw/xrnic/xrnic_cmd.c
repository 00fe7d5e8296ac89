// SPDX-License-Identifier: GPL-2.0
/* Typed admin commands: build the command, run it, hand back the answer. */
#include <linux/dma-mapping.h>
#include <linux/mm.h>

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
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_query_device, XRNIC);

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

/* Run a command whose completion carries no data the caller wants. */
static int xrnic_exec(struct xrnic_dev *xn, struct xrnic_aq_entry *cmd)
{
	struct xrnic_acq_entry cqe;

	return xrnic_admin_exec(xn, cmd, &cqe);
}

/**
 * xrnic_cmd_alloc_pd - allocate a protection domain
 * @xn: the device
 * @pdn: out: its number
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_alloc_pd(struct xrnic_dev *xn, u32 *pdn)
{
	struct xrnic_aq_entry cmd = { .opcode = XRNIC_ADMIN_ALLOC_PD };
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*pdn = le32_to_cpu(cqe.pd.pdn);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_alloc_pd, XRNIC);

/**
 * xrnic_cmd_dealloc_pd - free a protection domain
 * @xn: the device
 * @pdn: its number
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_dealloc_pd(struct xrnic_dev *xn, u32 pdn)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_DEALLOC_PD,
		.pd.pdn = cpu_to_le32(pdn),
	};

	return xrnic_exec(xn, &cmd);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_dealloc_pd, XRNIC);

/**
 * xrnic_cmd_reg_mr - register a memory region
 * @xn: the device
 * @reg: the command body, page list included
 * @lkey: out: the local key
 * @rkey: out: the remote key
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_reg_mr(struct xrnic_dev *xn, const struct xrnic_cmd_reg_mr *reg,
		     u32 *lkey, u32 *rkey)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_REG_MR,
		.reg_mr = *reg,
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret) {
		*lkey = le32_to_cpu(cqe.mr.lkey);
		*rkey = le32_to_cpu(cqe.mr.rkey);
	}
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_reg_mr, XRNIC);

/**
 * xrnic_reg_mr_pages - register a memory region over a list of pages
 * @xn: the device
 * @reg: the command body but its page list (pbl_mode, pages, pbl_addr)
 * @pages: the bus address of each PAGE_SIZE page, in order
 * @npages: how many; @reg->npages says the same
 * @lkey: out: the local key
 * @rkey: out: the remote key
 *
 * A few pages go inline in the command; more go in a chain of 4 KiB
 * chunks that lives only for the command (the device keeps its own copy
 * of the page list).
 *
 * Return: 0 or a negative errno.
 */
int xrnic_reg_mr_pages(struct xrnic_dev *xn, struct xrnic_cmd_reg_mr *reg,
		       const dma_addr_t *pages, unsigned long npages, u32 *lkey, u32 *rkey)
{
	struct device *dma = &xn->pdev->dev;
	unsigned long nchunks, c, i, n = 0;
	dma_addr_t *chunk_dma;
	__le64 **chunks;
	int ret;

	reg->page_shift = PAGE_SHIFT;
	if (npages <= XRNIC_PBL_INLINE_MAX) {
		reg->pbl_mode = XRNIC_PBL_INLINE;
		for (i = 0; i < npages; i++)
			reg->pages[i] = cpu_to_le64(pages[i]);
		return xrnic_cmd_reg_mr(xn, reg, lkey, rkey);
	}

	nchunks = DIV_ROUND_UP(npages, XRNIC_PBL_CHUNK_ENTRIES);
	chunks = kvcalloc(nchunks, sizeof(*chunks), GFP_KERNEL);
	chunk_dma = kvcalloc(nchunks, sizeof(*chunk_dma), GFP_KERNEL);
	if (!chunks || !chunk_dma) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (c = 0; c < nchunks; c++) {
		chunks[c] = dma_alloc_coherent(dma, XRNIC_PBL_CHUNK_SIZE,
					       &chunk_dma[c], GFP_KERNEL);
		if (!chunks[c]) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	for (c = 0; c < nchunks; c++) {
		for (i = 0; i < XRNIC_PBL_CHUNK_ENTRIES && n < npages; i++)
			chunks[c][i] = cpu_to_le64(pages[n++]);
		if (c + 1 < nchunks)
			chunks[c][XRNIC_PBL_CHUNK_ENTRIES] = cpu_to_le64(chunk_dma[c + 1]);
	}
	reg->pbl_mode = XRNIC_PBL_CHAINED;
	reg->pbl_addr = cpu_to_le64(chunk_dma[0]);
	ret = xrnic_cmd_reg_mr(xn, reg, lkey, rkey);
out_free:
	/* Held instead if the device stopped answering (xrnic_dma.c). */
	for (c = 0; chunks && c < nchunks && chunks[c]; c++)
		xrnic_dma_free(xn, chunks[c], chunk_dma[c], XRNIC_PBL_CHUNK_SIZE, true);
	kvfree(chunk_dma);
	kvfree(chunks);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_reg_mr_pages, XRNIC);

/**
 * xrnic_cmd_dereg_mr - unregister a memory region
 * @xn: the device
 * @lkey: its local key
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_dereg_mr(struct xrnic_dev *xn, u32 lkey)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_DEREG_MR,
		.mr.lkey = cpu_to_le32(lkey),
	};

	return xrnic_exec(xn, &cmd);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_dereg_mr, XRNIC);

/**
 * xrnic_cmd_alloc_mw - allocate a memory window
 * @xn: the device
 * @pdn: its PD
 * @type: XRNIC_MW_TYPE_1 or XRNIC_MW_TYPE_2
 * @rkey: out: its rkey
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_alloc_mw(struct xrnic_dev *xn, u32 pdn, u8 type, u32 *rkey)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_ALLOC_MW,
		.mw.pdn = cpu_to_le32(pdn),
		.mw.type = type,
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*rkey = le32_to_cpu(cqe.mw.rkey);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_alloc_mw, XRNIC);

/**
 * xrnic_cmd_dealloc_mw - unbind and free a memory window
 * @xn: the device
 * @rkey: the rkey it has now
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_dealloc_mw(struct xrnic_dev *xn, u32 rkey)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_DEALLOC_MW,
		.mw.rkey = cpu_to_le32(rkey),
	};

	return xrnic_exec(xn, &cmd);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_dealloc_mw, XRNIC);

/**
 * xrnic_cmd_create_cq - create a completion queue
 * @xn: the device
 * @create: the command, little-endian as the device takes it
 * @cqn: out: its number
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_create_cq(struct xrnic_dev *xn,
			const struct xrnic_cmd_create_cq *create, u32 *cqn)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_CREATE_CQ,
		.create_cq = *create,
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*cqn = le32_to_cpu(cqe.cq.cqn);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_create_cq, XRNIC);

/**
 * xrnic_cmd_create_eq - give a completion vector its event queue
 * @xn: the device
 * @create: the command, little-endian as the device takes it
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_create_eq(struct xrnic_dev *xn, const struct xrnic_cmd_eq *create)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_CREATE_EQ,
		.eq = *create,
	};
	struct xrnic_acq_entry cqe;

	return xrnic_admin_exec(xn, &cmd, &cqe);
}

/**
 * xrnic_cmd_destroy_eq - take a completion vector's event queue away
 * @xn: the device
 * @vector: the vector
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_destroy_eq(struct xrnic_dev *xn, u16 vector)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_DESTROY_EQ,
		.eq.vector = cpu_to_le16(vector),
	};
	struct xrnic_acq_entry cqe;

	return xrnic_admin_exec(xn, &cmd, &cqe);
}

/**
 * xrnic_cmd_destroy_cq - destroy a completion queue
 * @xn: the device
 * @cqn: its number
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_destroy_cq(struct xrnic_dev *xn, u32 cqn)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_DESTROY_CQ,
		.cq.cqn = cpu_to_le32(cqn),
	};

	return xrnic_exec(xn, &cmd);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_destroy_cq, XRNIC);

/**
 * xrnic_cmd_create_qp - create a queue pair
 * @xn: the device
 * @create: the command body
 * @qpn: out: its number
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_create_qp(struct xrnic_dev *xn,
			const struct xrnic_cmd_create_qp *create, u32 *qpn)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_CREATE_QP,
		.create_qp = *create,
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*qpn = le32_to_cpu(cqe.qp.qpn);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_create_qp, XRNIC);

/**
 * xrnic_cmd_modify_qp - change QP attributes
 * @xn: the device
 * @attr: the command body
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_modify_qp(struct xrnic_dev *xn, const struct xrnic_qp_attr *attr)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_MODIFY_QP,
		.qp_attr = *attr,
	};

	return xrnic_exec(xn, &cmd);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_modify_qp, XRNIC);

/**
 * xrnic_cmd_query_qp - read QP attributes
 * @xn: the device
 * @qpn: the QP
 * @attr: out: its attributes
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_query_qp(struct xrnic_dev *xn, u32 qpn,
		       struct xrnic_qp_attr *attr)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_QUERY_QP,
		.qp.qpn = cpu_to_le32(qpn),
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*attr = cqe.qp_attr;
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_query_qp, XRNIC);

/**
 * xrnic_cmd_destroy_qp - destroy a queue pair
 * @xn: the device
 * @qpn: its number
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_destroy_qp(struct xrnic_dev *xn, u32 qpn)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_DESTROY_QP,
		.qp.qpn = cpu_to_le32(qpn),
	};

	return xrnic_exec(xn, &cmd);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_destroy_qp, XRNIC);

/**
 * xrnic_cmd_create_srq - create a shared receive queue
 * @xn: the device
 * @create: the command body
 * @srqn: out: its number
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_create_srq(struct xrnic_dev *xn,
			 const struct xrnic_cmd_create_srq *create, u32 *srqn)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_CREATE_SRQ,
		.create_srq = *create,
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*srqn = le32_to_cpu(cqe.srq.srqn);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_create_srq, XRNIC);

/**
 * xrnic_cmd_resize_srq - move a shared receive queue to a new ring
 * @xn: the device
 * @resize: the command body
 *
 * Return: 0 or a negative errno (-EINVAL: fewer entries than WQEs posted,
 * or not above the armed limit).
 */
int xrnic_cmd_resize_srq(struct xrnic_dev *xn,
			 const struct xrnic_cmd_resize_srq *resize)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_RESIZE_SRQ,
		.resize_srq = *resize,
	};

	return xrnic_exec(xn, &cmd);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_resize_srq, XRNIC);

/**
 * xrnic_cmd_srq - DESTROY_SRQ, MODIFY_SRQ or QUERY_SRQ
 * @xn: the device
 * @opcode: which
 * @srqn: the SRQ
 * @limit: MODIFY_SRQ: the limit to arm (0: disarm); else 0
 * @limit_out: QUERY_SRQ: out: the armed limit; else NULL
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_srq(struct xrnic_dev *xn, u8 opcode, u32 srqn, u32 limit,
		  u32 *limit_out)
{
	struct xrnic_aq_entry cmd = {
		.opcode = opcode,
		.srq.srqn = cpu_to_le32(srqn),
		.srq.limit = cpu_to_le32(limit),
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret && limit_out)
		*limit_out = le32_to_cpu(cqe.srq.limit);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_srq, XRNIC);

/**
 * xrnic_cmd_mcast - ATTACH_MCAST or DETACH_MCAST
 * @xn: the device
 * @opcode: which
 * @qpn: the UD QP
 * @gid: the group's multicast GID, network order
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_mcast(struct xrnic_dev *xn, u8 opcode, u32 qpn, const u8 *gid)
{
	struct xrnic_aq_entry cmd = {
		.opcode = opcode,
		.mcast.qpn = cpu_to_le32(qpn),
	};
	struct xrnic_acq_entry cqe;

	memcpy(cmd.mcast.gid, gid, sizeof(cmd.mcast.gid));
	return xrnic_admin_exec(xn, &cmd, &cqe);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_mcast, XRNIC);

/**
 * xrnic_cmd_query_stats - read the device's counters
 * @xn: the device
 * @values: out: XRNIC_NUM_COUNTERS counters, in enum xrnic_counter order
 *
 * The device writes them into a page of ours, which is held if it does not
 * answer (it might still write it).
 *
 * Return: 0, -ENOMEM, -EPROTO if the device wrote fewer, or the errno of
 * the command.
 */
int xrnic_cmd_query_stats(struct xrnic_dev *xn, u64 *values)
{
	struct xrnic_aq_entry cmd = { .opcode = XRNIC_ADMIN_QUERY_STATS };
	struct xrnic_acq_entry cqe;
	dma_addr_t dma;
	__le64 *page;
	int i, ret;

	page = dma_alloc_coherent(&xn->pdev->dev, XRNIC_PAGE_SIZE, &dma,
				  GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	cmd.query_stats.buf_addr = cpu_to_le64(dma);
	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret && le32_to_cpu(cqe.stats.num_counters) < XRNIC_NUM_COUNTERS)
		ret = -EPROTO;
	for (i = 0; !ret && i < XRNIC_NUM_COUNTERS; i++)
		values[i] = le64_to_cpu(READ_ONCE(page[i]));
	xrnic_dma_free(xn, page, dma, XRNIC_PAGE_SIZE, true);
	return ret;
}

/**
 * xrnic_cmd_query_resources - count the objects the device holds
 * @xn: the device
 * @res: out: the counts
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_query_resources(struct xrnic_dev *xn,
			      struct xrnic_resp_query_resources *res)
{
	struct xrnic_aq_entry cmd = { .opcode = XRNIC_ADMIN_QUERY_RESOURCES };
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*res = cqe.resources;
	return ret;
}

/**
 * xrnic_cmd_set_gid - set or empty an entry of the port's GID table
 * @xn: the device
 * @port: port number, from 1
 * @index: the entry
 * @gid: the GID, or NULL to empty the entry
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_set_gid(struct xrnic_dev *xn, u8 port, u8 index, const u8 *gid)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_SET_GID,
		.set_gid = { .port_num = port, .index = index, .valid = !!gid },
	};

	if (gid)
		memcpy(cmd.set_gid.gid, gid, sizeof(cmd.set_gid.gid));
	return xrnic_exec(xn, &cmd);
}
EXPORT_SYMBOL_NS_GPL(xrnic_cmd_set_gid, XRNIC);

/**
 * xrnic_cmd_query_cc - read a congestion control parameter
 * @xn: the device
 * @param: enum xrnic_cc_param
 * @value: out
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_query_cc(struct xrnic_dev *xn, u32 param, u32 *value)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_QUERY_CC,
		.cc = { .param = cpu_to_le32(param) },
	};
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*value = le32_to_cpu(cqe.cc.value);
	return ret;
}

/**
 * xrnic_cmd_set_cc - set a congestion control parameter for every QP
 * @xn: the device
 * @param: enum xrnic_cc_param
 * @value: within the parameter's range
 *
 * Return: 0, -EINVAL outside the range, or another negative errno.
 */
int xrnic_cmd_set_cc(struct xrnic_dev *xn, u32 param, u32 value)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_SET_CC,
		.cc = { .param = cpu_to_le32(param), .value = cpu_to_le32(value) },
	};

	return xrnic_exec(xn, &cmd);
}

/**
 * xrnic_cmd_query_clock - read the device clock that stamps completions
 * @xn: the device
 * @now_ns: out: all 64 bits of it
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_query_clock(struct xrnic_dev *xn, u64 *now_ns)
{
	struct xrnic_aq_entry cmd = { .opcode = XRNIC_ADMIN_QUERY_CLOCK };
	struct xrnic_acq_entry cqe;
	int ret;

	ret = xrnic_admin_exec(xn, &cmd, &cqe);
	if (!ret)
		*now_ns = le64_to_cpu(cqe.clock.now_ns);
	return ret;
}

/**
 * xrnic_cmd_start_eth - start the Ethernet function on its rings
 * @xn: the device
 * @start: the rings, their doorbell record and the vector
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_start_eth(struct xrnic_dev *xn,
			const struct xrnic_cmd_start_eth *start)
{
	struct xrnic_aq_entry cmd = {
		.opcode = XRNIC_ADMIN_START_ETH,
		.start_eth = *start,
	};

	return xrnic_exec(xn, &cmd);
}

/**
 * xrnic_cmd_stop_eth - stop the Ethernet function
 * @xn: the device
 *
 * Once it answered, the device no longer touches the rings or buffers.
 *
 * Return: 0 or a negative errno.
 */
int xrnic_cmd_stop_eth(struct xrnic_dev *xn)
{
	struct xrnic_aq_entry cmd = { .opcode = XRNIC_ADMIN_STOP_ETH };

	return xrnic_exec(xn, &cmd);
}
