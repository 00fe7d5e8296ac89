# SPDX-License-Identifier: GPL-2.0
# xrdma top-level build.  The two commands a user needs:
#   make demo    two VMs with an XRNIC each: the driver, the GIDs, RDMA between them
#   make check   every test of every layer, ending "N passed, N failed, ..."
#                (make check LOAD=1: the same with a CPU hog on every core beside it;
#                make check-packages: the packages in a plain Debian guest, apart)
#   make bench   perftest on XRNICs against rxe and TCP, CPU per GB, the device model against memcpy
# Each installs missing Debian packages first (scripts/install-deps.sh).

KVER = $(shell scripts/kernel-version.sh)
KDIR = /usr/src/linux-headers-$(KVER)
VM_MODULES = --module drivers/infiniband/core/xrdma_core.ko \
	     --module drivers/infiniband/hw/xrnic/xrnic.ko \
	     --module drivers/infiniband/hw/xrnic/xrnic_xrdma.ko

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

# The packages installed in a plain Debian guest booted without the
# runner (Documentation/testing.rst); not part of make check.
check-packages:
	@LOAD=$(LOAD) scripts/check.sh own-vm

# Loopback on one device, incast and a CE-marked flow, two hosts joined by
# VXLAN, then two guests: XRNIC against rxe and TCP (Documentation/performance.rst).
bench:
	@scripts/bench-loopback.sh
	@scripts/bench-incast.sh
	@scripts/bench-vxlan.sh
	@scripts/bench-pair.sh

lint: deps
	@scripts/lint.sh

# Documentation/ as HTML with Sphinx, every warning an error (as Linux's
# make htmldocs with SPHINXOPTS=-W), into build/htmldocs.
htmldocs: deps
	sphinx-build -q -W --keep-going -b html Documentation build/htmldocs

demo: all
	scripts/xrdma-vm run --vms 2 $(VM_MODULES) scripts/demo-guest.sh

# Installing (Documentation/configuration.rst, "Installing"): the modules
# under /lib/modules/<Debian's kernel>/updates, the provider where Debian's
# libibverbs looks, the device model, its man page and its systemd unit.
# DESTDIR stages it (depmod is then the packager's); make uninstall removes
# what make install put.
VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
LIBDIR ?= /usr/lib/$(shell dpkg-architecture -qDEB_HOST_MULTIARCH)
MODDIR = $(DESTDIR)/lib/modules/$(KVER)/updates/xrdma
PROVIDER = $(DESTDIR)$(LIBDIR)/libibverbs/libxrnic-rdmav34.so
DRIVER_FILE = $(DESTDIR)/etc/libibverbs.d/xrnic.driver
MODPROBE_CONF = $(DESTDIR)/etc/modprobe.d/xrdma.conf
EMU_FILES = $(DESTDIR)$(BINDIR)/xrnic-emu $(DESTDIR)$(MANDIR)/man1/xrnic-emu.1 \
	    $(DESTDIR)$(UNITDIR)/xrnic-emu@.service

install: install-modules install-provider install-emu

install-modules: modules install-modprobe
	install -D -m 0644 drivers/infiniband/core/xrdma_core.ko $(MODDIR)/xrdma_core.ko
	install -D -m 0644 drivers/infiniband/hw/xrnic/xrnic.ko $(MODDIR)/xrnic.ko
	install -D -m 0644 drivers/infiniband/hw/xrnic/xrnic_xrdma.ko $(MODDIR)/xrnic_xrdma.ko
	install -D -m 0644 drivers/infiniband/hw/xrnic/xrnic_ib.ko $(MODDIR)/xrnic_ib.ko
	$(if $(DESTDIR),,depmod -a $(KVER))

install-provider: provider
	install -D -m 0644 tools/lib/xrnic/build/libxrnic-rdmav34.so $(PROVIDER)
	install -D -m 0644 tools/lib/xrnic/build/xrnic.driver $(DRIVER_FILE)

install-emu: emu
	$(MAKE) -C tools/xrnic-emu build/xrnic-emu.1
	install -D -m 0755 tools/xrnic-emu/build/xrnic-emu $(DESTDIR)$(BINDIR)/xrnic-emu
	install -D -m 0644 tools/xrnic-emu/build/xrnic-emu.1 $(DESTDIR)$(MANDIR)/man1/xrnic-emu.1
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|' tools/xrnic-emu/xrnic-emu@.service.in \
		>$(DESTDIR)$(UNITDIR)/xrnic-emu@.service

install-modprobe:
	install -D -m 0644 scripts/xrdma-modprobe.conf $(MODPROBE_CONF)

uninstall:
	rm -f $(MODDIR)/xrdma_core.ko $(MODDIR)/xrnic.ko $(MODDIR)/xrnic_xrdma.ko $(MODDIR)/xrnic_ib.ko $(MODPROBE_CONF) $(PROVIDER) \
		$(DRIVER_FILE) $(EMU_FILES)
	-rmdir $(MODDIR) 2>/dev/null
	$(if $(DESTDIR),,depmod -a $(KVER))

# Debian packages (xrdma-dkms, libxrnic, xrnic-emu) built with debhelper
# from the tracked files, into build/deb/.
deb:
	@scripts/install-deps.sh debhelper dh-dkms dkms
	scripts/build-deb.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/xrnic-emu clean
	$(MAKE) -C tools/lib/xrnic clean
	$(MAKE) -C tools/testing/selftests/xrdma clean
	$(MAKE) -C tools/testing/cm clean
	rm -rf build

.PHONY: bench provider all deps modules emu selftests check check-packages lint htmldocs demo install install-modules \
	install-provider install-emu install-modprobe uninstall deb clean
