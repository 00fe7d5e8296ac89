#!/bin/sh
# Runs in both guests of the bench's CE-marked flow (scripts/bench-incast.sh:
# two XRNIC guests whose switch marks a port's frames CE whenever one of its
# frames waits unread, --ecn-threshold 0): guest 2 writes 64 KiB
# messages into guest 1 with perftest ib_write_bw, as bench-pair-guest.sh
# does on an unmarked wire, and prints the rate and what DCQCN counted
# (guest 1 receives the marks and sends CNPs, guest 2 handles them).
# Not a test: a figure that cannot be taken is printed as FAILED.
. /rdma-pair.sh
pair_setup
pair_run bench.ib_write_bw_ce_marked 1 ib_write_bw -x 1 -s 65536 -n 2000 -F >/dev/null
if [ "$XRDMA_VM_INDEX" = 1 ]; then
	echo "# the receiver: CE-marked packets $(pair_stat np_ecn_marked_roce_packets), CNPs sent $(pair_stat np_cnp_sent)"
	exit 0
fi
echo "# the sender: CNPs handled $(pair_stat rp_cnp_handled)"
[ "$st" = 0 ] || { echo "FAILED ib_write_bw_ce_marked 65536"; exit 0; }
awk '$1 == 65536 && NF >= 5 { printf "RESULT ib_write_bw_ce_marked 65536 MB/s %.1f\n", $4 * 1.048576 }' \
	/tmp/pair.log
