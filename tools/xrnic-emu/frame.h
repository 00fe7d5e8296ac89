/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCE v2 framing (IBTA Annex A17): a transport packet (BTH .. pad) inside
 * Ethernet, IPv4 or IPv6, and UDP to port 4791, followed by the ICRC.  The
 * IP addresses are the GIDs (IPv4-mapped for IPv4).  Building and
 * checking, nothing else: frame.c.
 */
#ifndef XE_FRAME_H
#define XE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XE_ROCE_UDP_PORT	4791
#define XE_ETH_HLEN		14
#define XE_IPV4_HLEN		20
#define XE_IPV6_HLEN		40
#define XE_UDP_HLEN		8
#define XE_ICRC_LEN		4
/* The outer headers at most: Ethernet, IPv6, UDP. */
#define XE_FRAME_MAX_OUTER	(XE_ETH_HLEN + XE_IPV6_HLEN + XE_UDP_HLEN)

/*
 * ECN (RFC 3168): the low two bits of IPv4's TOS and IPv6's traffic class.
 * Every RoCE v2 packet the port sends is ECT(0) but CNPs, so that a
 * congested switch marks it CE instead of dropping it (DCQCN).
 */
#define XE_ECN_MASK		3
#define XE_ECN_NOT_ECT		0
#define XE_ECN_ECT1		1
#define XE_ECN_ECT0		2
#define XE_ECN_CE		3

/* Where a frame goes: what a QP's address vector and the port say. */
struct xe_path {
	uint8_t dmac[6], smac[6];
	uint8_t dgid[16], sgid[16];
	uint8_t hop_limit, traffic_class;	/* DSCP: traffic_class >> 2 */
	uint32_t flow_label;		/* IPv6 */
	uint16_t sport;			/* UDP source port: flow entropy */
	bool not_ect;			/* a CNP: ECN Not-ECT, where all else is ECT(0) */
};

/* A RoCE v2 frame, checked: where its transport packet is. */
struct xe_roce_frame {
	const uint8_t *bth;		/* BTH first, in head */
	const uint8_t *body;		/* the same in frame: where the payload is */
	size_t len;			/* BTH .. pad, without the ICRC */
	uint8_t sgid[16], dgid[16];	/* the IP addresses, as GIDs */
	const uint8_t *ip;		/* the IP header: XE_IPV4_HLEN or XE_IPV6_HLEN */
	size_t ip_len;
};

/* The source and destination addresses of an IP header (ip_len bytes) as GIDs. */
void xe_ip_gids(const uint8_t *ip, size_t ip_len, uint8_t *sgid, uint8_t *dgid);

/* True when the GID is an IPv4-mapped address (::ffff:a.b.c.d). */
bool xe_gid_is_v4(const uint8_t *gid);

/* The UDP source port of a QP, as rxe derives it: 0xc000 | 14-bit hash. */
uint16_t xe_roce_sport(uint32_t qpn);

/*
 * Write the outer headers for a transport packet of len bytes (BTH .. pad)
 * into buf (XE_FRAME_MAX_OUTER bytes); returns their length.  The packet
 * follows them, then XE_ICRC_LEN bytes for xe_frame_seal().  ip_id is the
 * IPv4 identification.  The TOS / traffic class is the path's DSCP (its
 * upper six bits) and ECT(0), or Not-ECT for path->not_ect.
 */
size_t xe_frame_outer(uint8_t *buf, const struct xe_path *path, size_t len, uint16_t ip_id);

/* Write the ICRC of a whole frame of len bytes (outer headers, packet, ICRC). */
void xe_frame_seal(uint8_t *frame, size_t len);

/*
 * Look at a frame from the wire.  Returns 1 and fills *out for a good
 * RoCE v2 frame; 0 for a frame that is no RoCE v2 (for the host's network
 * stack); -1 for a RoCE v2 frame with bad lengths or a bad IPv4 header
 * checksum, -2 for one with a bad ICRC (both dropped).
 */
int xe_frame_parse(const uint8_t *frame, size_t len, struct xe_roce_frame *out);

/* The bytes at a frame's start that hold all of its headers. */
#define XE_FRAME_HEAD		128

/*
 * xe_frame_parse() of a frame that its sender may still write (the
 * switch's ring): the headers are read from head, a copy of the frame's
 * first XE_FRAME_HEAD bytes (or all len when fewer), and the rest from
 * frame; the ICRC is checked over those same bytes.  out->bth is in head,
 * out->body in frame.
 */
int xe_frame_parse_head(const uint8_t *head, const uint8_t *frame, size_t len,
			struct xe_roce_frame *out);

/* The ECN field of an IP header of ip_len bytes (XE_IPV4_HLEN or XE_IPV6_HLEN). */
static inline uint8_t xe_ip_ecn(const uint8_t *ip, size_t ip_len)
{
	return (ip_len == XE_IPV4_HLEN ? ip[1] : ip[1] >> 4) & XE_ECN_MASK;
}

/*
 * Mark a frame of len bytes CE in place, as a congested switch does: an
 * IPv4 or IPv6 frame whose ECN field is ECT(0) or ECT(1) gets CE (and
 * IPv4 its header checksum again; the ICRC leaves the field out).  True
 * when it marked; a Not-ECT frame, one already CE, or no IP frame is left
 * as it is.
 */
bool xe_frame_mark_ce(uint8_t *frame, size_t len);

#endif /* XE_FRAME_H */
