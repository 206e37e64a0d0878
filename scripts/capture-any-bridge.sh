#!/usr/bin/env bash
# scripts/capture-any-bridge.sh - record what the packets agent captures on Linux's "any" device on a
# node whose pods hang off a bridge: every packet is captured once on EACH interface it crosses (the
# agent used to count bridged pod traffic twice in one flow: 60 packets on the bridge, 120 on any).
#
# Three namespaces, the layout of a container network:
#
#   fta-pod1 [eth0] 10.78.0.11 --veth-- [vpod1]                     [vpod2] --veth-- [eth0] 10.78.0.12 fta-pod2
#                                          \___ br0 10.78.0.1 (fta-node) ___/
#
# Offloads off and gso_max_segs 1 on every veth (scripts/lab/netns.sh's tuning: one capture record =
# one wire segment). Two connections, each one request of 20 bytes answered by 20,000 bytes, then close:
#   pod-to-pod   10.78.0.11 -> 10.78.0.12:8080   bridged: seen on vpod1 and vpod2
#   pod-to-node  10.78.0.11 -> 10.78.0.1:8081    to the node's bridge address: seen on vpod1 and br0
# captured in fta-node by the agent's own command line for --iface any:
#   tcpdump -i any -s 128 --immediate-mode -U -w FILE -y LINUX_SLL2
#
# Writes, in OUTDIR (default testdata/tcp):
#   any-bridge.pcap.gz                 the capture (gzip -9)
#   any-bridge.interfaces.txt          "ifindex name" of fta-node's interfaces (ip -o link)
#   any-bridge.per-interface.tsv       the truth, tshark's count per interface and direction:
#       ifindex  src  sport  dst  dport  packets  payload_bytes
#       from `tshark -r FILE -T fields -e sll.ifindex -e ip.src -e tcp.srcport -e ip.dst -e tcp.dstport
#       -e tcp.len` (tcp.len from the IP header, so the snap length does not cut it), summed by awk
#
# Usage: sudo scripts/capture-any-bridge.sh [OUTDIR]   (root, tcpdump >= 4.99 / libpcap >= 1.10, tshark,
# python3, ethtool, iproute2)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../testdata/tcp}
export LAB_NS_CLIENT=fta-pod1 LAB_NS_ROUTER=fta-node LAB_NS_SERVER=fta-pod2
# shellcheck source=lab/netns.sh
. "$HERE/lab/netns.sh"
WORK=$(mktemp -d /tmp/ftany.XXXXXX)
trap 'lab_teardown; rm -rf "$WORK"' EXIT

NODE=10.78.0.1 POD1=10.78.0.11 POD2=10.78.0.12
lab_teardown
_lab_ns_base "$LAB_NS_CLIENT"; _lab_ns_base "$LAB_NS_ROUTER"; _lab_ns_base "$LAB_NS_SERVER"
ip -n "$LAB_NS_ROUTER" link add br0 type bridge
ip -n "$LAB_NS_ROUTER" link set br0 address 02:78:00:00:00:01
ip -n "$LAB_NS_ROUTER" addr add "$NODE/24" dev br0
n=0
for pod in "$LAB_NS_CLIENT:vpod1:$POD1" "$LAB_NS_SERVER:vpod2:$POD2"; do
    IFS=: read -r ns host addr <<<"$pod"
    n=$((n + 1))
    ip link add eth0 netns "$ns" type veth peer name "$host" netns "$LAB_NS_ROUTER"
    ip -n "$ns" link set eth0 address "02:78:00:00:01:0$n"
    ip -n "$LAB_NS_ROUTER" link set "$host" address "02:78:00:00:02:0$n"
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$LAB_NS_ROUTER" link set "$host" master br0
    _lab_if_tune "$ns" eth0 off pin
    _lab_if_tune "$LAB_NS_ROUTER" "$host" off pin
    ip -n "$ns" link set eth0 up
    ip -n "$LAB_NS_ROUTER" link set "$host" up
done
ip -n "$LAB_NS_ROUTER" link set br0 up
ip netns exec "$LAB_NS_ROUTER" ethtool -K br0 tso off gso off gro off tx off >/dev/null 2>&1 || true
# static neighbours: the capture holds no ARP
ip -n "$LAB_NS_CLIENT" neigh replace "$POD2" lladdr 02:78:00:00:01:02 dev eth0 nud permanent
ip -n "$LAB_NS_CLIENT" neigh replace "$NODE" lladdr 02:78:00:00:00:01 dev eth0 nud permanent
ip -n "$LAB_NS_SERVER" neigh replace "$POD1" lladdr 02:78:00:00:01:01 dev eth0 nud permanent
ip -n "$LAB_NS_ROUTER" neigh replace "$POD1" lladdr 02:78:00:00:01:01 dev br0 nud permanent

SERVE=$(cat <<'PY'
import socket, sys
s = socket.create_server((sys.argv[1], int(sys.argv[2])))
c, _ = s.accept()
got = b""
while len(got) < 20:
    got += c.recv(20 - len(got))
c.sendall(b"x" * 20000)
c.shutdown(socket.SHUT_WR)
while c.recv(4096):
    pass
c.close()
PY
)
lab_bg server python3 -c "$SERVE" "$POD2" 8080
POD_SERVER=$LAB_BG_PID
lab_bg router python3 -c "$SERVE" "$NODE" 8081
NODE_SERVER=$LAB_BG_PID
sleep 1

lab_capture router any "$WORK/any-bridge.pcap" -s 128 -y LINUX_SLL2
CAP=$LAB_CAP_PID
sleep 1
for target in "$POD2 8080" "$NODE 8081"; do
    # shellcheck disable=SC2086
    lab_ns client python3 - $target <<'PY'
import socket, sys
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), 5)
c.sendall(b"twenty bytes, please")
got = b""
while True:
    b = c.recv(65536)
    if not b:
        break
    got += b
assert got == b"x" * 20000, len(got)
c.close()
PY
    sleep 0.5
done
lab_stop_capture "$CAP"
wait "$POD_SERVER" "$NODE_SERVER" 2>/dev/null || true

ip -n "$LAB_NS_ROUTER" -o link | awk -F': ' '{ split($2, n, "@"); print $1, n[1] }' > "$OUT/any-bridge.interfaces.txt"
{
    printf 'ifindex\tsrc\tsport\tdst\tdport\tpackets\tpayload_bytes\n'
    tshark -r "$WORK/any-bridge.pcap" -Y tcp -T fields -e sll.ifindex -e ip.src -e tcp.srcport -e ip.dst \
        -e tcp.dstport -e tcp.len |
        awk -F'\t' '{ k = $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5; p[k]++; b[k] += $6 }
            END { for (k in p) print k "\t" p[k] "\t" b[k] }' | sort -n
} > "$OUT/any-bridge.per-interface.tsv"
gzip -9 -n -c "$WORK/any-bridge.pcap" > "$OUT/any-bridge.pcap.gz"
cat "$OUT/any-bridge.interfaces.txt" "$OUT/any-bridge.per-interface.tsv"
ls -l "$OUT/any-bridge.pcap.gz"
