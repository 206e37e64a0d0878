#!/usr/bin/env bash
# scripts/capture-join.sh - record packets and conntrack events of the same TCP connections through
# a NAT, for flowtrace's conntrack <-> flow join (issues 5 and 6; docs/conntrack.md "Join").
#
# Builds its OWN namespaces ftj-c (client), ftj-r (router: conntrack + NAT) and ftj-s (server),
# joined by two veth pairs; everything stays inside them and is torn down on exit.
#
#   ftj-c [c0] 10.88.1.2 -- [r0] 10.88.1.1  ftj-r  10.88.2.1 [r1] -- [s0] 10.88.2.2 ftj-s
#
# The router's nftables impose both translations:
#   DNAT  10.88.1.1:8080 -> 10.88.2.2:7777   (prerouting, tcp dport 8080 on r0)
#   SNAT  masquerade out of r1 -> source 10.88.2.1 (the kernel may also remap the source port)
# so a connection the client opens to 10.88.1.1:8080 has
#   original tuple 10.88.1.2:P -> 10.88.1.1:8080  (what c0 sees)
#   reply tuple    10.88.2.2:7777 -> 10.88.2.1:P' (what s0 sees, reversed)
#
# Records, at the same time:
#   testdata/join/client.pcap      tcpdump on c0 in ftj-c (pre-NAT side), snaplen 128
#   testdata/join/server.pcap      tcpdump on s0 in ftj-s (post-NAT side), snaplen 128
#   testdata/join/conntrack.nl.bin raw ctnetlink messages in ftj-r ([u32 LE length][bytes], lab/ct_listen.py)
#   testdata/join/conntrack.attrs.txt  reference decoding of the .bin by lab/ct_dump.py (python, not Java)
#   testdata/join/facts            what the script imposed (addresses, ports, connection count)
# Offloads are off and gso_max_segs is 1 on every veth, so one skb = one wire segment for both
# tcpdump and conntrack's packet counters.
#
# Usage: sudo scripts/capture-join.sh [OUTDIR]   (root, nft, conntrack, tcpdump, ethtool, python3)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
LAB=$HERE/lab
OUT=${1:-$HERE/../testdata/join}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
NC=ftj-c NR=ftj-r NS=ftj-s
CONNS=${CONNS:-6}
TMP=$(mktemp -d /tmp/ftj.XXXXXX)
PIDS=()

teardown() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for ns in $NC $NR $NS; do ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null || true; done
  sleep 0.2
  for ns in $NC $NR $NS; do ip netns del $ns 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap teardown EXIT

inr() { ip netns exec $NR "$@"; }

for ns in $NC $NR $NS; do ip netns del $ns 2>/dev/null || true; ip netns add $ns; ip -n $ns link set lo up; done
ip link add c0 netns $NC type veth peer name r0 netns $NR
ip link add r1 netns $NR type veth peer name s0 netns $NS
ip -n $NC addr add 10.88.1.2/24 dev c0
ip -n $NR addr add 10.88.1.1/24 dev r0
ip -n $NR addr add 10.88.2.1/24 dev r1
ip -n $NS addr add 10.88.2.2/24 dev s0
for pair in $NC:c0 $NR:r0 $NR:r1 $NS:s0; do
  ns=${pair%%:*} dev=${pair##*:}
  ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off tx off >/dev/null 2>&1 || true
  ip -n "$ns" link set dev "$dev" gso_max_segs 1
  ip -n "$ns" link set "$dev" up
done
ip -n $NC route add default via 10.88.1.1
ip -n $NS route add default via 10.88.2.1
inr sysctl -qw net.ipv4.ip_forward=1 net.netfilter.nf_conntrack_acct=1 net.netfilter.nf_conntrack_timestamp=1
# Short TIME_WAIT/CLOSE so each DESTROY follows its connection within ~2 s (with the reaper below).
inr sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_time_wait=1 net.netfilter.nf_conntrack_tcp_timeout_close=1 \
  net.netfilter.nf_conntrack_tcp_timeout_fin_wait=1 net.netfilter.nf_conntrack_tcp_timeout_last_ack=1 \
  net.netfilter.nf_conntrack_tcp_timeout_close_wait=1
inr nft -f - <<'NFT'
table ip ftj {
  chain ftpre { type nat hook prerouting priority dstnat; policy accept;
    iifname "r0" tcp dport 8080 dnat to 10.88.2.2:7777;
  }
  chain ftpost { type nat hook postrouting priority srcnat; policy accept;
    oifname "r1" masquerade;
  }
  chain ftfwd { type filter hook forward priority 0; policy accept;
    ct state new,established,related accept;
  }
}
NFT

# Echo server: reads until EOF, echoes everything, then closes.
ip netns exec $NS python3 - <<'PY' & PIDS+=($!)
import socket, threading
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('0.0.0.0', 7777)); srv.listen(16)
def serve(c):
    with c:
        while True:
            d = c.recv(65536)
            if not d:
                break
            c.sendall(d)
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
sleep 0.5
ip netns exec $NC ping -c1 -W2 10.88.1.1 >/dev/null || true
ip netns exec $NS ping -c1 -W2 10.88.2.1 >/dev/null || true
inr conntrack -F >/dev/null 2>&1 || true

