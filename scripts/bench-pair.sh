#!/bin/bash
# The two-guest measurement of "make bench": perftest between two XRNIC
# guests, then in the same run between two rdma_rxe guests on virtio-net
# (the same kind of guest and segment), and iperf3 TCP between those;
# prints a table with the ratios and writes build/bench/latest.json as
# {"setup": {...}, "results": [{"metric", "bytes", "unit", "xrdma", "rxe",
# "tcp"}, ...]} (tcp null where TCP has no counterpart).  Not a test:
# nothing here passes or fails on a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh gnuplot-nox
make -s all >/dev/null
out=build/bench
mkdir -p "$out"
cc -O2 -Wall -Wextra -Werror -o "$out/tcp_pingpong" tools/bench/tcp_pingpong.c
pair=(--add scripts/tests/rdma-pair.sh:/rdma-pair.sh --add scripts/bench-perftest.sh:/bench-perftest.sh
	--add "$out/tcp_pingpong:/tcp_pingpong")

echo "bench: two XRNIC guests" >&2
scripts/xrdma-vm run --vms 2 --timeout 900 "${pair[@]}" scripts/bench-pair-guest.sh \
	>"$out/pair-xrnic.log" 2>&1 || { cat "$out/pair-xrnic.log"; exit 1; }
echo "bench: two rdma_rxe guests on virtio-net" >&2
scripts/xrdma-vm run --vms 2 --rxe 1 --rxe 2 --timeout 900 "${pair[@]}" \
	scripts/bench-pair-guest.sh \
	>"$out/pair-rxe.log" 2>&1 || { cat "$out/pair-rxe.log"; exit 1; }

# figures LOG: the "metric bytes unit value" lines of a run: what guest 2
# printed as RESULT, and the CPU per GB worked out from the steady runs
# (bench-pair-guest.sh): each guest's busy ticks (USER_HZ, 10 ms) over a
# window of a transfer, the host's "cpu" answers (ns) at the window's ends,
# and the transfer's rate, as cpu_initiator_OP, cpu_target_OP and
# cpu_device_OP (both device models) 65536 ms/GB: CPU milliseconds per
# 10^9 bytes moved.
figures() {
	awk '
	$2 == "RESULT" && $3 !~ /^(cpu|rate)\./ { print $3, $4, $5, $6 }
	$2 == "RESULT" && $3 ~ /^cpu\./ { split($3, k, "."); ticks[k[2], k[3]] = $6; win[k[3]] = $4 }
	$2 == "RESULT" && $3 ~ /^rate\./ { split($3, k, "."); rate[k[2]] = $6 }
	$2 == "host:" && $3 == "cpu" && $0 ~ / emu[0-9]+=[0-9]/ {
		ns = 0
		for (i = 5; i <= NF; i++) if ($i ~ /^emu[0-9]+=[0-9]+$/) { split($i, kv, "="); ns += kv[2] }
		mark[$4] = ns }
	END {
		split("write read send tcp", ops, " ")
		for (o = 1; o <= 4; o++) {
			op = ops[o]
			if (!(op in rate) || rate[op] <= 0) continue
			gb = rate[op] * win[op] / 1000
			if (("initiator", op) in ticks)
				printf "cpu_initiator_%s 65536 ms/GB %.1f\n", op, ticks["initiator", op] * 10 / gb
			if (("target", op) in ticks)
				printf "cpu_target_%s 65536 ms/GB %.1f\n", op, ticks["target", op] * 10 / gb
			if ((op ".begin") in mark && (op ".end") in mark)
				printf "cpu_device_%s 65536 ms/GB %.1f\n", op,
					(mark[op ".end"] - mark[op ".begin"]) / 1e6 / gb
		}
	}' "$1"
}
figures "$out/pair-xrnic.log" >"$out/pair-xrnic.fig"
figures "$out/pair-rxe.log" >"$out/pair-rxe.fig"
# The incast and the CE-marked flow, when scripts/bench-incast.sh ran
# first, and the VXLAN between two hosts, when scripts/bench-vxlan.sh did.
for f in incast-xrnic ce vxlan-xrnic; do
	[[ ! -f $out/$f.fig ]] || cat "$out/$f.fig" >>"$out/pair-xrnic.fig"
done
for f in incast-rxe vxlan-rxe; do
	[[ ! -f $out/$f.fig ]] || cat "$out/$f.fig" >>"$out/pair-rxe.fig"
done

echo "bench: the device model alone on the host" >&2
tools/xrnic-emu/build/bench_engine >"$out/engine.log"
awk '$1 == "RESULT" { print $2, $3, $4, $5 }' "$out/engine.log" >"$out/engine.fig"

