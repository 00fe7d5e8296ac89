/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data mover: buffers described as the protocol names them (local SGEs
 * under lkeys, one remote range under an rkey, or bytes the device holds,
 * such as inline data), checked against the MR table and copied between
 * guest RAM pages with one memcpy per contiguous piece.
 */
#ifndef XE_DMA_H
#define XE_DMA_H

#include <stdint.h>

struct xe_dev;

/* One piece of a buffer: len bytes at addr under key. */
struct xe_piece {
	uint32_t key;
	uint64_t addr;
	uint64_t len;
};

struct xe_buf {
	const struct xe_piece *piece;	/* NULL: host bytes */
	unsigned int npieces;
	const uint8_t *host;		/* with piece NULL */
	uint32_t pdn;
	uint32_t qpn;			/* remote: the QP it arrived on (type 2 windows) */
	uint32_t access;		/* XRNIC_ACCESS_* every piece needs; 0: read */
	uint64_t len;			/* total bytes */
};

/*
 * Check that every byte of buf is accessible: live keys of PD buf->pdn with
 * the rights in buf->access, within bounds; a remote range may name a
 * memory window instead of an MR.  Returns 0 or the negative errno
 * of xe_mr_translate().
 */
int xe_buf_check(const struct xe_dev *xe, const struct xe_buf *buf);

/*
 * Copy len bytes from src at src_off to dst at dst_off; both are checked
 * (xe_buf_check()) or translated on the way, piece by piece.  Returns 0,
 * -EFAULT if a range runs past its buffer, or the negative errno of
 * xe_mr_translate() when a piece is not accessible (an MR deregistered
 * between the packets of one message).
 */
int xe_buf_copy(const struct xe_dev *xe, const struct xe_buf *dst, uint64_t dst_off,
		const struct xe_buf *src, uint64_t src_off, uint64_t len);

/* Host pointer to the 8 aligned bytes at the start of a checked buf. */
uint64_t *xe_buf_word(const struct xe_dev *xe, const struct xe_buf *buf);

#endif /* XE_DMA_H */
