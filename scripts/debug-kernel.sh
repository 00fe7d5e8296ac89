#!/bin/bash
# Build, once, the guest debug kernel: Debian's linux-source-6.1 (the same
# version as the installed linux-image) with x86_64_defconfig plus
# scripts/debug-kernel.config (KASAN, lockdep, kmemleak, ...).  It is cached
# under /var/cache/xrdma, keyed by the source package version, the config
# fragment and this script, and rebuilt only when one of them changes.
#
# Prints the cache directory, which holds:
#   bzImage         the kernel
#   release         its "uname -r"
#   modroot/        its modules, as modroot/lib/modules/RELEASE/...
#   build/          the configured tree, to build external modules against
# Progress goes to stderr; the build log to build.log in the directory.
set -euo pipefail
SELF=$(readlink -f "${BASH_SOURCE[0]}")
SCRIPTS_DIR=${SELF%/*}
FRAGMENT=$SCRIPTS_DIR/debug-kernel.config
pkg=linux-source-6.1
tarball=/usr/src/linux-source-6.1.tar.xz

msg() { printf 'debug-kernel: %s\n' "$*" >&2; }

ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || {
	msg "package $pkg is not installed; run scripts/install-deps.sh"
	exit 1
}
key=$(cat "$FRAGMENT" "$SELF" | sha256sum | cut -c1-12)
cache=${XRDMA_CACHE:-/var/cache/xrdma}
dir=$cache/debug-kernel-$ver-$key
mkdir -p "$cache"

# Every option of the fragment that the kernel's Kconfig silently dropped
# (a missing dependency) is an error: the instruments must really be there.
check_config() {
	local line opt want got bad=0
	while IFS= read -r line; do
		[[ $line == CONFIG_* ]] || continue
		opt=${line%%=*}
		want=${line#*=}
		got=$(grep -E "^$opt=|^# $opt is not set" "$1/.config" || true)
		if [[ $want == n ]]; then
			[[ -z $got || $got == "# $opt is not set" ]] && continue
		else
			[[ $got == "$opt=$want" ]] && continue
		fi
		msg "config: wanted $opt=$want, got '${got:-nothing}'"
		bad=1
	done <"$FRAGMENT"
	return "$bad"
}

build() {
	local tmp=$1 t0=$SECONDS
	msg "building the debug kernel from $pkg $ver into $dir (first time only; about 15 minutes on 2 cores)"
	mkdir -p "$tmp/build"
	tar -xJf "$tarball" -C "$tmp/build" --strip-components=1
	(
		cd "$tmp/build"
		make -s x86_64_defconfig
		scripts/kconfig/merge_config.sh -m .config "$FRAGMENT" >/dev/null
		make -s olddefconfig
		check_config .
		make -j"$(nproc)" bzImage modules
		make -s modules_install INSTALL_MOD_PATH="$tmp/modroot" INSTALL_MOD_STRIP=1
		make -s kernelrelease >"$tmp/release"
		cp arch/x86/boot/bzImage "$tmp/bzImage"
	) >"$tmp/build.log" 2>&1 || {
		msg "build failed; the end of $tmp/build.log:"
		tail -n 40 "$tmp/build.log" >&2
		return 1
	}
	# Only the build tree's files that external module builds read are
	# kept (objects and sources of the kernel itself are not needed).
	find "$tmp/build" -name '*.o' -delete
	msg "built $(cat "$tmp/release") in $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s"
}

# One build at a time; a second caller waits for the first and reuses it.
exec 9>"$cache/.debug-kernel.lock"
flock 9
if [[ ! -f $dir/.complete ]]; then
	rm -rf "$dir" "$dir.tmp"
	build "$dir.tmp"
	mv "$dir.tmp" "$dir"
	touch "$dir/.complete"
	# Older keys are stale: remove them.
	find "$cache" -maxdepth 1 -name 'debug-kernel-*' ! -name "${dir##*/}" \
		-exec rm -rf {} + || true
fi
echo "$dir"
