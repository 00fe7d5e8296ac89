// SPDX-License-Identifier: GPL-2.0
/*
 * IB CM (IBTA chapter 12) over the GSI QP for RC connections, its messages
 * laid out byte for byte as Linux's ib_cm lays them out (IBTA tables 106 to
 * 113), so that either end may be Linux.  The active side sends a REQ, the
 * passive side answers with a REP (or a REJ), the active side with an RTU;
 * either side ends the connection with a DREQ, which a DREP answers.  A
 * connection dropped before it is established ends with a REJ, as Linux's
 * cm_destroy_id() sends it: our REQ unanswered, "timeout" with our CA GUID
 * (the peer may not know our ID yet: it finds its connection by that GUID
 * and our ID, as we find ours by such a REJ); our REP unanswered, or a REQ
 * or REP ours to answer, "consumer defined".  A REJ received ends a
 * connection in any state before its DREQ (whose DREP or retries end it).  A
 * REQ, REP or DREQ is sent again after the response timeout, up to the
 * REQ's retry count; a REQ that nobody here takes is rejected ("invalid
 * service ID"), and a DREQ for a connection unknown here gets a DREP, as
 * Linux does.  A REQ (or REP) that comes again while its answer is still
 * the owner's to give gets an MRA, as Linux's rdma_cm sends it (only then),
 * and an MRA received holds off the next send for its service timeout.  A
 * UD service is resolved with SIDR: a SIDR_REQ (sent again like a REQ)
 * that the passive side answers with a SIDR_REP giving its QP and Q_Key,
 * or a status saying why not.  Every message is counted per port as
 * Linux counts it (sent, sent again, received, duplicates).  A connection
 * whose QPs talked ends in TIMEWAIT, as Linux's: its owner hears
 * TIMEWAIT_EXIT once the packets still on the path are dead (the local
 * ACK timeout), and a DREQ again meanwhile gets its DREP again.  A REQ from
 * a QP that still has a connection here is stale: a REJ "stale
 * connection", and a DREQ ends the old one, as Linux's cm_match_req(); a
 * REP from such a QP likewise (cm_rep_handler()).  A DREQ must name our
 * QP.  LAP is not here.
 *
 * Unlike Linux, which then sends its DREQ once, a connection its owner
 * destroys while established (or with its DREQ unanswered) lives on as an
 * orphan, sending its DREQ again until the DREP or its retries, then
 * through TIMEWAIT: a peer that lost the one DREQ would otherwise never
 * hear of the end (rping's server waits for it forever on a lossy wire).
 * Removing the device ends its orphans at once.
 *
 * Locking: connections are found by local communication ID in xr_ibcm_ids
 * under its lock, which a reference (kref) outlives.  xr_ibcm.lock protects
 * a connection's state and outstanding message, and is held while its
 * handler runs (the handler may take its owner's locks, so the owner calls
 * into a connection without them, and destroys it without them).
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "core_priv.h"

#define XR_CM_CLASS_VERSION	2
#define XR_MGMT_METHOD_SEND	0x03
#define XR_CM_REQ_ATTR		0x0010
#define XR_CM_MRA_ATTR		0x0011
#define XR_CM_REJ_ATTR		0x0012
#define XR_CM_REP_ATTR		0x0013
#define XR_CM_RTU_ATTR		0x0014
#define XR_CM_DREQ_ATTR		0x0015
#define XR_CM_DREP_ATTR		0x0016
#define XR_CM_SIDR_REQ_ATTR	0x0017
#define XR_CM_SIDR_REP_ATTR	0x0018
#define XR_CM_HI_TID		1	/* the high half of our transaction IDs */
#define XR_CM_MSG_RESPONSE_REQ	0	/* REJ's "message rejected": a REQ */
#define XR_CM_MSG_RESPONSE_REP	1	/* ... a REP */
#define XR_CM_MSG_RESPONSE_OTHER	2	/* ... neither */
#define XR_CM_MRA_TIMEOUT	24	/* Linux's rdma_cm's MRA service timeout (69 s) */
#define XR_CM_LID_PERMISSIVE	0xffff
#define XR_CM_ACK_DELAY		15	/* the local CA ACK delay, as rxe's */

/* A field of a CM message: @bits bits from bit @bit (MSB first) of byte @byte. */
struct xr_cm_field {
	u16 byte;
	u8 bit;
	u8 bits;
};

#define XR_CM_FIELD(name, byte, bit, bits) \
	static const struct xr_cm_field name = { byte, bit, bits }

/* Offsets after the 24-byte MAD header.  Every message starts with these two. */
XR_CM_FIELD(LOCAL_COMM_ID, 0, 0, 32);
XR_CM_FIELD(REMOTE_COMM_ID, 4, 0, 32);

/* IBTA table 106: REQ (its byte 4 is the vendor ID, not a remote ID). */
XR_CM_FIELD(REQ_SERVICE_ID, 8, 0, 64);
XR_CM_FIELD(REQ_LOCAL_CA_GUID, 16, 0, 64);
XR_CM_FIELD(REQ_LOCAL_QPN, 32, 0, 24);
XR_CM_FIELD(REQ_RESPONDER_RESOURCES, 35, 0, 8);
XR_CM_FIELD(REQ_INITIATOR_DEPTH, 39, 0, 8);
XR_CM_FIELD(REQ_REMOTE_CM_RESPONSE_TIMEOUT, 43, 0, 5);
XR_CM_FIELD(REQ_TRANSPORT_SERVICE_TYPE, 43, 5, 2);
XR_CM_FIELD(REQ_END_TO_END_FLOW_CONTROL, 43, 7, 1);
XR_CM_FIELD(REQ_STARTING_PSN, 44, 0, 24);
XR_CM_FIELD(REQ_LOCAL_CM_RESPONSE_TIMEOUT, 47, 0, 5);
XR_CM_FIELD(REQ_RETRY_COUNT, 47, 5, 3);
XR_CM_FIELD(REQ_PARTITION_KEY, 48, 0, 16);
XR_CM_FIELD(REQ_PATH_MTU, 50, 0, 4);
XR_CM_FIELD(REQ_RNR_RETRY_COUNT, 50, 5, 3);
XR_CM_FIELD(REQ_MAX_CM_RETRIES, 51, 0, 4);
XR_CM_FIELD(REQ_SRQ, 51, 4, 1);
XR_CM_FIELD(REQ_PRIMARY_LOCAL_LID, 52, 0, 16);
XR_CM_FIELD(REQ_PRIMARY_REMOTE_LID, 54, 0, 16);
XR_CM_FIELD(REQ_PRIMARY_FLOW_LABEL, 88, 0, 20);
XR_CM_FIELD(REQ_PRIMARY_TRAFFIC_CLASS, 92, 0, 8);
XR_CM_FIELD(REQ_PRIMARY_HOP_LIMIT, 93, 0, 8);
XR_CM_FIELD(REQ_PRIMARY_LOCAL_ACK_TIMEOUT, 95, 0, 5);
#define XR_CM_REQ_LOCAL_GID	56
#define XR_CM_REQ_REMOTE_GID	72
#define XR_CM_REQ_PRIVATE_DATA	140

/* Table 107: MRA. */
XR_CM_FIELD(MRA_MESSAGE_MRAED, 8, 0, 2);
XR_CM_FIELD(MRA_SERVICE_TIMEOUT, 9, 0, 5);

/* Table 108: REJ. */
XR_CM_FIELD(REJ_MESSAGE_REJECTED, 8, 0, 2);
XR_CM_FIELD(REJ_ARI_LENGTH, 9, 0, 7);
XR_CM_FIELD(REJ_REASON, 10, 0, 16);
XR_CM_FIELD(REJ_ARI_GUID, 12, 0, 64);	/* a TIMEOUT's ARI: the sender's CA GUID */
#define XR_CM_REJ_PRIVATE_DATA	84

/* Table 110: REP. */
XR_CM_FIELD(REP_LOCAL_QPN, 12, 0, 24);
XR_CM_FIELD(REP_STARTING_PSN, 20, 0, 24);
XR_CM_FIELD(REP_RESPONDER_RESOURCES, 24, 0, 8);
XR_CM_FIELD(REP_INITIATOR_DEPTH, 25, 0, 8);
XR_CM_FIELD(REP_TARGET_ACK_DELAY, 26, 0, 5);
XR_CM_FIELD(REP_END_TO_END_FLOW_CONTROL, 26, 7, 1);
XR_CM_FIELD(REP_RNR_RETRY_COUNT, 27, 0, 3);
XR_CM_FIELD(REP_SRQ, 27, 3, 1);
XR_CM_FIELD(REP_LOCAL_CA_GUID, 28, 0, 64);
#define XR_CM_REP_PRIVATE_DATA	36

/* Tables 111 to 113: RTU, DREQ, DREP. */
XR_CM_FIELD(DREQ_REMOTE_QPN, 8, 0, 24);
#define XR_CM_RTU_PRIVATE_DATA	8
#define XR_CM_DREQ_PRIVATE_DATA	12
#define XR_CM_DREP_PRIVATE_DATA	8

