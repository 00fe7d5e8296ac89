// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for RoCE v2 framing (frame.c) and the port's sorting of
 * frames from the wire (xe_port_receive()).  The input is a frame.  Checks,
 * besides the sanitizers: a frame that parses as RoCE v2 has its transport
 * packet inside the frame; a frame built from the input's bytes as path
 * and payload parses back to the same packet, and stops parsing as good when one bit changes
 * outside the fields the ICRC leaves out; and the port takes any frame
 * without harm.
 */
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "xe.h"

#define FUZZ_RAM_SIZE	(64 * 1024)

static void fuzz_irq(struct xe_dev *xe, unsigned int vec)
{
	(void)xe;
	(void)vec;
}

/* The port, with an admin queue and a GID, for frames addressed to it. */
static struct xe_dev *fuzz_port(void)
{
	static struct xe_dev xe = { .raise_irq = fuzz_irq };
	static uint8_t *ram;

	if (!ram) {
		ram = aligned_alloc(XRNIC_PAGE_SIZE, FUZZ_RAM_SIZE);
		xe.bar2 = aligned_alloc(XRNIC_PAGE_SIZE, XRNIC_BAR2_SIZE);
		memset(ram, 0, FUZZ_RAM_SIZE);
		xe.mem = (struct xe_guest_mem){ .base = ram, .size = FUZZ_RAM_SIZE };
		xe.id = (struct xe_identity){ .mac = { 0x52, 0x54, 0, 0, 0, 2 }, .num_vectors = 4 };
		xe.log = fopen("/dev/null", "w");
		xe_dev_init(&xe);
		xe_reg_write(&xe, XRNIC_REG_AQ_BASE_LO, 0x1000);
		xe_reg_write(&xe, XRNIC_REG_ACQ_BASE_LO, 0x2000);
		xe_reg_write(&xe, XRNIC_REG_AENQ_BASE_LO, 0x3000);
		xe_reg_write(&xe, XRNIC_REG_AQ_DEPTH, 4);
		xe_reg_write(&xe, XRNIC_REG_AENQ_DEPTH, 4);
		xe_reg_write(&xe, XRNIC_REG_AQ_CTL, XRNIC_AQ_CTL_ENABLE);
		xe_doorbell(&xe, XRNIC_VEC_ADMIN);
		xe.gid[1].valid = true;
		memcpy(xe.gid[1].gid, (uint8_t[16]){ [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 }, 16);
	}
	return &xe;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[XE_FRAME_MAX_OUTER + 4400];
	struct xe_roce_frame rf, back;
	struct xe_path path = { };
	size_t len, outer, pkt, off, ip_len;
	bool variant;
	int r;

	/* The input as a frame from the wire. */
	r = xe_frame_parse(data, size, &rf);
	if (r == 1 && (rf.bth < data + XE_ETH_HLEN || rf.bth + rf.len + XE_ICRC_LEN > data + size))
		abort();
	if (size <= sizeof(frame)) {
		memcpy(frame, data, size);
		xe_port_receive(fuzz_port(), frame, size);
	}

	/* The input as a path and a transport packet: built, then parsed back. */
	if (size < 2 * 16 + 14 + 2 + 12)
		return 0;
	memcpy(path.dgid, data, 16);
	memcpy(path.sgid, data + 16, 16);
	memcpy(path.dmac, data + 32, 6);
	memcpy(path.smac, data + 38, 6);
	path.hop_limit = data[44];
	path.traffic_class = data[45];
	path.sport = data[46] << 8 | data[47];
	data += 48;
	size -= 48;
	pkt = size < 4096 ? size : 4096;
	/* Both GIDs of one family: the frame's addresses come from both. */
	if (xe_gid_is_v4(path.dgid))
		memcpy(path.sgid, (uint8_t[12]){ [10] = 0xff, [11] = 0xff }, 12);
	else if (xe_gid_is_v4(path.sgid))
		path.sgid[11] = 0;
	outer = xe_frame_outer(frame, &path, pkt, 1);
	memcpy(frame + outer, data, pkt);
	len = outer + pkt + XE_ICRC_LEN;
	xe_frame_seal(frame, len);
	if (xe_frame_parse(frame, len, &back) != 1 || back.len != pkt ||
	    memcmp(back.bth, data, pkt) || memcmp(back.dgid, path.dgid, 16) ||
	    memcmp(back.sgid, path.sgid, 16))
		abort();
	/*
	 * One bit flipped after the Ethernet header: never good any more,
	 * unless in a field the ICRC leaves out by design (IPv6 traffic class,
	 * flow label and hop limit, the UDP checksum, the BTH's reserved
	 * byte); IPv4's are caught by its header checksum.
	 */
	off = data[0] % (len - XE_ETH_HLEN);
	ip_len = outer - XE_ETH_HLEN - XE_UDP_HLEN;
	variant = (ip_len == XE_IPV6_HLEN && (off <= 3 || off == 7)) ||
		  off == ip_len + 6 || off == ip_len + 7 || off == ip_len + XE_UDP_HLEN + 4;
	frame[XE_ETH_HLEN + off] ^= 1u << (data[pkt > 1] % 8);
	if (xe_frame_parse(frame, len, &back) == 1 && !variant)
		abort();
	return 0;
}
