#!/bin/sh
# Runs in both guests of `scripts/xrdma-vm run --vms 2` (with
# scripts/tests/rdma-pair.sh as /rdma-pair.sh and the selftests' build as
# /selftests): RDMA between two XRNICs over RoCE v2 on the runner's
# segment, with Debian's unmodified ibv_rc_pingpong, ibv_ud_pingpong,
# ibv_srq_pingpong, ibv_uc_pingpong, perftest (RC, UC, UD, an SRQ),
# UCX's ucx_perftest over rc_verbs and ud_verbs and at the UCP level, and our
# verbs_peer (every opcode, data checked byte for byte, many QPs, up to
# 16 MiB).  Guest 1 runs the servers, guest 2 the clients.  Afterwards each
# side checks the device's ICRC errors: none, or with faults injected
# (scripts/xrdma-vm run --faults), some.  KTAP.
. /rdma-pair.sh
pair_setup

# The tests: name, program, arguments (the GID index: 1 is the IPv4 address,
# 0 the link-local IPv6 one).
tests() {
	cat <<'LIST'
rc_pingpong_checks_data ibv_rc_pingpong -g 1 -c -n 200
rc_pingpong_over_ipv6 ibv_rc_pingpong -g 0 -n 100
rc_pingpong_one_mib ibv_rc_pingpong -g 1 -s 1048576 -n 10
rc_pingpong_timestamps ibv_rc_pingpong -g 1 -t -n 200
ud_pingpong_checks_data ibv_ud_pingpong -g 1 -c -n 200
ud_pingpong_over_ipv6 ibv_ud_pingpong -g 0 -s 4096 -n 100
srq_pingpong_checks_data ibv_srq_pingpong -g 1 -c -n 100
uc_pingpong_checks_data ibv_uc_pingpong -g 1 -c -n 200
srq_pingpong_events ibv_srq_pingpong -g 1 -e -q 4 -n 100
ib_write_bw ib_write_bw -x 1 -s 65536 -n 200 -F
ib_read_bw ib_read_bw -x 1 -s 65536 -n 200 -F
ib_send_bw ib_send_bw -x 1 -s 65536 -n 200 -F
ib_atomic_bw ib_atomic_bw -x 1 -n 200 -F
ib_write_lat ib_write_lat -x 1 -s 8 -n 200 -F
ib_send_bw_ud ib_send_bw -x 1 -c UD -s 4096 -n 200 -F
ib_send_lat_ud ib_send_lat -x 1 -c UD -s 64 -n 200 -F
ib_send_bw_multicast ib_send_bw -x 0 -c UD --mcg -s 1024 -n 200 -F
ib_send_lat_multicast ib_send_lat -x 0 -c UD --mcg -s 64 -n 200 -F
ib_send_bw_srq ib_send_bw -x 1 --use-srq -s 65536 -n 200 -F
ib_write_bw_uc ib_write_bw -x 1 -c UC -s 65536 -n 200 -F
ucx_rc_verbs_am_lat ucx_perftest -d xrnic0:1 -x rc_verbs -t am_lat -n 1000
ucx_rc_verbs_put_bw ucx_perftest -d xrnic0:1 -x rc_verbs -t put_bw -D zcopy -s 65536 -n 200
ucx_rc_verbs_get_bw ucx_perftest -d xrnic0:1 -x rc_verbs -t get -D zcopy -s 65536 -n 200
ucx_ud_verbs_am_lat ucx_perftest -d xrnic0:1 -x ud_verbs -t am_lat -n 1000
ucx_ud_verbs_am_bw ucx_perftest -d xrnic0:1 -x ud_verbs -t am_bw -D bcopy -s 4000 -n 1000
ucp_tag_lat ucx_perftest -t tag_lat -n 1000
ucp_tag_bw ucx_perftest -t tag_bw -s 65536 -n 200
ucp_stream_bw ucx_perftest -t stream_bw -s 65536 -n 200
verbs_peer_16_mib /selftests/verbs_peer -g 1 -s 16777216 -n 2000 -a 2000
verbs_peer_16_qps /selftests/verbs_peer -g 0 -q 16 -s 65536 -n 500 -a 200
LIST
}

# UCX's UCP tests (tag_*, stream_*) on the transports MPI uses, over
# xrnic0 only; the UCT ones name theirs with -d and -x.
export UCX_TLS=rc_verbs,ud_verbs,self UCX_NET_DEVICES=xrnic0:1

echo "TAP version 13"
echo "1..$(($(tests | wc -l) + 20))"
tests >/tmp/roce-tests
while read -r name prog args; do
	# shellcheck disable=SC2086
	pair_run "roce.$name" 1 "$prog" $args
