#!/usr/bin/env bash
# scripts/capture-decoding.sh - real captures that exercise flowtrace's packet decoders.
#
# Usage: scripts/capture-decoding.sh [OUTDIR]      (default: testdata/decoding next to this script)
# Needs: root, tcpdump, tshark (dumpcap, editcap, mergecap, capinfos), iproute2, nftables, ethtool,
#        iputils-ping, python3. Builds the client/router/server namespaces of scripts/lab/netns.sh;
#        all traffic stays inside them; the namespaces are deleted on exit (trap).
#
# What it makes (every capture FILE gets FILE.tshark.tsv, see tshark_ref below):
#   (a) tcp4-sack.pcap          IPv4 TCP, 400 KB through a 3 % drop -> SACK blocks; classic pcap, us,
#                               little endian, snaplen 128, on the client veth
#   (b) tcp4-sack-ns.pcap       the same packets, captured at the same time, nanosecond pcap
#   (h) tcp4-snap64.pcap        the same packets, snaplen 64 (TCP options cut off)
#   (f) tcp4-sll.pcap           the same connection, -i any -y LINUX_SLL (cooked v1)
#       tcp4-sll2.pcap          the same connection, -i any -y LINUX_SLL2 (cooked v2)
#   (c) tcp4-2if.pcapng         dumpcap on the router's two veths (r0 = before the drop, r1 = after),
#                               one pcapng with two IDBs (as dumpcap writes them)
#                               (dumpcap 4.0 writes if_tsresol=9, ns, on both IDBs)
#       tcp4-2if-mixres.pcapng  the same file with IDB 0 rewritten to if_tsresol=6 (us; timestamps
#                               floored), IDB 1 left at ns
#   (d) tcp6-sack.pcap          IPv6 TCP, 300 KB through a 3 % drop, snaplen 128
#   (e) vlan-8021q.pcap         TCP + ping tagged 802.1Q VLAN 100, captured on the parent veth
#       vlan-qinq.pcap          TCP + ping tagged 802.1ad S-VLAN 200 / 802.1Q C-VLAN 300 (QinQ)
#                               (tags added by tunrelay.py vlan: the kernel has no 8021q)
#   (g) ipv4-frag-opts.pcap     ping -s 3000 with DF off (first + non-first fragments), ping -R
#                               (record-route option), TCP with IPv4 options (IP_OPTIONS: NOPs +
#                               timestamp option) -> IHL > 5
#       ipv6-exthdr.pcap        ping -6 -s 3000 (fragment header), UDP with a hop-by-hop header
#                               (IPV6_HOPOPTS, PadN), TCP over IPv6
#   (i) raw-ip.pcap             LINKTYPE_RAW (101): IPv4 and IPv6 TCP + ping on a TUN device
#                               (tunrelay.py tun; the kernel has no ipip/sit)
#       null-loopback.pcap      LINKTYPE_NULL (0) built from raw-ip.pcap by scripts/lab/pcaptool.py
#   (j) tcp4-sack-be.pcap       tcp4-sack.pcap with every header field big-endian (pcaptool.py to-be)
#       tcp4-truncated.pcap     tcp4-sack.pcap cut in the middle of a record (pcaptool.py truncate)
# Then it writes capinfos output to OUTDIR/capinfos.txt. testdata/decoding/README.md describes
# the files (hand-written from a run of this script; re-check counts after re-running).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../testdata/decoding}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
. "$HERE/lab/netns.sh"
PCAPTOOL="python3 $HERE/lab/pcaptool.py"
BLAST="python3 $HERE/lab/tcpblast.py"
trap 'lab_teardown' EXIT
export LC_ALL=C

