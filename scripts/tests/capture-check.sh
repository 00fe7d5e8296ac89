#!/bin/bash
# Checks the captures a run took (scripts/xrdma-vm run --pcap DIR): each
# DIR/guest*.pcap must hold RoCE v2 frames that pass the port's own checks
# (pcap_check: lengths, IPv4 checksum, ICRC), and Debian's tshark must
# decode them as InfiniBand (RoCE v2, UDP 4791) with no malformed packet,
# and the IB CM messages both ends sent as IB CM with no expert note.
# tshark reads each capture once (they are gigabytes); awk judges its fields.
# KTAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: capture-check.sh DIR}
check=tools/xrnic-emu/build/pcap_check
n=0
rc=0
say() { n=$((n + 1)); echo "$1 $n capture.$2"; [ "$1" = ok ] || rc=1; }

# Each frame's fields, a line each, tab-separated; a field that occurs more
# than once is ';'-joined.  tshark guesses the protocol inside an IB
# payload from its first bytes (heuristic dissectors); the payloads here
# hold whatever the programs' buffers held: a 2-byte READ response
# reading 0x88cd was taken for an EtherType (eth_over_ib) and decoded as a
# malformed openSAFETY frame, and rsockets' 4-byte messages as malformed
# RPC-over-RDMA.  No frame here carries one of those protocols, so every
# payload heuristic is off; the transport headers and IB CM stay decoded.
PAYLOAD_GUESSES="rpcrdma_infiniband eth_over_ib sdp_infiniband iser_infiniband
	smb_direct_infiniband smcr_infiniband lnet_ib fc_infiniband nvme_rdma"
fields() {
	# shellcheck disable=SC2046 # one option per word
	tshark -n $(printf -- '--disable-heuristic %s ' $PAYLOAD_GUESSES) -r "$1" -T fields \
		-E separator=/t -E aggregator=';' -E occurrence=a \
		-e frame.number -e infiniband.bth.opcode -e infiniband.bth.destqp \
		-e ip.src -e ipv6.src -e udp.dstport -e udp.checksum -e _ws.col.Info \
		-e _ws.malformed -e _ws.expert.severity -e _ws.expert.message 2>/dev/null
}

# What the fields say, as "key value..." lines: ib N, opcodes, zero N,
# bad FRAME INFO (each frame tshark calls malformed or finds an error in;
# a zero UDP checksum over IPv6 is what RoCE v2 sends, IBTA A17.4.3,
# RFC 6935, rxe too, though tshark calls it illegal: counted, not bad),
# cm SOURCE MESSAGE (each IB CM message on QP 1), cm-noted FRAME INFO
# (one with an expert note of any severity, or not decoded as IB CM).
judge() {
	awk -F'\t' '
	function err(sev, msg, v6, i, s, m, k) {
		k = split(sev, s, ";"); split(msg, m, ";")
		for (i = 1; i <= k; i++)
			if (s[i] + 0 >= 8388608 &&
			    !(m[i] == "Illegal checksum value (0)" && v6 && $6 == 4791))
				return 1
		return 0
	}
	{
		v6 = $5 != ""
		if ($2 != "") { ib++; op[$2 + 0]++ }
		if (v6 && $6 == 4791 && $7 == "0x0000") zero++
		if ($9 != "" || err($10, $11, v6)) print "bad", $1, $8
		if ($3 == "0x000001") {
			print "cm", $4 $5, $8
			if ($10 != "" || $8 !~ /^CM: /) print "cm-noted", $1, $8
		}
	}
	END {
		print "ib", ib + 0
		s = ""
		for (o in op) s = s o "×" op[o] " "
		print "opcodes", s
		print "zero", zero + 0
	}'
}

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
	fields "$f" | judge >"$f.judged"
	get() { awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print }' "$f.judged"; }
	ib=$(get ib)
	echo "# $g: tshark decodes $ib frames as InfiniBand; opcodes: $(get opcodes | tr " " "\n" | sort -n | tr "\n" " ")"
	if ((ib > 0)); then say ok "$g.tshark_decodes_roce_v2"; else say "not ok" "$g.tshark_decodes_roce_v2"; fi
	echo "# $g: $(get zero) RoCE v2 frames over IPv6 with a zero UDP checksum"
	if [ -z "$(get bad)" ]; then
		say ok "$g.tshark_finds_nothing_malformed"
	else
		get bad | head -5 | sed 's/^/# frame /'
		say "not ok" "$g.tshark_finds_nothing_malformed"
	fi
	# The IB CM handshakes on QP 1: tshark decodes every kind of message
	# both ends sent (ours and the peer's, told apart by source address)
	# as IB CM, with no expert note of any severity.
	cm_missing=$(for m in ConnectRequest ConnectReply ReadyToUse ConnectReject DisconnectRequest \
		DisconnectReply ServiceIDResReq ServiceIDResReqResp; do
		get cm | awk -v m="CM: $m" '{ src = $1; sub(/^[^ ]+ /, "") } $0 == m { s[src] = 1 }
			END { if (length(s) != 2) print m }'
	done)
	echo "# $g: IB CM messages by source:" "$(get cm | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
	if [ -z "$cm_missing" ] && [ -z "$(get cm-noted)" ]; then
		say ok "$g.tshark_decodes_the_ib_cm_handshakes_from_both_ends"
	else
		echo "# not from both ends: ${cm_missing//$'\n'/, }"
		get cm-noted | head -5 | sed 's/^/# noted: frame /'
		say "not ok" "$g.tshark_decodes_the_ib_cm_handshakes_from_both_ends"
	fi
	rm -f "$f.judged"
done
exit $rc
