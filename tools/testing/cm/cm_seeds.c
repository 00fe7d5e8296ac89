// SPDX-License-Identifier: GPL-2.0
/*
 * Writes fuzz_cm's seed corpus into the directory given: per scenario, the
 * exchanges Linux's ib_cm would have with it, its messages from peer.c
 * (the input format: fuzz_cm.h; FUZZ_FIXUP names the right connection).
 */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <sys/stat.h>

#include <linux/kernel.h>

#include "fuzz_cm.h"
#include "peer.h"

#define SERVICE		0x0000000001064e20ull
#define UD_SERVICE	0x0000000001114e21ull

/*
 * A seed: its scenario and flags, the clock byte, and the peer's messages
 * in order, one letter each: q REQ, p REP, t RTU, d DREQ, D DREP, j REJ of
 * a REQ, J REJ of a REP, o REJ of neither, T REJ "timeout" (a requester
 * destroyed), m MRA of a REQ, M MRA of a REP, s SIDR_REQ, r SIDR_REP
 * (success), R SIDR_REP (rejected).  FUZZ_FIXUP sets their IDs.
 */
static const struct {
	const char *name;
	u8 flags;
	u8 clock;
	const char *mads;
} seeds[] = {
	{ "none-req-rep-rtu-dreq", FUZZ_NONE | FUZZ_ANSWER, 0, "qtd" },
	{ "none-req-twice-mra-rej", FUZZ_NONE, 0, "qqj" },
	{ "none-req-rep-mra-rej", FUZZ_NONE | FUZZ_ANSWER, 80, "qMJq" },
	{ "none-req-nobody-listens", FUZZ_NONE | 1 << FUZZ_CMA_SHIFT, 0, "q" },
	{ "none-req-no-room", FUZZ_NONE | 2 << FUZZ_CMA_SHIFT, 0, "qq" },
	{ "none-req-refused", FUZZ_NONE | 3 << FUZZ_CMA_SHIFT, 0, "q" },
	{ "none-sidr-req-twice", FUZZ_NONE | FUZZ_ANSWER, 0, "ss" },
	{ "none-sidr-req-nobody", FUZZ_NONE | 1 << FUZZ_CMA_SHIFT, 0, "s" },
	{ "none-dreq-unknown", FUZZ_NONE, 0, "d" },
	{ "req-sent-rep-rtu-dreq", FUZZ_REQ_SENT | FUZZ_RTU, 0, "ppd" },
	{ "req-sent-mra-rej", FUZZ_REQ_SENT, 100, "mj" },
	{ "req-sent-rep-twice-rej", FUZZ_REQ_SENT, 0, "ppJ" },
	{ "rep-rcvd-rep-dreq", FUZZ_REP_RCVD, 0, "pd" },
	{ "rep-rcvd-rep-rej", FUZZ_REP_RCVD, 0, "po" },
	{ "established-rej-dreq", FUZZ_ESTABLISHED, 0, "od" },
	{ "established-rep-rtu-dreq-drep", FUZZ_ESTABLISHED, 0, "ptdD" },
	{ "dreq-sent-drep", FUZZ_DREQ_SENT, 0, "D" },
	{ "dreq-sent-dreq", FUZZ_DREQ_SENT, 100, "d" },
	{ "dreq-sent-device-goes", FUZZ_DREQ_SENT, FUZZ_DEVICE_GOES, "" },
	{ "established-device-goes", FUZZ_ESTABLISHED, FUZZ_DEVICE_GOES, "t" },
	{ "req-rcvd-req-rej-dreq", FUZZ_REQ_RCVD, 0, "qjd" },
	{ "rep-sent-req-mra-rtu-dreq", FUZZ_REP_SENT, 0, "qMtd" },
	{ "rep-sent-rej", FUZZ_REP_SENT, 100, "J" },
	{ "req-rcvd-rej-timeout", FUZZ_REQ_RCVD, 0, "Tq" },
	{ "rep-sent-rej-timeout", FUZZ_REP_SENT, 100, "Tt" },
	{ "sidr-req-sent-rep", FUZZ_SIDR_REQ_SENT, 0, "r" },
	{ "sidr-req-sent-rejected", FUZZ_SIDR_REQ_SENT, 50, "R" },
};

/* The peer's message of letter @c into @m, or false for no such letter. */
static bool peer_msg(u8 *m, char c)
{
	struct peer_req req = peer_req_default();
	struct peer_rep rep = peer_rep_default(0, 0);

	switch (c) {
	case 'q':
		peer_req(m, &req);
		return true;
	case 'p':
		peer_rep(m, &rep);
		return true;
	case 't':
		peer_ids_msg(m, ATTR_RTU, 0, 0, 0);
		return true;
	case 'd':
		peer_dreq(m, peer_tid(2), 0, 0, 0xc0de, NULL, 0);
		return true;
	case 'D':
		peer_ids_msg(m, ATTR_DREP, peer_tid(2), 0, 0);
		return true;
	case 'j':
	case 'J':
	case 'o':
		peer_rej(m, 0, 0, 0, c == 'j' ? 0 : c == 'J' ? 1 : 2, 28, NULL, 0);
		return true;
	case 'T':
		peer_rej_timeout(m, 0, 0, 0, PEER_GUID);
		return true;
	case 'm':
	case 'M':
		peer_mra(m, 0, 0, 0, c == 'M', 20);
		return true;
	case 's':
		peer_sidr_req(m, peer_tid(3), 0, UD_SERVICE, NULL, 0);
		return true;
	case 'r':
	case 'R':
		peer_sidr_rep(m, 0, 0, c == 'R' ? 2 : 0, 0x999, SERVICE, 0x01234567, NULL, 0);
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	static u8 buf[2 + FUZZ_MAX_MADS * MAD_SIZE];
	char path[4096];
	unsigned int i, n;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: cm_seeds DIR\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		buf[0] = seeds[i].flags | FUZZ_FIXUP;
		buf[1] = seeds[i].clock;
		for (n = 0; seeds[i].mads[n]; n++) {
			if (n == FUZZ_MAX_MADS ||
			    !peer_msg(buf + 2 + n * MAD_SIZE, seeds[i].mads[n])) {
				fprintf(stderr, "cm_seeds: seed %s: bad message %u\n",
					seeds[i].name, n);
				return 1;
			}
		}
		snprintf(path, sizeof(path), "%s/%s", argv[1], seeds[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 2 + n * MAD_SIZE, 1, f) != 1 || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