# Reference fields (tshark 4.0 names; see README for the mapping to the requested names).
TSHARK_FIELDS="frame.number frame.time_epoch frame.len frame.cap_len frame.interface_id eth.type vlan.id
ip.version ip.src ip.dst ipv6.src ipv6.dst ip.id ip.ttl ipv6.hlim ip.len ipv6.plen ip.flags.mf
ip.frag_offset tcp.srcport tcp.dstport tcp.seq_raw tcp.ack_raw tcp.flags tcp.window_size_value
tcp.len tcp.options.mss_val tcp.options.wscale.shift tcp.options.sack_perm tcp.options.sack_le
tcp.options.sack_re tcp.options.timestamp.tsval tcp.options.timestamp.tsecr"
# Extra columns appended after the requested ones (outer 802.1ad tag, header lengths, next
# protocols, cooked/loopback headers).
TSHARK_EXTRA="ieee8021ad.id ip.hdr_len ip.proto ipv6.nxt sll.pkttype sll.ifindex null.family"

tshark_ref() {   # FILE -> FILE.tshark.tsv
    local f=$1 args=() x
    for x in $TSHARK_FIELDS $TSHARK_EXTRA; do args+=(-e "$x"); done
    # relative_sequence_numbers:FALSE makes sack_le/sack_re raw 32-bit values like seq_raw
    tshark -r "$f" -n -o tcp.relative_sequence_numbers:FALSE -T fields -E header=y -E separator=/t \
        -E occurrence=a -E aggregator=, "${args[@]}" > "$f.tshark.tsv" 2> "$f.tshark.err" || true
    sed -i '/Running as user "root"/d' "$f.tshark.err"
    [ -s "$f.tshark.err" ] || rm -f "$f.tshark.err"
    echo "  $(basename "$f"): $(($(wc -l < "$f.tshark.tsv") - 1)) packets in tshark reference"
}

start_server() {   # NS ADDR PORT -> SRV_PID
    lab_bg "$1" python3 "$HERE/lab/tcpblast.py" server --bind "$2" --port "$3"
    SRV_PID=$LAB_BG_PID
    sleep 0.5
}

stop() { local p; for p in "$@"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }

# ---------------------------------------------------------------- (a) (b) (h) (f) (c)
case_tcp4() {
    echo "== (a)(b)(c)(f)(h) IPv4 TCP with SACK loss"
    lab_setup --rate 20mbit --limit 100k --loss 30
    start_server server "$LAB_SERVER4" 5001
    local caps=()
    lab_capture client c0 "$OUT/tcp4-sack.pcap" -s 128; caps+=("$LAB_CAP_PID")
    lab_capture client c0 "$OUT/tcp4-sack-ns.pcap" -s 128 --time-stamp-precision=nano; caps+=("$LAB_CAP_PID")
    lab_capture client c0 "$OUT/tcp4-snap64.pcap" -s 64; caps+=("$LAB_CAP_PID")
    lab_capture client any "$OUT/tcp4-sll.pcap" -s 128 -y LINUX_SLL; caps+=("$LAB_CAP_PID")
    lab_capture client any "$OUT/tcp4-sll2.pcap" -s 128 -y LINUX_SLL2; caps+=("$LAB_CAP_PID")
    lab_bg router dumpcap -q -i r0 -s 128 -i r1 -s 128 -w "$OUT/tcp4-2if.pcapng"
    caps+=("$LAB_BG_PID")
    sleep 1.5
    lab_ns client $BLAST client --addr "$LAB_SERVER4" --port 5001 --bytes 400000
    lab_stop_capture "${caps[@]}"
    stop "$SRV_PID"
    echo "  router dropped $(lab_nft_counter) packets"
    $PCAPTOOL mixres "$OUT/tcp4-2if.pcapng" "$OUT/tcp4-2if-mixres.pcapng" 0 6
}

# ---------------------------------------------------------------- (d)
case_tcp6() {
    echo "== (d) IPv6 TCP with SACK loss"
    lab_setup --rate 20mbit --limit 100k --loss 30
    start_server server "$LAB_SERVER6" 5002
    lab_capture client c0 "$OUT/tcp6-sack.pcap" -s 128
    local cap=$LAB_CAP_PID
    lab_ns client $BLAST client --addr "$LAB_SERVER6" --port 5002 --bytes 300000
    lab_stop_capture "$cap"
    stop "$SRV_PID"
    echo "  router dropped $(lab_nft_counter) packets"
}

