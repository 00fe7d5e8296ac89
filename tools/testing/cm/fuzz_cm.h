/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The input of fuzz_cm (fuzz_cm.c), which cm_seeds.c writes too:
 *
 * byte 0: bits 0-2 the scenario (enum fuzz_scenario), then the FUZZ_*
 *	flags below;
 * byte 1: bits 0-6 how far the clock moves after each MAD, in units of
 *	64 ms; bit 7 (FUZZ_DEVICE_GOES) the device goes once the owners
 *	destroyed their connections, else the timers run to their end;
 * then up to FUZZ_MAX_MADS MADs of 256 bytes, the last one zero-padded.
 */
#ifndef CM_FUZZ_CM_H
#define CM_FUZZ_CM_H

/* What the MADs meet: a connection in one state, or none. */
enum fuzz_scenario {
	FUZZ_NONE,		/* nothing: REQs, SIDR_REQs, unknown DREQs */
	FUZZ_REQ_SENT,		/* ours, active: the REQ unanswered */
	FUZZ_REP_RCVD,		/* the peer's REP came, our RTU not sent */
	FUZZ_ESTABLISHED,	/* the active side, RTU sent */
	FUZZ_DREQ_SENT,		/* then our DREQ */
	FUZZ_REQ_RCVD,		/* the peer's REQ (twice: our MRA), unanswered */
	FUZZ_REP_SENT,		/* our REP to it */
	FUZZ_SIDR_REQ_SENT,	/* ours, a SIDR_REQ */
};

#define FUZZ_SCENARIO		0x07
/*
 * Each MAD is made a CM message from the peer about the connection we last
 * sent a message of (the IDs, the class version and method set).
 */
#define FUZZ_FIXUP		0x08
/* What the RDMA CM answers a request: 0 takes it, else -ENOENT, -ENOMEM, -EINVAL. */
#define FUZZ_CMA_SHIFT		4
#define FUZZ_CMA_MASK		0x30
/* The owner answers what it takes at once (REP, SIDR_REP). */
#define FUZZ_ANSWER		0x40
/* The active owner sends its RTU when the REP comes. */
#define FUZZ_RTU		0x80

#define FUZZ_CLOCK_UNIT		64	/* ms */
#define FUZZ_CLOCK_MASK		0x7f
#define FUZZ_DEVICE_GOES	0x80
#define FUZZ_MAX_MADS		8

#endif
