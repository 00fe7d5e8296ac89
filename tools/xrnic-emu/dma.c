// SPDX-License-Identifier: GPL-2.0
/* The data mover: see dma.h. */
#include <errno.h>

#include "xe.h"

/* A position in a buffer. */
struct xe_cursor {
	const struct xe_buf *buf;
	unsigned int piece;
	uint64_t off;			/* into the piece, or into host bytes */
};

/* Translate a piece's range: a window's rkey (remote requests) or an MR's key. */
static int xe_piece_translate(const struct xe_dev *xe, const struct xe_buf *b,
			      const struct xe_piece *pc, uint64_t addr, uint64_t len,
			      uint64_t *gpa, uint64_t *avail)
{
	int err;

	if (xe_mw_translate(xe, pc->key, b->pdn, b->qpn, addr, len, b->access, gpa, avail, &err))
		return err;
	return xe_mr_translate(xe, pc->key, b->pdn, addr, len, b->access, gpa, avail);
}

/*
 * The host address of the cursor's byte and how many bytes follow it
 * contiguously (at most want).  Returns 0 or a negative errno.
 */
static int xe_cursor_map(const struct xe_dev *xe, struct xe_cursor *c, uint64_t want,
			 uint8_t **p, uint64_t *n)
{
	const struct xe_buf *b = c->buf;
	const struct xe_piece *pc;
	uint64_t gpa, avail;
	int err;

	if (!b->piece) {
		*p = (uint8_t *)b->host + c->off;
		*n = want;
		return 0;
	}
	while (c->piece < b->npieces && c->off == b->piece[c->piece].len) {
		c->piece++;
		c->off = 0;
	}
	if (c->piece == b->npieces)
		return -EFAULT;
	pc = &b->piece[c->piece];
	if (want > pc->len - c->off)
		want = pc->len - c->off;
	err = xe_piece_translate(xe, b, pc, pc->addr + c->off, want, &gpa, &avail);
	if (err)
		return err;
	*p = xe_gm_ptr(&xe->mem, gpa, avail);
	if (!*p)
		return -EFAULT;
	*n = avail;
	return 0;
}

static void xe_cursor_advance(struct xe_cursor *c, uint64_t n)
{
	c->off += n;
}

/* A cursor at byte off of buf (past the end: xe_cursor_map() fails). */
static struct xe_cursor xe_cursor_at(const struct xe_buf *buf, uint64_t off)
{
	struct xe_cursor c = { .buf = buf };

	if (buf->piece)
		while (c.piece < buf->npieces && off >= buf->piece[c.piece].len)
			off -= buf->piece[c.piece++].len;
	c.off = off;
	return c;
}

int xe_buf_check(const struct xe_dev *xe, const struct xe_buf *buf)
{
	uint64_t gpa, avail;
	unsigned int i;
	int err;

	if (!buf->piece)
		return 0;
	for (i = 0; i < buf->npieces; i++) {
		if (!buf->piece[i].len)
			continue;
		/* Checks the whole piece: key, PD, rights and bounds. */
		err = xe_piece_translate(xe, buf, &buf->piece[i], buf->piece[i].addr,
					 buf->piece[i].len, &gpa, &avail);
		if (err)
			return err;
	}
	return 0;
}

int xe_buf_copy(const struct xe_dev *xe, const struct xe_buf *dst, uint64_t dst_off,
		const struct xe_buf *src, uint64_t src_off, uint64_t len)
{
	struct xe_cursor d = xe_cursor_at(dst, dst_off), s = xe_cursor_at(src, src_off);
	uint64_t dn, sn, n;
	uint8_t *dp, *sp;
	int err;

	if (dst_off > dst->len || len > dst->len - dst_off || src_off > src->len ||
	    len > src->len - src_off)
		return -EFAULT;
	while (len) {
		err = xe_cursor_map(xe, &d, len, &dp, &dn);
		if (!err)
			err = xe_cursor_map(xe, &s, len, &sp, &sn);
		if (err)
			return err;
		n = dn < sn ? dn : sn;
		memmove(dp, sp, n);
		xe_cursor_advance(&d, n);
		xe_cursor_advance(&s, n);
		len -= n;
	}
	return 0;
}

uint64_t *xe_buf_word(const struct xe_dev *xe, const struct xe_buf *buf)
{
	struct xe_cursor c = { .buf = buf };
	uint64_t n;
	uint8_t *p;

	if (xe_cursor_map(xe, &c, sizeof(uint64_t), &p, &n) || n < sizeof(uint64_t))
		return NULL;
	return (uint64_t *)p;
}
