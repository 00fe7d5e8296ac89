#!/bin/sh
# The runner's guest of make check-packages (scripts/tests/own-vm.sh):
# xrdma-vm1 serves ibv_rc_pingpong to the plain Debian guest (xrdma-vm2 on
# the segment), which installs xrdma's packages first (DKMS builds the
# modules there under TCG: minutes).  KTAP.
. /rdma-pair.sh
pair_setup xrdma-vm2
# One test: nothing to meet for (the plain Debian guest has no nc).
PAIR_MEET=0
echo "TAP version 13"
echo "1..1"
PAIR_TIMEOUT=1500 pair_run own_vm.runner_guest_serves_rc_pingpong 1 ibv_rc_pingpong -g 1 -c -n 200
exit "$rc"
