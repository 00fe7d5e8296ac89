/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture of the port's wire (xrnic-emu --pcap FILE): every frame the
 * port sends to its tap and every frame it reads from it, in the classic
 * pcap format (microsecond timestamps, link type Ethernet), written as it
 * happens so that a device model killed mid-run leaves a readable file.
 */
#ifndef XE_PCAP_H
#define XE_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Create path and write the file header; the FILE or NULL (errno set). */
FILE *xe_pcap_open(const char *path);
/* Append one frame with the current time; errors are ignored (a capture
 * never stops the device). */
void xe_pcap_frame(FILE *f, const uint8_t *frame, size_t len);

#endif /* XE_PCAP_H */
