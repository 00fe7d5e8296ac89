// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for IB CM's receive path: MADs as they arrive from the
 * wire (xr_ibcm_recv()) meet a connection in the state the input picks
 * (fuzz_cm.h), an owner that takes, answers and completes what comes as
 * the input says, and a clock that fires the timeouts between them.  At the
 * end the clock runs until no timer is left (retries are bounded), every
 * connection is destroyed, and nothing may be left: connections, timers,
 * allocations, device references.  The sanitizers and the stand-ins'
 * checks (a lock taken twice, a reference count gone wrong) do the rest.
 */
#include <stdlib.h>

#include "fake.h"
#include "fuzz_cm.h"

static struct xr_device *xdev;
/*
 * Private data for our messages: none, but a buffer all the same (cm.c
 * copies 0 bytes from it, which the kernel's memcpy() allows with NULL
 * and user space's UBSan does not).
 */
static const u8 no_pdata[1];

/* The connection the last message we sent belongs to: its IDs. */
struct ids {
	u32 ours;
	u32 peers;
	unsigned int seen;	/* MADs sent so far */
};

static void learn_ids(struct ids *ids)
{
	const u8 *m;
	u16 attr;

	for (; ids->seen < fake.nsent; ids->seen++) {
		m = fake.sent[ids->seen % FAKE_MAX_SENT].mad;
		attr = get_be(m, 16, 2);
		if (attr == ATTR_SIDR_REP)
			continue;	/* its ID is the peer's request */
		ids->ours = get_be(m, CM(0), 4);
		if (attr != ATTR_REQ && attr != ATTR_SIDR_REQ)
			ids->peers = get_be(m, CM(4), 4);
	}
}

static void fixup(u8 *m, const struct ids *ids)
{
	u16 attr = get_be(m, 16, 2);

	m[0] = 1;
	m[1] = 0x07;
	m[2] = 2;
	m[3] = 0x03;
	switch (attr) {
	case ATTR_REQ:
		put_be(m, CM(0), 4, ids->peers);
		put_be(m, CM(16), 8, PEER_GUID);
		break;
	case ATTR_SIDR_REQ:
		put_be(m, CM(0), 4, ids->peers);
		break;
	case ATTR_SIDR_REP:
		put_be(m, CM(0), 4, ids->ours);
		break;
	default:
		put_be(m, CM(0), 4, ids->peers);
		put_be(m, CM(4), 4, ids->ours);
		/* A REJ "timeout" names its connection by the peer's GUID too. */
		if (attr == ATTR_REJ && get_be(m, CM(10), 2) == 4)
			put_be(m, CM(12), 8, PEER_GUID);
		break;
	}
}

static struct xr_ibcm *active(const struct xr_ibcm_req *p, bool sidr)
{
	struct xr_ibcm *cm = sidr ? xr_ibcm_sidr_req(xdev, p, fake_handler, NULL) :
				    xr_ibcm_connect(xdev, p, fake_handler, NULL);

	if (IS_ERR(cm))
		host_bug("connect: %ld", PTR_ERR(cm));
	return cm;
}

/* The connection of the scenario, or NULL. */
static struct xr_ibcm *scenario(enum fuzz_scenario s)
{
	struct xr_ibcm_req p = {
		.port = 1, .ah = { .dgid = PEER_GID, .hop_limit = 64, .remote_qpn = 1,
				   .remote_qkey = 0x80010000 },
		.sgid = OUR_GID, .service_id = 0x0000000001064e20ull, .qpn = 0xc0de,
		.starting_psn = 0x5a5a5a, .responder_resources = 4, .initiator_depth = 4,
		.retry_count = 7, .rnr_retry_count = 7, .mtu = 3, .packet_life_time = 16,
		.remote_cm_response_timeout = 20, .local_cm_response_timeout = 20,
		.max_cm_retries = 15, .private_data = no_pdata,
	};
	struct xr_ibcm_rep rep = { .qpn = 0x789, .responder_resources = 4, .initiator_depth = 4,
				   .private_data = no_pdata };
	struct peer_req r = peer_req_default();
	struct xr_ibcm *cm = NULL;
	struct peer_rep pr;
	u8 m[MAD_SIZE];

