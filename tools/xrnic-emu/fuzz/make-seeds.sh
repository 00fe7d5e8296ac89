#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write the fuzz_admin seed corpus into $1: a valid ring setup (AQ 0x1000,
# ACQ 0x2000, AENQ 0x3000, depth 4, AENQ depth 4, all AQ_CTL bits) followed
# by a few commands.  Octal escapes keep it POSIX printf.
set -eu
out=$1
mkdir -p "$out"

hdr() {
	# aq, acq, aenq base (lo, hi), AQ_DEPTH 4, AENQ_DEPTH 4, AQ_CTL 7, AENQ_CI 0
	printf '\000\020\000\000\000\000\000\000\000\040\000\000\000\000\000\000'
	printf '\000\060\000\000\000\000\000\000\004\000\000\000\004\000\000\000'
	printf '\007\000\000\000\000\000\000\000'
}

# entry OPCODE FLAGS CMD_ID_LO FIRST_DATA_BYTE (octal escapes)
entry() {
	printf "\\$1\\$2\\$3\\000\\000\\000\\000\\000\\$4"
	head -c 55 /dev/zero
}

{ hdr; entry 001 001 001 000; } >"$out/seed-query-device"
# AQ 0x1000 depth 64 and ACQ 0x3000 depth 64 reach the end of the 16 KiB RAM.
{ printf '\000\020\000\000\000\000\000\000\000\060\000\000\000\000\000\000'
  printf '\000\040\000\000\000\000\000\000\100\000\000\000\004\000\000\000'
  printf '\003\000\000\000\000\000\000\000'
  entry 001 001 011 000; } >"$out/seed-ring-at-ram-end"
{ hdr; entry 002 001 002 001; entry 002 001 003 002; } >"$out/seed-query-port"
{ hdr; entry 001 001 004 000; entry 002 001 005 001; entry 377 001 006 000
  entry 001 003 007 000; entry 001 000 010 000; } >"$out/seed-mixed-lap"
