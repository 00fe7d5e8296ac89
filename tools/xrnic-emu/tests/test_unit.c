// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the device core on a fake guest RAM file and a heap BAR2:
 * registers, reset, admin queue enable, commands, completions and events.
 */
#include "xe_fixture.h"

TEST_F(dev, init_fills_identity_registers)
{
	EXPECT_EQ(XRNIC_SIGNATURE, rd(self, XRNIC_REG_SIGNATURE));
	EXPECT_EQ(XRNIC_VERSION(1, 0), rd(self, XRNIC_REG_VERSION));
	EXPECT_EQ(XRNIC_CAP_AENQ, rd(self, XRNIC_REG_CAPS));
	EXPECT_EQ(48, rd(self, XRNIC_REG_DMA_WIDTH));
	EXPECT_EQ(4, rd(self, XRNIC_REG_NUM_VECTORS));
	EXPECT_EQ(1000, rd(self, XRNIC_REG_RESET_TIMEOUT_MS));
	EXPECT_EQ(256, rd(self, XRNIC_REG_MAX_AQ_DEPTH));
	EXPECT_EQ(0x01020003, rd(self, XRNIC_REG_FW_VERSION));
	EXPECT_EQ(0x89abcdef, rd(self, XRNIC_REG_NODE_GUID_LO));
	EXPECT_EQ(0x01234567, rd(self, XRNIC_REG_NODE_GUID_HI));
	EXPECT_EQ(0x12005452, rd(self, XRNIC_REG_MAC_LO));
	EXPECT_EQ(0x5634, rd(self, XRNIC_REG_MAC_HI));
	EXPECT_EQ(XRNIC_DEV_STS_READY, rd(self, XRNIC_REG_DEV_STS));
}

TEST_F(dev, reset_clears_state_sets_ready_and_clears_reset_bit)
{
	static const uint32_t zeroed[] = {
		XRNIC_REG_FATAL_REASON, XRNIC_REG_AQ_BASE_LO, XRNIC_REG_AQ_BASE_HI,
		XRNIC_REG_ACQ_BASE_LO, XRNIC_REG_ACQ_BASE_HI, XRNIC_REG_AENQ_BASE_LO,
		XRNIC_REG_AENQ_BASE_HI, XRNIC_REG_AQ_DEPTH, XRNIC_REG_AENQ_DEPTH,
		XRNIC_REG_AQ_CTL, XRNIC_REG_AENQ_CI, XRNIC_REG_AENQ_DROPPED,
	};
	size_t i;

	setup_ok(self, 4, ALL_IRQ);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 1);
	run_one(self, 0);
	wr(self, XRNIC_REG_AENQ_CI, 1);
	wr(self, XRNIC_REG_AQ_BASE_HI, 7);
	ASSERT_EQ(XRNIC_DEV_STS_READY | XRNIC_DEV_STS_AQ_ENABLED, rd(self, XRNIC_REG_DEV_STS));

	reset(self);
	EXPECT_EQ(0, rd(self, XRNIC_REG_DEV_CTL));
	EXPECT_EQ(XRNIC_DEV_STS_READY, rd(self, XRNIC_REG_DEV_STS));
	for (i = 0; i < ARRAY_SIZE(zeroed); i++)
		EXPECT_EQ(0, rd(self, zeroed[i])) TH_LOG("register 0x%x", zeroed[i]);
	EXPECT_FALSE(self->xe.aq_enabled);
	EXPECT_EQ(0, self->xe.aq_ci);
	EXPECT_EQ(0, self->xe.acq_pi);
	EXPECT_EQ(0, self->xe.aenq_pi);
	EXPECT_NE(NULL, strstr(self->logbuf, "reset"));

	/* Indexes restart at 0: the first command after re-enable is slot 0. */
	setup_ok(self, 4, ALL_IRQ);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 9);
	EXPECT_EQ(9, le16toh(run_one(self, 0)->cmd_id));
	EXPECT_TRUE(cpl_done(self, 0));
}

