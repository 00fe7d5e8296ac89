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
pair=(--add scripts/tests/rdma-pair.sh:/rdma-pair.sh --add "$out/tcp_pingpong:/tcp_pingpong")

echo "bench: two XRNIC guests" >&2
scripts/xrdma-vm run --vms 2 --timeout 900 "${pair[@]}" scripts/bench-pair-guest.sh \
	>"$out/pair-xrnic.log" 2>&1 || { cat "$out/pair-xrnic.log"; exit 1; }
echo "bench: two rdma_rxe guests on virtio-net" >&2
scripts/xrdma-vm run --vms 2 --rxe 1 --rxe 2 --timeout 900 "${pair[@]}" \
	scripts/bench-pair-guest.sh \
	>"$out/pair-rxe.log" 2>&1 || { cat "$out/pair-rxe.log"; exit 1; }

# value LOG METRIC BYTES: the figure guest 2 printed, or null.
value() {
	awk -v m="$2" -v b="$3" '$2 == "RESULT" && $3 == m && $4 == b { v = $6 }
		END { print v == "" ? "null" : v }' "$1"
}
figures() {
	local s
	for s in 4096 65536 1048576; do
		echo "ib_write_bw $s MB/s tcp_bw"
		echo "ib_read_bw $s MB/s -"
		echo "ib_send_bw $s MB/s tcp_bw"
	done
	for s in 8 4096; do
		echo "ib_write_lat $s us tcp_lat"
		echo "ib_read_lat $s us -"
		echo "ib_send_lat $s us tcp_lat"
	done
	echo "ib_atomic_lat 8 us -"
}
# tcp_of COUNTERPART BYTES: the TCP figure a row compares with, or null.
tcp_of() {
	case $1 in
	tcp_bw) value "$out/pair-rxe.log" tcp_bw 131072 ;;
	tcp_lat) value "$out/pair-rxe.log" tcp_lat "$2" ;;
	*) echo null ;;
	esac
}
{
	printf '{"setup": {"date": "%s", "host": "%s cores, QEMU TCG", ' "$(date -u +%F)" "$(nproc)"
	printf '"guests": "two, -smp 1, 512 MiB, one NIC each on a bridge in a network namespace", '
	printf '"netdev_mtu": 9000, "path_mtu": 4096, "socket_buffers": "Linux defaults", '
	printf '"xrdma": "XRNIC each, RoCE v2 by the device models", '
	printf '"rxe": "rdma_rxe on virtio-net each", "tcp": "iperf3 for 5 s, and tools/bench/tcp_pingpong (TCP_NODELAY, median round trip halved), on the rxe guests'"'"' virtio-net"}, '
	printf '"results": ['
	sep=
	while read -r m b u t; do
		printf '%s{"metric": "%s", "bytes": %s, "unit": "%s", "xrdma": %s, "rxe": %s, "tcp": %s}' \
			"$sep" "$m" "$b" "$u" "$(value "$out/pair-xrnic.log" "$m" "$b")" \
			"$(value "$out/pair-rxe.log" "$m" "$b")" "$(tcp_of "$t" "$b")"
		sep=', '
	done < <(figures)
	printf ']}\n'
} >"$out/latest.json"

printf '%-14s %8s %5s %10s %10s %10s %9s %9s\n' metric bytes unit xrnic rxe tcp x/rxe x/tcp
while read -r m b u t; do
	x=$(value "$out/pair-xrnic.log" "$m" "$b")
	r=$(value "$out/pair-rxe.log" "$m" "$b")
	c=$(tcp_of "$t" "$b")
	[ "$c" != null ] || c=-
	printf '%-14s %8s %5s %10s %10s %10s %9s %9s\n' "$m" "$b" "$u" "$x" "$r" "$c" \
		"$(awk -v x="$x" -v r="$r" 'BEGIN { if (x + 0 > 0 && r + 0 > 0) printf "%.2fx", x / r; else print "-" }')" \
		"$(awk -v x="$x" -v r="$c" 'BEGIN { if (x + 0 > 0 && r + 0 > 0) printf "%.2fx", x / r; else print "-" }')"
done < <(figures)
# The plot: bandwidth and latency side by side, log scales.
: >"$out/latest-bw.dat"
: >"$out/latest-lat.dat"
while read -r m b u t; do
	f=$([ "$u" = us ] && echo lat || echo bw)
	echo "$m/$b $(value "$out/pair-xrnic.log" "$m" "$b") $(value "$out/pair-rxe.log" "$m" "$b")" \
		"$(tcp_of "$t" "$b")" | sed 's/null/NaN/g' >>"$out/latest-$f.dat"
done < <(figures)
gnuplot <<PLOT
set terminal pngcairo size 1200,520 font ",10" noenhanced
set output "$out/latest.png"
set multiplot layout 1,2 title "make bench $(date -u +%F): two guests, QEMU TCG, $(nproc) cores"
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
unset multiplot
PLOT
echo "(bandwidth: higher is better; latency, one way: lower is better; tcp: iperf3 and a"
echo " TCP ping-pong on virtio-net)"
echo "written: $out/latest.json, $out/latest.png"
