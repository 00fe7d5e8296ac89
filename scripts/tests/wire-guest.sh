#!/bin/sh
# Runs in every guest of a segment (scripts/xrdma-vm run --virtio-net ...):
# brings the NIC up with $XRDMA_IP, as a user would, and pings every other
# guest by its name in /etc/hosts; then stays up until every other guest
# has pinged it (its ICMP echo requests counted), at most 120 s.  KTAP.
modprobe virtio_pci && modprobe virtio_net || { echo "modprobe virtio_net failed"; exit 1; }
nic=
for i in $(seq 50); do
	for d in /sys/class/net/*; do
		[ "${d##*/}" = lo ] || nic=${d##*/}
	done
	[ -n "$nic" ] && break
	sleep 0.1
done
[ -n "$nic" ] || { echo "no NIC appeared"; exit 1; }
ip link set "$nic" up && ip addr add "$XRDMA_IP/24" dev "$nic" || exit 1
echo "TAP version 13"
echo "1..$XRDMA_VMS"
n=0
rc=0
for j in $(seq "$XRDMA_VMS"); do
	[ "$j" = "$XRDMA_VM_INDEX" ] && continue
	n=$((n + 1))
	ok=0
	for try in $(seq 120); do
		if ping -c 1 -W 1 "xrdma-vm$j" >/dev/null 2>&1; then
			ok=1
			break
		fi
	done
	if [ $ok = 1 ]; then
		echo "ok $n wire.ping_from_vm${XRDMA_VM_INDEX}_to_vm$j"
	else
		echo "not ok $n wire.ping_from_vm${XRDMA_VM_INDEX}_to_vm$j"
		rc=1
	fi
done
# Echo requests this guest answered (/proc/net/snmp, Icmp InEchos).
in_echos() {
	awk '/^Icmp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; h = 1 }
		else print $c }' /proc/net/snmp
}
n=$((n + 1))
for try in $(seq 120); do
	[ "$(in_echos)" -ge $((XRDMA_VMS - 1)) ] && break
	sleep 1
done
if [ "$(in_echos)" -ge $((XRDMA_VMS - 1)) ]; then
	echo "ok $n wire.pinged_by_every_other_guest"
else
	echo "# echo requests answered: $(in_echos)"
	echo "not ok $n wire.pinged_by_every_other_guest"
	rc=1
fi
exit $rc
