#!/bin/sh
# Runs inside the demo VM: load the XRNIC driver with modprobe and show the
# device coming up: kernel log, sysfs identity and port state.
set -e
echo "== modprobe xrnic"
modprobe xrnic
echo "== kernel log"
dmesg | grep -E 'xrnic|xrdma_core|infiniband' | sed 's/^\[[ 0-9.]*\] //'
echo "== lsmod"
lsmod | grep -E '^(xrnic|xrdma_core) '
echo "== /sys/class/infiniband"
ls /sys/class/infiniband
d=/sys/class/infiniband/xrnic0
for a in node_type node_guid sys_image_guid fw_ver node_desc; do
	printf '%-16s %s\n' "$a" "$(cat $d/$a)"
done
for a in state phys_state rate link_layer lid cap_mask; do
	printf 'ports/1/%-12s %s\n' "$a" "$(cat $d/ports/1/$a)"
done
echo "== rdma dev / rdma link / rdma res / rdma statistic"
rdma dev
rdma link
rdma res
rdma statistic show
echo "== /dev/infiniband"
ls -l /dev/infiniband
echo "== device model identity (from the VM runner)"
echo "guid $XRDMA_GUID  mac $XRDMA_MAC  firmware $XRDMA_FW"
echo "== modprobe -r xrnic xrdma_core"
modprobe -r xrnic xrdma_core
dmesg | tail -2 | sed 's/^\[[ 0-9.]*\] //'
ls /sys/class/infiniband 2>/dev/null || echo "/sys/class/infiniband is gone"
