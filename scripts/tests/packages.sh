#!/bin/bash
# The packages layer: make deb builds xrdma-dkms, libxrnic and xrnic-emu
# with Debian's tooling; lintian finds no error in them; each holds its
# files where Debian looks for them; DKMS builds the modules of
# xrdma-dkms for Debian's kernel (in a DKMS tree of the test's own); the
# packaged device model runs, and its unit passes systemd-analyze verify
# and its ExecStart listens; make install into a staging directory puts
# every file and make uninstall removes every one.  KTAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh debhelper dh-dkms dkms lintian systemd >&2 || exit 1
version=$(<VERSION)
kver=$(scripts/kernel-version.sh)
deb=build/deb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 rc=0
say() { # RESULT NAME [LOG]
	n=$((n + 1))
	echo "$1 $n packages.$2"
	if [ "$1" != ok ]; then
		rc=1
		[ -z "${3:-}" ] || sed 's/^/# /' "$3" | tail -30
	fi
}

echo "TAP version 13"
echo "1..7"
if scripts/build-deb.sh >"$tmp/build.log" 2>&1; then say ok make_deb_builds_the_three
else say "not ok" make_deb_builds_the_three "$tmp/build.log"; fi

if lintian --fail-on error "$deb"/*.changes >"$tmp/lintian.log" 2>&1; then
	sed 's/^/# /' "$tmp/lintian.log"
	say ok lintian_finds_no_error
else
	say "not ok" lintian_finds_no_error "$tmp/lintian.log"
fi

# has PACKAGE FILE...: the package holds each file.
has() {
	local p=$1 f
	shift
	dpkg-deb -c "$deb/${p}_${version}_"*.deb | awk '{ print substr($6, 2) }' >"$tmp/$p.list"
	for f in "$@"; do
		grep -qx "$f" "$tmp/$p.list" || { echo "# $p lacks $f"; return 1; }
	done
}
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
if has xrdma-dkms /usr/src/xrdma-$version/dkms.conf /usr/src/xrdma-$version/Kbuild \
	/usr/src/xrdma-$version/drivers/infiniband/hw/xrnic/xrnic_main.c \
	/usr/src/xrdma-$version/include/xrnic/xrnic_admin.h /etc/modprobe.d/xrdma.conf &&
   has libxrnic /usr/lib/$multiarch/libibverbs/libxrnic-rdmav34.so /etc/libibverbs.d/xrnic.driver &&
   has xrnic-emu /usr/bin/xrnic-emu /usr/share/man/man1/xrnic-emu.1.gz \
	/lib/systemd/system/xrnic-emu@.service; then
	say ok each_package_holds_its_files
else
	say "not ok" each_package_holds_its_files
fi

# DKMS builds the packaged source for Debian's kernel, as on a user's machine.
dpkg-deb -x "$deb/xrdma-dkms_${version}_all.deb" "$tmp/dkms-root"
mkdir -p "$tmp/dkms"
ok=1
# Its signing key too (dkms makes one where it is told, else in /var/lib/dkms).
mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub \
	dkms build -m xrdma -v "$version" -k "$kver" --sourcetree "$tmp/dkms-root/usr/src" \
	--dkmstree "$tmp/dkms" >"$tmp/dkms.log" 2>&1 || ok=0
for m in xrdma_core xrnic xrnic_xrdma xrnic_ib; do
	ko=$(find "$tmp/dkms/xrdma/$version/$kver" -name "$m.ko*" 2>/dev/null | head -1)
	if [ -z "$ko" ] || [ "$(modinfo -F version "$ko")" != "$version" ] ||
	   [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$kver" ]; then
		echo "# $m: not built for $kver at version $version" >>"$tmp/dkms.log"
		ok=0
	fi
done
if ((ok)); then say ok dkms_builds_the_modules_for_debians_kernel
else say "not ok" dkms_builds_the_modules_for_debians_kernel "$tmp/dkms.log"; fi

dpkg-deb -x "$deb/xrnic-emu_${version}_amd64.deb" "$tmp/emu-root"
out=$("$tmp/emu-root/usr/bin/xrnic-emu" --version 2>&1)
if [ "$out" = "xrnic-emu $version" ]; then
	say ok the_packaged_device_model_runs
else
	echo "# --version: $out"
	say "not ok" the_packaged_device_model_runs
fi

# The packaged unit as systemd reads it: systemd-analyze verify of an
# instance in a root holding the package's files and this host's targets
# (any complaint fails).  Then its ExecStart as systemd runs it for
# instance t (%i, and ${GUEST_RAM} and $OPTIONS as t.conf sets them), its
# paths under the test's directory: the device model listens on the
# instance's socket.
unit_starts() {
	local root=$tmp/emu-root cmd pid i
	local unit=$root/lib/systemd/system/xrnic-emu@.service
	cp -L /lib/systemd/system/*.target "$root/lib/systemd/system/" || return 1
	systemd-analyze verify --man=no --root="$root" xrnic-emu@t.service >"$tmp/verify.log" 2>&1
	i=$?
	cat "$tmp/verify.log"
	[ $i = 0 ] && [ ! -s "$tmp/verify.log" ] || return 1
	cmd=$(sed -n 's/^ExecStart=//p' "$unit")
	cmd=${cmd//%i/t}
	cmd=${cmd//'${GUEST_RAM}'/$tmp/t.ram}
	cmd=${cmd//'$OPTIONS'/--log $tmp/t.log}
	cmd=${cmd//\/run\/xrnic-emu/$tmp/run}
	mkdir -p "$tmp/run" && truncate -s 64M "$tmp/t.ram" || return 1
	echo "ExecStart, as run: $root$cmd"
	$root$cmd &
	pid=$!
	local listening=0
	for i in $(seq 100); do
		[ -S "$tmp/run/t.sock" ] && listening=1 && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	kill $pid 2>/dev/null
	wait $pid
	cat "$tmp/t.log" 2>/dev/null
	((listening)) || { echo "no socket $tmp/run/t.sock"; return 1; }
}
if unit_starts >"$tmp/unit.log" 2>&1; then
	say ok the_packaged_unit_verifies_and_its_command_listens
else
	say "not ok" the_packaged_unit_verifies_and_its_command_listens "$tmp/unit.log"
fi

# make install into a staging directory, then make uninstall: nothing left.
stage=$tmp/stage
if make -s install DESTDIR="$stage" PREFIX=/usr >"$tmp/install.log" 2>&1 &&
   [ -f "$stage/lib/modules/$kver/updates/xrdma/xrnic.ko" ] &&
   [ -f "$stage/lib/modules/$kver/updates/xrdma/xrnic_xrdma.ko" ] &&
   [ -f "$stage/lib/modules/$kver/updates/xrdma/xrnic_ib.ko" ] &&
   [ -f "$stage/usr/lib/$multiarch/libibverbs/libxrnic-rdmav34.so" ] &&
   [ -f "$stage/usr/bin/xrnic-emu" ] && [ -f "$stage/etc/modprobe.d/xrdma.conf" ] &&
   make -s uninstall DESTDIR="$stage" PREFIX=/usr >>"$tmp/install.log" 2>&1 &&
   [ -z "$(find "$stage" -type f)" ]; then
	say ok make_uninstall_removes_what_make_install_put
else
	find "$stage" -type f | sed 's/^/left: /' >>"$tmp/install.log"
	say "not ok" make_uninstall_removes_what_make_install_put "$tmp/install.log"
fi
exit $rc
