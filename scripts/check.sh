#!/bin/bash
# make check: install what is missing, build, then run every test of every
# layer (lint, device-model host tests, kselftests in a VM) and end with one
# line "N passed, N failed, N skipped" counting them all.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
logdir=$top/build/check
rm -rf "$logdir"
mkdir -p "$logdir"
pass=0
fail=0
skip=0
retried=0

# Count a layer's tests as a TAP parser reads them (scripts/tap-count.pl:
# every plan checked, a pair test reported by both guests counted once,
# retried tests counted apart).
count() { # layer log rc seconds
	local p f s r k
	read -r p f s r k < <(scripts/tap-count.pl "$1" "$2" "$logdir/failed.txt")
	if [ -z "$k" ]; then
		echo "not ok - $1: its log could not be parsed" | tee -a "$logdir/failed.txt"
		p=0 f=1 s=0 r=0 k=0
	fi
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $1 exited with status $3 without a failed test" |
			tee -a "$logdir/failed.txt"
		f=1
	fi
	echo "# $1: $p passed, $f failed, $s skipped (${4:-0} s)$([ "$k" = 0 ] ||
		echo "; $k reported by two or more guests, counted once")"
	[ "$r" = 0 ] || echo "# $1: $r tests run again (lines '# RETRY' above say why)"
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	retried=$((retried + r))
}

layer() { # name command...
	local name=$1 rc start=$SECONDS
	shift
	echo "# ---- $name: $*"
	"$@" 2>&1 | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	count "$name" "$logdir/$name.log" "$rc" $((SECONDS - start))
}

# LOAD=1: a CPU hog (stress-ng, one worker per core) runs beside every
# layer, as on a developer's busy machine; the tests must pass all the same.
LOAD=${LOAD:-0}
case $LOAD in
0 | 1) ;;
*) echo "check.sh: LOAD must be 0 or 1, not '$LOAD'" >&2; exit 2 ;;
esac
hog=
start_hog() {
	[ "$LOAD" = 1 ] || return 0
	stress-ng --cpu "$(nproc)" --quiet &
	hog=$!
	echo "# LOAD=1: stress-ng --cpu $(nproc) beside every layer (pid $hog)"
}
stop_hog() {
	[ -n "$hog" ] || return 0
	kill "$hog" 2>/dev/null
	wait "$hog" 2>/dev/null
	hog=
}
trap stop_hog EXIT

# The failures again at the end, where a log's tail shows them.
finish() {
	stop_hog
	if [ -s "$logdir/failed.txt" ]; then
		echo "# failed:"
		head -n 40 "$logdir/failed.txt" | sed 's/^/#   /'
	fi
	echo "# the whole run: $((SECONDS / 60)) min $((SECONDS % 60)) s"
	[ "$retried" = 0 ] || echo "# $retried tests were run a second time (their # RETRY lines say why)"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
}

scripts/install-deps.sh || { echo "not ok - install-deps" | tee "$logdir/failed.txt"; fail=1; finish; }
start_hog

# A layer of one test: NAME passes when the command succeeds.
one_test() { # name command...
	local name=$1
	shift
	echo "1..1"
	if "$@"; then echo "ok 1 $name"; else echo "not ok 1 $name"; fi
}
layer build one_test build.all make -s -j"$(nproc)" all
[ "$fail" -eq 0 ] || finish

# make check-packages (scripts/check.sh own-vm): only the packages in a
# plain Debian guest of a user's own (its first run builds and caches the
# guest's disk: minutes), kept out of make check for its time.
if [ "${1:-}" = own-vm ]; then
	layer own-vm scripts/tests/own-vm.sh
	finish
fi

