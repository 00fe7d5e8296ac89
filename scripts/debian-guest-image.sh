#!/bin/bash
# Build, once, the disk of a plain Debian 12 guest for make check-packages:
# mmdebstrap from this host's own apt sources, the distribution's kernel,
# its headers, DKMS (which pulls the compiler) and libibverbs with
# ibverbs-utils: what a user's VM has before installing xrdma's packages.
# Cached under /var/cache/xrdma, keyed by the package list, the guest's
# init and the host's apt sources, and rebuilt only when one of them changes.
#
# Prints the cache directory, which holds:
#   root.img    the root file system (ext4, raw; use it through an overlay)
#   vmlinuz     the guest's kernel and
#   initrd.img  its initramfs (Debian's initramfs-tools), to boot it with
#               QEMU's -kernel/-initrd (root=/dev/vda)
#   release     the kernel's "uname -r"
# The guest's PID 1 is /usr/local/sbin/xrdma-guest-init (init= on the
# kernel's command line): it mounts the second disk, /dev/vdb, runs its
# run.sh and powers the guest off.  Progress goes to stderr.
set -euo pipefail
PACKAGES=linux-image-amd64,linux-headers-amd64,dkms,libibverbs1,ibverbs-providers,ibverbs-utils,iproute2,iputils-ping,kmod,procps

# PID 1 of the guest.
INIT=$(cat <<'EOF_INIT'
#!/bin/sh
# PID 1 of make check-packages' Debian guest: the file systems a system has,
# then the second disk's run.sh, then power off.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
ip link set lo up
hostname xrdma-debian
if mount -o ro /dev/vdb /mnt; then
	sh /mnt/run.sh
	umount /mnt
else
	echo "xrdma-guest-init: cannot mount /dev/vdb"
fi
sync
echo o >/proc/sysrq-trigger
sleep 60
EOF_INIT
)

msg() { printf 'debian-guest-image: %s\n' "$*" >&2; }

sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[[ -s $f ]] && sources+=("$f")
done
((${#sources[@]})) || { msg "no apt sources on this host (/etc/apt/sources.list*)"; exit 1; }
key=$(printf '%s\n' "$PACKAGES" "$INIT" | cat - "${sources[@]}" | sha256sum | cut -c1-12)
cache=${XRDMA_CACHE:-/var/cache/xrdma}
dir=$cache/debian-guest-$key
mkdir -p "$cache"

build() {
	local tmp=$1 t0=$SECONDS root=$1/root
	msg "building a Debian 12 guest disk into $dir (first time only; a few minutes)"
	mkdir -p "$tmp"
	mmdebstrap --variant=minbase --include="$PACKAGES" bookworm "$root" "${sources[@]}" \
		>"$tmp/build.log" 2>&1 || {
		msg "mmdebstrap failed; the end of $tmp/build.log:"
		tail -n 30 "$tmp/build.log" >&2
		return 1
	}
	printf '%s\n' "$INIT" >"$root/usr/local/sbin/xrdma-guest-init"
	chmod 0755 "$root/usr/local/sbin/xrdma-guest-init"
	cp "$root"/boot/vmlinuz-* "$tmp/vmlinuz"
	cp "$root"/boot/initrd.img-* "$tmp/initrd.img"
	basename "$root"/boot/vmlinuz-* | sed 's/^vmlinuz-//' >"$tmp/release"
	mkfs.ext4 -q -F -L xrdma-debian -d "$root" "$tmp/root.img" 4G >&2
	rm -rf "$root"
	msg "built ($(cat "$tmp/release")) in $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s"
}

# One build at a time; a second caller waits for the first and reuses it.
exec 9>"$cache/.debian-guest.lock"
flock 9
if [[ ! -f $dir/.complete ]]; then
	rm -rf "$dir" "$dir.tmp"
	build "$dir.tmp"
	mv "$dir.tmp" "$dir"
	touch "$dir/.complete"
	# Older keys are stale: remove them.
	find "$cache" -maxdepth 1 -name 'debian-guest-*' ! -name "${dir##*/}" \
		-exec rm -rf {} + || true
fi
echo "$dir"
