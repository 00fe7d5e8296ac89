// SPDX-License-Identifier: GPL-2.0
/* The wire's capture in pcap format: see pcap.h. */
#include <sys/time.h>

#include "pcap.h"

#define XE_PCAP_MAGIC		0xa1b2c3d4u	/* microsecond timestamps */
#define XE_PCAP_SNAPLEN		65535u
#define XE_PCAP_LINK_ETHERNET	1u

/* The file header and each record's, in the host's byte order (the magic
 * tells a reader which). */
struct xe_pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct xe_pcap_rec_hdr {
	uint32_t sec, usec, caplen, len;
};

FILE *xe_pcap_open(const char *path)
{
	struct xe_pcap_file_hdr h = {
		.magic = XE_PCAP_MAGIC, .major = 2, .minor = 4,
		.snaplen = XE_PCAP_SNAPLEN, .linktype = XE_PCAP_LINK_ETHERNET,
	};
	FILE *f = fopen(path, "wbx");

	if (!f)
		return NULL;
	if (fwrite(&h, sizeof(h), 1, f) != 1 || fflush(f)) {
		fclose(f);
		return NULL;
	}
	return f;
}

void xe_pcap_frame(FILE *f, const uint8_t *frame, size_t len)
{
	struct xe_pcap_rec_hdr r;
	struct timeval tv;

	gettimeofday(&tv, NULL);
	r.sec = (uint32_t)tv.tv_sec;
	r.usec = (uint32_t)tv.tv_usec;
	r.len = (uint32_t)len;
	r.caplen = len > XE_PCAP_SNAPLEN ? XE_PCAP_SNAPLEN : (uint32_t)len;
	if (fwrite(&r, sizeof(r), 1, f) == 1)
		fwrite(frame, 1, r.caplen, f);
	fflush(f);
}
