#!/bin/bash
# Host tests of the VM runner: every bad option or argument is refused with
# exit status 2 and a message that names it, before anything starts; and
# "shell" gives an interactive shell in a guest with its device.  Prints KTAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
vm=scripts/xrdma-vm
n=0
failed=0

# expect_usage_error WORDS_IN_MESSAGE -- ARGS...
expect_usage_error() {
	local want=$1 out rc
	shift 2
	n=$((n + 1))
	out=$("$vm" "$@" 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$want" <<<"$out"; then
		echo "ok $n xrdma_vm.refuses: $*"
	else
		failed=1
		echo "# exit $rc, output: $out"
		echo "not ok $n xrdma_vm.refuses: $*"
	fi
}

# run_script TEXT ARGS...: "run ARGS SCRIPT" of the runner (600 s at the
# most) for a script holding TEXT; sets out (its output) and rc (its status).
run_script() {
	local script
	script=$(mktemp)
	printf '%s\n' "$1" >"$script"
	shift
	out=$(timeout 600 "$vm" run "$@" "$script" 2>&1)
	rc=$?
	rm -f "$script"
}

echo "1..49"
expect_usage_error "missing command" --
expect_usage_error "unknown command '--bogus'" -- --bogus
expect_usage_error "needs exactly one SCRIPT" -- run
expect_usage_error "--vms: '0'" -- run --vms 0 /etc/hostname
expect_usage_error "--vms: 'abc'" -- run --vms abc /etc/hostname
expect_usage_error "--timeout: '-3'" -- run --timeout -3 /etc/hostname
expect_usage_error "not a readable file" -- run /nonexistent/script
expect_usage_error "--add: '/nonexistent'" -- run --add /nonexistent /etc/hostname
expect_usage_error "--module: '/etc/hostname' is not a kernel module" -- \
	run --module /etc/hostname /etc/hostname
expect_usage_error "shell takes no SCRIPT" -- shell /etc/hostname
expect_usage_error "unknown option" -- run --frobnicate /etc/hostname
expect_usage_error "--debug-kernel takes no argument" -- \
	run --debug-kernel=yes /etc/hostname
expect_usage_error "--no-switch takes no argument" -- run --no-switch=1 /etc/hostname
expect_usage_error "--virtio-net: 'x'" -- run --virtio-net x /etc/hostname
expect_usage_error "--virtio-net/--rxe: there is no guest 3" -- \
	run --vms 2 --virtio-net 3 /etc/hostname
expect_usage_error "--rxe: '0'" -- run --vms 2 --rxe 0 /etc/hostname
expect_usage_error "--core: 'ib' is not xrdma or linux" -- run --core ib /etc/hostname
expect_usage_error "--pcap: '/nonexistent'" -- run --pcap /nonexistent /etc/hostname
pcapdir=$(mktemp -d)
touch "$pcapdir/guest1.pcap"
expect_usage_error "holds captures already" -- run --pcap "$pcapdir" /etc/hostname
rm -rf "$pcapdir"
expect_usage_error "--virtio-net/--rxe: there is no guest 2" -- run --rxe 2 /etc/hostname
expect_usage_error "--faults: 'drop=101'" -- run --faults drop=101 /etc/hostname
expect_usage_error "--faults: 'lose=5'" -- run --faults lose=5 /etc/hostname
expect_usage_error "--faults: 'seed=x'" -- run --faults seed=x /etc/hostname
expect_usage_error "--ecn-threshold: '8388609'" -- run --ecn-threshold 8388609 /etc/hostname
expect_usage_error "--ecn-threshold: '1k'" -- run --ecn-threshold 1k /etc/hostname
expect_usage_error "--ecn-threshold: ''" -- run --ecn-threshold= /etc/hostname
expect_usage_error "--ecn-threshold needs the switch" -- \
	run --no-switch --ecn-threshold 0 /etc/hostname
expect_usage_error "--lossless needs the switch" -- run --no-switch --lossless /etc/hostname
expect_usage_error "--lossless takes no argument" -- run --lossless=1 /etc/hostname
expect_usage_error "--host-index: '16'" -- run --host-index 16 /etc/hostname
expect_usage_error "--host-index: '0'" -- run --host-index 0 /etc/hostname
expect_usage_error "--vxlan: '10.0.0'" -- run --vxlan 10.0.0 /etc/hostname
expect_usage_error "--vxlan: '10.0.0.1,,10.0.0.2'" -- run --vxlan 10.0.0.1,,10.0.0.2 /etc/hostname
expect_usage_error "at most 16 guests a host" -- run --host-index 2 --vms 17 /etc/hostname
expect_usage_error "--vxlan/--uplink: no guest has a NIC" -- run --no-device --vxlan 10.0.0.1 /etc/hostname
expect_usage_error "--uplink: 'lo' is not a Linux bridge" -- run --uplink lo /etc/hostname
expect_usage_error "--uplink: 'no/such' is not a Linux bridge" -- run --uplink no/such /etc/hostname

# A guest whose console shows what the debug kernel reports fails the run,
# even though its script succeeds.
expect_report_fails() { # name console-line
	n=$((n + 1))
	run_script "$(printf 'echo "<3>%s" >/dev/kmsg\nsleep 1' "$2")" --no-device
	if [ $rc -eq 1 ] && grep -qF "kernel crash: $2" <<<"$out"; then
		echo "ok $n xrdma_vm.fails_on_$1"
	else
		failed=1
		echo "# exit $rc, output: $(tail -5 <<<"$out")"
		echo "not ok $n xrdma_vm.fails_on_$1"
	fi
}
# A guest that does not reach /init in time is booted once more (here every
# guest, with a boot timeout of 1 s), and the run still passes.
n=$((n + 1))
XRDMA_BOOT_TIMEOUT=1 run_script "exit 0" --no-device
if [ $rc -eq 0 ] && grep -q "booting it again (once)" <<<"$out"; then
	echo "ok $n xrdma_vm.reboots_a_guest_stuck_before_init_once"
else
	failed=1
	echo "# output: $(tail -5 <<<"$out")"
	echo "not ok $n xrdma_vm.reboots_a_guest_stuck_before_init_once"
fi

# "XRDMA-HOST: cpu LABEL" is answered with every QEMU's and device model's
# CPU time so far (the bench's), here with the device model off the switch.
n=$((n + 1))
run_script "$(printf 'echo "XRDMA-HOST: cpu mark.1"\nsleep 1')" --no-switch
if [ $rc -eq 0 ] && grep -qE "host: cpu mark\.1 qemu1=[0-9]+ emu1=[0-9]+" <<<"$out"; then
	echo "ok $n xrdma_vm.answers_cpu_with_the_cpu_time_of_qemu_and_device_model"
else
	failed=1
	echo "# exit $rc, output: $(tail -5 <<<"$out")"
	echo "not ok $n xrdma_vm.answers_cpu_with_the_cpu_time_of_qemu_and_device_model"
fi

# A guest that fails stops the others at once: guest 1 exits 3, guest 2
# would sleep for 600 s.
n=$((n + 1))
run_script "$(printf '[ "$XRDMA_VM_INDEX" = 1 ] && exit 3\nsleep 600')" --vms 2 --no-device
if [ $rc -eq 1 ] && grep -q "guest 2: stopping it (pid [0-9]*): guest 1 failed" <<<"$out" &&
   grep -q "guest 2 FAILED: stopped after guest 1 failed" <<<"$out"; then
	echo "ok $n xrdma_vm.a_failed_guest_stops_the_others"
else
	failed=1
	echo "# exit $rc, output: $(tail -5 <<<"$out")"
	echo "not ok $n xrdma_vm.a_failed_guest_stops_the_others"
fi

# expect_clean_after_signal SIG WORD: a run of two guests (with devices)
# ended by SIG through timeout(1) (which passes on a signal it gets, as
# when its time is up: sent as soon as the guests started, 60 s at the
# most) says WORD and leaves nothing behind: no network namespace, no
# /dev/shm file, no temporary directory, no process.
expect_clean_after_signal() {
	local sig=$1 word=$2 script out t rpid='' i left=''
	n=$((n + 1))
	script=$(mktemp)
	out=$(mktemp)
	echo "sleep 600" >"$script"
	# Job control, so that the background job does not ignore SIGINT.
	set -m
	timeout -s "$sig" 60 "$vm" run --vms 2 "$script" >"$out" 2>&1 &
	t=$!
	set +m
	for ((i = 0; i < 600 && ! rpid; i++)); do
		grep -q "started 2 guest" "$out" && rpid=$(pgrep -P "$t")
		sleep 0.2
	done
	kill -s "$sig" "$t" 2>/dev/null
	wait "$t"
	[ -n "$rpid" ] || left="no runner seen"
	[ -z "$rpid" ] || {
		ip netns list | grep -qw "xrdma-vm-$rpid" && left+=" netns"
		compgen -G "/dev/shm/xrdma-$rpid-*" >/dev/null && left+=" shm"
		compgen -G "${TMPDIR:-/tmp}/xrdma-vm.$rpid.*" >/dev/null && left+=" tmpdir"
		# "[.]" keeps this grep from matching its own command line.
		grep -lsE "xrdma-vm[.]$rpid[.]" /proc/[0-9]*/cmdline >/dev/null && left+=" processes"
	}
	grep -q "$word, cleaning up" "$out" || left+=" no '$word' message"
	if [ -z "$left" ]; then
		echo "ok $n xrdma_vm.cleans_up_after_sig$sig"
	else
		failed=1
		echo "# left:$left; output: $(tail -5 "$out")"
		echo "not ok $n xrdma_vm.cleans_up_after_sig$sig"
	fi
	rm -f "$script" "$out"
}
expect_clean_after_signal TERM terminated
expect_clean_after_signal INT interrupted

# A TERM to the runner's whole process group while its output goes to a
# reader of that group (as "make check | tee" dies with it, or a kill of the
# job): the runner can write nothing any more and still leaves nothing behind.
expect_clean_after_group_term() {
	local script out pg rpid='' i left=''
	n=$((n + 1))
	script=$(mktemp)
	out=$(mktemp)
	echo "sleep 600" >"$script"
	setsid bash -c '"$0" run --vms 2 "$1" 2>&1 | cat >"$2"' "$vm" "$script" "$out" &
	pg=$!
	for ((i = 0; i < 600 && ! rpid; i++)); do
		grep -q "started 2 guest" "$out" && rpid=$(pgrep -P "$pg" -f "run --vms 2")
		sleep 0.2
	done
	kill -TERM -- "-$pg" 2>/dev/null
	wait "$pg" 2>/dev/null
	[ -n "$rpid" ] || left="no runner seen"
	[ -z "$rpid" ] || {
		for ((i = 0; i < 300; i++)); do
			kill -0 "$rpid" 2>/dev/null || break
			sleep 0.2
		done
		kill -0 "$rpid" 2>/dev/null && left+=" runner still there"
		ip netns list | grep -qw "xrdma-vm-$rpid" && left+=" netns"
		compgen -G "/dev/shm/xrdma-$rpid-*" >/dev/null && left+=" shm"
		compgen -G "${TMPDIR:-/tmp}/xrdma-vm.$rpid.*" >/dev/null && left+=" tmpdir"
		grep -lsE "xrdma-vm[.]$rpid[.]" /proc/[0-9]*/cmdline >/dev/null && left+=" processes"
	}
	if [ -z "$left" ]; then
		echo "ok $n xrdma_vm.cleans_up_after_sigterm_to_its_group_with_its_reader_gone"
	else
		failed=1
		echo "# left:$left; output: $(tail -5 "$out")"
		echo "not ok $n xrdma_vm.cleans_up_after_sigterm_to_its_group_with_its_reader_gone"
	fi
	rm -f "$script" "$out"
}
expect_clean_after_group_term

expect_report_fails kasan_report "BUG: KASAN: slab-use-after-free in xr_test+0x1/0x2"
expect_report_fails lockdep_report "WARNING: possible circular locking dependency detected"
expect_report_fails kmemleak_report "unreferenced object 0xffff888004a8c000 (size 64):"
expect_report_fails kernel_gpf \
	"general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] PREEMPT SMP NOPTI"
# A process's general protection fault is not the kernel's: the run passes.
n=$((n + 1))
run_script "$(printf 'echo "<3>traps: prog[99] general protection fault ip:7f0000001000 sp:7ffd00001000 error:0 in libx.so.1[7f0000000000+1000]" >/dev/kmsg\nsleep 1')" --no-device
if [ $rc -eq 0 ]; then
	echo "ok $n xrdma_vm.a_process_general_protection_fault_is_not_a_kernel_crash"
else
	failed=1
	echo "# exit $rc, output: $(tail -5 <<<"$out")"
	echo "not ok $n xrdma_vm.a_process_general_protection_fault_is_not_a_kernel_crash"
fi

# shell: type into the guest once /init says the shell starts (XRDMA-START),
# as a person would after the prompt appears.
shell_test() {
	local line out= ok=0 rfd wfd pid
	coproc SH { exec "$vm" shell \
		--module drivers/infiniband/core/xrdma_core.ko \
		--module drivers/infiniband/hw/xrnic/xrnic.ko \
		--module drivers/infiniband/hw/xrnic/xrnic_xrdma.ko 2>&1; }
	# Own copies: bash drops SH and SH_PID when the coprocess ends.
	pid=$SH_PID
	exec {rfd}<&"${SH[0]}" {wfd}>&"${SH[1]}"
	while IFS= read -r -t 300 line <&"$rfd"; do
		out+=$line$'\n'
		[[ $line == *XRDMA-START* ]] && break
	done
	printf '%s\n' 'modprobe xrnic && echo "SHELL-OK $XRDMA_VM_INDEX $(cat /sys/class/infiniband/xrnic0/ports/1/state)"' \
		'poweroff -f' >&"$wfd"
	while IFS= read -r -t 300 line <&"$rfd"; do
		out+=$line$'\n'
	done
	exec {rfd}<&- {wfd}>&-
	wait "$pid" && grep -q "^SHELL-OK 1 4: ACTIVE" <<<"${out//$'\r'/}" && ok=1
	n=$((n + 1))
	if ((ok)); then
		echo "ok $n xrdma_vm.shell_runs_commands_in_a_guest"
	else
		failed=1
		sed 's/^/# /' <<<"$out"
		echo "not ok $n xrdma_vm.shell_runs_commands_in_a_guest"
	fi
}
shell_test
exit $failed
