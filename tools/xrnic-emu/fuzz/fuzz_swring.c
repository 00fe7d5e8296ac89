// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the switch's ring (swring.c) as its consumer reads
 * it: what another device model wrote is hostile.  Input: a little-endian
 * u32 where the consumer stands in the ring, a little-endian u32 how far
 * ahead of it prod is (any value, the ring's size and beyond), then the
 * bytes written at the consumer's place (records, each a length and a
 * frame, as a producer would, or anything).  The target takes every frame
 * until the ring is empty or broken, and checks, besides the sanitizers,
 * that each frame's length is legal, that the consumer never passes prod,
 * and that the frame it points at is what was written there.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swring.h"

static struct xe_swring fuzz_prod, fuzz_cons;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *frame;
	uint32_t start, ahead;
	uint64_t prod;
	int n;

	if (fuzz_prod.hdr == NULL &&
	    (xe_swring_create(&fuzz_prod) || xe_swring_attach(&fuzz_cons, dup(fuzz_prod.fd))))
		abort();
	if (size < 8)
		return 0;
	memcpy(&start, data, 4);
	memcpy(&ahead, data + 4, 4);
	data += 8;
	size -= 8;
	if (size > XE_SWRING_SIZE)
		size = XE_SWRING_SIZE;
	/* The consumer where the input says (on a record's boundary), the bytes after it. */
	fuzz_cons.idx = (uint64_t)(start & (XE_SWRING_SIZE - 1) & ~7u) + XE_SWRING_SIZE;
	memcpy(fuzz_prod.data + (fuzz_cons.idx & (XE_SWRING_SIZE - 1)), data, size);
	prod = fuzz_cons.idx + ahead;
	__atomic_store_n(&fuzz_prod.hdr->prod, prod, __ATOMIC_RELEASE);
	for (;;) {
		uint64_t at = fuzz_cons.idx;

		n = xe_swring_peek(&fuzz_cons, &frame);
		if (n <= 0)
			break;
		if ((unsigned int)n > XE_SWRING_FRAME_MAX || fuzz_cons.idx != at ||
		    memcmp(frame, fuzz_prod.data + (at & (XE_SWRING_SIZE - 1)) + 4, n))
			abort();
		xe_swring_done(&fuzz_cons, n);
		if (fuzz_cons.idx > prod || fuzz_cons.idx != at + XE_SWRING_RECORD(n))
			abort();
	}
	/* Empty means at prod; broken leaves the consumer where it was. */
	if (n == 0 && fuzz_cons.idx != prod)
		abort();
	return 0;
}
