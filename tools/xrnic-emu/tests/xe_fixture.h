/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the device-core unit tests: a device on a heap BAR2 and a
 * fake guest RAM file, and helpers to program it and run admin commands.
 */
#ifndef XE_FIXTURE_H
#define XE_FIXTURE_H

#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "xe.h"

#define RAM_SIZE	(1024 * 1024)
#define AQ_GPA		0x10000ull
#define ACQ_GPA		0x20000ull
#define AENQ_GPA	0x30000ull
#define ALL_IRQ		(XRNIC_AQ_CTL_ENABLE | XRNIC_AQ_CTL_ACQ_IRQ | XRNIC_AQ_CTL_AENQ_IRQ)

static inline void count_irq(struct xe_dev *xe, unsigned int vec)
{
	int *irqs = xe->irq_ctx;

	irqs[vec]++;
}

/* Map a temporary file of size bytes as guest RAM (sparse). */
static inline int map_ram(struct xe_guest_mem *gm, uint64_t size)
{
	char path[] = "/tmp/xe-ram-XXXXXX";
	int fd = mkstemp(path), err;

	if (fd < 0)
		return -1;
	err = ftruncate(fd, size);
	close(fd);
	if (!err)
		err = xe_gm_map(gm, path);
	unlink(path);
	return err;
}

FIXTURE(dev) {
	struct xe_dev xe;
	int irqs[XRNIC_MAX_VECTORS];
	char *logbuf;
	size_t loglen;
	uint32_t depth;		/* AQ depth the test enabled */
	uint32_t next;		/* index of the next command (test_objects) */
};

FIXTURE_SETUP(dev)
{
	self->xe.bar2 = aligned_alloc(XRNIC_PAGE_SIZE, XRNIC_BAR2_SIZE);
	ASSERT_NE(NULL, self->xe.bar2);
	ASSERT_EQ(0, map_ram(&self->xe.mem, RAM_SIZE));
	self->xe.log = open_memstream(&self->logbuf, &self->loglen);
	ASSERT_NE(NULL, self->xe.log);
	self->xe.raise_irq = count_irq;
	self->xe.irq_ctx = self->irqs;
	self->xe.id = (struct xe_identity){
		.guid = 0x0123456789abcdefull,
		.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
		.fw_version = XRNIC_FW_VERSION(1, 2, 3),
		.num_vectors = 4,
	};
	xe_dev_init(&self->xe);
}

FIXTURE_TEARDOWN(dev)
{
	xe_dev_fini(&self->xe);
	fclose(self->xe.log);
	free(self->logbuf);
	xe_gm_unmap(&self->xe.mem);
	free(self->xe.bar2);
}

static inline uint32_t rd(struct _test_data_dev *self, uint32_t off)
{
	return xe_reg_read(&self->xe, off);
}

static inline void wr(struct _test_data_dev *self, uint32_t off, uint32_t val)
{
	xe_reg_write(&self->xe, off, val);
}

static inline void wr64(struct _test_data_dev *self, uint32_t lo, uint64_t val)
{
	wr(self, lo, (uint32_t)val);
	wr(self, lo + 4, val >> 32);
}

static inline void reset(struct _test_data_dev *self)
{
	wr(self, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
}

/* Reset, zero the rings, program them and ring the admin doorbell. */
static inline void setup(struct _test_data_dev *self, uint64_t aq, uint64_t acq,
			 uint64_t aenq, uint32_t depth, uint32_t aenq_depth, uint32_t ctl)
{
	reset(self);
	memset(self->xe.mem.base, 0, RAM_SIZE);
	self->depth = depth;
	wr64(self, XRNIC_REG_AQ_BASE_LO, aq);
	wr64(self, XRNIC_REG_ACQ_BASE_LO, acq);
	wr64(self, XRNIC_REG_AENQ_BASE_LO, aenq);
	wr(self, XRNIC_REG_AQ_DEPTH, depth);
	wr(self, XRNIC_REG_AENQ_DEPTH, aenq_depth);
	wr(self, XRNIC_REG_AQ_CTL, ctl);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
}

static inline void setup_ok(struct _test_data_dev *self, uint32_t depth, uint32_t ctl)
{
	setup(self, AQ_GPA, ACQ_GPA, AENQ_GPA, depth, 4, ctl);
}

static inline struct xrnic_aq_entry *aq_slot(struct _test_data_dev *self, uint32_t idx)
{
	return (void *)(self->xe.mem.base + AQ_GPA + (idx & (self->depth - 1)) * 64);
}

static inline struct xrnic_acq_entry *acq_slot(struct _test_data_dev *self, uint32_t idx)
{
	return (void *)(self->xe.mem.base + ACQ_GPA + (idx & (self->depth - 1)) * 64);
}

static inline struct xrnic_aenq_entry *aenq_slot(struct _test_data_dev *self, uint32_t idx)
{
	return (void *)(self->xe.mem.base + AENQ_GPA + (idx & 3) * 16);
}

/* Write command idx with the right phase; returns it for tweaking first. */
static inline struct xrnic_aq_entry *put_cmd(struct _test_data_dev *self, uint32_t idx,
				      uint8_t opcode, uint16_t cmd_id)
{
	struct xrnic_aq_entry *e = aq_slot(self, idx);

	memset(e, 0, sizeof(*e));
	e->opcode = opcode;
	e->cmd_id = htole16(cmd_id);
	e->flags = xrnic_entry_phase(idx, self->depth);
	return e;
}

/* Ring the admin doorbell and return completion idx, checking its phase. */
static inline struct xrnic_acq_entry *run_one(struct _test_data_dev *self, uint32_t idx)
{
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	return acq_slot(self, idx);
}

static inline bool cpl_done(struct _test_data_dev *self, uint32_t idx)
{
	return (acq_slot(self, idx)->flags & XRNIC_ENTRY_PHASE) == xrnic_entry_phase(idx, self->depth);
}

static inline bool data_zero(const struct xrnic_acq_entry *c)
{
	size_t i;

	for (i = 0; i < sizeof(c->data); i++)
		if (c->data[i])
			return false;
	return true;
}

/* An enabled admin queue of 4 entries; admin() numbers commands from 0. */
static inline void start(struct _test_data_dev *self)
{
	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	self->next = 0;
}

/*
 * Run one command with a 56-byte body (or none), copy the answer out and
 * return the status; 0xff if no completion came, 0xfe if its cmd_id is wrong
 * or a failed command answered data.
 */
static inline uint8_t admin(struct _test_data_dev *self, uint8_t opcode, const void *body,
		     void *answer)
{
	uint32_t idx = self->next++;
	struct xrnic_aq_entry *e = put_cmd(self, idx, opcode, idx);
	struct xrnic_acq_entry *c;

	if (body)
		memcpy(e->data, body, sizeof(e->data));
	c = run_one(self, idx);
	if (!cpl_done(self, idx))
		return 0xff;
	if (answer)
		memcpy(answer, c->data, sizeof(c->data));
	if (le16toh(c->cmd_id) != (uint16_t)idx || (c->status && !data_zero(c)))
		return 0xfe;
	return c->status;
}

#endif /* XE_FIXTURE_H */
