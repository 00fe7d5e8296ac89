/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IB CM (cm.c): its API to the RDMA CM, the events it delivers, and what it
 * takes from the MAD layer (mad.c) and the RDMA CM (cma.c).  Kept apart from
 * core_priv.h (which includes it) so that cm.c compiles against this header
 * and a stand-in for the rest: its host tests and fuzzer, tools/testing/cm.
 */
#ifndef XR_CM_H
#define XR_CM_H

#include <linux/atomic.h>
#include <linux/types.h>

#include <xrdma/xr_core.h>

/* RDMA CM events: the values of Linux's enum rdma_cm_event_type, as librdmacm reads them. */
enum xr_cm_event_type {
	XR_CM_EVENT_ADDR_RESOLVED,
	XR_CM_EVENT_ADDR_ERROR,
	XR_CM_EVENT_ROUTE_RESOLVED,
	XR_CM_EVENT_ROUTE_ERROR,
	XR_CM_EVENT_CONNECT_REQUEST,
	XR_CM_EVENT_CONNECT_RESPONSE,
	XR_CM_EVENT_CONNECT_ERROR,
	XR_CM_EVENT_UNREACHABLE,
	XR_CM_EVENT_REJECTED,
	XR_CM_EVENT_ESTABLISHED,
	XR_CM_EVENT_DISCONNECTED,
	XR_CM_EVENT_DEVICE_REMOVAL,
	XR_CM_EVENT_MULTICAST_JOIN,
	XR_CM_EVENT_MULTICAST_ERROR,
	XR_CM_EVENT_ADDR_CHANGE,
	XR_CM_EVENT_TIMEWAIT_EXIT,
};

/**
 * struct xr_cm_event - an event of an RDMA CM id (struct rdma_cm_event)
 * @event: enum xr_cm_event_type
 * @status: 0, a negative errno, or the peer's rejection reason (REJECTED)
 * @private_data: the peer's, of a connection event, or NULL
 * @private_data_len: its length
 * @responder_resources: CONNECT_REQUEST, _RESPONSE: what the peer's QP
 *	takes (the REQ's or REP's)
 * @initiator_depth: what it issues
 * @flow_control: end-to-end flow control
 * @retry_count: the transport's retries
 * @rnr_retry_count: its RNR retries
 * @srq: the peer's QP receives from an SRQ
 * @qp_num: the peer's QP (a group's: 0xffffff)
 * @qkey: a UD service's or group's Q_Key (a UD id's ESTABLISHED,
 *	MULTICAST_JOIN)
 * @ah: the address vector of a UD id's service or group (ESTABLISHED,
 *	MULTICAST_JOIN): @ah.dgid its GID, our @ah.sgid_index, @ah.hop_limit,
 *	@ah.traffic_class
 * @mc_context: MULTICAST_JOIN: the joiner's context of the group
 */
struct xr_cm_event {
	u32 event;
	int status;
	const void *private_data;
	u8 private_data_len;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 srq;
	u32 qp_num;
	u32 qkey;
	struct {
		u8 dgid[16];
		u8 sgid_index;
		u8 hop_limit;
		u8 traffic_class;
	} ah;
	void *mc_context;
};

/* The MAD header (IBTA 13.4.3), network order. */
struct xr_mad_hdr {
	u8 base_version;
	u8 mgmt_class;
	u8 class_version;
	u8 method;
	__be16 status;
	__be16 class_specific;
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
};

#define XR_MGMT_CLASS_CM	0x07
#define XR_GSI_QKEY		0x80010000u

/* mad.c */
int xr_mad_init(void);
void xr_mad_exit(void);
/* A consumer of one management class: each MAD of it received (process context). */
typedef void (*xr_mad_recv_t)(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc,
			      const u8 *mad);
int xr_mad_register_agent(u8 mgmt_class, xr_mad_recv_t recv);
void xr_mad_unregister_agent(u8 mgmt_class);
int xr_mad_send(struct xr_device *xdev, u32 port, const struct xr_gsi_ah *ah, const void *mad);
int xr_mad_reply_ah(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc,
		    struct xr_gsi_ah *ah);

/* cm.c */
#define XR_IBCM_REJ_PRIVATE_LEN	148

struct xr_ibcm;

