#!/bin/sh
# Runs in both guests of a two-guest bench (scripts/bench-pair.sh, with
# scripts/tests/rdma-pair.sh as /rdma-pair.sh): guest 1 serves, guest 2
# measures, over the runner's segment, with Debian's perftest on the
# guests' RDMA device (an XRNIC each, or rxe on virtio-net with --rxe) and,
# on virtio-net, iperf3 and a TCP ping-pong.  Guest 2 prints one line per figure,
# "RESULT metric bytes unit value": bandwidth the average in MB/s (10^6
# bytes; perftest reports MiB/s), latency the typical (median) one-way
# time in microseconds and its 99th and 99.9th percentiles (METRIC_p99,
# METRIC_p999), message rate perftest's MsgRate in millions of messages a
# second (METRIC_rate_qN: N QPs), as perftest reports them.  Not a test: a figure
# that cannot be taken is printed as FAILED and the run goes on.
. /rdma-pair.sh
pair_setup
client=$([ "$XRDMA_VM_INDEX" = 2 ] && echo 1)
role=$([ -n "$client" ] && echo initiator || echo target)

# busy: the CPU time this guest has spent not idle, in USER_HZ (10 ms) ticks.
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# steady OP CMD...: run CMD, a transfer of STEADY_RUN seconds, in the
# background; count this guest's busy ticks over the STEADY_WINDOW seconds
# from STEADY_SKIP s after its start, while the transfer runs at its pace
# (setup left out): "RESULT cpu.ROLE.OP STEADY_WINDOW ticks T".  Guest 2,
# which starts a second after guest 1 (the server), also asks the host for
# the device models' CPU time at the window's ends (XRDMA-HOST: cpu
# OP.begin, OP.end) and prints the transfer's rate, "RESULT rate.OP 65536
# MB/s R".  scripts/bench-pair.sh works out CPU per GB from them.
STEADY_RUN=12 STEADY_SKIP=4 STEADY_WINDOW=4
steady() {
	op=$1
	shift
	[ -z "$client" ] || sleep 1
	"$@" >/tmp/steady.log 2>&1 &
	pid=$!
	sleep $STEADY_SKIP
	[ -z "$client" ] || echo "XRDMA-HOST: cpu $op.begin"
	b=$(busy)
	sleep $STEADY_WINDOW
	ticks=$(($(busy) - b))
	[ -z "$client" ] || echo "XRDMA-HOST: cpu $op.end"
	wait $pid
	cst=$?
	echo "RESULT cpu.$role.$op $STEADY_WINDOW ticks $ticks"
	[ -n "$client" ] || return 0
	[ $cst = 0 ] || { echo "FAILED cpu.$op"; sed 's/^/# /' /tmp/steady.log; return 0; }
	case $op in
	tcp) awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Kbits/sec")
		printf "RESULT rate.tcp 65536 MB/s %.1f\n", $i / 8000 }' /tmp/steady.log ;;
	*) awk -v op="$op" '$1 == 65536 && NF >= 5 {
		printf "RESULT rate.%s 65536 MB/s %.1f\n", op, $4 * 1.048576 }' /tmp/steady.log ;;
	esac
}

. /bench-perftest.sh

# rate METRIC BYTES QPS: the message rate of METRIC (a _bw program) on QPS
# QPs, over the middle 2 s of a 4 s run (20 000 messages were 60 ms on an
# XRNIC, where one stall of the host's scheduler moved the figure 3x).
rate() {
	pair_run "bench.$1.$2.q$3" 1 "$1" -x 1 -s "$2" -q "$3" -D 4 -F >/dev/null
	[ -n "$client" ] || return 0
	if [ "$st" != 0 ]; then
		echo "FAILED $1 $2 -q $3"
		sed 's/^/# /' /tmp/pair.log
		return 0
	fi
	awk -v m="$1" -v b="$2" -v q="$3" '$1 == b && NF >= 5 {
		printf "RESULT %s_rate_q%s %s Mmsg/s %.4f\n", m, q, b, $5 }' /tmp/pair.log
}