# ---------------------------------------------------------------- (e)
# This kernel has no 8021q support (ip link add type vlan: "Unknown device type") and no tc vlan
# action, so tagging is done by scripts/lab/tunrelay.py: a TAP device per end carries the kernel's
# own TCP/ICMP/ARP traffic, the relay inserts/strips the tag stack on the veth (see its header).
start_relay() {   # NS ARGS... -> RELAY_PID (waits for "ready")
    local ns=$1; shift
    local log; log=$(mktemp)
    LAB_BG_ERR=$log lab_bg "$ns" python3 "$HERE/lab/tunrelay.py" "$@"
    RELAY_PID=$LAB_BG_PID
    local i
    for i in $(seq 1 50); do grep -q ready "$log" && break; sleep 0.1; done
    grep -q ready "$log" || { cat "$log" >&2; return 1; }
    rm -f "$log"
}

case_vlan() {
    echo "== (e) 802.1Q and QinQ (userspace tagging relay, see tunrelay.py)"
    lab_setup
    lab_ns client ethtool -K c0 rxvlan off txvlan off >/dev/null 2>&1 || true
    lab_ns router ethtool -K r0 rxvlan off txvlan off >/dev/null 2>&1 || true
    start_relay client vlan --dev cv100 --addr4 10.77.100.2/24 --parent c0 --tags 8100:100 \
        --mac 02:77:00:01:00:02; local r1=$RELAY_PID
    start_relay router vlan --dev rv100 --addr4 10.77.100.1/24 --parent r0 --tags 8100:100 \
        --mac 02:77:00:01:00:01; local r2=$RELAY_PID
    start_relay client vlan --dev cq300 --addr4 10.77.230.2/24 --parent c0 --tags 88a8:200,8100:300 \
        --mac 02:77:00:02:00:02; local r3=$RELAY_PID
    start_relay router vlan --dev rq300 --addr4 10.77.230.1/24 --parent r0 --tags 88a8:200,8100:300 \
        --mac 02:77:00:02:00:01; local r4=$RELAY_PID
    start_server router 10.77.100.1 5003; local s1=$SRV_PID
    start_server router 10.77.230.1 5004; local s2=$SRV_PID
    lab_capture client c0 "$OUT/vlan-8021q.pcap" -s 256; local c1=$LAB_CAP_PID
    lab_ns client ping -c3 -i0.2 -q 10.77.100.1 >/dev/null
    lab_ns client $BLAST client --addr 10.77.100.1 --port 5003 --bytes 60000
    lab_stop_capture "$c1"
    lab_capture client c0 "$OUT/vlan-qinq.pcap" -s 256; local c2=$LAB_CAP_PID
    lab_ns client ping -c3 -i0.2 -q 10.77.230.1 >/dev/null
    lab_ns client $BLAST client --addr 10.77.230.1 --port 5004 --bytes 60000
    lab_stop_capture "$c2"
    stop "$s1" "$s2" "$r1" "$r2" "$r3" "$r4"
}

# ---------------------------------------------------------------- (g)
case_frag_opts() {
    echo "== (g) IPv4 fragments + options, IPv6 extension headers"
    lab_setup
    start_server server "$LAB_SERVER4" 5005; local s4=$SRV_PID
    lab_capture client c0 "$OUT/ipv4-frag-opts.pcap"; local c=$LAB_CAP_PID
    # fragments: 3000-byte ICMP echo, DF off -> 3 fragments each way (MTU 1500)
    lab_ns client ping -c3 -i0.2 -s 3000 -M dont -q "$LAB_SERVER4" >/dev/null
    # record-route option (IHL 15) on echo request and reply
    lab_ns client ping -c2 -i0.2 -R -q "$LAB_SERVER4" >/dev/null || true
    # TCP with IPv4 options on every client segment: NOP NOP + timestamp option (type 68,
    # len 12, ptr 5, flag 0 = timestamps only, room for 2) -> 16 option bytes, IHL 9
    lab_ns client $BLAST client --addr "$LAB_SERVER4" --port 5005 --bytes 20000 \
        --ipopts 0101440c05000000000000000000
    lab_stop_capture "$c"
    stop "$s4"

    start_server server "$LAB_SERVER6" 5006; local s6=$SRV_PID
    lab_capture client c0 "$OUT/ipv6-exthdr.pcap"; c=$LAB_CAP_PID
    lab_ns client ping -6 -c3 -i0.2 -s 3000 -q "$LAB_SERVER6" >/dev/null
    # UDP with a hop-by-hop options header (next header 17, one PadN option of 4 bytes),
    # one small and one large (fragmented: hop-by-hop then fragment header) datagram
    lab_ns client python3 - "$LAB_SERVER6" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
IPV6_HOPOPTS = 54
# hop-by-hop header: next header (filled by kernel), hdr ext len 0, PadN type 1 len 4 + 4 zero bytes
s.setsockopt(socket.IPPROTO_IPV6, IPV6_HOPOPTS, bytes([0, 0, 1, 4, 0, 0, 0, 0]))
s.sendto(b"hop-by-hop " * 10, (sys.argv[1], 9999))
s.sendto(b"H" * 3000, (sys.argv[1], 9999))
EOF
    sleep 0.3
    lab_ns client $BLAST client --addr "$LAB_SERVER6" --port 5006 --bytes 20000
    lab_stop_capture "$c"
    stop "$s6"
}

