#!/bin/bash
# make lint: the kernel code passes checkpatch --strict and sparse, every
# non-static function has a correct kernel-doc comment, the modules
# build with W=1 without a warning, Documentation/ builds with Sphinx
# without a warning (make htmldocs), the core's, the driver's and the
# device model's files call each other in no circle (scripts/call-graph.pl),
# and the driver's PCI function module depends on no RDMA core.  Prints one
# KTAP line per check.
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

echo "1..7"
# checkpatch and kernel-doc (one CPU each) run beside the build below.
# checkpatch exits 0 only when it ran and found nothing: a checkpatch that
# could not run (no script, a Perl error) fails too.
{
	perl "$lsrc/scripts/checkpatch.pl" --strict --no-tree --terse -q \
		-f $kernel_src $core_hdr || echo "checkpatch.pl exited with status $?"
	perl "$lsrc/scripts/checkpatch.pl" --strict --no-tree --terse -q \
		--ignore BIT_MACRO -f $shared_hdr || echo "checkpatch.pl exited with status $?"
} >"$log/checkpatch" 2>&1 &
checkpatch=$!
scripts/kdoc-check.sh >"$log/kdoc" 2>&1 &
kdoc=$!

# One rebuild of everything, so that every file is compiled and checked
# this time: sparse (C=2) and gcc with W=1 in the same build.  gcc names
# the option of each of its warnings ("[-Wname]"); sparse never does.
# Without sparse, kbuild's C=2 would check nothing and say so only once.
make -s -C "$kdir" M="$PWD" clean >/dev/null 2>&1
make -j"$(nproc)" -C "$kdir" M="$PWD" C=2 CHECK=sparse W=1 modules >"$log/build" 2>&1
rc=$?
command -v sparse >/dev/null || echo "sparse: error: not installed" >>"$log/build"

wait $checkpatch
! grep -qE ': (ERROR|WARNING|CHECK):|^checkpatch.pl exited' "$log/checkpatch"
report checkpatch_strict $? "$log/checkpatch"
wait $kdoc
report kernel_doc $? "$log/kdoc"
grep -E '(warning|error):' "$log/build" | grep -vF '[-W' >"$log/sparse.found"
[ $rc -eq 0 ] && [ ! -s "$log/sparse.found" ]
report sparse $? "$log/build"
grep -E '(warning|error):.*\[-W' "$log/build" >"$log/w1.found"
[ $rc -eq 0 ] && [ ! -s "$log/w1.found" ]
report modules_build_w1 $? "$log/build"
sphinx-build -q -W --keep-going -b html Documentation "$log/html" >"$log/sphinx" 2>&1
report htmldocs_build_without_a_warning $? "$log/sphinx"
# objects DIR: the objects of DIR's C files (not stale ones of files gone).
objects() { for c in "$1"/*.c; do [ ! -e "${c%.c}.o" ] || echo "${c%.c}.o"; done; }
{
	make -s -C tools/xrnic-emu >/dev/null &&
	scripts/call-graph.pl core \
		$(objects drivers/infiniband/core | grep -v '\.mod\.o$') &&
	scripts/call-graph.pl xrnic \
		$(objects drivers/infiniband/hw/xrnic | grep -v '\.mod\.o$') &&
	scripts/call-graph.pl emu \
		$(cd tools/xrnic-emu && for c in *.c; do echo "tools/xrnic-emu/build/${c%.c}.o"; done)
} >"$log/callgraph" 2>&1
st=$?
grep 'circle' "$log/callgraph"
report no_circle_of_calls_between_files $st "$log/callgraph"
# The driver's PCI function (xrnic.ko) depends on no RDMA core: it tells
# the RDMA function's driver (xrnic_xrdma.ko, an auxiliary driver) of
# events through struct xrnic_rdma_events, so that the RDMA function can be
# another core's.
ko=drivers/infiniband/hw/xrnic/xrnic.ko
{ [ -s $ko ] && deps=$(modinfo -F depends $ko) && echo "xrnic.ko depends on: '$deps'" &&
  [ -z "$deps" ]; } >"$log/pci-function" 2>&1
report pci_function_module_depends_on_no_rdma_core $? "$log/pci-function"

exit $failed
