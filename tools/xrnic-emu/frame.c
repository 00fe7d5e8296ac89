// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 framing: see frame.h.  The ICRC is the CRC-32 of IEEE 802.3
 * (ISA-L's crc32_gzip_refl, folded with PCLMULQDQ or VPCLMULQDQ) over 8
 * bytes of 0xff standing for the LRH, the IP and UDP headers and the BTH
 * with their variant fields set to ones (IPv4 TOS, TTL and checksum; IPv6
 * traffic class, flow label and hop limit; the UDP checksum; the BTH's
 * reserved byte), then the rest of the packet; it travels little-endian,
 * as rxe sends it.
 */
#include <immintrin.h>
#include <isa-l/crc.h>
#include <string.h>

#include "frame.h"

#define XE_ETHERTYPE_IPV4	0x0800
#define XE_ETHERTYPE_IPV6	0x86dd
#define XE_IPPROTO_UDP		17
#define XE_IPV4_DF		0x4000
#define XE_IPV4_FRAG_MASK	0x3fff	/* MF and the offset */
#define XE_BTH_LEN		12
#define XE_BTH_RESV8A		4	/* the byte before the destination QP */

static void xe_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static uint16_t xe_get16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

bool xe_gid_is_v4(const uint8_t *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}

uint16_t xe_roce_sport(uint32_t qpn)
{
	/* hash_32(qpn, 14) of Linux, as rxe picks its source port. */
	return 0xc000 | (uint32_t)(qpn * 0x61c88647u) >> (32 - 14);
}

static uint16_t xe_ipv4_csum(const uint8_t *h)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < XE_IPV4_HLEN; i += 2)
		sum += xe_get16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

size_t xe_frame_outer(uint8_t *buf, const struct xe_path *path, size_t len, uint16_t ip_id)
{
	bool v4 = xe_gid_is_v4(path->dgid);
	size_t udp_len = XE_UDP_HLEN + len + XE_ICRC_LEN;
	uint8_t *ip = buf + XE_ETH_HLEN, *udp;
	uint8_t tos = (path->traffic_class & ~XE_ECN_MASK) |
		      (path->not_ect ? XE_ECN_NOT_ECT : XE_ECN_ECT0);

	memcpy(buf, path->dmac, 6);
	memcpy(buf + 6, path->smac, 6);
	xe_put16(buf + 12, v4 ? XE_ETHERTYPE_IPV4 : XE_ETHERTYPE_IPV6);
	if (v4) {
		ip[0] = 0x45;
		ip[1] = tos;
		xe_put16(ip + 2, XE_IPV4_HLEN + udp_len);
		xe_put16(ip + 4, ip_id);
		xe_put16(ip + 6, XE_IPV4_DF);
		ip[8] = path->hop_limit;
		ip[9] = XE_IPPROTO_UDP;
		xe_put16(ip + 10, 0);
		memcpy(ip + 12, path->sgid + 12, 4);
		memcpy(ip + 16, path->dgid + 12, 4);
		xe_put16(ip + 10, xe_ipv4_csum(ip));
		udp = ip + XE_IPV4_HLEN;
	} else {
		ip[0] = 0x60 | tos >> 4;
		ip[1] = tos << 4 | (path->flow_label >> 16 & 0xf);
		ip[2] = path->flow_label >> 8;
		ip[3] = path->flow_label;
		xe_put16(ip + 4, udp_len);
		ip[6] = XE_IPPROTO_UDP;
		ip[7] = path->hop_limit;
		memcpy(ip + 8, path->sgid, 16);
		memcpy(ip + 24, path->dgid, 16);
		udp = ip + XE_IPV6_HLEN;
	}
	xe_put16(udp, path->sport);
	xe_put16(udp + 2, XE_ROCE_UDP_PORT);
	xe_put16(udp + 4, udp_len);
	xe_put16(udp + 6, 0);		/* no checksum: the ICRC covers it all */
	return udp + XE_UDP_HLEN - buf;
}

/*
 * ISA-L's AVX-512 CRC returns with the upper halves of the vector
 * registers dirty (no VZEROUPPER: ISA-L 2.30, Debian 12), and the SSE code
 * that runs next pays a state transition for each call: a 4 KiB CRC and
 * a small memset took 313-350 ns against 78-79 with the upper halves
 * cleared, on this kind of host (2026-12-06).  Clear them when the CPU
 * has AVX (and so may have run that CRC).
 */
__attribute__((target("avx"))) static void xe_vzeroupper(void)
{
	_mm256_zeroupper();
}