TEST_F(dev, query_device_answers_the_device_limits)
{
	struct xrnic_resp_query_device *r;
	struct xrnic_acq_entry *c;

	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 0xbeef);
	c = run_one(self, 0);
	ASSERT_TRUE(cpl_done(self, 0));
	EXPECT_EQ(0xbeef, le16toh(c->cmd_id));
	EXPECT_EQ(XRNIC_STATUS_OK, c->status);
	EXPECT_EQ(0, c->reserved);
	r = &c->query_device;
	EXPECT_EQ(1024, le32toh(r->max_qp));
	EXPECT_EQ(4096, le32toh(r->max_qp_wr));
	EXPECT_EQ(XRNIC_MAX_SGE, le16toh(r->max_sge));
	EXPECT_EQ(6, XRNIC_MAX_SGE);
	EXPECT_EQ(1024, le32toh(r->max_cq));
	EXPECT_EQ(65536, le32toh(r->max_cqe));
	EXPECT_EQ(4096, le32toh(r->max_mr));
	EXPECT_EQ(1024, le32toh(r->max_pd));
	EXPECT_EQ(0x1af4, le32toh(r->vendor_id));
	EXPECT_EQ(0x1110, le32toh(r->vendor_part_id));
	EXPECT_EQ(1, le32toh(r->hw_ver));
	EXPECT_EQ(1ull << 30, le64toh(r->max_mr_size));
	EXPECT_EQ(0x1000, le64toh(r->page_size_cap));
	EXPECT_EQ(128, le16toh(r->max_qp_rd_atom));
}

TEST_F(dev, query_port_1_answers_the_active_port)
{
	struct xrnic_resp_query_port *r;
	struct xrnic_acq_entry *c;

	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_PORT, 7)->query_port.port_num = 1;
	c = run_one(self, 0);
	ASSERT_TRUE(cpl_done(self, 0));
	EXPECT_EQ(7, le16toh(c->cmd_id));
	EXPECT_EQ(XRNIC_STATUS_OK, c->status);
	r = &c->query_port;
	EXPECT_EQ(XRNIC_PORT_ACTIVE, r->state);
	EXPECT_EQ(XRNIC_PORT_PHYS_LINK_UP, r->phys_state);
	EXPECT_EQ(5, r->active_mtu);
	EXPECT_EQ(5, r->max_mtu);
	EXPECT_EQ(4, r->active_speed);
	EXPECT_EQ(1, r->active_width);
	EXPECT_EQ(16, le16toh(r->gid_tbl_len));
	EXPECT_EQ(1u << 31, le32toh(r->max_msg_sz));
	EXPECT_EQ(0x00010000, le32toh(r->port_cap_flags));
}

TEST_F(dev, query_port_0_and_2_are_bad_param)
{
	struct xrnic_acq_entry *c;

	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_PORT, 1)->query_port.port_num = 0;
	put_cmd(self, 1, XRNIC_ADMIN_QUERY_PORT, 2)->query_port.port_num = 2;
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	for (int i = 0; i < 2; i++) {
		c = acq_slot(self, i);
		ASSERT_TRUE(cpl_done(self, i));
		EXPECT_EQ(i + 1, le16toh(c->cmd_id));
		EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, c->status);
		EXPECT_TRUE(data_zero(c));
	}
}

TEST_F(dev, unknown_opcode_is_bad_opcode)
{
	struct xrnic_acq_entry *c;

	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	put_cmd(self, 0, 0, 1);
	put_cmd(self, 1, 0xff, 2);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	for (int i = 0; i < 2; i++) {
		c = acq_slot(self, i);
		ASSERT_TRUE(cpl_done(self, i));
		EXPECT_EQ(i + 1, le16toh(c->cmd_id));
		EXPECT_EQ(XRNIC_STATUS_BAD_OPCODE, c->status);
		EXPECT_TRUE(data_zero(c));
	}
	EXPECT_NE(NULL, strstr(self->logbuf, "cmd_id 2 opcode 255: unknown opcode"));
}

TEST_F(dev, reserved_field_data_or_unknown_flag_is_malformed)
{
	struct xrnic_acq_entry *c;
	int i;

	setup_ok(self, 8, XRNIC_AQ_CTL_ENABLE);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 1)->reserved = htole32(1);
	put_cmd(self, 1, XRNIC_ADMIN_QUERY_DEVICE, 2)->data[55] = 1;
	put_cmd(self, 2, XRNIC_ADMIN_QUERY_DEVICE, 3)->flags |= 0x80;
	put_cmd(self, 3, XRNIC_ADMIN_QUERY_PORT, 4)->query_port.port_num = 1;
	aq_slot(self, 3)->query_port.reserved[0] = 1;
	put_cmd(self, 4, 0x42, 5)->flags |= 2;	/* flags are checked first */
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	for (i = 0; i < 5; i++) {
		c = acq_slot(self, i);
		ASSERT_TRUE(cpl_done(self, i));
		EXPECT_EQ(i + 1, le16toh(c->cmd_id));
		EXPECT_EQ(XRNIC_STATUS_MALFORMED, c->status) TH_LOG("command %d", i);
		EXPECT_TRUE(data_zero(c));
	}
	EXPECT_FALSE(cpl_done(self, 5));
}