	switch (s) {
	case FUZZ_NONE:
		break;
	case FUZZ_REQ_SENT:
	case FUZZ_REP_RCVD:
	case FUZZ_ESTABLISHED:
	case FUZZ_DREQ_SENT:
		cm = active(&p, false);
		if (s == FUZZ_REQ_SENT)
			break;
		pr = peer_rep_default(get_be(fake.sent[0].mad, 8, 8),
				      get_be(fake.sent[0].mad, CM(0), 4));
		peer_rep(m, &pr);
		xr_ibcm_recv(xdev, 1, &peer_wc, m);
		if (s != FUZZ_REP_RCVD && xr_ibcm_send_rtu(cm))
			host_bug("no RTU");
		if (s == FUZZ_DREQ_SENT && xr_ibcm_disconnect(cm))
			host_bug("no DREQ");
		break;
	case FUZZ_REQ_RCVD:
	case FUZZ_REP_SENT:
		peer_req(m, &r);
		xr_ibcm_recv(xdev, 1, &peer_wc, m);
		if (fake.nreqs != 1 || !fake.reqs[0].cm)
			host_bug("the REQ was not taken");
		if (s == FUZZ_REQ_RCVD)
			xr_ibcm_recv(xdev, 1, &peer_wc, m);	/* our MRA: our ID */
		else if (xr_ibcm_accept(fake.reqs[0].cm, &rep))
			host_bug("no REP");
		break;
	case FUZZ_SIDR_REQ_SENT:
		cm = active(&p, true);
		break;
	}
	return cm;
}

/*
 * What a connection's owner sees: at most one CONNECT_RESPONSE and one
 * ESTABLISHED, then its end (REJECTED, UNREACHABLE, DISCONNECTED; a UD
 * service's ESTABLISHED); after a REJECTED or DISCONNECTED at most one
 * TIMEWAIT_EXIT, and nothing after that.
 */
struct life {
	bool ud;
	bool ended;
	bool may_exit;		/* ended where TIMEWAIT may follow */
	bool responded;
	bool established;
};

static void check_event(struct life *l, u32 event)
{
	if (event == XR_CM_EVENT_TIMEWAIT_EXIT) {
		if (!l->may_exit)
			host_bug("TIMEWAIT_EXIT but after REJECTED or DISCONNECTED, or again");
		l->may_exit = false;
		return;
	}
	if (l->ended)
		host_bug("event %u after the connection's end", event);
	switch (event) {
	case XR_CM_EVENT_CONNECT_RESPONSE:
		if (l->ud || l->responded)
			host_bug("CONNECT_RESPONSE again or for UD");
		l->responded = true;
		break;
	case XR_CM_EVENT_ESTABLISHED:
		if (l->established)
			host_bug("ESTABLISHED again");
		l->established = true;
		l->ended = l->ud;
		break;
	case XR_CM_EVENT_REJECTED:
	case XR_CM_EVENT_DISCONNECTED:
		l->may_exit = true;
		l->ended = true;
		break;
	case XR_CM_EVENT_UNREACHABLE:
		l->ended = true;
		break;
	default:
		host_bug("event %u", event);
	}
}

/*
 * What the owners do after a MAD: answer new requests, send the RTU; and
 * what they see of it (@lives: the scenario's connection, then one a
 * request).
 */
static void owners(struct xr_ibcm *cm, u8 flags, unsigned int *reqs, unsigned int *events,
		   struct life *lives)
{
	struct xr_ibcm_rep rep = { .qpn = 0x789, .responder_resources = 4, .initiator_depth = 4,
				   .private_data = no_pdata };
	const struct fake_event *e;
	struct fake_req *q;

