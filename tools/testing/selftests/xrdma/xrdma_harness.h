/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's kselftest_harness.h, with a longer per-test time limit: the
 * tests run under TCG and, in make check, also on the debug kernel (KASAN,
 * lockdep, kmemleak), about ten times slower, where the harness's 30 s
 * would kill working tests.  The limit only catches a hang.
 */
#ifndef XRDMA_HARNESS_H
#define XRDMA_HARNESS_H

#include "kselftest_harness.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 600

#endif /* XRDMA_HARNESS_H */
