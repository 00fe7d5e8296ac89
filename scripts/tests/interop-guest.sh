#!/bin/sh
# Runs in both guests of `scripts/xrdma-vm run --vms 2 --rxe 2` (with
# scripts/tests/rdma-pair.sh as /rdma-pair.sh and the selftests' build as
# /selftests): guest 1 has an XRNIC, guest 2 is Linux's rdma_rxe on a
# virtio-net NIC with Debian's rxe provider, set up as a user would.  The
# same standard programs run both ways: first the XRNIC serves and rxe is
# the client, then the reverse.  KTAP.
. /rdma-pair.sh
pair_setup

# name, program, arguments; each runs with guest 1 as the server, then 2.
tests() {
	cat <<'LIST'
rc_pingpong_checks_data ibv_rc_pingpong -g 1 -c -n 200
rc_pingpong_over_ipv6 ibv_rc_pingpong -g 0 -c -n 50
rc_pingpong_one_mib ibv_rc_pingpong -g 1 -s 1048576 -n 10
ud_pingpong_checks_data ibv_ud_pingpong -g 1 -c -n 200
ud_pingpong_over_ipv6 ibv_ud_pingpong -g 0 -c -n 50
srq_pingpong_checks_data ibv_srq_pingpong -g 1 -c -q 4 -n 100
uc_pingpong_checks_data ibv_uc_pingpong -g 1 -c -n 100
ib_write_bw ib_write_bw -x 1 -s 65536 -n 200 -F
ib_read_bw ib_read_bw -x 1 -s 65536 -n 200 -F
ib_send_bw ib_send_bw -x 1 -s 65536 -n 200 -F
ib_atomic_bw ib_atomic_bw -x 1 -n 200 -F
ib_write_lat ib_write_lat -x 1 -s 8 -n 200 -F
ib_send_bw_ud ib_send_bw -x 1 -c UD -s 1024 -n 200 -F
ib_send_lat_ud ib_send_lat -x 1 -c UD -s 64 -n 200 -F
ib_send_bw_srq ib_send_bw -x 1 --use-srq -s 65536 -n 200 -F
ib_write_bw_uc ib_write_bw -x 1 -c UC -s 65536 -n 200 -F
verbs_peer /selftests/verbs_peer -g 1 -q 4 -s 4194304 -n 1000 -a 500
LIST
}

echo "TAP version 13"
echo "1..$((2 * $(tests | wc -l) + 30 + $([ "$DEV" = xrnic0 ] && echo 1 || echo 0)))"
tests >/tmp/interop-tests
for server in 1 2; do
	if [ "$server" = "$XRDMA_VM_INDEX" ]; then role=server; else role=client; fi
	while read -r name prog args; do
		# shellcheck disable=SC2086
		pair_run "interop.$([ "$server" = 1 ] && echo xrnic || echo rxe)_server.$name" "$server" "$prog" $args
	done </tmp/interop-tests
done