# value FIG METRIC BYTES: a figure of a run, or null.
value() {
	awk -v m="$2" -v b="$3" '$1 == m && $2 == b { v = $4 } END { print v == "" ? "null" : v }' "$1"
}
rows() {
	local s
	for s in 4096 65536 1048576; do
		echo "ib_write_bw $s MB/s tcp_bw"
		echo "ib_read_bw $s MB/s -"
		echo "ib_send_bw $s MB/s tcp_bw"
	done
	echo "ib_write_bw_q4 65536 MB/s tcp_bw"
	echo "ib_write_bw_q16 65536 MB/s tcp_bw"
	for s in 8 64 4096; do
		echo "ib_write_lat $s us tcp_lat"
		echo "ib_read_lat $s us -"
		echo "ib_send_lat $s us tcp_lat"
	done
	for s in 8 64; do
		for p in p99 p999; do
			echo "ib_write_lat_$p $s us tcp_lat_$p"
			echo "ib_send_lat_$p $s us tcp_lat_$p"
		done
	done
	echo "ib_atomic_lat 8 us -"
	for q in 1 4; do
		for s in 8 64 1024; do
			echo "ib_write_bw_rate_q$q $s Mmsg/s tcp_rate"
			echo "ib_send_bw_rate_q$q $s Mmsg/s tcp_rate"
		done
	done
	for s in initiator target; do
		echo "cpu_${s}_write 65536 ms/GB cpu_${s}"
		echo "cpu_${s}_read 65536 ms/GB -"
		echo "cpu_${s}_send 65536 ms/GB cpu_${s}"
	done
	echo "cpu_device_write 65536 ms/GB -"
	echo "cpu_device_read 65536 ms/GB -"
	echo "cpu_device_send 65536 ms/GB -"
	echo "incast_rdma_one 1048576 MB/s incast_tcp_one"
	for s in two three four; do
		echo "incast_rdma_$s 1048576 MB/s incast_tcp_$s"
		echo "incast_rdma_${s}_jain 1048576 index incast_tcp_${s}_jain"
	done
	echo "ib_write_bw_ce_marked 65536 MB/s -"
	echo "ib_write_lat_vxlan 8 us -"
	echo "ib_write_lat_vxlan_p99 8 us -"
	echo "ib_write_bw_vxlan 65536 MB/s -"
}
# tcp_of COUNTERPART BYTES: the TCP figure a row compares with, or null.
tcp_of() {
	case $1 in
	tcp_bw) value "$out/pair-rxe.fig" tcp_bw 131072 ;;
	tcp_lat | tcp_lat_p99 | tcp_lat_p999 | tcp_rate) value "$out/pair-rxe.fig" "$1" "$2" ;;
	cpu_*) value "$out/pair-rxe.fig" "${1}_tcp" 65536 ;;
	incast_*) value "$out/pair-rxe.fig" "$1" "$2" ;;
	*) echo null ;;
	esac
}
{
	printf '{"setup": {"date": "%s", "host": "%s cores, QEMU TCG", ' "$(date -u +%F)" "$(nproc)"
	printf '"guests": "two, -smp 1, 512 MiB, one NIC each on a bridge in a network namespace", '
	printf '"netdev_mtu": 9000, "path_mtu": 4096, '
	printf '"socket_buffers": "TCP and rxe: Linux defaults; an XRNIC port on the switch: a ring of 8 MiB to each peer", '
	printf '"xrdma": "XRNIC each, RoCE v2 by the device models, from one to the other through the host switch (xrnic-emu --switch)", '
	printf '"rxe": "rdma_rxe on virtio-net each", '
	printf '"tcp": "iperf3 for 5 s; iperf3 -l 8, 64, 1024 for 3 s each (message rate: bytes over the write size); tools/bench/tcp_pingpong (TCP_NODELAY, round trips halved: median, 99th and 99.9th percentiles), on the rxe guests'"'"' virtio-net", '
	printf '"iterations": "bandwidth: 4 KiB the middle 2 s of a 4 s run (-D 4), 2000 of 64 KiB, 200 of 1 MiB; latency 1000; message rate the middle 2 s of a 4 s run (-D 4)", '
	printf '"cpu": "busy ticks of each guest (/proc/stat) and the CPU time of both device models (host) over 4 s in the middle of a 12 s transfer of 64 KiB messages (iperf3 for TCP), per 10^9 bytes at that transfer'"'"'s rate"}, '
	printf '"results": ['
	sep=
	while read -r m b u t; do
		printf '%s{"metric": "%s", "bytes": %s, "unit": "%s", "xrdma": %s, "rxe": %s, "tcp": %s}' \
			"$sep" "$m" "$b" "$u" "$(value "$out/pair-xrnic.fig" "$m" "$b")" \
			"$(value "$out/pair-rxe.fig" "$m" "$b")" "$(tcp_of "$t" "$b")"
		sep=', '
	done < <(rows)
	for m in engine_write wire_write switch_write; do
		printf ', {"metric": "%s", "bytes": 1048576, "unit": "MB/s", "xrdma": %s, "rxe": null, "tcp": null, "memcpy": %s}' \
			"$m" "$(value "$out/engine.fig" "$m" 1048576)" \
			"$(value "$out/engine.fig" memcpy 1048576)"
	done
	printf ', {"metric": "switch_write_cpu", "bytes": 1048576, "unit": "ms/GB", "xrdma": %s, "rxe": null, "tcp": null}' \
		"$(value "$out/engine.fig" switch_write_cpu 1048576)"
	printf ']}\n'
} >"$out/latest.json"

