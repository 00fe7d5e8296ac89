#!/bin/bash
# Install the Debian 12 packages xrdma needs to build and test, and any
# named as arguments (make bench's plotter), if any are missing.
# Idempotent: does nothing (and needs no network) when all are there.
set -euo pipefail

pkgs=(
	build-essential
	clang
	libclang-rt-14-dev
	linux-image-amd64
	linux-headers-amd64
	linux-source-6.1
	sparse
	qemu-system-x86
	busybox-static
	kmod
	cpio
	iproute2
	libibverbs-dev
	librdmacm-dev
	rdmacm-utils
	ibverbs-providers
	ibverbs-utils
	infiniband-diags
	perftest
	ucx-utils
	libfabric-bin
	qperf
	iperf3
	libisal-dev
	ethtool
	tshark
	file
	perl
	python3-sphinx
	stress-ng
	elfutils
	help2man
	"$@"
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install packages (try: sudo $0)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