	for (; *reqs < fake.nreqs; (*reqs)++) {
		q = &fake.reqs[*reqs];
		lives[1 + *reqs].ud = q->r.ud;
		if (!q->cm || !(flags & FUZZ_ANSWER))
			continue;
		if (q->r.ud)
			xr_ibcm_sidr_rep(q->cm, XR_SIDR_SUCCESS, 0x777, 0x01234567, NULL, 0);
		else
			xr_ibcm_accept(q->cm, &rep);
	}
	for (; *events < fake.nevents; (*events)++) {
		e = &fake.events[*events % FAKE_MAX_EVENTS];
		q = e->context;
		check_event(q ? &lives[1 + (q - fake.reqs)] : &lives[0], e->ev.event);
		if (!q && cm && (flags & FUZZ_RTU) &&
		    e->ev.event == XR_CM_EVENT_CONNECT_RESPONSE)
			xr_ibcm_send_rtu(cm);
	}
}

/* Every timeout to its end: retries are bounded. */
static void run_timers(void)
{
	unsigned int i;

	for (i = 0; host_timers_pending(); i++) {
		if (i == 10000)
			host_bug("timers never end");
		host_clock_advance(host_next_timer() - jiffies);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const int cma[] = { 0, -ENOENT, -ENOMEM, -EINVAL };
	struct life lives[1 + FAKE_MAX_REQS] = {};
	unsigned int i, n, reqs = 0, events = 0;
	struct ids ids = {};
	struct xr_ibcm *cm;
	u8 flags, m[MAD_SIZE];
	unsigned long step;
	bool device_goes;

	if (size < 2)
		return -1;
	flags = data[0];
	step = (unsigned long)(data[1] & FUZZ_CLOCK_MASK) * FUZZ_CLOCK_UNIT;
	device_goes = data[1] & FUZZ_DEVICE_GOES;
	data += 2;
	size -= 2;
	host_reset();
	fake_reset();
	xr_ibcm_init();
	cm = scenario(flags & FUZZ_SCENARIO);
	lives[0].ud = (flags & FUZZ_SCENARIO) == FUZZ_SIDR_REQ_SENT;
	/* The scenario's REQ (REQ_RCVD, REP_SENT) is answered already, or never. */
	reqs = fake.nreqs;
	for (; events < fake.nevents; events++)
		check_event(&lives[0], fake.events[events].ev.event);
	fake.cma_answer = cma[(flags & FUZZ_CMA_MASK) >> FUZZ_CMA_SHIFT];
	for (i = 0; size && i < FUZZ_MAX_MADS; i++) {
		n = size < MAD_SIZE ? size : MAD_SIZE;
		memset(m, 0, sizeof(m));
		memcpy(m, data, n);
		data += n;
		size -= n;
		learn_ids(&ids);
		if (flags & FUZZ_FIXUP)
			fixup(m, &ids);
		xr_ibcm_recv(xdev, 1, &peer_wc, m);
		owners(cm, flags, &reqs, &events, lives);
		host_clock_advance(step);
		owners(cm, flags, &reqs, &events, lives);
	}
	run_timers();
	owners(cm, 0, &reqs, &events, lives);
	if (cm)
		xr_ibcm_destroy(cm);
	for (i = 0; i < fake.nreqs; i++)
		if (fake.reqs[i].cm)
			xr_ibcm_destroy(fake.reqs[i].cm);
	/* What the owners left (their DREQs sent again) ends either way. */
	if (device_goes)
		fake.client->remove(xdev);
	else
		run_timers();
	if (xr_ibcm_live() || host_timers_pending() || host_allocations() ||
	    refcount_read(&xdev->users) != 1)
		host_bug("left: %llu connections, %u timers, %ld allocations, %u users",
			 (unsigned long long)xr_ibcm_live(), host_timers_pending(),
			 host_allocations(), refcount_read(&xdev->users));
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	xdev = fake_device(1);
	return 0;
}
