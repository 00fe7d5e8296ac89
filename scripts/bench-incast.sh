#!/bin/bash
# The incast and CE-marking parts of "make bench" (before bench-pair.sh,
# which puts their figures in its table and build/bench/latest.json):
# five XRNIC guests, then five rdma_rxe guests on virtio-net (with TCP
# between them), one to four senders into one (scripts/bench-incast-guest.sh);
# and two XRNIC guests whose switch marks CE whenever a frame waits
# (--ecn-threshold 0), one ib_write_bw flow (scripts/bench-ce-guest.sh).
# Writes build/bench/incast-xrnic.fig, incast-rxe.fig and ce.fig, "metric
# bytes unit value" lines.  Not a test: nothing passes or fails on a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s all >/dev/null
out=build/bench
mkdir -p "$out"
pair=(--add scripts/tests/rdma-pair.sh:/rdma-pair.sh)

# run NAME ARGS...: a runner run whose log is $out/NAME.log, its RESULT
# lines $out/NAME.fig.
run() {
	local name=$1
	shift
	scripts/xrdma-vm run --timeout 900 "${pair[@]}" "$@" >"$out/$name.log" 2>&1 ||
		{ cat "$out/$name.log"; exit 1; }
	awk '$2 == "RESULT" { print $3, $4, $5, $6 }' "$out/$name.log" >"$out/$name.fig"
}
echo "bench: incast, five XRNIC guests" >&2
run incast-xrnic --vms 5 scripts/bench-incast-guest.sh
echo "bench: incast, five rdma_rxe guests on virtio-net" >&2
run incast-rxe --vms 5 --rxe 1 --rxe 2 --rxe 3 --rxe 4 --rxe 5 scripts/bench-incast-guest.sh
echo "bench: one flow through a CE-marking switch, two XRNIC guests" >&2
run ce --vms 2 --ecn-threshold 0 scripts/bench-ce-guest.sh
