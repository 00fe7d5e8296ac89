#!/bin/sh
# Unmodified programs of Debian's rdma-core (ibverbs-utils) and perftest on
# xrnic0, through Debian's libibverbs and our provider (libxrnic-rdmav34.so),
# in loopback: a server and a client in this guest, talking through the
# device.  KTAP output.
dev=xrnic0
n=0
rc=0
ok() { n=$((n + 1)); echo "ok $n verbs_programs.$1"; }
# Until a server listens on the programs' port, 18515 (at most 30 s): a
# client that comes first fails to connect.
wait_listen() {
	for i in $(seq 300); do
		netstat -ltn 2>/dev/null | grep -q ':18515 ' && return 0
		sleep 0.1
	done
}
fail() { n=$((n + 1)); echo "not ok $n verbs_programs.$1"; rc=1; }

# run NAME ARGS...: ibv_rc_pingpong server and client with ARGS; both must
# finish with status 0 within the time limit.
pingpong() {
	name=$1
	shift
	timeout 300 ibv_rc_pingpong -d $dev -g 0 "$@" >/tmp/pp_server.log 2>&1 &
	server=$!
	wait_listen
	timeout 300 ibv_rc_pingpong -d $dev -g 0 "$@" 127.0.0.1 >/tmp/pp_client.log 2>&1
	client=$?
	wait $server
	srv=$?
	if [ $client -eq 0 ] && [ $srv -eq 0 ] && grep -q "iters in" /tmp/pp_client.log; then
		grep "iters in" /tmp/pp_client.log | sed 's/^/# /'
		ok "$name"
	else
		sed 's/^/# client: /' /tmp/pp_client.log
		sed 's/^/# server: /' /tmp/pp_server.log
		fail "$name"
	fi
}

# perftest NAME PROGRAM ARGS...: a perftest server and client over localhost;
# both must finish with status 0 and the client print its result line.
# perftest calibrates its cycle counter against the clock first and gives up
# ("Can't produce a report") when a busy TCG host makes that too noisy;
# such a run is repeated, once.
perftest() {
	name=$1
	prog=$2
	shift 2
	for try in 1 2; do
		timeout 300 "$prog" -d $dev -x 0 "$@" >/tmp/pt_server.log 2>&1 &
		server=$!
		wait_listen
		timeout 300 "$prog" -d $dev -x 0 "$@" 127.0.0.1 >/tmp/pt_client.log 2>&1
		client=$?
		wait $server
		srv=$?
		grep -q "Can't produce a report" /tmp/pt_client.log /tmp/pt_server.log || break
		echo "# $name: perftest could not calibrate its clock; once more"
	done
	# The result line starts with the message size.
	if [ $client -eq 0 ] && [ $srv -eq 0 ] && grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9.]+" /tmp/pt_client.log; then
		grep -E "^ +#bytes|^ +[0-9]+ +[0-9]+ +[0-9.]+" /tmp/pt_client.log | sed 's/^/# /'
		ok "$name"
	else
		sed 's/^/# client: /' /tmp/pt_client.log
		sed 's/^/# server: /' /tmp/pt_server.log
		fail "$name"
	fi
}

echo "TAP version 13"
echo "1..18"

out=$(ibv_devinfo -v -d $dev 2>&1)
if echo "$out" | grep -q "hca_id:	$dev" &&
   echo "$out" | grep -q "GID\[  0\]:		fe80::" &&
   echo "$out" | grep -q "link_layer:		Ethernet"; then
	ok ibv_devinfo_shows_the_device_and_its_default_gid
else
	echo "$out" | sed 's/^/# /'
	fail ibv_devinfo_shows_the_device_and_its_default_gid
fi

# infiniband-diags: ibstat reads the device through libibumad (sysfs: node
# type and GUIDs, each port's state, rate, LIDs, GID 0 and P_Keys), ibstatus
# through sysfs directly; both as they show an rxe device.
out=$(ibstat $dev 2>&1)
if echo "$out" | grep -q "^CA '$dev'" && echo "$out" | grep -q "Number of ports: 1" &&
   echo "$out" | grep -q "State: Active" && echo "$out" | grep -q "Link layer: Ethernet" &&
   echo "$out" | grep -q "Physical state: LinkUp"; then
	ok ibstat_shows_the_device_and_its_port
