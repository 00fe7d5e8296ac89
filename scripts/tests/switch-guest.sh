#!/bin/sh
# Runs in both guests of `scripts/xrdma-vm run --vms 2 --lossless
# --ecn-threshold 0` (with scripts/tests/rdma-pair.sh as /rdma-pair.sh):
# the switch's modes.  KTAP.
#
# 1. The switch marks CE whenever one of a port's frames waits unread:
#    guest 1 sends UD datagrams (perftest ib_send_bw -c UD) to guest 2,
#    whose XRNIC answers marked ones with CNPs to guest 1's UD QP (the
#    DETH's source QP); guest 1's QP handles them (its rate is cut) and
#    both ends complete.
# 2. Lossless: guest 1 streams 64 KiB WRITEs to guest 2 on 16 QPs (up to
#    16 MiB unanswered, twice what its ring at the switch holds)
#    while guest 2's device stops for 2 s (the host SIGSTOPs its device
#    model).  Guest 1's frames fill its ring to guest 2; its port pauses,
#    as PFC pauses a priority, instead of losing them: no frame is lost at
#    the switch (wire_tx_drops 0), the port was paused (rx_pause), and
#    the stream completes when guest 2's device resumes.  The lossy
#    default loses them (the device model's host tests show both).
. /rdma-pair.sh
pair_setup
counter() { rdma statistic show link xrnic0/1 | tr ' ' '\n' | grep -A1 "^$1\$" | tail -1; }
send_ud="ib_send_bw -d xrnic0 -x 1 -c UD -s 4096 -n 2000 -F"
write_bw="ib_write_bw -d xrnic0 -x 1 -s 65536 -q 16 -D 10 -F"

echo "TAP version 13"
echo "1..2"
if [ "$XRDMA_VM_INDEX" = 2 ]; then
	sent=$(counter np_cnp_sent)
	name=ud
	pair_server 120 "$send_ud" /tmp/ud.log
	cnps=$(($(counter np_cnp_sent) - sent))
	echo "# UD datagrams CE-marked: $(counter np_ecn_marked_roce_packets); CNPs sent: $cnps"
	if [ $st = 0 ] && [ $cnps -gt 0 ]; then say ok switch.marked_datagrams_get_cnps
	else sed 's/^/# server: /' /tmp/ud.log; say "not ok" switch.marked_datagrams_get_cnps; fi

	name=lossless
	pair_server_start 120 "$write_bw" /tmp/server.log
	# The stream flows (a thousand packets received), then the device stops.
	start=$(counter rx_packets)
	for i in $(seq 600); do
		[ "$(counter rx_packets)" -gt $((start + 1000)) ] && break
		sleep 0.1
	done
	echo "XRDMA-HOST: stop-device"
	sleep 2
	echo "XRDMA-HOST: cont-device"
	pair_server_wait /tmp/server.log
	[ $st = 0 ] || sed 's/^/# server: /' /tmp/server.log
	if [ $st = 0 ]; then say ok switch.lossless_a_stopped_receiver_completes
	else say "not ok" switch.lossless_a_stopped_receiver_completes; fi
	exit $rc
fi

handled=$(counter rp_cnp_handled)
name=ud
pair_client 120 "$send_ud $PEER" /tmp/ud.log
handled=$(($(counter rp_cnp_handled) - handled))
echo "# CNPs that cut the UD QP's rate: $handled"
if [ $st = 0 ] && [ $handled -gt 0 ]; then
	grep -E "^ *[0-9]+ +[0-9]+ " /tmp/ud.log | sed 's/^/# /'
	say ok switch.a_ud_sender_slows_down_on_cnps
else
	sed 's/^/# client: /' /tmp/ud.log
	say "not ok" switch.a_ud_sender_slows_down_on_cnps
fi

drops=$(counter wire_tx_drops) pauses=$(counter rx_pause)
name=lossless
pair_client 120 "$write_bw $PEER" /tmp/client.log
echo "# rdma statistic: $(rdma statistic show link xrnic0/1)"
drops=$(($(counter wire_tx_drops) - drops)) pauses=$(($(counter rx_pause) - pauses))
echo "# paused $pauses times, $(counter rx_pause_duration) us in all; lost at the switch: $drops"
if [ $st = 0 ] && [ "$drops" = 0 ] && [ "$pauses" -gt 0 ]; then
	grep -E "^ *[0-9]+ +[0-9]+ " /tmp/client.log | sed 's/^/# /'
	say ok switch.lossless_a_sender_to_a_stopped_receiver_pauses_and_loses_nothing
else
	sed 's/^/# client: /' /tmp/client.log
	say "not ok" switch.lossless_a_sender_to_a_stopped_receiver_pauses_and_loses_nothing
fi
exit $rc
