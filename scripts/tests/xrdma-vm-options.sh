#!/bin/bash
# Host test of the VM runner's command line: every bad option or argument is
# refused with exit status 2 and a message that names it, before anything
# starts.  Prints KTAP.
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

echo "1..11"
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
exit $failed
