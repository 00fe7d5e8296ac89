// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the object commands: PDs, MRs and their page lists, CQs,
 * QPs and their state machine, counters, and the reset that drops them all.
 */
#include <errno.h>

#include "xe_fixture.h"

#define PAGE		4096ull
#define CQ_GPA		0x40000ull
#define SQ_GPA		0x50000ull
#define RQ_GPA		0x60000ull
#define PBL_GPA		0x80000ull	/* page-list chunks, one after another */
#define DATA_GPA	0xa0000ull	/* DATA_PAGES pages the MRs use in turn */
#define DATA_PAGES	64
#define STATS_GPA	0xf0000ull	/* QUERY_STATS writes its counters here */
#define IOVA		0x7f1234560000ull
#define RW		(XRNIC_ACCESS_LOCAL_WRITE | XRNIC_ACCESS_REMOTE_WRITE | \
			 XRNIC_ACCESS_REMOTE_READ)

/* Enable a 4-entry admin queue; admin() then runs commands one at a time. */
static uint8_t alloc_pd(struct _test_data_dev *self, uint32_t *pdn)
{
	struct xrnic_cmd_pd r;
	uint8_t st = admin(self, XRNIC_ADMIN_ALLOC_PD, NULL, &r);

	*pdn = le32toh(r.pdn);
	return st;
}

static uint8_t dealloc_pd(struct _test_data_dev *self, uint32_t pdn)
{
	struct xrnic_cmd_pd c = { .pdn = htole32(pdn) };

	return admin(self, XRNIC_ADMIN_DEALLOC_PD, &c, NULL);
}

static uint64_t data_page(uint32_t i)
{
	return DATA_GPA + (i % DATA_PAGES) * PAGE;
}

static uint64_t *ram64(struct _test_data_dev *self, uint64_t gpa)
{
	return (uint64_t *)(self->xe.mem.base + gpa);
}

/*
 * A REG_MR command for [iova, iova + length) with pages data_page(i): inline,
 * or chained through chunks at PBL_GPA whose last next pointer is garbage.
 */
static struct xrnic_cmd_reg_mr mr_cmd(struct _test_data_dev *self, uint32_t pdn,
				      uint32_t access, uint64_t iova, uint64_t length)
{
	uint32_t npages = (iova % PAGE + length + PAGE - 1) / PAGE, i;
	struct xrnic_cmd_reg_mr c = {
		.pdn = htole32(pdn),
		.access = htole32(access),
		.iova = htole64(iova),
		.length = htole64(length),
		.npages = htole32(npages),
		.page_shift = 12,
	};
	uint64_t *chunk = NULL;

	if (npages <= XRNIC_PBL_INLINE_MAX) {
		for (i = 0; i < npages; i++)
			c.pages[i] = htole64(data_page(i));
		return c;
	}
	c.pbl_mode = XRNIC_PBL_CHAINED;
	c.pbl_addr = htole64(PBL_GPA);
	for (i = 0; i < npages; i++) {
		if (i % XRNIC_PBL_CHUNK_ENTRIES == 0) {
			chunk = ram64(self, PBL_GPA + i / XRNIC_PBL_CHUNK_ENTRIES * PAGE);
			chunk[XRNIC_PBL_CHUNK_ENTRIES] =
				htole64(PBL_GPA + (i / XRNIC_PBL_CHUNK_ENTRIES + 1) * PAGE);
		}
		chunk[i % XRNIC_PBL_CHUNK_ENTRIES] = htole64(data_page(i));
	}
	chunk[XRNIC_PBL_CHUNK_ENTRIES] = htole64(0xdeadbeef1);	/* ignored */
	return c;
}

static uint8_t reg_mr(struct _test_data_dev *self, const struct xrnic_cmd_reg_mr *c,
		      uint32_t *key)
{
	struct xrnic_cmd_mr r;
	uint8_t st = admin(self, XRNIC_ADMIN_REG_MR, c, &r);

	*key = le32toh(r.lkey);
	if (r.lkey != r.rkey)
		return 0xfd;
	return st;
}

static uint8_t dereg_mr(struct _test_data_dev *self, uint32_t lkey, uint32_t rkey)
{
	struct xrnic_cmd_mr c = { .lkey = htole32(lkey), .rkey = htole32(rkey) };

	return admin(self, XRNIC_ADMIN_DEREG_MR, &c, NULL);
}

#define EQ_GPA		0x70000ull	/* a page per vector: ring, then db */

/* An event queue of 64 entries on vector, as the driver makes at probe. */
static uint8_t create_eq(struct _test_data_dev *self, uint16_t vector)
{
	struct xrnic_cmd_eq c = {
		.ring_addr = htole64(EQ_GPA + vector * PAGE),
		.depth = htole32(64),
		.vector = htole16(vector),
		.db_addr = htole64(EQ_GPA + vector * PAGE + 64 * XRNIC_EQE_SIZE),
	};

	return admin(self, XRNIC_ADMIN_CREATE_EQ, &c, NULL);
}

static uint8_t create_cq(struct _test_data_dev *self, uint64_t ring, uint32_t depth,
			 uint16_t vector, uint32_t *cqn)
{
	struct xrnic_cmd_create_cq c = {
		.ring_addr = htole64(ring),
		.depth = htole32(depth),
		.eq_vector = htole16(vector),
	};
	struct xrnic_cmd_cq r;
	uint8_t st;

	if (vector && vector < 4 && !self->xe.eq[vector].live)
		create_eq(self, vector);
	st = admin(self, XRNIC_ADMIN_CREATE_CQ, &c, &r);
	*cqn = le32toh(r.cqn);
	return st;
}

static uint8_t destroy_cq(struct _test_data_dev *self, uint32_t cqn)
{
	struct xrnic_cmd_cq c = { .cqn = htole32(cqn) };

	return admin(self, XRNIC_ADMIN_DESTROY_CQ, &c, NULL);
}

static struct xrnic_cmd_create_qp qp_cmd(uint32_t pdn, uint32_t scq, uint32_t rcq)
{
	return (struct xrnic_cmd_create_qp){
		.pdn = htole32(pdn),
		.send_cqn = htole32(scq),
		.recv_cqn = htole32(rcq),
		.sq_depth = htole32(16),
		.rq_depth = htole32(16),
		.qp_type = XRNIC_QPT_RC,
		.max_send_sge = 2,
		.max_recv_sge = 2,
		.sq_addr = htole64(SQ_GPA),
		.rq_addr = htole64(RQ_GPA),
		.max_inline = htole32(32),
	};
}

static uint8_t create_qp(struct _test_data_dev *self, const struct xrnic_cmd_create_qp *c,
			 uint32_t *qpn)
{
	struct xrnic_cmd_qp r;
	uint8_t st = admin(self, XRNIC_ADMIN_CREATE_QP, c, &r);

	*qpn = le32toh(r.qpn);
	return st;
}

static uint8_t qpn_cmd(struct _test_data_dev *self, uint8_t opcode, uint32_t qpn,
		       void *answer)
{
	struct xrnic_cmd_qp c = { .qpn = htole32(qpn) };

	return admin(self, opcode, &c, answer);
}

static uint8_t modify(struct _test_data_dev *self, uint32_t qpn, uint32_t mask,
		      struct xrnic_qp_attr a)
{
	a.qpn = htole32(qpn);
	a.attr_mask = htole32(mask);
	return admin(self, XRNIC_ADMIN_MODIFY_QP, &a, NULL);
}

static uint8_t to_state(struct _test_data_dev *self, uint32_t qpn, uint8_t state)
{
	return modify(self, qpn, XRNIC_QP_STATE, (struct xrnic_qp_attr){ .state = state });
}

/* The state QUERY_QP answers, or 0xff. */
static uint8_t qp_state(struct _test_data_dev *self, uint32_t qpn)
{
	struct xrnic_qp_attr a;

	if (qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &a))
		return 0xff;
	return a.state;
}

/* A PD, a CQ and an RC QP on them. */
static uint8_t make_qp(struct _test_data_dev *self, uint32_t *pdn, uint32_t *cqn,
		       uint32_t *qpn)
{
	struct xrnic_cmd_create_qp c;
	uint8_t st;

	st = alloc_pd(self, pdn);
	if (!st)
		st = create_cq(self, CQ_GPA, 64, 1, cqn);
	if (st)
		return st;
	c = qp_cmd(*pdn, *cqn, *cqn);
	return create_qp(self, &c, qpn);
}

static void query_stats(struct _test_data_dev *self, uint64_t counters[XRNIC_NUM_COUNTERS])
{
	struct xrnic_cmd_query_stats c = { .buf_addr = htole64(STATS_GPA) };
	const __le64 *page = (const __le64 *)(self->xe.mem.base + STATS_GPA);
	struct xrnic_resp_query_stats r;
	int i;

	memset(counters, 0xff, XRNIC_NUM_COUNTERS * sizeof(uint64_t));
	if (admin(self, XRNIC_ADMIN_QUERY_STATS, &c, &r) ||
	    le32toh(r.num_counters) != XRNIC_NUM_COUNTERS)
		return;
	for (i = 0; i < XRNIC_NUM_COUNTERS; i++)
		counters[i] = le64toh(page[i]);
}

/* Protection domains */

TEST_F(dev, alloc_pd_answers_distinct_numbers_and_dealloc_frees_them)
{
	uint32_t a, b, c;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &a));
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &b));
	EXPECT_NE(0, a);
	EXPECT_NE(0, b);
	EXPECT_NE(a, b);
	EXPECT_EQ(XRNIC_STATUS_OK, dealloc_pd(self, a));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_pd(self, a));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_pd(self, 0));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_pd(self, XE_MAX_PD + 1));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_pd(self, 0xffffffff));
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &c));
	EXPECT_NE(b, c);
	EXPECT_EQ(XRNIC_STATUS_OK, dealloc_pd(self, b));
	EXPECT_EQ(XRNIC_STATUS_OK, dealloc_pd(self, c));
}

