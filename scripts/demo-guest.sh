#!/bin/sh
# Runs in both guests of the demo (`scripts/xrdma-vm run --vms 2`): each
# loads the XRNIC driver with modprobe and gives its NIC the address the
# runner chose; guest 1 shows what a user sees (the kernel log, rdma link,
# the GIDs); then Debian's ibv_rc_pingpong and perftest run between the two
# over RoCE v2, guest 1 the server, and guest 2 prints a short table of the
# results.  set -e: any step that fails fails the demo.
set -e
modprobe xrnic
ip link set eth0 mtu 9000 up
ip addr add "$XRDMA_IP/24" dev eth0
peer=xrdma-vm$((3 - XRDMA_VM_INDEX))
for i in $(seq 60); do ping -c 1 -W 1 "$peer" >/dev/null 2>&1 && break; done
if [ "$XRDMA_VM_INDEX" = 1 ]; then
	echo "== $(hostname): modprobe xrnic"
	dmesg | grep -E 'xrnic|xrdma_core' | grep -v taint | sed 's/^\[[ 0-9.]*\] //'
	echo "== rdma link; the port's GIDs (ibv_devinfo -v)"
	rdma link
	ibv_devinfo -v -d xrnic0 | grep -E "GID\[" | sed 's/^[[:space:]]*//'
	echo "== ping $peer"
	ping -c 2 "$peer" | grep ttl
fi

# run NAME PROGRAM ARGS: guest 1 serves, guest 2 connects (retrying while
# the server is not listening yet) and keeps the output in /tmp/NAME.
run() {
	name=$1
	shift
	if [ "$XRDMA_VM_INDEX" = 1 ]; then
		"$@" -d xrnic0 >/dev/null
		return
	fi
	for i in $(seq 30); do
		"$@" -d xrnic0 "$peer" >"/tmp/$name" 2>&1 && return
		grep -q -i -E "couldn't connect|unable to connect|failed to connect" "/tmp/$name" ||
			{ cat "/tmp/$name"; return 1; }
		sleep 1
	done
	return 1
}
run pingpong ibv_rc_pingpong -g 1 -c -n 1000
run write_bw ib_write_bw -x 1 -s 65536 -n 2000 -F
run write_lat ib_write_lat -x 1 -s 8 -n 1000 -F
[ "$XRDMA_VM_INDEX" = 2 ] || exit 0

field() { # file regex column: the column of the first line matching regex
	awk -v c="$3" "/$2/ { print \$c; exit }" "$1"
}
echo "== xrnic0 (xrdma-vm2) <-> xrnic0 (xrdma-vm1), RoCE v2 over the runner's segment"
printf '%-34s %14s\n' test result
printf '%-34s %10s us\n' "ibv_rc_pingpong 4 KiB, data checked" \
	"$(field /tmp/pingpong 'usec\/iter' 7)"
printf "%-34s %10s MB/s\n" "ib_write_bw 64 KiB (perftest)" "$(field /tmp/write_bw '^ *65536 ' 4)"
printf '%-34s %10s us\n' "ib_write_lat 8 B (typical)" "$(field /tmp/write_lat '^ *8 ' 5)"
echo "(one run in two TCG guests on this machine: see make bench for side-by-side ratios)"
