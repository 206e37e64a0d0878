#!/usr/bin/env bash
# scripts/capture-tcp.sh - real TCP cases with kernel ground truth, for flowtrace's TCP analyser tests.
#
# Usage: scripts/capture-tcp.sh [OUTDIR] [CASE...]
#        OUTDIR defaults to testdata/tcp next to this script; CASEs default to all of:
#        cubic-loss bbr-loss reno-taildrop cubic-deepqueue rwnd-limited short-conns reorder
#        ipv6-loss tso-on short-http zero-window cubic-clean cwnd-locked cwnd-locked-tso app-limited
#        short-lowrtt reorder-lane bbr-clean http-both rwnd-start-cubic rwnd-start-reno rwnd-start-bbr
#        bbr-10ms cubic-10ms bbr-10ms-20mbit
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
#   CASE.path.txt             the 10 ms-path cases only: ping's RTT before the case and the delay
#                             line's count of packets carried and late ones (scripts/lab/tcpcase.sh)
# and summary.json with one line per case (used to write testdata/tcp/README.md by hand).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../testdata/tcp}
shift || true
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(cubic-loss bbr-loss reno-taildrop cubic-deepqueue rwnd-limited
                                short-conns reorder ipv6-loss tso-on short-http zero-window
                                cubic-clean cwnd-locked cwnd-locked-tso app-limited short-lowrtt reorder-lane
                                bbr-clean http-both rwnd-start-cubic rwnd-start-reno rwnd-start-bbr
                                bbr-10ms cubic-10ms bbr-10ms-20mbit)
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

