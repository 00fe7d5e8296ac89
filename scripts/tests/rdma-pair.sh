#!/bin/sh
# Sourced by the guest scripts of the roce and interop layers (added to
# the image as /rdma-pair.sh): two guests on the runner's segment, each
# with one RDMA device, run the same programs as server and client.
# Guest i's device is xrnic0, or rxe0 in a --rxe guest, which sets it up as
# a user would: modprobe rdma_rxe, the address, rdma link add.  KTAP.

# pair_setup [PEER]: the NIC up with the guest's address, the RDMA device
# ready, the peer answering pings.  Sets DEV, PEER (the other guest's name,
# or the one given), PEER_IP, and the test count n and status rc if unset.
pair_setup() {
	if [ "$XRDMA_RXE" = 1 ]; then
		modprobe virtio_pci && modprobe virtio_net || { echo "modprobe virtio_net failed"; exit 1; }
		# ib_uverbs and rdma_ucm are what rdma-core's udev rules load
		# for user verbs and the RDMA CM.
		modprobe rdma_rxe && modprobe ib_uverbs && modprobe rdma_ucm ||
			{ echo "modprobe rdma_rxe failed"; exit 1; }
		DEV=rxe0
	else
		modprobe xrnic || { echo "modprobe xrnic failed"; exit 1; }
		DEV=xrnic0
	fi
	ip link set eth0 mtu 9000 up && ip addr add "$XRDMA_IP/24" dev eth0 || exit 1
	if [ "$XRDMA_RXE" = 1 ]; then
		rdma link add rxe0 type rxe netdev eth0 || { echo "rdma link add failed"; exit 1; }
	fi
	PEER=${1:-xrdma-vm$((3 - XRDMA_VM_INDEX))}
	PEER_IP=$(awk -v h="$PEER" '{ for (i = 2; i <= NF; i++) if ($i == h) print $1 }' /etc/hosts)
	for pair_try in $(seq 60); do ping -c 1 -W 1 "$PEER" >/dev/null 2>&1 && break; done
	echo "# $(hostname): $DEV, $(rdma link show "$DEV/1")"
	# A script with tests before this one goes on counting.
	n=${n:-0}
	rc=${rc:-0}
	# A crashed program leaves a core (pair_crash_report reads it).
	echo /tmp/core.%p >/proc/sys/kernel/core_pattern
}

# pair_timeout SECONDS COMMAND [PGFILE]: sh -c COMMAND (core dumps on) in a
# process group of its own, ended as a whole (SIGTERM) after SECONDS;
# then each of its processes is shown first: its state, where it waits in
# the kernel and its stack (eu-stack).  The status is COMMAND's, or 124
# when time ran out.  The group's ID goes into the file PGFILE if given.
# The watchdog waits out the time in one sleep (no polling: a busybox
# sleep five times a second took 5 % of a TCG guest's CPU), and ends it
# when it is itself ended; no read -t, which dash lacks.
pair_timeout() {
	setsid sh -c "ulimit -c unlimited; $2" &
	pg=$!
	[ -z "$3" ] || echo $pg >"$3"
	rm -f /tmp/pair.timedout.$pg
	(
		sleep "$1" &
		nap=$!
		trap 'kill $nap 2>/dev/null; exit 0' TERM
		wait $nap || exit 0
		: >/tmp/pair.timedout.$pg
		echo "still running after $1 s:"
		for pid in $(pair_group_pids $pg); do
			read -r _ comm state _ </proc/$pid/stat 2>/dev/null || continue
			echo "  $pid $comm $state, waiting in $(cat /proc/$pid/wchan 2>/dev/null)"
			sed 's/^/    kernel: /' /proc/$pid/stack 2>/dev/null
			# Every thread's 12 innermost frames: a hang may be between two.
			eu-stack -m -n 12 -p $pid 2>&1 | head -80 | sed 's/^/    /'
		done
		kill -TERM -$pg 2>/dev/null
	) &
	watchdog=$!
	wait $pg
	pg_st=$?
	kill $watchdog 2>/dev/null
	wait $watchdog
	[ ! -e /tmp/pair.timedout.$pg ] || { rm -f /tmp/pair.timedout.$pg; return 124; }
	return $pg_st
}

# pair_group_pids PG: the processes of process group PG.
pair_group_pids() {
	for stat in /proc/[0-9]*/stat; do
		read -r pid _ _ _ pgrp _ 2>/dev/null <"$stat" || continue
		[ "$pgrp" = "$1" ] && echo "$pid"
	done
}

