/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest RAM as seen by the device: a shared mapping of QEMU's memory-backend
 * file, addressed by guest physical address through the q35 memory layout.
 */
#ifndef XE_GUEST_MEM_H
#define XE_GUEST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XE_GIB			(1ull << 30)
#define XE_MIB			(1ull << 20)
#define XE_4G			(4 * XE_GIB)

struct xe_guest_mem {
	uint8_t *base;
	uint64_t size;
};

/*
 * Translate [gpa, gpa + len) to an offset in a RAM file of ram_size bytes.
 * False when any byte of the range is not RAM.
 */
bool xe_gpa_to_off(uint64_t ram_size, uint64_t gpa, uint64_t len, uint64_t *off);

/* Host pointer to [gpa, gpa + len), or NULL when that is not all RAM. */
uint8_t *xe_gm_ptr(const struct xe_guest_mem *gm, uint64_t gpa, uint64_t len);

/* Map a RAM file shared; returns 0 or a negative errno. */
int xe_gm_map(struct xe_guest_mem *gm, const char *path);
void xe_gm_unmap(struct xe_guest_mem *gm);

#endif /* XE_GUEST_MEM_H */
