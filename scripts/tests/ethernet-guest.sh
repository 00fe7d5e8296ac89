#!/bin/sh
# Runs in every guest of `scripts/xrdma-vm run --vms 3 --virtio-net 3`:
# guests 1 and 2 have an XRNIC, guest 3 a virtio-net NIC, all on one
# segment.  Each loads its NIC's driver, brings the NIC up with $XRDMA_IP
# as a user would (guest 2 at MTU 1500, the others at 9000) and pings every
# other guest.  Guest 1 then drives the rest: jumbo frames to guest 3, its
# link taken down and up by the host, ethtool, frames too long for guest 2
# (which counts them), and TCP both ways with iperf3 to guest 2 and to
# guest 3, whose iperf3 servers take one client each; and RoCE paths to
# guest 3 (the roce_path kselftest).  Guest 2 checks that its RoCE GID
# table follows its addresses, and that a full RX ring (the guest frozen by
# the host while guest 3 floods it) drops, counts and recovers.  KTAP.
n=0
rc=0
say() { n=$((n + 1)); echo "$1 $n ethernet.$2"; [ "$1" = ok ] || rc=1; }
check() { name=$1; shift; if "$@"; then say ok "$name"; else say "not ok" "$name"; return 1; fi; }
quiet() { "$@" >/dev/null 2>&1; }
# answered HOST [LOST]: five pings of HOST, all answered but at most LOST
# (0 unless given: an idle segment loses none).
answered() {
	ping -c 5 -W 2 "$1" >/tmp/ping.log 2>&1
	got=$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' /tmp/ping.log)
	[ "${got:-0}" -ge $((5 - ${2:-0})) ] && return 0
	sed 's/^/# /' /tmp/ping.log
	return 1
}
# listening PORT: a TCP socket of this guest listens on PORT.
listening() {
	awk -v p="$(printf ':%04X' "$1")" 'substr($2, length($2) - 4) == p && $4 == "0A" { f = 1 }
		END { exit !f }' /proc/net/tcp /proc/net/tcp6
}
# retry N CMD...: wait, up to N s, until CMD succeeds: for a state that comes
# in its own time (a peer up, a carrier, a GID), never to pass a check of
# frames or traffic on a second try.
retry() { t=$1; shift; while ! "$@"; do t=$((t - 1)); [ $t -gt 0 ] || return 1; sleep 1; done; }

xrnic=0
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x1af4:0x1110 ] && xrnic=1
done
if [ $xrnic = 1 ]; then
	modprobe xrnic || { echo "modprobe xrnic failed"; exit 1; }
else
	modprobe virtio_pci && modprobe virtio_net || { echo "modprobe virtio_net failed"; exit 1; }
fi
nic=
for i in $(seq 50); do
	for d in /sys/class/net/*; do
		[ "${d##*/}" = lo ] || nic=${d##*/}
	done
	[ -n "$nic" ] && break
	sleep 0.1
done
[ -n "$nic" ] || { echo "no NIC appeared"; exit 1; }
mtu=9000
[ "$XRDMA_VM_INDEX" = 2 ] && mtu=1500
ip link set "$nic" mtu $mtu up && ip addr add "$XRDMA_IP/24" dev "$nic" || exit 1

echo "TAP version 13"
case $XRDMA_VM_INDEX in
1) echo "1..24" ;;
2) echo "1..19" ;;
*) echo "1..5" ;;
esac
check "driver_is_$([ $xrnic = 1 ] && echo xrnic || echo virtio_net)" \
	test "$(basename "$(readlink "/sys/class/net/$nic/device/driver")")" = \
	"$([ $xrnic = 1 ] && echo xrnic || echo virtio_net)"
for j in $(seq "$XRDMA_VMS"); do
	[ "$j" = "$XRDMA_VM_INDEX" ] && continue
	check "ping_from_vm${XRDMA_VM_INDEX}_to_vm$j" retry 120 quiet ping -c 1 -W 1 "xrdma-vm$j"
done

# The RDMA port's active MTU in bytes (ibv_devinfo).
active_mtu() { ibv_devinfo -d xrnic0 | awk '/active_mtu:/ { print $2 }'; }

# Echo requests this guest answered (/proc/net/snmp, Icmp InEchos).
in_echos() {
	awk '/^Icmp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; h = 1 }
		else print $c }' /proc/net/snmp
}
pinged() { [ "$(in_echos)" -ge $((XRDMA_VMS - 1)) ]; }
# The device's counter NAME (ethtool -S).
counter() { ethtool -S "$nic" | awk -v k="$1:" '$1 == k { print $2 }'; }