done </tmp/roce-tests
pair_rping roce.rping_through_the_rdma_cm 1
# More of rdmacm-utils and perftest's RDMA CM mode, as typed.
pair_cm_run roce.ucmatose 1 "ucmatose -C 10" "ucmatose -s $PEER -C 10"
pair_cm_run roce.rdma_server_and_rdma_client 1 rdma_server "rdma_client -s $PEER"
pair_cm_run roce.udaddy_through_sidr 1 udaddy "udaddy -s $PEER"
pair_mckey roce.mckey_through_a_multicast_join 1 239.1.2.3
# libfabric's verbs provider (its MSG endpoints, and RDM ones over them:
# ofi_rxm sizes its CQs by the universe size, 256 peers by default, beyond
# rxe's CQ and ours, so a small universe, as on rxe; and receives on an SRQ,
# FI_OFI_RXM_USE_SRX=1: libfabric 1.17's RDM endpoint without one can use a
# freed endpoint when its peer closes first, on rxe too; see
# Documentation/configuration.rst), qperf's RC tests with -cm1, and UCX's
# client-server io_demo over UCP sockaddr with the rdmacm connection manager
# alone.
pair_cm_run roce.fi_pingpong_msg_over_the_rdma_cm 1 "fi_pingpong -p verbs -e msg -I 100" \
	"fi_pingpong -p verbs -e msg -I 100 $PEER"
pair_cm_run roce.fi_pingpong_rdm_over_the_rdma_cm 1 \
	"FI_UNIVERSE_SIZE=16 FI_OFI_RXM_USE_SRX=1 fi_pingpong -p verbs -e rdm -I 100" \
	"FI_UNIVERSE_SIZE=16 FI_OFI_RXM_USE_SRX=1 fi_pingpong -p verbs -e rdm -I 100 $PEER"
pair_cm_served roce.qperf_rc_through_the_rdma_cm 1 qperf "qperf -cm1 $PEER -t 2 rc_bw rc_lat"
pair_cm_served roce.ucx_io_demo_through_the_rdma_cm 1 "UCX_SOCKADDR_TLS_PRIORITY=rdmacm io_demo" \
	"UCX_SOCKADDR_TLS_PRIORITY=rdmacm io_demo -q -i 1000 $PEER_IP"
pair_cm_run roce.rstream_over_rsockets 1 "rstream -S 1024 -C 100" "rstream -s $PEER -S 1024 -C 100"
pair_cm_run roce.riostream_over_rsockets 1 "riostream -S 1024 -C 100" \
	"riostream -s $PEER -S 1024 -C 100"
pair_perftest_cm roce.ib_read_lat_through_the_rdma_cm 1 "ib_read_lat -R -d xrnic0 -x 1 -n 100" \
	"ib_read_lat -R -d xrnic0 -x 1 -n 100 $PEER"
pair_perftest_cm roce.ib_write_bw_through_the_rdma_cm 1 "ib_write_bw -R -d xrnic0 -x 1 -n 100" \
	"ib_write_bw -R -d xrnic0 -x 1 -n 100 $PEER"
pair_perftest_cm roce.ib_send_bw_through_the_rdma_cm 1 "ib_send_bw -R -d xrnic0 -x 1 -n 100" \
	"ib_send_bw -R -d xrnic0 -x 1 -n 100 $PEER"
pair_rping_rejected roce.rping_to_a_port_nobody_listens_on_is_rejected
# A REQ flood from guest 2 (cm_flood forges 2000 REQs to a listener whose
# backlog is 8 and who reads nothing meanwhile, and 2000 to a port nobody
# listens on): once they are handled guest 1's IB CM holds at most the
# backlog's connections, and none once the listener rejected what it took.
pair_cm_run roce.a_req_flood_holds_at_most_the_backlog 1 "nc -l -p 7999 | /selftests/cm_flood -l 18600 -b 8" \
	"/selftests/cm_flood -c $PEER_IP -p 18600 -n 2000 && echo done | nc $PEER 7999"
pair_icrc_check roce

# UCX finds both of its verbs transports on the device.
if ucx_info -d 2>&1 | awk '/Transport:/ { t = $3 } /Device:/ && $3 == "xrnic0:1" { print t }' |
	sort | tr '\n' ' ' | grep -q "rc_verbs ud_verbs"; then
	say ok roce.ucx_info_lists_rc_and_ud_verbs
else
	ucx_info -d 2>&1 | grep -E "Transport|Device" | sed 's/^/# /'
	say "not ok" roce.ucx_info_lists_rc_and_ud_verbs
fi

