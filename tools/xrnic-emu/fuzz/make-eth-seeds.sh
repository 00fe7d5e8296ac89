#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write the fuzz_eth seed corpus into $1 (see fuzz/fuzz_eth.c for the input
# format): rings a driver would write, then frames.  POSIX sh and printf only.
set -eu
out=$1
mkdir -p "$out"

# shellcheck source=SCRIPTDIR/seeds.sh
. "$(dirname "$0")/seeds.sh"
# desc ADDR LEN: a descriptor, status 0.
desc() { le 8 "$1"; le 2 "$2"; le 2 0; le 4 0; }

# RAM from 0: TX ring (one frame of 100 bytes at 0x3000), RX ring (two
# 1518-byte buffers at 0x4000, 0x4800), doorbell record (tx_pi 1, rx_pi 2).
ram() {
	desc $((0x3000)) 100; zeros $((4096 - 16))
	desc $((0x4000)) 1518; desc $((0x4800)) 1518; zeros $((4096 - 32))
	le 4 1; le 4 2; le 4 1; zeros 52
}
{ le 2 $((8192 + 64)); ram; le 2 100; zeros 100; le 2 1600; zeros 1600; le 2 10; zeros 10; } \
	>"$out/tx-one-rx-three"
{ le 2 $((8192 + 64)); ram; le 2 60; zeros 60; le 2 60; zeros 60; le 2 60; zeros 60; } \
	>"$out/rx-ring-full"
