#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write the fuzz_pkt seed corpus into $1: one input per kind of exchange,
# each a WQE pick, a length and packets as IBTA lays them out (see
# fuzz/fuzz_pkt.c for the input format).  POSIX sh and printf only.
set -eu
out=$1
mkdir -p "$out"

# be BYTES VALUE: a big-endian integer.
be() {
	n=$1 v=$2
	while [ "$n" -gt 0 ]; do
		n=$((n - 1))
		printf "\\$(printf %03o $(((v >> (8 * n)) & 255)))"
	done
}

# bth OPCODE QP PSN: SE 0, pad 0, default P_Key, AckReq set.
bth() { be 1 "$1"; be 1 0; be 2 0xffff; be 1 "$2"; be 3 0; be 1 0x80; be 3 "$3"; }
reth() { be 8 "$1"; be 4 0; be 4 "$2"; }	# VA, rkey 0 (the MR's), length
aeth() { be 4 "$1"; }				# syndrome << 24 | MSN

# pkt LENGTH: the 16-bit length prefix of the packet that follows.
pkt() { be 2 "$1"; }

buf=$((0x40000))
{ be 1 0; be 1 0; pkt 16; bth 4 1 0; head -c 4 /dev/zero; } >"$out/send-only"
{ be 1 0; be 1 0; pkt 268; bth 0 1 0; head -c 256 /dev/zero
  pkt 12; bth 1 1 1; pkt 20; bth 2 1 2; head -c 8 /dev/zero; } >"$out/send-first-middle-last"
{ be 1 0; be 1 0; pkt 36; bth 10 1 0; reth $buf 8; head -c 8 /dev/zero; } >"$out/write-only"
{ be 1 0; be 1 0; pkt 28; bth 12 1 0; reth $buf 600; } >"$out/read-request"
{ be 1 0; be 1 0; pkt 40; bth 20 1 0; be 8 $buf; be 4 0; be 8 1; be 8 0; } >"$out/fetch-add"
{ be 1 1; be 1 1; pkt 16; bth 17 0 0; aeth 0x1f000001; } >"$out/ack-of-send"
{ be 1 1; be 1 1; pkt 16; bth 17 0 0; aeth 0x21000000; } >"$out/rnr-nak"
{ be 1 2; be 1 1; pkt 16; bth 17 0 0; aeth 0x62000000; } >"$out/nak-access"
{ be 1 3; be 1 10; pkt 272; bth 13 0 0; aeth 0x1f000001; head -c 256 /dev/zero
  pkt 268; bth 14 0 1; head -c 256 /dev/zero
  pkt 144; bth 15 0 2; aeth 0x1f000001; head -c 128 /dev/zero; } >"$out/read-responses"
{ be 1 4; be 1 0; pkt 24; bth 18 0 0; aeth 0x1f000001; be 8 42; } >"$out/atomic-ack"
# Three in flight (SEND, WRITE, READ of 64 bytes): one ACK for the first
# two, then the READ's response.
{ be 1 5; be 1 1; pkt 16; bth 17 0 1; aeth 0x1f000002
  pkt 80; bth 16 0 2; aeth 0x1f000003; head -c 64 /dev/zero; } >"$out/window"
# UD: a SEND Only with its DETH (Q_Key 0: the UD QP's; source QP 5) and
# with immediate.  UC (its receive PSN is 100): a SEND Only, then a WRITE
# Only behind it.
{ be 1 0; be 1 0; pkt 36; bth 100 0 0; be 4 0; be 4 5; head -c 16 /dev/zero
  pkt 40; bth 101 0 1; be 4 0; be 4 5; be 4 7; head -c 16 /dev/zero; } >"$out/ud-sends"
{ be 1 0; be 1 0; pkt 20; bth 36 0 100; head -c 8 /dev/zero
  pkt 36; bth 42 0 101; reth $buf 8; head -c 8 /dev/zero; } >"$out/uc-send-write"
# A CNP (BTH, 16 reserved bytes) to QP 0, whose rate it cuts (DCQCN).
{ be 1 1; be 1 1; pkt 28; bth 0x81 0 0; head -c 16 /dev/zero; } >"$out/cnp"
