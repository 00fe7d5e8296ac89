#!/bin/sh
# Runs in the one guest of each of two runs joined by VXLAN
# (scripts/tests/vxlan.sh): xrdma-vm1 on host 1 serves, xrdma-vm17 on host
# 2 is the client, across the VXLAN.  KTAP.
. /rdma-pair.sh
# Across runs a guest goes by its number on the segment (1 or 17).
XRDMA_VM_INDEX=${XRDMA_IP##*.}
if [ "$XRDMA_VM_INDEX" = 1 ]; then peer=xrdma-vm17; else peer=xrdma-vm1; fi
pair_setup "$peer"
echo "TAP version 13"
echo "1..3"
pair_ping "vxlan.host${XRDMA_HOST_INDEX}_pings_the_other_host"
pair_run vxlan.rc_pingpong_across_hosts 1 ibv_rc_pingpong -g 1 -c -n 200
pair_run vxlan.ib_write_bw_across_hosts 1 ib_write_bw -x 1 -s 65536 -n 500 -F
exit $rc
