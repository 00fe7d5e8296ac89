#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write the fuzz_admin seed corpus into $1: a valid ring setup (AQ 0x1000,
# ACQ 0x2000, AENQ 0x3000, AENQ depth 4, all AQ_CTL bits), a RAM fill for the
# first page, then commands.  POSIX sh and printf only.
set -eu
out=$1
mkdir -p "$out"

# shellcheck source=SCRIPTDIR/seeds.sh
. "$(dirname "$0")/seeds.sh"

# hdr AQ_DEPTH FILL_LENGTH
hdr() {
	le 4 0x1000; le 4 0; le 4 0x2000; le 4 0; le 4 0x3000; le 4 0
	le 4 "$1"; le 4 4; le 4 7; le 4 0; le 4 "$2"
}

# entry OPCODE FLAGS CMD_ID_LO FIRST_DATA_BYTE (octal escapes)
entry() {
	printf "\\$1\\$2\\$3\\000\\000\\000\\000\\000\\$4"
	head -c 55 /dev/zero
}

# cmd OPCODE CMD_ID [LE-SIZE VALUE]...: a first-lap entry, body zero-padded.
cmd() {
	le 1 "$1"; le 1 1; le 2 "$2"; le 4 0
	shift 2
	{
		while [ $# -ge 2 ]; do
			le "$1" "$2"
			shift 2
		done
		head -c 56 /dev/zero
	} | head -c 56
}

{ hdr 4 0; entry 001 001 001 000; } >"$out/seed-query-device"
# AQ 0x1000 depth 64 and ACQ 0x3000 depth 64 reach the end of the 16 KiB RAM.
{ printf '\000\020\000\000\000\000\000\000\000\060\000\000\000\000\000\000'
  printf '\000\040\000\000\000\000\000\000\100\000\000\000\004\000\000\000'
  printf '\003\000\000\000\000\000\000\000\000\000\000\000'
  entry 001 001 011 000; } >"$out/seed-ring-at-ram-end"
{ hdr 4 0; entry 002 001 002 001; entry 002 001 003 002; } >"$out/seed-query-port"
{ hdr 4 0; entry 001 001 004 000; entry 002 001 005 001; entry 377 001 006 000
  entry 001 003 007 000; entry 001 000 010 000; } >"$out/seed-mixed-lap"

# Every object, then its teardown: PD 1, CQ 1, MR key 0x100 (3 pages inline),
# MR key 0x200 (600 pages chained through the chunk at 0, which loops), QP 2.
qp_rtr_mask=$((0x1 | 0x80 | 0x100 | 0x1000 | 0x8000 | 0x20000 | 0x100000))
{ hdr 16 16; le 8 0x1000; le 8 0x2000
  cmd 3 1
  cmd 7 2 8 0 4 2 2 0
  cmd 5 3 4 1 4 7 8 0x10 8 8192 4 3 1 12 1 0 2 0 8 0x1000 8 0x2000 8 0x3000
  cmd 5 4 4 1 4 0 8 0 8 $((600 * 4096)) 4 600 1 12 1 1 2 0 8 0
  cmd 9 5 4 1 4 1 4 1 4 2 4 2 1 2 1 1 1 1 1 0 8 0 8 0
  cmd 10 6 4 2 4 1 4 0 4 0 4 0 4 0 1 1
  cmd 10 7 4 2 4 $qp_rtr_mask 4 0x123 4 0x456 4 0 4 0 1 2 1 5 1 0 1 0 1 0 1 12 1 0 1 4
  cmd 11 8 4 2
  cmd 13 9
  cmd 6 10 4 0x100 4 0x100
  cmd 6 11 4 0x200
  cmd 12 12 4 2
  cmd 8 13 4 1
  cmd 4 14 4 1
  cmd 13 15; } >"$out/seed-objects"

# An SRQ (depth 4 at 0, its record at 0x800) and an RC QP on it, a UD QP
# given its Q_Key and attached to group ff0e::3, the SRQ's limit, a resize
# to 8 at 0 (record 0xa00) and one to 2 (not above the limit), and the
# teardown (the SRQ busy first, the UD QP busy until detached).
{ hdr 16 16; le 8 0x1000; le 8 0x2000
  cmd 3 1
  cmd 7 2 8 0 4 2 2 0
  cmd 20 3 4 1 4 4 8 0 8 0x800 1 1
  cmd 9 4 4 1 4 1 4 1 4 2 4 0 1 2 1 1 1 0 1 0 8 0 8 0 4 0 4 1 8 0xc0
  cmd 9 5 4 1 4 1 4 1 4 2 4 2 1 4 1 1 1 1 1 0 8 0 8 0 4 0 4 0 8 0x100
  cmd 10 6 4 3 4 $((0x1 | 0x10 | 0x20 | 0x40)) 4 0x11111111 4 0 4 0 2 0 1 1 1 0 1 0 1 0 1 0 1 0 1 0 1 0 8 0 8 0 1 0 1 0 1 0 1 1
  cmd 22 7 4 1 4 2
  cmd 23 8 4 1
  cmd 31 16 4 1 4 8 8 0 8 0xa00
  cmd 31 17 4 1 4 2 8 0 8 0xa00
  cmd 24 13 4 3 4 0 8 0x0eff 8 $((3 << 56))
  cmd 12 14 4 3
  cmd 25 15 4 3 4 0 8 0x0eff 8 $((3 << 56))
  cmd 21 9 4 1
  cmd 12 10 4 2
  cmd 21 11 4 1
  cmd 14 12; } >"$out/seed-srq-and-ud"

# Memory windows on PD 1: one of each type (rkeys 0x10000100, 0x10000200),
# the PD busy, a bad type, both freed by index, the PD freed.
{ hdr 16 0
  cmd 3 1
  cmd 26 2 4 1 4 0 1 1
  cmd 26 3 4 1 4 0 1 2
  cmd 26 4 4 1 4 0 1 3
  cmd 4 5 4 1
  cmd 27 6 4 0 4 0x10000100
  cmd 27 7 4 0 4 0x100002ff
  cmd 4 8 4 1
  cmd 14 9; } >"$out/seed-memory-windows"

# A chain of two chunks, pages 0 and 1, of page addresses 0: AQ 0x2000, ACQ
# and AENQ 0x3000.
{ le 4 0x2000; le 4 0; le 4 0x3000; le 4 0; le 4 0x3000; le 4 0
  le 4 4; le 4 4; le 4 7; le 4 0; le 4 4096
  head -c 4088 /dev/zero; le 8 0x1000
  cmd 3 1
  cmd 5 2 4 1 4 0 8 0 8 $((600 * 4096)) 4 600 1 12 1 1 2 0 8 0
  cmd 6 3 4 0x100; } >"$out/seed-two-chunks"

# Congestion control: a query, a set at the end of its range, one past it,
# no such parameter, a query giving a value.
{ hdr 8 0
  cmd 28 1 4 3
  cmd 29 2 4 13 4 31
  cmd 29 3 4 13 4 32
  cmd 28 4 4 17
  cmd 28 5 4 0 4 1; } >"$out/seed-congestion-control"
# QUERY_CLOCK, then one with a parameter (malformed).
{ hdr 4 0; cmd 30 1; cmd 30 2 8 1; } >"$out/seed-query-clock"
