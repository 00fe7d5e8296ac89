# SPDX-License-Identifier: GPL-2.0
# xrdma top-level build.  The two commands a user needs:
#   make demo    two VMs with an XRNIC each: the driver, the GIDs, RDMA between them
#   make check   every test of every layer, ending "N passed, N failed, ..."
#                (make check LOAD=1: the same with a CPU hog on every core beside it)
#   make bench   perftest on XRNICs against rxe and TCP, CPU per GB, the device model against memcpy
# Each installs missing Debian packages first (scripts/install-deps.sh).

KVER = $(shell scripts/kernel-version.sh)
KDIR = /usr/src/linux-headers-$(KVER)
VM_MODULES = --module drivers/infiniband/core/xrdma_core.ko \
	     --module drivers/infiniband/hw/xrnic/xrnic.ko

all: deps modules emu provider selftests

deps:
	@scripts/install-deps.sh

modules: deps
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

emu: deps
	$(MAKE) -C tools/xrnic-emu

provider: deps
	$(MAKE) -C tools/lib/xrnic

selftests: deps
	$(MAKE) -C tools/testing/selftests/xrdma

check:
	@LOAD=$(LOAD) scripts/check.sh

# Loopback on one device, incast and a CE-marked flow, then two guests:
# XRNIC against rxe and TCP (Documentation/performance.rst).
bench:
	@scripts/bench-loopback.sh
	@scripts/bench-incast.sh
	@scripts/bench-pair.sh

lint: deps
	@scripts/lint.sh

demo: all
	scripts/xrdma-vm run --vms 2 $(VM_MODULES) scripts/demo-guest.sh

install: modules emu
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(KVER)
	install -D -m 0644 scripts/xrdma-modprobe.conf /etc/modprobe.d/xrdma.conf
	install -D -m 0755 tools/xrnic-emu/build/xrnic-emu /usr/local/bin/xrnic-emu
	install -D -m 0644 tools/lib/xrnic/build/libxrnic-rdmav34.so \
		/usr/lib/x86_64-linux-gnu/libibverbs/libxrnic-rdmav34.so
	install -D -m 0644 tools/lib/xrnic/build/xrnic.driver /etc/libibverbs.d/xrnic.driver

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/xrnic-emu clean
	$(MAKE) -C tools/lib/xrnic clean
	$(MAKE) -C tools/testing/selftests/xrdma clean
	$(MAKE) -C tools/testing/cm clean
	rm -rf build

.PHONY: bench provider all deps modules emu selftests check lint demo install clean
