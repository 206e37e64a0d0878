#!/usr/bin/env bash
# The HTML report at 10^4, 10^5 and 10^6 points (docs/BENCHMARKS.md, "Report"): for one real lossy
# flow (testdata/tcp/cubic-loss.sender.pcap.gz's connection repeated by LongFlow to N packets) it
# times `flowtrace analyze --report` (wall, peak RSS) and the page's size, then opens the page in
# headless Chromium over the DevTools protocol (bench/report_scale.py): time to interactive (the
# page's script has drawn every chart and the browser has painted), one drag-zoom, a reset.
#
#   bench/report-scale.sh [--reps N] [--sizes 10000,100000,1000000] [--profile]
#
# Prints a Markdown table (medians of N browser runs, min-max) and the load average before and after.
# Inputs and pages go to $FLOWTRACE_BENCH_DIR/report (default /tmp/flowtrace-bench/report).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
reps=3
sizes="10000,100000,1000000"
profile=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --reps) reps="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --profile) profile="--profile"; shift ;;
        *) echo "usage: bench/report-scale.sh [--reps N] [--sizes N,N,...] [--profile]" >&2; exit 2 ;;
    esac
done
command -v chromium >/dev/null || { echo "report-scale: chromium is needed (apt-get install chromium)" >&2; exit 1; }
dir="${FLOWTRACE_BENCH_DIR:-/tmp/flowtrace-bench}/report"
mkdir -p "$dir"
jar="$here/bench/target/flowtrace-bench.jar"
if [[ ! -f "$jar" ]]; then
    (cd "$here" && mvn -q -B -ntp -pl bench -am package -DskipTests)
fi
"$here/flowtrace" --version >/dev/null 2>&1 || true # builds the command line and its CDS archive if needed

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(chromium --version 2>/dev/null); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "| packets | analyze --report wall | peak RSS | page size | to interactive (ms) | zoom (ms) | zoom to next frame (ms) | reset (ms) | JS heap |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
IFS=, read -ra ns <<<"$sizes"
for n in "${ns[@]}"; do
    pcap="$dir/long-$n.pcap"
    [[ -f "$pcap" ]] || java -cp "$jar" io.flowtrace.bench.LongFlow "$here/testdata/tcp/cubic-loss.sender.pcap.gz" "$pcap" "$n" 2>/dev/null
    page="$dir/report-$n.html"
    timing="$dir/time-$n.txt"
    /usr/bin/time -f "%e %M" -o "$timing" "$here/flowtrace" analyze -q --report "$page" "$pcap" >/dev/null
    read -r wall rss <"$timing"
    results="$dir/browser-$n.jsonl"
    : >"$results"
    for ((r = 0; r < reps; r++)); do
        python3 "$here/bench/report_scale.py" $profile "$page" >>"$results"
    done
    python3 - "$n" "$wall" "$rss" "$results" <<'EOF'
import json, statistics, sys
n, wall, rss, path = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
runs = [json.loads(line) for line in open(path)]
for r in runs:
    if r["errors"]:
        sys.exit(f"report-scale: errors in the page: {r['errors']}")
    if not r["x_after"][1] - r["x_after"][0] < (r["x_before"][1] - r["x_before"][0]) * 0.5:
        sys.exit(f"report-scale: the drag did not zoom: {r}")
def cell(key):
    v = [r[key] for r in runs]
    return f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})"
print(f"| {int(n):,} | {wall:.2f} s | {rss / 1024:.0f} MB | {runs[0]['bytes'] / 1e6:.1f} MB | {cell('interactive_ms')} "
      f"| {cell('zoom_ms')} | {cell('zoom_frame_ms')} | {cell('reset_ms')} | {statistics.median(r['heap_mb'] for r in runs):.0f} MB |")
if "profile" in runs[0]:
    print(f"\nprofile at {int(n):,} (self ms, load): {runs[0]['profile'][:8]}\n"
          f"zoom and reset: {runs[0]['profile_zoom_and_reset'][:8]}\n", file=sys.stderr)
EOF
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
