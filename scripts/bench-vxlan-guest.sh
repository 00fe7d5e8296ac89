#!/bin/sh
# Runs in the guests of the bench's two hosts (scripts/bench-vxlan.sh):
# xrdma-vm1 on host 1 serves, xrdma-vm17 on host 2 measures across the
# VXLAN between the hosts' segments, with perftest on an XRNIC or on rxe
# (--rxe) in each: "RESULT METRIC_vxlan BYTES UNIT VALUE" lines, as
# scripts/bench-pair-guest.sh prints them for two guests on one host.
# Not a test: a figure that cannot be taken is printed as FAILED.
. /rdma-pair.sh
# Across runs a guest goes by its number on the segment (1 or 17).
XRDMA_VM_INDEX=${XRDMA_IP##*.}
if [ "$XRDMA_VM_INDEX" = 1 ]; then pair_setup xrdma-vm17; else pair_setup xrdma-vm1; fi
client=$([ "$XRDMA_VM_INDEX" != 1 ] && echo 1)
. /bench-perftest.sh
perftest ib_write_lat 8 "-n 1000" _vxlan
perftest ib_write_bw 65536 "-n 2000" _vxlan
exit 0
