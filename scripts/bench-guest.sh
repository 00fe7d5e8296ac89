#!/bin/bash
# Runs inside a guest (scripts/bench-loopback.sh): perftest in loopback on
# one RDMA device, server and client in this guest.  Prints one line per
# figure: "RESULT metric bytes unit value" (bandwidth: the average MB/s;
# latency: the typical, i.e. median, microseconds), as perftest reports
# them from the guest's cycle counter; and for bandwidth also
# "RESULT metric_wall bytes MB/s value" from the guest's wall clock: the
# difference of two runs of ITERS_BW="n1 n2" iterations, so that setup
# time cancels; on a device with a "doorbells" counter (xrnic0) also
# "RESULT metric_doorbells_per_wqe bytes ratio value" over the second run.
# Setup from the environment: DEV, GIDX, ITERS_BW.
iters=500
# Until the server listens on perftest's port (at most 30 s).
wait_listen() {
	local i
	for i in $(seq 300); do
		netstat -ltn 2>/dev/null | grep -q ':18515 ' && return 0
		sleep 0.1
	done
	return 1
}
# once PROGRAM BYTES ITERS: a server and a client; sets $rc and $elapsed (us).
# perftest gives up when its clock calibration is too noisy (a busy TCG
# host): such a run is repeated, up to three times.
once() {
	local t0 try
	for try in 1 2 3; do
		timeout 600 "$1" -d "$DEV" -x "$GIDX" -s "$2" -n "$3" >/tmp/bench_s.log 2>&1 &
		server=$!
		wait_listen
		t0=${EPOCHREALTIME/./}
		timeout 600 "$1" -d "$DEV" -x "$GIDX" -s "$2" -n "$3" 127.0.0.1 >/tmp/bench_c.log 2>&1
		rc=$?
		elapsed=$(( ${EPOCHREALTIME/./} - t0 ))
		wait $server
		grep -q "Can't produce a report" /tmp/bench_c.log /tmp/bench_s.log || break
	done
}
# counter NAME: one of the device's counters (rdma statistic), or nothing.
counter() {
	rdma statistic show link "$DEV/1" 2>/dev/null |
		awk -v n="$1" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }'
}
wall() { # program bytes
	local n1=${ITERS_BW% *} n2=${ITERS_BW#* } e1 db
	once "$1" "$2" "$n1"
	e1=$elapsed
	db=$(counter doorbells)
	once "$1" "$2" "$n2"
	if [ -n "$db" ] && [ $rc -eq 0 ]; then
		echo "RESULT ${1}_doorbells_per_wqe $2 ratio $(awk -v d=$(( $(counter doorbells) - db )) \
			-v n="$n2" 'BEGIN { printf "%.4f", d / n }')"
	fi
	if [ $rc -ne 0 ]; then
		sed 's/^/# /' /tmp/bench_c.log /tmp/bench_s.log
		echo "FAILED $1 $2 (wall clock)"
		return 1
	fi
	echo "RESULT ${1}_wall $2 MB/s $(awk -v b=$(( ($n2 - $n1) * $2 )) -v us=$(( elapsed - e1 )) \
		'BEGIN { printf "%.1f", b / us }')"
}
run() { # program bytes column
	prog=$1 bytes=$2 col=$3
	once "$prog" "$bytes" $iters
	line=$(grep -E "^ +$bytes +[0-9]+ +[0-9.]+" /tmp/bench_c.log | head -1)
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		sed 's/^/# /' /tmp/bench_c.log /tmp/bench_s.log
		echo "FAILED $prog $bytes"
		return 1
	fi
	unit=MB/s
	case $prog in *_lat) unit=us ;; esac
	echo "RESULT $prog $bytes $unit $(echo "$line" | awk -v c="$col" '{ print $c }')"
}
status=0
run ib_write_bw 65536 4 || status=1
wall ib_write_bw 65536 || status=1
run ib_read_bw 65536 4 || status=1
wall ib_read_bw 65536 || status=1
run ib_write_lat 8 5 || status=1
run ib_read_lat 8 5 || status=1
run ib_send_lat 8 5 || status=1
exit $status