TEST_F(dev, pd_commands_with_reserved_bytes_set_are_malformed)
{
	struct xrnic_cmd_pd c = { };
	uint32_t pdn;

	start(self);
	c.pdn = htole32(1);
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_ALLOC_PD, &c, NULL));
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	c.pdn = htole32(pdn);
	c.reserved[51] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_DEALLOC_PD, &c, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, dealloc_pd(self, pdn));
}

TEST_F(dev, pd_table_full_is_no_resources)
{
	uint32_t pdn, first = 0;
	int i;

	start(self);
	for (i = 0; i < XE_MAX_PD; i++) {
		ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn)) TH_LOG("PD %d", i);
		if (!i)
			first = pdn;
	}
	EXPECT_EQ(XRNIC_STATUS_NO_RESOURCES, alloc_pd(self, &pdn));
	EXPECT_EQ(0, pdn);
	EXPECT_NE(NULL, strstr(self->logbuf, "no resources: PD table full"));
	ASSERT_EQ(XRNIC_STATUS_OK, dealloc_pd(self, first));
	EXPECT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	EXPECT_EQ(XRNIC_STATUS_NO_RESOURCES, alloc_pd(self, &pdn));
}

TEST_F(dev, dealloc_pd_with_an_mr_is_busy)
{
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, key;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	c = mr_cmd(self, pdn, 0, IOVA, PAGE);
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	EXPECT_EQ(XRNIC_STATUS_BUSY, dealloc_pd(self, pdn));
	ASSERT_EQ(XRNIC_STATUS_OK, dereg_mr(self, key, key));
	EXPECT_EQ(XRNIC_STATUS_OK, dealloc_pd(self, pdn));
}

TEST_F(dev, dealloc_pd_with_a_qp_is_busy)
{
	uint32_t pdn, cqn, qpn;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	EXPECT_EQ(XRNIC_STATUS_BUSY, dealloc_pd(self, pdn));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_DESTROY_QP, qpn, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, dealloc_pd(self, pdn));
	EXPECT_EQ(XRNIC_STATUS_OK, destroy_cq(self, cqn));
}

/* Memory regions */

TEST_F(dev, reg_mr_inline_answers_lkey_equal_rkey_and_translates_through_its_pages)
{
	struct xrnic_cmd_reg_mr c;
	uint64_t gpa, avail;
	uint32_t pdn, key;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	/* 0x100 into the first page, 2 pages long: 3 pages. */
	c = mr_cmd(self, pdn, RW, IOVA + 0x100, 2 * PAGE);
	ASSERT_EQ(3, le32toh(c.npages));
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	EXPECT_GE(XRNIC_KEY_INDEX(key), 1);
	EXPECT_EQ(1, self->xe.pd[pdn].obj.refs);
	EXPECT_EQ(3, self->xe.mr_pages);

	ASSERT_EQ(0, xe_mr_translate(&self->xe, key, pdn, IOVA + 0x100, 2 * PAGE, 0, &gpa,
				     &avail));
	EXPECT_EQ(data_page(0) + 0x100, gpa);
	EXPECT_EQ(PAGE - 0x100, avail);
	ASSERT_EQ(0, xe_mr_translate(&self->xe, key, pdn, IOVA + PAGE, 16, RW, &gpa, &avail));
	EXPECT_EQ(data_page(1), gpa);
	EXPECT_EQ(16, avail);
	ASSERT_EQ(0, xe_mr_translate(&self->xe, key, pdn, IOVA + 2 * PAGE + 0xff, 1, 0, &gpa,
				     &avail));
	EXPECT_EQ(data_page(2) + 0xff, gpa);
	EXPECT_EQ(1, avail);
}

TEST_F(dev, reg_mr_chained_600_pages_copies_two_chunks)
{
	struct xrnic_cmd_reg_mr c;
	uint64_t gpa, avail;
	uint32_t pdn, key;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	c = mr_cmd(self, pdn, 0, IOVA, 600 * PAGE);
	ASSERT_EQ(XRNIC_PBL_CHAINED, c.pbl_mode);
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	EXPECT_EQ(600, self->xe.mr_pages);

	/* The device copied the list: the guest may reuse the chunks. */
	memset(ram64(self, PBL_GPA), 0x5a, 2 * PAGE);
	for (uint32_t i = 0; i < 600; i++) {
		ASSERT_EQ(0, xe_mr_translate(&self->xe, key, pdn, IOVA + i * PAGE + 8, 8, 0,
					     &gpa, &avail));
		ASSERT_EQ(data_page(i) + 8, gpa) TH_LOG("page %u", i);
	}
	EXPECT_EQ(XRNIC_STATUS_OK, dereg_mr(self, key, 0));
	EXPECT_EQ(0, self->xe.mr_pages);
}

TEST_F(dev, reg_mr_of_max_mr_size_walks_a_chain_that_loops)
{
	struct xrnic_cmd_reg_mr c;
	uint64_t gpa, avail, *chunk = ram64(self, PBL_GPA);
	uint32_t pdn, key, i;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	/* One chunk pointing at itself serves any number of pages. */
	for (i = 0; i < XRNIC_PBL_CHUNK_ENTRIES; i++)
		chunk[i] = htole64(data_page(i));
	chunk[XRNIC_PBL_CHUNK_ENTRIES] = htole64(PBL_GPA);
	c = (struct xrnic_cmd_reg_mr){
		.pdn = htole32(pdn),
		.iova = htole64(IOVA + 1),
		.length = htole64(XE_MAX_MR_SIZE),
		.npages = htole32(XE_MAX_MR_SIZE / PAGE + 1),
		.page_shift = 12,
		.pbl_mode = XRNIC_PBL_CHAINED,
		.pbl_addr = htole64(PBL_GPA),
	};
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	ASSERT_EQ(0, xe_mr_translate(&self->xe, key, pdn, IOVA + XE_MAX_MR_SIZE, 1, 0, &gpa,
				     &avail));
	EXPECT_EQ(data_page((XE_MAX_MR_SIZE / PAGE) % XRNIC_PBL_CHUNK_ENTRIES), gpa);

	c.length = htole64(XE_MAX_MR_SIZE + 1);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
}

TEST_F(dev, reg_mr_beyond_the_page_list_budget_is_no_resources)
{
	struct xrnic_cmd_reg_mr c;
	uint64_t *chunk = ram64(self, PBL_GPA);
	uint32_t pdn, key, i;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	for (i = 0; i < XRNIC_PBL_CHUNK_ENTRIES; i++)
		chunk[i] = htole64(data_page(i));
	chunk[XRNIC_PBL_CHUNK_ENTRIES] = htole64(PBL_GPA);
	c = (struct xrnic_cmd_reg_mr){
		.pdn = htole32(pdn),
		.iova = htole64(IOVA),
		.length = htole64(XE_MAX_MR_SIZE),
		.npages = htole32(XE_MAX_MR_SIZE / PAGE),
		.page_shift = 12,
		.pbl_mode = XRNIC_PBL_CHAINED,
		.pbl_addr = htole64(PBL_GPA),
	};
	for (i = 0; i < XE_MAX_MR_PAGES / (XE_MAX_MR_SIZE / PAGE); i++)
		ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key)) TH_LOG("MR %u", i);
	EXPECT_EQ(XE_MAX_MR_PAGES, self->xe.mr_pages);
	c = mr_cmd(self, pdn, 0, IOVA, PAGE);
	EXPECT_EQ(XRNIC_STATUS_NO_RESOURCES, reg_mr(self, &c, &key));
	EXPECT_EQ(XRNIC_STATUS_OK, dereg_mr(self, 1 << 8, 0));
	EXPECT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
}

TEST_F(dev, reg_mr_rejects_remote_write_or_atomic_without_local_write)
{
	static const struct {
		uint32_t access;
		uint8_t status;
	} cases[] = {
		{ 0, XRNIC_STATUS_OK },
		{ XRNIC_ACCESS_REMOTE_READ, XRNIC_STATUS_OK },
		{ XRNIC_ACCESS_LOCAL_WRITE, XRNIC_STATUS_OK },
		{ XRNIC_ACCESS_ALL, XRNIC_STATUS_OK },
		{ XRNIC_ACCESS_REMOTE_WRITE, XRNIC_STATUS_BAD_PARAM },
		{ XRNIC_ACCESS_REMOTE_ATOMIC, XRNIC_STATUS_BAD_PARAM },
		{ XRNIC_ACCESS_REMOTE_WRITE | XRNIC_ACCESS_REMOTE_READ, XRNIC_STATUS_BAD_PARAM },
		{ XRNIC_ACCESS_MW_BIND, XRNIC_STATUS_OK },
		{ XRNIC_ACCESS_LOCAL_WRITE | XRNIC_ACCESS_ZERO_BASED, XRNIC_STATUS_BAD_PARAM },
		{ 0x80000000, XRNIC_STATUS_BAD_PARAM },
	};
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, key;
	size_t i;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = mr_cmd(self, pdn, cases[i].access, IOVA, PAGE);
		EXPECT_EQ(cases[i].status, reg_mr(self, &c, &key))
			TH_LOG("access 0x%x", cases[i].access);
	}
}

