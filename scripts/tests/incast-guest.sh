#!/bin/sh
# Runs in each guest of `scripts/xrdma-vm run --vms 4` (with
# scripts/tests/rdma-pair.sh as /rdma-pair.sh): incast.  Guests 1, 2 and 3
# write 1 MiB messages (perftest ib_write_bw, 4 QPs each) into guest 4 at
# once, after guest 1 alone has, for the receiver's single-sender rate.
# The switch marks the senders' queues CE (switch.h: one QP alone never
# passes its threshold, four may), guest 4's XRNIC answers with
# CNPs and the senders slow down (DCQCN, xrnic-hw.rst); every flow
# completes without a transport error.  Then again with the senders'
# reaction points turned off (cc_params/rp_enable 0, as mlx5's debugfs):
# the receiver still sends CNPs, the senders ignore them (rp_cnp_ignored,
# not rp_cnp_handled), and every flow still completes.  The rates, their
# sum and Jain's fairness index are printed, not judged: on this host's two
# cores they say as much about the scheduler as about the wire.  KTAP.
. /rdma-pair.sh
# Each sender: 4 QPs of 50 messages (200 MiB); the receiver's single-sender
# rate the same.
QPS=4
N=50
RX=4
modprobe xrnic || { echo "modprobe xrnic failed"; exit 1; }
DEV=xrnic0
ip link set eth0 mtu 9000 up && ip addr add "$XRDMA_IP/24" dev eth0 || exit 1
for i in $(seq 60); do ping -c 1 -W 1 xrdma-vm$RX >/dev/null 2>&1 && break; done
n=0
rc=0
write_bw="ib_write_bw -d $DEV -x 1 -s 1048576 -q $QPS -n $N -F"
# A flow's MB/s from perftest's report (the "BW average" column).
rate() { awk '$1 == 1048576 && NF >= 5 { print $4 }' "$1"; }

# client PORT LOG: write to guest 4's server on PORT once it listens
# (pair_client; the server's guest says "go PORT").
client() {
	name=$1
	pair_client 300 "$write_bw -p $1 xrdma-vm$RX" "$2"
	[ $st = 0 ] || sed 's/^/# client: /' "$2"
	return $st
}

echo "TAP version 13"
if [ "$XRDMA_VM_INDEX" = $RX ]; then
	echo "1..6"
	name=18515 PEER=xrdma-vm1
	pair_server 300 "$write_bw -p 18515" /tmp/single.log
	if [ $st = 0 ]; then
		say ok incast.one_sender_completes
	else
		sed 's/^/# server: /' /tmp/single.log
		say "not ok" incast.one_sender_completes
	fi
	single=$(rate /tmp/single.log)
	# serve_three PORT NAME WHAT: the three senders' flows on ports
	# PORT + 1..3 complete (test NAME); their rates printed as WHAT's.
	serve_three() {
		for i in 1 2 3; do
			rm -f /tmp/flow$i.pg
			pair_timeout 300 "$write_bw -p $(($1 + i))" /tmp/flow$i.pg >/tmp/flow$i.log 2>&1 &
			eval "pid$i=\$!"
		done
		# Each sender starts once its server listens.
		for i in 1 2 3; do
			eval "pair_ready \$pid$i /tmp/flow$i.pg"
			PEER=xrdma-vm$i
			pair_tell 7998 "go $(($1 + i))" ||
				echo "# server: sender $i did not take its word"
		done
		st=0
		for i in 1 2 3; do
			eval "wait \$pid$i" || { st=1; sed 's/^/# server: /' /tmp/flow$i.log; }
		done
		if [ $st = 0 ]; then say ok "$2"; else say "not ok" "$2"; fi
		echo "$single $(rate /tmp/flow1.log) $(rate /tmp/flow2.log) $(rate /tmp/flow3.log)" |
			awk -v what="$3" '{
			s = $2 + $3 + $4; q = $2 * $2 + $3 * $3 + $4 * $4
			printf "# one sender %.1f MB/s; three, %s: %.1f %.1f %.1f MB/s, sum %.1f (%.2f of one),", $1, what, $2, $3, $4, s, $1 ? s / $1 : 0
			printf " Jain'"'"'s fairness index %.3f\n", q ? s * s / (3 * q) : 0 }'
	}
	before=$(pair_stat np_cnp_sent)
	serve_three 18515 incast.three_senders_complete "DCQCN on"
	echo "# rdma statistic: $(rdma statistic show link xrnic0/1)"
	marked=$(pair_stat np_ecn_marked_roce_packets)
	cnps=$(($(pair_stat np_cnp_sent) - before))
	echo "# CE-marked packets received: $marked; CNPs sent to the three: $cnps"
	if [ "$marked" -gt 0 ]; then say ok incast.the_switch_marks_the_congested_senders_ce
	else say "not ok" incast.the_switch_marks_the_congested_senders_ce; fi
	if [ "$cnps" -gt 0 ]; then say ok incast.the_receiver_sends_cnps
	else say "not ok" incast.the_receiver_sends_cnps; fi
	before=$(pair_stat np_cnp_sent)
	serve_three 18518 incast.three_senders_without_reaction_points_complete \
		"their reaction points off"
	cnps=$(($(pair_stat np_cnp_sent) - before))
	echo "# CNPs sent to the three, their reaction points off: $cnps"
	if [ "$cnps" -gt 0 ]; then say ok incast.the_receiver_sends_cnps_still
	else say "not ok" incast.the_receiver_sends_cnps_still; fi
	exit $rc
