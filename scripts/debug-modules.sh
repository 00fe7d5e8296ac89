#!/bin/bash
# Build xrdma's kernel modules for the guest debug kernel
# (scripts/debug-kernel.sh builds that kernel once and caches it), with W=1
# like the modules for Debian's kernel.  Kbuild builds external modules in
# their source tree, so the sources are copied to build/debug-kernel/src
# first; the modules land there, under the same paths as in the tree.
# Prints that directory.
set -euo pipefail
cd "$(dirname "$0")/.."
kdir=$(scripts/debug-kernel.sh)
src=$PWD/build/debug-kernel/src
rm -rf "$src"
mkdir -p "$src"
tar -c --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers \
	Kbuild VERSION drivers include | tar -x -C "$src"
make -s -C "$kdir/build" M="$src" W=1 modules >&2
echo "$src"