TEST_F(dev, completions_carry_cmd_id_and_phase_over_ring_wraps)
{
	uint32_t idx = 0;
	int round, n;

	setup_ok(self, 2, XRNIC_AQ_CTL_ENABLE);
	/* One command per doorbell, then two per doorbell: five laps. */
	for (round = 0; round < 7; round++) {
		for (n = 0; n <= round % 2; n++)
			put_cmd(self, idx + n, XRNIC_ADMIN_QUERY_DEVICE, 100 + idx + n);
		xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
		for (n = 0; n <= round % 2; n++, idx++) {
			ASSERT_TRUE(cpl_done(self, idx)) TH_LOG("index %u", idx);
			EXPECT_EQ(xrnic_entry_phase(idx, 2), acq_slot(self, idx)->flags);
			EXPECT_EQ(100 + idx, le16toh(acq_slot(self, idx)->cmd_id));
			EXPECT_EQ(XRNIC_STATUS_OK, acq_slot(self, idx)->status);
		}
		EXPECT_FALSE(cpl_done(self, idx));
	}
	EXPECT_EQ(10, idx);
	EXPECT_EQ(10, self->xe.aq_ci);
}

TEST_F(dev, processing_stops_at_an_entry_with_stale_phase)
{
	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 1);
	put_cmd(self, 1, XRNIC_ADMIN_QUERY_DEVICE, 2)->flags = 0;	/* not yet posted */
	put_cmd(self, 2, XRNIC_ADMIN_QUERY_DEVICE, 3);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_TRUE(cpl_done(self, 0));
	EXPECT_FALSE(cpl_done(self, 1));
	EXPECT_FALSE(cpl_done(self, 2));
	EXPECT_EQ(1, self->xe.aq_ci);

	aq_slot(self, 1)->flags = 1;
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_EQ(2, le16toh(acq_slot(self, 1)->cmd_id));
	EXPECT_EQ(3, le16toh(acq_slot(self, 2)->cmd_id));
	EXPECT_TRUE(cpl_done(self, 2));
	EXPECT_EQ(3, self->xe.aq_ci);
}

TEST_F(dev, one_doorbell_consumes_at_most_one_lap)
{
	int i;

	/*
	 * AQ and ACQ overlap: each completion writes its cmd_id's high byte
	 * (0) over the AQ flags, which is the valid phase for the second lap,
	 * and so on forever for a device that does not bound its work.
	 */
	setup(self, AQ_GPA, AQ_GPA, AENQ_GPA, 4, 4, XRNIC_AQ_CTL_ENABLE);
	for (i = 0; i < 4; i++)
		put_cmd(self, i, XRNIC_ADMIN_QUERY_DEVICE, 1);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_EQ(4, self->xe.aq_ci);
	EXPECT_EQ(0, aq_slot(self, 0)->flags);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_EQ(8, self->xe.aq_ci);
}