# Bandwidth: 4 KiB messages over the middle 2 s of a 4 s run (10 000 were
# 0.1 s on an XRNIC), 2 000 of 64 KiB and 200 of 1 MiB (the steady runs
# below time 64 KiB for seconds).
for s in 4096 65536 1048576; do
	len=$(case $s in 4096) echo "-D 4" ;; 65536) echo "-n 2000" ;; *) echo "-n 200" ;; esac)
	perftest ib_write_bw $s "$len"
	perftest ib_read_bw $s "$len"
	perftest ib_send_bw $s "$len"
done
for s in 8 64 4096; do
	perftest ib_write_lat $s "-n 1000"
	perftest ib_read_lat $s "-n 1000"
	perftest ib_send_lat $s "-n 1000"
done
perftest ib_atomic_lat 8 "-n 1000"
for q in 1 4; do
	for s in 8 64 1024; do
		rate ib_write_bw $s $q
		rate ib_send_bw $s $q
	done
done
# Scaling with QPs: 64 KiB WRITEs on 4 and 16 QPs (1 is ib_write_bw
# above), the same bytes in all: 2000 messages over the QPs.
for q in 4 16; do
	pair_run "bench.ib_write_bw.65536.q$q" 1 ib_write_bw -x 1 -s 65536 -q $q -n $((2000 / q)) -F \
		>/dev/null
	[ -n "$client" ] || continue
	if [ "$st" != 0 ]; then
		echo "FAILED ib_write_bw 65536 -q $q"
		sed 's/^/# /' /tmp/pair.log
		continue
	fi
	awk -v q=$q '$1 == 65536 && NF >= 5 {
		printf "RESULT ib_write_bw_q%s 65536 MB/s %.1f\n", q, $4 * 1.048576 }' /tmp/pair.log
done

# CPU per GB: 64 KiB WRITE, READ and SEND for STEADY_RUN seconds.
for op in write read send; do
	steady "$op" timeout 60 "ib_${op}_bw" -d "$DEV" -x 1 -s 65536 -D $STEADY_RUN -F \
		${client:+"$PEER"}
done

# TCP on the same NIC (the rxe run: virtio-net): iperf3 for 5 s, iperf3
# writing 8, 64 and 1024 bytes at a time for 3 s each (the message rate's
# counterpart: bytes received over the write size), then a ping-pong of
# 8 bytes, 64 bytes and 4 KiB (/tcp_pingpong, tools/bench).
[ "$XRDMA_RXE" = 1 ] || exit 0
if [ -z "$client" ]; then
	for s in bw 8 64 1024; do
		timeout 60 iperf3 -s -1 >/dev/null 2>&1
	done
	for s in 8 64 4096; do
		timeout 120 /tcp_pingpong -n 1000 -s $s >/dev/null || echo "FAILED tcp_lat $s (server)"
	done
	steady tcp timeout 60 iperf3 -s -1
	exit 0
fi
for try in $(seq 30); do
	iperf3 -c "$PEER" -t 5 -f k >/tmp/iperf3.log 2>&1 && break
	sleep 1
done
awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Kbits/sec")
	printf "RESULT tcp_bw 131072 MB/s %.1f\n", $i / 8000 }' /tmp/iperf3.log
for s in 8 64 1024; do
	for try in $(seq 30); do
		iperf3 -c "$PEER" -t 3 -l $s -f k >/tmp/iperf3.log 2>&1 && break
		sleep 1
	done
	awk -v s=$s '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Kbits/sec")
		printf "RESULT tcp_rate %s Mmsg/s %.4f\n", s, $i * 1000 / 8 / s / 1e6 }' /tmp/iperf3.log
done
for s in 8 64 4096; do
	timeout 120 /tcp_pingpong -n 1000 -s $s "$PEER" || echo "FAILED tcp_lat $s"
done
# CPU per GB of TCP: iperf3 for STEADY_RUN seconds.
steady tcp timeout 60 iperf3 -c "$PEER" -t $STEADY_RUN -f k
