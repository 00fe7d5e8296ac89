#!/bin/sh
# Runs in both guests of `scripts/xrdma-vm run --vms 2 --faults
# drop=5,dup=1,reorder=1,corrupt=0.5,seed=7` (with rdma-pair.sh and the
# selftests, as roce-guest.sh): RDMA between two XRNICs on a wire that
# drops, duplicates, reorders and corrupts what both devices send.
# verbs_peer's 100 000 SENDs (16 QPs) arrive exactly once and in order, its
# WRITE and READ data are checked byte for byte, its FETCH_ADDs from both
# sides sum exactly, its SRQ SENDs arrive once and in order and its UD
# datagrams (-l) are lost or duplicated, never corrupted; Debian's
# perftest completes; rping connects through
# the RDMA CM whose MADs suffer the same; the ICRC check drops the
# corrupted frames and rdma statistic counts them.  Not ibv_rc_pingpong:
# its server exits once its own last completion is in, so when the ACK of
# the client's last SEND is lost (it happened once in four runs) the
# client's resends find no QP and it fails with RETRY_EXC_ERR, on any RC
# transport; its data check runs in the lossless roce and interop layers.
# KTAP.
. /rdma-pair.sh
pair_setup

tests() {
	cat <<'LIST'
verbs_peer_100000_sends /selftests/verbs_peer -g 1 -q 16 -n 6250 -s 4194304 -a 500 -l
ib_write_bw ib_write_bw -x 1 -s 65536 -n 200 -F
ib_read_bw ib_read_bw -x 1 -s 65536 -n 200 -F
ib_atomic_bw ib_atomic_bw -x 1 -n 200 -F
LIST
}

echo "TAP version 13"
echo "1..$(($(tests | wc -l) + 3))"
tests >/tmp/roce-tests
while read -r name prog args; do
	# shellcheck disable=SC2086
	pair_run "roce_faults.$name" 1 "$prog" $args
done </tmp/roce-tests
# The RDMA CM's MADs are lost, duplicated and reordered too: IB CM sends
# again after its timeouts and answers duplicates, rping connects, pings
# with its data checked, and both sides see the disconnection.
pair_rping roce_faults.rping_through_lost_and_duplicated_mads 1
if [ "$(pair_stat injected_drops)" -gt 0 ] && [ "$(pair_stat retransmits)" -gt 0 ]; then
	say ok roce_faults.drops_were_injected_and_recovered
else
	say "not ok" roce_faults.drops_were_injected_and_recovered
fi
pair_icrc_check roce_faults
exit $rc
