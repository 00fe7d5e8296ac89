#!/bin/sh
# Runs in the guests of two runs joined by VXLAN (scripts/tests/vxlan.sh):
# xrdma-vm1 (an XRNIC, host 1) serves xrdma-vm17 (an XRNIC, host 2), then
# xrdma-vm18 (Linux's rdma_rxe, host 2), across the VXLAN.  The rxe guest's
# programs use other ports than the first pair's, so that they cannot meet
# a server of the first pair's while they try.  KTAP.
. /rdma-pair.sh
# Across runs a guest goes by its number on the segment (1, 17 or 18).
XRDMA_VM_INDEX=${XRDMA_IP##*.}
case $XRDMA_VM_INDEX in
1) pair_setup xrdma-vm17 ;;
*) pair_setup xrdma-vm1 ;;
esac
echo "TAP version 13"
case $XRDMA_VM_INDEX in
1) echo "1..7" ;;
17) echo "1..4" ;;
*) echo "1..3" ;;
esac
if [ "$XRDMA_VM_INDEX" != 18 ]; then
	pair_ping "vxlan.host${XRDMA_HOST_INDEX}_pings_the_other_host"
	pair_run vxlan.rc_pingpong_across_hosts 1 ibv_rc_pingpong -g 1 -c -n 200
	pair_run vxlan.ib_write_bw_across_hosts 1 ib_write_bw -x 1 -s 65536 -n 500 -F
fi
if [ "$XRDMA_VM_INDEX" != 17 ]; then
	[ "$XRDMA_VM_INDEX" != 1 ] || PEER=xrdma-vm18
	pair_ping "vxlan.xrnic_and_rxe_ping_across_hosts"
	pair_run vxlan.rc_pingpong_xrnic_to_rxe_across_hosts 1 ibv_rc_pingpong -g 1 -c -n 200 \
		-p 18600
	pair_rping vxlan.rping_xrnic_to_rxe_across_hosts 1
fi
pair_icrc_check vxlan
exit $rc