layer lint scripts/lint.sh
layer scripts scripts/tests/xrdma-vm.sh
# The pair tests' shared functions under every shell that runs them:
# busybox sh in the runner's guests, dash in make check-packages' Debian
# guest, bash.
layer pair-shells scripts/tests/rdma-pair-shells.sh
# The counter itself (scripts/tap-count.pl) on logs made up for each rule.
layer tap-count scripts/tests/tap-count.sh
layer test-split scripts/tests/test-split.sh
# The README's main command works: two guests run the demo script.
layer demo one_test demo.guest_script scripts/xrdma-vm run --vms 2 \
	--module drivers/infiniband/core/xrdma_core.ko \
	--module drivers/infiniband/hw/xrnic/xrnic.ko \
	--module drivers/infiniband/hw/xrnic/xrnic_xrdma.ko scripts/demo-guest.sh
layer device-model make -s -j"$(nproc)" -C tools/xrnic-emu check
# The Debian packages (make deb: xrdma-dkms, libxrnic, xrnic-emu): lintian,
# their files, DKMS building the modules for Debian's kernel; make install
# and make uninstall into a staging directory.
layer packages scripts/tests/packages.sh
# IB CM (cm.c) on the host: its state machine and messages against a peer
# that sends what Linux's ib_cm sends, and a bounded fuzz run of CM MADs as
# they come from the wire.
layer cm-host make -s -C tools/testing/cm check
# Two XRNIC guests and a virtio-net guest on the runner's segment (a bridge
# in a network namespace of its own): ping, jumbo frames, link down and up,
# ethtool, MTU, drops counted, TCP both ways, the GID table, RoCE paths.
layer ethernet scripts/xrdma-vm run --vms 3 --virtio-net 3 \
	--add tools/testing/selftests/xrdma/build:/selftests scripts/tests/ethernet-guest.sh
# RDMA between two XRNIC guests over RoCE v2 on the segment: Debian's
# ibv_rc_pingpong (data checked, IPv4 and IPv6 GIDs, 1 MiB), perftest and
# verbs_peer (every opcode, data checked, 16 MiB, 16 QPs).
pair=(--add scripts/tests/rdma-pair.sh:/rdma-pair.sh
	--add tools/testing/selftests/xrdma/build:/selftests)
layer roce scripts/xrdma-vm run --vms 2 "${pair[@]}" scripts/tests/roce-guest.sh
# The XRNIC's RDMA function on Linux's ib_core (xrnic_ib.ko): the device
# and port through Debian's ib_uverbs and the provider, the GID table,
# Debian's pingpongs and perftest between two such guests, unbinding under
# an open context and binding again.
layer linux-core scripts/xrdma-vm run --core linux --vms 2 "${pair[@]}" \
	scripts/tests/linux-core-guest.sh
# Incast: three XRNIC guests write into a fourth at once (4 QPs each); the
# switch marks their queues CE, the receiver sends CNPs, the senders slow
# down (DCQCN) and every flow completes; then again with the senders'
# reaction points off (cc_params/rp_enable 0): CNPs ignored, flows complete.
layer incast scripts/xrdma-vm run --vms 4 --add scripts/tests/rdma-pair.sh:/rdma-pair.sh \
	scripts/tests/incast-guest.sh
# The switch's modes: CE marks on every queued frame (--ecn-threshold 0):
# UD datagrams get CNPs to their source QP, whose rate is cut; lossless
# (--lossless, as PFC): a sender on 16 QPs to a guest whose device stops
# for 2 s pauses instead of losing frames, and the stream completes.
layer switch scripts/xrdma-vm run --vms 2 --lossless --ecn-threshold 0 \
	--add scripts/tests/rdma-pair.sh:/rdma-pair.sh scripts/tests/switch-guest.sh