/* Tables 119 and 120: SIDR_REQ and SIDR_REP, whose request ID is the REQ's local ID. */
XR_CM_FIELD(SIDR_REQ_PARTITION_KEY, 4, 0, 16);
XR_CM_FIELD(SIDR_REQ_SERVICE_ID, 8, 0, 64);
XR_CM_FIELD(SIDR_REP_STATUS, 4, 0, 8);
XR_CM_FIELD(SIDR_REP_QPN, 8, 0, 24);
XR_CM_FIELD(SIDR_REP_SERVICE_ID, 12, 0, 64);
XR_CM_FIELD(SIDR_REP_QKEY, 20, 0, 32);
#define XR_CM_SIDR_REQ_PRIVATE_DATA	16
#define XR_CM_SIDR_REP_PRIVATE_DATA	96

static void xr_cm_set(u8 *mad, const struct xr_cm_field *f, u64 v)
{
	u8 *m = mad + sizeof(struct xr_mad_hdr);
	u32 i, pos;

	for (i = 0; i < f->bits; i++) {
		pos = f->byte * 8 + f->bit + i;
		if ((v >> (f->bits - 1 - i)) & 1)
			m[pos / 8] |= 0x80 >> (pos % 8);
		else
			m[pos / 8] &= ~(0x80 >> (pos % 8));
	}
}

static u64 xr_cm_get(const u8 *mad, const struct xr_cm_field *f)
{
	const u8 *m = mad + sizeof(struct xr_mad_hdr);
	u64 v = 0;
	u32 i, pos;

	for (i = 0; i < f->bits; i++) {
		pos = f->byte * 8 + f->bit + i;
		v = v << 1 | ((m[pos / 8] >> (7 - pos % 8)) & 1);
	}
	return v;
}

static u8 *xr_cm_data(u8 *mad, u32 off)
{
	return mad + sizeof(struct xr_mad_hdr) + off;
}

/* The MAD header of a CM message. */
static void xr_cm_hdr(u8 *mad, u16 attr, __be64 tid)
{
	struct xr_mad_hdr *h = (struct xr_mad_hdr *)mad;

	memset(mad, 0, XR_MAD_SIZE);
	h->base_version = 1;
	h->mgmt_class = XR_MGMT_CLASS_CM;
	h->class_version = XR_CM_CLASS_VERSION;
	h->method = XR_MGMT_METHOD_SEND;
	h->attr_id = cpu_to_be16(attr);
	h->tid = tid;
}

/* 4.096 us * 2^@t (an IBTA time exponent) in milliseconds, at least 1. */
static unsigned long xr_cm_ms(u8 t)
{
	return max_t(u64, (4096ULL << min_t(u8, t, 31)) / 1000000, 1);
}

/* Count a message of attribute @attr in @group of @xdev's @port. */
static void xr_cm_count(struct xr_device *xdev, u32 port, u32 group, u16 attr)
{
	if (port >= 1 && port <= xdev->phys_port_cnt && attr >= XR_CM_REQ_ATTR &&
	    attr < XR_CM_REQ_ATTR + XR_CM_MSG_KINDS)
		atomic_long_inc(&xdev->cm_counters[port - 1].c[group][attr - XR_CM_REQ_ATTR]);
}

/* Send a CM message, counted (a full queue or a dead device: as a lost one). */
static void xr_cm_send(struct xr_device *xdev, u32 port, const struct xr_gsi_ah *ah, const u8 *m)
{
	const struct xr_mad_hdr *h = (const struct xr_mad_hdr *)m;

	xr_cm_count(xdev, port, XR_CM_TX_MSGS, be16_to_cpu(h->attr_id));
	xr_mad_send(xdev, port, ah, m);
}

enum xr_ibcm_state {
	XR_IBCM_REQ_SENT,
	XR_IBCM_REQ_RCVD,
	XR_IBCM_REP_SENT,
	XR_IBCM_REP_RCVD,
	XR_IBCM_ESTABLISHED,
	XR_IBCM_DREQ_SENT,
	XR_IBCM_SIDR_REQ_SENT,
	XR_IBCM_SIDR_REQ_RCVD,
	XR_IBCM_SIDR_REP_SENT,	/* @msg: sent again for the same SIDR_REQ */
	XR_IBCM_TIMEWAIT,	/* disconnected, until the path's packets are dead */
	XR_IBCM_IDLE,		/* ended: rejected, timed out, out of TIMEWAIT */
};

/**
 * struct xr_ibcm - one RC connection of IB CM, either side
 * @ref: held by its owner until xr_ibcm_destroy() and by whoever found it
 * @xdev: its device (a reference)
 * @port: the port
 * @local_id: its local communication ID (in xr_ibcm_ids: @local_id ^
 *	xr_ibcm_id_mask)
 * @remote_id: the peer's
 * @remote_guid: the peer's CA GUID
 * @tid: the transaction ID of the connection's REQ (its REP and RTU take it)
 * @service_id: a SIDR_REQ's service
 * @ah: the peer's GSI QP
 * @local_qpn: the owner's QP (a DREQ must name it)
 * @qp: what the owner's QP needs for RTR and RTS
 * @qkey: the Q_Key a SIDR_REP gave
 * @lock: protects every field below; held across @handler
 * @state: enum xr_ibcm_state
 * @msg: the outstanding message (REQ, REP or DREQ), sent again on timeout
 * @retries: sends of it left
 * @max_retries: sends of each message after the first (the REQ's count)
 * @timeout: between sends, in jiffies
 * @timer: the response timeout, or the end of TIMEWAIT
 * @handler: tells the owner what happened
 * @context: the owner's
 * @orphan: destroyed by its owner, its DREQ unanswered: it keeps its place
 *	in xr_ibcm_ids and its references until xr_ibcm_orphan_end()
 */
struct xr_ibcm {
	struct kref ref;
	struct xr_device *xdev;
	u32 port;
	u32 local_id;
	u32 remote_id;
	u64 remote_guid;
	__be64 tid;
	u64 service_id;
	struct xr_gsi_ah ah;
	u32 local_qpn;
	struct xr_ibcm_qp qp;
	u32 qkey;
	struct mutex lock;	/* see above */
	enum xr_ibcm_state state;
	u8 msg[XR_MAD_SIZE] __aligned(8);	/* read as a struct xr_mad_hdr */
	u32 retries;
	u32 max_retries;
	unsigned long timeout;
	struct delayed_work timer;
	xr_ibcm_handler handler;
	void *context;
	bool orphan;
};

static DEFINE_XARRAY_ALLOC(xr_ibcm_ids);
/*
 * The next index to try, as Linux's: an ID comes again only after all the
 * others, so a late message of an ended connection finds none (under the
 * xarray's lock).
 */
static u32 xr_ibcm_id_next;
static u32 xr_ibcm_id_mask;
/* Connections not yet freed, for the leak checks of debugfs "cm_connections". */
static atomic64_t xr_ibcm_alive = ATOMIC64_INIT(0);

/**
 * xr_ibcm_live - how many IB CM connections exist (any state, not yet freed)
 *
 * Return: the count.
 */
u64 xr_ibcm_live(void)
{
	return atomic64_read(&xr_ibcm_alive);
}

static void xr_ibcm_release(struct kref *ref)
{
	kfree(container_of(ref, struct xr_ibcm, ref));
	atomic64_dec(&xr_ibcm_alive);
}

/**
 * xr_ibcm_get - keep a connection's memory while using it without its owner's lock
 * @cm: the connection
 */
void xr_ibcm_get(struct xr_ibcm *cm)
{
	kref_get(&cm->ref);
}

/**
 * xr_ibcm_put - give back what xr_ibcm_get() or a lookup took
 * @cm: the connection
 */
void xr_ibcm_put(struct xr_ibcm *cm)
{
	kref_put(&cm->ref, xr_ibcm_release);
}

/* The connection whose local communication ID is @id, with a reference, or NULL. */
static struct xr_ibcm *xr_ibcm_find(u32 id)
{
	struct xr_ibcm *cm;

	xa_lock(&xr_ibcm_ids);
	cm = xa_load(&xr_ibcm_ids, id ^ xr_ibcm_id_mask);
	if (cm && !kref_get_unless_zero(&cm->ref))
		cm = NULL;
	xa_unlock(&xr_ibcm_ids);
	return cm;
}

/*
 * The connection of the peer's @remote_id, @guid (0 for SIDR) and @gid (a
 * REQ again; NULL: any), or NULL.
 */
static struct xr_ibcm *xr_ibcm_find_remote(u32 remote_id, u64 guid, const u8 *gid)
{
	struct xr_ibcm *cm, *found = NULL;
	unsigned long index;

	xa_lock(&xr_ibcm_ids);
	xa_for_each(&xr_ibcm_ids, index, cm) {
		if (cm->remote_id == remote_id && cm->remote_guid == guid &&
		    (!gid || !memcmp(cm->ah.dgid, gid, 16)) && kref_get_unless_zero(&cm->ref)) {
			found = cm;
			break;
		}
	}
	xa_unlock(&xr_ibcm_ids);
	return found;
}

