// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection into the RoCE v2 frames the port sends (--faults): each
 * frame is dropped, corrupted (one bit after the Ethernet header, which
 * the receiver's ICRC check catches), held back to go after the next one
 * (reordered) or sent twice, each with its probability in percent, from a
 * seeded generator so that a failing run replays exactly.  Every fault is
 * counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xe.h"

/* xorshift64*: small, fast, and the same sequence for the same seed. */
static uint64_t xe_fault_next(struct xe_faults *f)
{
	f->state ^= f->state >> 12;
	f->state ^= f->state << 25;
	f->state ^= f->state >> 27;
	return f->state * 0x2545f4914f6cdd1dull;
}

/* True with probability pct percent (resolution 1e-4 %). */
static bool xe_fault_hit(struct xe_faults *f, double pct)
{
	return pct > 0 && (double)(xe_fault_next(f) % 1000000) < pct * 10000;
}

int xe_faults_parse(struct xe_faults *f, const char *spec)
{
	static const char *const keys[] = { "drop", "dup", "reorder", "corrupt" };
	double *rates[] = { &f->drop, &f->dup, &f->reorder, &f->corrupt };
	char *copy = strdup(spec), *item, *save = NULL, *end, *eq;
	unsigned long long seed = 1;
	int ret = -EINVAL;
	size_t i;

	memset(f, 0, sizeof(*f));
	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		eq = strchr(item, '=');
		if (!eq || eq == item || !eq[1])
			goto out;
		*eq++ = '\0';
		if (!strcmp(item, "seed")) {
			errno = 0;
			seed = strtoull(eq, &end, 10);
			if (errno || *end || *eq == '-')
				goto out;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(keys) && strcmp(item, keys[i]); i++)
			;
		if (i == ARRAY_SIZE(keys))
			goto out;
		*rates[i] = strtod(eq, &end);
		if (*end || !(*rates[i] >= 0 && *rates[i] <= 100))
			goto out;
	}
	if (!spec[0])
		goto out;
	/* xorshift needs a state other than 0. */
	f->state = seed ^ 0x9e3779b97f4a7c15ull;
	f->active = true;
	ret = 0;
out:
	free(copy);
	return ret;
}

static void xe_fault_put(struct xe_dev *xe, const uint8_t *frame, size_t len)
{
	if (xe->eth_xmit)
		xe->eth_xmit(xe, frame, len);
}

void xe_fault_xmit(struct xe_dev *xe, uint8_t *frame, size_t len)
{
	struct xe_faults *f = &xe->faults;
	uint64_t bit;

	if (!f->active) {
		xe_fault_put(xe, frame, len);
		return;
	}
	if (xe_fault_hit(f, f->drop)) {
		xe->counters[XRNIC_CNT_INJECTED_DROPS]++;
		return;
	}
	if (xe_fault_hit(f, f->corrupt) && len > XRNIC_ETH_HLEN) {
		bit = xe_fault_next(f) % ((len - XRNIC_ETH_HLEN) * 8);
		frame[XRNIC_ETH_HLEN + bit / 8] ^= 1u << (bit % 8);
		xe->counters[XRNIC_CNT_INJECTED_CORRUPTS]++;
	}
	if (!f->held_len && len <= sizeof(f->held) && xe_fault_hit(f, f->reorder)) {
		memcpy(f->held, frame, len);
		f->held_len = len;
		xe->counters[XRNIC_CNT_INJECTED_REORDERS]++;
		return;
	}
	xe_fault_put(xe, frame, len);
	if (xe_fault_hit(f, f->dup)) {
		xe_fault_put(xe, frame, len);
		xe->counters[XRNIC_CNT_INJECTED_DUPS]++;
	}
	if (f->held_len) {
		xe_fault_put(xe, f->held, f->held_len);
		f->held_len = 0;
	}
}
