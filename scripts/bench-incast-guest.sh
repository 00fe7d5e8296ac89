#!/bin/sh
# Runs in each guest of the five-guest incast bench (scripts/bench-incast.sh,
# with scripts/tests/rdma-pair.sh as /rdma-pair.sh): guests 1 to 4 send
# into guest 5, first guest 1 alone, then guests 1 and 2 at once, then 1
# to 3, then 1 to 4 (the cost of each guest more), with perftest
# ib_write_bw (1 MiB messages, 4 QPs of MSGS each: a few seconds a flow) on
# the guests' RDMA devices (XRNICs, or rxe with --rxe) and, on virtio-net
# (the rxe run), with iperf3 over TCP for TCP_S seconds.  (perftest's
# duration mode is no use here: a server whose time is up tears its QPs
# down under a slower client's last WRITEs, which then fail.)  Guest 5 reads the bytes its
# device received (an XRNIC's rx_bytes, or the net_device's) every
# SAMPLE_S seconds: a phase's rate is the bytes between the first and the
# last sample taken while bytes were coming, over the time between them:
# what the receiver took in (the senders start within a second of each
# other), not a sum of their own rates.  Jain's fairness index is of the
# flows' own rates.  Guest 5 prints "RESULT metric bytes unit value"
# lines.  Not a test: a figure that cannot be taken is printed as FAILED
# and the run goes on.
. /rdma-pair.sh
RX=5
SAMPLE_S=0.5
TCP_S=8
pair_setup xrdma-vm$RX
MSGS=$([ "$XRDMA_RXE" = 1 ] && echo 50 || echo 3000)
write_bw="ib_write_bw -d $DEV -x 1 -s 1048576 -q 4 -n $MSGS -F"

# Bytes the receiving device has taken in.
rx_bytes() {
	if [ "$XRDMA_RXE" = 1 ] || [ "$1" = tcp ]; then
		cat /sys/class/net/eth0/statistics/rx_bytes
	else
		rdma statistic show link "$DEV/1" | tr ' ' '\n' | grep -A1 '^rx_bytes$' | tail -1
	fi
}

# sample KIND FILE: "uptime bytes" lines into FILE until killed.
sample() {
	while :; do
		echo "$(cut -d' ' -f1 /proc/uptime) $(rx_bytes "$1")"
		sleep $SAMPLE_S
	done >"$2"
}

# rate FILE: MB/s (10^6 bytes a second) between the first sample after
# bytes began to come and the last before they stopped.
rate() {
	awk '{ t[NR] = $1; b[NR] = $2 }
	END {
		for (i = 2; i <= NR && b[i] == b[1]; i++) ;
		for (j = NR; j > i && b[j - 1] == b[NR]; j--) ;
		j--
		if (j <= i) { print "FAILED"; exit }
		printf "%.1f\n", (b[j] - b[i]) / (t[j] - t[i]) / 1e6 }' "$1"
}

# Jain's fairness index of the rates given.
jain() {
	echo "$@" | awk '{ for (i = 1; i <= NF; i++) { s += $i; q += $i * $i }
		printf "%.3f\n", q ? s * s / (NF * q) : 0 }'
}

# The MB/s of a flow's own log: perftest's BW average, iperf3's receiver rate.
flow_rate() {
	case $1 in
	tcp) awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Kbits/sec")
		printf "%.1f\n", $i / 8000 }' "$2" ;;
	*) awk '$1 == 1048576 && NF >= 5 { printf "%.1f\n", $4 * 1.048576 }' "$2" ;;
	esac
}

# serve KIND PORT: one server on guest $RX.
serve() {
	case $1 in
	tcp) timeout 300 iperf3 -s -1 -p "$2" -f k ;;
	*) timeout 300 $write_bw -p "$2" ;;
	esac
}

# phase KIND NAME PORT COUNT: COUNT servers from PORT on, the bytes they
# take sampled; RESULT lines for NAME, and the flows' own rates.
phase() {
	sample "$1" /tmp/samples &
	spid=$!
	i=0
	while [ $i -lt "$4" ]; do
		serve "$1" $(($3 + i)) >/tmp/flow$i.log 2>&1 &
		eval "pid$i=\$!"
		i=$((i + 1))
	done
	ok=1 rates=
	i=0
	while [ $i -lt "$4" ]; do
		eval "wait \$pid$i" || { ok=0; sed 's/^/# server: /' /tmp/flow$i.log; }
		rates="$rates $(flow_rate "$1" /tmp/flow$i.log)"
		i=$((i + 1))
	done
	sleep 1
	kill $spid
	wait $spid 2>/dev/null
	[ $ok = 1 ] || { echo "FAILED $2"; return; }
	echo "RESULT $2 1048576 MB/s $(rate /tmp/samples)"
	echo "# $2: the flows' own rates:$rates MB/s"
	[ "$4" = 1 ] || echo "RESULT ${2}_jain 1048576 index $(jain $rates)"
}

# send KIND PORT: this sender's flow to guest $RX's PORT, again while it does
# not listen yet.
send() {
	for try in $(seq 300); do
		case $1 in
		tcp) timeout 300 iperf3 -c xrdma-vm$RX -p "$2" -t $TCP_S -f k >/tmp/send.log 2>&1 ;;
		*) timeout 300 $write_bw -p "$2" xrdma-vm$RX >/tmp/send.log 2>&1 ;;
		esac
		st=$?
		[ $st = 0 ] && break
		grep -q -i -E "$PAIR_NOT_YET" /tmp/send.log || break
		sleep 0.5
	done
	[ $st = 0 ] || sed 's/^/# sender: /' /tmp/send.log
}

kinds=rdma
[ "$XRDMA_RXE" = 1 ] && kinds="rdma tcp"
for kind in $kinds; do
	port=$([ $kind = tcp ] && echo 5201 || echo 18515)
	k=1
	for n in one two three four; do
		if [ "$XRDMA_VM_INDEX" = $RX ]; then
			phase $kind "incast_${kind}_$n" $port $k
		elif [ "$XRDMA_VM_INDEX" -le $k ]; then
			send $kind $((port + XRDMA_VM_INDEX - 1))
		fi
		port=$((port + k))
		k=$((k + 1))
	done
done
exit 0
