// SPDX-License-Identifier: GPL-2.0
/*
 * Guest RAM mapping and q35 guest-physical address translation.
 *
 * q35 puts min(size, lowmem) bytes of RAM at 0 and the rest at 4 GiB, where
 * lowmem is 2 GiB when the RAM is at least 2816 MiB and 2.75 GiB otherwise.
 * The memory-backend file holds the low part first, then the high part.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_mem.h"

bool xe_gpa_to_off(uint64_t ram_size, uint64_t gpa, uint64_t len, uint64_t *off)
{
	uint64_t lowmem = ram_size >= 2816 * XE_MIB ? 2 * XE_GIB : 2816 * XE_MIB;
	uint64_t below = ram_size < lowmem ? ram_size : lowmem;
	uint64_t above = ram_size - below;

	if (gpa < below) {
		if (len > below - gpa)
			return false;
		*off = gpa;
		return true;
	}
	if (gpa >= XE_4G && gpa - XE_4G < above && len <= above - (gpa - XE_4G)) {
		*off = gpa - XE_4G + below;
		return true;
	}
	return false;
}

uint8_t *xe_gm_ptr(const struct xe_guest_mem *gm, uint64_t gpa, uint64_t len)
{
	uint64_t off;

	if (!xe_gpa_to_off(gm->size, gpa, len, &off))
		return NULL;
	return gm->base + off;
}

int xe_gm_map(struct xe_guest_mem *gm, const char *path)
{
	struct stat st;
	void *p;
	int fd, err = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
	} else if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
		err = -EINVAL;
	} else {
		p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			err = -errno;
		} else {
			gm->base = p;
			gm->size = st.st_size;
		}
	}
	close(fd);
	return err;
}

void xe_gm_unmap(struct xe_guest_mem *gm)
{
	munmap(gm->base, gm->size);
	gm->base = NULL;
	gm->size = 0;
}