TEST_F(dev, reg_mr_rejects_bad_length_iova_overflow_and_npages_mismatch)
{
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, key;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	c = mr_cmd(self, pdn, 0, IOVA, PAGE);
	c.length = 0;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));

	/* The last byte at UINT64_MAX is fine; one more overflows. */
	c = mr_cmd(self, pdn, 0, 0xfffffffffffff000ull, PAGE - 1);
	EXPECT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	c = mr_cmd(self, pdn, 0, 0xfffffffffffff000ull, PAGE);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
	c = mr_cmd(self, pdn, 0, 0xfffffffffffff000ull, 2 * PAGE);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
	EXPECT_NE(NULL, strstr(self->logbuf, "iova + length overflows"));

	c = mr_cmd(self, pdn, 0, IOVA + 1, PAGE);	/* 2 pages */
	c.npages = htole32(1);
	c.pages[1] = 0;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
	c.pages[1] = htole64(data_page(1));
	c.npages = htole32(3);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
	EXPECT_NE(NULL, strstr(self->logbuf, "npages does not match"));
	c.npages = htole32(2);
	c.page_shift = 13;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
	c.page_shift = 12;
	c.pbl_mode = 2;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
	c.pbl_mode = XRNIC_PBL_CHAINED;		/* 2 pages must go inline */
	c.pages[1] = 0;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));

	c = mr_cmd(self, pdn, 0, IOVA, 4 * PAGE);	/* 4 pages must be chained */
	c.pbl_mode = XRNIC_PBL_INLINE;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));

	c = mr_cmd(self, pdn, 0, IOVA, PAGE);
	c.pdn = htole32(pdn + 1);
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, reg_mr(self, &c, &key));
	c.pdn = 0;
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, reg_mr(self, &c, &key));
	EXPECT_EQ(1, self->xe.mr_pages);	/* only the first one */
}

TEST_F(dev, reg_mr_with_reserved_or_unused_bytes_set_is_malformed)
{
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, key;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	c = mr_cmd(self, pdn, 0, IOVA, PAGE);
	c.reserved = htole16(0x100);
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, reg_mr(self, &c, &key));
	c = mr_cmd(self, pdn, 0, IOVA, 2 * PAGE);
	c.pages[2] = htole64(data_page(2));		/* unused slot */
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, reg_mr(self, &c, &key));
	c = mr_cmd(self, pdn, 0, IOVA, 8 * PAGE);
	c.pages[2] = htole64(1ull << 56);		/* after pbl_addr */
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, reg_mr(self, &c, &key));
	c.pages[2] = 0;
	EXPECT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
}

TEST_F(dev, reg_mr_rejects_unaligned_pages_as_bad_param)
{
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, key;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	c = mr_cmd(self, pdn, 0, IOVA, 3 * PAGE);
	c.pages[2] = htole64(data_page(2) + 8);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
	c.pages[2] = htole64(data_page(2) + 0x800);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));

	c = mr_cmd(self, pdn, 0, IOVA, 600 * PAGE);
	*ram64(self, PBL_GPA + PAGE + 88 * 8) = htole64(data_page(0) | 1);	/* the last */
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, reg_mr(self, &c, &key));
	EXPECT_NE(NULL, strstr(self->logbuf, "page address not page aligned"));
	EXPECT_EQ(0, self->xe.mr_pages);
}

TEST_F(dev, reg_mr_rejects_pages_outside_ram_as_bad_address)
{
	static const uint64_t bad[] = {
		RAM_SIZE, 4ull << 30, 1ull << 47, 0xfffffffffffff000ull,
	};
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, key;
	size_t i;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		c = mr_cmd(self, pdn, 0, IOVA, PAGE);
		c.pages[0] = htole64(bad[i]);
		EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, reg_mr(self, &c, &key)) TH_LOG("case %zu", i);
		c = mr_cmd(self, pdn, 0, IOVA, 600 * PAGE);
		*ram64(self, PBL_GPA + PAGE + 7 * 8) = htole64(bad[i]);
		EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, reg_mr(self, &c, &key)) TH_LOG("case %zu", i);
	}
	/* The last page of RAM is RAM. */
	c = mr_cmd(self, pdn, 0, IOVA, PAGE);
	c.pages[0] = htole64(RAM_SIZE - PAGE);
	EXPECT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	EXPECT_EQ(1, self->xe.mr_pages);
}

TEST_F(dev, reg_mr_rejects_chunks_unaligned_or_outside_ram_as_bad_address)
{
	static const uint64_t bad[] = {
		PBL_GPA + 8, PBL_GPA + 0x800, RAM_SIZE, RAM_SIZE - 8, 4ull << 30,
		0xfffffffffffff000ull,
	};
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, key;
	size_t i;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		c = mr_cmd(self, pdn, 0, IOVA, 600 * PAGE);
		c.pbl_addr = htole64(bad[i]);
		EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, reg_mr(self, &c, &key)) TH_LOG("case %zu", i);
		/* The second chunk. */
		c = mr_cmd(self, pdn, 0, IOVA, 600 * PAGE);
		ram64(self, PBL_GPA)[XRNIC_PBL_CHUNK_ENTRIES] = htole64(bad[i]);
		EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, reg_mr(self, &c, &key)) TH_LOG("case %zu", i);
	}
	/* A chunk in the last page of RAM is fine. */
	c = mr_cmd(self, pdn, 0, IOVA, 4 * PAGE);
	memcpy(ram64(self, RAM_SIZE - PAGE), ram64(self, PBL_GPA), PAGE);
	c.pbl_addr = htole64(RAM_SIZE - PAGE);
	EXPECT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	EXPECT_NE(NULL, strstr(self->logbuf, "chunk unaligned or outside guest RAM"));
}

TEST_F(dev, mr_key_byte_changes_on_index_reuse_and_stale_keys_are_not_found)
{
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, k1, k2, k3;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	c = mr_cmd(self, pdn, 0, IOVA, PAGE);
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &k1));
	ASSERT_EQ(XRNIC_STATUS_OK, dereg_mr(self, k1, k1));
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &k2));
	EXPECT_EQ(XRNIC_KEY_INDEX(k1), XRNIC_KEY_INDEX(k2));
	EXPECT_EQ((XRNIC_KEY_BYTE(k1) + 1) & 0xff, XRNIC_KEY_BYTE(k2));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dereg_mr(self, k1, 0));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, dereg_mr(self, k2, k2 + 1));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dereg_mr(self, 0, 0));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dereg_mr(self, (XE_MAX_MR + 1) << 8, 0));
	EXPECT_EQ(XRNIC_STATUS_OK, dereg_mr(self, k2, 0));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dereg_mr(self, k2, 0));	/* double dereg */
	EXPECT_EQ(0, self->xe.pd[pdn].obj.refs);

	/* Every reuse changes it; 256 reuses bring it round again. */
	for (int i = 1; i <= 256; i++) {
		ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &k3));
		ASSERT_EQ(XRNIC_KEY_INDEX(k2), XRNIC_KEY_INDEX(k3));
		ASSERT_EQ((XRNIC_KEY_BYTE(k2) + i) & 0xff, XRNIC_KEY_BYTE(k3));
		ASSERT_EQ(XRNIC_STATUS_OK, dereg_mr(self, k3, 0));
	}
	EXPECT_EQ(k2, k3);
}

TEST_F(dev, dereg_mr_with_reserved_bytes_set_is_malformed)
{
	struct xrnic_cmd_reg_mr c;
	struct xrnic_cmd_mr d = { };
	uint32_t pdn, key;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	c = mr_cmd(self, pdn, 0, IOVA, PAGE);
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	d.lkey = htole32(key);
	d.reserved[47] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_DEREG_MR, &d, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, dereg_mr(self, key, 0));
}

