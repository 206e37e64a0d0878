#!/usr/bin/env bash
# bench/job-targets.sh - every figure the job's targets need (docs/BENCHMARKS.md "## Job", "Targets"),
# in one command, for an idle machine: for each of the two inputs at 5 M packets, in one JVM run each,
# (0) `flowtrace analyze --json` whole process, (1) consume + decode, (C) the Flink ceiling
# (source -> keyBy flow key -> discarding sink) and (2) the whole job at parallelism 1 and 2, every row
# in packets/s and flows/s with the load average before and after it; then (3) event -> PostgreSQL
# latency at half the job's steady rate (short connections), and the closing "JOBBENCH target" lines
# (each target as a ratio of the same run's medians). With --scale: (5) 10^6 concurrent flows in
# RocksDB (checkpoint size and duration, bytes per flow).
#
# Usage: bench/job-targets.sh [--scale]    (PACKETS, RUNS, LOG_DIR override the defaults below)
# Output: the JOBBENCH lines of every run on stdout; each run's whole log in $LOG_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKETS=${PACKETS:-5000000}
RUNS=${RUNS:-3}
LOG_DIR=${LOG_DIR:-$(mktemp -d /tmp/job-targets.XXXXXX)}
echo "job-targets: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), logs in $LOG_DIR"

run() { # NAME, then JobBench options
  local name=$1
  shift
  echo "== $name: bench/job-bench.sh $*"
  bench/job-bench.sh "$@" 2>"$LOG_DIR/$name.err" | tee "$LOG_DIR/$name.out" | grep '^JOBBENCH'
}

run short --capture join/client.pcap --packets "$PACKETS" --runs "$RUNS" --parallelism 1,2 \
  --phases analyze,consume,ceiling,job,latency --rate half-steady --latency-seconds 20 --latency-runs "$RUNS"
run lossy --capture tcp/cubic-loss.sender.pcap.gz --packets "$PACKETS" --runs "$RUNS" --parallelism 1,2 \
  --phases analyze,consume,ceiling,job
if [[ "${1:-}" == "--scale" ]]; then
  run scale --capture join/client.pcap --phases scale --scale-flows 1000000
fi
echo "job-targets: done $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