#define XR_IBCM_REQ_PRIVATE_LEN	92
#define XR_IBCM_REP_PRIVATE_LEN	196
#define XR_IBCM_DREQ_PRIVATE_LEN	220
#define XR_CM_REJ_TIMEOUT		4	/* a requester that gave up */
#define XR_CM_REJ_INVALID_SERVICE_ID	8
#define XR_CM_REJ_STALE_CONN		10	/* the peer's QP has a connection here */
#define XR_CM_REJ_CONSUMER_DEFINED	28
#define XR_CM_REJ_VENDOR_OPTION	35	/* not supported */
#define XR_IBCM_SIDR_REQ_PRIVATE_LEN	216
#define XR_IBCM_SIDR_REP_PRIVATE_LEN	136
#define XR_SIDR_SUCCESS		0	/* SIDR_REP statuses (IBTA table 120) */
#define XR_SIDR_UNSUPPORTED	1	/* nobody serves the service ID */
#define XR_SIDR_REJECT		2

/* What happens to an IB CM connection (XR_CM_EVENT_REJECTED: status the reason). */
typedef void (*xr_ibcm_handler)(void *context, const struct xr_cm_event *ev);

/**
 * struct xr_ibcm_qp - what a connection's QP needs for RTR and RTS
 * @dest_qpn: the peer's QP
 * @rq_psn: the PSN our QP receives from (the one we announced)
 * @sq_psn: the one it sends from (the peer's announced)
 * @mtu: the path MTU (IB code)
 * @retry_count: transport retries
 * @rnr_retry_count: RNR retries
 * @ack_timeout: the local ACK timeout (IBTA exponent)
 * @initiator_depth: RDMA READs and atomics our QP issues at once
 * @responder_resources: those it takes at once
 * @dgid: the peer's GID
 * @sgid_index: ours, in the port's table
 * @hop_limit: of the path
 * @traffic_class: of the path
 * @flow_label: of the path
 */
struct xr_ibcm_qp {
	u32 dest_qpn;
	u32 rq_psn;
	u32 sq_psn;
	u8 mtu;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 ack_timeout;
	u8 initiator_depth;
	u8 responder_resources;
	u8 dgid[16];
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
};

/**
 * struct xr_ibcm_rep - what a REP gives (IBTA table 110)
 * @qpn: the local QP
 * @responder_resources: RDMA READs and atomics it takes at once
 * @initiator_depth: those it issues at once
 * @flow_control: end-to-end flow control
 * @rnr_retry_count: RNR retries the peer's QP makes
 * @srq: the local QP receives from an SRQ
 * @private_data: up to 196 bytes for the peer
 * @private_data_len: their length
 */
struct xr_ibcm_rep {
	u32 qpn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 rnr_retry_count;
	u8 srq;
	const void *private_data;
	u8 private_data_len;
};

/**
 * struct xr_ibcm_req_rcvd - a REQ or SIDR_REQ, for the listener to take (xr_ibcm_listen())
 * @port: the port it came in on
 * @ud: a SIDR_REQ (only @port, @service_id, the GIDs and the private data
 *	are set)
 * @service_id: the service it asks for
 * @qpn: the peer's QP
 * @responder_resources: what our QP may take at once (the peer's initiator
 *	depth)
 * @initiator_depth: what it may issue at once (the peer's responder
 *	resources)
 * @flow_control: end-to-end flow control
 * @retry_count: transport retries
 * @rnr_retry_count: RNR retries
 * @srq: the peer's QP receives from an SRQ
 * @sgid: our GID it was sent to
 * @dgid: the peer's
 * @private_data: the message's
 * @private_data_len: its length (XR_IBCM_REQ_PRIVATE_LEN or
 *	XR_IBCM_SIDR_REQ_PRIVATE_LEN)
 */
struct xr_ibcm_req_rcvd {
	u32 port;
	bool ud;
	u64 service_id;
	u32 qpn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 srq;
	u8 sgid[16];
	u8 dgid[16];
	const u8 *private_data;
	u8 private_data_len;
};

/**
 * struct xr_ibcm_req - what a REQ asks for (IBTA table 106)
 * @port: the local port
 * @ah: the passive side's GSI QP, and the primary path's GID, flow label,
 *	traffic class and hop limit
 * @sgid: the local GID
 * @service_id: the service
 * @qpn: the local QP
 * @starting_psn: the PSN it receives from (Linux's meaning)
 * @responder_resources: RDMA READs and atomics the local QP takes at once
 * @initiator_depth: those it issues at once
 * @flow_control: end-to-end flow control
 * @retry_count: the transport's
 * @rnr_retry_count: the transport's RNR retries
 * @srq: the local QP receives from an SRQ
 * @mtu: the path MTU (IB code)
 * @packet_life_time: the path's (IBTA time exponent)
 * @remote_cm_response_timeout: how long the peer may take (exponent)
 * @local_cm_response_timeout: how long we take (exponent)
 * @max_cm_retries: REQs sent again at most
 * @private_data: up to 92 bytes for the peer
 * @private_data_len: their length
 */