TEST_F(dev, mr_translate_checks_key_pd_access_and_bounds)
{
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, pd2, ro, rw;
	uint64_t gpa = 0, avail = 0;
	struct xe_dev *xe = &self->xe;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pd2));
	c = mr_cmd(self, pdn, XRNIC_ACCESS_REMOTE_READ, IOVA + 0x10, 2 * PAGE);
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &ro));
	c = mr_cmd(self, pdn, XRNIC_ACCESS_ALL, IOVA, PAGE);
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &rw));

	/* Bounds: [IOVA + 0x10, IOVA + 0x10 + 2 pages). */
	EXPECT_EQ(-ERANGE, xe_mr_translate(xe, ro, pdn, IOVA + 0xf, 1, 0, &gpa, &avail));
	EXPECT_EQ(-ERANGE, xe_mr_translate(xe, ro, pdn, IOVA + 0xf, 2, 0, &gpa, &avail));
	EXPECT_EQ(-ERANGE, xe_mr_translate(xe, ro, pdn, IOVA + 0x10 + 2 * PAGE, 1, 0, &gpa,
					   &avail));
	EXPECT_EQ(-ERANGE, xe_mr_translate(xe, ro, pdn, IOVA + 0x10, 2 * PAGE + 1, 0, &gpa,
					   &avail));
	EXPECT_EQ(-ERANGE, xe_mr_translate(xe, ro, pdn, IOVA + 0x10 + PAGE, UINT64_MAX, 0,
					   &gpa, &avail));
	EXPECT_EQ(-ERANGE, xe_mr_translate(xe, ro, pdn, 0, 1, 0, &gpa, &avail));
	EXPECT_EQ(-ERANGE, xe_mr_translate(xe, ro, pdn, UINT64_MAX, 1, 0, &gpa, &avail));
	EXPECT_EQ(-EINVAL, xe_mr_translate(xe, ro, pdn, IOVA + 0x10, 0, 0, &gpa, &avail));
	EXPECT_EQ(0, gpa);
	ASSERT_EQ(0, xe_mr_translate(xe, ro, pdn, IOVA + 0x10 + 2 * PAGE - 1, 1, 0, &gpa,
				     &avail));
	EXPECT_EQ(data_page(2) + 0xf, gpa);
	/* Crossing a page: the first page's part. */
	ASSERT_EQ(0, xe_mr_translate(xe, ro, pdn, IOVA + PAGE - 4, 100, 0, &gpa, &avail));
	EXPECT_EQ(data_page(0) + PAGE - 4, gpa);
	EXPECT_EQ(4, avail);

	/* PD and access rights. */
	EXPECT_EQ(-EACCES, xe_mr_translate(xe, ro, pd2, IOVA + 0x10, 1, 0, &gpa, &avail));
	EXPECT_EQ(0, xe_mr_translate(xe, ro, pdn, IOVA + 0x10, 1, XRNIC_ACCESS_REMOTE_READ,
				     &gpa, &avail));
	EXPECT_EQ(-EACCES, xe_mr_translate(xe, ro, pdn, IOVA + 0x10, 1,
					   XRNIC_ACCESS_LOCAL_WRITE, &gpa, &avail));
	EXPECT_EQ(-EACCES, xe_mr_translate(xe, ro, pdn, IOVA + 0x10, 1,
					   XRNIC_ACCESS_REMOTE_WRITE, &gpa, &avail));
	EXPECT_EQ(0, xe_mr_translate(xe, rw, pdn, IOVA, 1, XRNIC_ACCESS_ALL, &gpa, &avail));
	EXPECT_EQ(-EINVAL, xe_mr_translate(xe, rw, pdn, IOVA, 1, 0x20, &gpa, &avail));

	/* Keys. */
	EXPECT_EQ(-ENOENT, xe_mr_translate(xe, 0, pdn, IOVA, 1, 0, &gpa, &avail));
	EXPECT_EQ(-ENOENT, xe_mr_translate(xe, rw ^ 1, pdn, IOVA, 1, 0, &gpa, &avail));
	EXPECT_EQ(-ENOENT, xe_mr_translate(xe, 0xffffffff, pdn, IOVA, 1, 0, &gpa, &avail));
	ASSERT_EQ(XRNIC_STATUS_OK, dereg_mr(self, rw, rw));
	EXPECT_EQ(-ENOENT, xe_mr_translate(xe, rw, pdn, IOVA, 1, 0, &gpa, &avail));
}

/* Completion queues */

TEST_F(dev, create_cq_answers_cqn_and_destroy_frees_it)
{
	uint32_t a, b;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA, 2, 0, &a));
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA + PAGE, 128, 3, &b));
	EXPECT_NE(0, a);
	EXPECT_NE(0, b);
	EXPECT_NE(a, b);
	EXPECT_EQ(CQ_GPA + PAGE, self->xe.cq[b].ring);
	EXPECT_EQ(128, self->xe.cq[b].depth);
	EXPECT_EQ(3, self->xe.cq[b].vector);
	EXPECT_EQ(XRNIC_STATUS_OK, destroy_cq(self, a));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, destroy_cq(self, a));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, destroy_cq(self, 0));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, destroy_cq(self, XE_MAX_CQ + 1));
	EXPECT_EQ(XRNIC_STATUS_OK, destroy_cq(self, b));
	/* max_cqe entries: 2 MiB do not fit the 1 MiB RAM, 1 MiB at 0 does. */
	EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, create_cq(self, 0, XE_MAX_CQE, 0, &a));
	EXPECT_EQ(XRNIC_STATUS_OK, create_cq(self, 0, XE_MAX_CQE / 2, 0, &a));
}

/* The doorbell record and the event queue of a CQ are checked too. */
TEST_F(dev, create_cq_checks_its_doorbell_record_and_event_queue)
{
	struct xrnic_cmd_create_cq c = {
		.ring_addr = htole64(CQ_GPA), .depth = htole32(2), .eq_vector = htole16(2),
	};
	struct xrnic_cmd_cq r;

	start(self);
	/* Vector 2 has no event queue yet. */
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, admin(self, XRNIC_ADMIN_CREATE_CQ, &c, NULL));
	c.eq_vector = 0;
	c.db_addr = htole64(CQ_GPA + PAGE + 8);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_CREATE_CQ, &c, NULL));
	c.db_addr = htole64(RAM_SIZE);
	EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, admin(self, XRNIC_ADMIN_CREATE_CQ, &c, NULL));
	c.db_addr = htole64(CQ_GPA + PAGE);
	c.reserved0 = htole16(1);
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_CREATE_CQ, &c, NULL));
	c.reserved0 = 0;
	EXPECT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_CREATE_CQ, &c, &r));
}

TEST_F(dev, create_eq_checks_vector_ring_and_use)
{
	struct xrnic_cmd_eq e = {
		.ring_addr = htole64(EQ_GPA + PAGE), .depth = htole32(64), .vector = htole16(1),
		.db_addr = htole64(EQ_GPA + PAGE + 64 * XRNIC_EQE_SIZE),
	};
	struct xrnic_cmd_eq d = { .vector = htole16(1) };
	uint32_t cqn;

	start(self);
	e.vector = htole16(XRNIC_VEC_ADMIN);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	e.vector = htole16(4);		/* the device has 4 vectors: 0..3 */
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	e.vector = htole16(1);
	e.depth = htole32(3);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	e.depth = htole32(2 * XRNIC_MAX_EQ_DEPTH);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	e.depth = htole32(64);
	e.ring_addr = htole64(EQ_GPA + 64);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	e.ring_addr = htole64(RAM_SIZE);
	EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	e.ring_addr = htole64(EQ_GPA + PAGE);
	e.reserved[0] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	e.reserved[0] = 0;
	EXPECT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	EXPECT_EQ(XRNIC_STATUS_BUSY, admin(self, XRNIC_ADMIN_CREATE_EQ, &e, NULL));
	/* Not while a CQ uses it; DESTROY_EQ takes the vector alone. */
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA, 2, 1, &cqn));
	EXPECT_EQ(XRNIC_STATUS_BUSY, admin(self, XRNIC_ADMIN_DESTROY_EQ, &d, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, destroy_cq(self, cqn));
	d.depth = htole32(64);
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_DESTROY_EQ, &d, NULL));
	d.depth = 0;
	EXPECT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_DESTROY_EQ, &d, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, admin(self, XRNIC_ADMIN_DESTROY_EQ, &d, NULL));
}

TEST_F(dev, create_cq_rejects_bad_ring_depth_vector_and_reserved_bytes)
{
	static const struct {
		uint64_t ring;
		uint32_t depth;
		uint16_t vector;
		uint8_t status;
	} cases[] = {
		{ CQ_GPA + 32, 64, 0, XRNIC_STATUS_BAD_PARAM },
		{ CQ_GPA + 0x800, 64, 0, XRNIC_STATUS_BAD_PARAM },
		{ CQ_GPA, 0, 0, XRNIC_STATUS_BAD_PARAM },
		{ CQ_GPA, 1, 0, XRNIC_STATUS_BAD_PARAM },
		{ CQ_GPA, 3, 0, XRNIC_STATUS_BAD_PARAM },
		{ CQ_GPA, 96, 0, XRNIC_STATUS_BAD_PARAM },
		{ 0, 2 * XE_MAX_CQE, 0, XRNIC_STATUS_BAD_PARAM },
		{ 0, 0x80000000, 0, XRNIC_STATUS_BAD_PARAM },
		{ CQ_GPA, 64, 4, XRNIC_STATUS_BAD_PARAM },	/* 4 vectors */
		{ CQ_GPA, 64, 0xffff, XRNIC_STATUS_BAD_PARAM },
		{ RAM_SIZE, 2, 0, XRNIC_STATUS_BAD_ADDRESS },
		{ RAM_SIZE - PAGE, 256, 0, XRNIC_STATUS_BAD_ADDRESS },
		{ 4ull << 30, 2, 0, XRNIC_STATUS_BAD_ADDRESS },
		{ 0xfffffffffffff000ull, 256, 0, XRNIC_STATUS_BAD_ADDRESS },
		{ RAM_SIZE - PAGE, 128, 3, XRNIC_STATUS_OK },
	};
	struct xrnic_cmd_create_cq c = { .ring_addr = htole64(CQ_GPA), .depth = htole32(2) };
	struct xrnic_cmd_cq d = { };
	uint32_t cqn;
	size_t i;

	start(self);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		EXPECT_EQ(cases[i].status, create_cq(self, cases[i].ring, cases[i].depth,
						     cases[i].vector, &cqn)) TH_LOG("case %zu", i);
	c.reserved[31] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_CREATE_CQ, &c, NULL));
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA, 2, 0, &cqn));
	d.cqn = htole32(cqn);
	d.reserved[51] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_DESTROY_CQ, &d, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, destroy_cq(self, cqn));
}

TEST_F(dev, destroy_cq_used_by_a_qp_is_busy)
{
	struct xrnic_cmd_create_qp c;
	uint32_t pdn, scq, rcq, qpn;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA, 64, 0, &scq));
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA + PAGE, 64, 0, &rcq));
	c = qp_cmd(pdn, scq, rcq);
	ASSERT_EQ(XRNIC_STATUS_OK, create_qp(self, &c, &qpn));
	EXPECT_EQ(XRNIC_STATUS_BUSY, destroy_cq(self, scq));
	EXPECT_EQ(XRNIC_STATUS_BUSY, destroy_cq(self, rcq));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_DESTROY_QP, qpn, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, destroy_cq(self, scq));
	EXPECT_EQ(XRNIC_STATUS_OK, destroy_cq(self, rcq));

	/* One CQ for both queues of two QPs. */
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA, 64, 0, &scq));
	c = qp_cmd(pdn, scq, scq);
	ASSERT_EQ(XRNIC_STATUS_OK, create_qp(self, &c, &qpn));
	ASSERT_EQ(XRNIC_STATUS_OK, create_qp(self, &c, &rcq));
	EXPECT_EQ(4, self->xe.cq[scq].obj.refs);
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_DESTROY_QP, qpn, NULL));
	EXPECT_EQ(XRNIC_STATUS_BUSY, destroy_cq(self, scq));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_DESTROY_QP, rcq, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, destroy_cq(self, scq));
	EXPECT_EQ(XRNIC_STATUS_OK, dealloc_pd(self, pdn));
}

