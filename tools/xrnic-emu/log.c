// SPDX-License-Identifier: GPL-2.0
/* The device log: one timestamped line per event. */
#include <stdarg.h>
#include <time.h>

#include "xe.h"

/* A NULL log discards everything (the fuzzer). */
void xe_log(struct xe_dev *xe, const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	va_list ap;

	if (!xe->log)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(xe->log, "%s.%03ld xrnic-emu: ", stamp, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(xe->log, fmt, ap);
	va_end(ap);
	fputc('\n', xe->log);
	fflush(xe->log);
}

/* At most XE_REJECT_LOG_LIMIT lines a second: the guest controls the rate. */
void xe_log_reject(struct xe_dev *xe, const struct xrnic_aq_entry *e, const char *why)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (ts.tv_sec != xe->reject_window) {
		xe->reject_window = ts.tv_sec;
		xe->reject_count = 0;
	}
	if (xe->reject_count > XE_REJECT_LOG_LIMIT)
		return;
	if (xe->reject_count++ < XE_REJECT_LOG_LIMIT)
		xe_log(xe, "rejected admin command cmd_id %u opcode %u: %s",
		       le16toh(e->cmd_id), e->opcode, why);
	else
		xe_log(xe, "further rejected admin commands not logged this second");
}