# Two runs in two network namespaces standing for hosts, their segments
# joined by VXLAN (--host-index, --vxlan): RoCE v2 between an XRNIC guest
# of each; an underlay MTU too small for the segment is refused.
layer vxlan scripts/tests/vxlan.sh
# Two runs in two network namespaces standing for machines, each run's
# segment bridged to its machine's NIC (--uplink), a veth pair the cable:
# an XRNIC guest on one, an rdma_rxe guest on the other, RoCE v2 between.
layer uplink scripts/tests/uplink.sh
# The same programs between an XRNIC guest and Linux's rdma_rxe (Debian's
# kernel and rxe provider) on a virtio-net guest, both ways; the XRNIC's
# device model captures its wire, and the capture is checked: every RoCE v2
# frame, rxe's too, passes our ICRC check, and tshark decodes it cleanly
# (the IB CM handshakes of both ends too).
# The slow receiver's ping-pong and WRITEs take about 2 minutes of it, twice as long
# beside a CPU hog (LOAD=1): 30 minutes are allowed.
mkdir -p "$logdir/pcap"
layer interop scripts/xrdma-vm run --vms 2 --rxe 2 --timeout 1800 --pcap "$logdir/pcap" "${pair[@]}" \
	scripts/tests/interop-guest.sh
layer capture scripts/tests/capture-check.sh "$logdir/pcap"
# Two XRNIC guests on a wire that drops, duplicates, reorders and corrupts
# (5%, 1%, 1%, 0.5% of the frames each device sends): 100 000 SENDs once and
# in order, data and atomics checked, perftest completes.
layer roce-faults scripts/xrdma-vm run --vms 2 --faults drop=5,dup=1,reorder=1,corrupt=0.5,seed=7 \
	"${pair[@]}" scripts/tests/roce-faults-guest.sh
kver=$(scripts/kernel-version.sh)
# SLUB debugging turns a use-after-free or overflow in our slabs into a
# "BUG" on the console, which fails the run.
layer kselftests-vm scripts/xrdma-vm run --vms 2 --extra-ivshmem \
	--append slub_debug=FZPU \
	--module drivers/infiniband/core/xrdma_core.ko \
	--module drivers/infiniband/hw/xrnic/xrnic.ko \
	--module drivers/infiniband/hw/xrnic/xrnic_xrdma.ko \
	--module "/lib/modules/$kver/kernel/drivers/infiniband/core/ib_core.ko" \
	--add tools/testing/selftests/xrdma/build:/selftests \
	tools/testing/selftests/xrdma/run_vm_tests.sh
# The same kselftests on the debug kernel (KASAN, lockdep, kmemleak), built
# once from Debian's linux-source and cached (scripts/debug-kernel.sh); a
# report of any of them fails the run (scripts/xrdma-vm), and the guests
# check that the instruments stayed on and that kmemleak finds nothing.
# They run after an earlier layer failed too (the run fails all the same),
# so that one failure does not hide theirs; not when the build failed.
failed_before=$fail
layer debug-modules one_test build.debug_kernel_modules scripts/debug-modules.sh
if [ "$fail" -eq "$failed_before" ]; then
	ddir=$(scripts/debug-kernel.sh)
	drel=$(<"$ddir/release")
	dsrc=build/debug-kernel/src
	layer kselftests-debug-vm scripts/xrdma-vm run --debug-kernel --vms 2 \
		--extra-ivshmem \
		--module $dsrc/drivers/infiniband/core/xrdma_core.ko \
		--module $dsrc/drivers/infiniband/hw/xrnic/xrnic.ko \
		--module $dsrc/drivers/infiniband/hw/xrnic/xrnic_xrdma.ko \
		--module "$ddir/modroot/lib/modules/$drel/kernel/drivers/infiniband/core/ib_core.ko" \
		--add tools/testing/selftests/xrdma/build:/selftests \
		tools/testing/selftests/xrdma/run_vm_tests.sh
	# The RDMA function on Linux's ib_core under KASAN, lockdep and
	# kmemleak (the debug kernel's own ib_core and ib_uverbs).
	layer linux-core-debug scripts/xrdma-vm run --debug-kernel --core linux --vms 2 \
		"${pair[@]}" scripts/tests/linux-core-guest.sh
fi
# A kernel WARNING during the tests is a bug even when every test passed.
for log in kselftests-vm kselftests-debug-vm linux-core linux-core-debug; do
	if grep -qs "kernel WARNING" "$logdir/$log.log"; then
		echo "not ok - kernel WARNING on a guest console (see $log above)" |
			tee -a "$logdir/failed.txt"
		fail=$((fail + 1))
	fi
done
finish
