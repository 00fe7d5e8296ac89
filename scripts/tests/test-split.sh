#!/bin/bash
# Host tests of how a kselftest layer splits the kselftests between its two
# guests (tools/testing/selftests/xrdma/split_tests.sh) and of
# scripts/test-times.sh, which writes the times the split uses.  KTAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
split=tools/testing/selftests/xrdma/split_tests.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

check() { # name command...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n test_split.$name"
	else
		failed=1
		echo "not ok $n test_split.$name"
	fi
}

# guest N TIMES LIST...: what guest N runs, on one line.
guest() {
	local g=$1 times=$2
	shift 2
	printf '%s\n' "$@" | sh "$split" "$times" "$g" | tr '\n' ' '
}

printf '# measured\na 10\nb 6\nc 5\nd 1\nxrnic_device_death 3\n' >"$tmp/times"
list=(d xrnic_device_death c b a)

longest_first_to_the_guest_with_less() {
	[ "$(guest 1 "$tmp/times" "${list[@]}")" = "d a xrnic_device_death " ] &&
		[ "$(guest 2 "$tmp/times" "${list[@]}")" = "c b xrnic_device_death " ]
}

every_test_once_and_device_death_on_both() {
	local all
	all=$( (guest 1 "$tmp/times" "${list[@]}"; guest 2 "$tmp/times" "${list[@]}") |
		tr ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ')
	[ "$all" = "a b c d xrnic_device_death xrnic_device_death " ]
}

an_unmeasured_test_counts_ten_seconds() {
	printf 'a 15\nb 6\n' >"$tmp/few"
	[ "$(guest 1 "$tmp/few" a b x)" = "a xrnic_device_death " ] &&
		[ "$(guest 2 "$tmp/few" a b x)" = "b x xrnic_device_death " ]
}

refuses_a_bad_guest_or_times_file() {
	sh "$split" "$tmp/times" 3 </dev/null 2>/dev/null
	[ $? -eq 2 ] || return 1
	sh "$split" "$tmp/nonexistent" 1 </dev/null 2>/dev/null
	[ $? -eq 2 ]
}

times_come_from_the_log_longest_first_the_longer_guest_without_device_death() {
	printf '%s\n' '[1] # xrnic_load: 14 s' '[2] # rdma_tool: 30 s' 'ok 1 x' \
		'[2] # xrnic_device_death: 4 s' '[1] # uverbs_abi: 1 s' '[2] # xrnic_load: 9 s' >"$tmp/log"
	scripts/test-times.sh "$tmp/log" >"$tmp/out" || return 1
	[ "$(grep -v '^#' "$tmp/out" | tr '\n' ' ')" = "rdma_tool 30 xrnic_load 14 uverbs_abi 1 " ]
}

times_refuse_a_log_without_times() {
	echo "ok 1 nothing" >"$tmp/empty"
	scripts/test-times.sh "$tmp/empty" >/dev/null 2>&1
	[ $? -eq 1 ] || return 1
	scripts/test-times.sh "$tmp/nonexistent" >/dev/null 2>&1
	[ $? -eq 2 ]
}

# the_committed_times_name_every_test FILE [SKIPPED]: FILE (times_debian,
# times_debug) has a time for every kselftest its kernel runs.
the_committed_times_name_every_test() {
	local t tests file=$1 skipped=${2:-}
	# Written by the build (make check's first layer).
	tests=$(cat tools/testing/selftests/xrdma/build/tests.list) || return 1
	for t in $tests; do
		[ "$t" = xrnic_device_death ] || [ "$t" = "$skipped" ] && continue
		grep -q "^$t [0-9]*$" "tools/testing/selftests/xrdma/$file" ||
			{ echo "# $t has no time in $file"; return 1; }
	done
}

echo "1..8"
check longest_first_to_the_guest_with_less longest_first_to_the_guest_with_less
check every_test_once_and_device_death_on_both every_test_once_and_device_death_on_both
check an_unmeasured_test_counts_ten_seconds an_unmeasured_test_counts_ten_seconds
check refuses_a_bad_guest_or_times_file refuses_a_bad_guest_or_times_file
check times_come_from_the_log_longest_first_the_longer_guest_without_device_death \
	times_come_from_the_log_longest_first_the_longer_guest_without_device_death
check times_refuse_a_log_without_times times_refuse_a_log_without_times
check the_committed_times_name_every_test_on_debians_kernel \
	the_committed_times_name_every_test times_debian
check the_committed_times_name_every_test_on_the_debug_kernel \
	the_committed_times_name_every_test times_debug verbs_programs
exit $failed