# write_bw_server NAME ARGS: ib_write_bw's server of 64 KiB WRITEs in the
# background (pair_server_start), output in /tmp/server.log.
# write_bw_client NAME ARGS: its client (pair_client), output in
# /tmp/client.log, status in st.
write_bw_server() {
	name=$1
	shift
	pair_server_start 120 "ib_write_bw -d xrnic0 -x 1 -s 65536 $* -F" /tmp/server.log
}
write_bw_client() {
	name=$1
	shift
	pair_client 120 "ib_write_bw -d xrnic0 -x 1 -s 65536 $* -F $PEER" /tmp/client.log
}
counter() { rdma statistic show link xrnic0/1 | tr ' ' '\n' | grep -A1 "^$1\$" | tail -1; }
# Wait (up to 60 s) until the device has received a thousand packets more
# than when called: a transfer is flowing.
flowing() {
	start=$(counter rx_packets)
	for i in $(seq 600); do
		[ "$(counter rx_packets)" -gt $((start + 1000)) ] && return 0
		sleep 0.1
	done
	return 1
}

# Guest 2's device stops for 3 s (the host SIGSTOPs its device model, as
# a host too busy to run it would) while guest 1 streams WRITEs to it for
# 10 s.  Guest 1's QP times out and backs off, and resumes when the device
# does: 3 s of silence is within its budget (perftest's timeout 14, 67 ms,
# and 7 retries, backing off to 1 s: about 5 s).  Both ends complete.
if [ "$XRDMA_VM_INDEX" = 2 ]; then
	write_bw_server stopped -D 10
	flowing || echo "# no transfer flowing after 60 s"
	echo "XRDMA-HOST: stop-device"
	sleep 3
	echo "XRDMA-HOST: cont-device"
	pair_server_wait /tmp/server.log
	if [ $st = 0 ]; then
		say ok roce.a_device_stopped_for_3_s_mid_transfer_resumes_and_completes
	else
		sed 's/^/# server: /' /tmp/server.log
		say "not ok" roce.a_device_stopped_for_3_s_mid_transfer_resumes_and_completes
	fi
else
	before=$(counter local_ack_timeout_err)
	write_bw_client stopped -D 10
	after=$(counter local_ack_timeout_err)
	echo "# ACK timeouts while the peer's device was stopped: $((after - before))"
	if [ $st = 0 ] && [ "$after" -gt "$before" ]; then
		grep -E "^ *[0-9]+ +[0-9]+ " /tmp/client.log | sed 's/^/# /'
		say ok roce.a_peer_stopped_for_3_s_mid_transfer_is_waited_for
	else
		sed 's/^/# client: /' /tmp/client.log
		say "not ok" roce.a_peer_stopped_for_3_s_mid_transfer_is_waited_for
	fi
fi

# Last: guest 2's device dies (the host kills its device model) while guest
# 1 streams WRITEs to it (ib_write_bw).  Guest 1's QP gets no answer: a
# WRITE fails with RETRY_EXC_ERR (status 12) after timeout x retries
# (perftest's 14: 67 ms, 7 retries), and ib_write_bw exits with that
# error; nothing hangs on either side.
if [ "$XRDMA_VM_INDEX" = 2 ]; then
	write_bw_server killed -n 1000000
	# Once the transfer flows, the device dies.
	flowing || echo "# no transfer flowing after 60 s"
	echo "XRDMA-HOST: kill-device"
	# perftest's TCP socket runs over this device's Ethernet function, dead
	# too: the server would wait for its peer for ever, as over any NIC that
	# died.  End it as a user would; its exit releases everything it had on
	# the dead device, which is found dead (one admin timeout) and let go.
	sleep 3
	t0=$(cut -d' ' -f1 /proc/uptime)
	kill -TERM -"$(cat /tmp/pair.pg)"
	pair_server_wait /tmp/server.log
	echo "# the server exited $(awk -v t0="$t0" '{ print $1 - t0 }' /proc/uptime) s after SIGTERM"
	# The driver disconnects the device's users once its reset failed too
	# (about a second after the first admin timeout): wait for that.
	for i in $(seq 100); do
		dmesg | grep -q "xrnic0: device is dead" && break
		sleep 0.1
	done
	if dmesg | grep -q "xrnic0: device is dead" && [ -z "$(rdma res show qp 2>/dev/null)" ]; then
		say ok roce.device_killed_mid_transfer_is_found_dead_and_released
	else
		sed 's/^/# server: /' /tmp/server.log
		dmesg | tail -5 | sed 's/^/# /'
		say "not ok" roce.device_killed_mid_transfer_is_found_dead_and_released
	fi
else
	t0=$(cut -d' ' -f1 /proc/uptime)
	write_bw_client killed -n 1000000
	echo "# the client ended $(awk -v t0="$t0" '{ print $1 - t0 }' /proc/uptime) s after it started: $(grep -m1 'Failed status' /tmp/client.log)"
	if [ $st != 0 ] && [ $st != 124 ] && grep -q "Failed status 12:" /tmp/client.log; then
		say ok roce.peer_device_killed_mid_transfer_fails_with_retry_exceeded
	else
		sed 's/^/# client: /' /tmp/client.log
		say "not ok" roce.peer_device_killed_mid_transfer_fails_with_retry_exceeded
	fi
fi
exit $rc
