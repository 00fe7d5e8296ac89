#!/bin/sh
# Runs in the one guest of each of two runs joined by VXLAN
# (scripts/tests/vxlan.sh): xrdma-vm1 on host 1 serves, xrdma-vm17 on host
# 2 is the client, across the VXLAN.  KTAP.
. /rdma-pair.sh
if [ "$XRDMA_HOST_INDEX" = 1 ]; then peer=xrdma-vm17; else peer=xrdma-vm1; fi
pair_setup "$peer"
echo "TAP version 13"
echo "1..3"
if ping -c 3 -W 5 "$PEER" >/tmp/ping.log 2>&1; then
	say ok "vxlan.host${XRDMA_HOST_INDEX}_pings_the_other_host"
else
	sed 's/^/# /' /tmp/ping.log
	say "not ok" "vxlan.host${XRDMA_HOST_INDEX}_pings_the_other_host"
fi
# across NAME PROG ARGS: host 1 serves, host 2 connects (again while the
# server does not listen yet).
across() {
	name=$1
	shift
	if [ "$XRDMA_HOST_INDEX" = 1 ]; then
		timeout 300 "$@" >/tmp/run.log 2>&1
		st=$?
	else
		for try in $(seq 60); do
			timeout 300 "$@" "$PEER" >/tmp/run.log 2>&1
			st=$?
			grep -q -i -E "$PAIR_NOT_YET" /tmp/run.log || break
			sleep 1
		done
	fi
	if [ $st = 0 ]; then
		grep -E "bytes in|^ *[0-9]+ +[0-9]+ " /tmp/run.log | sed 's/^/# /'
		say ok "$name"
	else
		sed 's/^/# /' /tmp/run.log
		say "not ok" "$name"
	fi
}
across vxlan.rc_pingpong_across_hosts ibv_rc_pingpong -d xrnic0 -g 1 -c -n 200
across vxlan.ib_write_bw_across_hosts ib_write_bw -d xrnic0 -x 1 -s 65536 -n 500 -F
exit $rc
