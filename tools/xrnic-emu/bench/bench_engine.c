// SPDX-License-Identifier: GPL-2.0
/*
 * The device model alone on the host, against memcpy in the same run:
 * 1 MiB RDMA WRITEs between two 16 MiB regions of fake guest RAM,
 *  - "engine_write": on one device (loopback: requester, responder and data
 *    mover, the payload copied once, guest RAM to guest RAM);
 *  - "wire_write": from one device to another joined by a wire (RoCE v2
 *    frames with their ICRC; the wire is a queue of frames in this process,
 *    which copies each once, as a socket would);
 *  - "memcpy" of the same sizes between the same regions.
 * Prints "RESULT name bytes MB/s value" lines.
 */
#include <stdlib.h>
#include <time.h>

#include "loopback.h"

#define RAM		(64u << 20)
#define HALF		(16u << 20)
#define MSG		(1u << 20)
#define SECONDS		1.0
#define WIRE_SLOTS	(XE_PSN_WINDOW + 64)
#define FRAME_MAX	4608

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
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
static unsigned int deliver(struct dev *from, struct dev *to)
{
	unsigned int i, n = from->out.n;

	for (i = 0; i < n; i++)
		xe_port_receive(&to->xe, from->out.frame[i], from->out.len[i]);
	from->out.n = 0;
	return n;
}

static int dev_init(struct dev *d, uint8_t last_mac_byte)
{
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
	return xe_lb_setup(&d->xe, &d->lb, 2 * HALF, 0) ? -1 : 0;
}

/*
 * Post the next ring of 16 unsignaled 1 MiB WRITEs on QP q of d, from
 * its first half to the second half of the target's MR, and ring.
 */
static void post_ring(struct dev *d, int q, uint64_t *pi)
{
	struct xrnic_qp_db *db = (void *)(d->xe.mem.base + XE_LB_QP_DB(q));
	struct xrnic_sqe w = { .opcode = XRNIC_WR_RDMA_WRITE, .num_sge = 1 };
	unsigned int i;

	w.sge[0] = (struct xrnic_sge){ .length = htole32(MSG), .lkey = htole32(d->lb.key) };
	w.rkey = htole32(d->lb.key);
	for (i = 0; i < XE_LB_DEPTH; i++, (*pi)++) {
		uint64_t off = (*pi * MSG) % HALF;

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
 * WRITEs for SECONDS from a's QP q: to a's other QP (b NULL), or to the
 * QP of b it is connected to.  Returns MB/s, or -1.
 */
static double run_writes(struct dev *a, int q, struct dev *b)
{
	struct dev *to = b ? b : a;
	uint8_t *src = a->xe.mem.base + XE_LB_BUF, *dst = to->xe.mem.base + XE_LB_BUF + HALF;
	uint64_t bytes = 0, pi = 0;
	double t0, t;

	memset(src, 0x5a, HALF);
	memset(dst, 0, HALF);
	t0 = now();
	do {
		post_ring(a, q, &pi);
		if (!b) {
			while (xe_dev_poll(&a->xe) == 0)
				;
		} else {
			while (!ring_done(a, q, pi)) {
				bool busy = xe_dev_poll(&a->xe) == 0;

				busy |= deliver(a, b) > 0;
				busy |= xe_dev_poll(&b->xe) == 0;
				busy |= deliver(b, a) > 0;
				if (!busy)
					break;	/* waiting for a timer: something was lost */
			}
		}
		if (!ring_done(a, q, pi)) {
			fprintf(stderr, "bench_engine: the device stopped before WQE %lu\n",
				(unsigned long)pi);
			return -1;
		}
		bytes += (uint64_t)XE_LB_DEPTH * MSG;
		t = now();
	} while (t - t0 < SECONDS);
	if (memcmp(src, dst, HALF)) {
		fprintf(stderr, "bench_engine: data differs\n");
		return -1;
	}
	return bytes / (t - t0) / 1e6;
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
	double lb, wire, mc;

	/* Loopback on a's QP 0 to its QP 1; over the wire a's QP 1 to b's QP 0. */
	if (dev_init(&a, 1) || dev_init(&b, 2) ||
	    xe_lb_connect(&b.xe, &b.lb, b.lb.qpn[0], &a.xe, a.lb.qpn[1], false)) {
		fprintf(stderr, "bench_engine: setup failed\n");
		return 1;
	}
	lb = run_writes(&a, 0, NULL);
	/* Now that a's QP 1 no longer answers its QP 0. */
	if (xe_lb_connect(&a.xe, &a.lb, a.lb.qpn[1], &b.xe, b.lb.qpn[0], false))
		return 1;
	wire = run_writes(&a, 1, &b);
	mc = run_memcpy(&a);
	if (lb < 0 || wire < 0)
		return 1;
	printf("RESULT engine_write %u MB/s %.1f\n", MSG, lb);
	printf("RESULT wire_write %u MB/s %.1f\n", MSG, wire);
	printf("RESULT memcpy %u MB/s %.1f\n", MSG, mc);
	xe_dev_fini(&a.xe);
	xe_dev_fini(&b.xe);
	return 0;
}
