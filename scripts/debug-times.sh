#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print tools/testing/selftests/xrdma/debug_times from the log of make
# check's debug layer (build/check/kselftests-debug-vm.log): the seconds
# each kselftest took on the debug kernel, as run_vm_tests.sh printed them
# ("# NAME: N s").  xrnic_device_death runs on both guests and is left out.
#
#   scripts/debug-times.sh build/check/kselftests-debug-vm.log \
#       >tools/testing/selftests/xrdma/debug_times
set -eu
[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: $0 LOG (a readable debug layer log)" >&2; exit 2; }
times=$(sed -n 's/^\[[0-9]*\] # \([a-z_]*\): \([0-9]*\) s$/\1 \2/p' "$1" | grep -v '^xrnic_device_death ' |
	sort -k2,2nr -k1,1)
[ -n "$times" ] || { echo "$0: no test times in $1" >&2; exit 1; }
cat <<'HDR'
# Seconds each kselftest took on the debug kernel in the guest that ran it,
# as the last make check measured them; run_vm_tests.sh splits the tests
# between the debug layer's two guests by these.  Refresh after a make
# check with: scripts/debug-times.sh build/check/kselftests-debug-vm.log
HDR
echo "$times"
