#!/bin/sh
# Runs inside each test VM (scripts/xrdma-vm run): loads the driver with
# modprobe and runs every xrdma kselftest, in the order of tests.list (from
# the Makefile).  On the debug kernel (scripts/debug-kernel.sh) it also
# proves that KASAN and lockdep are on and stayed on, and that kmemleak
# finds no leak after the tests; KASAN, lockdep and other reports on the
# console fail the run by themselves (scripts/xrdma-vm).
dir=/selftests	# where scripts/check.sh puts the test binaries
kmemleak=/sys/kernel/debug/kmemleak
rc=0
[ -s "$dir/tests.list" ] || { echo "$dir/tests.list is missing"; exit 1; }
if [ -e $kmemleak ]; then
	# Whatever the boot left unreferenced is not ours to report.
	echo clear >$kmemleak
	kasan=no
	dmesg | grep -q "KernelAddressSanitizer initialized" && kasan=yes
fi
modprobe xrnic || { echo "modprobe xrnic failed"; dmesg | tail -20; exit 1; }
# Two guests share the list, split by the times measured on their kernel
# (split_tests.sh, times_debian or times_debug); both run
# xrnic_device_death last, whose variant depends on the guest.  On the
# debug kernel (about ten times slower) the tests that look for races and
# leaks run; the unmodified programs (verbs_programs) take the same kernel
# paths as verbs_datapath and run on Debian's kernel only, and the load
# cycles are fewer (XRDMA_DEBUG_KERNEL).
tests=$(cat "$dir/tests.list")
times=$dir/times_debian
if [ -e $kmemleak ]; then
	export XRDMA_DEBUG_KERNEL=1
	tests=$(echo "$tests" | tr ' ' '\n' | grep -vx verbs_programs)
	times=$dir/times_debug
fi
if [ "${XRDMA_VMS:-1}" -ge 2 ]; then
	tests=$(echo "$tests" | tr ' ' '\n' |
		"$dir/split_tests.sh" "$times" "$XRDMA_VM_INDEX") || exit 1
fi
for t in $tests; do
	t0=$(cut -d. -f1 /proc/uptime)
	if ! "$dir/$t"; then
		rc=1
		# The device's counters, for the diagnosis (a drop, a retransmit).
		echo "# rdma statistic: $(rdma statistic show link xrnic0/1 2>&1)"
	fi
	echo "# $t: $(($(cut -d. -f1 /proc/uptime) - t0)) s"
done
[ -e $kmemleak ] || exit $rc

# KTAP results of the debug kernel's own checks.
n=0
result() { # name command...
	name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n debug_kernel.$name"; else echo "not ok $n debug_kernel.$name"; rc=1; fi
}
no_leaks() {
	# Unloaded (the last test already did), so that nothing of ours is
	# referenced any more.
	modprobe -r -q xrnic_xrdma xrnic xrdma_core 2>/dev/null
	! grep -q "^xrdma_core " /proc/modules || return 1
	# Objects younger than 5 s are never reported; two scans settle it.
	sleep 6
	echo scan >$kmemleak && echo scan >$kmemleak || return 1
	leaks=$(cat $kmemleak)
	[ -z "$leaks" ] && return 0
	echo "$leaks"
	return 1
}
echo "TAP version 13"
echo "1..3"
result kasan_enabled test "$kasan" = yes
result lockdep_still_enabled grep -Eq "debug_locks: +1" /proc/lockdep_stats
result kmemleak_finds_no_leak no_leaks
exit $rc