/*
 * A connection whose peer is QP @qpn of CA @guid, before TIMEWAIT (as
 * Linux's remote QP table holds it, from the REQ or REP that named that
 * QP), with a reference, or NULL.
 */
static struct xr_ibcm *xr_ibcm_find_remote_qpn(u32 qpn, u64 guid)
{
	struct xr_ibcm *cm, *found = NULL;
	unsigned long index;

	xa_lock(&xr_ibcm_ids);
	xa_for_each(&xr_ibcm_ids, index, cm) {
		switch (READ_ONCE(cm->state)) {
		case XR_IBCM_REQ_RCVD:
		case XR_IBCM_REP_SENT:
		case XR_IBCM_REP_RCVD:
		case XR_IBCM_ESTABLISHED:
		case XR_IBCM_DREQ_SENT:
			break;
		default:
			continue;
		}
		if (cm->qp.dest_qpn == qpn && cm->remote_guid == guid &&
		    kref_get_unless_zero(&cm->ref)) {
			found = cm;
			break;
		}
	}
	xa_unlock(&xr_ibcm_ids);
	return found;
}

/*
 * The connection a REJ ends, as Linux's cm_acquire_rejected_id() finds it:
 * a "timeout" by the sender's CA GUID (its ARI) and ID, as it may not know
 * ours (a connection with no peer yet has GUID 0); a REJ of our REQ by our
 * ID; any other by both IDs.
 */
static struct xr_ibcm *xr_ibcm_rejected(const u8 *rej)
{
	u32 remote_id = xr_cm_get(rej, &LOCAL_COMM_ID);
	u64 guid = xr_cm_get(rej, &REJ_ARI_GUID);
	struct xr_ibcm *cm;

	if (xr_cm_get(rej, &REJ_REASON) == XR_CM_REJ_TIMEOUT)
		return guid ? xr_ibcm_find_remote(remote_id, guid, NULL) : NULL;
	if (xr_cm_get(rej, &REJ_MESSAGE_REJECTED) == XR_CM_MSG_RESPONSE_REQ)
		remote_id = 0;
	cm = xr_ibcm_find(xr_cm_get(rej, &REMOTE_COMM_ID));
	if (cm && cm->remote_id != remote_id) {
		xr_ibcm_put(cm);
		cm = NULL;
	}
	return cm;
}

static void xr_ibcm_timeout(struct work_struct *work);

static struct xr_ibcm *xr_ibcm_alloc(struct xr_device *xdev, u32 port, xr_ibcm_handler handler,
				     void *context)
{
	struct xr_ibcm *cm;
	u32 index;

	cm = kzalloc(sizeof(*cm), GFP_KERNEL);
	if (!cm)
		return NULL;
	kref_init(&cm->ref);
	mutex_init(&cm->lock);
	INIT_DELAYED_WORK(&cm->timer, xr_ibcm_timeout);
	cm->xdev = xdev;
	cm->port = port;
	cm->handler = handler;
	cm->context = context;
	if (xa_alloc_cyclic(&xr_ibcm_ids, &index, cm, xa_limit_32b, &xr_ibcm_id_next,
			    GFP_KERNEL) < 0) {
		kfree(cm);
		return NULL;
	}
	atomic64_inc(&xr_ibcm_alive);
	cm->local_id = index ^ xr_ibcm_id_mask;
	refcount_inc(&xdev->users);
	return cm;
}

/*
 * Tell the owner, under the lock (its handler may take the owner's locks);
 * a connection event carries what the peer's QP does.
 */
static void xr_ibcm_event(struct xr_ibcm *cm, u32 event, int status, const void *pdata, u8 len)
{
	struct xr_cm_event ev = {
		.event = event, .status = status, .private_data = pdata,
		.private_data_len = pdata ? len : 0, .qp_num = cm->qp.dest_qpn,
		.responder_resources = cm->qp.responder_resources,
		.initiator_depth = cm->qp.initiator_depth,
		.retry_count = cm->qp.retry_count, .rnr_retry_count = cm->qp.rnr_retry_count,
		.qkey = cm->qkey,
	};

	lockdep_assert_held(&cm->lock);
	if (cm->handler)
		cm->handler(cm->context, &ev);
}

/* Send the outstanding message now and again until answered or out of retries. */
static void xr_ibcm_send_msg(struct xr_ibcm *cm)
{
	lockdep_assert_held(&cm->lock);
	/* A full queue or a dead device: as a lost message, the timeout decides. */
	xr_cm_send(cm->xdev, cm->port, &cm->ah, cm->msg);
	mod_delayed_work(system_wq, &cm->timer, cm->timeout);
}

/*
 * A connection whose QPs talked has ended: as Linux's cm_enter_timewait(),
 * it waits until the packets still on the path are dead (the local ACK
 * timeout, Linux's av.timeout), then tells its owner TIMEWAIT_EXIT.
 */
static void xr_ibcm_timewait(struct xr_ibcm *cm)
{
	lockdep_assert_held(&cm->lock);
	cm->state = XR_IBCM_TIMEWAIT;
	mod_delayed_work(system_wq, &cm->timer, msecs_to_jiffies(xr_cm_ms(cm->qp.ack_timeout)));
}

/*
 * An orphan ends (its TIMEWAIT over, or its device going): no longer an
 * orphan, IDLE (nothing arms its timer again).  Return: whether it was one,
 * and so the caller must give back its references (xr_ibcm_orphan_free()).
 */
static bool xr_ibcm_orphan_end(struct xr_ibcm *cm)
{
	bool was = cm->orphan;

	lockdep_assert_held(&cm->lock);
	cm->orphan = false;
	cm->state = XR_IBCM_IDLE;
	return was;
}

/* What its owner held: its place in xr_ibcm_ids, the device, the memory. */
static void xr_ibcm_orphan_free(struct xr_ibcm *cm)
{
	xa_erase(&xr_ibcm_ids, cm->local_id ^ xr_ibcm_id_mask);
	xr_device_put(cm->xdev);
	xr_ibcm_put(cm);
}