/*
 * ISA-L's CRC takes fewer than 16 bytes through a buffer on its stack whose
 * reload stalls (a quarter of the CRC's time in a device model's profile),
 * so no call here is that short: a packet's rest of up to this many bytes
 * is copied behind its headers.
 */
#define XE_ICRC_SHORT		64

/*
 * The ICRC of the packet whose IP header is at ip (ip_len bytes) and whose
 * transport packet, after the UDP header, has len bytes before the ICRC.
 * Its first head_len bytes from the IP header on are read from head (a
 * copy of them, the bytes that were parsed), the rest from ip.
 */
static uint32_t xe_icrc(const uint8_t *head, size_t head_len, const uint8_t *ip, size_t ip_len,
			size_t len)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t masked[XE_FRAME_HEAD + XE_ICRC_SHORT];
	size_t n = ip_len + XE_UDP_HLEN + len, rest;
	uint8_t *udp = masked + ip_len;
	static int avx = -1;
	static uint32_t lrh_crc;
	uint32_t crc;

	if (head_len > n)
		head_len = n;
	memcpy(masked, head, head_len);
	rest = n - head_len;
	n = head_len;
	/* A short rest goes with the head: no CRC call of fewer than 16 bytes. */
	if (rest <= XE_ICRC_SHORT) {
		memcpy(masked + n, ip + n, rest);
		n += rest;
		rest = 0;
	}
	if (ip_len == XE_IPV4_HLEN) {
		masked[1] = 0xff;		/* TOS */
		masked[8] = 0xff;		/* TTL */
		masked[10] = masked[11] = 0xff;	/* header checksum */
	} else {
		masked[0] |= 0x0f;		/* traffic class and flow label */
		masked[1] = masked[2] = masked[3] = 0xff;
		masked[7] = 0xff;		/* hop limit */
	}
	udp[6] = udp[7] = 0xff;			/* UDP checksum */
	udp[XE_UDP_HLEN + XE_BTH_RESV8A] = 0xff;
	if (avx < 0) {
		avx = __builtin_cpu_supports("avx");
		/* The same for every packet: its CRC once (fewer than 16 bytes, see above). */
		lrh_crc = crc32_gzip_refl(0, lrh, sizeof(lrh));
	}
	crc = crc32_gzip_refl(lrh_crc, masked, n);
	if (rest)
		crc = crc32_gzip_refl(crc, ip + n, rest);
	if (avx)
		xe_vzeroupper();
	return crc;
}

static size_t xe_frame_ip_len(const uint8_t *frame)
{
	return xe_get16(frame + 12) == XE_ETHERTYPE_IPV4 ? XE_IPV4_HLEN : XE_IPV6_HLEN;
}

void xe_frame_seal(uint8_t *frame, size_t len)
{
	size_t ip_len = xe_frame_ip_len(frame);
	size_t pkt = len - XE_ETH_HLEN - ip_len - XE_UDP_HLEN - XE_ICRC_LEN;
	const uint8_t *ip = frame + XE_ETH_HLEN;
	uint32_t crc = xe_icrc(ip, ip_len + XE_UDP_HLEN + XE_BTH_LEN, ip, ip_len, pkt);
	uint8_t *p = frame + len - XE_ICRC_LEN;

	p[0] = crc;
	p[1] = crc >> 8;
	p[2] = crc >> 16;
	p[3] = crc >> 24;
}

/* The UDP datagram of an IPv4 or IPv6 frame to port 4791, or NULL. */
static const uint8_t *xe_frame_udp(const uint8_t *frame, size_t len, size_t *udp_len, int *bad)
{
	const uint8_t *ip = frame + XE_ETH_HLEN, *udp;
	size_t ip_total;

	*bad = 0;
	if (len < XE_ETH_HLEN + XE_IPV4_HLEN + XE_UDP_HLEN)
		return NULL;
	switch (xe_get16(frame + 12)) {
	case XE_ETHERTYPE_IPV4:
		if (ip[9] != XE_IPPROTO_UDP || (ip[0] >> 4) != 4)
			return NULL;
		udp = ip + (ip[0] & 0xf) * 4;
		if (udp + XE_UDP_HLEN > frame + len || xe_get16(udp + 2) != XE_ROCE_UDP_PORT)
			return NULL;
		/* RoCE from here on: what is wrong is a drop. */
		ip_total = xe_get16(ip + 2);
		if ((ip[0] & 0xf) != 5 || (xe_get16(ip + 6) & XE_IPV4_FRAG_MASK) ||
		    ip_total < XE_IPV4_HLEN + XE_UDP_HLEN || ip_total > len - XE_ETH_HLEN ||
		    xe_ipv4_csum(ip) != 0)
			break;
		*udp_len = ip_total - XE_IPV4_HLEN;
		return udp;
	case XE_ETHERTYPE_IPV6:
		if (len < XE_ETH_HLEN + XE_IPV6_HLEN + XE_UDP_HLEN || (ip[0] >> 4) != 6 ||
		    ip[6] != XE_IPPROTO_UDP)
			return NULL;
		udp = ip + XE_IPV6_HLEN;
		if (xe_get16(udp + 2) != XE_ROCE_UDP_PORT)
			return NULL;
		*udp_len = xe_get16(ip + 4);
		if (*udp_len < XE_UDP_HLEN || *udp_len > len - XE_ETH_HLEN - XE_IPV6_HLEN)
			break;
		return udp;
	default:
		return NULL;
	}
	*bad = 1;
	return NULL;
}

