#!/bin/bash
# Host tests of scripts/tests/rdma-pair.sh under each shell that runs it:
# busybox sh (the runner's guests), dash (/bin/sh of the plain Debian guest
# of make check-packages) and bash.  Its time limit, its listener probe and
# its handshake between the two sides of a pair test, on this host, with
# busybox's nc as the guests have it.  KTAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The guests' nc (busybox's), first on the PATH.
mkdir "$tmp/bin"
ln -s "$(command -v busybox)" "$tmp/bin/nc"
export PATH=$tmp/bin:$PATH
n=0
failed=0
check() { # name command...
	local name=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok $n rdma_pair.$name"
	else
		sed 's/^/# /' "$tmp/out"
		echo "not ok $n rdma_pair.$name"
		failed=1
	fi
}

# in SHELL SCRIPT: SCRIPT run by SHELL with rdma-pair.sh's functions, in
# the test's directory (where a core dump of the signal test goes).
pair_sh=$PWD/scripts/tests/rdma-pair.sh
in_shell() {
	local sh=$1
	shift
	# shellcheck disable=SC2016
	(cd "$tmp" && $sh -c ". $pair_sh; $*")
}

shells=("busybox sh" dash bash)
echo "TAP version 13"
echo "1..$((9 * ${#shells[@]}))"
# What a perftest client's log says when it crashed in its own RDMA CM
# retry (pair_perftest_crashed), as the two guests' core dumps print it.
crash_log() { # FIRST_FRAME
	printf '%s\n' "RDMA CM event error:" "Event: RDMA_CM_EVENT_REJECTED; error: 8." \
		"  si_signo: 11, si_errno: 0, si_code: 128" "  TID 1373:" "  #0  $1" \
		"  #1  0x0000559609c7f3c7 - /usr/bin/ib_read_lat"
}
crash_log "0x00007fd3501e7472 - librdmacm.so.1" >"$tmp/crash.rxe"
crash_log "0x00007f2e8d3c1472 rdma_resolve_addr - librdmacm.so.1" >"$tmp/crash.xrnic"
crash_log "0x00007fd3501e7472 - libibverbs.so.1" >"$tmp/crash.other"
grep -v "REJECTED" "$tmp/crash.rxe" >"$tmp/crash.norej"
for sh in "${shells[@]}"; do
	s=${sh%% *}
	s=${s/busybox/busybox_sh}
	check "${s}_parses_it" $sh -n scripts/tests/rdma-pair.sh
	check "${s}_pair_perftest_crashed_knows_perftests_retry_crash" in_shell "$sh" \
		"pair_perftest_crashed $tmp/crash.rxe && pair_perftest_crashed $tmp/crash.xrnic"
	check "${s}_pair_perftest_crashed_knows_no_other_crash" in_shell "$sh" \
		"! pair_perftest_crashed $tmp/crash.other && ! pair_perftest_crashed $tmp/crash.norej"
	check "${s}_pair_timeout_gives_the_status" in_shell "$sh" \
		'pair_timeout 10 "exit 3"; [ $? = 3 ]'
	# 124, not sleep's 0: ended at its limit (no timing judged); nothing of
	# the group left but zombies (this host's init may reap them late).
	check "${s}_pair_timeout_ends_a_command_at_its_limit" in_shell "$sh" \
		'pair_timeout 1 "sleep 30" '"$tmp/pg"'; st=$?
		 for p in $(pair_group_pids $(cat '"$tmp/pg"')); do
			read -r _ _ state _ </proc/$p/stat && [ "$state" = Z ] || st=1
		 done; [ $st = 124 ]'
	check "${s}_pair_timeout_reports_a_signal" in_shell "$sh" \
		'pair_timeout 10 "kill -SEGV \$\$"; [ $? = 139 ]'
	port=$((20000 + RANDOM % 10000))
	check "${s}_pair_listens_finds_a_tcp_listener" in_shell "$sh" \
		'pair_timeout 20 "nc -l -p '"$port"' >/dev/null" '"$tmp/pg"' & p=$!
		 for i in $(seq 50); do [ -s '"$tmp/pg"' ] && pair_listens $(cat '"$tmp/pg"') && ok=1 && break
			sleep 0.1; done
		 kill -TERM -$(cat '"$tmp/pg"'); wait $p; [ "$ok" = 1 ]'
	check "${s}_pair_listens_is_false_for_a_group_without_one" in_shell "$sh" \
		'pair_timeout 20 "sleep 30" '"$tmp/pg"' & p=$!
		 sleep 0.5; ! pair_listens $(cat '"$tmp/pg"'); st=$?
		 kill -TERM -$(cat '"$tmp/pg"'); wait $p; [ $st = 0 ]'
	# pair_await takes only its own message; pair_tell sends to $PEER.
	port=$((20000 + RANDOM % 10000))
	check "${s}_pair_await_takes_the_peers_word" in_shell "$sh" \
		'PEER=127.0.0.1; pair_await '"$port"' "go a" 20 & p=$!
		 pair_tell '"$port"' "go b" && pair_tell '"$port"' "go a" && wait $p'
done
exit $failed
