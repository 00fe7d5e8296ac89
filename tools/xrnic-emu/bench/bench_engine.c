// SPDX-License-Identifier: GPL-2.0
/*
 * The device model alone on the host, against memcpy in the same run:
 * 1 MiB RDMA WRITEs between two 16 MiB regions of fake guest RAM,
 *  - "engine_write": on one device (loopback: requester, responder and data
 *    mover, the payload copied once, guest RAM to guest RAM);
 *  - "wire_write": from one device to another joined by a wire (RoCE v2
 *    frames with their ICRC; the wire is a queue of frames in this process,
 *    which copies each once, as a socket would);
 *  - "switch_write": the same two devices joined by the switch (switch.h)
 *    as the device models of one host are: frames in a ring of shared
 *    memory (swring.h), copied in by the sender and out by the receiver;
 *  - "memcpy" of the same sizes between the same regions;
 *  - "wire_write_msg": 8-byte WRITEs over the wire, the microseconds of
 *    this one thread (both devices' work: the WQE fetched, the frame built
 *    with its ICRC, parsed, placed, answered) per WRITE.
 * Prints "RESULT name bytes unit value" lines.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "loopback.h"
#include "tap.h"

#define RAM		(64u << 20)
#define HALF		(16u << 20)
#define MSG		(1u << 20)
#define SMALL		8
#define SECONDS		1.0
#define WIRE_SLOTS	(XE_PSN_WINDOW + 64)
#define FRAME_MAX	4608
#define IDLE_MOST	2.0	/* seconds without progress: the device stopped */

/* The frames one device put on the wire, until they are delivered. */
struct wire {
	unsigned int n;
	size_t len[WIRE_SLOTS];
	uint8_t frame[WIRE_SLOTS][FRAME_MAX];
};

struct dev {
	struct xe_dev xe;
	struct xe_lb lb;
	struct wire out;
	struct xe_tap tap;	/* its switch port (switch_write) */
	uint32_t cq_ci;		/* xe_lb_poll_cq()'s index */
};

static double clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void no_irq(struct xe_dev *xe, unsigned int vec)
{
	(void)xe;
	(void)vec;
}

static void queue_frame(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	struct wire *w = xe->wire_ctx;

	/* A full wire drops the frame, as a full socket would. */
	if (w->n < WIRE_SLOTS && len <= FRAME_MAX) {
		memcpy(w->frame[w->n], frame, len);
		w->len[w->n++] = len;
	}
}

/* Hand what from put on the wire to to; returns how many frames. */
static unsigned int deliver_wire(struct dev *from, struct dev *to)
{
	unsigned int i, n = from->out.n;

	for (i = 0; i < n; i++)
		xe_port_receive(&to->xe, from->out.frame[i], from->out.len[i]);
	from->out.n = 0;
	return n;
}

/* Wake to for from's frames on the switch, and hand to what waits in its rings. */
static unsigned int deliver_switch(struct dev *from, struct dev *to)
{
	uint64_t rx = to->xe.counters[XRNIC_CNT_RX_PACKETS];

	xe_tap_flush(&from->xe, &from->tap);
	/* The connection and its ring, once: the main loop polls sw.epfd for this. */
	if (to->tap.sw.in[0].ring.fd < 0)
		xe_switch_events(&to->tap.sw);
	while (xe_tap_switch_receive(&to->xe, &to->tap))
		;
	return to->xe.counters[XRNIC_CNT_RX_PACKETS] - rx;
}

/* A network namespace of this process's own, for its switch's ports.  0, or -1 (needs root). */
static int switch_namespace(void)
{
	return unshare(CLONE_NEWNET) ? -1 : 0;
}

/* From now on d's frames go to the switch of this process's name. */
static int switch_port(struct dev *d)
{
	char name[32];

	snprintf(name, sizeof(name), "bench-%d", (int)getpid());
	d->tap = (struct xe_tap){ .fd = -1 };
	xe_tap_attach(&d->xe, &d->tap);
	return xe_switch_open(&d->tap.sw, name, d->xe.id.mac);
}