/* Queue pairs */

TEST_F(dev, create_qp_answers_a_24_bit_qpn_above_1_in_reset)
{
	struct xrnic_cmd_create_qp c;
	uint32_t pdn, cqn, a, b;
	struct xrnic_qp_attr r;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &a));
	c = qp_cmd(pdn, cqn, cqn);
	ASSERT_EQ(XRNIC_STATUS_OK, create_qp(self, &c, &b));
	EXPECT_GE(a, 2);
	EXPECT_GE(b, 2);
	EXPECT_LE(a, XRNIC_QPN_MASK);
	EXPECT_LE(b, XRNIC_QPN_MASK);
	EXPECT_NE(a, b);
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, a, &r));
	EXPECT_EQ(a, le32toh(r.qpn));
	EXPECT_EQ(XRNIC_QPS_RESET, r.state);
	EXPECT_EQ(2, self->xe.pd[pdn].obj.refs);
	EXPECT_EQ(4, self->xe.cq[cqn].obj.refs);
}

TEST_F(dev, create_qp_rejects_each_bad_field)
{
	struct xrnic_cmd_create_qp c;
	uint32_t pdn, cqn, qpn, n = 0;
	int i;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA, 64, 0, &cqn));
#define BAD(status, field, value) do {						\
		c = qp_cmd(pdn, cqn, cqn);					\
		c.field = value;						\
		EXPECT_EQ(status, create_qp(self, &c, &qpn))			\
			TH_LOG("%s = %s", #field, #value);			\
		n++;								\
	} while (0)
	BAD(XRNIC_STATUS_MALFORMED, reserved0, 1);
	BAD(XRNIC_STATUS_MALFORMED, srqn, htole32(1));	/* and a receive queue */
	BAD(XRNIC_STATUS_BAD_PARAM, db_addr, htole64(8));
	BAD(XRNIC_STATUS_BAD_PARAM, qp_type, 0);
	BAD(XRNIC_STATUS_BAD_PARAM, qp_type, 9);	/* XRC: not a type of the device */
	BAD(XRNIC_STATUS_BAD_PARAM, qp_type, 5);	/* raw */
	BAD(XRNIC_STATUS_BAD_PARAM, sq_depth, htole32(0));
	BAD(XRNIC_STATUS_BAD_PARAM, sq_depth, htole32(1));
	BAD(XRNIC_STATUS_BAD_PARAM, sq_depth, htole32(24));
	BAD(XRNIC_STATUS_BAD_PARAM, sq_depth, htole32(2 * XE_MAX_QP_WR));
	BAD(XRNIC_STATUS_BAD_PARAM, rq_depth, htole32(1));
	BAD(XRNIC_STATUS_BAD_PARAM, rq_depth, htole32(3));
	BAD(XRNIC_STATUS_BAD_PARAM, rq_depth, htole32(0x80000000));
	BAD(XRNIC_STATUS_BAD_PARAM, max_send_sge, 0);
	BAD(XRNIC_STATUS_BAD_PARAM, max_send_sge, XRNIC_MAX_SGE + 1);
	BAD(XRNIC_STATUS_BAD_PARAM, max_recv_sge, 0);
	BAD(XRNIC_STATUS_BAD_PARAM, max_recv_sge, XRNIC_MAX_SGE + 1);
	BAD(XRNIC_STATUS_BAD_PARAM, max_inline, htole32(XRNIC_MAX_INLINE + 1));
	BAD(XRNIC_STATUS_BAD_PARAM, sq_addr, htole64(SQ_GPA + 128));
	BAD(XRNIC_STATUS_BAD_PARAM, rq_addr, htole64(RQ_GPA + 0x800));
	BAD(XRNIC_STATUS_BAD_ADDRESS, sq_addr, htole64(RAM_SIZE));
	BAD(XRNIC_STATUS_OK, sq_addr, htole64(RAM_SIZE - PAGE));	/* 2 KiB fit */
	BAD(XRNIC_STATUS_BAD_ADDRESS, rq_addr, htole64(4ull << 30));
	BAD(XRNIC_STATUS_NOT_FOUND, pdn, htole32(pdn + 1));
	BAD(XRNIC_STATUS_NOT_FOUND, pdn, 0);
	BAD(XRNIC_STATUS_NOT_FOUND, send_cqn, htole32(cqn + 1));
	BAD(XRNIC_STATUS_NOT_FOUND, recv_cqn, 0);
	BAD(XRNIC_STATUS_BAD_ADDRESS, db_addr, htole64(RAM_SIZE));
#undef BAD
	EXPECT_EQ(28, n);
	EXPECT_EQ(1, self->xe.pd[pdn].obj.refs);	/* the one that fit */
	EXPECT_EQ(2, self->xe.cq[cqn].obj.refs);

	/* The limits themselves are fine. */
	c = qp_cmd(pdn, cqn, cqn);
	c.sq_depth = htole32(XE_MAX_QP_WR);
	c.sq_addr = htole64(RAM_SIZE - XE_MAX_QP_WR * XRNIC_SQE_SIZE);
	c.rq_depth = htole32(2);
	c.max_send_sge = XRNIC_MAX_SGE;
	c.max_recv_sge = 1;
	c.max_inline = htole32(XRNIC_MAX_INLINE);
	EXPECT_EQ(XRNIC_STATUS_OK, create_qp(self, &c, &qpn));
	c.sq_addr = htole64(RAM_SIZE - XE_MAX_QP_WR * XRNIC_SQE_SIZE + PAGE);
	EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, create_qp(self, &c, &qpn));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(XRNIC_STATUS_OK, create_qp(self, (c = qp_cmd(pdn, cqn, cqn), &c), &qpn));
}

TEST_F(dev, qp_table_full_is_no_resources_and_qpns_are_unique)
{
	static uint32_t qpns[XE_MAX_QP];
	struct xrnic_cmd_create_qp c;
	uint32_t pdn, cqn, qpn;
	int i, j;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	ASSERT_EQ(XRNIC_STATUS_OK, create_cq(self, CQ_GPA, 64, 0, &cqn));
	c = qp_cmd(pdn, cqn, cqn);
	for (i = 0; i < XE_MAX_QP; i++)
		ASSERT_EQ(XRNIC_STATUS_OK, create_qp(self, &c, &qpns[i])) TH_LOG("QP %d", i);
	EXPECT_EQ(XRNIC_STATUS_NO_RESOURCES, create_qp(self, &c, &qpn));
	for (i = 0; i < XE_MAX_QP; i++) {
		ASSERT_GE(qpns[i], 2);
		ASSERT_LE(qpns[i], XRNIC_QPN_MASK);
		for (j = 0; j < i; j++)
			ASSERT_NE(qpns[i], qpns[j]);
	}
}

TEST_F(dev, a_destroyed_qpn_is_not_found_and_not_handed_out_again_at_once)
{
	uint32_t pdn, cqn, a, b;
	struct xrnic_cmd_create_qp c;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &a));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_DESTROY_QP, a, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, qpn_cmd(self, XRNIC_ADMIN_DESTROY_QP, a, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, a, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, to_state(self, a, XRNIC_QPS_INIT));
	c = qp_cmd(pdn, cqn, cqn);
	ASSERT_EQ(XRNIC_STATUS_OK, create_qp(self, &c, &b));
	EXPECT_NE(a, b);
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, a, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, 0, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, 1, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP,
						  b | (1u << 24), NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, b, NULL));
}

TEST_F(dev, qp_commands_with_reserved_bytes_set_are_malformed)
{
	struct xrnic_cmd_qp q = { };
	struct xrnic_qp_attr m = { };
	uint32_t pdn, cqn, qpn;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	q.qpn = htole32(qpn);
	q.reserved[0] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_QUERY_QP, &q, NULL));
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_DESTROY_QP, &q, NULL));
	/* The address vector's bytes are unused without XRNIC_QP_AV. */
	m.dmac[5] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, modify(self, qpn, 0, m));
	EXPECT_EQ(XRNIC_STATUS_OK, modify(self, qpn, 0, (struct xrnic_qp_attr){ }));
	EXPECT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_DESTROY_QP, qpn, NULL));
}

TEST_F(dev, modify_qp_walks_the_legal_rc_path)
{
	static const uint8_t path[] = {
		XRNIC_QPS_INIT, XRNIC_QPS_INIT, XRNIC_QPS_RTR, XRNIC_QPS_RTS, XRNIC_QPS_RTS,
		XRNIC_QPS_SQD, XRNIC_QPS_SQD, XRNIC_QPS_RTS, XRNIC_QPS_ERR, XRNIC_QPS_ERR,
		XRNIC_QPS_RESET, XRNIC_QPS_RESET, XRNIC_QPS_INIT,
	};
	uint32_t pdn, cqn, qpn;
	size_t i;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	for (i = 0; i < ARRAY_SIZE(path); i++) {
		EXPECT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, path[i])) TH_LOG("step %zu", i);
		EXPECT_EQ(path[i], qp_state(self, qpn));
	}
	/* SQE, entered by the device on a send error, goes back to RTS. */
	xe_qp_get(&self->xe, qpn)->state = XRNIC_QPS_SQE;
	EXPECT_EQ(XRNIC_QPS_SQE, qp_state(self, qpn));
	EXPECT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_RTS));
	EXPECT_EQ(XRNIC_QPS_RTS, qp_state(self, qpn));
}