TEST_F(dev, bad_ring_alignment_or_depth_is_fatal_bad_aq_config)
{
	static const struct {
		uint64_t aq, acq, aenq;
		uint32_t depth, aenq_depth;
	} bad[] = {
		{ AQ_GPA + 64, ACQ_GPA, AENQ_GPA, 4, 4 },
		{ AQ_GPA, ACQ_GPA + 0x800, AENQ_GPA, 4, 4 },
		{ AQ_GPA, ACQ_GPA, AENQ_GPA + 16, 4, 4 },
		{ 0, ACQ_GPA, AENQ_GPA, 4, 4 },
		{ AQ_GPA, ACQ_GPA, AENQ_GPA, 3, 4 },
		{ AQ_GPA, ACQ_GPA, AENQ_GPA, 1, 4 },
		{ AQ_GPA, ACQ_GPA, AENQ_GPA, 512, 4 },
		{ AQ_GPA, ACQ_GPA, AENQ_GPA, 4, 6 },
		{ AQ_GPA, ACQ_GPA, AENQ_GPA, 4, 512 },
		{ AQ_GPA, ACQ_GPA, AENQ_GPA, 4, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		setup(self, bad[i].aq, bad[i].acq, bad[i].aenq, bad[i].depth,
		      bad[i].aenq_depth, ALL_IRQ);
		EXPECT_EQ(XRNIC_DEV_STS_READY | XRNIC_DEV_STS_FATAL, rd(self, XRNIC_REG_DEV_STS))
			TH_LOG("case %zu", i);
		EXPECT_EQ(XRNIC_FATAL_BAD_AQ_CONFIG, rd(self, XRNIC_REG_FATAL_REASON));
		EXPECT_FALSE(self->xe.aq_enabled);
	}
}

TEST_F(dev, ring_outside_guest_ram_is_fatal_dma)
{
	static const uint64_t gpa[] = {
		RAM_SIZE, RAM_SIZE - 0x1000, 4ull << 30, 1ull << 47, 0xfffffffffffff000ull,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpa); i++) {
		/* 8 x 64 bytes at RAM_SIZE - 0x1000 fits; 256 x 64 does not. */
		setup(self, AQ_GPA, gpa[i], AENQ_GPA, 256, 4, ALL_IRQ);
		EXPECT_EQ(XRNIC_DEV_STS_READY | XRNIC_DEV_STS_FATAL, rd(self, XRNIC_REG_DEV_STS))
			TH_LOG("gpa 0x%jx", (uintmax_t)gpa[i]);
		EXPECT_EQ(XRNIC_FATAL_DMA, rd(self, XRNIC_REG_FATAL_REASON));
	}
	setup(self, RAM_SIZE - 0x1000, ACQ_GPA, AENQ_GPA, 256, 4, ALL_IRQ);
	EXPECT_EQ(XRNIC_FATAL_DMA, rd(self, XRNIC_REG_FATAL_REASON));
	setup(self, AQ_GPA, ACQ_GPA, RAM_SIZE, 4, 4, ALL_IRQ);
	EXPECT_EQ(XRNIC_FATAL_DMA, rd(self, XRNIC_REG_FATAL_REASON));
	/* Right at the end still fits. */
	setup(self, AQ_GPA, ACQ_GPA, RAM_SIZE - 0x1000, 4, 256, XRNIC_AQ_CTL_ENABLE);
	EXPECT_TRUE(self->xe.aq_enabled);
	EXPECT_EQ(0, self->irqs[0]);
	EXPECT_NE(NULL, strstr(self->logbuf, "fatal"));
}

TEST_F(dev, commands_are_ignored_while_fatal_and_reset_recovers)
{
	setup(self, AQ_GPA + 1, ACQ_GPA, AENQ_GPA, 4, 4, ALL_IRQ);
	ASSERT_EQ(XRNIC_FATAL_BAD_AQ_CONFIG, rd(self, XRNIC_REG_FATAL_REASON));

	/* Fixing the registers does not help, nor does the guest clearing FATAL. */
	wr64(self, XRNIC_REG_AQ_BASE_LO, AQ_GPA);
	wr(self, XRNIC_REG_DEV_STS, XRNIC_DEV_STS_READY);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 1);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_FALSE(cpl_done(self, 0));
	EXPECT_FALSE(self->xe.aq_enabled);
	EXPECT_EQ(0, self->irqs[0]);
	EXPECT_EQ(XRNIC_DEV_STS_READY | XRNIC_DEV_STS_FATAL, self->xe.sts);

	setup_ok(self, 4, ALL_IRQ);
	EXPECT_EQ(XRNIC_DEV_STS_READY | XRNIC_DEV_STS_AQ_ENABLED, rd(self, XRNIC_REG_DEV_STS));
	EXPECT_EQ(0, rd(self, XRNIC_REG_FATAL_REASON));
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 1);
	EXPECT_EQ(XRNIC_STATUS_OK, run_one(self, 0)->status);
	EXPECT_TRUE(cpl_done(self, 0));
}