# pair_listens PG [any]: a process of group PG listens: has a TCP socket
# in state LISTEN or an RDMA CM id in state LISTEN (rdma res show cm_id);
# with "any", an RDMA CM id in any state (a multicast receiver).
pair_listens() {
	pids=$(pair_group_pids "$1")
	[ -n "$pids" ] || return 1
	ids=$(rdma res show cm_id 2>/dev/null)
	[ "$2" = any ] || ids=$(echo "$ids" | grep 'state LISTEN')
	for pid in $pids; do
		case $ids in *"pid $pid "*) return 0 ;; esac
	done
	[ "$2" != any ] || return 1
	inodes=$(for pid in $pids; do ls -l /proc/$pid/fd 2>/dev/null; done |
		sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')
	[ -n "$inodes" ] || return 1
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v l=" $inodes" '$4 == "0A" && index(l, " " $10 " ") { f = 1 } END { exit !f }'
}

# pair_ready PID PGFILE [any]: wait (up to 60 s) until the server started
# as PID, whose process group's ID pair_timeout writes into PGFILE,
# listens (pair_listens); not once PID has ended.  Says why when it does
# not.
pair_ready() {
	for pair_try in $(seq 600); do
		pg=$(cat "$2" 2>/dev/null)
		[ -n "$pg" ] && pair_listens "$pg" "$3" && return 0
		kill -0 "$1" 2>/dev/null || { echo "# server: ended before it listened"; return 1; }
		sleep 0.1
	done
	echo "# server: not listening after 60 s"
	return 1
}

# pair_quiet: /tmp/pair.quiet, a FIFO nobody writes, the standard input of
# a listener that takes a message (pair_await, pair_watch): busybox nc -l
# with nothing to send (</dev/null) ends as soon as it has accepted a
# connection and may lose what the peer sends; one that waits on its input
# ends when the peer closes, the message read.
pair_quiet() {
	[ -p /tmp/pair.quiet ] || mkfifo /tmp/pair.quiet
}