TEST_F(dev, modify_qp_rejects_illegal_transitions_as_bad_state)
{
	/* to[from]: the states RC may move to (IB spec 10.3.1), RESET and ERR aside. */
	static const uint8_t to[] = {
		[XRNIC_QPS_RESET] = 1 << XRNIC_QPS_INIT,
		[XRNIC_QPS_INIT] = 1 << XRNIC_QPS_INIT | 1 << XRNIC_QPS_RTR,
		[XRNIC_QPS_RTR] = 1 << XRNIC_QPS_RTS,
		[XRNIC_QPS_RTS] = 1 << XRNIC_QPS_RTS | 1 << XRNIC_QPS_SQD,
		[XRNIC_QPS_SQD] = 1 << XRNIC_QPS_SQD | 1 << XRNIC_QPS_RTS,
		[XRNIC_QPS_SQE] = 1 << XRNIC_QPS_RTS,
		[XRNIC_QPS_ERR] = 0,
	};
	uint32_t pdn, cqn, qpn;
	int from, next, ok;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	/* The ones everybody gets wrong, from states reached the legal way. */
	EXPECT_EQ(XRNIC_STATUS_BAD_STATE, to_state(self, qpn, XRNIC_QPS_RTR));
	ASSERT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_INIT));
	EXPECT_EQ(XRNIC_STATUS_BAD_STATE, to_state(self, qpn, XRNIC_QPS_RTS));
	ASSERT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_RTR));
	EXPECT_EQ(XRNIC_STATUS_BAD_STATE, to_state(self, qpn, XRNIC_QPS_SQD));
	EXPECT_EQ(XRNIC_QPS_RTR, qp_state(self, qpn));
	EXPECT_NE(NULL, strstr(self->logbuf, "illegal QP state transition"));

	for (from = XRNIC_QPS_RESET; from <= XRNIC_QPS_ERR; from++) {
		for (next = XRNIC_QPS_RESET; next <= XRNIC_QPS_ERR; next++) {
			xe_qp_get(&self->xe, qpn)->state = from;
			ok = next == XRNIC_QPS_RESET || next == XRNIC_QPS_ERR ||
			     (to[from] >> next & 1);
			EXPECT_EQ(ok ? XRNIC_STATUS_OK : XRNIC_STATUS_BAD_STATE,
				  to_state(self, qpn, next)) TH_LOG("%d -> %d", from, next);
			EXPECT_EQ(ok ? next : from, qp_state(self, qpn));
		}
	}
	/* No such state: out of range, not a transition. */
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, to_state(self, qpn, XRNIC_QPS_ERR + 1));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, to_state(self, qpn, 0xff));
}

/* Fill the whole GID table, so that any sgid_index names a GID; its status. */
static uint8_t set_all_gids(struct _test_data_dev *self)
{
	struct xrnic_cmd_set_gid g = { .port_num = 1, .valid = 1 };
	uint8_t st = XRNIC_STATUS_OK;

	for (g.index = 0; g.index < XE_PORT_GID_TBL_LEN && !st; g.index++) {
		g.gid[15] = g.index;
		st = admin(self, XRNIC_ADMIN_SET_GID, &g, NULL);
	}
	return st;
}

TEST_F(dev, modify_qp_rejects_out_of_range_fields_as_bad_param)
{
	const struct {
		uint32_t mask;
		struct xrnic_qp_attr a;
		uint8_t status;
	} cases[] = {
#define C(m, field, v, st) { XRNIC_QP_##m, { .field = v }, XRNIC_STATUS_##st }
		C(PATH_MTU, path_mtu, 0, BAD_PARAM),
		C(PATH_MTU, path_mtu, 1, OK),
		C(PATH_MTU, path_mtu, 5, OK),
		C(PATH_MTU, path_mtu, 6, BAD_PARAM),
		C(TIMEOUT, timeout, 31, OK),
		C(TIMEOUT, timeout, 32, BAD_PARAM),
		C(RETRY_CNT, retry_cnt, 7, OK),
		C(RETRY_CNT, retry_cnt, 8, BAD_PARAM),
		C(RNR_RETRY, rnr_retry, 7, OK),
		C(RNR_RETRY, rnr_retry, 8, BAD_PARAM),
		C(MIN_RNR_TIMER, min_rnr_timer, 31, OK),
		C(MIN_RNR_TIMER, min_rnr_timer, 32, BAD_PARAM),
		C(RQ_PSN, rq_psn, htole32(0xffffff), OK),
		C(RQ_PSN, rq_psn, htole32(0x1000000), BAD_PARAM),
		C(SQ_PSN, sq_psn, htole32(0xffffff), OK),
		C(SQ_PSN, sq_psn, htole32(0xffffffff), BAD_PARAM),
		C(DEST_QPN, dest_qpn, htole32(0xffffff), OK),
		C(DEST_QPN, dest_qpn, htole32(0x1000000), BAD_PARAM),
		C(PORT, port_num, 1, OK),
		C(PORT, port_num, 0, BAD_PARAM),
		C(PORT, port_num, 2, BAD_PARAM),
		C(ACCESS_FLAGS, access_flags, htole16(0xe), OK),
		C(ACCESS_FLAGS, access_flags, htole16(XRNIC_ACCESS_LOCAL_WRITE), BAD_PARAM),
		C(ACCESS_FLAGS, access_flags, htole16(0x10), BAD_PARAM),
		C(AV, sgid_index, 15, OK),
		C(AV, sgid_index, 16, BAD_PARAM),
		C(AV, dmac[0], 0x52, OK),
		C(AV, dmac[0], 0x01, BAD_PARAM),	/* multicast */
		C(MAX_QP_RD_ATOMIC, max_rd_atomic, 128, OK),
		C(MAX_QP_RD_ATOMIC, max_rd_atomic, 129, BAD_PARAM),
		C(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic, 128, OK),
		C(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic, 255, BAD_PARAM),
#undef C
	};
	uint32_t pdn, cqn, qpn;
	struct xrnic_qp_attr before, after;
	size_t i;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, set_all_gids(self));
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	ASSERT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_INIT));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(0, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &before));
		EXPECT_EQ(cases[i].status, modify(self, qpn, cases[i].mask, cases[i].a))
			TH_LOG("case %zu", i);
		ASSERT_EQ(0, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &after));
		if (cases[i].status)	/* a rejected command changes nothing */
			EXPECT_EQ(0, memcmp(&before, &after, sizeof(before))) TH_LOG("case %zu", i);
	}
	/* A bad field fails the whole command, the state change included. */
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, modify(self, qpn, XRNIC_QP_STATE | XRNIC_QP_TIMEOUT,
						 (struct xrnic_qp_attr){ .state = XRNIC_QPS_RTR,
									 .timeout = 32 }));
	EXPECT_EQ(XRNIC_QPS_INIT, qp_state(self, qpn));
}

TEST_F(dev, modify_qp_rejects_unknown_mask_bits_and_unmasked_fields)
{
	uint32_t pdn, cqn, qpn;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, modify(self, qpn, 1u << 1, (struct xrnic_qp_attr){ }));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, modify(self, qpn, 1u << 21, (struct xrnic_qp_attr){ }));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, modify(self, qpn, 0x80000000,
						 (struct xrnic_qp_attr){ }));
	/* A field outside attr_mask is an unused byte. */
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, modify(self, qpn, XRNIC_QP_STATE,
						 (struct xrnic_qp_attr){ .state = XRNIC_QPS_INIT,
									 .timeout = 1 }));
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, modify(self, qpn, XRNIC_QP_TIMEOUT,
						 (struct xrnic_qp_attr){ .state = XRNIC_QPS_INIT }));
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, modify(self, qpn, XRNIC_QP_PORT,
						 (struct xrnic_qp_attr){ .port_num = 1,
									 .dgid[15] = 1 }));
	/* PKEY_INDEX has no field: the bit alone is fine. */
	EXPECT_EQ(XRNIC_STATUS_OK, modify(self, qpn, XRNIC_QP_PKEY_INDEX,
					  (struct xrnic_qp_attr){ }));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, to_state(self, qpn + 1, XRNIC_QPS_INIT));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, to_state(self, 0, XRNIC_QPS_INIT));
	EXPECT_EQ(XRNIC_QPS_RESET, qp_state(self, qpn));
}

static struct xrnic_qp_attr full_attr(uint32_t state)
{
	struct xrnic_qp_attr a = {
		.dest_qpn = htole32(0xabcdef),
		.rq_psn = htole32(0x123456),
		.sq_psn = htole32(0x654321),
		.access_flags = htole16(XRNIC_ACCESS_REMOTE_READ | XRNIC_ACCESS_REMOTE_WRITE),
		.state = state,
		.path_mtu = 3,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 6,
		.min_rnr_timer = 12,
		.max_rd_atomic = 4,
		.max_dest_rd_atomic = 8,
		.sgid_index = 2,
		.hop_limit = 64,
		.traffic_class = 0x28,
		.port_num = 1,
		.dmac = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef },
	};

	for (int i = 0; i < 16; i++)
		a.dgid[i] = 0xf0 + i;
	return a;
}

