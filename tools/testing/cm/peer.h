/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The other end of the wire: Linux's ib_cm, whose messages peer.c builds
 * byte for byte as Linux's cm_format_*() do (IBTA tables 106 to 120,
 * offsets from the end of the 24-byte MAD header, bits from the MSB), and
 * the accessors the tests read ours with.  Nothing here comes from cm.c.
 */
#ifndef CM_PEER_H
#define CM_PEER_H

#include <linux/types.h>

#define MAD_SIZE	256
#define CM(off)		(24 + (off))	/* a CM field's byte in the MAD */

/* Attribute IDs (IBTA table 105). */
#define ATTR_REQ	0x0010
#define ATTR_MRA	0x0011
#define ATTR_REJ	0x0012
#define ATTR_REP	0x0013
#define ATTR_RTU	0x0014
#define ATTR_DREQ	0x0015
#define ATTR_DREP	0x0016
#define ATTR_SIDR_REQ	0x0017
#define ATTR_SIDR_REP	0x0018
#define ATTR_LAP	0x0019

/* Our device (fake.c) and the peer, both RoCE v2 (IPv4-mapped GIDs). */
#define GID_V4(a, b, c, d)	{ [10] = 0xff, [11] = 0xff, a, b, c, d }
#define OUR_GID		GID_V4(192, 0, 2, 1)
#define PEER_GID	GID_V4(192, 0, 2, 2)
#define OTHER_GID	GID_V4(192, 0, 2, 3)
#define OUR_GUID	0x525400fffe000001ull
#define PEER_GUID	0x0002c9fffe0a0b0cull
#define PEER_HI_TID	0x00000005u	/* the high half of the peer's TIDs */
extern const u8 our_gid[16];
extern const u8 peer_gid[16];
extern const u8 other_gid[16];

/* Big-endian integers of @n bytes at @off. */
void put_be(u8 *m, unsigned int off, unsigned int n, u64 v);
u64 get_be(const u8 *m, unsigned int off, unsigned int n);

/* A zeroed MAD with the CM class's header (base 1, class 7, version 2, SEND). */
void peer_hdr(u8 *m, u16 attr, u64 tid);
/* The peer's TID for its message of local ID @id. */
u64 peer_tid(u32 id);

/*
 * A REQ as Linux's rdma_cm sends one over RoCE v2 (cm_format_req()): a
 * routed path (permissive LIDs), the RDMA CM header opening the private
 * data.  peer_req_default() gives such a one; fields may be changed.
 */
struct peer_req {
	u64 tid;
	u32 local_id;
	u64 service_id;
	u64 guid;
	u32 qpn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 remote_cm_response_timeout;
	u8 transport;		/* 0 RC, 1 UC, 3 XRC */
	u8 flow_control;
	u32 psn;
	u8 local_cm_response_timeout;
	u8 retry_count;
	u8 mtu;
	u8 rnr_retry_count;
	u8 max_cm_retries;
	u8 srq;
	u32 flow_label;
	u8 packet_rate;
	u8 traffic_class;
	u8 hop_limit;
	u8 sl;
	u8 ack_timeout;
	u8 pdata[92];
};

struct peer_req peer_req_default(void);
void peer_req(u8 *m, const struct peer_req *r);

/* A REP (cm_format_rep()): the answer to our REQ of @tid. */
struct peer_rep {
	u64 tid;
	u32 local_id;
	u32 remote_id;
	u32 qpn;
	u32 psn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 target_ack_delay;
	u8 flow_control;
	u8 rnr_retry_count;
	u8 srq;
	u64 guid;
	u8 pdata[196];
};

struct peer_rep peer_rep_default(u64 tid, u32 remote_id);
void peer_rep(u8 *m, const struct peer_rep *r);

/* RTU, DREP: the IDs; DREQ: and the QP it ends. */
void peer_ids_msg(u8 *m, u16 attr, u64 tid, u32 local_id, u32 remote_id);
void peer_dreq(u8 *m, u64 tid, u32 local_id, u32 remote_id, u32 remote_qpn,
	       const u8 *pdata, unsigned int len);
/* REJ of the message @rejected (0 REQ, 1 REP), with @len bytes of private data. */
void peer_rej(u8 *m, u64 tid, u32 local_id, u32 remote_id, u8 rejected, u16 reason,
	      const u8 *pdata, unsigned int len);
/*
 * The REJ a requester destroyed with its REQ unanswered sends (cm_destroy_id():
 * reason 4, "timeout", of no message, its CA GUID @guid as the ARI).
 */
void peer_rej_timeout(u8 *m, u64 tid, u32 local_id, u32 remote_id, u64 guid);
/* MRA of @mraed (0 REQ, 1 REP) for @timeout (an IBTA time exponent). */
void peer_mra(u8 *m, u64 tid, u32 local_id, u32 remote_id, u8 mraed, u8 timeout);
/* SIDR_REQ and SIDR_REP (cm_format_sidr_req(), cm_format_sidr_rep()). */
void peer_sidr_req(u8 *m, u64 tid, u32 request_id, u64 service_id, const u8 *pdata,
		   unsigned int len);
void peer_sidr_rep(u8 *m, u64 tid, u32 request_id, u8 status, u32 qpn, u64 service_id,
		   u32 qkey, const u8 *pdata, unsigned int len);

/* Fill @len bytes with a pattern that starts at @seed. */
void pattern(u8 *p, unsigned int len, u8 seed);

#endif