struct xr_ibcm_req {
	u32 port;
	struct xr_gsi_ah ah;
	u8 sgid[16];
	u64 service_id;
	u32 qpn;
	u32 starting_psn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 srq;
	u8 mtu;
	u8 packet_life_time;
	u8 remote_cm_response_timeout;
	u8 local_cm_response_timeout;
	u8 max_cm_retries;
	const void *private_data;
	u8 private_data_len;
};

int xr_ibcm_init(void);
void xr_ibcm_exit(void);
u64 xr_ibcm_live(void);
/*
 * IB CM's listener (the RDMA CM): offered each REQ and SIDR_REQ, it takes
 * it (0: it owns @cm from then on), or nobody listens to its service ID
 * (-ENOENT), or it has no room now (-ENOMEM: the request is taken when it
 * comes again), or it rejects it (any other errno).
 */
typedef int (*xr_ibcm_listener_t)(struct xr_device *xdev, struct xr_ibcm *cm,
				  const struct xr_ibcm_req_rcvd *r);
void xr_ibcm_listen(xr_ibcm_listener_t listener);

/* IB CM's counters of a port, as Linux's (ports/<n>/cm_tx_msgs/req, ...). */
/* REQ MRA REJ REP RTU DREQ DREP SIDR_REQ SIDR_REP LAP APR */
#define XR_CM_MSG_KINDS		11
enum xr_cm_counter_group {
	XR_CM_TX_MSGS,
	XR_CM_TX_RETRIES,
	XR_CM_RX_MSGS,
	XR_CM_RX_DUPLICATES,
	XR_CM_COUNTER_GROUPS,
};

/* One port's, by group and message (its attribute ID less REQ's). */
struct xr_cm_counters {
	atomic_long_t c[XR_CM_COUNTER_GROUPS][XR_CM_MSG_KINDS];
};

/**
 * xr_ibcm_counter - one of IB CM's counters of a port
 * @xdev: the device, which holds the counters (cm.c counts, sysfs shows)
 * @port: the port
 * @group: enum xr_cm_counter_group
 * @kind: the message: its attribute ID less REQ's
 *
 * Return: the count, or 0 for a port or message that has none.
 */
static inline long xr_ibcm_counter(const struct xr_device *xdev, u32 port, u32 group,
				   u32 kind)
{
	if (port < 1 || port > xdev->phys_port_cnt || group >= XR_CM_COUNTER_GROUPS ||
	    kind >= XR_CM_MSG_KINDS)
		return 0;
	return atomic_long_read(&xdev->cm_counters[port - 1].c[group][kind]);
}

struct xr_ibcm *xr_ibcm_connect(struct xr_device *xdev, const struct xr_ibcm_req *p,
				xr_ibcm_handler handler, void *context);
void xr_ibcm_destroy(struct xr_ibcm *cm);
void xr_ibcm_recv(struct xr_device *xdev, u32 port, const struct xr_gsi_wc *wc, const u8 *mad);
int xr_ibcm_accept(struct xr_ibcm *cm, const struct xr_ibcm_rep *p);
int xr_ibcm_send_rtu(struct xr_ibcm *cm);
int xr_ibcm_reject(struct xr_ibcm *cm, u16 reason, const void *pdata, u8 len);
int xr_ibcm_disconnect(struct xr_ibcm *cm);
int xr_ibcm_establish(struct xr_ibcm *cm);
struct xr_ibcm *xr_ibcm_sidr_req(struct xr_device *xdev, const struct xr_ibcm_req *p,
				 xr_ibcm_handler handler, void *context);
int xr_ibcm_sidr_rep(struct xr_ibcm *cm, u8 status, u32 qpn, u32 qkey, const void *pdata, u8 len);
int xr_ibcm_qp_attr(struct xr_ibcm *cm, struct xr_ibcm_qp *qp);
void xr_ibcm_set_handler(struct xr_ibcm *cm, xr_ibcm_handler handler, void *context);
void xr_ibcm_get(struct xr_ibcm *cm);
void xr_ibcm_put(struct xr_ibcm *cm);

#endif /* XR_CM_H */
