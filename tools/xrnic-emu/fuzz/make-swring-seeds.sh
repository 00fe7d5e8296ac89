#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write the fuzz_swring seed corpus into $1 (see fuzz/fuzz_swring.c for the
# input format): rings a producer would write.  POSIX sh and printf only.
set -eu
out=$1
mkdir -p "$out"

# shellcheck source=SCRIPTDIR/seeds.sh
. "$(dirname "$0")/seeds.sh"
# record LEN: a frame of LEN zero bytes, padded to 8.
record() { le 4 "$1"; zeros $((($1 + 4 + 7) / 8 * 8 - 4)); }

{ le 4 0; le 4 64; record 60; } >"$out/one-frame"
{ le 4 0; le 4 $((64 + 1520 + 4104)); record 60; record 1514; record 4096; } >"$out/three-frames"
# At the ring's end: the second record runs past it.
{ le 4 $((8388608 - 64)); le 4 $((64 + 1520)); record 60; record 1514; } >"$out/past-the-end"
{ le 4 0; le 4 8; le 4 0; zeros 4; } >"$out/zero-length"
