#!/bin/bash
# make deb: the Debian packages xrdma-dkms, libxrnic and xrnic-emu, built by
# dpkg-buildpackage (debhelper, dh-dkms) from a clean copy of the tracked
# files, into build/deb/.  The version is VERSION's (the one place); the
# copy's debian/changelog is written from it.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(<VERSION)
out=$PWD/build/deb
src=$out/xrdma-$version
rm -rf "$out"
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard | tar -c --null -T - | tar -x -C "$src"
cat >"$src/debian/changelog" <<CHANGELOG
xrdma ($version) unstable; urgency=medium

  * Built from xrdma $(git describe --always --dirty 2>/dev/null || echo "$version").

 -- The xrdma authors <xrdma@example.org>  $(date -R)
CHANGELOG
cd "$src"
dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
ls "$out"/*.deb