int xe_frame_parse_head(const uint8_t *head, const uint8_t *frame, size_t len,
			struct xe_roce_frame *out)
{
	const uint8_t *ip = head + XE_ETH_HLEN, *udp, *icrc;
	size_t udp_len, ip_len;
	uint32_t crc;
	int bad;

	udp = xe_frame_udp(head, len, &udp_len, &bad);
	if (!udp)
		return bad ? -1 : 0;
	if (xe_get16(udp + 4) != udp_len || udp_len < XE_UDP_HLEN + XE_BTH_LEN + XE_ICRC_LEN)
		return -1;
	ip_len = udp - ip;
	out->ip = ip;
	out->ip_len = ip_len;
	out->bth = udp + XE_UDP_HLEN;
	out->body = frame + (out->bth - head);
	out->len = udp_len - XE_UDP_HLEN - XE_ICRC_LEN;
	icrc = out->body + out->len;
	/* Over the headers as they were parsed, in head. */
	crc = xe_icrc(ip, (len < XE_FRAME_HEAD ? len : XE_FRAME_HEAD) - XE_ETH_HLEN,
		      frame + XE_ETH_HLEN, ip_len, out->len);
	if (crc != ((uint32_t)icrc[0] | icrc[1] << 8 | icrc[2] << 16 | (uint32_t)icrc[3] << 24))
		return -2;
	xe_ip_gids(ip, ip_len, out->sgid, out->dgid);
	return 1;
}

int xe_frame_parse(const uint8_t *frame, size_t len, struct xe_roce_frame *out)
{
	return xe_frame_parse_head(frame, frame, len, out);
}

void xe_ip_gids(const uint8_t *ip, size_t ip_len, uint8_t *sgid, uint8_t *dgid)
{
	if (ip_len == XE_IPV4_HLEN) {
		memset(sgid, 0, 16);
		memset(dgid, 0, 16);
		sgid[10] = sgid[11] = dgid[10] = dgid[11] = 0xff;
		memcpy(sgid + 12, ip + 12, 4);
		memcpy(dgid + 12, ip + 16, 4);
	} else {
		memcpy(sgid, ip + 8, 16);
		memcpy(dgid, ip + 24, 16);
	}
}

bool xe_frame_mark_ce(uint8_t *frame, size_t len)
{
	uint8_t *ip = frame + XE_ETH_HLEN;
	uint8_t ecn;

	if (len < XE_ETH_HLEN + XE_IPV4_HLEN)
		return false;
	switch (xe_get16(frame + 12)) {
	case XE_ETHERTYPE_IPV4:
		if (ip[0] != 0x45)
			return false;
		ecn = xe_ip_ecn(ip, XE_IPV4_HLEN);
		if (ecn == XE_ECN_NOT_ECT || ecn == XE_ECN_CE)
			return false;
		ip[1] |= XE_ECN_CE;
		xe_put16(ip + 10, 0);
		xe_put16(ip + 10, xe_ipv4_csum(ip));
		return true;
	case XE_ETHERTYPE_IPV6:
		if (len < XE_ETH_HLEN + XE_IPV6_HLEN || (ip[0] >> 4) != 6)
			return false;
		ecn = xe_ip_ecn(ip, XE_IPV6_HLEN);
		if (ecn == XE_ECN_NOT_ECT || ecn == XE_ECN_CE)
			return false;
		ip[1] |= XE_ECN_CE << 4;
		return true;
	default:
		return false;
	}
}
