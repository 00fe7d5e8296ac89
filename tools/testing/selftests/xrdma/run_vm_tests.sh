#!/bin/sh
# Runs inside each test VM (scripts/xrdma-vm run): loads the driver with
# modprobe and runs every xrdma kselftest, in the order of tests.list (from
# the Makefile).
dir=/selftests	# where scripts/check.sh puts the test binaries
rc=0
[ -s "$dir/tests.list" ] || { echo "$dir/tests.list is missing"; exit 1; }
modprobe xrnic || { echo "modprobe xrnic failed"; dmesg | tail -20; exit 1; }
for t in $(cat "$dir/tests.list"); do
	"$dir/$t" || rc=1
done
exit $rc
