#!/bin/bash
# The first measurement (the start of "make bench"): perftest in loopback on
# xrnic0 in one guest and, in the same run and the same kind of guest, on
# Linux's rdma_rxe (over a dummy netdev).  Prints a table with the ratios and
# writes build/bench/loopback.json.  Not a test: nothing here passes or fails on a
# figure.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s all >/dev/null
out=build/bench
mkdir -p "$out"
kver=$(scripts/kernel-version.sh)
mods=/lib/modules/$kver/kernel

# The guests' scripts: load the device, then the same measurements.
# Both netdevs at MTU 9000: the active MTU of both RDMA ports is 4096.
cat >"$out/xrnic-guest.sh" <<'GUEST'
modprobe xrnic && ip link set eth0 mtu 9000 up &&
DEV=xrnic0 GIDX=0 ITERS_BW="2000 200000" bash /bench-guest.sh
GUEST
cat >"$out/rxe-guest.sh" <<'GUEST'
modprobe crc32_generic; modprobe dummy; modprobe ib_uverbs
modprobe rdma_rxe && ip link set dummy0 mtu 9000 up &&
ip addr add 192.0.2.1/24 dev dummy0 &&
rdma link add rxe0 type rxe netdev dummy0 &&
DEV=rxe0 GIDX=1 ITERS_BW="100 600" bash /bench-guest.sh
GUEST

echo "bench: xrnic0 loopback (one guest)" >&2
scripts/xrdma-vm run --timeout 900 \
	--module drivers/infiniband/core/xrdma_core.ko \
	--module drivers/infiniband/hw/xrnic/xrnic.ko \
	--module drivers/infiniband/hw/xrnic/xrnic_xrdma.ko \
	--add scripts/bench-guest.sh:/bench-guest.sh \
	"$out/xrnic-guest.sh" \
	>"$out/xrnic.log" 2>&1 || { cat "$out/xrnic.log"; exit 1; }

echo "bench: rxe0 loopback (one guest, the same kind)" >&2
scripts/xrdma-vm run --timeout 900 --no-device \
	--module "$mods/drivers/net/dummy.ko" \
	--module "$mods/drivers/infiniband/sw/rxe/rdma_rxe.ko" \
	--module "$mods/drivers/infiniband/core/ib_uverbs.ko" \
	--module "$mods/crypto/crc32_generic.ko" \
	--add /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so \
	--add /etc/libibverbs.d/rxe.driver \
	--add scripts/bench-guest.sh:/bench-guest.sh \
	"$out/rxe-guest.sh" \
	>"$out/rxe.log" 2>&1 || { cat "$out/rxe.log"; exit 1; }

value() { # log metric
	awk -v m="$2" '$2 == "RESULT" && $3 == m { print $6 } $1 == "RESULT" && $2 == m { print $5 }' "$1" | head -1
}
{
	printf '{"setup": {"date": "%s", "host": "%s cores, QEMU TCG, -smp 1 guests", ' \
		"$(date -u +%F)" "$(nproc)"
	printf '"loopback": "server and client in one guest", "netdev_mtu": 9000, "path_mtu": 4096, '
	printf '"perftest_iterations": 500}, "results": ['
	sep=
	for m in "ib_write_bw 65536 MB/s" "ib_write_bw_wall 65536 MB/s" \
		 "ib_read_bw 65536 MB/s" "ib_read_bw_wall 65536 MB/s" "ib_write_lat 8 us" \
		 "ib_read_lat 8 us" "ib_send_lat 8 us"; do
		set -- $m
		printf '%s{"metric": "%s", "bytes": %s, "unit": "%s", "xrdma": %s, "rxe": %s, "tcp": null}' \
			"$sep" "$1" "$2" "$3" "$(value "$out/xrnic.log" "$1")" "$(value "$out/rxe.log" "$1")"
		sep=', '
	done
	printf '%s{"metric": "ib_write_bw_doorbells_per_wqe", "bytes": 65536, "unit": "doorbells/WQE", "xrdma": %s, "rxe": null, "tcp": null}' \
		"$sep" "$(value "$out/xrnic.log" ib_write_bw_doorbells_per_wqe)"
	printf ']}\n'
} >"$out/loopback.json"

printf '%-17s %8s %6s %12s %12s %10s\n' metric bytes unit xrnic rxe ratio
for m in "ib_write_bw 65536 MB/s" "ib_write_bw_wall 65536 MB/s" \
	 "ib_read_bw 65536 MB/s" "ib_read_bw_wall 65536 MB/s" "ib_write_lat 8 us" \
	 "ib_read_lat 8 us" "ib_send_lat 8 us"; do
	set -- $m
	x=$(value "$out/xrnic.log" "$1")
	r=$(value "$out/rxe.log" "$1")
	printf '%-17s %8s %6s %12s %12s %9.2fx\n' "$1" "$2" "$3" "$x" "$r" \
		"$(awk -v x="$x" -v r="$r" 'BEGIN { print x / r }')"
done
echo "doorbells per WQE, ib_write_bw on xrnic0: $(value "$out/xrnic.log" ib_write_bw_doorbells_per_wqe)" \
	"(1: every post rang; less: the device was polling)"
echo "(bandwidth: xrnic / rxe, higher is better; latency: lower is better; *_wall: from the"
echo " guest's wall clock, the others as perftest reports them from its cycle counter)"
echo "written: $out/loopback.json"