# The RoCE GID table of xrnic0 port 1, as sysfs shows it.
gids=/sys/class/infiniband/xrnic0/ports/1
gid_at() { cat "$gids/gids/$1"; }
has_gid() { grep -qx "$1" "$gids"/gids/*; }
no_gid() { ! has_gid "$1"; }
mapped=$(echo "$XRDMA_IP" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
if [ "$XRDMA_VM_INDEX" = 2 ]; then
	# 52:54:00:00:00:02, as EUI-64 in fe80::/64.
	check gid0_is_the_default_gid_of_the_mac test "$(gid_at 0)" = fe80:0000:0000:0000:5054:00ff:fe00:0002
	check gid0_is_roce_v2 test "$(cat $gids/gid_attrs/types/0)" = "RoCE v2"
	check gid0_names_the_netdev test "$(cat $gids/gid_attrs/ndevs/0)" = "$nic"
	check gid1_is_the_ipv4_mapped_address retry 10 sh -c "[ \"\$(cat $gids/gids/1)\" = $mapped ]"
	ip addr add 198.51.100.2/24 dev "$nic"
	check gid_added_with_an_address retry 10 has_gid 0000:0000:0000:0000:0000:ffff:c633:6402
	ip -6 addr add 2001:db8::2/64 dev "$nic"
	check gid_added_with_an_ipv6_address retry 10 has_gid 2001:0db8:0000:0000:0000:0000:0000:0002 ||
		{ ip -6 addr show dev "$nic"; cat "$gids"/gids/* | sed 's/^/# gid /'; }
	ip addr del 198.51.100.2/24 dev "$nic"
	check gid_removed_with_its_address retry 10 no_gid 0000:0000:0000:0000:0000:ffff:c633:6402
	check other_gids_keep_their_index test "$(gid_at 1)" = "$mapped"
	check ibv_query_gid_answers_through_the_provider \
		sh -c "ibv_devinfo -v -d xrnic0 | grep -q '::ffff:$XRDMA_IP.*RoCE v2'"
	check rdma_link_shows_the_netdev sh -c "rdma link show xrnic0/1 | grep -q 'netdev $nic'"
	check active_mtu_fits_mtu_1500 test "$(active_mtu)" = 1024

	# A full RX ring: guest 3 floods us while the host freezes this guest
	# (its device keeps receiving); the device drops and counts, and once
	# the guest runs again the interface works.
	# The request: a TCP connection to guest 3's port 5000 (bash's /dev/tcp).
	retry 60 sh -c 'exec 4<>/dev/tcp/192.0.2.3/5000' 2>/dev/null
	sleep 1
	echo "XRDMA-HOST: freeze"
	sleep 5
	echo "# eth_rx_no_buffer: $(counter eth_rx_no_buffer)"
	check a_full_rx_ring_drops_and_counts test "$(counter eth_rx_no_buffer)" -gt 0
	check a_full_rx_ring_recovers retry 30 quiet ping -c 1 -W 1 xrdma-vm1
fi

# flood ADDR: UDP as fast as it goes to ADDR's discard port (/bin/sh is
# bash: its /dev/udp), until killed.
flood() {
	exec 3>"/dev/udp/$1/9" || return
	while :; do printf '%1400s' x >&3; done 2>/dev/null
}

if [ "$XRDMA_VM_INDEX" != 1 ]; then
	check pinged_by_every_other_guest retry 120 pinged
	if [ "$XRDMA_VM_INDEX" = 3 ]; then
		# Guest 2 asks for 8 s of traffic while it is frozen.
		timeout 120 nc -l -p 5000 >/dev/null
		flood 192.0.2.2 &
		sleep 8
		kill $!
	fi
	# iperf3's server takes one client (guest 1), told on its TCP port
	# 7900 + this guest's number once it listens: one run, no retry.
	timeout 300 iperf3 -s -1 >/tmp/iperf3.log 2>&1 &
	server=$!
	retry 30 listening 5201 || echo "# iperf3 -s: not listening after 30 s"
	for i in $(seq 600); do
		echo ready | nc xrdma-vm1 $((7900 + XRDMA_VM_INDEX)) 2>/dev/null && break
		sleep 0.5
	done
	wait $server
	check tcp_served_one_client test $? = 0
	sed 's/^/# /' /tmp/iperf3.log | grep -E "sender|receiver"
	if [ "$XRDMA_VM_INDEX" = 2 ]; then
		echo "# eth_rx_too_long: $(counter eth_rx_too_long)"
		check frames_longer_than_the_mtu_are_dropped_and_counted \
			test "$(counter eth_rx_too_long)" -ge 3
	fi
	exit $rc
fi

retry 120 pinged
check jumbo_frames_to_virtio_net ping -c 3 -s 8000 xrdma-vm3
carrier() { [ "$(cat "/sys/class/net/$nic/carrier")" = "$1" ]; }
port_state() { ibv_devinfo -d xrnic0 | grep -q "state:.*$1"; }
echo "XRDMA-HOST: link-down"
check link_down_drops_the_carrier retry 30 carrier 0
check link_down_shows_in_the_port_state port_state PORT_DOWN
check link_down_sends_nothing sh -c '! ping -c 2 -W 1 xrdma-vm3 >/dev/null'
echo "XRDMA-HOST: link-up"
check link_up_restores_the_carrier retry 30 carrier 1
# The first frame after the link comes back may be lost: seen twice in 4
# runs beside a CPU hog (2026-12-07), always the first ping; not explained
# yet, so the loss bound is one.
check link_up_carries_frames_again answered xrdma-vm3 1
check ethtool_names_the_driver sh -c "ethtool -i $nic | grep -q '^driver: xrnic'"
check ethtool_reports_link_and_speed \
	sh -c "ethtool $nic | grep -q 'Link detected: yes' && ethtool $nic | grep -q 'Speed: 10000Mb/s'"
check ethtool_counts_frames test "$(counter eth_tx_frames)" -gt 0
# Traffic while the driver goes: UDP to an address with a static neighbour
# entry that no guest has (no answer can stop it), then back with a new
# net_device.
nic_back() { [ -e "/sys/class/net/$nic" ]; }
arp -s 192.0.2.200 52:54:00:00:00:c8
flood 192.0.2.200 &
traffic=$!
sleep 2
check unload_with_traffic_running rmmod xrnic_xrdma xrnic
kill $traffic 2>/dev/null
modprobe xrnic
check reload_brings_the_netdev_back retry 10 nic_back
ip link set "$nic" mtu $mtu up && ip addr add "$XRDMA_IP/24" dev "$nic"
retry 30 carrier 1 || echo "# no carrier 30 s after the reload"
check reloaded_link_carries_frames answered xrdma-vm3
# Guest 2 has MTU 1500: its RX buffers are too small for these.
quiet ping -c 3 -W 1 -s 8000 xrdma-vm2
check mtu_change_while_up sh -c "ip link set $nic mtu 4000 && ip link set $nic mtu $mtu"
# RoCE packets fit the netdev: 4000 bytes hold 2048-byte payloads, 9000 4096.
mtu_4000_then_back() {
	ip link set "$nic" mtu 4000 && [ "$(active_mtu)" = 2048 ] &&
		ip link set "$nic" mtu $mtu && [ "$(active_mtu)" = 4096 ]
}
check active_mtu_follows_the_netdev_mtu mtu_4000_then_back
retry 30 carrier 1 || echo "# no carrier 30 s after the MTU change"
check mtu_changed_link_carries_frames answered xrdma-vm3
# RTR resolves paths through ARP and ND (its own KTAP lines; with
# scripts/xrdma-vm run --add tools/testing/selftests/xrdma/build:/selftests).
XRDMA_PEER=xrdma-vm3 XRDMA_PEER_MAC=52:54:00:00:00:03 /selftests/roce_path || rc=1
for j in 2 3; do
	timeout 300 nc -l -p $((7900 + j)) >/dev/null 2>&1 || echo "# no word from xrdma-vm$j's iperf3 server"
	iperf3 -c "xrdma-vm$j" -t 3 --bidir >/tmp/iperf3.log 2>&1
	check "tcp_both_ways_with_vm$j" test $? = 0
	sed 's/^/# /' /tmp/iperf3.log | grep -E "sender|receiver"
done

# Last: the device dies with traffic running; the driver stays clean.  The
# traffic goes to guest 2, whose address resolved already, so that frames
# fill the TX ring at once (to an address nobody has only an ARP request a
# second goes out, and the 64-slot ring took a minute to fill: the TX
# watchdog then fired at the check's bound).
flood 192.0.2.2 &
traffic=$!
sleep 1
echo "XRDMA-HOST: kill-device"
check device_death_is_reported retry 60 sh -c "dmesg | grep -q 'device marked dead'"
check device_death_drops_the_carrier retry 30 carrier 0
kill $traffic 2>/dev/null
check a_dead_device_goes_down ip link set "$nic" down
check a_dead_device_unloads rmmod xrnic_xrdma xrnic
exit $rc
