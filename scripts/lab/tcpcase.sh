# shellcheck shell=bash
# scripts/lab/tcpcase.sh - one TCP capture case with kernel truth; used by capture-tcp.sh and
# capture-long-lossy.sh. Source after netns.sh and ktrace.sh; set OUT (output dir), WORK (scratch
# dir), HERE (scripts/), and optionally COMPRESS=0 (default 1: gzip pcaps and TSVs).
#
#   case_begin NAME PORT lab_setup-options...   topology, counters "before", tcpdump -s 128 on the
#                                               client veth (sender) and server veth (receiver),
#                                               tracefs on PORT
#   case_end                                    stop all, then write into OUT:
#       NAME.{sender,receiver}.pcap[.gz]  NAME.{sender,receiver}.tshark.tsv[.gz]
#       NAME.{sender,receiver}.tcptrace.txt (gzipped as .txt.gz when over 200 kB)
#       NAME.kernel.json  NAME.counters.json  and a line in OUT/summary.json
#       NAME.iperf3.json (iperf3 -J of the client, with the server's receiver figures) when the
#       case ran iperf3
#       NAME.path.txt when the case has a delay line (lab_setup --delay-ms): ping's RTT over the
#       path before the case (path_rtt) and the delay line's own count of packets and late ones
#   path_rtt                                    ping -c 50 -i 0.02 client -> server into NAME.path.txt
#   iperf_server PORT / iperf_client ADDR PORT opts...   iperf3 -s -1 in the server namespace,
#                                               iperf3 -c --repeating-payload in the client one
#                                               (IPERF_PREFIX / IPERF_SERVER_PREFIX: e.g. taskset)

TCP_FIELDS="frame.number frame.time_epoch ip.src ipv6.src tcp.srcport ip.dst ipv6.dst tcp.dstport
tcp.seq_raw tcp.ack_raw tcp.len tcp.flags tcp.window_size_value
tcp.analysis.retransmission tcp.analysis.fast_retransmission tcp.analysis.spurious_retransmission
tcp.analysis.out_of_order tcp.analysis.lost_segment tcp.analysis.duplicate_ack
tcp.analysis.zero_window tcp.analysis.zero_window_probe tcp.analysis.keep_alive tcp.analysis.ack_rtt ip.id"

tshark_tcp() {   # PCAP TSV
    local args=() x
    for x in $TCP_FIELDS; do args+=(-e "$x"); done
    tshark -r "$1" -n -T fields -E header=y -E separator=/t -E occurrence=f "${args[@]}" > "$2" 2>/dev/null
}

snap_counters() {   # before|after
    local when=$1 ns
    for ns in client server router; do
        lab_ns "$ns" cat /proc/net/snmp /proc/net/netstat > "$WORK/snap/$ns.$when"
    done
    cat /proc/net/softnet_stat > "$WORK/snap/softnet.$when"
    if [ "$when" = after ]; then
        lab_ns router tc -s qdisc show > "$WORK/snap/router.tc.after"
        lab_nft_counter > "$WORK/snap/router.nft.after" || true
    fi
}

# case_begin NAME PORT lab_setup-options...
case_begin() {
    CASE=$1 PORT=$2; shift 2
    echo "=================== $CASE (server port $PORT)"
    rm -rf "$WORK/snap"; mkdir -p "$WORK/snap"
    lab_setup "$@"
    SERVER4=$LAB_SERVER4
    snap_counters before
    lab_capture client c0 "$WORK/$CASE.sender.pcap" -s 128; CAP_S=$LAB_CAP_PID
    lab_capture server s0 "$WORK/$CASE.receiver.pcap" -s 128; CAP_R=$LAB_CAP_PID
    ktrace_start "$PORT" "$WORK/$CASE.trace.txt"
    CASE_T0=$(date +%s.%N)
}

