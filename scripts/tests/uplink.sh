#!/bin/bash
# The uplink layer: an XRNIC guest's port on a host NIC's network, talking
# RoCE v2 to Linux's rdma_rxe on another machine.  Two network namespaces
# stand for the two machines, a veth pair of MTU 9000 between them for the
# cable; in each a Linux bridge hb0 holds that machine's end (its NIC), as
# a host bridge for VMs does.  Machine 1 runs scripts/xrdma-vm run
# --host-index 1 --uplink hb0 with an XRNIC guest (xrdma-vm1), machine 2
# --host-index 2 --uplink hb0 with an rxe guest (xrdma-vm17, rxe on
# virtio-net: this host's kernel cannot load rdma_rxe itself).  The guests
# run scripts/tests/uplink-guest.sh.  KTAP: both runs' lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
m1=xrdma-machine1-$$ m2=xrdma-machine2-$$
cleanup() {
	ip netns del "$m1" 2>/dev/null
	ip netns del "$m2" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$m1" && ip netns add "$m2" &&
	ip link add nic1 netns "$m1" mtu 9000 type veth peer name nic2 netns "$m2" mtu 9000 || exit 1
for m in 1 2; do
	ns=xrdma-machine$m-$$
	ip -n "$ns" link set lo up
	ip -n "$ns" link add hb0 type bridge
	ip -n "$ns" link set "nic$m" master hb0 up
	ip -n "$ns" link set hb0 up
done
# run M ARGS...: machine M's run, its output prefixed by the runner as usual.
run() {
	ip netns exec "xrdma-machine$1-$$" scripts/xrdma-vm run --host-index "$1" --uplink hb0 \
		--vms 1 "${@:2}" --add scripts/tests/rdma-pair.sh:/rdma-pair.sh scripts/tests/uplink-guest.sh
}
run 1 &
one=$!
run 2 --rxe 1 &
two=$!
rc=0
wait $one || rc=1
wait $two || rc=1
exit $rc
