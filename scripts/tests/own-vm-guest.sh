#!/bin/sh
# make check-packages, in a plain Debian 12 guest booted by QEMU without the
# runner (scripts/tests/own-vm.sh): xrdma's packages installed as a user
# installs them, DKMS building the modules for the guest's own kernel, the
# XRNIC talking to a runner guest, and purging the packages leaving no file
# behind.  The second disk, /mnt, holds the .debs, rdma-pair.sh and this
# script as run.sh.  KTAP.
export XRDMA_VM_INDEX=2 XRDMA_IP=192.0.2.2 XRDMA_RXE=0 DEBIAN_FRONTEND=noninteractive
echo "192.0.2.1 xrdma-vm1" >>/etc/hosts
. /mnt/rdma-pair.sh
n=0 rc=0
said=$(cut -d. -f1 /proc/uptime)
echo "TAP version 13"
echo "1..5"

# files: every path of the root file system but the package manager's own
# state, logs, caches and what lives only while the guest runs.
files() {
	find / -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache \
		-o -path /var/log -o -path /tmp -o -path /run -o -path /mnt \) -prune -o -print | sort
}
files >/tmp/before

# check NAME COMMAND...: NAME passes when the command does; its output is
# shown when it fails.
check() {
	name=$1
	shift
	if "$@" >/tmp/check.log 2>&1; then
		say ok "$name"
	else
		tail -n 40 /tmp/check.log | sed 's/^/# /'
		say "not ok" "$name"
	fi
}

install_packages() {
	apt-get install -y /mnt/xrdma-dkms_*.deb /mnt/libxrnic_*.deb || return 1
	dkms status xrdma
	dkms status xrdma | grep "$(uname -r)" | grep -q installed || return 1
	modinfo -n xrnic xrnic_xrdma xrdma_core
	[ "$(modinfo -n xrnic xrnic_xrdma xrdma_core | grep -c /updates/dkms/)" = 3 ]
}
check own_vm.apt_install_builds_the_modules_with_dkms install_packages

# ibv_devinfo lists xrnic0 only when libibverbs loads the provider for it.
# udev loads the RDMA function's driver (xrnic_xrdma) by its auxiliary
# device's modalias, as for any converged RNIC: settle waits for it.
devinfo() {
	modprobe xrnic && udevadm settle --timeout=60 && ibv_devinfo -d xrnic0 && ibv_devinfo -d xrnic0 | grep -q PORT_ACTIVE
}
check own_vm.modprobe_and_the_provider_give_xrnic0 devinfo

if [ "$rc" = 0 ]; then
	pair_setup
	PAIR_MEET=0	# one test; see own-vm-peer-guest.sh
	pair_run own_vm.rc_pingpong_with_a_runner_guest 1 ibv_rc_pingpong -g 1 -c -n 200
else
	say "not ok" "own_vm.rc_pingpong_with_a_runner_guest # the device is not there"
fi

purge() {
	rmmod xrnic_xrdma xrnic xrdma_core || return 1
	apt-get purge -y xrdma-dkms libxrnic || return 1
	for p in xrdma-dkms libxrnic; do
		case $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) in
		"" | ?n*) ;;
		*) echo "$p is still installed"; return 1 ;;
		esac
	done
	! modinfo xrnic
}
check own_vm.purge_removes_packages_and_modules purge

files >/tmp/after
check own_vm.purge_leaves_no_file_behind diff /tmp/before /tmp/after
exit $rc
