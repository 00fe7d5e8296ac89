#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write the fuzz_frame seed corpus into $1 (see fuzz/fuzz_frame.c): inputs
# whose path part has IPv4-mapped or IPv6 GIDs, followed by a BTH and a
# payload.  POSIX sh and printf only.
set -eu
out=$1
mkdir -p "$out"

# bytes V...: octal-escaped bytes.
bytes() { for b in "$@"; do printf "\\$(printf %03o "$b")"; done; }
v4() { bytes 0 0 0 0 0 0 0 0 0 0 255 255 192 0 2 "$1"; }
v6() { bytes 254 128 0 0 0 0 0 0 0 0 0 0 0 0 0 "$1"; }
macs() { bytes 82 84 0 0 0 2 82 84 0 0 0 1; }
# bth: WRITE ONLY (10), default P_Key, QP 2, AckReq, PSN 5; RETH; 16 bytes.
bth() { bytes 10 0 255 255 0 0 0 2 128 0 0 5; head -c 16 /dev/zero; head -c 16 /dev/zero; }
{ v4 2; v4 1; macs; bytes 64 0 192 2; bth; } >"$out/ipv4"
{ v6 2; v6 1; macs; bytes 64 32 192 9; bth; } >"$out/ipv6"
# Frames of a real capture, one per BTH opcode: the interop layer's wire
# (an XRNIC and rxe, both ways), taken with pcap_check --seeds; opcode-81,
# a CNP (DCQCN), built by frame.c and pkt.c, as rxe sends none.
cp "$(dirname "$0")"/frames/opcode-* "$out/"