static void xr_ibcm_timeout(struct work_struct *work)
{
	struct xr_ibcm *cm = container_of(to_delayed_work(work), struct xr_ibcm, timer);

	mutex_lock(&cm->lock);
	switch (cm->state) {
	case XR_IBCM_TIMEWAIT:
		if (xr_ibcm_orphan_end(cm)) {
			mutex_unlock(&cm->lock);
			xr_ibcm_orphan_free(cm);	/* may free the work's memory */
			return;
		}
		cm->state = XR_IBCM_IDLE;
		xr_ibcm_event(cm, XR_CM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);
		break;
	case XR_IBCM_REQ_SENT:
	case XR_IBCM_REP_SENT:
	case XR_IBCM_DREQ_SENT:
	case XR_IBCM_SIDR_REQ_SENT:
		if (cm->retries) {
			cm->retries--;
			xr_cm_count(cm->xdev, cm->port, XR_CM_TX_RETRIES,
				    be16_to_cpu(((struct xr_mad_hdr *)cm->msg)->attr_id));
			xr_ibcm_send_msg(cm);
			break;
		}
		/* A DREQ nobody answered: disconnected all the same, as Linux. */
		if (cm->state == XR_IBCM_DREQ_SENT) {
			xr_ibcm_timewait(cm);
			xr_ibcm_event(cm, XR_CM_EVENT_DISCONNECTED, 0, NULL, 0);
			break;
		}
		cm->state = XR_IBCM_IDLE;
		xr_ibcm_event(cm, XR_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	default:
		break;
	}
	mutex_unlock(&cm->lock);
}

/* The active side of a REQ or SIDR_REQ, its message not written yet. */
static struct xr_ibcm *xr_ibcm_active(struct xr_device *xdev, const struct xr_ibcm_req *p,
				      xr_ibcm_handler handler, void *context)
{
	struct xr_ibcm *cm = xr_ibcm_alloc(xdev, p->port, handler, context);

	if (!cm)
		return NULL;
	cm->ah = p->ah;
	cm->retries = p->max_cm_retries;
	cm->max_retries = cm->retries;
	/* Linux's: twice the packet life time plus the peer's response time. */
	cm->timeout = msecs_to_jiffies(2 * xr_cm_ms(p->packet_life_time) +
				       xr_cm_ms(p->remote_cm_response_timeout));
	cm->tid = cpu_to_be64((u64)XR_CM_HI_TID << 32 | cm->local_id);
	return cm;
}

/**
 * xr_ibcm_connect - the active side: send a REQ
 * @xdev: the device (the connection holds a reference until xr_ibcm_destroy())
 * @p: the REQ's contents
 * @handler: what happens next: REJECTED (the reason in status, the REJ's
 *	private data), UNREACHABLE (no answer), CONNECT_RESPONSE (a REP: the
 *	owner answers with xr_ibcm_send_rtu()), DISCONNECTED
 * @context: for @handler
 *
 * Return: the connection, or an ERR_PTR (-ENOMEM, -EINVAL for private data
 * too long).
 */
struct xr_ibcm *xr_ibcm_connect(struct xr_device *xdev, const struct xr_ibcm_req *p,
				xr_ibcm_handler handler, void *context)
{
	struct xr_ibcm *cm;
	u8 *m;

	if (p->private_data_len > XR_IBCM_REQ_PRIVATE_LEN)
		return ERR_PTR(-EINVAL);
	cm = xr_ibcm_active(xdev, p, handler, context);
	if (!cm)
		return ERR_PTR(-ENOMEM);
	/*
	 * Each side announces the PSN it receives from, as Linux's ib_cm
	 * does (its RDMA CM sets RTR's rq_psn to it): the REQ's is ours.
	 */
	cm->local_qpn = p->qpn;
	cm->qp = (struct xr_ibcm_qp){
		.rq_psn = p->starting_psn, .mtu = p->mtu, .retry_count = p->retry_count,
		.initiator_depth = p->initiator_depth,
		.responder_resources = p->responder_resources,
		.ack_timeout = min(31, max(p->packet_life_time + 1, XR_CM_ACK_DELAY)),
	};

	m = cm->msg;
	xr_cm_hdr(m, XR_CM_REQ_ATTR, cm->tid);
	xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
	xr_cm_set(m, &REQ_SERVICE_ID, p->service_id);
	xr_cm_set(m, &REQ_LOCAL_CA_GUID, xdev->node_guid);
	xr_cm_set(m, &REQ_LOCAL_QPN, p->qpn);
	xr_cm_set(m, &REQ_RESPONDER_RESOURCES, p->responder_resources);
	xr_cm_set(m, &REQ_INITIATOR_DEPTH, p->initiator_depth);
	xr_cm_set(m, &REQ_REMOTE_CM_RESPONSE_TIMEOUT, p->remote_cm_response_timeout);
	xr_cm_set(m, &REQ_TRANSPORT_SERVICE_TYPE, 0);	/* RC */
	xr_cm_set(m, &REQ_END_TO_END_FLOW_CONTROL, p->flow_control);
	xr_cm_set(m, &REQ_STARTING_PSN, p->starting_psn);
	xr_cm_set(m, &REQ_LOCAL_CM_RESPONSE_TIMEOUT, p->local_cm_response_timeout);
	xr_cm_set(m, &REQ_RETRY_COUNT, p->retry_count);
	xr_cm_set(m, &REQ_PARTITION_KEY, XR_DEFAULT_PKEY);
	xr_cm_set(m, &REQ_PATH_MTU, p->mtu);
	xr_cm_set(m, &REQ_RNR_RETRY_COUNT, p->rnr_retry_count);
	xr_cm_set(m, &REQ_MAX_CM_RETRIES, p->max_cm_retries);
	xr_cm_set(m, &REQ_SRQ, p->srq);
	/* A routed path: permissive LIDs (Linux's RoCE rule for hop limit > 1). */
	xr_cm_set(m, &REQ_PRIMARY_LOCAL_LID, XR_CM_LID_PERMISSIVE);
	xr_cm_set(m, &REQ_PRIMARY_REMOTE_LID, XR_CM_LID_PERMISSIVE);
	memcpy(xr_cm_data(m, XR_CM_REQ_LOCAL_GID), p->sgid, 16);
	memcpy(xr_cm_data(m, XR_CM_REQ_REMOTE_GID), p->ah.dgid, 16);
	xr_cm_set(m, &REQ_PRIMARY_FLOW_LABEL, p->ah.flow_label);
	xr_cm_set(m, &REQ_PRIMARY_TRAFFIC_CLASS, p->ah.traffic_class);
	xr_cm_set(m, &REQ_PRIMARY_HOP_LIMIT, p->ah.hop_limit);
	xr_cm_set(m, &REQ_PRIMARY_LOCAL_ACK_TIMEOUT, cm->qp.ack_timeout);
	memcpy(xr_cm_data(m, XR_CM_REQ_PRIVATE_DATA), p->private_data, p->private_data_len);

	mutex_lock(&cm->lock);
	cm->state = XR_IBCM_REQ_SENT;
	xr_ibcm_send_msg(cm);
	mutex_unlock(&cm->lock);
	return cm;
}

/**
 * xr_ibcm_accept - the passive side: answer the REQ with a REP
 * @cm: a connection whose REQ came (REQ_RCVD)
 * @p: the local QP and what it takes; up to 196 bytes of private data
 *
 * RTU follows (ESTABLISHED), or after the retries UNREACHABLE.
 *
 * Return: 0, or -EINVAL in another state or for private data too long.
 */
int xr_ibcm_accept(struct xr_ibcm *cm, const struct xr_ibcm_rep *p)
{
	u8 *m = cm->msg;
	int ret = 0;

	if (p->private_data_len > XR_IBCM_REP_PRIVATE_LEN)
		return -EINVAL;
	mutex_lock(&cm->lock);
	if (cm->state != XR_IBCM_REQ_RCVD) {
		ret = -EINVAL;
		goto out;
	}
	cm->local_qpn = p->qpn;
	cm->qp.initiator_depth = p->initiator_depth;
	cm->qp.responder_resources = p->responder_resources;
	xr_cm_hdr(m, XR_CM_REP_ATTR, cm->tid);
	xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
	xr_cm_set(m, &REMOTE_COMM_ID, cm->remote_id);
	xr_cm_set(m, &REP_LOCAL_QPN, p->qpn);
	xr_cm_set(m, &REP_STARTING_PSN, cm->qp.rq_psn);
	xr_cm_set(m, &REP_RESPONDER_RESOURCES, p->responder_resources);
	xr_cm_set(m, &REP_INITIATOR_DEPTH, p->initiator_depth);
	xr_cm_set(m, &REP_TARGET_ACK_DELAY, XR_CM_ACK_DELAY);
	xr_cm_set(m, &REP_END_TO_END_FLOW_CONTROL, p->flow_control);
	xr_cm_set(m, &REP_RNR_RETRY_COUNT, p->rnr_retry_count);
	xr_cm_set(m, &REP_SRQ, p->srq);
	xr_cm_set(m, &REP_LOCAL_CA_GUID, cm->xdev->node_guid);
	memcpy(xr_cm_data(m, XR_CM_REP_PRIVATE_DATA), p->private_data, p->private_data_len);
	cm->state = XR_IBCM_REP_SENT;
	xr_ibcm_send_msg(cm);
out:
	mutex_unlock(&cm->lock);
	return ret;
}

/* A message that needs no answer: REJ, RTU, DREP, MRA. */
static void xr_ibcm_send_once(struct xr_ibcm *cm, u8 *m)
{
	xr_cm_send(cm->xdev, cm->port, &cm->ah, m);
}

/*
 * The message @mraed (XR_CM_MSG_RESPONSE_REQ or _REP) came again while its
 * answer is the owner's to give: an MRA, so that the peer waits for it.
 */
static void xr_ibcm_send_mra(struct xr_ibcm *cm, u8 mraed)
{
	u8 m[XR_MAD_SIZE];

	lockdep_assert_held(&cm->lock);
	xr_cm_hdr(m, XR_CM_MRA_ATTR, cm->tid);
	xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
	xr_cm_set(m, &REMOTE_COMM_ID, cm->remote_id);
	xr_cm_set(m, &MRA_MESSAGE_MRAED, mraed);
	xr_cm_set(m, &MRA_SERVICE_TIMEOUT, XR_CM_MRA_TIMEOUT);
	xr_ibcm_send_once(cm, m);
}

/**
 * xr_ibcm_sidr_req - the active side of a UD service: send a SIDR_REQ
 * @xdev: the device (held until xr_ibcm_destroy())
 * @p: the port, the peer's GSI QP, the service, the retries and timeouts,
 *	up to 216 bytes of private data (the QP fields are not used)
 * @handler: what happens next: ESTABLISHED (the service's QP in qp_num,
 *	its Q_Key in qkey, the SIDR_REP's private data), UNREACHABLE (the
 *	SIDR_REP's status, or -ETIMEDOUT after the retries)
 * @context: for @handler
 *
 * Return: the request, or an ERR_PTR (-ENOMEM, -EINVAL).
 */
struct xr_ibcm *xr_ibcm_sidr_req(struct xr_device *xdev, const struct xr_ibcm_req *p,
				 xr_ibcm_handler handler, void *context)
{
	struct xr_ibcm *cm;
	u8 *m;

	if (p->private_data_len > XR_IBCM_SIDR_REQ_PRIVATE_LEN)
		return ERR_PTR(-EINVAL);
	cm = xr_ibcm_active(xdev, p, handler, context);
	if (!cm)
		return ERR_PTR(-ENOMEM);
	m = cm->msg;
	xr_cm_hdr(m, XR_CM_SIDR_REQ_ATTR, cm->tid);
	xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
	xr_cm_set(m, &SIDR_REQ_PARTITION_KEY, XR_DEFAULT_PKEY);
	xr_cm_set(m, &SIDR_REQ_SERVICE_ID, p->service_id);
	memcpy(xr_cm_data(m, XR_CM_SIDR_REQ_PRIVATE_DATA), p->private_data, p->private_data_len);
	mutex_lock(&cm->lock);
	cm->state = XR_IBCM_SIDR_REQ_SENT;
	xr_ibcm_send_msg(cm);
	mutex_unlock(&cm->lock);
	return cm;
}

/**
 * xr_ibcm_sidr_rep - the passive side answers a SIDR_REQ
 * @cm: a request in SIDR_REQ_RCVD
 * @status: XR_SIDR_SUCCESS, or why not (XR_SIDR_UNSUPPORTED, _REJECT)
 * @qpn: the service's UD QP (success)
 * @qkey: its Q_Key (success)
 * @pdata: up to 136 bytes for the peer
 * @len: their length
 *
 * The answer is kept and sent again if the same SIDR_REQ comes again.
 *
 * Return: 0, or -EINVAL in another state or for private data too long.
 */
int xr_ibcm_sidr_rep(struct xr_ibcm *cm, u8 status, u32 qpn, u32 qkey, const void *pdata, u8 len)
{
	u8 *m = cm->msg;
	int ret = 0;

	if (len > XR_IBCM_SIDR_REP_PRIVATE_LEN)
		return -EINVAL;
	mutex_lock(&cm->lock);
	if (cm->state != XR_IBCM_SIDR_REQ_RCVD) {
		ret = -EINVAL;
		goto out;
	}
	xr_cm_hdr(m, XR_CM_SIDR_REP_ATTR, cm->tid);
	xr_cm_set(m, &LOCAL_COMM_ID, cm->remote_id);
	xr_cm_set(m, &SIDR_REP_STATUS, status);
	if (status == XR_SIDR_SUCCESS) {
		xr_cm_set(m, &SIDR_REP_QPN, qpn);
		xr_cm_set(m, &SIDR_REP_QKEY, qkey);
	}
	xr_cm_set(m, &SIDR_REP_SERVICE_ID, cm->service_id);
	if (len)
		memcpy(xr_cm_data(m, XR_CM_SIDR_REP_PRIVATE_DATA), pdata, len);
	cm->state = XR_IBCM_SIDR_REP_SENT;
	xr_ibcm_send_once(cm, m);
out:
	mutex_unlock(&cm->lock);
	return ret;
}

/**
 * xr_ibcm_send_rtu - the active side: the REP came, the QP is ready: RTU
 * @cm: a connection in REP_RCVD
 *
 * Return: 0 (ESTABLISHED), or -EINVAL in another state.
 */
int xr_ibcm_send_rtu(struct xr_ibcm *cm)
{
	u8 m[XR_MAD_SIZE];
	int ret = 0;

	mutex_lock(&cm->lock);
	if (cm->state == XR_IBCM_REP_RCVD) {
		xr_cm_hdr(m, XR_CM_RTU_ATTR, cm->tid);
		xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
		xr_cm_set(m, &REMOTE_COMM_ID, cm->remote_id);
		xr_ibcm_send_once(cm, m);
		cm->state = XR_IBCM_ESTABLISHED;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&cm->lock);
	return ret;
}

/*
 * A REJ of the REQ or REP whose answer was ours to give, else of no
 * message, as Linux's cm_format_rej() says; a "timeout" names us by our CA
 * GUID in its ARI.
 */
static void xr_ibcm_send_rej(struct xr_ibcm *cm, u16 reason, const void *pdata, u8 len)
{
	u8 rejected = XR_CM_MSG_RESPONSE_OTHER;
	u8 m[XR_MAD_SIZE];

	lockdep_assert_held(&cm->lock);
	if (cm->state == XR_IBCM_REQ_RCVD)
		rejected = XR_CM_MSG_RESPONSE_REQ;
	else if (cm->state == XR_IBCM_REP_RCVD)
		rejected = XR_CM_MSG_RESPONSE_REP;
	xr_cm_hdr(m, XR_CM_REJ_ATTR, cm->tid);
	xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
	xr_cm_set(m, &REMOTE_COMM_ID, cm->remote_id);
	xr_cm_set(m, &REJ_MESSAGE_REJECTED, rejected);
	xr_cm_set(m, &REJ_REASON, reason);
	if (reason == XR_CM_REJ_TIMEOUT) {
		xr_cm_set(m, &REJ_ARI_LENGTH, sizeof(cm->xdev->node_guid));
		xr_cm_set(m, &REJ_ARI_GUID, cm->xdev->node_guid);
	}
	if (len)
		memcpy(xr_cm_data(m, XR_CM_REJ_PRIVATE_DATA), pdata, len);
	xr_ibcm_send_once(cm, m);
}

/**
 * xr_ibcm_reject - the passive side: refuse the REQ (or the active side a REP)
 * @cm: a connection in REQ_RCVD or REP_RCVD
 * @reason: the IBTA rejection reason
 * @pdata: up to 148 bytes for the peer
 * @len: their length
 *
 * Return: 0 (the connection ended), or -EINVAL.
 */
int xr_ibcm_reject(struct xr_ibcm *cm, u16 reason, const void *pdata, u8 len)
{
	int ret = 0;

	if (len > XR_IBCM_REJ_PRIVATE_LEN)
		return -EINVAL;
	mutex_lock(&cm->lock);
	if (cm->state == XR_IBCM_REQ_RCVD || cm->state == XR_IBCM_REP_RCVD) {
		xr_ibcm_send_rej(cm, reason, pdata, len);
		cm->state = XR_IBCM_IDLE;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&cm->lock);
	return ret;
}

/* An established connection ends: our DREQ, with every retry. */
static void xr_ibcm_send_dreq(struct xr_ibcm *cm)
{
	u8 *m = cm->msg;

	lockdep_assert_held(&cm->lock);
	xr_cm_hdr(m, XR_CM_DREQ_ATTR, cpu_to_be64((u64)XR_CM_HI_TID << 32 | cm->local_id));
	xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
	xr_cm_set(m, &REMOTE_COMM_ID, cm->remote_id);
	xr_cm_set(m, &DREQ_REMOTE_QPN, cm->qp.dest_qpn);
	cm->state = XR_IBCM_DREQ_SENT;
	cm->retries = cm->max_retries;
	xr_ibcm_send_msg(cm);
}

/**
 * xr_ibcm_disconnect - end an established connection with a DREQ
 * @cm: the connection
 *
 * DISCONNECTED follows when the DREP comes, or after the retries.
 *
 * Return: 0, or -EINVAL when it is not established.
 */
int xr_ibcm_disconnect(struct xr_ibcm *cm)
{
	int ret = 0;

	mutex_lock(&cm->lock);
	if (cm->state == XR_IBCM_ESTABLISHED)
		xr_ibcm_send_dreq(cm);
	else
		ret = -EINVAL;
	mutex_unlock(&cm->lock);
	return ret;
}

/**
 * xr_ibcm_establish - the passive side's QP received before the RTU came
 *	(its COMM_EST event): established, as if the RTU came
 * @cm: the connection
 *
 * Return: 0 (ESTABLISHED follows), -EISCONN when established already, or
 * -EINVAL in another state (as Linux's cm_establish()).
 */
int xr_ibcm_establish(struct xr_ibcm *cm)
{
	int ret = 0;

	mutex_lock(&cm->lock);
	if (cm->state == XR_IBCM_REP_SENT) {
		cm->state = XR_IBCM_ESTABLISHED;
		cancel_delayed_work(&cm->timer);
		xr_ibcm_event(cm, XR_CM_EVENT_ESTABLISHED, 0, NULL, 0);
	} else {
		ret = cm->state == XR_IBCM_ESTABLISHED ? -EISCONN : -EINVAL;
	}
	mutex_unlock(&cm->lock);
	return ret;
}

/**
 * xr_ibcm_qp_attr - what the owner's QP needs (RTR: the peer; RTS: ours)
 * @cm: a connection whose REQ (passive) or REP (active) came
 * @qp: out
 *
 * Return: 0, or -EINVAL before that.
 */
int xr_ibcm_qp_attr(struct xr_ibcm *cm, struct xr_ibcm_qp *qp)
{
	int ret = 0;

	mutex_lock(&cm->lock);
	if (cm->state == XR_IBCM_REQ_SENT || cm->state == XR_IBCM_IDLE)
		ret = -EINVAL;
	else
		*qp = cm->qp;
	mutex_unlock(&cm->lock);
	return ret;
}

/**
 * xr_ibcm_destroy - forget a connection; its handler is not called after this
 * @cm: the connection
 *
 * As Linux's ib_cm does, a connection its owner drops ends toward the peer
 * too: an established one with a DREQ (sent until answered: it lives on as
 * an orphan), one not yet established with a REJ (sent once; "timeout" for
 * our REQ unanswered, else "consumer defined"), a SIDR_REQ with a SIDR_REP
 * saying "rejected".
 *
 * Context: process context; must not hold what the handler takes.
 */
void xr_ibcm_destroy(struct xr_ibcm *cm)
{
	mutex_lock(&cm->lock);
	cm->handler = NULL;
	switch (cm->state) {
	case XR_IBCM_ESTABLISHED:
		xr_ibcm_send_dreq(cm);
		fallthrough;
	case XR_IBCM_DREQ_SENT:
		/* The owner's references are the orphan's now. */
		cm->orphan = true;
		mutex_unlock(&cm->lock);
		return;
	case XR_IBCM_REQ_SENT:
		/* As Linux: the requester gave up; the peer may not know our ID. */
		xr_ibcm_send_rej(cm, XR_CM_REJ_TIMEOUT, NULL, 0);
		break;
	case XR_IBCM_REQ_RCVD:
	case XR_IBCM_REP_SENT:
	case XR_IBCM_REP_RCVD:
		xr_ibcm_send_rej(cm, XR_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case XR_IBCM_SIDR_REQ_RCVD:
		mutex_unlock(&cm->lock);
		xr_ibcm_sidr_rep(cm, XR_SIDR_REJECT, 0, 0, NULL, 0);
		mutex_lock(&cm->lock);
		break;
	default:
		break;
	}
	cm->state = XR_IBCM_IDLE;
	mutex_unlock(&cm->lock);
	/* Messages that found it meanwhile saw it IDLE. */
	xa_erase(&xr_ibcm_ids, cm->local_id ^ xr_ibcm_id_mask);
	cancel_delayed_work_sync(&cm->timer);
	xr_device_put(cm->xdev);
	xr_ibcm_put(cm);
}

/*
 * A device goes: end its orphans (the RDMA CM, a client registered later,
 * let go of its ids first).
 */
static void xr_ibcm_remove_device(struct xr_device *xdev)
{
	struct xr_ibcm *cm;
	unsigned long index = 0;
	bool end;

	for (;;) {
		xa_lock(&xr_ibcm_ids);
		xa_for_each_start(&xr_ibcm_ids, index, cm, index)
			if (cm->xdev == xdev && READ_ONCE(cm->orphan) &&
			    kref_get_unless_zero(&cm->ref))
				break;
		xa_unlock(&xr_ibcm_ids);
		if (!cm)
			return;
		mutex_lock(&cm->lock);
		end = xr_ibcm_orphan_end(cm);
		mutex_unlock(&cm->lock);
		if (end) {
			cancel_delayed_work_sync(&cm->timer);
			xr_ibcm_orphan_free(cm);
		}
		xr_ibcm_put(cm);
	}
}

static struct xr_client xr_ibcm_client = {
	.name = "ib_cm",
	.remove = xr_ibcm_remove_device,
};

/**
 * xr_ibcm_set_handler - give a passive connection to its owner
 * @cm: the connection, from the listener (xr_ibcm_listen())
 * @handler: what happens next: ESTABLISHED, REJECTED, UNREACHABLE,
 *	DISCONNECTED
 * @context: for @handler
 */
void xr_ibcm_set_handler(struct xr_ibcm *cm, xr_ibcm_handler handler, void *context)
{
	/*
	 * Called under the new owner's lock, which the handler takes under
	 * ours: a connection with no handler yet is a lock class apart.
	 */
	mutex_lock_nested(&cm->lock, SINGLE_DEPTH_NESTING);
	cm->handler = handler;
	cm->context = context;
	mutex_unlock(&cm->lock);
}

/*
 * A REJ of @msg (a REQ or REP, @kind) that no connection here takes, for
 * @reason: its IDs swapped, as Linux's cm_issue_rej().
 */
static void xr_ibcm_rej_msg(struct xr_device *xdev, u32 port, const struct xr_gsi_ah *ah,
			    const u8 *msg, u8 kind, u16 reason)
{
	u8 rej[XR_MAD_SIZE];

	xr_cm_hdr(rej, XR_CM_REJ_ATTR, ((const struct xr_mad_hdr *)msg)->tid);
	xr_cm_set(rej, &LOCAL_COMM_ID, xr_cm_get(msg, &REMOTE_COMM_ID));
	xr_cm_set(rej, &REMOTE_COMM_ID, xr_cm_get(msg, &LOCAL_COMM_ID));
	xr_cm_set(rej, &REJ_MESSAGE_REJECTED, kind);
	xr_cm_set(rej, &REJ_REASON, reason);
	xr_cm_send(xdev, port, ah, rej);
}

/* The listener (xr_ibcm_listen()); NULL: nobody listens. */
static xr_ibcm_listener_t xr_ibcm_listener;

/* Offer a request to the listener: its answer, or -ENOENT without one. */
static int xr_ibcm_offer(struct xr_device *xdev, struct xr_ibcm *cm,
			 const struct xr_ibcm_req_rcvd *r)
{
	xr_ibcm_listener_t listener = READ_ONCE(xr_ibcm_listener);

	return listener ? listener(xdev, cm, r) : -ENOENT;
}

/* A REQ: a passive connection for the RDMA CM to take, a REJ, or nothing (no room). */
static void xr_ibcm_req_rcvd(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc,
			     const u8 *req)
{
	u32 remote_id = xr_cm_get(req, &LOCAL_COMM_ID);
	u64 guid = xr_cm_get(req, &REQ_LOCAL_CA_GUID);
	u16 reason = XR_CM_REJ_INVALID_SERVICE_ID;
	struct xr_ibcm_req_rcvd r = {};
	struct xr_gsi_ah ah;
	struct xr_ibcm *cm;
	u8 timeout;
	int ret;

	/*
	 * The same REQ again: our REP was lost or slow (the REP again), or
	 * its owner has not answered yet (an MRA).
	 */
	cm = xr_ibcm_find_remote(remote_id, guid, wc->sgid);
	if (cm) {
		xr_cm_count(xdev, port, XR_CM_RX_DUPLICATES, XR_CM_REQ_ATTR);
		mutex_lock(&cm->lock);
		if (cm->state == XR_IBCM_REP_SENT)
			xr_ibcm_send_msg(cm);
		else if (cm->state == XR_IBCM_REQ_RCVD)
			xr_ibcm_send_mra(cm, XR_CM_MSG_RESPONSE_REQ);
		mutex_unlock(&cm->lock);
		xr_ibcm_put(cm);
		return;
	}
	if (xr_mad_reply_ah(xdev, port, wc, &ah))
		return;
	/*
	 * A new connection of a QP that still has one here: the peer lost
	 * the old one (it came back, or its DREQs were lost).  As Linux's
	 * cm_match_req(): rejected as stale, and the old one ends (a DREQ
	 * when it was established); the requester tries again.
	 */
	cm = xr_ibcm_find_remote_qpn(xr_cm_get(req, &REQ_LOCAL_QPN), guid);
	if (cm) {
		xr_ibcm_rej_msg(xdev, port, &ah, req, XR_CM_MSG_RESPONSE_REQ, XR_CM_REJ_STALE_CONN);
		xr_ibcm_disconnect(cm);
		xr_ibcm_put(cm);
		return;
	}
	if (!xr_cm_get(req, &REQ_TRANSPORT_SERVICE_TYPE)) {
		/* Only RC connections are taken (UC, XRC: nobody serves them). */
		cm = xr_ibcm_alloc(xdev, port, NULL, NULL);
		if (!cm)
			return;		/* as a lost REQ: the peer sends it again */
		cm->remote_id = remote_id;
		cm->remote_guid = guid;
		cm->tid = ((const struct xr_mad_hdr *)req)->tid;
		cm->ah = ah;
		cm->ah.traffic_class = xr_cm_get(req, &REQ_PRIMARY_TRAFFIC_CLASS);
		cm->ah.flow_label = xr_cm_get(req, &REQ_PRIMARY_FLOW_LABEL);
		cm->retries = xr_cm_get(req, &REQ_MAX_CM_RETRIES);
		cm->max_retries = cm->retries;
		/*
		 * The peer's response timeout (the REQ's local one: how long
		 * its sender takes to answer), and a RoCE path's life time
		 * twice.
		 */
		timeout = xr_cm_get(req, &REQ_LOCAL_CM_RESPONSE_TIMEOUT);
		cm->timeout = msecs_to_jiffies(2 * xr_cm_ms(16) + xr_cm_ms(timeout));
		cm->qp = (struct xr_ibcm_qp){
			.dest_qpn = xr_cm_get(req, &REQ_LOCAL_QPN),
			/* The REQ's PSN is the one we send from; ours the REP's. */
			.sq_psn = xr_cm_get(req, &REQ_STARTING_PSN),
			.rq_psn = get_random_u32() & 0xffffff,
			.mtu = xr_cm_get(req, &REQ_PATH_MTU),
			.retry_count = xr_cm_get(req, &REQ_RETRY_COUNT),
			.rnr_retry_count = xr_cm_get(req, &REQ_RNR_RETRY_COUNT),
			.ack_timeout = xr_cm_get(req, &REQ_PRIMARY_LOCAL_ACK_TIMEOUT),
			/* Ours, from the peer's: it reads what we take, and back. */
			.responder_resources = xr_cm_get(req, &REQ_INITIATOR_DEPTH),
			.initiator_depth = xr_cm_get(req, &REQ_RESPONDER_RESOURCES),
			.sgid_index = ah.sgid_index,
			.hop_limit = xr_cm_get(req, &REQ_PRIMARY_HOP_LIMIT),
			.traffic_class = cm->ah.traffic_class,
			.flow_label = cm->ah.flow_label,
		};
		memcpy(cm->qp.dgid, ah.dgid, 16);
		cm->state = XR_IBCM_REQ_RCVD;
		r = (struct xr_ibcm_req_rcvd){
			.port = port, .service_id = xr_cm_get(req, &REQ_SERVICE_ID),
			.qpn = cm->qp.dest_qpn,
			.responder_resources = cm->qp.responder_resources,
			.initiator_depth = cm->qp.initiator_depth,
			.flow_control = xr_cm_get(req, &REQ_END_TO_END_FLOW_CONTROL),
			.retry_count = cm->qp.retry_count,
			.rnr_retry_count = cm->qp.rnr_retry_count,
			.srq = xr_cm_get(req, &REQ_SRQ),
			.private_data = req + sizeof(struct xr_mad_hdr) + XR_CM_REQ_PRIVATE_DATA,
			.private_data_len = XR_IBCM_REQ_PRIVATE_LEN,
		};
		memcpy(r.sgid, wc->dgid, 16);
		memcpy(r.dgid, wc->sgid, 16);
		/* The RDMA CM takes it (and then owns it), or nobody listens. */
		ret = xr_ibcm_offer(xdev, cm, &r);
		if (!ret)
			return;
		cm->state = XR_IBCM_IDLE;	/* the REJ below says why */
		xr_ibcm_destroy(cm);
		/*
		 * As Linux: a listener with no room now (its backlog of
		 * requests not yet read is full) takes the REQ when it comes
		 * again; any other failure of its owner is the consumer's
		 * rejection.
		 */
		if (ret == -ENOMEM)
			return;
		if (ret != -ENOENT)
			reason = XR_CM_REJ_CONSUMER_DEFINED;
	}
	xr_ibcm_rej_msg(xdev, port, &ah, req, XR_CM_MSG_RESPONSE_REQ, reason);
}

/*
 * A SIDR_REQ: a request for the RDMA CM to take, or a SIDR_REP saying
 * nobody serves it.  The same request again is answered as the first.
 */
static void xr_ibcm_sidr_req_rcvd(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc,
				  const u8 *req)
{
	u32 remote_id = xr_cm_get(req, &LOCAL_COMM_ID);
	struct xr_ibcm_req_rcvd r;
	struct xr_gsi_ah ah;
	struct xr_ibcm *cm;
	int ret;

	cm = xr_ibcm_find_remote(remote_id, 0, wc->sgid);
	if (cm) {
		xr_cm_count(xdev, port, XR_CM_RX_DUPLICATES, XR_CM_SIDR_REQ_ATTR);
		mutex_lock(&cm->lock);
		if (cm->state == XR_IBCM_SIDR_REP_SENT)
			xr_ibcm_send_once(cm, cm->msg);
		mutex_unlock(&cm->lock);
		xr_ibcm_put(cm);
		return;
	}
	if (xr_mad_reply_ah(xdev, port, wc, &ah))
		return;
	cm = xr_ibcm_alloc(xdev, port, NULL, NULL);
	if (!cm)
		return;		/* as a lost request: the peer sends it again */
	cm->remote_id = remote_id;
	cm->tid = ((const struct xr_mad_hdr *)req)->tid;
	cm->service_id = xr_cm_get(req, &SIDR_REQ_SERVICE_ID);
	cm->ah = ah;
	/* SIDR has no path MTU: the port's active MTU bounds the largest (4096). */
	cm->qp = (struct xr_ibcm_qp){ .mtu = 5, .sgid_index = ah.sgid_index,
				      .hop_limit = ah.hop_limit };
	memcpy(cm->qp.dgid, ah.dgid, 16);
	cm->state = XR_IBCM_SIDR_REQ_RCVD;
	r = (struct xr_ibcm_req_rcvd){
		.port = port, .service_id = cm->service_id, .ud = true,
		.private_data = req + sizeof(struct xr_mad_hdr) + XR_CM_SIDR_REQ_PRIVATE_DATA,
		.private_data_len = XR_IBCM_SIDR_REQ_PRIVATE_LEN,
	};
	memcpy(r.sgid, wc->dgid, 16);
	memcpy(r.dgid, wc->sgid, 16);
	ret = xr_ibcm_offer(xdev, cm, &r);
	if (!ret)
		return;
	/* As Linux: nobody listens, or the listener would not take it. */
	xr_ibcm_sidr_rep(cm, ret == -ENOENT ? XR_SIDR_UNSUPPORTED : XR_SIDR_REJECT, 0, 0,
			 NULL, 0);
	xr_ibcm_destroy(cm);
}

/* A DREQ for a connection unknown here: a DREP all the same, as Linux. */
static void xr_ibcm_drep_unknown(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc,
				 const u8 *dreq)
{
	struct xr_gsi_ah ah;
	u8 m[XR_MAD_SIZE];

	if (xr_mad_reply_ah(xdev, port, wc, &ah))
		return;
	xr_cm_hdr(m, XR_CM_DREP_ATTR, ((const struct xr_mad_hdr *)dreq)->tid);
	xr_cm_set(m, &LOCAL_COMM_ID, xr_cm_get(dreq, &REMOTE_COMM_ID));
	xr_cm_set(m, &REMOTE_COMM_ID, xr_cm_get(dreq, &LOCAL_COMM_ID));
	xr_cm_send(xdev, port, &ah, m);
}

/* A message of connection @cm (its state under the lock). */
static void xr_ibcm_msg_rcvd(struct xr_ibcm *cm, u16 attr, const u8 *mad)
{
	u8 *pdata = (u8 *)mad + sizeof(struct xr_mad_hdr);
	unsigned long wait;
	u8 m[XR_MAD_SIZE];
	u8 status, mraed;
	u16 reason;

	lockdep_assert_held(&cm->lock);
	switch (attr) {
	case XR_CM_REJ_ATTR:
		/*
		 * As Linux's cm_rej_handler(): also one whose answer is our
		 * owner's to give, and one established (the peer ended it as
		 * our RTU went); one whose DREQ was sent ends with its DREP or
		 * retries.  Once QPs may have talked (a REP came, or the peer
		 * says ours is stale), TIMEWAIT.
		 */
		reason = xr_cm_get(mad, &REJ_REASON);
		if (cm->state == XR_IBCM_REP_RCVD || cm->state == XR_IBCM_ESTABLISHED ||
		    ((cm->state == XR_IBCM_REQ_SENT || cm->state == XR_IBCM_REQ_RCVD ||
		      cm->state == XR_IBCM_REP_SENT) && reason == XR_CM_REJ_STALE_CONN)) {
			xr_ibcm_timewait(cm);
		} else if (cm->state == XR_IBCM_REQ_SENT || cm->state == XR_IBCM_REQ_RCVD ||
			   cm->state == XR_IBCM_REP_SENT) {
			cm->state = XR_IBCM_IDLE;
			cancel_delayed_work(&cm->timer);
		} else {
			break;
		}
		xr_ibcm_event(cm, XR_CM_EVENT_REJECTED, reason, pdata + XR_CM_REJ_PRIVATE_DATA,
			      XR_IBCM_REJ_PRIVATE_LEN);
		break;
	case XR_CM_REP_ATTR:
		if (cm->state == XR_IBCM_ESTABLISHED) {
			/* Our RTU was lost: again. */
			xr_cm_count(cm->xdev, cm->port, XR_CM_RX_DUPLICATES, attr);
			xr_cm_hdr(m, XR_CM_RTU_ATTR, cm->tid);
			xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
			xr_cm_set(m, &REMOTE_COMM_ID, cm->remote_id);
			xr_ibcm_send_once(cm, m);
			break;
		}
		if (cm->state == XR_IBCM_REP_RCVD) {
			/* Our owner has not sent the RTU yet: an MRA. */
			xr_cm_count(cm->xdev, cm->port, XR_CM_RX_DUPLICATES, attr);
			xr_ibcm_send_mra(cm, XR_CM_MSG_RESPONSE_REP);
			break;
		}
		if (cm->state != XR_IBCM_REQ_SENT)
			break;
		cm->remote_id = xr_cm_get(mad, &LOCAL_COMM_ID);
		cm->remote_guid = xr_cm_get(mad, &REP_LOCAL_CA_GUID);
		cm->qp.dest_qpn = xr_cm_get(mad, &REP_LOCAL_QPN);
		cm->qp.sq_psn = xr_cm_get(mad, &REP_STARTING_PSN);
		/* What the peer grants: its reads for our initiator, and ours. */
		cm->qp.initiator_depth = min_t(u8, cm->qp.initiator_depth,
					       xr_cm_get(mad, &REP_RESPONDER_RESOURCES));
		cm->qp.responder_resources = xr_cm_get(mad, &REP_INITIATOR_DEPTH);
		cm->qp.rnr_retry_count = xr_cm_get(mad, &REP_RNR_RETRY_COUNT);
		cm->qp.sgid_index = cm->ah.sgid_index;
		cm->qp.hop_limit = cm->ah.hop_limit;
		cm->qp.traffic_class = cm->ah.traffic_class;
		cm->qp.flow_label = cm->ah.flow_label;
		memcpy(cm->qp.dgid, cm->ah.dgid, 16);
		cm->state = XR_IBCM_REP_RCVD;
		cancel_delayed_work(&cm->timer);
		xr_ibcm_event(cm, XR_CM_EVENT_CONNECT_RESPONSE, 0, pdata + XR_CM_REP_PRIVATE_DATA,
			      XR_IBCM_REP_PRIVATE_LEN);
		break;
	case XR_CM_RTU_ATTR:
		if (cm->state != XR_IBCM_REP_SENT)
			break;
		cm->state = XR_IBCM_ESTABLISHED;
		cancel_delayed_work(&cm->timer);
		xr_ibcm_event(cm, XR_CM_EVENT_ESTABLISHED, 0, NULL, 0);
		break;
	case XR_CM_DREQ_ATTR:
		/* As Linux's cm_dreq_handler(): one for another QP is dropped. */
		if (xr_cm_get(mad, &DREQ_REMOTE_QPN) != cm->local_qpn)
			break;
		xr_cm_hdr(m, XR_CM_DREP_ATTR, ((const struct xr_mad_hdr *)mad)->tid);
		xr_cm_set(m, &LOCAL_COMM_ID, cm->local_id);
		xr_cm_set(m, &REMOTE_COMM_ID, cm->remote_id);
		xr_ibcm_send_once(cm, m);
		/* Our DREP was lost: the DREQ again, counted as Linux does. */
		if (cm->state == XR_IBCM_TIMEWAIT)
			xr_cm_count(cm->xdev, cm->port, XR_CM_RX_DUPLICATES, attr);
		/* Both sides asked at once: the DREP ends ours all the same. */
		if (cm->state != XR_IBCM_ESTABLISHED && cm->state != XR_IBCM_DREQ_SENT &&
		    cm->state != XR_IBCM_REP_SENT)
			break;
		xr_ibcm_timewait(cm);
		xr_ibcm_event(cm, XR_CM_EVENT_DISCONNECTED, 0,
			      pdata + XR_CM_DREQ_PRIVATE_DATA, XR_IBCM_DREQ_PRIVATE_LEN);
		break;
	case XR_CM_DREP_ATTR:
		if (cm->state != XR_IBCM_DREQ_SENT)
			break;
		xr_ibcm_timewait(cm);
		xr_ibcm_event(cm, XR_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	case XR_CM_MRA_ATTR:
		/* The peer takes its time: the next send waits as long more. */
		mraed = xr_cm_get(mad, &MRA_MESSAGE_MRAED);
		wait = msecs_to_jiffies(xr_cm_ms(xr_cm_get(mad, &MRA_SERVICE_TIMEOUT)));
		if ((cm->state == XR_IBCM_REQ_SENT && mraed == XR_CM_MSG_RESPONSE_REQ) ||
		    (cm->state == XR_IBCM_REP_SENT && mraed == XR_CM_MSG_RESPONSE_REP))
			mod_delayed_work(system_wq, &cm->timer, cm->timeout + wait);
		break;
	case XR_CM_SIDR_REP_ATTR:
		if (cm->state != XR_IBCM_SIDR_REQ_SENT)
			break;
		cm->state = XR_IBCM_IDLE;
		cancel_delayed_work(&cm->timer);
		status = xr_cm_get(mad, &SIDR_REP_STATUS);
		cm->qp.dest_qpn = xr_cm_get(mad, &SIDR_REP_QPN);
		cm->qkey = xr_cm_get(mad, &SIDR_REP_QKEY);
		/* As Linux's rdma_cm: a status but success is UNREACHABLE with it. */
		xr_ibcm_event(cm, status ? XR_CM_EVENT_UNREACHABLE : XR_CM_EVENT_ESTABLISHED,
			      status, pdata + XR_CM_SIDR_REP_PRIVATE_DATA,
			      XR_IBCM_SIDR_REP_PRIVATE_LEN);
		break;
	}
}

/*
 * A REP, for our REQ, from a QP that still has another connection here
 * (the peer lost it): as Linux's cm_rep_handler(), a REJ "stale
 * connection" for the REP and a DREQ ending the old one (when it was
 * established); our REQ stays sent, its retries go on.  True when so.
 * Called without locks (the old connection's is taken).
 */
static bool xr_ibcm_rep_stale(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc,
			      struct xr_ibcm *cm, const u8 *rep)
{
	struct xr_gsi_ah ah;
	struct xr_ibcm *old;

	if (READ_ONCE(cm->state) != XR_IBCM_REQ_SENT)
		return false;
	old = xr_ibcm_find_remote_qpn(xr_cm_get(rep, &REP_LOCAL_QPN),
				      xr_cm_get(rep, &REP_LOCAL_CA_GUID));
	if (!old)
		return false;
	if (!xr_mad_reply_ah(xdev, port, wc, &ah))
		xr_ibcm_rej_msg(xdev, port, &ah, rep, XR_CM_MSG_RESPONSE_REP,
				XR_CM_REJ_STALE_CONN);
	xr_ibcm_disconnect(old);
	xr_ibcm_put(old);
	return true;
}

/**
 * xr_ibcm_recv - a CM MAD arrived on a port's GSI QP
 * @xdev: the device
 * @port: the port
 * @wc: where it came from
 * @mad: XR_MAD_SIZE bytes
 *
 * Context: process context (mad.c's work).
 */
void xr_ibcm_recv(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc, const u8 *mad)
{
	const struct xr_mad_hdr *h = (const struct xr_mad_hdr *)mad;
	u16 attr = be16_to_cpu(h->attr_id);
	struct xr_ibcm *cm;

	if (h->class_version != XR_CM_CLASS_VERSION || h->method != XR_MGMT_METHOD_SEND)
		return;
	xr_cm_count(xdev, port, XR_CM_RX_MSGS, attr);
	if (attr == XR_CM_REQ_ATTR) {
		xr_ibcm_req_rcvd(xdev, port, wc, mad);
		return;
	}
	if (attr == XR_CM_SIDR_REQ_ATTR) {
		xr_ibcm_sidr_req_rcvd(xdev, port, wc, mad);
		return;
	}
	if (attr == XR_CM_SIDR_REP_ATTR) {
		/* Its request ID is our local one. */
		cm = xr_ibcm_find(xr_cm_get(mad, &LOCAL_COMM_ID));
	} else if (attr == XR_CM_REJ_ATTR) {
		cm = xr_ibcm_rejected(mad);
	} else if (attr >= XR_CM_MRA_ATTR && attr <= XR_CM_DREP_ATTR) {
		/* Every other message names our ID as its remote one. */
		cm = xr_ibcm_find(xr_cm_get(mad, &REMOTE_COMM_ID));
	} else {
		return;		/* not here: LAP, APR */
	}
	/* Those answering our first message cannot know our peer's ID yet. */
	if (!cm || cm->xdev != xdev ||
	    (attr != XR_CM_REP_ATTR && attr != XR_CM_REJ_ATTR && attr != XR_CM_MRA_ATTR &&
	     attr != XR_CM_SIDR_REP_ATTR && cm->remote_id != xr_cm_get(mad, &LOCAL_COMM_ID))) {
		if (attr == XR_CM_DREQ_ATTR) {
			/* Linux counts it a duplicate: the connection ended here. */
			xr_cm_count(xdev, port, XR_CM_RX_DUPLICATES, attr);
			xr_ibcm_drep_unknown(xdev, port, wc, mad);
		}
	} else if (attr == XR_CM_REP_ATTR && xr_ibcm_rep_stale(xdev, port, wc, cm, mad)) {
		/* Rejected: a connection of its QP still lives here. */
	} else {
		mutex_lock(&cm->lock);
		xr_ibcm_msg_rcvd(cm, attr, mad);
		mutex_unlock(&cm->lock);
	}
	if (cm)
		xr_ibcm_put(cm);
}

/**
 * xr_ibcm_init - start IB CM: choose the mask that makes local communication
 * IDs unlike those of this host's last boot, become a client of every
 * device, and take the CM class's MADs
 *
 * Return: 0 or a negative errno.
 */
int xr_ibcm_init(void)
{
	int ret;

	xr_ibcm_id_mask = get_random_u32();
	ret = xr_register_client(&xr_ibcm_client);
	if (ret)
		return ret;
	ret = xr_mad_register_agent(XR_MGMT_CLASS_CM, xr_ibcm_recv);
	if (ret)
		xr_unregister_client(&xr_ibcm_client);
	return ret;
}

/**
 * xr_ibcm_exit - stop taking the CM class's MADs
 */
void xr_ibcm_exit(void)
{
	xr_mad_unregister_agent(XR_MGMT_CLASS_CM);
	xr_unregister_client(&xr_ibcm_client);
}

/**
 * xr_ibcm_listen - set the listener offered every request, or none
 * @listener: the listener, or NULL
 *
 * Set at module init and cleared at exit, while no device is registered
 * and so no MAD arrives.
 */
void xr_ibcm_listen(xr_ibcm_listener_t listener)
{
	WRITE_ONCE(xr_ibcm_listener, listener);
}
