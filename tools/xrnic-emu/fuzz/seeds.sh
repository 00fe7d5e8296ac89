# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Helpers of the fuzz seed scripts (make-*-seeds.sh source it).  POSIX sh
# and printf only.

# le BYTES VALUE: a little-endian integer.
le() {
	n=$1 v=$2
	while [ "$n" -gt 0 ]; do
		printf "\\$(printf %03o $((v & 255)))"
		v=$((v >> 8))
		n=$((n - 1))
	done
}

# zeros N: N zero bytes.
zeros() { head -c "$1" /dev/zero; }