# pair_await PORT MESSAGE [SECONDS]: wait (up to SECONDS, 180 unless
# given) for MESSAGE from the peer on TCP port PORT (pair_tell); any other
# message is a peer's word about another test, and is let go.
pair_await() {
	pair_quiet
	pair_timeout "${3:-180}" "while :; do
			m=\$(nc -l -p $1 <>/tmp/pair.quiet 2>/dev/null) || { sleep 0.1; continue; }
			[ \"\$m\" = '$2' ] && exit 0
		done" >/dev/null 2>&1
}

# pair_crash_report SINCE: what is known of a program that died of a
# signal since uptime SINCE: the kernel's lines about it, and for each
# core the signal's origin (si_code 0: kill() and its sender, 128: the
# kernel's own, 1 and 2: a fault), the registers that place it, and its
# stack (eu-stack: frame, function, file).  The cores are removed.
pair_crash_report() {
	dmesg | awk -v t0="$1" '{ t = substr($0, 2, index($0, "]") - 2) + 0 }
		t >= t0 && /segfault at|traps:|bad frame|rseq/'
	for core in /tmp/core.*; do
		[ -e "$core" ] || continue
		echo "$core:"
		eu-readelf -n "$core" | grep -E "^ *si_signo|sender|fname|rip:" | sed 's/^ */  /'
		eu-stack -m --core="$core" 2>&1 | head -20 | sed 's/^/  /'
		rm -f "$core"
	done
}

# say RESULT NAME: a KTAP line, then the seconds since the last one (where the time goes).
say() {
	n=$((n + 1))
	t=$(cut -d. -f1 /proc/uptime)
	echo "$1 $n $2"
	echo "# $2: $((t - ${said:-t})) s"
	said=$t
	[ "$1" = ok ] || rc=1
}

# pair_ping NAME: three pings of the peer answered.
pair_ping() {
	if ping -c 3 -W 5 "$PEER" >/tmp/ping.log 2>&1; then
		say ok "$1"
	else
		sed 's/^/# /' /tmp/ping.log
		say "not ok" "$1"
	fi
}

# pair_meet: wait until the peer comes to the same test, so that a test
# that failed at once on one side and ran to its time limit on the other
# does not leave the two guests that far apart for every test after it
# (a client giving up before its late server listens).  Each side listens
# on a TCP port of the pair (7900 plus both guests' numbers: a guest that
# meets two peers in turn is not met by the wrong one) and connects to
# the peer's until the peer took it; both go on once each was connected
# to.  A connection is the whole message: busybox nc -l with nothing to
# send ends as soon as it has accepted one, and loses what the peer sends
# after that.  The wait is bounded by the longest a test of the peer may
# take.  PAIR_MEET=0: not (a pair with one test, whose peer may have no nc).
pair_meet() {
	[ "${PAIR_MEET:-1}" = 1 ] || return 0
	case ${PEER#xrdma-vm} in
	'' | *[!0-9]*) meet_port=7900 ;;
	*) meet_port=$((7900 + XRDMA_VM_INDEX + ${PEER#xrdma-vm})) ;;
	esac
	rm -f /tmp/meet
	# Nothing from stdin: a caller's loop may be reading a list from it.
	setsid sh -c "until nc -l -p $meet_port </dev/null >/dev/null 2>&1; do sleep 0.1; done
		touch /tmp/meet" &
	meet_pid=$!
	meet_told=0
	meet_ticks=$(((${PAIR_TIMEOUT:-300} + 150) * 5))
	while [ $meet_ticks -gt 0 ]; do
		[ $meet_told = 1 ] ||
			{ nc "$PEER" $meet_port </dev/null >/dev/null 2>&1 && meet_told=1; }
		[ $meet_told = 1 ] && [ -e /tmp/meet ] && break
		sleep 0.2
		meet_ticks=$((meet_ticks - 1))
	done
	kill -TERM -$meet_pid 2>/dev/null
	wait $meet_pid 2>/dev/null
	[ $meet_ticks -gt 0 ] || echo "# $PEER did not come to test $((n + 1)) in time"
}

# (The functions here name their loop variables pair_try: a caller's own
# loop, over i say, is left alone.)

# How a pair test starts: both guests meet (pair_meet); the server's guest
# starts the server in a process group of its own (pair_timeout) and, once
# it listens (pair_ready: a TCP or RDMA CM listener of that group), says
# "go NAME" on the client's TCP port 7998 (pair_tell); the client's guest
# waits for that (pair_await) and starts the client, once.  Nothing is
# tried again because a server was late, so a REJ, a refused connection
# or a crash is the test's failure.  A program that dies of a signal is
# reported with what pair_crash_report finds (the kernel's segfault line,
# the core's stack).  With PAIR_MEET=0 (a pair with one test whose peer
# has no nc, make check-packages) there is no handshake: the client's
# guest installs packages for minutes before it starts, long after the
# server listens.

# pair_server LIMIT COMMAND LOG [any]: the server's side of test $name:
# COMMAND under pair_timeout LIMIT, output in LOG; once it listens
# (pair_ready; "any": once it has any RDMA CM id) the client is told.
# Status in st.  pair_server_start: the same in the background (its
# status then from pair_server_wait LOG).
pair_server() {
	pair_server_start "$@"
	pair_server_wait "$3"
}
pair_server_start() {
	t0=$(cut -d' ' -f1 /proc/uptime)
	rm -f /tmp/pair.pg
	pair_timeout "$1" "$2" /tmp/pair.pg >"$3" 2>&1 &
	sp=$!
	pair_ready $sp /tmp/pair.pg "$4"
	[ "${PAIR_MEET:-1}" = 0 ] || pair_tell 7998 "go $name" ||
		echo "# server: the client did not take its word"
}
pair_server_wait() {
	wait $sp
	st=$?
	[ $st -lt 129 ] || pair_crash_report "$t0" >>"$1"
}

# pair_client LIMIT COMMAND LOG: the client's side of test $name: COMMAND
# under pair_timeout LIMIT once the server said it listens, output in LOG.
# Status in st.
pair_client() {
	[ "${PAIR_MEET:-1}" = 0 ] || pair_await 7998 "go $name" $(($1 + 60)) ||
		echo "# client: no word from the server that it listens"
	t0=$(cut -d' ' -f1 /proc/uptime)
	pair_timeout "$1" "$2" >"$3" 2>&1
	st=$?
	[ $st -lt 129 ] || pair_crash_report "$t0" >>"$3"
}

# pair_run NAME SERVER PROG ARGS: guest SERVER runs "PROG -d DEV ARGS", the
# other "PROG -d DEV ARGS PEER" once it listens.  Both sides report NAME
# (one test: scripts/tap-count.pl); a client shows its result lines.
# Each side may take PAIR_TIMEOUT seconds (300 unless set), after which
# its processes' stacks are shown (pair_timeout).
pair_run() {
	name=$1 server=$2 prog=$3
	shift 3
	limit=${PAIR_TIMEOUT:-300}
	pair_meet
	if [ "$XRDMA_VM_INDEX" = "$server" ]; then
		pair_server "$limit" "$prog -d $DEV $*" /tmp/pair.log
		[ $st = 0 ] || sed 's/^/# server: /' /tmp/pair.log
	else
		pair_client "$limit" "$prog -d $DEV $* $PEER" /tmp/pair.log
		if [ $st = 0 ]; then
			grep -E "iters in|^ *[0-9]+ +[0-9]+ |^# |^(not )?ok " /tmp/pair.log | sed 's/^# //; s/^/# /'
		else
			sed 's/^/# client: /' /tmp/pair.log
		fi
	fi
	if [ $st = 0 ]; then say ok "$name"; else say "not ok" "$name"; fi
}

# pair_rping NAME SERVER [ARGS]: rping (rdmacm-utils) through the RDMA CM:
# guest SERVER listens, the other connects, 20 pings whose data rping
# checks, and both sides see the disconnection.
pair_rping() {
	name=$1 server=$2
	shift 2
	pair_meet
	if [ "$XRDMA_VM_INDEX" = "$server" ]; then
		# rping's server always ends with "wait for RDMA_READ_ADV state
		# 10" and status 255 when its client disconnects, on Linux too.
		pair_server 120 "rping -s -a 0.0.0.0 -p 7174 -C 20 -v $*" /tmp/rping.log
		[ $st -lt 129 ] && [ $st != 124 ] && grep -q "server DISCONNECT EVENT" /tmp/rping.log &&
			[ "$(grep -c "^server ping data: rdma-ping-" /tmp/rping.log)" = 20 ] && st=0 || st=1
		[ $st = 0 ] || sed 's/^/# server: /' /tmp/rping.log
		# The client's guest waits for this (TCP port 7175).
		for pair_try in $(seq 300); do echo done | nc "$PEER" 7175 2>/dev/null && break; sleep 0.2; done
	else
		pair_client 120 "rping -c -a $PEER -p 7174 -C 20 -v $*" /tmp/rping.log
		[ "$(grep -c "^ping data: rdma-ping-" /tmp/rping.log)" = 20 ] || st=1
		[ $st = 0 ] || sed 's/^/# client: /' /tmp/rping.log
		# Up until the server is done: the client's DREQ, sent again
		# when one is lost, needs this node's CM (it ends with the guest).
		timeout 150 nc -l -p 7175 >/dev/null 2>&1
	fi
	if [ $st = 0 ]; then say ok "$name"; else say "not ok" "$name"; fi
}

# What a client prints when its server does not listen yet: a REJ, a
# refused TCP connection, or a SIDR_REP saying "unsupported" (1).  Only
# make bench's incast senders (scripts/bench-incast-guest.sh) go by it:
# they measure, and try again; a test never does.
export PAIR_NOT_YET="rejected|refused|(unable|failed) to connect|couldn't connect|unreachable, error: 1$|unexpected cm event.* 8$"
# What perftest prints when it could not time the CPU's clock for its report.
PAIR_UNREPORTED="Can't produce a report"

# pair_watch PORT NAME PGFILE FLAG: in the background (its process group
# is $wp), until killed: wait for a word about test NAME on TCP port PORT
# ("restart NAME" or "skip NAME"; any other is left unanswered: a peer's
# word about another test), write it into FLAG and end the process group
# whose ID is in PGFILE.
pair_watch() {
	pair_quiet
	setsid sh -c "while :; do
			m=\$(nc -l -p $1 <>/tmp/pair.quiet 2>/dev/null) || { sleep 0.1; continue; }
			case \$m in 'restart $2' | 'skip $2') break ;; esac
		done
		echo \"\$m\" >$4; kill -TERM -\$(cat $3)" 2>/dev/null &
	wp=$!
}

# pair_tell PORT MESSAGE: MESSAGE to the peer's pair_watch or pair_await
# on TCP port PORT, tried for up to 30 s.
pair_tell() {
	for pair_try in $(seq 300); do
		echo "$2" | nc "$PEER" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# pair_perftest_crashed LOG: the client whose output is LOG is Debian 12's
# perftest (4.5-0.17) that crashed in its own retry of an RDMA CM
# connection: rejected (event 8: its server did not listen for the second
# connection yet), it destroys its RDMA CM ids and resolves on them again
# (SIGSEGV in rdma_resolve_addr; fixed upstream by perftest's 3d9d8d0,
# "Fix crashes and logical flaws in RDMA CM connection retry").  The core
# dump names the function where librdmacm has its symbols; in the rxe
# guest it names only the library, in the crash's first frame.
pair_perftest_crashed() {
	grep -q "RDMA_CM_EVENT_REJECTED; error: 8" "$1" &&
		grep -q "si_signo: 11" "$1" &&
		{ grep -q "rdma_resolve_addr" "$1" || grep -qE "#0 .* librdmacm[.]so" "$1"; }
}

# pair_cm_run NAME SERVER SERVER_COMMAND CLIENT_COMMAND [perftest]: a
# program of the RDMA CM (librdmacm) as typed, guest SERVER running
# SERVER_COMMAND, the other CLIENT_COMMAND once the server listens; both
# must end with status 0.  PAIR_READY=any: the server is ready once it
# has an RDMA CM id (a multicast receiver, which does not listen).
#
# "perftest": perftest's -R mode.  Its client connects twice to the same
# port while its server listens for the second connection only after the
# first exchanged their parameters, so a quick client has its second REQ
# rejected ("invalid service ID", rxe's CM and ours alike); perftest then
# tries again by itself, and Debian 12's perftest crashes doing so
# (pair_perftest_crashed).  That crash, and only that one, makes the test
# a skip on both sides, saying why: the run proved nothing either way.
# perftest's other failure of its own, "Can't produce a report" (its
# clock's calibration, r^2 below 0.9, on a loaded guest, on either side),
# runs the pair once more: a "# RETRY NAME:" line says why and the first
# run's output follows it (scripts/check.sh counts the retried tests).
# The side that judged tells the other ("restart NAME" or "skip NAME"; the
# client on the server's TCP port 7997, the server on the client's 7996).
pair_cm_run() {
	name=$1 server=$2 perftest=${5:-} skip=
	pair_meet
	if [ "$XRDMA_VM_INDEX" = "$server" ]; then
		for run in 1 2; do
			rm -f /tmp/cm.word
			pair_watch 7997 "$name" /tmp/pair.pg /tmp/cm.word
			pair_server 120 "$3" /tmp/cm.log "$PAIR_READY"
			# A perftest server that failed because its client went
			# away hears the client's word late.
			if [ $st != 0 ] && [ -n "$perftest" ] && [ $st -lt 129 ]; then
				for pair_try in $(seq 200); do
					[ -e /tmp/cm.word ] && break
					sleep 0.1
				done
			fi
			kill -TERM -$wp 2>/dev/null
			wait $wp
			why=
			case $(cat /tmp/cm.word 2>/dev/null) in
			restart*) why="its client could not time the CPU's clock (a loaded guest)" ;;
			skip*) skip="its perftest client crashed in its own RDMA CM retry (perftest 4.5-0.17; fixed upstream by 3d9d8d0)" ;;
			*)
				if [ -n "$perftest" ] && [ $st != 0 ] && [ $st -lt 129 ] &&
					grep -q "$PAIR_UNREPORTED" /tmp/cm.log; then
					why="perftest could not time the CPU's clock (a loaded guest)"
					pair_tell 7996 "restart $name" || why=
				fi
				;;
			esac
			pair_kill_group /tmp/pair.pg
			[ -n "$why" ] && [ $run = 1 ] || break
			echo "# RETRY $name: the server runs again with its client: $why; its first run's output:"
			sed 's/^/#   /' /tmp/cm.log
		done
		[ $st = 0 ] || [ -n "$skip" ] || sed 's/^/# server: /' /tmp/cm.log
	else
		for run in 1 2; do
			rm -f /tmp/cm.word /tmp/cm.pg
			pair_watch 7996 "$name" /tmp/cm.pg /tmp/cm.word
			# pair_client, with the group's ID for pair_watch.
			pair_await 7998 "go $name" 180 ||
				echo "# client: no word from the server that it listens"
			t0=$(cut -d' ' -f1 /proc/uptime)
			pair_timeout 120 "$4" /tmp/cm.pg >/tmp/cm.log 2>&1
			st=$?
			kill -TERM -$wp 2>/dev/null
			wait $wp
			[ $st -lt 129 ] || pair_crash_report "$t0" >>/tmp/cm.log
			why= tell=
			if [ -n "$perftest" ] && [ $st != 0 ]; then
				if pair_perftest_crashed /tmp/cm.log; then
					skip="its perftest client crashed in its own RDMA CM retry (perftest 4.5-0.17; fixed upstream by 3d9d8d0)"
					sed 's/^/# client: /' /tmp/cm.log
					pair_tell 7997 "skip $name"
					break
				fi
				[ $st -lt 129 ] && grep -q "$PAIR_UNREPORTED" /tmp/cm.log &&
					why="perftest could not time the CPU's clock (a loaded guest)" tell=1
			fi
			[ -e /tmp/cm.word ] && why="its server could not time the CPU's clock (a loaded guest)"
			[ -n "$why" ] && [ $run = 1 ] || break
			echo "# RETRY $name: the client runs again with its server: $why; its first run's output:"
			sed 's/^/#   /' /tmp/cm.log
			[ -z "$tell" ] || pair_tell 7997 "restart $name"
		done
		[ $st = 0 ] || [ -n "$skip" ] || sed 's/^/# client: /' /tmp/cm.log
	fi
	if [ -n "$skip" ]; then
		say ok "$name # SKIP $skip"
	elif [ $st = 0 ]; then
		say ok "$name"
	else
		say "not ok" "$name"
	fi
}