run_bbr_clean() {
    # BBR without random loss through a queue deep enough (1 MB, 0.4 s at 20 Mbit/s) for STARTUP's
    # 2.89 gain not to overflow it: STARTUP ends on its bandwidth plateau, not on a loss, and
    # bbr_check_drain sets ssthresh there (the kernel's exit, in tcp_probe)
    case_begin bbr-clean 5218 --rate 20mbit --burst 16k --limit 1m --loss 0
    iperf_server 5218
    iperf_client "$LAB_SERVER4" 5218 -t 2.5 -C bbr
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

run_short_http() {
    # request/response: 80 connections, 4 at a time, the client sends 150 KB and waits for the
    # server's one-byte reply before closing, so its socket is ESTABLISHED while the ACKs come back
    # and tcp_probe records every one (short-conns closes at once: its ACKs arrive in FIN_WAIT1,
    # where tcp_probe is silent). 2 % drop in both directions: loss exits, HyStart exits, lost ACKs.
    case_begin short-http 5210 --rate 50mbit --burst 16k --limit 150k --loss 20 --loss-dir both
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port 5210 --cc cubic \
        --reply-every 150000
    local srv=$LAB_BG_PID
    sleep 0.5
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port 5210 \
        --bytes 150000 --conns 80 --parallel 4 --await-reply --cc cubic 2> "$WORK/short.txt" || true
    tail -1 "$WORK/short.txt" | sed 's/^/  /'
    sleep 1
    kill "$srv" 2>/dev/null || true
    wait "$srv" 2>/dev/null || true
    case_end
}

run_http_both() {
    # HTTP-like: the client sends a 300-byte request, the server answers 30 KB, 200 connections 4 at
    # a time, 1 % random drop in both directions, no reordering (RPS pinned, offloads off). The
    # server is the data sender of the responses: the client's capture is their receiver's vantage,
    # the server's capture their sender's, so the two captures of one connection are the truth of
    # which response segment was a retransmission and which (none) was reordered.
    case_begin http-both 5218 --rate 50mbit --burst 16k --limit 150k --loss 10 --loss-dir both
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port 5218 --cc cubic \
        --reply-every 300 --response 30000
    local srv=$LAB_BG_PID
    sleep 0.5
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port 5218 \
        --bytes 300 --response 30000 --conns 200 --parallel 4 --await-reply --cc cubic 2> "$WORK/short.txt" || true
    tail -1 "$WORK/short.txt" | sed 's/^/  /'
    sleep 1
    kill "$srv" 2>/dev/null || true
    wait "$srv" 2>/dev/null || true
    case_end
}

run_short_lowrtt() {
    # no bottleneck (RTT 15-100 µs on the bare veth path) and 10 % client->server drop: holes in the
    # first few segments of short flows, filled by retransmissions, before a receiver-side analyser
    # has seen enough IPv4 ids to learn the sender's id pattern (reordering vs retransmission)
    case_begin short-lowrtt 5216 --rate none --loss 100
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port 5216 --cc cubic \
        --reply-every 20000
    local srv=$LAB_BG_PID
    sleep 0.5
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port 5216 \
        --bytes 20000 --conns 150 --parallel 2 --await-reply --cc cubic 2> "$WORK/short.txt" || true
    tail -1 "$WORK/short.txt" | sed 's/^/  /'
    sleep 1
    kill "$srv" 2>/dev/null || true
    wait "$srv" 2>/dev/null || true
    case_end
}

run_zero_window() {
    # the receiving application reads nothing for 2 s after accept (64 KB SO_RCVBUF on the
    # listener): the window closes, the sender's persist timer probes it (tcp_xmit_probe_skb),
    # then the reader drains 3 MB at full speed
    case_begin zero-window 5211 --rate 50mbit --burst 16k --limit 150k --loss 0
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port 5211 --count 1 \
        --rcvbuf 65536 --stall 2 --cc cubic
    local srv=$LAB_BG_PID
    sleep 0.5
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port 5211 \
        --bytes 3000000 --cc cubic
    wait "$srv" 2>/dev/null || true
    case_end
}

run_cubic_clean() {
    # no loss, paced below the bottleneck (unpaced bursts overflow the per-CPU netdev backlog of the veth pair and drop outside the tbf):
    # throughput against iperf3's own receiver figure
    case_begin cubic-clean 5212 --rate 20mbit --burst 16k --limit 100k --loss 0
    iperf_server 5212
    iperf_client "$LAB_SERVER4" 5212 -t 2 -C cubic --fq-rate 15M
    case_end
}

# cwnd pinned at 6 segments by a locked route metric in the sender's namespace (docs/design.md "Stuck cwnd": the stuck
# window, made for real): every round carries 6 segments although the sender always has data
# tcp_init_metrics applies a locked cwnd metric (snd_cwnd_clamp) only from a tcp_metrics entry for
# the destination, so metrics saving is turned back on in the client and one warm-up connection
# (port 5299, in the captures too) creates the entry before the measured flow.
cwnd_lock() {
    lab_ns client ip route replace default via "$LAB_ROUTER4_C" dev "$LAB_IF_CLIENT" cwnd lock 6
    lab_ns client sysctl -qw net.ipv4.tcp_no_metrics_save=0
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port 5299 --count 1
    local srv=$LAB_BG_PID
    sleep 0.3
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port 5299 --bytes 20000
    wait "$srv" 2>/dev/null || true
    lab_ns client ip tcp_metrics show | sed 's/^/  tcp_metrics: /'
}

run_cwnd_locked() {
    case_begin cwnd-locked 5213 --rate 50mbit --burst 16k --limit 150k --loss 0
    cwnd_lock
    iperf_server 5213
    iperf_client "$LAB_SERVER4" 5213 -t 2 -C cubic
    case_end
}

run_cwnd_locked_tso() {
    case_begin cwnd-locked-tso 5214 --rate 50mbit --burst 16k --limit 150k --loss 0 --offloads on
    cwnd_lock
    iperf_server 5214
    iperf_client "$LAB_SERVER4" 5214 -t 2 -C cubic
    case_end
}

run_reorder_lane() {
    # real reordering on purpose: the router sends 2 % of the client's segments (chosen at random by
    # nftables) through a slow lane, an htb class of 5 Mbit/s that holds each for >= 2.3 ms while the
    # others pass at once through a 10 Gbit/s class: those arrive after segments sent later. This
    # kernel has no tc classifiers (fw, u32 ...), so nftables picks the class by skb->priority
    # (meta priority set 1:2, which htb_classify reads). RPS pinned, offloads off, no drop: every
    # segment the client sends reaches the server.
    case_begin reorder-lane 5217 --loss 0
    lab_ns router tc qdisc replace dev r1 root handle 1: htb default 1 r2q 10000
    lab_ns router tc class add dev r1 parent 1: classid 1:1 htb rate 10gbit
    lab_ns router tc class add dev r1 parent 1: classid 1:2 htb rate 5mbit ceil 5mbit
    lab_ns router nft -f - <<'EOF'
table inet ftreorder {
    chain lane {
        type filter hook forward priority 0; policy accept;
        iifname "r0" tcp dport 5217 tcp flags & (syn | fin | rst) == 0 numgen random mod 1000 < 20 meta priority set 1:2
    }
}
EOF
    iperf_server 5217
    iperf_client "$LAB_SERVER4" 5217 -n 2M -C cubic
    lab_ns router tc -s class show dev r1 | grep -A1 "^class" | sed 's/^/  /'
    case_end
}

run_app_limited() {
    # the application sends 2 Mbit/s through a 50 Mbit/s path: small flights, but limited by the
    # application, not by cwnd (must not be called cwnd-stuck)
    case_begin app-limited 5215 --rate 50mbit --burst 16k --limit 150k --loss 0
    iperf_server 5215
    iperf_client "$LAB_SERVER4" 5215 -t 2 -C cubic -b 2M
    case_end
}

run_rwnd_start() {   # NAME PORT CC
    # a receive-window-limited start: the receiver's tcp_rmem starts at 4 KB, so its first
    # windows hold 2-3 segments and autotuning (tcp_rcv_space_adjust) opens them round by round
    # while the application reads at once; the sender's cwnd is then free to grow into the 50
    # Mbit/s tbf's 600 kB queue (about 400 packets), where the kernel's slow start ends (HyStart or
    # loss, tcp_probe's first ssthresh). One 20 MB connection per case, congestion control per socket.
    case_begin "$1" "$2" --rate 50mbit --burst 16k --limit 600k --loss 0
    lab_ns server sysctl -qw net.ipv4.tcp_rmem="4096 4096 6291456"
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port "$2" --count 1 --cc "$3"
    local srv=$LAB_BG_PID
    sleep 0.5
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port "$2" \
        --bytes 20000000 --cc "$3"
    wait "$srv" 2>/dev/null || true
    case_end
}
run_rwnd_start_cubic() { run_rwnd_start rwnd-start-cubic 5219 cubic; }
run_rwnd_start_reno() { run_rwnd_start rwnd-start-reno 5220 reno; }
run_rwnd_start_bbr() { run_rwnd_start rwnd-start-bbr 5221 bbr; }

run_delay_path() {   # NAME PORT CC RATE
    # a 10 ms path: the router's delay line holds each packet 5 ms each way (scripts/lab/netns.sh
    # --delay-ms) before the tbf, whose 300 kB queue (48 ms at 50 Mbit/s, 120 ms at 20) is deep
    # enough for BBR's STARTUP gain (2.89) not to overflow it, so STARTUP ends on its bandwidth
    # plateau and bbr_check_drain sets ssthresh (the kernel's exit, in tcp_probe), and CUBIC's
    # HyStart sees a real delay_min. Three connections one after another, 3 MB each; the client
    # waits for the server's one-byte reply before shutdown, so its socket stays ESTABLISHED while
    # the ACKs arrive and tcp_probe records them.
    case_begin "$1" "$2" --rate "$4" --burst 16k --limit 300k --loss 0 --delay-ms 5
    path_rtt
    lab_bg server python3 "$HERE/lab/tcpblast.py" server --bind "$LAB_SERVER4" --port "$2" --cc "$3" \
        --reply-every 3000000
    local srv=$LAB_BG_PID
    sleep 0.5
    lab_ns client python3 "$HERE/lab/tcpblast.py" client --addr "$LAB_SERVER4" --port "$2" \
        --bytes 3000000 --conns 3 --await-reply --cc "$3" 2> "$WORK/short.txt" || true
    sed 's/^/  /' "$WORK/short.txt"
    sleep 0.5
    kill "$srv" 2>/dev/null || true
    wait "$srv" 2>/dev/null || true
    case_end
}
run_bbr_10ms() { run_delay_path bbr-10ms 5222 bbr 50mbit; }
run_cubic_10ms() { run_delay_path cubic-10ms 5223 cubic 50mbit; }
run_bbr_10ms_20mbit() { run_delay_path bbr-10ms-20mbit 5224 bbr 20mbit; }

for c in "${CASES[@]}"; do
    fn="run_${c//-/_}"
    declare -F "$fn" >/dev/null || { echo "unknown case $c" >&2; exit 2; }
    "$fn"
done
echo "== done: $OUT"
ls -l "$OUT"
