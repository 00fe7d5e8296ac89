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
	for i in $(seq 60); do ping -c 1 -W 1 "$PEER" >/dev/null 2>&1 && break; done
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
# A watchdog waits out the time in a read from a FIFO that nobody writes:
# nothing runs while COMMAND does (a busybox sleep five times a second
# took 5 % of a TCG guest's CPU).
pair_timeout() {
	setsid sh -c "ulimit -c unlimited; $2" &
	pg=$!
	[ -z "$3" ] || echo $pg >"$3"
	[ -p /tmp/pair.nap ] || mkfifo /tmp/pair.nap
	rm -f /tmp/pair.timedout.$pg
	(
		read -r -t "$1" _ <>/tmp/pair.nap
		: >/tmp/pair.timedout.$pg
		echo "still running after $1 s:"
		for stat in /proc/[0-9]*/stat; do
			read -r pid comm state _ pgrp _ 2>/dev/null <"$stat" || continue
			[ "$pgrp" = $pg ] || continue
			echo "  $pid $comm $state, waiting in $(cat /proc/$pid/wchan 2>/dev/null)"
			sed 's/^/    kernel: /' /proc/$pid/stack 2>/dev/null
			# Every thread's 12 innermost frames: a hang may be between two.
			eu-stack -m -n 12 -p $pid 2>&1 | head -80 | sed 's/^/    /'
		done
		kill -TERM -- -$pg 2>/dev/null
	) &
	watchdog=$!
	wait $pg
	pg_st=$?
	kill $watchdog 2>/dev/null
	wait $watchdog
	[ ! -e /tmp/pair.timedout.$pg ] || { rm -f /tmp/pair.timedout.$pg; return 124; }
	return $pg_st
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
	kill -TERM -- -$meet_pid 2>/dev/null
	wait $meet_pid 2>/dev/null
	[ $meet_ticks -gt 0 ] || echo "# $PEER did not come to test $((n + 1)) in time"
}

# pair_run NAME SERVER PROG ARGS: guest SERVER runs "PROG -d DEV ARGS", the
# other "PROG -d DEV ARGS PEER", retrying while the server does not listen
# yet: for as long as the server may still be busy with the test before
# (its limit and a minute), so that one test that hangs does not make the
# next ones fail too.  Both sides report NAME; a client shows its result
# lines.  Each run may take PAIR_TIMEOUT seconds (300 unless set), after
# which its processes' stacks are shown (pair_timeout).
pair_run() {
	name=$1 server=$2 prog=$3
	shift 3
	limit=${PAIR_TIMEOUT:-300}
	pair_meet
	if [ "$XRDMA_VM_INDEX" = "$server" ]; then
		pair_timeout "$limit" "$prog -d $DEV $*" >/tmp/pair.log 2>&1
		st=$?
		[ $st = 0 ] || sed 's/^/# server: /' /tmp/pair.log
	else
		until=$(($(cut -d. -f1 /proc/uptime) + limit + 60))
		while :; do
			pair_timeout "$limit" "$prog -d $DEV $* $PEER" >/tmp/pair.log 2>&1
			st=$?
			grep -q -i -E "couldn't connect|unable to connect|failed to connect|connection refused" \
				/tmp/pair.log || break
			[ "$(cut -d. -f1 /proc/uptime)" -lt "$until" ] || break
			sleep 1
		done
		if [ $st = 0 ]; then
			grep -E "iters in|^ *[0-9]+ +[0-9]+ |^# |^(not )?ok " /tmp/pair.log | sed 's/^# //; s/^/# /'
		else
			sed 's/^/# client: /' /tmp/pair.log
		fi
	fi
	if [ $st = 0 ]; then say ok "$name"; else say "not ok" "$name"; fi
}

# pair_rping NAME SERVER [ARGS]: rping (rdmacm-utils) through the RDMA CM:
# guest SERVER listens, the other connects (again while it is rejected:
# the server does not listen yet), 20 pings whose data rping checks, and
# both sides see the disconnection.
pair_rping() {
	name=$1 server=$2
	shift 2
	pair_meet
	if [ "$XRDMA_VM_INDEX" = "$server" ]; then
		# rping's server always ends with "wait for RDMA_READ_ADV state
		# 10" and status 255 when its client disconnects, on Linux too.
		timeout 120 rping -s -a 0.0.0.0 -p 7174 -C 20 -v "$@" >/tmp/rping.log 2>&1
		st=0
		grep -q "server DISCONNECT EVENT" /tmp/rping.log &&
			[ "$(grep -c "^server ping data: rdma-ping-" /tmp/rping.log)" = 20 ] || st=1
		[ $st = 0 ] || sed 's/^/# server: /' /tmp/rping.log
		# The client's guest waits for this (TCP port 7175).
		for i in $(seq 300); do echo done | nc "$PEER" 7175 2>/dev/null && break; sleep 0.2; done
	else
		for try in $(seq 100); do
			timeout 120 rping -c -a "$PEER" -p 7174 -C 20 -v "$@" >/tmp/rping.log 2>&1
			st=$?
			grep -q "RDMA_CM_EVENT_REJECTED" /tmp/rping.log || break
			sleep 0.3
		done
		[ "$(grep -c "^ping data: rdma-ping-" /tmp/rping.log)" = 20 ] || st=1
		[ $st = 0 ] || sed 's/^/# client: /' /tmp/rping.log
		# Up until the server is done: the client's DREQ, sent again
		# when one is lost, needs this node's CM (it ends with the guest).
		timeout 150 nc -l -p 7175 >/dev/null 2>&1
	fi
	if [ $st = 0 ]; then say ok "$name"; else say "not ok" "$name"; fi
}

