#!/bin/bash
# Checks the captures a run took (scripts/xrdma-vm run --pcap DIR): each
# DIR/guest*.pcap must hold RoCE v2 frames that pass the port's own checks
# (pcap_check: lengths, IPv4 checksum, ICRC), and Debian's tshark must
# decode them as InfiniBand (RoCE v2, UDP 4791) with no malformed packet,
# and the IB CM messages both ends sent as IB CM with no expert note.
# KTAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: capture-check.sh DIR}
check=tools/xrnic-emu/build/pcap_check
n=0
rc=0
say() { n=$((n + 1)); echo "$1 $n capture.$2"; [ "$1" = ok ] || rc=1; }

# tshark 4.0's RPC-over-RDMA heuristic throws on any SEND whose payload is
# shorter than its header (rsockets' 4-byte messages): it decodes the payload
# of no frame here, so it is off and every other dissector stays on.
ts() { tshark -n --disable-heuristic rpcrdma_infiniband "$@" 2>/dev/null; }

shopt -s nullglob
files=("$dir"/guest*.pcap)
echo "TAP version 13"
echo "1..$((1 + 4 * ${#files[@]}))"
if ((${#files[@]})); then say ok captures_taken; else say "not ok" captures_taken; fi
for f in "${files[@]}"; do
	g=$(basename "$f" .pcap)
	if out=$("$check" "$f") && grep -q " [1-9][0-9]* RoCE v2" <<<"$out"; then
		say ok "$g.roce_frames_pass_the_icrc_and_length_checks"
	else
		say "not ok" "$g.roce_frames_pass_the_icrc_and_length_checks"
	fi
	echo "$out"
	ib=$(ts -r "$f" -Y infiniband | wc -l)
	echo "# $g: tshark decodes $ib frames as InfiniBand; opcodes:" \
		"$(ts -r "$f" -Y infiniband -T fields -e infiniband.bth.opcode |
			sort -n | uniq -c | awk '{ printf "%s×%s ", $2, $1 }')"
	if ((ib > 0)); then say ok "$g.tshark_decodes_roce_v2"; else say "not ok" "$g.tshark_decodes_roce_v2"; fi
	# A zero UDP checksum over IPv6 is what RoCE v2 sends (IBTA A17.4.3,
	# RFC 6935; rxe too), though tshark calls it illegal: counted, not bad.
	zero=$(ts -r "$f" -Y 'ipv6 && udp.dstport == 4791 && udp.checksum == 0' | wc -l)
	bad='_ws.malformed || (_ws.expert.severity >= error &&
		!(_ws.expert.message == "Illegal checksum value (0)" && ipv6 && udp.dstport == 4791))'
	echo "# $g: $zero RoCE v2 frames over IPv6 with a zero UDP checksum"
	if (($(ts -r "$f" -Y "$bad" | wc -l) == 0)); then
		say ok "$g.tshark_finds_nothing_malformed"
	else
		ts -r "$f" -Y "$bad" | head -5 | sed 's/^/# /'
		say "not ok" "$g.tshark_finds_nothing_malformed"
	fi
	# The IB CM handshakes on QP 1: tshark decodes every kind of message
	# both ends sent (ours and the peer's, told apart by source address)
	# as IB CM, with no expert note of any severity.
	ts -r "$f" -Y 'infiniband.bth.destqp == 1' -T fields -e ip.src -e ipv6.src \
		-e _ws.col.Info -e _ws.expert.severity >"$f.cm"
	cm_missing=$(for m in ConnectRequest ConnectReply ReadyToUse ConnectReject DisconnectRequest \
		DisconnectReply ServiceIDResReq ServiceIDResReqResp; do
		awk -F'\t' -v m="CM: $m" '$3 == m { src[$1 $2] = 1 }
			END { if (length(src) != 2) print m }' "$f.cm"
	done)
	cm_noted=$(awk -F'\t' '$4 != "" || $3 !~ /^CM: /' "$f.cm" | head -5)
	echo "# $g: IB CM messages by source:" "$(cut -f1-3 "$f.cm" | sort | uniq -c | tr -s ' \t' ' ' | tr '\n' ';')"
	if [ -z "$cm_missing" ] && [ -z "$cm_noted" ]; then
		say ok "$g.tshark_decodes_the_ib_cm_handshakes_from_both_ends"
	else
		echo "# not from both ends: ${cm_missing//$'\n'/, }"
		[ -z "$cm_noted" ] || sed 's/^/# noted: /' <<<"$cm_noted"
		say "not ok" "$g.tshark_decodes_the_ib_cm_handshakes_from_both_ends"
	fi
	rm -f "$f.cm"
done
exit $rc