TEST_F(dev, query_qp_answers_every_field_as_modified)
{
	struct xrnic_qp_attr want = full_attr(XRNIC_QPS_RTS), got;
	uint32_t pdn, cqn, qpn;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, set_all_gids(self));
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));

	/* A new QP: defaults. */
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &got));
	EXPECT_EQ(qpn, le32toh(got.qpn));
	EXPECT_EQ(XRNIC_QP_RC_ATTRS, le32toh(got.attr_mask));
	EXPECT_EQ(XRNIC_QPS_RESET, got.state);
	EXPECT_EQ(1, got.path_mtu);
	EXPECT_EQ(1, got.port_num);
	got.path_mtu = got.port_num = 0;
	got.qpn = got.attr_mask = 0;
	EXPECT_TRUE(xe_all_zero(&got, sizeof(got)));

	ASSERT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_INIT));
	ASSERT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_RTR));
	/* Everything at once, with the RTR->RTS transition. */
	ASSERT_EQ(XRNIC_STATUS_OK, modify(self, qpn, XRNIC_QP_RC_ATTRS, want));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &got));
	want.qpn = htole32(qpn);
	want.attr_mask = htole32(XRNIC_QP_RC_ATTRS);
	EXPECT_EQ(0, memcmp(&want, &got, sizeof(want)));
	EXPECT_EQ(0xabcdef, le32toh(got.dest_qpn));
	EXPECT_EQ(0x123456, le32toh(got.rq_psn));
	EXPECT_EQ(0x654321, le32toh(got.sq_psn));
	EXPECT_EQ(0xf5, got.dgid[5]);
	EXPECT_EQ(0x28, got.traffic_class);
	EXPECT_EQ(0xef, got.dmac[5]);

	/* Only the fields in the mask change. */
	ASSERT_EQ(XRNIC_STATUS_OK, modify(self, qpn, XRNIC_QP_SQ_PSN | XRNIC_QP_TIMEOUT,
					  (struct xrnic_qp_attr){ .sq_psn = htole32(7),
								  .timeout = 0 }));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &got));
	want.sq_psn = htole32(7);
	want.timeout = 0;
	EXPECT_EQ(0, memcmp(&want, &got, sizeof(want)));
}

TEST_F(dev, set_gid_checks_its_fields_and_the_av_names_a_set_gid)
{
	struct xrnic_cmd_set_gid g = { .port_num = 1, .index = 3, .valid = 1,
				       .gid = { 0xfe, 0x80 } };
	struct xrnic_qp_attr av = { .sgid_index = 3, .hop_limit = 1 };
	uint32_t pdn, cqn, qpn;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	ASSERT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_INIT));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, modify(self, qpn, XRNIC_QP_AV, av));
	g.reserved[35] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_SET_GID, &g, NULL));
	g.reserved[35] = 0;
	g.valid = 2;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_SET_GID, &g, NULL));
	g.valid = 1;
	g.port_num = 2;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_SET_GID, &g, NULL));
	g.port_num = 1;
	g.index = XE_PORT_GID_TBL_LEN;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_SET_GID, &g, NULL));
	g.index = 3;
	ASSERT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_SET_GID, &g, NULL));
	EXPECT_EQ(XRNIC_STATUS_OK, modify(self, qpn, XRNIC_QP_AV, av));
	EXPECT_EQ(0xfe, self->xe.qp[XE_QPN_SLOT(qpn)].attr.sgid[0]);

	/* Emptied, with a zero GID only; then the AV is refused again. */
	g.valid = 0;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_SET_GID, &g, NULL));
	memset(g.gid, 0, sizeof(g.gid));
	EXPECT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_SET_GID, &g, NULL));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, modify(self, qpn, XRNIC_QP_AV, av));
	/* The QP kept the GID it was given. */
	EXPECT_EQ(0xfe, self->xe.qp[XE_QPN_SLOT(qpn)].attr.sgid[0]);

	g.valid = 1;
	ASSERT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_SET_GID, &g, NULL));
	reset(self);
	EXPECT_FALSE(self->xe.gid[3].valid);
}

TEST_F(dev, moving_to_reset_restores_the_default_attributes)
{
	struct xrnic_qp_attr fresh, got;
	uint32_t pdn, cqn, qpn;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, set_all_gids(self));
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &fresh));
	ASSERT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_INIT));
	ASSERT_EQ(XRNIC_STATUS_OK, modify(self, qpn, XRNIC_QP_RC_ATTRS,
					  full_attr(XRNIC_QPS_RTR)));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &got));
	ASSERT_NE(0, memcmp(&fresh, &got, sizeof(got)));
	ASSERT_EQ(XRNIC_STATUS_OK, to_state(self, qpn, XRNIC_QPS_RESET));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &got));
	EXPECT_EQ(0, memcmp(&fresh, &got, sizeof(got)));
	/* Even attributes given with the move to RESET. */
	ASSERT_EQ(XRNIC_STATUS_OK, modify(self, qpn, XRNIC_QP_RC_ATTRS,
					  full_attr(XRNIC_QPS_RESET)));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &got));
	EXPECT_EQ(0, memcmp(&fresh, &got, sizeof(got)));
	/* ERR keeps them. */
	ASSERT_EQ(XRNIC_STATUS_OK, modify(self, qpn, XRNIC_QP_RC_ATTRS, full_attr(XRNIC_QPS_ERR)));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, &got));
	EXPECT_EQ(0x654321, le32toh(got.sq_psn));
}

/* Reset and counters */

TEST_F(dev, reset_drops_every_object)
{
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, cqn, qpn, key, n;
	uint64_t cnt[XRNIC_NUM_COUNTERS];
	struct xe_dev *xe = &self->xe;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	c = mr_cmd(self, pdn, 0, IOVA, 600 * PAGE);
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &n));

	start(self);	/* resets the device */
	EXPECT_EQ(0, xe->mr_pages);
	for (n = 0; n <= XE_MAX_MR; n++)
		ASSERT_FALSE(xe->mr[n].obj.live || xe->mr[n].pages);
	for (n = 0; n <= XE_MAX_PD; n++)
		ASSERT_FALSE(xe->pd[n].obj.live || xe->pd[n].obj.refs);
	for (n = 0; n <= XE_MAX_CQ; n++)
		ASSERT_FALSE(xe->cq[n].obj.live || xe->cq[n].obj.refs);
	for (n = 0; n < XE_QPN_SLOT_END; n++)
		ASSERT_FALSE(xe->qp[n].obj.live);
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, qpn_cmd(self, XRNIC_ADMIN_QUERY_QP, qpn, NULL));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dereg_mr(self, key, 0));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, destroy_cq(self, cqn));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_pd(self, pdn));
	query_stats(self, cnt);
	EXPECT_EQ(5, cnt[XRNIC_CNT_ADMIN_COMMANDS]);
	EXPECT_EQ(4, cnt[XRNIC_CNT_ADMIN_ERRORS]);
	/* Numbering starts over. */
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &n));
	EXPECT_EQ(qpn, n);
}

static struct xrnic_resp_query_resources resources(struct _test_data_dev *self)
{
	struct xrnic_resp_query_resources r;

	memset(&r, 0xff, sizeof(r));
	if (admin(self, XRNIC_ADMIN_QUERY_RESOURCES, NULL, &r) != XRNIC_STATUS_OK)
		memset(&r, 0xff, sizeof(r));
	return r;
}

TEST_F(dev, query_resources_counts_live_objects)
{
	struct xrnic_resp_query_resources r;
	struct xrnic_cmd_pd bad = { .pdn = htole32(1) };
	struct xrnic_cmd_reg_mr c;
	uint32_t pdn, cqn, qpn, key;

	start(self);
	r = resources(self);
	EXPECT_EQ(0, le32toh(r.pds) + le32toh(r.mrs) + le32toh(r.cqs) +
		     le32toh(r.qps));
	EXPECT_EQ(0, le64toh(r.mr_pages));
	ASSERT_EQ(XRNIC_STATUS_OK, make_qp(self, &pdn, &cqn, &qpn));
	c = mr_cmd(self, pdn, 0, IOVA, 600 * PAGE);
	ASSERT_EQ(XRNIC_STATUS_OK, reg_mr(self, &c, &key));
	r = resources(self);
	EXPECT_EQ(1, le32toh(r.pds));
	EXPECT_EQ(1, le32toh(r.mrs));
	EXPECT_EQ(1, le32toh(r.cqs));
	EXPECT_EQ(1, le32toh(r.qps));
	EXPECT_EQ(600, le64toh(r.mr_pages));
	ASSERT_EQ(XRNIC_STATUS_OK, dereg_mr(self, key, 0));
	ASSERT_EQ(XRNIC_STATUS_OK, qpn_cmd(self, XRNIC_ADMIN_DESTROY_QP, qpn, NULL));
	r = resources(self);
	EXPECT_EQ(0, le32toh(r.mrs) + le32toh(r.qps));
	EXPECT_EQ(0, le64toh(r.mr_pages));
	EXPECT_EQ(XRNIC_STATUS_MALFORMED,
		  admin(self, XRNIC_ADMIN_QUERY_RESOURCES, &bad, NULL));
}

