#!/usr/bin/env bash
# Times `flowtrace analyze --json`, `tcptrace -l -r -n` and tshark's TCP analysis on the same capture,
# in one run, one tool after the other: whole processes (JVM start-up included), median of N runs.
# For each tool: wall seconds, CPU seconds (user + system: what a busy machine cannot inflate as much),
# packets/s and peak RSS; for flowtrace also its steady state: the seconds and packets/s it reports
# itself from opening the capture to the last flow written, i.e. without JVM start-up and class loading.
#   bench/compare-peers.sh [CAPTURE] [REPETITIONS]       (CAPTURE "" for the default input)
# Without CAPTURE it makes (once, in $FLOWTRACE_BENCH_DIR, default /tmp/flowtrace-bench) the input of
# issue-sized runs: one real lossy connection (testdata/tcp/cubic-loss.sender.pcap.gz) repeated by
# `LongFlow` to 466,000 packets, then 10 address-shifted copies by `ScaleUp`: 4,670,280 packets,
# 10 flows of 467,028 packets. tshark (about 100x slower) is timed on one copy (TSHARK_CAPTURE to
# choose another, TSHARK_REPS runs, default 1; TSHARK_REPS=0 skips it).
# Needs tcptrace, tshark (capinfos) and GNU time: apt-get install tcptrace tshark time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${FLOWTRACE_BENCH_DIR:-/tmp/flowtrace-bench}"
reps="${2:-5}"
for tool in tcptrace tshark capinfos /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "compare-peers.sh: missing $tool (apt-get install tcptrace tshark time)" >&2; exit 1; }
done
mkdir -p "$work"
timing="$(mktemp "$work/compare-peers.XXXXXX")"
trap 'rm -f -- "$timing" "$timing".err' EXIT

if [[ -n "${1:-}" ]]; then
    cap="$1"
    tshark_cap="${TSHARK_CAPTURE:-$cap}"
else
    jar="$here/bench/target/flowtrace-bench.jar"
    if [[ ! -f "$jar" ]]; then
        (cd "$here" && mvn -q -B -ntp -DskipTests -pl bench -am package)
    fi
    one="$work/long-flow-466k.pcap"
    cap="$work/long-flow-466k-x10.pcap"
    [[ -f "$one" ]] || java -cp "$jar" io.flowtrace.bench.LongFlow "$here/testdata/tcp/cubic-loss.sender.pcap.gz" "$one" 466000
    [[ -f "$cap" ]] || java -cp "$jar" io.flowtrace.bench.ScaleUp "$one" "$cap" 10
    tshark_cap="${TSHARK_CAPTURE:-$one}"
fi

"$here/flowtrace" analyze -q --json "$cap" >/dev/null   # builds if needed, writes the CDS archive, warms the page cache
packets_of() { capinfos -c -M "$1" | awk -F': *' '/Number of packets/ {print $2}'; }
packets=$(packets_of "$cap")

# run NAME PACKETS COMMAND...: one table line from the median run (by wall time) of $reps runs.
run() {
    local name="$1" p="$2"
    shift 2
    local results=() steady
    for ((i = 0; i < reps; i++)); do
        /usr/bin/time -f "%e %U %S %M" -o "$timing" "$@" >/dev/null 2>"$timing.err"
        # flowtrace's own summary line ends "; 1.23 s (3,456,789 packets/s)": time since the capture was opened
        steady=$(sed -nE 's/.*; ([0-9.]+) s \(([0-9,]+) packets\/s\)$/\1 \2/p' "$timing.err" | tr -d , | sed -n 1p)
        results+=("$(cat "$timing") ${steady:--}")
    done
    printf '%s\n' "${results[@]}" | sort -n | awk -v n="$reps" -v name="$name" -v p="$p" '
        { wall[NR] = $1; cpu[NR] = $2 + $3; rss[NR] = $4; st[NR] = $5 }
        END {
            i = int((n + 1) / 2)
            steady = st[i] == "-" ? "-" : sprintf("%.2f s, %.0f packets/s", st[i], p / st[i])
            printf "| %-26s | %7.2f s (%.2f-%.2f) | %10.0f | %6.2f s | %6.0f MB | %s |\n",
                   name, wall[i], wall[1], wall[n], p / wall[i], cpu[i], rss[i] / 1024, steady
        }'
}
echo "capture: $cap ($packets packets), $reps runs each, median by wall time;" \
    "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
echo
echo "| tool | wall median (min-max) | packets/s (wall) | CPU (user+sys) | peak RSS | steady state (after JVM start) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
run "flowtrace analyze --json" "$packets" "$here/flowtrace" analyze --json "$cap"
run "tcptrace -l -r -n" "$packets" tcptrace -l -r -n "$cap"
if [[ "${TSHARK_REPS:-1}" -gt 0 ]]; then
    tp=$(packets_of "$tshark_cap")
    reps="${TSHARK_REPS:-1}" run "tshark -2 tcp.analysis ($tp pkts)" "$tp" \
        tshark -2 -n -r "$tshark_cap" -T fields -e frame.number -e tcp.analysis.flags -e tcp.analysis.ack_rtt
    reps="${TSHARK_REPS:-1}" run "flowtrace on the same ($tp)" "$tp" "$here/flowtrace" analyze --json "$tshark_cap"
fi
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
