#!/bin/bash
# The vxlan layer: two "hosts" (network namespaces joined by a veth pair,
# the underlay, MTU 9100), each running its own scripts/xrdma-vm run with
# one XRNIC guest (host 2 also an rdma_rxe guest), --host-index 1 and 2,
# their segments joined by VXLAN (--vxlan): guest xrdma-vm1 on host 1 and
# xrdma-vm17 on host 2 ping each other, run ibv_rc_pingpong (data checked)
# and ib_write_bw over RoCE v2 across the VXLAN, then xrdma-vm1 and the
# rxe guest xrdma-vm18 ping, ibv_rc_pingpong and rping
# (scripts/tests/vxlan-guest.sh).  Then a run whose
# underlay MTU is too small for the segment's frames is refused.  KTAP:
# both runs' lines, then this script's.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/tests/vxlan-hosts.sh
vxlan_hosts || exit 1
# run H ARGS...: host H's run, its output prefixed by the runner as usual.
run() {
	vxlan_run "$1" "${@:2}" --add scripts/tests/rdma-pair.sh:/rdma-pair.sh scripts/tests/vxlan-guest.sh
}
run 1 --vms 1 &
one=$!
run 2 --vms 2 --rxe 2 &
two=$!
rc=0
wait $one || rc=1
wait $two || rc=1

echo "1..1"
ip -n "xrdma-host1-$$" link set xrul1 mtu 1500
if vxlan_run 1 /etc/hostname \
	>/tmp/vxlan-mtu-$$.log 2>&1; then
	echo "not ok 1 vxlan.an_underlay_mtu_too_small_is_refused"
	rc=1
elif grep -q "has MTU 1500; the segment's 9000-byte frames need 9050" /tmp/vxlan-mtu-$$.log; then
	echo "ok 1 vxlan.an_underlay_mtu_too_small_is_refused"
else
	sed 's/^/# /' /tmp/vxlan-mtu-$$.log
	echo "not ok 1 vxlan.an_underlay_mtu_too_small_is_refused"
	rc=1
fi
rm -f /tmp/vxlan-mtu-$$.log
exit $rc
