#!/usr/bin/env bash
# scripts/capture-tcp.sh - real TCP cases with kernel ground truth, for flowtrace's TCP analyser tests.
#
# Usage: scripts/capture-tcp.sh [OUTDIR] [CASE...]
#        OUTDIR defaults to testdata/tcp next to this script; CASEs default to all of:
#        cubic-loss bbr-loss reno-taildrop cubic-deepqueue rwnd-limited short-conns reorder
#        ipv6-loss tso-on
# Needs: root, iproute2, nftables, ethtool, tcpdump, tshark, tcptrace, iperf3, python3, tracefs.
#
# Every case builds client -> router -> server (scripts/lab/netns.sh; bottleneck tbf on the
# router's egress to the server, random drop in the router's forward chain, client->server only
# unless the case says both), offloads off + gso_max_segs 1 and RPS pinned unless the case says
# otherwise, tcp_no_metrics_save=1 in both end namespaces. The client is the data sender. Per case:
#   CASE.sender.pcap.gz       tcpdump -s 128 on the client's veth c0: every original and every
#                             retransmission of client->server data (gzip -9; tcpdump/tshark/tcptrace
#                             read .gz directly)
#   CASE.receiver.pcap.gz     tcpdump -s 128 on the server's veth s0: the survivors
#   CASE.{sender,receiver}.tshark.tsv.gz    tshark TCP analysis per packet (fields below)
#   CASE.{sender,receiver}.tcptrace.txt     tcptrace -l -r -n (long output, RTT stats; .txt.gz when
#                             over 200 kB, i.e. short-conns)
#   CASE.kernel.json          sender-kernel truth from tracefs (scripts/lab/kernel_truth.py), with
#                             each retransmission matched to its frame (scripts/lab/verify_truth.py)
#   CASE.counters.json        per-namespace SNMP/TcpExt deltas, router drops (scripts/lab/counters.py)
# and summary.json with one line per case (used to write testdata/tcp/README.md by hand).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../testdata/tcp}
shift || true
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(cubic-loss bbr-loss reno-taildrop cubic-deepqueue rwnd-limited
                                short-conns reorder ipv6-loss tso-on)
. "$HERE/lab/netns.sh"
. "$HERE/lab/ktrace.sh"
export LC_ALL=C
WORK=$(mktemp -d /tmp/flowtrace-tcp.XXXXXX)
cleanup() { ktrace_stop || true; lab_teardown; rm -rf "$WORK"; }
trap cleanup EXIT

. "$HERE/lab/tcpcase.sh"

# ------------------------------------------------------------------------------------ cases
run_cubic_loss() {
    case_begin cubic-loss 5201 --rate 20mbit --burst 16k --limit 100k --loss 10
    iperf_server 5201
    iperf_client "$LAB_SERVER4" 5201 -t 2.5 -C cubic
    case_end
}

run_bbr_loss() {
    case_begin bbr-loss 5202 --rate 20mbit --burst 16k --limit 100k --loss 10
    iperf_server 5202
    iperf_client "$LAB_SERVER4" 5202 -t 2.5 -C bbr
    case_end
}

run_reno_taildrop() {
    # shallow queue: 30 kB = ~20 full-size packets; no random drop -> slow start ends by tail drop
    case_begin reno-taildrop 5203 --rate 20mbit --burst 8k --limit 30k --loss 0
    iperf_server 5203
    iperf_client "$LAB_SERVER4" 5203 -t 2.5 -C reno
    case_end
}

run_cubic_deepqueue() {
    # deep queue: 2 MB = ~1400 packets (0.8 s at 20 Mbit/s); no random drop -> HyStart exit first
    case_begin cubic-deepqueue 5204 --rate 20mbit --burst 8k --limit 2m --loss 0
    iperf_server 5204
    iperf_client "$LAB_SERVER4" 5204 -t 3 -C cubic
    case_end
}

