#!/usr/bin/env bash
# Times flowtrace analyze, tcptrace and tshark's TCP analysis on the same capture, in one run,
# whole processes (JVM start-up included), median of N repetitions; prints packets/s and peak RSS.
#   bench/compare-peers.sh CAPTURE [REPETITIONS]      (TSHARK_REPS=1 to time tshark once)
# Needs tcptrace and tshark (apt-get install tcptrace tshark) and GNU time (/usr/bin/time).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cap="${1:?usage: compare-peers.sh CAPTURE [REPETITIONS]}"
reps="${2:-5}"
for tool in tcptrace tshark capinfos /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install tcptrace tshark time)" >&2; exit 1; }
done
"$here/flowtrace" analyze -q --json "$cap" >/dev/null   # builds if needed, warms the page cache
packets=$(capinfos -c -M "$cap" | awk -F': *' '/Number of packets/ {print $2}')
run() { # name, command...: prints "seconds maxrss_kb" of the median run
    local name="$1"; shift
    local reps="$reps"
    [[ "$name" == tshark* ]] && reps="${TSHARK_REPS:-$reps}"   # tshark is ~100x slower: fewer runs
    local results=()
    for ((i = 0; i < reps; i++)); do
        /usr/bin/time -f "%e %M" -o /tmp/compare-peers.time "$@" >/dev/null 2>/dev/null
        results+=("$(cat /tmp/compare-peers.time)")
    done
    printf '%s\n' "${results[@]}" | sort -n | awk -v n="$reps" -v name="$name" -v p="$packets" '
        { t[NR] = $1; m[NR] = $2 }
        END { i = int((n + 1) / 2); printf "%-28s %10.2f s %14.0f packets/s %10.0f MB RSS  (min %.2f s, max %.2f s)\n",
              name, t[i], p / t[i], m[i] / 1024, t[1], t[n] }'
}
echo "capture: $cap ($packets packets), $reps runs each, median; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "flowtrace analyze --json" "$here/flowtrace" analyze -q --json "$cap"
run "tcptrace -l -r -n" tcptrace -l -r -n "$cap"
run "tshark -2 tcp.analysis" tshark -2 -r "$cap" -T fields -e frame.number -e tcp.analysis.flags -e tcp.analysis.ack_rtt