TEST_F(dev, enable_posts_port_active_event_with_phase)
{
	struct xrnic_aenq_entry *ev = aenq_slot(self, 0);

	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	EXPECT_EQ(XRNIC_DEV_STS_READY | XRNIC_DEV_STS_AQ_ENABLED, rd(self, XRNIC_REG_DEV_STS));
	EXPECT_EQ(XRNIC_EVENT_PORT_ACTIVE, le16toh(ev->event));
	EXPECT_EQ(1, le32toh(ev->param));
	EXPECT_EQ(XRNIC_ENTRY_PHASE, ev->flags);
	EXPECT_EQ(0, ev->reserved);
	EXPECT_EQ(0, le64toh(ev->data));
	EXPECT_EQ(0, aenq_slot(self, 1)->flags);
	EXPECT_EQ(0, self->irqs[0]);		/* no AENQ_IRQ */
	EXPECT_NE(NULL, strstr(self->logbuf, "admin queue enabled"));

	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE | XRNIC_AQ_CTL_AENQ_IRQ);
	EXPECT_EQ(XRNIC_ENTRY_PHASE, ev->flags);
	EXPECT_EQ(1, self->irqs[0]);
}

TEST_F(dev, link_changes_are_events_and_show_in_query_port)
{
	struct xrnic_acq_entry *c;

	setup_ok(self, 4, ALL_IRQ);
	self->irqs[0] = 0;
	xe_port_set_link(&self->xe, false);
	EXPECT_EQ(XRNIC_EVENT_PORT_DOWN, le16toh(aenq_slot(self, 1)->event));
	EXPECT_EQ(1, le32toh(aenq_slot(self, 1)->param));
	EXPECT_EQ(1, self->irqs[0]);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_PORT, 1)->query_port.port_num = 1;
	c = run_one(self, 0);
	EXPECT_EQ(XRNIC_PORT_DOWN, c->query_port.state);
	EXPECT_EQ(XRNIC_PORT_PHYS_POLLING, c->query_port.phys_state);
	/* No event for a link that is already down. */
	xe_port_set_link(&self->xe, false);
	EXPECT_EQ(0, aenq_slot(self, 2)->flags);
	/* A reset does not bring the link up; enabling reports it down. */
	setup_ok(self, 4, ALL_IRQ);
	EXPECT_EQ(XRNIC_EVENT_PORT_DOWN, le16toh(aenq_slot(self, 0)->event));
	xe_port_set_link(&self->xe, true);
	EXPECT_EQ(XRNIC_EVENT_PORT_ACTIVE, le16toh(aenq_slot(self, 1)->event));
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_PORT, 2)->query_port.port_num = 1;
	c = run_one(self, 0);
	EXPECT_EQ(XRNIC_PORT_ACTIVE, c->query_port.state);
	EXPECT_NE(NULL, strstr(self->logbuf, "port 1 link down"));
}

TEST_F(dev, full_aenq_drops_events_and_counts_them)
{
	setup(self, AQ_GPA, ACQ_GPA, AENQ_GPA, 4, 2, ALL_IRQ);
	ASSERT_EQ(1, self->irqs[0]);			/* PORT_ACTIVE */
	xe_aenq_post(&self->xe, XRNIC_EVENT_PORT_DOWN, 1, 0);
	EXPECT_EQ(2, self->irqs[0]);
	xe_aenq_post(&self->xe, XRNIC_EVENT_PORT_DOWN, 1, 0);
	xe_aenq_post(&self->xe, XRNIC_EVENT_PORT_DOWN, 1, 0);
	EXPECT_EQ(2, self->irqs[0]);
	EXPECT_EQ(2, rd(self, XRNIC_REG_AENQ_DROPPED));
	EXPECT_EQ(XRNIC_EVENT_PORT_ACTIVE, le16toh(aenq_slot(self, 0)->event));

	/* The driver consumes one; the next event lands in slot 0, phase 0. */
	wr(self, XRNIC_REG_AENQ_CI, 1);
	xe_aenq_post(&self->xe, XRNIC_EVENT_FATAL, 5, 0x1122334455667788ull);
	EXPECT_EQ(XRNIC_EVENT_FATAL, le16toh(aenq_slot(self, 0)->event));
	EXPECT_EQ(5, le32toh(aenq_slot(self, 0)->param));
	EXPECT_EQ(0x1122334455667788ull, le64toh(aenq_slot(self, 0)->data));
	EXPECT_EQ(0, aenq_slot(self, 0)->flags);
	EXPECT_EQ(2, rd(self, XRNIC_REG_AENQ_DROPPED));
	EXPECT_EQ(3, self->irqs[0]);

	/* A consumer index ahead of the producer reads as full. */
	wr(self, XRNIC_REG_AENQ_CI, 100);
	xe_aenq_post(&self->xe, XRNIC_EVENT_PORT_DOWN, 1, 0);
	EXPECT_EQ(3, rd(self, XRNIC_REG_AENQ_DROPPED));
}

