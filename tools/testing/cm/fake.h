/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What IB CM calls besides itself, faked for its host tests and fuzzer:
 * the MAD layer (every MAD sent is recorded; the reply address is the
 * sender's, for a MAD sent to our GID), a listener as the RDMA CM's (takes
 * a request or answers an errno, as set), a device with our GUID, and an
 * owner's handler that records every event.
 */
#ifndef CM_FAKE_H
#define CM_FAKE_H

#include "core_priv.h"

#include "peer.h"

#define FAKE_MAX_SENT	64
#define FAKE_MAX_EVENTS	64
#define FAKE_MAX_REQS	16

/* A MAD xr_mad_send() sent: when (jiffies), from which port, to whom. */
struct fake_sent {
	unsigned long at;
	u32 port;
	struct xr_gsi_ah ah;
	u8 mad[XR_MAD_SIZE];
};

/* An event fake_handler() got, its private data copied. */
struct fake_event {
	unsigned long at;
	void *context;
	struct xr_cm_event ev;
	u8 pdata[256];
};

/*
 * A request the listener saw: @cm is NULL unless it took it (its owner
 * must then destroy it), @qp what xr_ibcm_qp_attr() said then.
 */
struct fake_req {
	struct xr_ibcm *cm;
	struct xr_device *xdev;
	struct xr_ibcm_req_rcvd r;
	u8 pdata[256];
	int qp_attr_ret;
	struct xr_ibcm_qp qp;
};

/* Sent MADs and events: @nsent and @nevents count them all, the last kept. */
struct fake {
	struct fake_sent sent[FAKE_MAX_SENT];
	unsigned int nsent;
	struct fake_event events[FAKE_MAX_EVENTS];
	unsigned int nevents;
	struct fake_req reqs[FAKE_MAX_REQS];
	unsigned int nreqs;
	int cma_answer;		/* what the listener answers: 0 takes it */
	int reply_ah_answer;	/* what xr_mad_reply_ah() answers (0: the address) */
	struct xr_client *client;	/* what IB CM registered: its remove */
};

extern struct fake fake;

/* A device of @ports ports with our GUID; users 1 (its registration). */
struct xr_device *fake_device(u32 ports);
void fake_device_free(struct xr_device *xdev);
/* Forget what was sent, delivered and requested; answers back to 0. */
void fake_reset(void);

/* An owner's handler: records the event (never sleeps, takes no lock). */
void fake_handler(void *context, const struct xr_cm_event *ev);

/* Where the peer's MADs come from: its GSI QP, to our GID. */
extern const struct xr_gsi_wc peer_wc;

#endif
