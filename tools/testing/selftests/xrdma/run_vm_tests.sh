#!/bin/sh
# Runs inside each test VM (scripts/xrdma-vm run): loads the driver with
# modprobe and runs every xrdma kselftest.  The device-death test goes last
# because it kills this VM's device model.
dir=/selftests	# where scripts/check.sh puts the test binaries
rc=0
modprobe xrnic || { echo "modprobe xrnic failed"; dmesg | tail -20; exit 1; }
for t in xrnic_sysfs xrnic_load uverbs_abi uverbs_objects uverbs_fuzz rdma_tool xrnic_device_death; do
	"$dir/$t" || rc=1
done
exit $rc
