#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# split_tests.sh TIMES GUEST <LIST: the tests guest GUEST (1 or 2) of a
# kselftest layer runs, one per line in LIST's order, xrnic_device_death
# (which both run) last.  The tests are split by the seconds in TIMES
# ("NAME N" lines, # comments; times_debian, times_debug): the longest
# first, each to the guest with less so far, ties to guest 1; a test TIMES
# does not name counts 10 s.
[ $# -eq 2 ] && [ -r "$1" ] && { [ "$2" = 1 ] || [ "$2" = 2 ]; } ||
	{ echo "usage: $0 TIMES GUEST(1|2) <LIST" >&2; exit 2; }
grep -vx xrnic_device_death | awk -v times="$1" -v me="$2" '
BEGIN {
	n = 0
	while ((getline l < times) > 0)
		if (l !~ /^#/ && split(l, f, " ") == 2)
			s[f[1]] = f[2]
}
NF { t[n] = o[n] = $1; n++; c[$1] = ($1 in s) ? s[$1] : 10 }
END {
	for (i = 0; i < n; i++)		# o: longest first, ties by name
		for (j = i + 1; j < n; j++)
			if (c[o[j]] > c[o[i]] || (c[o[j]] == c[o[i]] && o[j] < o[i])) {
				x = o[i]; o[i] = o[j]; o[j] = x
			}
	sum[1] = sum[2] = 0
	for (i = 0; i < n; i++) {
		g = sum[1] <= sum[2] ? 1 : 2
		sum[g] += c[o[i]]
		if (g == me)
			pick[o[i]] = 1
	}
	for (i = 0; i < n; i++)
		if (t[i] in pick)
			print t[i]
	print "xrnic_device_death"
}'