case_end() {
    sleep 0.5
    ktrace_stop
    lab_stop_capture "$CAP_S" "$CAP_R"
    snap_counters after
    lab_teardown
    local f=$OUT/$CASE
    if [ "${LAB_DELAY_MS:-0}" != 0 ]; then
        sleep 0.2
        { cat "$WORK/path.txt" 2>/dev/null; grep "^delay" "$LAB_DELAY_LOG"; } > "$f.path.txt"
        rm -f "$LAB_DELAY_LOG" "$WORK/path.txt"
        sed 's/^/  /' "$f.path.txt"
    fi
    python3 "$HERE/lab/counters.py" "$WORK/snap" --case "$CASE" --out "$f.counters.json"
    python3 "$HERE/lab/kernel_truth.py" "$WORK/$CASE.trace.txt" --case "$CASE" --server-port "$PORT" \
        --sender client --out "$f.kernel.json"
    local v
    for v in sender receiver; do
        tshark_tcp "$WORK/$CASE.$v.pcap" "$WORK/$CASE.$v.tshark.tsv"
        tcptrace -l -r -n "$WORK/$CASE.$v.pcap" > "$f.$v.tcptrace.txt" 2>&1 || true
        sed -i "s|$WORK/||" "$f.$v.tcptrace.txt"
    done
    python3 "$HERE/lab/verify_truth.py" "$f.kernel.json" "$WORK/$CASE.sender.tshark.tsv" \
        "$WORK/$CASE.receiver.tshark.tsv" 2>/dev/null
    for v in sender receiver; do
        rm -f "$f.$v.pcap" "$f.$v.pcap.gz" "$f.$v.tshark.tsv" "$f.$v.tshark.tsv.gz" "$f.$v.tcptrace.txt.gz"
        if [ "${COMPRESS:-1}" = 1 ]; then
            gzip -9nc "$WORK/$CASE.$v.pcap" > "$f.$v.pcap.gz"
            gzip -9nc "$WORK/$CASE.$v.tshark.tsv" > "$f.$v.tshark.tsv.gz"
        else
            cp "$WORK/$CASE.$v.pcap" "$f.$v.pcap"
            cp "$WORK/$CASE.$v.tshark.tsv" "$f.$v.tshark.tsv"
        fi
        if [ "$(stat -c %s "$f.$v.tcptrace.txt")" -gt 200000 ]; then
            gzip -9nf "$f.$v.tcptrace.txt"
        fi
    done
    rm -f "$f.iperf3.json"
    [ -s "$WORK/iperf.json" ] && cp "$WORK/iperf.json" "$f.iperf3.json"
    python3 "$HERE/lab/summarize.py" "$OUT" | grep "^$CASE " || true
    rm -f "$WORK/$CASE".* "$WORK/iperf.json"
}

path_rtt() {
    lab_ns client ping -c 50 -i 0.02 -q "$LAB_SERVER4" | tail -2 > "$WORK/path.txt"
}

iperf_server() {   # PORT
    lab_bg server ${IPERF_SERVER_PREFIX:-} iperf3 -s -1 -p "$1"
    IPERF_PID=$LAB_BG_PID
    sleep 0.5
}

iperf_client() {   # ADDR PORT iperf3-options...
    local addr=$1 port=$2; shift 2
    # -J --get-server-output: the JSON holds the receiver's own figures (sum_received), which is
    # what a throughput test compares with
    lab_ns client ${IPERF_PREFIX:-} iperf3 -c "$addr" -p "$port" --repeating-payload -J --get-server-output "$@" \
        > "$WORK/iperf.json" 2>&1 || { cat "$WORK/iperf.json"; return 1; }
    python3 -c 'import json,sys
e=json.load(open(sys.argv[1]))["end"]
for k in ("sum_sent","sum_received"):
    print("  iperf3 %s: %.0f bytes in %.3f s = %.3f Mbit/s" % (k, e[k]["bytes"], e[k]["seconds"], e[k]["bits_per_second"]/1e6))' \
        "$WORK/iperf.json"
    wait "$IPERF_PID" 2>/dev/null || true
}

