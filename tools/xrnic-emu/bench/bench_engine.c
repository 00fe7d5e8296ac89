// SPDX-License-Identifier: GPL-2.0
/*
 * The engine alone on the host: 1 MiB RDMA WRITEs between two regions of a
 * fake guest RAM, through the requester, responder and data mover of one
 * device (loopback), against memcpy of the same sizes between the same
 * regions, in the same run.  Prints "RESULT name bytes MB/s value" lines.
 */
#include <stdlib.h>
#include <time.h>

#include "loopback.h"

#define RAM		(64u << 20)
#define HALF		(16u << 20)
#define MSG		(1u << 20)
#define SECONDS		1.0

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

int main(void)
{
	static uint8_t bar2[XRNIC_BAR2_SIZE] __attribute__((aligned(4096)));
	struct xe_dev xe = { .bar2 = bar2, .raise_irq = no_irq, .id.num_vectors = 4 };
	struct xrnic_qp_db *db;
	struct xrnic_sqe w = { .opcode = XRNIC_WR_RDMA_WRITE, .num_sge = 1 };
	uint64_t bytes = 0, pi = 0;
	struct xe_lb lb;
	uint8_t *src, *dst;
	double t0, t;

	xe.log = fopen("/dev/null", "w");
	xe.mem = (struct xe_guest_mem){ .base = aligned_alloc(XE_LB_PAGE, RAM), .size = RAM };
	if (!xe.log || !xe.mem.base)
		return 1;
	xe_dev_init(&xe);
	if (xe_lb_setup(&xe, &lb, 2 * HALF, 0)) {
		fprintf(stderr, "bench_engine: setup failed\n");
		return 1;
	}
	src = xe.mem.base + XE_LB_BUF;
	dst = src + HALF;
	memset(src, 0x5a, HALF);
	memset(dst, 0, HALF);
	db = (struct xrnic_qp_db *)(xe.mem.base + XE_LB_QP_DB(0));
	w.sge[0] = (struct xrnic_sge){ .length = htole32(MSG), .lkey = htole32(lb.key) };
	w.rkey = htole32(lb.key);

	t0 = now();
	do {	/* 16 unsignaled WRITEs (one ring) per doorbell, like a busy sender */
		int i;

		for (i = 0; i < XE_LB_DEPTH; i++, pi++) {
			uint64_t off = (pi * MSG) % HALF;

			w.sge[0].addr = htole64(XE_LB_BUF + off);
			w.remote_addr = htole64(XE_LB_BUF + HALF + off);
			memcpy(xe.mem.base + XE_LB_QP(0) + (pi % XE_LB_DEPTH) * XRNIC_SQE_SIZE, &w,
			       sizeof(w));
		}
		db->sq_pi = htole32(pi);
		xe_doorbell(&xe, 1);
		while (xe_dev_poll(&xe) == 0)
			;
		if (le32toh(db->sq_ci) != (uint32_t)pi) {
			fprintf(stderr, "bench_engine: the device stopped at %u of %lu\n",
				le32toh(db->sq_ci), (unsigned long)pi);
			return 1;
		}
		bytes += (uint64_t)XE_LB_DEPTH * MSG;
		t = now();
	} while (t - t0 < SECONDS);
	if (memcmp(src, dst, HALF)) {
		fprintf(stderr, "bench_engine: data differs\n");
		return 1;
	}
	printf("RESULT engine_write %u MB/s %.1f\n", MSG, bytes / (t - t0) / 1e6);

	bytes = 0;
	pi = 0;
	t0 = now();
	do {
		uint64_t off = (pi++ * MSG) % HALF;

		memcpy(dst + off, src + off, MSG);
		bytes += MSG;
		t = now();
	} while (t - t0 < SECONDS);
	printf("RESULT memcpy %u MB/s %.1f\n", MSG, bytes / (t - t0) / 1e6);
	xe_dev_fini(&xe);
	return 0;
}