# What a client of the RDMA CM prints when its server does not listen yet:
# a REJ (perftest: REJECTED is event 8), or a SIDR_REP saying "unsupported" (1).
export PAIR_NOT_YET="rejected|refused|(unable|failed) to connect|couldn't connect|unreachable, error: 1$|unexpected cm event.* 8$"
# What perftest prints when it could not time the CPU's clock for its report.
PAIR_UNREPORTED="Can't produce a report"

# pair_watch PORT MESSAGE PGFILE FLAG: in the background (its process
# group is $wp), until killed: wait for MESSAGE on TCP port PORT (any other
# message is left unanswered: a peer's word about another test), then
# create FLAG and end the process group whose ID is in PGFILE.
pair_watch() {
	setsid sh -c "while :; do
			m=\$(nc -l -p $1 2>/dev/null) || { sleep 0.1; continue; }
			[ \"\$m\" = '$2' ] && break
		done
		touch $4; kill -TERM -- -\$(cat $3)" 2>/dev/null &
	wp=$!
}

# pair_tell PORT MESSAGE: MESSAGE to the peer's pair_watch on TCP port PORT,
# tried for up to 10 s.
pair_tell() {
	for i in $(seq 100); do
		echo "$2" | nc "$PEER" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# pair_cm_run NAME SERVER SERVER_COMMAND CLIENT_COMMAND: a program of the
# RDMA CM (librdmacm) as typed, guest SERVER running SERVER_COMMAND, the
# other CLIENT_COMMAND (again while it is rejected, refused or unsupported:
# the server does not listen yet); both must end with status 0.  With
# PAIR_LISTENING=1 (pair_cm_listening) the client starts only once its
# server listens, so a rejection is of a later connection: perftest's -R
# client connects twice to the same port, and its server listens for the
# second connection only after the first has exchanged the two sides'
# parameters; a client faster than its server has the second REQ
# rejected by the server's connection manager ("invalid service ID", rxe's
# and ours alike), and perftest 4.5's client then retries on RDMA CM IDs it
# has just destroyed (it crashes, or ends otherwise).  Such a client is
# started again with its server, at most twice, and says so with its
# output; so is a perftest client or server that ran but could not time
# the CPU's clock for its report ("Can't produce a report": its
# calibration's r^2 below 0.9, on a loaded guest).  The side that failed
# tells the other, naming the test by its number, which both guests count
# alike ("restart N"; the client on the server's TCP port 7997, the server
# on the client's 7996): a server that failed is past the stage where a
# new client begins, and a server that could not report left its client
# waiting for their last exchange.  A server of pair_cm_listening that
# failed otherwise waits up to 20 s for that word before it judges: a
# client that ended while its REQ was answered fails the server's accept
# (its REJ came first: EINVAL, as on Linux), and says so only after it
# ends.  Any other failure, a crash among them, is reported with what
# pair_crash_report finds, and fails the test.
pair_cm_run() {
	name=$1 server=$2 restart="restart $((n + 1))"
	pair_meet
	if [ "$XRDMA_VM_INDEX" = "$server" ]; then
		for run in 1 2 3; do
			rm -f /tmp/cm.restart /tmp/cm.pg
			# Each in a process group of its own, ended as a whole.
			t0=$(cut -d' ' -f1 /proc/uptime)
			pair_timeout 120 "$3" /tmp/cm.pg >/tmp/cm.log 2>&1 &
			sp=$!
			pair_watch 7997 "$restart" /tmp/cm.pg /tmp/cm.restart
			wait $sp
			st=$?
			# A server that failed because its client went away (a REJ
			# before its accept: EINVAL) hears the client's word late;
			# one that could not report asks its client itself (below).
			if [ $st != 0 ] && [ "$PAIR_LISTENING" = 1 ] &&
				! grep -q "$PAIR_UNREPORTED" /tmp/cm.log; then
				for i in $(seq 200); do
					[ -e /tmp/cm.restart ] && break
					sleep 0.1
				done
			fi
			kill -TERM -- -$wp 2>/dev/null
			wait $wp
			[ $st -lt 129 ] || pair_crash_report "$t0" >>/tmp/cm.log
			why=
			if [ -e /tmp/cm.restart ]; then
				why="as its client asked (it was rejected or could not report)"
			elif [ $st != 0 ] && grep -q "$PAIR_UNREPORTED" /tmp/cm.log; then
				why="with its client: perftest could not time the CPU's clock (a loaded guest)"
				pair_tell 7996 "$restart" || why=
			fi
			# What the command left in its group, gone before a new run listens.
			left=$(cat /tmp/cm.pg 2>/dev/null)
			if [ -n "$left" ] && kill -KILL -- -"$left" 2>/dev/null; then
				for i in $(seq 50); do kill -0 -- -"$left" 2>/dev/null || break; sleep 0.1; done
			fi
			[ -n "$why" ] && [ $run -lt 3 ] || break
			echo "# server: started again $why; its output:"
			sed 's/^/#   /' /tmp/cm.log
		done
		[ $st = 0 ] || sed 's/^/# server: /' /tmp/cm.log
	else
		restarts=0
		for try in $(seq 100); do
			rm -f /tmp/cm.restart /tmp/cm.pg
			t0=$(cut -d' ' -f1 /proc/uptime)
			pair_timeout 120 "$4" /tmp/cm.pg >/tmp/cm.log 2>&1 &
			cp=$!
			pair_watch 7996 "$restart" /tmp/cm.pg /tmp/cm.restart
			wait $cp
			st=$?
			kill -TERM -- -$wp 2>/dev/null
			wait $wp
			# Where it crashed goes with its output.
			[ $st -lt 129 ] || pair_crash_report "$t0" >>/tmp/cm.log
			why= tell=1
			[ $st != 0 ] && [ "$PAIR_LISTENING" = 1 ] && grep -q -i -E "$PAIR_NOT_YET" /tmp/cm.log &&
				why="was rejected after its server listened"
			[ $st != 0 ] && grep -q "$PAIR_UNREPORTED" /tmp/cm.log &&
				why="perftest could not time the CPU's clock (a loaded guest)"
			[ -e /tmp/cm.restart ] && why="its server could not time the CPU's clock (a loaded guest)" tell=0
			if [ -n "$why" ] && [ $restarts -lt 2 ]; then
				restarts=$((restarts + 1))
				echo "# client: $why, started again with its server; its output:"
				sed 's/^/#   /' /tmp/cm.log
				[ $tell = 0 ] || pair_tell 7997 "$restart"
				continue
			fi
			[ "$PAIR_LISTENING" != 1 ] && grep -q -i -E "$PAIR_NOT_YET" /tmp/cm.log || break
			sleep 0.3
		done
		[ $st = 0 ] || sed 's/^/# client: /' /tmp/cm.log
	fi
	if [ $st = 0 ]; then say ok "$name"; else say "not ok" "$name"; fi
}

# pair_cm_listening NAME SERVER SERVER_COMMAND CLIENT_COMMAND: pair_cm_run
# whose client starts only once the server listens (`rdma res show cm_id`
# shows a LISTEN id; the server's guest then says so on TCP port 7998), for
# perftest's -R and rsockets' rstream and riostream, whose clients fail
# (rstream: "rpoll: Transport endpoint is not connected") rather than say
# they were rejected when they come first.
pair_cm_listening() {
	PAIR_LISTENING=1
	pair_cm_run "$1" "$2" "$3 & p=\$!
		for i in \$(seq 600); do
			rdma res show cm_id | grep -q 'state LISTEN' && break
			kill -0 \$p 2>/dev/null || break; sleep 0.1
		done
		timeout 60 nc -l -p 7998 >/dev/null; wait \$p" \
		"for i in \$(seq 600); do echo go | nc $PEER 7998 2>/dev/null && break; sleep 0.1; done
		 $4"
	PAIR_LISTENING=0
}

# pair_cm_served NAME SERVER SERVER_COMMAND CLIENT_COMMAND: pair_cm_run for
# a server that runs until stopped: the client says when it is done (a TCP
# connection to port 7999; not when its server did not listen yet, it
# tries again then), and the server must still be running then.
pair_cm_served() {
	pair_cm_run "$1" "$2" "$3 & p=\$!; nc -l -p 7999 >/dev/null; kill \$p" \
		"$4 >/tmp/served.log 2>&1; s=\$?; cat /tmp/served.log
		 grep -q -i -E \"\$PAIR_NOT_YET\" /tmp/served.log || echo done | nc $PEER 7999; exit \$s"
}

# pair_mckey NAME SERVER GROUP: mckey (rdmacm-utils) through the RDMA CM's
# multicast joins: guest SERVER joins GROUP and waits for 10 messages, the
# other joins and sends them, 3 times (UD multicast is unreliable by
# design: a message sent before the receiver joined is lost, so the sender
# sends again rather than guess when the receiver is ready).
pair_mckey() {
	pair_cm_run "$1" "$2" "mckey -m $3 -b $XRDMA_IP" \
		"for i in 1 2 3; do mckey -m $3 -b $XRDMA_IP -s || exit 1; done"
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
