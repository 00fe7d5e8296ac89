#!/bin/sh
# Sourced by the bench's guest scripts (as /bench-perftest.sh, after
# /rdma-pair.sh's pair_setup): one perftest figure between two guests.
# The caller sets client to 1 in the guest that measures (the other,
# guest 1 on the segment, serves).

# perftest METRIC BYTES LENGTH [SUFFIX]: the program METRIC between the
# guests for LENGTH, perftest's "-n ITERATIONS" or "-D SECONDS" (a
# duration measures its middle half: perftest's margins, a quarter each,
# leave out the start and the end); the measuring guest prints "RESULT
# METRICSUFFIX BYTES UNIT VALUE" (bandwidth the average in MB/s, 10^6
# bytes: perftest reports MiB/s; latency the typical one-way time in us
# and, as METRICSUFFIX_p99 and _p999, its percentiles), or "FAILED METRIC
# BYTES" with perftest's output.
perftest() {
	# shellcheck disable=SC2086 # LENGTH is two words
	pair_run "bench.$1$4.$2" 1 "$1" -x 1 -s "$2" $3 -F >/dev/null
	[ -n "$client" ] || return 0
	if [ "$st" != 0 ]; then
		echo "FAILED $1$4 $2"
		sed 's/^/# /' /tmp/pair.log
		return 0
	fi
	case $1 in
	*_bw) awk -v m="$1$4" -v b="$2" '$1 == b && NF >= 5 {
		printf "RESULT %s %s MB/s %.1f\n", m, b, $4 * 1.048576 }' /tmp/pair.log ;;
	*) awk -v m="$1$4" -v b="$2" '$1 == b && NF >= 9 {
		printf "RESULT %s %s us %.2f\n", m, b, $5
		printf "RESULT %s_p99 %s us %.2f\n", m, b, $8
		printf "RESULT %s_p999 %s us %.2f\n", m, b, $9 }' /tmp/pair.log ;;
	esac
}
