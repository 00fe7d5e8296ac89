#!/bin/bash
# Sourced by scripts/tests/vxlan.sh and scripts/bench-vxlan.sh: two
# "hosts", network namespaces xrdma-host1-PID and xrdma-host2-PID joined by
# a veth pair for the underlay (xrul1 10.99.0.1 and xrul2 10.99.0.2, MTU
# 9100), removed when the script exits.

# vxlan_hosts: make the two hosts and their underlay.
vxlan_hosts() {
	local h ns
	trap vxlan_hosts_down EXIT
	ip netns add "xrdma-host1-$$" && ip netns add "xrdma-host2-$$" &&
		ip link add xrul1 netns "xrdma-host1-$$" type veth peer name xrul2 \
			netns "xrdma-host2-$$" || return 1
	for h in 1 2; do
		ns=xrdma-host$h-$$
		ip -n "$ns" link set lo up
		ip -n "$ns" addr add "10.99.0.$h/24" dev "xrul$h"
		ip -n "$ns" link set "xrul$h" mtu 9100 up
	done
}

vxlan_hosts_down() {
	ip netns del "xrdma-host1-$$" 2>/dev/null
	ip netns del "xrdma-host2-$$" 2>/dev/null
}

# vxlan_run H ARGS...: host H's scripts/xrdma-vm run --host-index H, its
# segment joined to the other host's by VXLAN.
vxlan_run() {
	ip netns exec "xrdma-host$1-$$" scripts/xrdma-vm run --host-index "$1" \
		--vxlan "10.99.0.$((3 - $1))" "${@:2}"
}