# pair_kill_group PGFILE: what is left of the process group whose ID is in
# PGFILE, gone (KILL) before a new run listens.
pair_kill_group() {
	left=$(cat "$1" 2>/dev/null)
	if [ -n "$left" ] && kill -KILL -"$left" 2>/dev/null; then
		for pair_try in $(seq 50); do kill -0 -"$left" 2>/dev/null || break; sleep 0.1; done
	fi
}

# pair_perftest_cm NAME SERVER SERVER_COMMAND CLIENT_COMMAND: pair_cm_run
# of perftest's -R mode (see there).
pair_perftest_cm() {
	pair_cm_run "$1" "$2" "$3" "$4" perftest
}

# pair_cm_served NAME SERVER SERVER_COMMAND CLIENT_COMMAND: pair_cm_run for
# a server that runs until stopped: the client says when it is done (a TCP
# connection to port 7999), and the server must still be running then.
pair_cm_served() {
	pair_cm_run "$1" "$2" "$3 & p=\$!; nc -l -p 7999 >/dev/null; kill \$p" \
		"$4; s=\$?; echo done | nc $PEER 7999; exit \$s"
}

# pair_mckey NAME SERVER GROUP: mckey (rdmacm-utils) through the RDMA CM's
# multicast joins: guest SERVER joins GROUP and waits for 10 messages, the
# other joins and sends them, 3 times (UD multicast is unreliable by
# design: a message sent before the receiver's join took effect is lost,
# so the sender sends again rather than guess when it did).
pair_mckey() {
	PAIR_READY=any
	pair_cm_run "$1" "$2" "mckey -m $3 -b $XRDMA_IP" \
		"for i in 1 2 3; do mckey -m $3 -b $XRDMA_IP -s || exit 1; done"
	PAIR_READY=
}