fi

echo "1..$([ "$XRDMA_VM_INDEX" = 1 ] && echo 5 || echo 4)"
if [ "$XRDMA_VM_INDEX" = 1 ]; then
	if client 18515 /tmp/single.log; then say ok incast.one_sender_completes
	else say "not ok" incast.one_sender_completes; fi
fi
# send_flow PORT NAME WHAT: this sender's flow to guest 4's PORT completes
# (test NAME); its rate (as WHAT's) and the device's counters printed.
send_flow() {
	if client "$1" /tmp/flow.log; then say ok "$2"; else say "not ok" "$2"; fi
	echo "# this flow$3: $(rate /tmp/flow.log) MB/s"
	echo "# rdma statistic: $(rdma statistic show link xrnic0/1)"
}
send_flow $((18515 + XRDMA_VM_INDEX)) incast.sender_completes_among_three ""
# Its CNPs were taken (or this sender never was marked: then the receiver's
# count says so).  No transport error: perftest would have failed above.
# Losses may still happen before the rates come down (the switch drops a
# batch for a full port queue, the sender's ACK timer sends again): they
# are printed, not judged; what must hold is that every flow completes.
echo "# losses: wire_tx_drops $(pair_stat wire_tx_drops), local_ack_timeout_err $(pair_stat local_ack_timeout_err)"
if [ "$(pair_stat rp_cnp_handled)" -gt 0 ]; then
	say ok incast.the_sender_slows_down_on_cnps
else
	say "not ok" incast.the_sender_slows_down_on_cnps
fi

# Again with this sender's reaction point off: its CNPs are ignored.
for f in /sys/kernel/debug/xrnic/*/cc_params/rp_enable; do
	echo 0 >"$f" || echo "# rp_enable not set"
done
handled=$(pair_stat rp_cnp_handled) ignored=$(pair_stat rp_cnp_ignored)
send_flow $((18518 + XRDMA_VM_INDEX)) incast.sender_without_its_reaction_point_completes \
	", its reaction point off"
# A flow that ran without a CNP (its device model kept up) has nothing to
# ignore: skipped, not passed.
if [ "$(pair_stat rp_cnp_handled)" != "$handled" ]; then
	say "not ok" incast.a_sender_without_its_reaction_point_ignores_cnps
elif [ "$(pair_stat rp_cnp_ignored)" -gt "$ignored" ]; then
	say ok incast.a_sender_without_its_reaction_point_ignores_cnps
else
	say ok "incast.a_sender_without_its_reaction_point_ignores_cnps # SKIP no CNP reached it"
fi
exit $rc