TEST_F(dev, acq_irq_bit_controls_vector_0)
{
	int i;

	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	for (i = 0; i < 3; i++)
		put_cmd(self, i, XRNIC_ADMIN_QUERY_DEVICE, i);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_TRUE(cpl_done(self, 2));
	EXPECT_EQ(0, self->irqs[0]);

	/* Read at run time: one interrupt for a batch, none for an empty one. */
	wr(self, XRNIC_REG_AQ_CTL, XRNIC_AQ_CTL_ENABLE | XRNIC_AQ_CTL_ACQ_IRQ);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_EQ(0, self->irqs[0]);
	for (i = 3; i < 6; i++)
		put_cmd(self, i, XRNIC_ADMIN_QUERY_DEVICE, i);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_TRUE(cpl_done(self, 5));
	EXPECT_EQ(1, self->irqs[0]);
	for (i = 1; i < XRNIC_MAX_VECTORS; i++)
		EXPECT_EQ(0, self->irqs[i]);
}

TEST_F(dev, clearing_enable_disables_the_admin_queue)
{
	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 1);
	wr(self, XRNIC_REG_AQ_CTL, 0);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_TRUE(cpl_done(self, 0));		/* pending work is finished first */
	EXPECT_EQ(XRNIC_DEV_STS_READY, rd(self, XRNIC_REG_DEV_STS));
	put_cmd(self, 1, XRNIC_ADMIN_QUERY_DEVICE, 2);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_FALSE(cpl_done(self, 1));
}

TEST_F(dev, rings_are_latched_at_enable)
{
	setup_ok(self, 4, XRNIC_AQ_CTL_ENABLE);
	wr64(self, XRNIC_REG_AQ_BASE_LO, 0x40000);
	wr64(self, XRNIC_REG_ACQ_BASE_LO, 0x50000);
	wr(self, XRNIC_REG_AQ_DEPTH, 256);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 1);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	EXPECT_TRUE(cpl_done(self, 0));
	EXPECT_EQ(0, self->xe.mem.base[0x50000 + 3]);
}

TEST_F(dev, only_the_admin_vector_runs_the_admin_queue)
{
	unsigned int v;

	setup_ok(self, 4, ALL_IRQ);
	put_cmd(self, 0, XRNIC_ADMIN_QUERY_DEVICE, 1);
	for (v = 1; v < 4; v++)
		xe_doorbell(&self->xe, v);
	EXPECT_FALSE(cpl_done(self, 0));
	wr(self, XRNIC_REG_DEV_CTL, XRNIC_DEV_CTL_RESET);
	xe_doorbell(&self->xe, 1);
	EXPECT_EQ(XRNIC_DEV_CTL_RESET, rd(self, XRNIC_REG_DEV_CTL));
	EXPECT_TRUE(self->xe.aq_enabled);
}

TEST_F(dev, rejected_command_log_is_rate_limited)
{
	const char *p;
	int lines = 0, suppressed = 0, i, batch;

	setup_ok(self, 256, XRNIC_AQ_CTL_ENABLE);
	for (batch = 0; batch < 2; batch++) {
		for (i = 0; i < 150; i++)
			put_cmd(self, batch * 150 + i, 0x77, i);
		xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	}
	ASSERT_EQ(300, self->xe.aq_ci);
	fflush(self->xe.log);
	for (p = self->logbuf; (p = strstr(p, "rejected admin command")); p++)
		lines++;
	for (p = self->logbuf; (p = strstr(p, "not logged")); p++)
		suppressed++;
	/* 300 rejects in at most two one-second windows. */
	EXPECT_GE(lines, XE_REJECT_LOG_LIMIT);
	EXPECT_LE(lines, 2 * XE_REJECT_LOG_LIMIT);
	EXPECT_GE(suppressed, 1);
}