# pair_rping_rejected NAME: rping to the peer's port 7471, where nobody
# listens: the peer's connection manager answers the REQ with a REJ
# ("invalid service ID", 8), which rping reports.  Both guests do it at
# once, so each side's CM both asks and rejects.
pair_rping_rejected() {
	pair_meet
	out=$(timeout 120 rping -c -a "$PEER" -p 7471 -C 1 -v 2>&1)
	if echo "$out" | grep -q "RDMA_CM_EVENT_REJECTED, error 8"; then
		say ok "$1"
	else
		echo "$out" | sed 's/^/# rping: /'
		say "not ok" "$1"
	fi
}

# pair_stat NAME: the value of counter NAME of this guest's RDMA port
# (rdma statistic).
pair_stat() {
	rdma statistic show link "$DEV/1" | tr ' ' '\n' | grep -A1 "^$1\$" | tail -1
}

# pair_icrc_check LAYER: on an XRNIC, no ICRC errors, or with faults
# injected (scripts/xrdma-vm run --faults) some.  rxe counts none of its
# own that we can read the same way: nothing to check there.
pair_icrc_check() {
	[ "$DEV" = xrnic0 ] || return 0
	echo "# rdma statistic: $(rdma statistic show link xrnic0/1)"
	if [ "$(pair_stat injected_corrupts)" = 0 ]; then
		if [ "$(pair_stat rx_icrc_errors)" = 0 ]; then say ok "$1.no_icrc_errors"
		else say "not ok" "$1.no_icrc_errors"; fi
	elif [ "$(pair_stat rx_icrc_errors)" -gt 0 ]; then
		say ok "$1.corrupted_frames_fail_the_icrc"
	else
		say "not ok" "$1.corrupted_frames_fail_the_icrc"
	fi
}
