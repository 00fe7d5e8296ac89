// SPDX-License-Identifier: GPL-2.0
/* The switch's ring between two device models: see swring.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "swring.h"

_Static_assert(sizeof(struct xe_swring_hdr) <= XE_SWRING_HDR, "the header fits its page");
_Static_assert(!(XE_SWRING_SIZE & (XE_SWRING_SIZE - 1)), "the ring's size is a power of 2");

#define XE_SWRING_MASK		(XE_SWRING_SIZE - 1)
#define XE_SWRING_SEALS		(F_SEAL_SHRINK | F_SEAL_GROW)

/* Map fd's header, and its data twice back to back with data_prot. */
static int xe_swring_map(struct xe_swring *r, int fd, int data_prot)
{
	uint8_t *base;
	void *hdr;
	int err;

	/* Reserve both halves at once, then put the data over each. */
	base = mmap(NULL, 2 * XE_SWRING_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	if (mmap(base, XE_SWRING_SIZE, data_prot, MAP_SHARED | MAP_FIXED, fd,
		 XE_SWRING_HDR) == MAP_FAILED ||
	    mmap(base + XE_SWRING_SIZE, XE_SWRING_SIZE, data_prot, MAP_SHARED | MAP_FIXED, fd,
		 XE_SWRING_HDR) == MAP_FAILED) {
		err = -errno;
		goto err_unmap_data;
	}
	hdr = mmap(NULL, XE_SWRING_HDR, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (hdr == MAP_FAILED) {
		err = -errno;
		goto err_unmap_data;
	}
	r->fd = fd;
	r->hdr = hdr;
	r->data = base;
	r->idx = 0;
	return 0;

err_unmap_data:
	munmap(base, 2 * XE_SWRING_SIZE);
	return err;
}

int xe_swring_create(struct xe_swring *r)
{
	int fd, err;

	r->fd = -1;
	fd = memfd_create("xrnic-switch-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	/* Sealed at its size: the consumer's mapping can never lose its pages. */
	if (ftruncate(fd, XE_SWRING_HDR + XE_SWRING_SIZE) ||
	    fcntl(fd, F_ADD_SEALS, XE_SWRING_SEALS | F_SEAL_SEAL)) {
		err = -errno;
		goto err_close;
	}
	err = xe_swring_map(r, fd, PROT_READ | PROT_WRITE);
	if (err)
		goto err_close;
	return 0;

err_close:
	close(fd);
	return err;
}

int xe_swring_attach(struct xe_swring *r, int fd)
{
	struct stat st;
	int seals, err;

	r->fd = -1;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & XE_SWRING_SEALS) != XE_SWRING_SEALS || fstat(fd, &st) ||
	    !S_ISREG(st.st_mode) || st.st_size != XE_SWRING_HDR + XE_SWRING_SIZE) {
		close(fd);
		return -EINVAL;
	}
	err = xe_swring_map(r, fd, PROT_READ);
	if (err)
		close(fd);
	return err;
}

void xe_swring_close(struct xe_swring *r)
{
	if (r->fd < 0)
		return;
	munmap(r->hdr, XE_SWRING_HDR);
	munmap(r->data, 2 * XE_SWRING_SIZE);
	close(r->fd);
	r->fd = -1;
}

int64_t xe_swring_queued(const struct xe_swring *r)
{
	uint64_t q = r->idx - __atomic_load_n(&r->hdr->cons, __ATOMIC_ACQUIRE);

	/* cons past prod, or further behind than the ring holds: broken. */
	return q > XE_SWRING_SIZE ? -EPROTO : (int64_t)q;
}

uint8_t *xe_swring_reserve(struct xe_swring *r, uint64_t queued, size_t len)
{
	if (!len || len > XE_SWRING_FRAME_MAX || queued + XE_SWRING_RECORD(len) > XE_SWRING_SIZE)
		return NULL;
	return r->data + (r->idx & XE_SWRING_MASK) + sizeof(uint32_t);
}

uint8_t *xe_swring_commit(struct xe_swring *r, size_t len)
{
	uint8_t *p = r->data + (r->idx & XE_SWRING_MASK);
	uint32_t n = len;

	memcpy(p, &n, sizeof(n));
	r->idx += XE_SWRING_RECORD(len);
	return p + sizeof(n);
}

void xe_swring_publish(struct xe_swring *r)
{
	__atomic_store_n(&r->hdr->prod, r->idx, __ATOMIC_RELEASE);
}

bool xe_swring_sleeping(const struct xe_swring *r)
{
	/* prod's store before sleeping's load (xe_swring_sleep() the other way round). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&r->hdr->sleeping, __ATOMIC_RELAXED);
}

int xe_swring_peek(struct xe_swring *r, const uint8_t **frame)
{
	uint64_t avail = __atomic_load_n(&r->hdr->prod, __ATOMIC_ACQUIRE) - r->idx;
	const uint8_t *p = r->data + (r->idx & XE_SWRING_MASK);
	uint32_t len;

	if (!avail)
		return 0;
	if (avail > XE_SWRING_SIZE)
		return -EPROTO;
	/* Read once: the producer may change the ring's bytes at any time. */
	memcpy(&len, p, sizeof(len));
	if (!len || len > XE_SWRING_FRAME_MAX || XE_SWRING_RECORD(len) > avail)
		return -EPROTO;
	*frame = p + sizeof(len);
	return len;
}

void xe_swring_done(struct xe_swring *r, size_t len)
{
	r->idx += XE_SWRING_RECORD(len);
	__atomic_store_n(&r->hdr->cons, r->idx, __ATOMIC_RELEASE);
}

bool xe_swring_sleep(struct xe_swring *r)
{
	__atomic_store_n(&r->hdr->sleeping, 1, __ATOMIC_RELAXED);
	/* sleeping's store before prod's load (xe_swring_sleeping() the other way round). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->hdr->prod, __ATOMIC_ACQUIRE) == r->idx)
		return true;
	xe_swring_wake(r);
	return false;
}

void xe_swring_wake(struct xe_swring *r)
{
	__atomic_store_n(&r->hdr->sleeping, 0, __ATOMIC_RELAXED);
}
