// SPDX-License-Identifier: GPL-2.0
/*
 * pcap_check: read captures of the wire (xrnic-emu --pcap) and check every
 * RoCE v2 frame in them with the port's own receive checks (frame.c):
 * lengths, IPv4 header checksum, ICRC.  Prints one line per file
 *   # FILE: N frames, R RoCE v2 (O opcodes), B bad, I bad ICRC
 * and exits 1 if any RoCE v2 frame is bad or a file is not a capture, 2 on
 * bad usage.  With --seeds DIR it also writes the first frame of each BTH
 * opcode seen into DIR/opcode-XX, a seed corpus for fuzz_frame.
 *
 * Usage: pcap_check [--seeds DIR] FILE...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

#define PCAP_MAGIC		0xa1b2c3d4u
#define PCAP_MAGIC_SWAPPED	0xd4c3b2a1u
#define PCAP_LINK_ETHERNET	1u
#define MAX_FRAME		65535u

struct counts {
	unsigned long frames, roce, bad, bad_icrc;
	bool opcode_seen[256];
	unsigned int opcodes;
};

static uint32_t get32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static void write_seed(const char *dir, uint8_t opcode, const uint8_t *frame, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/opcode-%02x", dir, opcode);
	f = fopen(path, "wb");
	if (!f || fwrite(frame, 1, len, f) != len)
		fprintf(stderr, "pcap_check: cannot write %s: %s\n", path, strerror(errno));
	if (f)
		fclose(f);
}

/* Check one capture; -1 if it is not one (or is cut short). */
static int check_file(const char *path, const char *seeds, struct counts *c)
{
	static uint8_t frame[MAX_FRAME];
	struct xe_roce_frame rf;
	uint8_t hdr[24], rec[16];
	uint32_t caplen;
	bool swap;
	FILE *f;
	int r = 0;

	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "pcap_check: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
	    (get32(hdr, false) != PCAP_MAGIC && get32(hdr, false) != PCAP_MAGIC_SWAPPED)) {
		fprintf(stderr, "pcap_check: %s: not a pcap capture\n", path);
		fclose(f);
		return -1;
	}
	swap = get32(hdr, false) == PCAP_MAGIC_SWAPPED;
	if (get32(hdr + 20, swap) != PCAP_LINK_ETHERNET) {
		fprintf(stderr, "pcap_check: %s: not an Ethernet capture\n", path);
		fclose(f);
		return -1;
	}
	while (fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
		caplen = get32(rec + 8, swap);
		if (caplen > MAX_FRAME || fread(frame, 1, caplen, f) != caplen) {
			fprintf(stderr, "pcap_check: %s: frame %lu cut short\n", path, c->frames + 1);
			r = -1;
			break;
		}
		c->frames++;
		switch (xe_frame_parse(frame, caplen, &rf)) {
		case 1:
			c->roce++;
			if (!c->opcode_seen[rf.bth[0]]) {
				c->opcode_seen[rf.bth[0]] = true;
				c->opcodes++;
				if (seeds)
					write_seed(seeds, rf.bth[0], frame, caplen);
			}
			break;
		case -1:
			c->roce++;
			c->bad++;
			break;
		case -2:
			c->roce++;
			c->bad_icrc++;
			break;
		}
	}
	fclose(f);
	return r;
}

int main(int argc, char **argv)
{
	const char *seeds = NULL;
	int i = 1, rc = 0;

	if (argc > 2 && !strcmp(argv[1], "--seeds")) {
		seeds = argv[2];
		i = 3;
	}
	if (i >= argc || argv[i][0] == '-') {
		fprintf(stderr, "usage: pcap_check [--seeds DIR] FILE...\n");
		return 2;
	}
	for (; i < argc; i++) {
		struct counts c = { 0 };

		if (check_file(argv[i], seeds, &c))
			rc = 1;
		printf("# %s: %lu frames, %lu RoCE v2 (%u opcodes), %lu bad, %lu bad ICRC\n",
		       argv[i], c.frames, c.roce, c.opcodes, c.bad, c.bad_icrc);
		if (c.bad || c.bad_icrc)
			rc = 1;
	}
	return rc;
}