# The RDMA CM, ours against Linux's: rping (RC), udaddy (UD, SIDR) and
# mckey (multicast joins) with the XRNIC as the server (the receiver),
# then rxe; and each side's REQ to the other, where nobody listens,
# rejected by the other's connection manager.
pair_rping "interop.rping_xrnic_server" 1
pair_rping "interop.rping_rxe_server" 2
pair_cm_run "interop.udaddy_xrnic_server" 1 udaddy "udaddy -s $PEER"
pair_cm_run "interop.udaddy_rxe_server" 2 udaddy "udaddy -s $PEER"
pair_mckey "interop.mckey_xrnic_receives" 1 239.1.2.3
pair_mckey "interop.mckey_rxe_receives" 2 239.1.2.4
# More of rdmacm-utils (rsockets too), perftest's RDMA CM mode, libfabric's
# verbs MSG and RDM endpoints (see roce-guest.sh) and UCX's client-server
# io_demo (UCP sockaddr over the rdmacm connection manager alone), each with
# the XRNIC as the server, then rxe.
for server in 1 2; do
	s=$([ "$server" = 1 ] && echo xrnic || echo rxe)
	pair_cm_run "interop.ucmatose_${s}_server" $server "ucmatose -C 10" "ucmatose -s $PEER -C 10"
	pair_cm_run "interop.rdma_server_${s}_server" $server rdma_server "rdma_client -s $PEER"
	pair_cm_run "interop.rstream_${s}_server" $server "rstream -S 1024 -C 100" \
		"rstream -s $PEER -S 1024 -C 100"
	pair_cm_run "interop.riostream_${s}_server" $server "riostream -S 1024 -C 100" \
		"riostream -s $PEER -S 1024 -C 100"
	pair_perftest_cm "interop.ib_write_bw_R_${s}_server" $server "ib_write_bw -R -d $DEV -x 1 -n 100" \
		"ib_write_bw -R -d $DEV -x 1 -n 100 $PEER"
	pair_perftest_cm "interop.ib_read_lat_R_${s}_server" $server "ib_read_lat -R -d $DEV -x 1 -n 100" \
		"ib_read_lat -R -d $DEV -x 1 -n 100 $PEER"
	pair_perftest_cm "interop.ib_send_bw_R_${s}_server" $server "ib_send_bw -R -d $DEV -x 1 -n 100" \
		"ib_send_bw -R -d $DEV -x 1 -n 100 $PEER"
	pair_cm_run "interop.fi_pingpong_msg_${s}_server" $server "fi_pingpong -p verbs -e msg -I 100" \
		"fi_pingpong -p verbs -e msg -I 100 $PEER"
	pair_cm_run "interop.fi_pingpong_rdm_${s}_server" $server \
		"FI_UNIVERSE_SIZE=16 FI_OFI_RXM_USE_SRX=1 fi_pingpong -p verbs -e rdm -I 100" \
		"FI_UNIVERSE_SIZE=16 FI_OFI_RXM_USE_SRX=1 fi_pingpong -p verbs -e rdm -I 100 $PEER"
	pair_cm_served "interop.ucx_io_demo_${s}_server" $server \
		"UCX_SOCKADDR_TLS_PRIORITY=rdmacm UCX_TLS=rc_verbs,ud_verbs,self UCX_NET_DEVICES=$DEV:1 io_demo" \
		"UCX_SOCKADDR_TLS_PRIORITY=rdmacm UCX_TLS=rc_verbs,ud_verbs,self UCX_NET_DEVICES=$DEV:1 io_demo -q -i 1000 $PEER_IP"
done
pair_rping_rejected "interop.rping_to_a_port_nobody_listens_on_is_rejected"
# A slow receiver: the rxe guest's CPU also runs a busy loop, so its
# programs post and poll late and its receive queue runs dry, while the
# XRNIC sends 50 MiB to it in a ping-pong (the data goes both ways) and
# 150 MiB of WRITEs each way.  The XRNIC's sender waits (RNR, timeouts
# backing off) and everything completes.  The ping-pong takes about 15 s on
# an idle 2-core host (1000 MiB took 162 s) and twice that beside a CPU hog
# (make check LOAD=1); a run may take 15 minutes.
[ "$DEV" = rxe0 ] && { sh -c 'while :; do :; done' & hog=$!; }
PAIR_TIMEOUT=900
pair_run "interop.slow_rxe.rc_pingpong_50_mib" 1 ibv_rc_pingpong -g 1 -c -s 1048576 -n 50
pair_run "interop.slow_rxe.ib_write_bw_150_mib_to_rxe" 2 ib_write_bw -x 1 -s 1048576 -n 150 -F
pair_run "interop.slow_rxe.ib_write_bw_150_mib_from_rxe" 1 ib_write_bw -x 1 -s 1048576 -n 150 -F
[ -z "${hog:-}" ] || kill "$hog"
pair_icrc_check interop
exit $rc
