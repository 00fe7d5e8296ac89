#!/bin/bash
# make lint: the kernel code passes checkpatch --strict and sparse, every
# non-static function has a correct kernel-doc comment, and the modules
# build with W=1 without a warning.  Prints one KTAP line per check.
set -uo pipefail
cd "$(dirname "$0")/.."
kver=$(scripts/kernel-version.sh) || exit 1
kdir=/usr/src/linux-headers-$kver
lsrc=$(scripts/linux-source.sh) || exit 1
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
n=0
failed=0

report() { # name ok(0/1) logfile
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n lint.$1"
	else
		failed=1
		sed 's/^/# /' "$3"
		echo "not ok $n lint.$1"
	fi
}

kernel_src=$(find drivers -name '*.[ch]' ! -name '*.mod.c' | sort)
# The hardware headers are also compiled in user space (the device model),
# where the kernel's BIT() does not exist.
shared_hdr=$(find include/xrnic -name '*.h' | sort)
core_hdr=$(find include/xrdma -name '*.h' | sort)

echo "1..4"
# checkpatch and kernel-doc (one CPU each) run beside the build below.
{
	perl "$lsrc/scripts/checkpatch.pl" --strict --no-tree --terse -q \
		-f $kernel_src $core_hdr
	perl "$lsrc/scripts/checkpatch.pl" --strict --no-tree --terse -q \
		--ignore BIT_MACRO -f $shared_hdr
} >"$log/checkpatch" 2>&1 &
checkpatch=$!
scripts/kdoc-check.sh >"$log/kdoc" 2>&1 &
kdoc=$!

# One rebuild of everything, so that every file is compiled and checked
# this time: sparse (C=2) and gcc with W=1 in the same build.  gcc names
# the option of each of its warnings ("[-Wname]"); sparse never does.
make -s -C "$kdir" M="$PWD" clean >/dev/null 2>&1
make -j"$(nproc)" -C "$kdir" M="$PWD" C=2 CHECK=sparse W=1 modules >"$log/build" 2>&1
rc=$?

wait $checkpatch
! grep -qE ': (ERROR|WARNING|CHECK):' "$log/checkpatch"
report checkpatch_strict $? "$log/checkpatch"
wait $kdoc
report kernel_doc $? "$log/kdoc"
grep -E '(warning|error):' "$log/build" | grep -vF '[-W' >"$log/sparse.found"
[ $rc -eq 0 ] && [ ! -s "$log/sparse.found" ]
report sparse $? "$log/build"
grep -E '(warning|error):.*\[-W' "$log/build" >"$log/w1.found"
[ $rc -eq 0 ] && [ ! -s "$log/w1.found" ]
report modules_build_w1 $? "$log/build"

exit $failed
