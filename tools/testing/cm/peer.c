// SPDX-License-Identifier: GPL-2.0
/*
 * Linux's ib_cm on the other end of the wire: its messages, byte for byte.
 * Field by field as Linux's cm_format_*() set them, with IBTA's offsets
 * (tables 106 to 120) written out here, apart from cm.c's.
 */
#include <string.h>

#include "peer.h"

const u8 our_gid[16] = OUR_GID;
const u8 peer_gid[16] = PEER_GID;
const u8 other_gid[16] = OTHER_GID;

void put_be(u8 *m, unsigned int off, unsigned int n, u64 v)
{
	while (n--) {
		m[off + n] = v & 0xff;
		v >>= 8;
	}
}

u64 get_be(const u8 *m, unsigned int off, unsigned int n)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = v << 8 | m[off + i];
	return v;
}

/* @len bytes of @p at @off (@p may be NULL when @len is 0). */
static void put_bytes(u8 *m, unsigned int off, const u8 *p, unsigned int len)
{
	if (len)
		memcpy(m + off, p, len);
}

void pattern(u8 *p, unsigned int len, u8 seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 7;
}

void peer_hdr(u8 *m, u16 attr, u64 tid)
{
	memset(m, 0, MAD_SIZE);
	m[0] = 1;		/* base version */
	m[1] = 0x07;		/* management class: CM */
	m[2] = 2;		/* class version */
	m[3] = 0x03;		/* method: SEND */
	put_be(m, 8, 8, tid);
	put_be(m, 16, 2, attr);
}

u64 peer_tid(u32 id)
{
	return (u64)PEER_HI_TID << 32 | id;
}

struct peer_req peer_req_default(void)
{
	struct peer_req r = {
		.local_id = 0x1b2c3d4e,
		.service_id = 0x0000000001064e20ull,	/* RDMA_PS_TCP, port 20000 */
		.guid = PEER_GUID,
		.qpn = 0x000123,
		.responder_resources = 4,
		.initiator_depth = 3,
		.remote_cm_response_timeout = 20,	/* CMA_CM_RESPONSE_TIMEOUT */
		.transport = 0,
		.flow_control = 1,
		.psn = 0xabcdef,
		.local_cm_response_timeout = 19,
		.retry_count = 6,
		.mtu = 3,				/* 1024 */
		.rnr_retry_count = 5,
		.max_cm_retries = 15,			/* CMA_MAX_CM_RETRIES */
		.srq = 1,
		.flow_label = 0xabcde,
		.packet_rate = 7,
		.traffic_class = 0x20,
		.hop_limit = 64,
		.sl = 2,
		.ack_timeout = 17,			/* cm_ack_timeout(): life time + 1 */
	};

	r.tid = peer_tid(r.local_id);
	/* The RDMA CM header: version 0, IPv4, port 40000, 192.0.2.2 to 192.0.2.1. */
	r.pdata[1] = 4 << 4;
	put_be(r.pdata, 2, 2, 40000);
	memcpy(r.pdata + 16, peer_gid + 12, 4);
	memcpy(r.pdata + 32, our_gid + 12, 4);
	pattern(r.pdata + 36, sizeof(r.pdata) - 36, 0x40);
	return r;
}

void peer_req(u8 *m, const struct peer_req *r)
{
	peer_hdr(m, ATTR_REQ, r->tid);
	put_be(m, CM(0), 4, r->local_id);
	/* byte 4: vendor ID, 0 */
	put_be(m, CM(8), 8, r->service_id);
	put_be(m, CM(16), 8, r->guid);
	/* byte 28: local Q_Key, 0 for RC */
	put_be(m, CM(32), 3, r->qpn);
	m[CM(35)] = r->responder_resources;
	/* bytes 36-38: local EECN, 0 */
	m[CM(39)] = r->initiator_depth;
	/* bytes 40-42: remote EECN, 0 */
	m[CM(43)] = r->remote_cm_response_timeout << 3 | r->transport << 1 | r->flow_control;
	put_be(m, CM(44), 3, r->psn);
	m[CM(47)] = r->local_cm_response_timeout << 3 | r->retry_count;
	put_be(m, CM(48), 2, 0xffff);		/* P_Key */
	m[CM(50)] = r->mtu << 4 | r->rnr_retry_count;	/* RDC exists: 0 */
	m[CM(51)] = r->max_cm_retries << 4 | r->srq << 3;
	put_be(m, CM(52), 2, 0xffff);		/* primary local LID: permissive */
	put_be(m, CM(54), 2, 0xffff);		/* primary remote LID */
	memcpy(m + CM(56), peer_gid, 16);	/* primary local GID */
	memcpy(m + CM(72), our_gid, 16);	/* primary remote GID */
	put_be(m, CM(88), 4, (u64)r->flow_label << 12 | r->packet_rate);
	m[CM(92)] = r->traffic_class;
	m[CM(93)] = r->hop_limit;
	m[CM(94)] = r->sl << 4;			/* subnet local: 0 (routed) */
	m[CM(95)] = r->ack_timeout << 3;
	/* bytes 96-139: no alternate path */
	memcpy(m + CM(140), r->pdata, sizeof(r->pdata));
}