else
	echo "$out" | sed 's/^/# /'
	fail ibstat_shows_the_device_and_its_port
fi
out=$(ibstatus $dev 2>&1)
if echo "$out" | grep -q "^Infiniband device '$dev' port 1 status:" &&
   echo "$out" | grep -q "default gid:.*fe80:" && echo "$out" | grep -q "state:.*4: ACTIVE" &&
   echo "$out" | grep -q "link_layer:.*Ethernet"; then
	ok ibstatus_shows_the_port
else
	echo "$out" | sed 's/^/# /'
	fail ibstatus_shows_the_port
fi

pingpong rc_pingpong_default -n 1000
pingpong rc_pingpong_with_events -e -n 200
pingpong rc_pingpong_checks_data -c -n 200
pingpong rc_pingpong_one_mib -s 1048576 -n 20
pingpong rc_pingpong_32_bytes -s 32 -n 200
pingpong rc_pingpong_new_post_send_api -N -n 200
# libibverbs matches the provider on the PCI function, so a renamed device
# is still driven by it.
if rdma dev set $dev name xrtest; then
	dev=xrtest
	pingpong rc_pingpong_on_a_renamed_device -n 100
	dev=xrnic0
	rdma dev set xrtest name $dev || { echo "# could not rename it back"; rc=1; }
else
	fail rc_pingpong_on_a_renamed_device
fi
# perftest 4.5 uses the classic post-send verbs on a device it does not know.
perftest ib_write_bw ib_write_bw -s 65536 -n 200
perftest ib_read_bw ib_read_bw -s 65536 -n 200
perftest ib_send_bw ib_send_bw -s 65536 -n 200
perftest ib_atomic_bw ib_atomic_bw -n 200
perftest ib_write_lat ib_write_lat -s 8 -n 200
perftest ib_read_lat ib_read_lat -s 8 -n 200
perftest ib_send_lat ib_send_lat -s 8 -n 200

# rping (rdmacm-utils) through the RDMA CM: server and client in this guest
# on the device's address (loopback through the device): the connection
# (IB CM's REQ, REP and RTU over the GSI QP), ten pings whose data rping
# checks (-v prints each), the disconnection on both sides.
ndev=$(cat /sys/class/infiniband/$dev/ports/1/gid_attrs/ndevs/0)
ip=${XRDMA_IP:-192.0.2.1}
ip link set "$ndev" up && { ip addr add "$ip/24" dev "$ndev" 2>/dev/null; true; }
for i in $(seq 100); do
	grep -qi ":ffff:" /sys/class/infiniband/$dev/ports/1/gids/* && break
	sleep 0.1
done
timeout 120 rping -s -a "$ip" -p 7174 -C 10 -v >/tmp/rping_server.log 2>&1 &
server=$!
for i in $(seq 300); do
	timeout 120 rping -c -a "$ip" -p 7174 -C 10 -v >/tmp/rping_client.log 2>&1
	client=$?
	grep -q "RDMA_CM_EVENT_REJECTED" /tmp/rping_client.log || break
	sleep 0.1	# the server is not listening yet
done
wait $server
# (rping's server ends with status 255 when its client disconnects, on Linux too.)
if [ $client -eq 0 ] && [ "$(grep -c "^ping data: rdma-ping-" /tmp/rping_client.log)" = 10 ] &&
   [ "$(grep -c "^server ping data: rdma-ping-" /tmp/rping_server.log)" = 10 ] &&
   grep -q "server DISCONNECT EVENT" /tmp/rping_server.log; then
	ok rping_connects_pings_and_disconnects
else
	sed 's/^/# client: /' /tmp/rping_client.log
	sed 's/^/# server: /' /tmp/rping_server.log
	fail rping_connects_pings_and_disconnects
fi
ip addr del "$ip/24" dev "$ndev" 2>/dev/null
exit $rc
