#!/bin/bash
# make check-packages: xrdma's Debian packages in a VM of a user's own.  A
# plain Debian 12 guest (scripts/debian-guest-image.sh: mmdebstrap, the
# distribution's kernel, DKMS, libibverbs), booted by QEMU with the command
# line of Documentation/device-model.rst "Your own VM", its XRNIC the
# device model of the xrnic-emu package on a tap; it installs xrdma-dkms
# and libxrnic with apt, DKMS builds the modules inside it, and it runs
# ibv_rc_pingpong with a guest of scripts/xrdma-vm run --uplink joined to
# the tap's bridge, then purges the packages (scripts/tests/own-vm-guest.sh,
# scripts/tests/own-vm-peer-guest.sh).  All of it in a network namespace
# of its own.  KTAP: both guests' lines, and this script's.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
scripts/install-deps.sh debhelper dh-dkms dkms mmdebstrap qemu-utils >&2 || exit 1
MEM=2G
ns=xrdma-packages-$$
tmp=$(mktemp -d /tmp/xrdma-packages.XXXXXX)
ram=/dev/shm/xrdma-packages-$$.ram
emu='' qemu='' runner=''
cleanup() {
	local p
	for p in $runner $qemu $emu; do kill "$p" 2>/dev/null; done
	for p in $runner $qemu $emu; do wait "$p" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp" "$ram"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# fail NAME [FILE]: a failed test of this script, FILE's tail as its reason.
fail() {
	[[ -n ${2:-} && -s $2 ]] && tail -n 40 "$2" | sed 's/^/# /'
	echo "not ok 1 $1"
	exit 1
}

scripts/build-deb.sh >"$tmp/deb.log" 2>&1 || fail own_vm.make_deb "$tmp/deb.log"
image=$(scripts/debian-guest-image.sh) || fail own_vm.debian_guest_image
echo "# the Debian guest: $image ($(cat "$image/release"))"

# The guest's second disk: the packages and the scripts it runs.
mkdir "$tmp/disk"
cp build/deb/xrdma-dkms_*.deb build/deb/libxrnic_*.deb scripts/tests/rdma-pair.sh "$tmp/disk/"
cp scripts/tests/own-vm-guest.sh "$tmp/disk/run.sh"
mkfs.ext4 -q -F -d "$tmp/disk" "$tmp/disk.img" 64M >/dev/null 2>&1 || fail own_vm.guest_disk
# Its root: the cached disk through an overlay that ends with the run.
qemu-img create -q -f qcow2 -F raw -b "$image/root.img" "$tmp/root.qcow2" ||
	fail own_vm.guest_disk
# The device model as the xrnic-emu package installs it.
dpkg-deb -x build/deb/xrnic-emu_*.deb "$tmp/emu" || fail own_vm.xrnic_emu_package

# The namespace: a bridge (the host's bridge for VMs), the Debian guest's
# tap on it, and the runner's segment joined to it with --uplink.
ip netns add "$ns" || fail own_vm.netns
ip -n "$ns" link set lo up &&
	ip -n "$ns" link add hb0 mtu 9000 type bridge &&
	ip -n "$ns" tuntap add dev xrtap0 mode tap &&
	ip -n "$ns" link set xrtap0 mtu 9000 master hb0 up &&
	ip -n "$ns" link set hb0 up || fail own_vm.netns

ip netns exec "$ns" scripts/xrdma-vm run --uplink hb0 --vms 1 --timeout 1800 \
	--add scripts/tests/rdma-pair.sh:/rdma-pair.sh scripts/tests/own-vm-peer-guest.sh &
runner=$!

truncate -s "$MEM" "$ram"
ip netns exec "$ns" "$tmp/emu/usr/bin/xrnic-emu" --socket "$tmp/xrnic.sock" \
	--guest-ram "$ram" --vectors 5 --mac 52:54:00:00:00:02 --fw-version 1.2.2 \
	--tap xrtap0 --log "$tmp/emu.log" 2>"$tmp/emu.err" &
emu=$!
for _ in $(seq 300); do
	grep -qs 'listening on' "$tmp/emu.log" && break
	kill -0 "$emu" 2>/dev/null || break
	sleep 0.1
done
grep -qs 'listening on' "$tmp/emu.log" || fail own_vm.xrnic_emu_listens "$tmp/emu.err"

# shellcheck disable=SC2054  # the commas are inside QEMU option values
timeout 1800 qemu-system-x86_64 -nodefaults -no-user-config -machine q35,memory-backend=ram \
	-accel tcg -m "$MEM" -smp 1,maxcpus=2 -no-reboot -display none \
	-object "memory-backend-file,id=ram,size=$MEM,mem-path=$ram,share=on" \
	-kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 loglevel=4 tsc=reliable init=/usr/local/sbin/xrdma-guest-init" \
	-drive "file=$tmp/root.qcow2,format=qcow2,if=virtio" \
	-drive "file=$tmp/disk.img,format=raw,if=virtio,readonly=on" \
	-chardev "socket,path=$tmp/xrnic.sock,id=ivsh0" \
	-device ivshmem-doorbell,chardev=ivsh0,vectors=5 \
	-serial "file:$tmp/console.log" </dev/null 2>"$tmp/qemu.err" &
qemu=$!
wait "$qemu"
qrc=$?
qemu=''
# The guest's console: its KTAP lines as they are, the rest as comments.
tr -d '\r' <"$tmp/console.log" |
	sed -E '/^(TAP version|[0-9]+\.\.[0-9]+$|(not )?ok [0-9]+ )/!s/^/# debian: /'
rc=0
# Without the guest's client the runner's server would wait its time out.
grep -q '^ok .* own_vm.rc_pingpong_with_a_runner_guest' "$tmp/console.log" || kill "$runner"
wait "$runner" || rc=1
runner=
if ((qrc != 0)); then
	sed 's/^/# qemu: /' "$tmp/qemu.err"
	echo "not ok 1 own_vm.debian_guest_powers_off # QEMU exited with status $qrc"
	rc=1
elif ! grep -q 'purge_leaves_no_file_behind' "$tmp/console.log"; then
	echo "not ok 1 own_vm.debian_guest_ran_every_test"
	sed 's/^/# xrnic-emu: /' "$tmp/emu.log" | tail -n 20
	rc=1
fi
exit $rc
