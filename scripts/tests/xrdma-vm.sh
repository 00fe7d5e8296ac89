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

echo "1..12"
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

# shell: type into the guest once /init says the shell starts (XRDMA-START),
# as a person would after the prompt appears.
shell_test() {
	local line out= ok=0 rfd wfd pid
	coproc SH { exec "$vm" shell \
		--module drivers/infiniband/core/xrdma_core.ko \
		--module drivers/infiniband/hw/xrnic/xrnic.ko 2>&1; }
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
