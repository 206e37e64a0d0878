#!/usr/bin/env bash
# bench/openvpn-bench.sh - the OpenVPN path's benchmark (docs/BENCHMARKS.md "## OpenVPN"):
# `flowtrace analyze --json` on a real OpenVPN capture replicated by ScaleUp (address-shifted copies,
# so every copy is new flows and new sessions), in packets/s and sessions/s, next to a baseline on
# the same file in the same run: `analyze -f tcp`, the same read with every UDP datagram filtered
# out, so no OpenVPN pass runs.
#
# Usage: bench/openvpn-bench.sh [COPIES (default 200)] [CAPTURE (default
#        testdata/openvpn/push-100k.client.pcap.gz)] [RUNS (default 3)]
# Lines starting with OVPNBENCH are the results (median [min, max] of RUNS); the rest is log.
# Needs Java 17, Maven, capinfos (tshark), GNU time. Inputs go to $FLOWTRACE_BENCH_DIR
# (default /tmp/flowtrace-bench) and are reused by the next run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${FLOWTRACE_BENCH_DIR:-/tmp/flowtrace-bench}"
copies="${1:-200}"
src="${2:-$here/testdata/openvpn/push-100k.client.pcap.gz}"
runs="${3:-3}"
for tool in capinfos /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "openvpn-bench.sh: missing $tool (apt-get install tshark time)" >&2; exit 1; }
done
mkdir -p "$work"
jar="$here/bench/target/flowtrace-bench.jar"
[[ -f "$jar" ]] || (cd "$here" && mvn -q -B -ntp -DskipTests -pl bench -am package)
cap="$work/openvpn-$(basename "$src" .pcap.gz)-x$copies.pcap"
[[ -f "$cap" ]] || java -cp "$jar" io.flowtrace.bench.ScaleUp "$src" "$cap" "$copies"
timing="$(mktemp "$work/openvpn-bench.XXXXXX")"
trap 'rm -f -- "$timing" "$timing".out' EXIT

"$here/flowtrace" analyze -q --json "$cap" >/dev/null   # builds if needed, warms the page cache
packets=$(capinfos -c -M "$cap" | awk -F': *' '/Number of packets/ {print $2}')
sessions=$("$here/flowtrace" analyze -q --json "$cap" | grep -c '"protocol": *"openvpn"' || true)
[[ "$sessions" -gt 0 ]] || { echo "openvpn-bench.sh: no OpenVPN session in $cap" >&2; exit 1; }

median() { sort -n | awk '{a[NR] = $1} END {printf "%s [%s, %s]", a[int((NR + 1) / 2)], a[1], a[NR]}'; }
measure() {   # name, then the command: wall packets/s and sessions/s per run
    local name="$1" rates=() srates=() rss=() i
    shift
    for ((i = 0; i < runs; i++)); do
        /usr/bin/time -f "%e %M" -o "$timing" "$@" > "$timing.out"
        read -r wall kb < "$timing"
        rates+=("$(awk -v p="$packets" -v w="$wall" 'BEGIN {printf "%.0f", p / w}')")
        srates+=("$(awk -v s="$sessions" -v w="$wall" 'BEGIN {printf "%.0f", s / w}')")
        rss+=("$((kb / 1024))")
    done
    local per=""   # sessions/s only where the OpenVPN pass ran
    [[ "$name" == *OpenVPN* ]] && per=", $(printf '%s\n' "${srates[@]}" | median) sessions/s"
    echo "OVPNBENCH $name: $(printf '%s\n' "${rates[@]}" | median) packets/s$per, max RSS $(printf '%s\n' "${rss[@]}" |
        median) MiB (wall, $runs runs)"
}
echo "OVPNBENCH input: $cap, $packets packets, $sessions OpenVPN sessions ($copies copies of $(basename "$src"))"
echo "OVPNBENCH load before: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "analyze --json (TCP + OpenVPN passes)" "$here/flowtrace" analyze -q --json "$cap"
measure "analyze --json -f tcp (no UDP: the baseline)" "$here/flowtrace" analyze -q --json -f tcp "$cap"
echo "OVPNBENCH load after: $(cut -d' ' -f1-3 /proc/loadavg)"
