#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print a kselftest times file (tools/testing/selftests/xrdma/times_debian
# or times_debug) from the log of the make check layer that ran the
# kselftests on that kernel: the seconds each kselftest took in the guest
# that ran it, as run_vm_tests.sh printed them ("# NAME: N s"; the longer
# of two guests that both ran it).  xrnic_device_death runs on both guests
# and is left out.
#
#   scripts/test-times.sh build/check/kselftests-vm.log \
#       >tools/testing/selftests/xrdma/times_debian
#   scripts/test-times.sh build/check/kselftests-debug-vm.log \
#       >tools/testing/selftests/xrdma/times_debug
set -eu
[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: $0 LOG (a readable kselftest layer log)" >&2; exit 2; }
times=$(sed -n 's/^\[[0-9]*\] # \([a-z_]*\): \([0-9]*\) s$/\1 \2/p' "$1" | grep -v '^xrnic_device_death ' |
	awk '!($1 in t) || $2 > t[$1] { t[$1] = $2 } END { for (n in t) print n, t[n] }' |
	sort -k2,2nr -k1,1)
[ -n "$times" ] || { echo "$0: no test times in $1" >&2; exit 1; }
cat <<HDR
# Seconds each kselftest took in the guest that ran it, as a make check
# measured them ($(basename "$1")); run_vm_tests.sh splits
# the tests between the layer's two guests by these.  Refresh after a make
# check with scripts/test-times.sh.
HDR
echo "$times"