static int dev_init(struct dev *d, uint8_t last_mac_byte)
{
	struct xe_qp *qp;
	int i;

	d->xe = (struct xe_dev){
		.bar2 = aligned_alloc(XRNIC_PAGE_SIZE, XRNIC_BAR2_SIZE), .raise_irq = no_irq,
		.log = fopen("/dev/null", "w"), .eth_xmit = queue_frame, .wire_ctx = &d->out,
		.id = { .mac = { 0x52, 0x54, 0x00, 0x00, 0x00, last_mac_byte }, .num_vectors = 4 },
		.mem = { .base = aligned_alloc(XE_LB_PAGE, RAM), .size = RAM },
	};
	if (!d->xe.bar2 || !d->xe.log || !d->xe.mem.base)
		return -1;
	xe_dev_init(&d->xe);
	d->xe.poll_linger_ns = 0;
	if (xe_lb_setup(&d->xe, &d->lb, 2 * HALF, 0))
		return -1;
	/*
	 * As perftest's QPs: 7 retries of a 67 ms ACK timeout (0 and none,
	 * the loopback's own, failed a WRITE whenever the host stopped this
	 * thread for longer between a frame and its answer).
	 */
	for (i = 0; i < 2; i++) {
		qp = xe_qp_get(&d->xe, d->lb.qpn[i]);
		qp->attr.timeout = 14;
		qp->attr.retry_cnt = 7;
		qp->req.retry_left = 7;
	}
	return 0;
}

/*
 * Post the next ring of 16 unsignaled WRITEs of size bytes on QP q of d,
 * from its first half to the second half of the target's MR (the WRITE
 * posted as first at the start of each half), and ring.
 */
static void post_ring(struct dev *d, int q, uint64_t *pi, uint64_t first, uint32_t size)
{
	struct xrnic_qp_db *db = (void *)(d->xe.mem.base + XE_LB_QP_DB(q));
	struct xrnic_sqe w = { .opcode = XRNIC_WR_RDMA_WRITE, .num_sge = 1 };
	unsigned int i;

	w.sge[0] = (struct xrnic_sge){ .length = htole32(size), .lkey = htole32(d->lb.key) };
	w.rkey = htole32(d->lb.key);
	for (i = 0; i < XE_LB_DEPTH; i++, (*pi)++) {
		uint64_t off = ((*pi - first) * size) % HALF;

		w.sge[0].addr = htole64(XE_LB_BUF + off);
		w.remote_addr = htole64(XE_LB_BUF + HALF + off);
		memcpy(d->xe.mem.base + XE_LB_QP(q) + (*pi % XE_LB_DEPTH) * XRNIC_SQE_SIZE, &w,
		       sizeof(w));
	}
	db->sq_pi = htole32(*pi);
	xe_doorbell(&d->xe, 1);
}

static bool ring_done(struct dev *d, int q, uint64_t pi)
{
	struct xrnic_qp_db *db = (void *)(d->xe.mem.base + XE_LB_QP_DB(q));

	return le32toh(db->sq_ci) == (uint32_t)pi;
}

/*
 * WRITEs of size bytes for SECONDS from a's QP q: to a's other QP (b
 * NULL), or to the QP of b it is connected to, the frames moved by
 * deliver; its errors say name.  Returns bytes a second, or -1; and,
 * unless cpu is NULL, the milliseconds of this thread per GB moved (both
 * devices' work).
 */
