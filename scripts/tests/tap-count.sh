#!/bin/bash
# Host tests of scripts/tap-count.pl, which counts every layer of make
# check: what it prints ("PASSED FAILED SKIPPED RETRIED PAIRED") for logs
# made up for each rule it keeps.  KTAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# counts NAME WANT LOG: the log, printf's format LOG, counts as WANT.
counts() {
	local name=$1 want=$2 got
	# shellcheck disable=SC2059
	printf "$3" >"$tmp/log"
	: >"$tmp/failed"
	got=$(scripts/tap-count.pl t "$tmp/log" "$tmp/failed")
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n tap_count.$name"
	else
		echo "# got '$got', want '$want'"
		sed 's/^/# failed: /' "$tmp/failed"
		echo "not ok $n tap_count.$name"
		failed=1
	fi
}

echo "TAP version 13"
echo "1..9"
counts a_test_both_guests_report_counts_once "1 0 0 0 1" \
	'[1] 1..1\n[2] 1..1\n[1] ok 1 a\n[2] ok 1 a\n'
counts a_pair_test_fails_if_one_side_fails "0 1 0 0 1" \
	'[1] 1..1\n[2] 1..1\n[1] ok 1 a\n[2] not ok 1 a\n'
counts a_test_both_sides_skip_is_skipped "0 0 1 0 1" \
	'[1] 1..1\n[2] 1..1\n[1] ok 1 a # SKIP x\n[2] ok 1 a # SKIP x\n'
counts a_short_plan_fails "2 1 0 0 0" \
	'1..3\nok 1 a\nok 2 b\n'
counts no_plan_fails "2 1 0 0 0" \
	'ok 1 a\nok 2 b\n'
counts a_failed_test_fails "1 1 0 0 0" \
	'1..2\nok 1 a\nnot ok 2 b\n'
counts a_document_held_in_another_is_its_own "4 0 0 0 0" \
	'[1] TAP version 13\n[1] 1..3\n[1] ok 1 a\n[1] TAP version 13\n[1] 1..1\n[1] ok 1 inner\n[1] ok 2 b\n[1] ok 3 c\n'
counts an_unnamed_skip_takes_its_run_name "1 0 0 0 1" \
	'[1] 1..1\n[1] #  RUN           g.death ...\n[1] ok 1 # SKIP odd\n[2] 1..1\n[2] ok 1 g.death\n'
counts a_retried_test_counts_once "1 0 0 1 1" \
	'[1] 1..1\n[2] 1..1\n[1] # RETRY a: why\n[2] # RETRY a: why\n[1] ok 1 a\n[2] ok 1 a\n'
exit $failed
