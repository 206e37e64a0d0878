#!/usr/bin/env bash
# scripts/capture-two-interfaces.sh - record one pcapng with TWO interfaces that both carry the same
# TCP connections (analyze used to show each connection twice with no interface column, and
# --services counted 400 connections for 200).
#
# The lab of scripts/lab/netns.sh under its own namespace names (ft2-client, ft2-router, ft2-server):
#
#   ft2-client [c0] 10.77.1.2 -- [r0]  ft2-router  [r1] -- [s0] 10.77.2.2 ft2-server
#
# no loss, no rate limit. dumpcap (tshark's package) captures on BOTH router interfaces into ONE
# pcapng: interface 0 = r0 (client side), interface 1 = r1 (server side), snaplen 128. The server is
# python3's http.server on port 8080 serving a 20-byte file, the client makes N sequential HTTP/1.0
# GETs with python3's http.client (one connection each, 20 ms apart), so every connection crosses both interfaces.
#
# Writes, in OUTDIR (default testdata/tcp):
#   two-interfaces.pcapng.gz            the capture (gzip -9)
#   two-interfaces.syn-per-interface.txt  tshark's count of client SYNs per interface: the truth
#       `tshark -r X -Y 'tcp.flags.syn==1 && tcp.flags.ack==0' -T fields -e frame.interface_id | sort | uniq -c`
#
# Usage: sudo scripts/capture-two-interfaces.sh [OUTDIR] [N]   (root, dumpcap, tshark, python3)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../testdata/tcp}
N=${2:-200}
export LAB_NS_CLIENT=ft2-client LAB_NS_ROUTER=ft2-router LAB_NS_SERVER=ft2-server
# shellcheck source=lab/netns.sh
. "$HERE/lab/netns.sh"
WORK=$(mktemp -d /tmp/ft2if.XXXXXX)
trap 'lab_teardown; rm -rf "$WORK"' EXIT

lab_setup
mkdir -p "$WORK/www"
printf 'twenty bytes of body' > "$WORK/www/index.txt"
lab_bg server python3 -m http.server 8080 --bind "$LAB_SERVER4" --directory "$WORK/www"
SERVER_PID=$LAB_BG_PID
for _ in $(seq 1 50); do
    lab_ns client python3 -c "import socket; socket.create_connection(('$LAB_SERVER4', 8080), 1).close()" \
        2>/dev/null && break
    sleep 0.1
done
sleep 1   # the probe connection above ends before the capture starts

LAB_BG_ERR=$WORK/dumpcap.log lab_bg router dumpcap -q -B 16 -s 128 -i "$LAB_IF_ROUTER_C" -i "$LAB_IF_ROUTER_S" \
    -w "$WORK/two-interfaces.pcapng"
CAP_PID=$LAB_BG_PID
for _ in $(seq 1 100); do
    [ -s "$WORK/two-interfaces.pcapng" ] && break
    sleep 0.1
done
sleep 1

lab_ns client python3 - "$LAB_SERVER4" "$N" <<'PY'
import http.client, sys, time
host, n = sys.argv[1], int(sys.argv[2])
for _ in range(n):
    c = http.client.HTTPConnection(host, 8080, timeout=5)
    c.request("GET", "/index.txt")
    r = c.getresponse()
    assert r.status == 200 and r.read() == b"twenty bytes of body"
    c.close()
    time.sleep(0.02)  # paced: dumpcap drops packets of a 2-interface capture when its writer falls behind
PY
sleep 1
kill -TERM "$CAP_PID"
wait "$CAP_PID" 2>/dev/null || true
kill "$SERVER_PID" 2>/dev/null || true
cat "$WORK/dumpcap.log" >&2

tshark -r "$WORK/two-interfaces.pcapng" -Y 'tcp.flags.syn==1 && tcp.flags.ack==0' -T fields \
    -e frame.interface_id | sort | uniq -c > "$OUT/two-interfaces.syn-per-interface.txt"
gzip -9 -n -c "$WORK/two-interfaces.pcapng" > "$OUT/two-interfaces.pcapng.gz"
cat "$OUT/two-interfaces.syn-per-interface.txt"
ls -l "$OUT/two-interfaces.pcapng.gz"