TEST_F(dev, query_stats_counts_completed_commands_and_errors)
{
	uint64_t cnt[XRNIC_NUM_COUNTERS];
	uint32_t pdn;

	start(self);
	query_stats(self, cnt);
	EXPECT_EQ(1, cnt[XRNIC_CNT_ADMIN_COMMANDS]);	/* itself */
	EXPECT_EQ(0, cnt[XRNIC_CNT_ADMIN_ERRORS]);
	query_stats(self, cnt);
	EXPECT_EQ(2, cnt[XRNIC_CNT_ADMIN_COMMANDS]);

	ASSERT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_pd(self, pdn + 1));
	EXPECT_EQ(XRNIC_STATUS_BAD_OPCODE, admin(self, 0x42, NULL, NULL));
	put_cmd(self, self->next, XRNIC_ADMIN_QUERY_DEVICE, 0)->flags |= 0x40;
	run_one(self, self->next++);
	query_stats(self, cnt);
	EXPECT_EQ(7, cnt[XRNIC_CNT_ADMIN_COMMANDS]);
	EXPECT_EQ(3, cnt[XRNIC_CNT_ADMIN_ERRORS]);
	EXPECT_EQ(0, cnt[XRNIC_CNT_TX_PACKETS]);
	EXPECT_EQ(0, cnt[XRNIC_CNT_RX_PACKETS]);
	EXPECT_EQ(0, cnt[XRNIC_CNT_TX_BYTES]);
	EXPECT_EQ(0, cnt[XRNIC_CNT_RX_BYTES]);

	/* Disabling and re-enabling the admin queue is no reset. */
	wr(self, XRNIC_REG_AQ_CTL, 0);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	wr(self, XRNIC_REG_AQ_CTL, XRNIC_AQ_CTL_ENABLE);
	xe_doorbell(&self->xe, XRNIC_VEC_ADMIN);
	self->next = 0;
	memset(self->xe.mem.base + ACQ_GPA, 0, 4 * XRNIC_ACQ_ENTRY_SIZE);
	memset(self->xe.mem.base + AQ_GPA, 0, 4 * XRNIC_AQ_ENTRY_SIZE);
	query_stats(self, cnt);
	EXPECT_EQ(8, cnt[XRNIC_CNT_ADMIN_COMMANDS]);
}

TEST_F(dev, query_stats_checks_its_counter_page)
{
	struct xrnic_cmd_query_stats c = { .buf_addr = htole64(STATS_GPA) };
	uint8_t *page = self->xe.mem.base + STATS_GPA;

	start(self);
	memset(page, 0xee, PAGE);
	c.reserved[47] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_QUERY_STATS, &c, NULL));
	c.reserved[47] = 0;
	c.buf_addr = 0;
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_QUERY_STATS, &c, NULL));
	c.buf_addr = htole64(STATS_GPA + 8);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, admin(self, XRNIC_ADMIN_QUERY_STATS, &c, NULL));
	c.buf_addr = htole64(RAM_SIZE);
	EXPECT_EQ(XRNIC_STATUS_BAD_ADDRESS, admin(self, XRNIC_ADMIN_QUERY_STATS, &c, NULL));
	/* None of the refusals wrote a byte. */
	EXPECT_EQ(0xeeeeeeeeeeeeeeeeull, *(uint64_t *)page);
	c.buf_addr = htole64(STATS_GPA);
	EXPECT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_QUERY_STATS, &c, NULL));
	EXPECT_EQ(5, le64toh(*(uint64_t *)page));	/* the five commands, itself included */
	EXPECT_EQ(0xee, page[XRNIC_NUM_COUNTERS * 8]);	/* nothing past the counters */
}

TEST_F(dev, rejected_object_commands_log_the_reason)
{
	uint32_t pdn;

	start(self);
	EXPECT_EQ(XRNIC_STATUS_NOT_FOUND, dealloc_pd(self, 77));
	EXPECT_EQ(XRNIC_STATUS_OK, alloc_pd(self, &pdn));
	fflush(self->xe.log);
	EXPECT_NE(NULL, strstr(self->logbuf, "opcode 4: no such object: no such PD"));
	EXPECT_EQ(NULL, strstr(self->logbuf, "opcode 3"));
}

/* Congestion control parameters (QUERY_CC, SET_CC) */

static uint8_t cc_cmd(struct _test_data_dev *self, uint8_t opcode, uint32_t param,
		      uint32_t value, uint32_t *answer)
{
	struct xrnic_cmd_cc c = { .param = htole32(param), .value = htole32(value) };
	struct xrnic_cmd_cc r = { };
	uint8_t status = admin(self, opcode, &c, &r);

	if (answer)
		*answer = le32toh(r.value);
	return status;
}

TEST_F(dev, query_cc_answers_mlx5s_defaults)
{
	struct xe_cc_params d;
	uint32_t p, v, min, max;

	start(self);
	xe_cc_defaults(&d);
	for (p = 0; p < XRNIC_CC_NUM_PARAMS; p++) {
		v = 0xdead;
		EXPECT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_QUERY_CC, p, 0, &v));
		EXPECT_EQ(*xe_cc_param(&d, p, &min, &max), v) TH_LOG("parameter %u", p);
		EXPECT_LE(min, v);
		EXPECT_GE(max, v);
	}
	EXPECT_EQ(1, d.np_enable);
	EXPECT_EQ(48, d.cnp_dscp);
	EXPECT_EQ(300, d.rpg_time_reset);
}

TEST_F(dev, set_cc_takes_each_end_of_each_range_and_query_reads_it_back)
{
	uint32_t p, v, min, max;
	struct xe_cc_params d;

	start(self);
	xe_cc_defaults(&d);
	for (p = 0; p < XRNIC_CC_NUM_PARAMS; p++) {
		xe_cc_param(&d, p, &min, &max);
		ASSERT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_SET_CC, p, max, NULL));
		EXPECT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_QUERY_CC, p, 0, &v));
		EXPECT_EQ(max, v);
		ASSERT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_SET_CC, p, min, NULL));
		EXPECT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_QUERY_CC, p, 0, &v));
		EXPECT_EQ(min, v);
	}
	/* What the algorithm reads: the device's own parameters. */
	EXPECT_EQ(0, self->xe.cc.np_enable);
	EXPECT_EQ(1, self->xe.cc.rpg_time_reset);
	EXPECT_EQ(1, self->xe.cc.rpg_min_dec_fac);
}

TEST_F(dev, set_cc_outside_a_range_is_bad_param_and_changes_nothing)
{
	uint32_t p, v, min, max, before;
	struct xe_cc_params d;

	start(self);
	xe_cc_defaults(&d);
	for (p = 0; p < XRNIC_CC_NUM_PARAMS; p++) {
		before = *xe_cc_param(&d, p, &min, &max);
		EXPECT_EQ(XRNIC_STATUS_BAD_PARAM, cc_cmd(self, XRNIC_ADMIN_SET_CC, p, max + 1, NULL));
		EXPECT_EQ(XRNIC_STATUS_BAD_PARAM,
			  cc_cmd(self, XRNIC_ADMIN_SET_CC, p, 0xffffffff, NULL));
		if (min)
			EXPECT_EQ(XRNIC_STATUS_BAD_PARAM,
				  cc_cmd(self, XRNIC_ADMIN_SET_CC, p, min - 1, NULL));
		EXPECT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_QUERY_CC, p, 0, &v));
		EXPECT_EQ(before, v) TH_LOG("parameter %u", p);
	}
	EXPECT_NE(NULL, strstr(self->logbuf, "value outside the parameter's range"));
}

TEST_F(dev, a_reset_sets_the_cc_parameters_back_to_their_defaults)
{
	uint32_t v;

	start(self);
	ASSERT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_SET_CC, XRNIC_CC_NP_ENABLE, 0, NULL));
	ASSERT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_SET_CC, XRNIC_CC_RP_AI_RATE, 9, NULL));
	start(self);	/* resets the device */
	EXPECT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_QUERY_CC, XRNIC_CC_NP_ENABLE, 0, &v));
	EXPECT_EQ(1, v);
	EXPECT_EQ(XRNIC_STATUS_OK, cc_cmd(self, XRNIC_ADMIN_QUERY_CC, XRNIC_CC_RP_AI_RATE, 0, &v));
	EXPECT_EQ(5, v);
}

TEST_F(dev, cc_commands_for_no_parameter_or_with_reserved_bytes_fail)
{
	struct xrnic_cmd_cc c = { .param = htole32(XRNIC_CC_RP_AI_RATE), .value = htole32(7) };

	start(self);
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM,
		  cc_cmd(self, XRNIC_ADMIN_QUERY_CC, XRNIC_CC_NUM_PARAMS, 0, NULL));
	EXPECT_EQ(XRNIC_STATUS_BAD_PARAM,
		  cc_cmd(self, XRNIC_ADMIN_SET_CC, 0xffffffff, 1, NULL));
	EXPECT_NE(NULL, strstr(self->logbuf, "no such parameter"));
	/* A query gives no value. */
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_QUERY_CC, &c, NULL));
	c.reserved[47] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_SET_CC, &c, NULL));
	EXPECT_EQ(5, self->xe.cc.rpg_ai_rate);
}

/* QUERY_CLOCK: the whole clock whose low 32 bits stamp CQEs, now. */
TEST_F(dev, query_clock_reads_the_device_clock_now)
{
	struct xrnic_resp_query_clock r = { };
	uint8_t data[XRNIC_ADMIN_DATA_SIZE] = { };
	int64_t before, after, prev = 0;
	int i;

	start(self);
	for (i = 0; i < 3; i++) {
		before = xe_now_ns();
		ASSERT_EQ(XRNIC_STATUS_OK, admin(self, XRNIC_ADMIN_QUERY_CLOCK, data, &r));
		after = xe_now_ns();
		EXPECT_LE(before, (int64_t)le64toh(r.now_ns));
		EXPECT_GE(after, (int64_t)le64toh(r.now_ns));
		EXPECT_LT(prev, (int64_t)le64toh(r.now_ns));
		prev = le64toh(r.now_ns);
	}
	/* It takes no parameters. */
	data[55] = 1;
	EXPECT_EQ(XRNIC_STATUS_MALFORMED, admin(self, XRNIC_ADMIN_QUERY_CLOCK, data, NULL));
	EXPECT_NE(NULL, strstr(self->logbuf, "parameters given"));
}

TEST_HARNESS_MAIN
