#!/bin/bash
# Every non-static function of the kernel code has a kernel-doc comment
# ("/**" and " * name - ..."), and kernel-doc itself finds no fault in them.
# Prints the offenders; exit status 1 if there are any.
set -uo pipefail
cd "$(dirname "$0")/.."
lsrc=$(scripts/linux-source.sh) || exit 1
bad=0
for f in $(find drivers -name '*.c' ! -name '*.mod.c' | sort); do
	# Function definitions start at column 0 with a type, not "static".
	for fn in $(grep -E '^[a-z][a-z0-9_ ]*[ *]([a-z0-9_]+)\(' "$f" |
		    grep -vE '^(static|struct .*=|enum )' | grep -v ';$' |
		    sed -E 's/^[^(]*[ *]([a-z0-9_]+)\(.*/\1/'); do
		if ! grep -qE "^ \\* $fn - " "$f"; then
			echo "$f: $fn() has no kernel-doc comment"
			bad=1
		fi
	done
	perl "$lsrc/scripts/kernel-doc" -none "$f" 2>&1 | sed "s|^|$f: |" |
		grep . && bad=1
done
exit $bad