ip netns exec $NR python3 "$LAB/ct_listen.py" --out "$OUT/conntrack.nl.bin" --ready-file "$TMP/ready" & LP=$!
ip netns exec $NC tcpdump -q -n -i c0 -s 128 -U -w "$OUT/client.pcap" tcp 2>"$TMP/c.err" & CP=$!
ip netns exec $NS tcpdump -q -n -i s0 -s 128 -U -w "$OUT/server.pcap" tcp 2>"$TMP/s.err" & SP=$!
while [ ! -f "$TMP/ready" ]; do sleep 0.05; done
sleep 1
( while true; do inr conntrack -L >/dev/null 2>&1 || true; sleep 0.5; done ) & RP=$!

# CONNS connections of growing size: connect to the DNAT address, send N bytes, read the echo, close.
ip netns exec $NC python3 - "$CONNS" <<'PY'
import socket, sys, time
for i in range(int(sys.argv[1])):
    n = 2000 * (i + 1) * (i + 1)
    with socket.create_connection(('10.88.1.1', 8080), timeout=5) as s:
        s.sendall(bytes(i % 256 for i in range(n)))
        s.shutdown(socket.SHUT_WR)
        got = 0
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += len(d)
        assert got == n, (got, n)
    time.sleep(0.2)
PY
for i in $(seq 1 40); do
  inr conntrack -L >/dev/null 2>&1 || true
  [ "$(inr conntrack -C 2>/dev/null || echo 0)" = 0 ] && break
  sleep 0.5
done
sleep 1
kill $RP; wait $RP 2>/dev/null || true
kill -TERM $LP $CP $SP; wait $LP $CP $SP 2>/dev/null || true
python3 "$LAB/ct_dump.py" "$OUT/conntrack.nl.bin" > "$OUT/conntrack.attrs.txt"
cat > "$OUT/facts" <<FACTS
# What scripts/capture-join.sh imposed (java.util.Properties). The NAT the nft rules impose:
connections=$CONNS
client=10.88.1.2
dnat_from=10.88.1.1:8080
dnat_to=10.88.2.2:7777
masquerade_source=10.88.2.1
client_vantage_interface=c0
server_vantage_interface=s0
kernel=$(uname -r)
recorded_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
FACTS
echo "destroy events: $(grep -c 'kind=DESTROY' "$OUT/conntrack.attrs.txt")  packets c0: $(tcpdump -r "$OUT/client.pcap" 2>/dev/null | wc -l)  s0: $(tcpdump -r "$OUT/server.pcap" 2>/dev/null | wc -l)" >&2
ls -la "$OUT" >&2