static double run_writes(const char *name, struct dev *a, int q, struct dev *b, uint32_t size,
			 unsigned int (*deliver)(struct dev *from, struct dev *to), double *cpu)
{
	struct xrnic_qp_db *db = (void *)(a->xe.mem.base + XE_LB_QP_DB(q));
	struct dev *to = b ? b : a;
	uint8_t *src = a->xe.mem.base + XE_LB_BUF, *dst = to->xe.mem.base + XE_LB_BUF + HALF;
	/* The QP may have run before: its ring goes on where it stopped. */
	uint64_t bytes = 0, pi = le32toh(db->sq_ci), first = pi;
	struct xrnic_cqe *cqe;
	double t0, t, c0;

	memset(src, 0x5a, HALF);
	memset(dst, 0, HALF);
	t0 = now();
	c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	do {
		post_ring(a, q, &pi, first, size);
		if (!b) {
			while (xe_dev_poll(&a->xe) == 0)
				;
		} else {
			double idle_since = 0;

			while (!ring_done(a, q, pi)) {
				bool busy = xe_dev_poll(&a->xe) == 0;

				busy |= deliver(a, b) > 0;
				busy |= xe_dev_poll(&b->xe) == 0;
				busy |= deliver(b, a) > 0;
				/* Waiting for a timer (pacing, a loss): a while at most. */
				if (busy)
					idle_since = 0;
				else if (!idle_since)
					idle_since = now();
				else if (now() - idle_since > IDLE_MOST)
					break;
			}
		}
		if (!ring_done(a, q, pi)) {
			fprintf(stderr, "bench_engine: %s: the device stopped before WQE %lu\n",
				name, (unsigned long)pi);
			return -1;
		}
		bytes += (uint64_t)XE_LB_DEPTH * size;
		t = now();
	} while (t - t0 < SECONDS);
	if (cpu)
		*cpu = (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e3 / (bytes / 1e9);
	/* What the WRITEs covered, from the region's start. */
	if (memcmp(src, dst, bytes < HALF ? bytes : HALF)) {
		fprintf(stderr, "bench_engine: %s: data differs\n", name);
		return -1;
	}
	/* The WRITEs are unsignaled: any completion is an error's. */
	cqe = xe_lb_poll_cq(&a->xe, &a->cq_ci);
	if (cqe) {
		fprintf(stderr, "bench_engine: %s: a WRITE completed with status %u\n", name,
			cqe->status);
		return -1;
	}
	return bytes / (t - t0);
}

static double run_memcpy(struct dev *d)
{
	uint8_t *src = d->xe.mem.base + XE_LB_BUF, *dst = src + HALF;
	uint64_t bytes = 0, pi = 0;
	double t0, t;

	t0 = now();
	do {
		uint64_t off = (pi++ * MSG) % HALF;

		memcpy(dst + off, src + off, MSG);
		bytes += MSG;
		t = now();
	} while (t - t0 < SECONDS);
	return bytes / (t - t0) / 1e6;
}

int main(void)
{
	static struct dev a, b;
	double lb, wire, msg, sw, sw_cpu, mc;

	/* Loopback on a's QP 0 to its QP 1; over the wire a's QP 1 to b's QP 0. */
	if (dev_init(&a, 1) || dev_init(&b, 2) ||
	    xe_lb_connect(&b.xe, &b.lb, b.lb.qpn[0], &a.xe, a.lb.qpn[1], false)) {
		fprintf(stderr, "bench_engine: setup failed\n");
		return 1;
	}
	lb = run_writes("engine_write", &a, 0, NULL, MSG, NULL, NULL);
	/* Now that a's QP 1 no longer answers its QP 0. */
	if (xe_lb_connect(&a.xe, &a.lb, a.lb.qpn[1], &b.xe, b.lb.qpn[0], false))
		return 1;
	wire = run_writes("wire_write", &a, 1, &b, MSG, deliver_wire, NULL);
	msg = run_writes("wire_write_msg", &a, 1, &b, SMALL, deliver_wire, NULL);
	if (switch_namespace() || switch_port(&a) || switch_port(&b)) {
		fprintf(stderr, "bench_engine: no switch of its own: %m (switch_write needs root)\n");
		return 1;
	}
	sw = run_writes("switch_write", &a, 1, &b, MSG, deliver_switch, &sw_cpu);
	mc = run_memcpy(&a);
	if (lb < 0 || wire < 0 || msg < 0 || sw < 0)
		return 1;
	printf("RESULT engine_write %u MB/s %.1f\n", MSG, lb / 1e6);
	printf("RESULT wire_write %u MB/s %.1f\n", MSG, wire / 1e6);
	printf("RESULT wire_write_msg %u us %.3f\n", SMALL, 1e6 * SMALL / msg);
	printf("RESULT switch_write %u MB/s %.1f\n", MSG, sw / 1e6);
	printf("RESULT switch_write_cpu %u ms/GB %.1f\n", MSG, sw_cpu);
	printf("RESULT memcpy %u MB/s %.1f\n", MSG, mc);
	xe_switch_close(&a.tap.sw);
	xe_switch_close(&b.tap.sw);
	xe_dev_fini(&a.xe);
	xe_dev_fini(&b.xe);
	return 0;
}
