// SPDX-License-Identifier: GPL-2.0
/*
 * IB CM's surroundings, faked (fake.h): mad.c's xr_mad_send(),
 * xr_mad_reply_ah() and its agents, a listener as the RDMA CM's,
 * device.c's xr_device_put() and its client list.
 */
#include <stdlib.h>

#include "fake.h"

struct fake fake;

const struct xr_gsi_wc peer_wc = {
	.sgid = PEER_GID,
	.dgid = OUR_GID,
	.src_qp = 1,
};

struct xr_device *fake_device(u32 ports)
{
	struct xr_device *xdev = calloc(1, sizeof(*xdev));

	if (!xdev)
		host_bug("out of memory");
	xdev->node_guid = OUR_GUID;
	xdev->phys_port_cnt = ports;
	refcount_set(&xdev->users, 1);
	xdev->cm_counters = calloc(ports, sizeof(*xdev->cm_counters));
	if (!xdev->cm_counters)
		host_bug("out of memory");
	return xdev;
}

void fake_device_free(struct xr_device *xdev)
{
	free(xdev->cm_counters);
	free(xdev);
}

void xr_device_put(struct xr_device *xdev)
{
	/* The registration's reference stays: the last put here is a bug. */
	if (refcount_dec_and_test(&xdev->users))
		host_bug("%s(): the device's last reference", __func__);
}

int xr_register_client(struct xr_client *client)
{
	fake.client = client;
	return 0;
}

void xr_unregister_client(struct xr_client *client)
{
	if (fake.client != client)
		host_bug("%s(): %s was not registered", __func__, client->name);
	fake.client = NULL;
}

int xr_mad_send(struct xr_device *xdev, u32 port, const struct xr_gsi_ah *ah, const void *mad)
{
	struct fake_sent *s;

	(void)xdev;
	s = &fake.sent[fake.nsent++ % FAKE_MAX_SENT];
	s->at = jiffies;
	s->port = port;
	s->ah = *ah;
	memcpy(s->mad, mad, XR_MAD_SIZE);
	return 0;
}

/* As mad.c's: the sender's GSI QP, from our GID it was sent to (index 0). */
int xr_mad_reply_ah(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc,
		    struct xr_gsi_ah *ah)
{
	(void)xdev;
	(void)port;
	if (fake.reply_ah_answer)
		return fake.reply_ah_answer;
	if (memcmp(wc->dgid, our_gid, 16))
		return -EINVAL;
	*ah = (struct xr_gsi_ah){
		.dmac = { 0x52, 0x54, 0, 0, 0, 2 }, .sgid_index = 0, .hop_limit = 64,
		.remote_qpn = wc->src_qp, .remote_qkey = 0x80010000,
	};
	memcpy(ah->dgid, wc->sgid, 16);
	return 0;
}

void fake_handler(void *context, const struct xr_cm_event *ev)
{
	struct fake_event *e;

	e = &fake.events[fake.nevents++ % FAKE_MAX_EVENTS];
	e->at = jiffies;
	e->context = context;
	e->ev = *ev;
	if (ev->private_data) {
		memcpy(e->pdata, ev->private_data, ev->private_data_len);
		e->ev.private_data = e->pdata;
	}
}

/*
 * As cma.c's: the connection's QP attributes first (-ENOENT if it has
 * none), then a listener takes it (its handler set, as cma.c sets it) or
 * not (fake.cma_answer).
 */
static int fake_listener(struct xr_device *xdev, struct xr_ibcm *cm,
			 const struct xr_ibcm_req_rcvd *r)
{
	struct fake_req *q;

	if (fake.nreqs == FAKE_MAX_REQS)
		host_bug("more than %d requests", FAKE_MAX_REQS);
	q = &fake.reqs[fake.nreqs++];
	q->xdev = xdev;
	q->r = *r;
	memcpy(q->pdata, r->private_data, r->private_data_len);
	q->r.private_data = q->pdata;
	q->qp_attr_ret = xr_ibcm_qp_attr(cm, &q->qp);
	if (q->qp_attr_ret)
		return -ENOENT;
	if (fake.cma_answer)
		return fake.cma_answer;
	q->cm = cm;
	xr_ibcm_set_handler(cm, fake_handler, q);
	return 0;
}

/* IB CM's MADs come from the tests, which call xr_ibcm_recv() themselves. */
int xr_mad_register_agent(u8 mgmt_class __attribute__((unused)),
			  xr_mad_recv_t recv __attribute__((unused)))
{
	return 0;
}

void xr_mad_unregister_agent(u8 mgmt_class __attribute__((unused)))
{
}

void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	xr_ibcm_listen(fake_listener);
}
