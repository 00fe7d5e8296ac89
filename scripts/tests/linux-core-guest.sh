#!/bin/sh
# Runs in both guests of `scripts/xrdma-vm run --core linux --vms 2` (with
# scripts/tests/rdma-pair.sh as /rdma-pair.sh): the XRNIC's RDMA function on
# Linux's own RDMA core (xrnic_ib.ko over Debian's ib_core and ib_uverbs),
# as far as it goes today.  Each guest checks the device and its port, the
# GID table ib_core fills from the net_device, and a user context through
# Linux's uverbs with the XRNIC's provider; then both run Debian's
# ibv_rc_pingpong and ibv_uc_pingpong (data checked) and perftest's RC
# WRITE, READ and SEND between them (guest 1 the servers); last, each
# unbinds its RDMA function under an open context and binds it again.  On
# the debug kernel (--debug-kernel), kmemleak then finds nothing of the
# drivers' once they are unloaded (KASAN and lockdep reports fail the run
# by themselves).  KTAP.
. /rdma-pair.sh
# check NAME CMD...: one test, CMD's output shown when it fails.
check() {
	name=$1
	shift
	if "$@" >/tmp/check.log 2>&1; then
		say ok "linux_core.$name"
	else
		sed 's/^/# /' /tmp/check.log
		say "not ok" "linux_core.$name"
	fi
}
# retry N CMD...: wait, up to N s, until CMD succeeds (a GID comes in its
# own time, after an address event; the port after a bind).
retry() { t=$1; shift; while ! "$@"; do t=$((t - 1)); [ $t -gt 0 ] || return 1; sleep 1; done; }
aux=/sys/bus/auxiliary
drv=$aux/drivers/xrnic_ib.ib
kmemleak=/sys/kernel/debug/kmemleak
plan=12
if [ -e $kmemleak ]; then
	# Whatever the boot left unreferenced is not ours to report.
	echo clear >$kmemleak
	plan=13
fi

pair_setup

echo "TAP version 13"
echo "1..$plan"
on_linux_core() {
	[ -d /sys/module/ib_core ] && [ ! -d /sys/module/xrdma_core ] &&
		[ -e $aux/devices/xrnic.ib.0/driver ] &&
		grep -qx MODALIAS=auxiliary:xrnic.ib $aux/devices/xrnic.ib.0/uevent
}
check xrnic0_is_on_linuxs_ib_core on_linux_core
link_up() {
	rdma link show xrnic0/1 && rdma link show xrnic0/1 |
		grep -q "state ACTIVE physical_state LINK_UP netdev eth0"
}
check rdma_link_shows_the_port_active_on_its_netdev retry 10 link_up
# libibverbs lists xrnic0 only when the XRNIC's provider matched it.
devinfo() {
	ibv_devinfo -v -d xrnic0 >/tmp/devinfo || return 1
	cat /tmp/devinfo
	grep -q "state:.*PORT_ACTIVE" /tmp/devinfo &&
		grep -q "link_layer:.*Ethernet" /tmp/devinfo &&
		grep -q "node_guid:.*$XRDMA_GUID" /tmp/devinfo &&
		grep -q "fw_ver:.*$XRDMA_FW" /tmp/devinfo
}
check ibv_devinfo_opens_it_through_linuxs_uverbs devinfo
# ib_core's RoCE v2 GID for the address (the driver writes it to the
# device's table, which the device sends from).
ipv4_gid() { ibv_devinfo -v -d xrnic0 | grep -q "GID\[ *1\]:.*::ffff:$XRDMA_IP, RoCE v2"; }
check the_gid_table_follows_the_netdevs_address retry 10 ipv4_gid

pair_run linux_core.rc_pingpong_checks_data 1 ibv_rc_pingpong -g 1 -c -n 200
pair_run linux_core.rc_pingpong_one_mib 1 ibv_rc_pingpong -g 1 -s 1048576 -n 10
pair_run linux_core.uc_pingpong_checks_data 1 ibv_uc_pingpong -g 1 -c -n 200
pair_run linux_core.ib_write_bw 1 ib_write_bw -x 1 -s 65536 -n 200 -F
pair_run linux_core.ib_read_bw 1 ib_read_bw -x 1 -s 65536 -n 200 -F
pair_run linux_core.ib_send_bw 1 ib_send_bw -x 1 -s 65536 -n 200 -F
pair_meet

# An open context (ibv_asyncwatch waits for its events), then the RDMA
# function unbound: the context hears the device die and ib_core lets go.
ibv_asyncwatch -d xrnic0 >/tmp/watch.log 2>&1 &
watch=$!
# It has the device open once one of its files is a uverbs device.
opened() { ls -l /proc/$watch/fd 2>/dev/null | grep -q /dev/infiniband/uverbs; }
retry 60 opened
unbind() { echo xrnic.ib.0 >$drv/unbind && [ ! -e /sys/class/infiniband/xrnic0 ]; }
fatal() { retry 10 grep -q DEVICE_FATAL /tmp/watch.log; cat /tmp/watch.log; grep -q DEVICE_FATAL /tmp/watch.log; }
if unbind >/tmp/check.log 2>&1 && fatal >>/tmp/check.log 2>&1; then
	say ok linux_core.unbinding_under_an_open_context_cuts_it_off
else
	sed 's/^/# /' /tmp/check.log
	say "not ok" linux_core.unbinding_under_an_open_context_cuts_it_off
fi
kill $watch 2>/dev/null
wait $watch 2>/dev/null
rebind() { echo xrnic.ib.0 >$drv/bind && retry 10 link_up && ibv_devinfo -d xrnic0; }
check binding_again_gives_a_working_xrnic0 rebind
no_leaks() {
	rmmod xrnic_ib xrnic || return 1
	# Objects younger than 5 s are never reported; two scans settle it.
	sleep 6
	echo scan >$kmemleak && echo scan >$kmemleak || return 1
	leaks=$(cat $kmemleak)
	[ -z "$leaks" ] && return 0
	echo "$leaks"
	return 1
}
[ -e $kmemleak ] && check kmemleak_finds_no_leak_after_unload no_leaks
exit $rc
