#!/bin/bash
# Where a write ping-pong's time goes (issue 21): an 8-byte ib_write_lat
# between two XRNIC guests with both device models capturing their wires
# (scripts/bench-budget-guest.sh), then its budget from the captures, the
# device counters, the host's CPU time of each QEMU and device model over
# the ping-pong, and the device models' own work per WRITE (bench_engine's
# wire_write_msg).  A frame is captured when its device model builds it
# (before its batch leaves) and when the other one reads it, each with the
# host's clock (microseconds), so for each WRITE of the ping-pong:
#   hop   from its build to its arrival at the other device model (the
#         batch sent, the switch's socket, the receiver woken and reading);
#   turn  from its arrival to the other side's next WRITE built (the data
#         placed, that guest finding it, its post, the doorbell or the
#         device's poll picking the WQE up, the frame built).
# One way is a hop and a turn.  Prints the budget; keeps the run's files in
# build/bench/budget.  Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
make -s all >/dev/null
out=build/bench/budget
rm -rf "$out"
mkdir -p "$out"
scripts/xrdma-vm run --vms 2 --timeout 600 --pcap "$out" --add scripts/tests/rdma-pair.sh:/rdma-pair.sh \
	scripts/bench-budget-guest.sh >"$out/run.log" 2>&1 || { cat "$out/run.log"; exit 1; }
tools/xrnic-emu/build/bench_engine >"$out/engine.log"

# The RDMA WRITEs each device model saw: time (us), direction, PSN.
for i in 1 2; do
	tshark -n --disable-heuristic rpcrdma_infiniband -r "$out/guest$i.pcap" \
		-Y 'infiniband.bth.opcode == 10' -T fields \
		-e frame.time_epoch -e eth.src -e infiniband.bth.psn 2>/dev/null |
		awk -v g="$i" -v mac="52:54:00:00:00:0$i" '
			{ printf "%.1f %s %s %s\n", $1 * 1e6, g, ($2 == mac ? "tx" : "rx"), $3 }'
done | sort -n >"$out/writes.txt"

awk -v runlog="$out/run.log" -v engine="$out/engine.log" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0
	}
	# A frame built by one guest and read by the other: tx on one side,
	# rx on the other, the same PSN; the other side then builds its own.
	NR == 1 { first = $1 }
	{ last = $1 }
	$3 == "tx" { tx[$2, $4] = $1
		if (($2, "rx") in arrived) { turn[++nturn] = $1 - arrived[$2, "rx"]; delete arrived[$2, "rx"] } }
	$3 == "rx" { o = 3 - $2; if ((o, $4) in tx) { hop[++nhop] = $1 - tx[o, $4]; arrived[$2, "rx"] = $1 } }
	END {
		while ((getline l < runlog) > 0) {
			n = split(l, f, " ")
			if (f[2] == "RESULT") res[f[3]] = f[4]
			if (f[2] == "host:" && f[3] == "cpu")
				for (i = 5; i <= n; i++)
					if (split(f[i], kv, "=") == 2 && kv[2] ~ /^[0-9]+$/) cpu[f[4], kv[1]] = kv[2]
			if (f[2] == "#" && f[4] ~ /^[0-9]+$/ && f[3] == 8) lat = f[7]
		}
		while ((getline l < engine) > 0) { split(l, f, " "); if (f[2] == "wire_write_msg") dev = f[5] }
		h = median(hop, nhop); t = median(turn, nturn)
		printf "%-44s %9s\n", "item (medians of each WRITE of the ping-pong)", "us"
		printf "%-44s %9.1f\n", "hop: build to arrival at the other model", h
		printf "%-44s %9.1f\n", "turn: arrival to the next WRITE built", t
		printf "%-44s %9.1f\n", "one way: hop + turn", h + t
		printf "%-44s %9s\n", "one way, as perftest typical reports it", lat
		printf "%-44s %9s\n", "device models'"'"' work per WRITE (bench_engine)", dev
		printf "%-44s %9.3f\n", "doorbells per post, guest 1",
			res["posts.1"] ? res["doorbells.1"] / res["posts.1"] : 0
		printf "%-44s %9.3f\n", "doorbells per post, guest 2",
			res["posts.2"] ? res["doorbells.2"] / res["posts.2"] : 0
		split("qemu1 qemu2 emu1 emu2", who, " ")
		# "-": the process had ended when the host was asked.
		for (i = 1; i <= 4; i++) {
			cpus[who[i]] = "-"
			if (("pingpong.end", who[i]) in cpu && ("pingpong.begin", who[i]) in cpu)
				cpus[who[i]] = sprintf("%.2f",
					(cpu["pingpong.end", who[i]] - cpu["pingpong.begin", who[i]]) / 1e9)
		}
		printf "host CPU seconds from the ping-pong'"'"'s start to its end (%.2f s of WRITEs):\n",
			(last - first) / 1e6
		printf "  qemu1 %s, qemu2 %s, device models %s and %s\n",
			cpus["qemu1"], cpus["qemu2"], cpus["emu1"], cpus["emu2"]
		printf "(%d hops and %d turns measured)\n", nhop, nturn
	}' "$out/writes.txt" | tee "$out/budget.txt"
