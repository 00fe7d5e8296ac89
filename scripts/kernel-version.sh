#!/bin/bash
# Print the version of the newest installed Debian kernel image that also has
# its headers installed (never the running kernel: the host may run another).
set -euo pipefail
best=
for img in /boot/vmlinuz-*-amd64; do
	[ -e "$img" ] || continue
	ver=${img#/boot/vmlinuz-}
	[ -d "/usr/src/linux-headers-$ver" ] || continue
	if [ -z "$best" ] || dpkg --compare-versions "$ver" gt "$best"; then
		best=$ver
	fi
done
if [ -z "$best" ]; then
	echo "kernel-version: no /boot/vmlinuz-*-amd64 with matching /usr/src/linux-headers-*;" \
	     "run scripts/install-deps.sh" >&2
	exit 1
fi
echo "$best"
