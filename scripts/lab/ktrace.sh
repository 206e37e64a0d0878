# shellcheck shell=bash
# scripts/lab/ktrace.sh - sender-kernel ground truth from tracefs, in a private trace instance.
#
#   ktrace_start PORT RAWFILE     creates /sys/kernel/tracing/instances/flowtrace-<pid>, sets
#                                 trace_clock=tai (CLOCK_TAI; equals CLOCK_REALTIME + the TAI offset,
#                                 which ktrace_start measures and writes to RAWFILE.meta), a 64 MiB
#                                 per-CPU buffer, and enables tcp:tcp_retransmit_skb,
#                                 tcp:tcp_retransmit_synack, tcp:tcp_cong_state_set, tcp:tcp_probe,
#                                 tcp:tcp_destroy_sock, each filtered to "sport == PORT || dport == PORT"
#                                 (tcp_probe to "dport == PORT": only client sockets, the data senders);
#                                 streams trace_pipe into RAWFILE (text).
#   ktrace_stop                   stops tracing, drains the pipe, records per-CPU overruns in
#                                 RAWFILE.meta and removes the instance.
# The tracepoints are global (not per namespace): the port filter keeps other traffic out, and the
# lab's ports (5001-5999) are used by nothing else on the machine.

KTRACE_ROOT=/sys/kernel/tracing
KTRACE_EVENTS="tcp_retransmit_skb tcp_retransmit_synack tcp_cong_state_set tcp_probe tcp_destroy_sock"

ktrace_start() {
    local port=$1 raw=$2
    [ -d "$KTRACE_ROOT/events" ] || mount -t tracefs nodev "$KTRACE_ROOT"
    KTRACE_INST=$KTRACE_ROOT/instances/flowtrace-$$
    KTRACE_RAW=$raw
    [ -d "$KTRACE_INST" ] && rmdir "$KTRACE_INST"
    mkdir "$KTRACE_INST"
    echo tai > "$KTRACE_INST/trace_clock"
    echo 65536 > "$KTRACE_INST/buffer_size_kb"
    local ev
    for ev in $KTRACE_EVENTS; do
        if [ -d "$KTRACE_INST/events/tcp/$ev" ]; then
            if [ "$ev" = tcp_probe ]; then
                # only the data sender's (client's) socket: its remote port is the server port
                echo "dport == $port" > "$KTRACE_INST/events/tcp/$ev/filter"
            else
                echo "sport == $port || dport == $port" > "$KTRACE_INST/events/tcp/$ev/filter"
            fi
            echo 1 > "$KTRACE_INST/events/tcp/$ev/enable"
        else
            echo "ktrace: event tcp:$ev missing in this kernel" >&2
        fi
    done
    python3 -c 'import time
a=time.clock_gettime(time.CLOCK_TAI); b=time.time(); c=time.clock_gettime(time.CLOCK_TAI)
print("tai_minus_realtime_s=%.6f" % ((a+c)/2-b))' > "$raw.meta"
    echo "trace_clock=tai" >> "$raw.meta"
    echo "port=$port" >> "$raw.meta"
    cat "$KTRACE_INST/trace_pipe" > "$raw" &
    KTRACE_CAT=$!
    echo 1 > "$KTRACE_INST/tracing_on"
}

ktrace_stop() {
    [ -n "${KTRACE_INST:-}" ] && [ -d "$KTRACE_INST" ] || return 0
    echo 0 > "$KTRACE_INST/tracing_on"
    # let the reader drain what is left in the ring
    local last=-1 now i
    for i in $(seq 1 50); do
        now=$(stat -c %s "$KTRACE_RAW")
        [ "$now" = "$last" ] && break
        last=$now
        sleep 0.3
    done
    kill "$KTRACE_CAT" 2>/dev/null || true
    wait "$KTRACE_CAT" 2>/dev/null || true
    local c
    for c in "$KTRACE_INST"/per_cpu/cpu*; do
        echo "$(basename "$c")_overrun=$(awk '/^overrun:/{print $2}' "$c/stats")" >> "$KTRACE_RAW.meta"
    done
    local ev
    for ev in $KTRACE_EVENTS; do
        [ -d "$KTRACE_INST/events/tcp/$ev" ] && echo 0 > "$KTRACE_INST/events/tcp/$ev/enable"
    done
    rmdir "$KTRACE_INST"
    KTRACE_INST=
}
