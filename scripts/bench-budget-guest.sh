#!/bin/sh
# Runs in both guests of scripts/bench-budget.sh (with
# scripts/tests/rdma-pair.sh as /rdma-pair.sh): an 8-byte ib_write_lat
# ping-pong between two XRNIC guests, guest 1 serving, while the device
# models capture their wires.  Guest 2 asks the host for the QEMUs' and
# device models' CPU time at the ping-pong's ends (XRDMA-HOST: cpu
# pingpong.begin, pingpong.end); each guest prints the doorbells its
# device counted and the WRITEs it posted: "RESULT doorbells.I N" and
# "RESULT posts.I N".  Not a test.
. /rdma-pair.sh
pair_setup
ITERS=20000
d0=$(pair_stat doorbells)
[ "$XRDMA_VM_INDEX" = 1 ] || { sleep 1; echo "XRDMA-HOST: cpu pingpong.begin"; }
PAIR_TIMEOUT=300 pair_run budget.ib_write_lat 1 ib_write_lat -x 1 -s 8 -n $ITERS -F
[ "$XRDMA_VM_INDEX" = 1 ] || echo "XRDMA-HOST: cpu pingpong.end"
# Guest 1 (and its QEMU) stays until guest 2 asked for the end's CPU times.
pair_meet
echo "RESULT doorbells.$XRDMA_VM_INDEX $(($(pair_stat doorbells) - d0))"
echo "RESULT posts.$XRDMA_VM_INDEX $ITERS"
exit $rc