struct peer_rep peer_rep_default(u64 tid, u32 remote_id)
{
	struct peer_rep r = {
		.tid = tid,
		.local_id = 0x6a7b8c9d,
		.remote_id = remote_id,
		.qpn = 0x000456,
		.psn = 0x654321,
		.responder_resources = 2,
		.initiator_depth = 5,
		.target_ack_delay = 15,
		.flow_control = 1,
		.rnr_retry_count = 6,
		.srq = 0,
		.guid = PEER_GUID,
	};

	pattern(r.pdata, sizeof(r.pdata), 0x80);
	return r;
}

void peer_rep(u8 *m, const struct peer_rep *r)
{
	peer_hdr(m, ATTR_REP, r->tid);
	put_be(m, CM(0), 4, r->local_id);
	put_be(m, CM(4), 4, r->remote_id);
	/* byte 8: local Q_Key, 0 */
	put_be(m, CM(12), 3, r->qpn);
	/* bytes 16-18: local EECN, 0 */
	put_be(m, CM(20), 3, r->psn);
	m[CM(24)] = r->responder_resources;
	m[CM(25)] = r->initiator_depth;
	m[CM(26)] = r->target_ack_delay << 3 | r->flow_control;	/* failover: 0 */
	m[CM(27)] = r->rnr_retry_count << 5 | r->srq << 4;
	put_be(m, CM(28), 8, r->guid);
	memcpy(m + CM(36), r->pdata, sizeof(r->pdata));
}

void peer_ids_msg(u8 *m, u16 attr, u64 tid, u32 local_id, u32 remote_id)
{
	peer_hdr(m, attr, tid);
	put_be(m, CM(0), 4, local_id);
	put_be(m, CM(4), 4, remote_id);
}

void peer_dreq(u8 *m, u64 tid, u32 local_id, u32 remote_id, u32 remote_qpn,
	       const u8 *pdata, unsigned int len)
{
	peer_ids_msg(m, ATTR_DREQ, tid, local_id, remote_id);
	put_be(m, CM(8), 3, remote_qpn);
	put_bytes(m, CM(12), pdata, len);
}

void peer_rej(u8 *m, u64 tid, u32 local_id, u32 remote_id, u8 rejected, u16 reason,
	      const u8 *pdata, unsigned int len)
{
	peer_ids_msg(m, ATTR_REJ, tid, local_id, remote_id);
	m[CM(8)] = rejected << 6;
	/* byte 9: reject info length, 0 */
	put_be(m, CM(10), 2, reason);
	put_bytes(m, CM(84), pdata, len);
}

void peer_rej_timeout(u8 *m, u64 tid, u32 local_id, u32 remote_id, u64 guid)
{
	peer_rej(m, tid, local_id, remote_id, 2, 4, NULL, 0);
	m[CM(9)] = 8 << 1;			/* reject info length */
	put_be(m, CM(12), 8, guid);		/* ARI: the node GUID */
}

void peer_mra(u8 *m, u64 tid, u32 local_id, u32 remote_id, u8 mraed, u8 timeout)
{
	peer_ids_msg(m, ATTR_MRA, tid, local_id, remote_id);
	m[CM(8)] = mraed << 6;
	m[CM(9)] = timeout << 3;
}

void peer_sidr_req(u8 *m, u64 tid, u32 request_id, u64 service_id, const u8 *pdata,
		   unsigned int len)
{
	peer_hdr(m, ATTR_SIDR_REQ, tid);
	put_be(m, CM(0), 4, request_id);
	put_be(m, CM(4), 2, 0xffff);		/* P_Key */
	put_be(m, CM(8), 8, service_id);
	put_bytes(m, CM(16), pdata, len);
}

void peer_sidr_rep(u8 *m, u64 tid, u32 request_id, u8 status, u32 qpn, u64 service_id,
		   u32 qkey, const u8 *pdata, unsigned int len)
{
	peer_hdr(m, ATTR_SIDR_REP, tid);
	put_be(m, CM(0), 4, request_id);
	m[CM(4)] = status;
	put_be(m, CM(8), 3, qpn);
	put_be(m, CM(12), 8, service_id);
	put_be(m, CM(20), 4, qkey);
	/* bytes 24-95: ClassPortInfo, 0 */
	put_bytes(m, CM(96), pdata, len);
}