# ---------------------------------------------------------------- (i)
# No ipip/sit in this kernel either: a TUN device (libpcap: LINKTYPE_RAW) in client and server,
# joined by tunrelay.py over UDP 7000 between the veth addresses, carries IPv4 and IPv6 TCP + ping.
case_rawip() {
    echo "== (i) LINKTYPE_RAW (TUN device) and LINKTYPE_NULL"
    lab_setup
    start_relay client tun --dev tn0 --addr4 10.77.99.1/30 --addr6 fd77:99::1/64 \
        --local "$LAB_CLIENT4:7000" --peer "$LAB_SERVER4:7000"; local r1=$RELAY_PID
    start_relay server tun --dev tn0 --addr4 10.77.99.2/30 --addr6 fd77:99::2/64 \
        --local "$LAB_SERVER4:7000" --peer "$LAB_CLIENT4:7000"; local r2=$RELAY_PID
    start_server server 10.77.99.2 5007; local s1=$SRV_PID
    start_server server fd77:99::2 5008; local s2=$SRV_PID
    lab_capture client tn0 "$OUT/raw-ip.pcap" -s 128; local c1=$LAB_CAP_PID
    lab_ns client ping -c2 -i0.2 -q 10.77.99.2 >/dev/null
    lab_ns client $BLAST client --addr 10.77.99.2 --port 5007 --bytes 30000
    lab_ns client ping -6 -c2 -i0.2 -q fd77:99::2 >/dev/null
    lab_ns client $BLAST client --addr fd77:99::2 --port 5008 --bytes 30000
    lab_stop_capture "$c1"
    stop "$s1" "$s2" "$r1" "$r2"
    $PCAPTOOL raw-to-null "$OUT/raw-ip.pcap" "$OUT/null-loopback.pcap"
}

# ---------------------------------------------------------------- (j)
case_derived() {
    echo "== (j) big-endian and truncated files derived from tcp4-sack.pcap"
    $PCAPTOOL to-be "$OUT/tcp4-sack.pcap" "$OUT/tcp4-sack-be.pcap"
    $PCAPTOOL truncate "$OUT/tcp4-sack.pcap" "$OUT/tcp4-truncated.pcap" | tee "$OUT/tcp4-truncated.txt"
}

rm -f "$OUT"/*.pcap "$OUT"/*.pcapng "$OUT"/*.tsv "$OUT"/*.err
case_tcp4
case_tcp6
case_vlan
case_frag_opts
case_rawip
lab_teardown
case_derived

echo "== tshark references"
for f in "$OUT"/*.pcap "$OUT"/*.pcapng; do tshark_ref "$f"; done
echo "== capinfos"
( cd "$OUT" && for f in *.pcap *.pcapng; do capinfos -t -E -c -l -s -u -a -e -i -M "$f" 2>&1 || true; echo; done ) \
    > "$OUT/capinfos.txt"
ls -l "$OUT"