run_rwnd_limited() {
    # receiver: SO_RCVBUF 16 KB set on the listener before listen(), application reads 8 KB at a
    # time at 1 MB/s -> the advertised window limits the sender, fills, and goes to zero; 5 MB
    case_begin rwnd-limited 5205 --rate 50mbit --burst 16k --limit 150k --loss 0
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port 5205 --count 1 \
        --rcvbuf 16384 --read-rate 1000000 --cc cubic
    local srv=$LAB_BG_PID
    sleep 0.5
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port 5205 \
        --bytes 5000000 --cc cubic
    wait "$srv" 2>/dev/null || true
    case_end
}

run_short_conns() {
    # 240 connections, 10 KB each, 8 at a time; 3 % drop in BOTH directions, and SYN / SYN-ACK
    # segments dropped with 25 % chance (before the 3 % rule) so that repeated handshake losses
    # show the exponential SYN / SYN-ACK backoff (1 s, 2 s, 4 s ...) on several connections
    case_begin short-conns 5206 --rate 50mbit --burst 16k --limit 150k --loss 30 --loss-dir both \
        --syn-loss 250
    # kernel 6.18 defaults to net.ipv4.tcp_syn_linear_timeouts=4: the first 4 SYN retransmissions
    # come 1 s apart (linear), only later ones back off exponentially. Turn that off on the client
    # so the classic exponential schedule 1 s, 2 s, 4 s shows (SYN-ACK timers are exponential anyway)
    lab_ns client sysctl -qw net.ipv4.tcp_syn_linear_timeouts=0
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port 5206 --cc cubic
    local srv=$LAB_BG_PID
    sleep 0.5
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port 5206 \
        --bytes 10000 --conns 240 --parallel 8 --cc cubic 2> "$WORK/short.txt" || true
    tail -1 "$WORK/short.txt" | sed 's/^/  /'
    sleep 1
    kill "$srv" 2>/dev/null || true
    wait "$srv" 2>/dev/null || true
    case_end
}

run_reorder() {
    # RPS not pinned, no tbf, no random drop, unpaced; iperf3 client pinned to CPU 0 and server to
    # CPU 1 so segments are sent from both CPUs (process context on 0, ACK-clocked softirq on 1) and
    # the veth backlogs of the two CPUs reorder them: DSACKs, spurious retransmissions, undo.
    # (With the tbf or with pacing there was no reordering at all.) 8 MB = ~5.8k data segments.
    # Reordering is stochastic here (about half the runs show none), so the case is repeated, up
    # to 10 attempts, until the client counted TCPSACKReorder > 0 and TCPDSACKRecv > 0.
    local attempt
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        case_begin reorder 5207 --loss 0 --rps nopin
        IPERF_SERVER_PREFIX="taskset -c 1" iperf_server 5207
        IPERF_PREFIX="taskset -c 0" iperf_client "$LAB_SERVER4" 5207 -n 8M -C cubic
        case_end
        if python3 -c 'import json,sys
h=json.load(open(sys.argv[1]))["namespaces"]["client"]["highlights"]
sys.exit(0 if h.get("TcpExt.TCPSACKReorder",0)>0 and h.get("TcpExt.TCPDSACKRecv",0)>0 else 1)' \
            "$OUT/reorder.counters.json"; then
            echo "  reorder: reordering seen on attempt $attempt"
            break
        fi
        echo "  reorder: attempt $attempt saw no reordering, repeating"
    done
}

run_ipv6_loss() {
    case_begin ipv6-loss 5208 --rate 20mbit --burst 16k --limit 100k --loss 10
    iperf_server 5208
    iperf_client "$LAB_SERVER6" 5208 -t 2.5 -C cubic
    case_end
}

run_tso_on() {
    # offloads left ON (TSO/GSO/GRO, default gso_max_segs): the sender's capture shows GSO
    # super-segments larger than the MSS, the receiver's capture GRO-merged ones
    case_begin tso-on 5209 --rate 20mbit --burst 16k --limit 100k --loss 10 --offloads on
    iperf_server 5209
    iperf_client "$LAB_SERVER4" 5209 -t 2.5 -C cubic
    case_end
}

for c in "${CASES[@]}"; do
    fn="run_${c//-/_}"
    declare -F "$fn" >/dev/null || { echo "unknown case $c" >&2; exit 2; }
    "$fn"
done
echo "== done: $OUT"
ls -l "$OUT"
