#!/bin/sh
# Runs in both guests of `scripts/xrdma-vm run --vms 2`: RDMA between two
# XRNICs over RoCE v2 on the runner's segment, with Debian's unmodified
# ibv_rc_pingpong and perftest.  Guest 1 runs the servers, guest 2 the
# clients, in the same order; a client retries until its server listens.
# Both sides must finish with status 0; the client's result lines go to the
# log, and afterwards each side checks the device's ICRC errors: none, or
# with faults injected (scripts/xrdma-vm run --faults), some.  KTAP.
modprobe xrnic || { echo "modprobe xrnic failed"; exit 1; }
ip link set eth0 mtu 9000 up && ip addr add "$XRDMA_IP/24" dev eth0 || exit 1
server=xrdma-vm1
n=0
rc=0
say() { n=$((n + 1)); echo "$1 $n roce.$2"; [ "$1" = ok ] || rc=1; }

# The tests: name, program, arguments (the GID index: 1 is the IPv4 address,
# 0 the link-local IPv6 one).
tests() {
	cat <<'EOF'
rc_pingpong_checks_data ibv_rc_pingpong -g 1 -c -n 200
rc_pingpong_over_ipv6 ibv_rc_pingpong -g 0 -n 100
rc_pingpong_one_mib ibv_rc_pingpong -g 1 -s 1048576 -n 10
ib_write_bw ib_write_bw -x 1 -s 65536 -n 200 -F
ib_read_bw ib_read_bw -x 1 -s 65536 -n 200 -F
ib_send_bw ib_send_bw -x 1 -s 65536 -n 200 -F
ib_atomic_bw ib_atomic_bw -x 1 -n 200 -F
ib_write_lat ib_write_lat -x 1 -s 8 -n 200 -F
EOF
}

echo "TAP version 13"
echo "1..$(($(tests | wc -l) + 1))"
for i in $(seq 60); do ping -c 1 -W 1 xrdma-vm$((3 - XRDMA_VM_INDEX)) >/dev/null 2>&1 && break; done
tests >/tmp/roce-tests
while read -r name prog args; do
	if [ "$XRDMA_VM_INDEX" = 1 ]; then
		# shellcheck disable=SC2086
		timeout 300 "$prog" -d xrnic0 $args >/tmp/server.log 2>&1
		st=$?
		[ $st = 0 ] || sed 's/^/# server: /' /tmp/server.log
	else
		for try in $(seq 60); do
			# shellcheck disable=SC2086
			timeout 300 "$prog" -d xrnic0 $args $server >/tmp/client.log 2>&1
			st=$?
			# Refused: the server is not listening yet.
			grep -q -i -E "couldn't connect|unable to connect|failed to connect" \
				/tmp/client.log || break
			sleep 1
		done
		if [ $st = 0 ]; then
			grep -E "iters in|^ *[0-9]+ +[0-9]+ " /tmp/client.log | sed 's/^/# /'
		else
			sed 's/^/# client: /' /tmp/client.log
		fi
	fi
	if [ $st = 0 ]; then say ok "$name"; else say "not ok" "$name"; fi
done </tmp/roce-tests
stat() { rdma statistic show link xrnic0/1 | tr ' ' '\n' | grep -A1 "^$1\$" | tail -1; }
echo "# rdma statistic: $(rdma statistic show link xrnic0/1)"
# Without injected faults no frame is corrupted; with them (--faults, on
# both devices alike) the ICRC check catches the peer's corrupted ones.
if [ "$(stat injected_corrupts)" = 0 ]; then
	if [ "$(stat rx_icrc_errors)" = 0 ]; then say ok no_icrc_errors; else say "not ok" no_icrc_errors; fi
elif [ "$(stat rx_icrc_errors)" -gt 0 ]; then
	say ok corrupted_frames_fail_the_icrc
else
	say "not ok" corrupted_frames_fail_the_icrc
fi
exit $rc
