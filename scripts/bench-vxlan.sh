#!/bin/bash
# The VXLAN part of "make bench" (before bench-pair.sh, which puts its
# figures in its table and build/bench/latest.json): two "hosts" (network
# namespaces joined by a veth underlay, scripts/tests/vxlan-hosts.sh), each
# running scripts/xrdma-vm run with one guest, their segments joined by
# VXLAN; an XRNIC in each, then rxe in each (scripts/bench-vxlan-guest.sh).
# Writes build/bench/vxlan-xrnic.fig and vxlan-rxe.fig, "metric bytes unit
# value" lines.  Not a test: nothing passes or fails on a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s all >/dev/null
out=build/bench
mkdir -p "$out"
. scripts/tests/vxlan-hosts.sh
vxlan_hosts

# phase NAME ARGS...: both hosts' runs (ARGS added to each), their logs
# $out/NAME-host1.log and -host2.log, the measuring guest's RESULT lines
# $out/NAME.fig.
phase() {
	local name=$1 h pids=()
	shift
	for h in 1 2; do
		vxlan_run "$h" --vms 1 --timeout 900 "$@" \
			--add scripts/tests/rdma-pair.sh:/rdma-pair.sh \
			--add scripts/bench-perftest.sh:/bench-perftest.sh \
			scripts/bench-vxlan-guest.sh >"$out/$name-host$h.log" 2>&1 &
		pids+=($!)
	done
	for h in 1 2; do
		wait "${pids[h - 1]}" || { cat "$out/$name-host$h.log"; exit 1; }
	done
	awk '$2 == "RESULT" { print $3, $4, $5, $6 }' "$out/$name-host2.log" >"$out/$name.fig"
}
echo "bench: across a VXLAN between two hosts, an XRNIC guest on each" >&2
phase vxlan-xrnic
echo "bench: across a VXLAN between two hosts, an rdma_rxe guest on each" >&2
phase vxlan-rxe --rxe 1