# ratio X Y: X / Y, or "-" where either is missing.
ratio() {
	awk -v x="$1" -v y="$2" 'BEGIN {
		if (x !~ /^[0-9.]+$/ || y + 0 <= 0) { print "-"; exit }
		r = x / y; printf (r < 0.1 ? "%.3fx" : "%.2fx"), r }'
}
printf '%-22s %8s %6s %10s %10s %10s %9s %9s\n' metric bytes unit xrnic rxe tcp x/rxe x/tcp
while read -r m b u t; do
	x=$(value "$out/pair-xrnic.fig" "$m" "$b")
	r=$(value "$out/pair-rxe.fig" "$m" "$b")
	c=$(tcp_of "$t" "$b")
	[ "$c" != null ] || c=-
	printf '%-22s %8s %6s %10s %10s %10s %9s %9s\n' "$m" "$b" "$u" "$x" "$r" "$c" \
		"$(ratio "$x" "$r")" "$(ratio "$x" "$c")"
done < <(rows)
c=$(value "$out/engine.fig" memcpy 1048576)
for m in engine_write wire_write switch_write; do
	x=$(value "$out/engine.fig" "$m" 1048576)
	printf '%-22s %8s %6s %10s %21s %9s\n' "$m" 1048576 MB/s "$x" "memcpy $c" "$(ratio "$x" "$c")"
done
printf '%-22s %8s %6s %10s\n' switch_write_cpu 1048576 ms/GB \
	"$(value "$out/engine.fig" switch_write_cpu 1048576)"
# The plot: bandwidth, latency, CPU per GB and message rate side by side, log scales.
: >"$out/latest-bw.dat"
: >"$out/latest-lat.dat"
: >"$out/latest-cpu.dat"
: >"$out/latest-rate.dat"
while read -r m b u t; do
	case $u in us) f=lat ;; ms/GB) f=cpu ;; Mmsg/s) f=rate ;; index) continue ;; *) f=bw ;; esac
	echo "$m/$b $(value "$out/pair-xrnic.fig" "$m" "$b") $(value "$out/pair-rxe.fig" "$m" "$b")" \
		"$(tcp_of "$t" "$b")" | sed 's/null/NaN/g' >>"$out/latest-$f.dat"
done < <(rows)
gnuplot <<PLOT
set terminal pngcairo size 2100,520 font ",10" noenhanced
set output "$out/latest.png"
set multiplot layout 1,4 title "make bench $(date -u +%F): two guests, QEMU TCG, $(nproc) cores"
set style data histograms
set style histogram clustered gap 1
set style fill solid border -1
set logscale y
set grid y
set xtics rotate by -40 scale 0
set key outside right top vertical
set title "bandwidth, MB/s (higher is better)"
plot "$out/latest-bw.dat" using 2:xtic(1) title "xrnic", "" using 3 title "rxe", "" using 4 title "TCP"
set title "latency, us (lower is better)"
plot "$out/latest-lat.dat" using 2:xtic(1) title "xrnic", "" using 3 title "rxe", "" using 4 title "TCP"
set title "guest and device-model CPU, ms per GB moved (lower is better)"
plot "$out/latest-cpu.dat" using 2:xtic(1) title "xrnic", "" using 3 title "rxe", "" using 4 title "TCP"
set title "message rate, millions a second (higher is better)"
plot "$out/latest-rate.dat" using 2:xtic(1) title "xrnic", "" using 3 title "rxe", "" using 4 title "TCP"
unset multiplot
PLOT
echo "(bandwidth and message rate: higher is better; latency, one way: lower is better,"
echo " _p99/_p999 its percentiles; _rate_qN: perftest's MsgRate on N QPs; tcp: iperf3 (with"
echo " -l for the rate) and a TCP ping-pong on virtio-net; cpu_*: CPU ms per 10^9 bytes of 64 KiB messages, the"
echo " initiator (guest 2, TCP's sender), the target (guest 1, TCP's receiver), both device"
echo " models (host); engine/wire/switch_write: the device model alone on the host; _qN: on N QPs;"
echo " incast_*: one to four senders into one, the receiver's intake, and Jain's index of"
echo " the senders' own rates; ce_marked: one"
echo " flow whose every queued frame is marked CE, against ib_write_bw 65536 unmarked;"
echo " _vxlan: between guests on two hosts whose segments a VXLAN joins)"
echo "written: $out/latest.json, $out/latest.png"
