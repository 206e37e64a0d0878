#!/usr/bin/env bash
# scripts/capture-long-lossy.sh - one long lossy TCP flow (>= 300k packets) with kernel truth.
# NOT committed (too big): for scale tests (docs/design.md, "tcptrace's quadratic IsRTO": long lossy flows)
# and benchmarks.
#
# Usage: scripts/capture-long-lossy.sh [OUTDIR] [SECONDS]
#        OUTDIR default /tmp/flowtrace-long, SECONDS default 60 (2 % drop holds cubic near 43 Mbit/s: ~5.6k packets/s on the sender side, so 60 s gives ~330k).
# Topology and outputs as scripts/capture-tcp.sh (scripts/lab/tcpcase.sh): client -> router ->
# server, tbf 100 Mbit/s (burst 32 kB, queue 250 kB) and 2 % random drop (client->server) on the
# router, offloads off + gso_max_segs 1, RPS pinned, cubic, iperf3 for SECONDS. Written to OUTDIR,
# uncompressed:
#   long-lossy.sender.pcap  long-lossy.receiver.pcap   (tcpdump -s 128 on client / server veth)
#   long-lossy.{sender,receiver}.tshark.tsv            (same fields as testdata/tcp)
#   long-lossy.{sender,receiver}.tcptrace.txt          (tcptrace -l -r -n)
#   long-lossy.kernel.json  long-lossy.counters.json  summary.json
# Prints the packet counts and the kernel/capture retransmission match at the end.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-/tmp/flowtrace-long}
SECS=${2:-60}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
. "$HERE/lab/netns.sh"
. "$HERE/lab/ktrace.sh"
export LC_ALL=C
WORK=$(mktemp -d /tmp/flowtrace-long-work.XXXXXX)
cleanup() { ktrace_stop || true; lab_teardown; rm -rf "$WORK"; }
trap cleanup EXIT
COMPRESS=0
. "$HERE/lab/tcpcase.sh"

rm -f "$OUT/summary.json"
case_begin long-lossy 5301 --rate 100mbit --burst 32k --limit 250k --loss 20
iperf_server 5301
iperf_client "$LAB_SERVER4" 5301 -t "$SECS" -C cubic
case_end
ls -l "$OUT"
