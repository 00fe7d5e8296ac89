#!/bin/bash
# Extract the few files xrdma needs from Debian's linux-source-6.1 tarball
# (kselftest harness, checkpatch.pl and its data, kernel-doc) into a cache
# keyed by the package version and the file list, and print the cache
# directory.  Nothing is copied into the tree.
set -euo pipefail
pkg=linux-source-6.1
tarball=/usr/src/linux-source-6.1.tar.xz
ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || {
	echo "linux-source.sh: package $pkg is not installed; run scripts/install-deps.sh" >&2
	exit 1
}
# The file list is part of the key: a new member means a new extract.
cache=${XRDMA_CACHE:-/var/cache/xrdma}/linux-source-$ver-2
if [ ! -f "$cache/.complete" ]; then
	rm -rf "$cache"
	mkdir -p "$cache"
	members=(
		tools/testing/selftests/kselftest_harness.h
		tools/testing/selftests/kselftest.h
		scripts/checkpatch.pl
		scripts/spelling.txt
		scripts/const_structs.checkpatch
		scripts/kernel-doc
	)
	tar -xJf "$tarball" -C "$cache" --strip-components=1 \
		"${members[@]/#/linux-source-6.1/}"
	touch "$cache/.complete"
fi
echo "$cache"