TEST(q35_translation_of_small_ram)
{
	const uint64_t size = 1ull << 30;
	uint64_t off = 1;

	EXPECT_TRUE(xe_gpa_to_off(size, 0, 1, &off));
	EXPECT_EQ(0, off);
	EXPECT_TRUE(xe_gpa_to_off(size, size - 64, 64, &off));
	EXPECT_EQ(size - 64, off);
	EXPECT_TRUE(xe_gpa_to_off(size, 0, size, &off));
	EXPECT_FALSE(xe_gpa_to_off(size, size, 1, &off));		/* end */
	EXPECT_FALSE(xe_gpa_to_off(size, size - 64, 65, &off));	/* straddles end */
	EXPECT_FALSE(xe_gpa_to_off(size, 0, size + 1, &off));
	EXPECT_FALSE(xe_gpa_to_off(size, XE_4G, 1, &off));		/* no high RAM */
	EXPECT_FALSE(xe_gpa_to_off(size, UINT64_MAX, 2, &off));	/* overflow */
	EXPECT_FALSE(xe_gpa_to_off(size, 64, UINT64_MAX, &off));

	/* Up to 2815 MiB all RAM is below 4 GiB. */
	EXPECT_TRUE(xe_gpa_to_off(2815 * XE_MIB, 2815 * XE_MIB - 1, 1, &off));
	EXPECT_FALSE(xe_gpa_to_off(2815 * XE_MIB, XE_4G, 1, &off));
}

TEST(q35_translation_of_large_ram)
{
	const uint64_t size = 6 * XE_GIB;	/* 2 GiB low, 4 GiB high */
	uint64_t off;

	EXPECT_TRUE(xe_gpa_to_off(size, 2 * XE_GIB - 8, 8, &off));
	EXPECT_EQ(2 * XE_GIB - 8, off);
	EXPECT_FALSE(xe_gpa_to_off(size, 2 * XE_GIB, 1, &off));	/* hole */
	EXPECT_FALSE(xe_gpa_to_off(size, 3 * XE_GIB, 1, &off));
	EXPECT_FALSE(xe_gpa_to_off(size, XE_4G - 1, 1, &off));
	EXPECT_FALSE(xe_gpa_to_off(size, 2 * XE_GIB - 8, 16, &off));	/* into the hole */
	EXPECT_FALSE(xe_gpa_to_off(size, XE_4G - 8, 16, &off));	/* out of the hole */
	EXPECT_TRUE(xe_gpa_to_off(size, XE_4G, 64, &off));
	EXPECT_EQ(2 * XE_GIB, off);
	EXPECT_TRUE(xe_gpa_to_off(size, 8 * XE_GIB - 64, 64, &off));
	EXPECT_EQ(size - 64, off);
	EXPECT_FALSE(xe_gpa_to_off(size, 8 * XE_GIB - 64, 65, &off));	/* straddles end */
	EXPECT_FALSE(xe_gpa_to_off(size, 8 * XE_GIB, 1, &off));	/* end */
	EXPECT_FALSE(xe_gpa_to_off(size, XE_4G, UINT64_MAX, &off));	/* overflow */
	EXPECT_FALSE(xe_gpa_to_off(size, UINT64_MAX - 8, 16, &off));

	/* The threshold: 2816 MiB puts 2 GiB low and 768 MiB high. */
	EXPECT_FALSE(xe_gpa_to_off(2816 * XE_MIB, 2 * XE_GIB, 1, &off));
	EXPECT_TRUE(xe_gpa_to_off(2816 * XE_MIB, XE_4G + 768 * XE_MIB - 1, 1, &off));
	EXPECT_EQ(2816 * XE_MIB - 1, off);
	EXPECT_FALSE(xe_gpa_to_off(2816 * XE_MIB, XE_4G + 768 * XE_MIB, 1, &off));
}

TEST(high_ram_of_a_sparse_file_maps_above_4g)
{
	struct xe_guest_mem gm;
	uint8_t *p;

	ASSERT_EQ(0, map_ram(&gm, 3 * XE_GIB));
	p = xe_gm_ptr(&gm, XE_4G + XE_GIB - 16, 16);
	ASSERT_EQ(gm.base + 3 * XE_GIB - 16, p);
	p[15] = 0xa5;
	EXPECT_EQ(0xa5, gm.base[gm.size - 1]);
	EXPECT_EQ(NULL, xe_gm_ptr(&gm, XE_4G + XE_GIB - 16, 17));
	EXPECT_EQ(NULL, xe_gm_ptr(&gm, 2 * XE_GIB, 16));
	xe_gm_unmap(&gm);
}

TEST_HARNESS_MAIN
