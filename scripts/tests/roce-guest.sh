#!/bin/sh
# Runs in both guests of `scripts/xrdma-vm run --vms 2` (with
# scripts/tests/rdma-pair.sh as /rdma-pair.sh and the selftests' build as
# /selftests): RDMA between two XRNICs over RoCE v2 on the runner's
# segment, with Debian's unmodified ibv_rc_pingpong and perftest and our
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
ib_write_bw ib_write_bw -x 1 -s 65536 -n 200 -F
ib_read_bw ib_read_bw -x 1 -s 65536 -n 200 -F
ib_send_bw ib_send_bw -x 1 -s 65536 -n 200 -F
ib_atomic_bw ib_atomic_bw -x 1 -n 200 -F
ib_write_lat ib_write_lat -x 1 -s 8 -n 200 -F
verbs_peer_16_mib /selftests/verbs_peer -g 1 -s 16777216 -n 2000 -a 2000
verbs_peer_16_qps /selftests/verbs_peer -g 0 -q 16 -s 65536 -n 500 -a 200
LIST
}

echo "TAP version 13"
echo "1..$(($(tests | wc -l) + 1))"
tests >/tmp/roce-tests
while read -r name prog args; do
	# shellcheck disable=SC2086
	pair_run "roce.$name" 1 "$prog" $args
done </tmp/roce-tests
pair_icrc_check roce
exit $rc
