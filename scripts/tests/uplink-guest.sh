#!/bin/sh
# Runs in the one guest of each of two runs on one network
# (scripts/tests/uplink.sh): xrdma-vm1, an XRNIC, serves; xrdma-vm17, Linux's
# rdma_rxe, is the client, across the machines' bridges and their cable.
# KTAP.
. /rdma-pair.sh
# Across runs a guest goes by its number on the segment (1 or 17).
XRDMA_VM_INDEX=${XRDMA_IP##*.}
if [ "$XRDMA_VM_INDEX" = 1 ]; then peer=xrdma-vm17; else peer=xrdma-vm1; fi
pair_setup "$peer"
echo "TAP version 13"
echo "1..$((4 + $([ "$DEV" = xrnic0 ] && echo 1 || echo 0)))"
pair_ping "uplink.pings_the_other_machine"
pair_run "uplink.rc_pingpong_checks_data" 1 ibv_rc_pingpong -g 1 -c -n 200
pair_run "uplink.ib_write_bw" 1 ib_write_bw -x 1 -s 65536 -n 200 -F
pair_rping "uplink.rping_through_the_rdma_cm" 1
pair_icrc_check uplink
exit $rc
